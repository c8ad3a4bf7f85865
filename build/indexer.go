package build

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"ccsite/search"
)

// indexer keeps the search index: a goroutine adds and deletes documents
// as the collector hands them over (so the collector never waits for a
// batch to be written), and finish derives the static index.
type indexer struct {
	index   *search.Writer
	prev    *buildState // the last build's manifest, when kept
	ops     chan indexOp
	done    chan error
	changed bool // a document was added or deleted
	deleted bool // documents were deleted from the index
}

// indexOp is work for the indexer: the documents of pages to delete,
// then documents to add (a document of those pages added again with the
// same content stays as it is).
type indexOp struct {
	pages  []string
	docs   []search.Doc
	hashes []uint64 // each document's search.DocHash
}

// openIndexer opens the index in dir (made anew when fresh) and starts
// its goroutine. fresh reports whether it was made anew.
func openIndexer(dir string, fresh bool) (*indexer, error) {
	w, err := search.OpenWriter(dir, fresh)
	if err != nil {
		return nil, err
	}
	x := &indexer{index: w, ops: make(chan indexOp, 64), done: make(chan error, 1)}
	go func() {
		var err error
		for op := range x.ops {
			switch {
			case err != nil:
			case len(op.pages) > 0:
				_, err = x.index.ReplacePagesHashed(op.pages, op.docs, op.hashes)
			case len(op.docs) > 0:
				_, err = x.index.AddHashed(op.docs, op.hashes)
			}
		}
		x.done <- err
	}()
	return x, nil
}

// send hands a unit's documents to the index in place of those of the
// last build's unit at page (every document of its pages: the index
// knows them by page, so the manifest need not list them); when they are
// the same as that unit's, it does nothing at all. It records the
// documents' hash in u.
func (x *indexer) send(u *unit, page string, docs []search.Doc) {
	hashes := make([]uint64, len(docs))
	for i := range docs {
		hashes[i] = search.DocHash(&docs[i])
	}
	u.DocsHash = docsHash(docs, hashes)
	var old *unit
	if x.prev != nil {
		old = x.prev.Units[page]
	}
	if old != nil && old.DocsHash == u.DocsHash {
		return
	}
	op := indexOp{docs: docs, hashes: hashes}
	if old != nil {
		op.pages = pagesOf(old.Files)
		x.deleted = true
	}
	if len(op.pages) > 0 || len(op.docs) > 0 {
		x.changed = true
		x.ops <- op
	}
}

// pagesOf lists the pages among a unit's files: those documents point
// into.
func pagesOf(files []string) []string {
	var pages []string
	for _, f := range files {
		if strings.HasSuffix(f, ".html") {
			pages = append(pages, f)
		}
	}
	return pages
}

// dropGone deletes the documents of the pages of the last build's units
// this build did not reach (sessions gone since), except pages a unit of
// this build holds (a page that moved to another session).
func (x *indexer) dropGone(reached map[string]*unit) {
	if x.prev == nil {
		return
	}
	var goneUnits []*unit
	for _, page := range slices.Sorted(maps.Keys(x.prev.Units)) {
		if reached[page] == nil {
			goneUnits = append(goneUnits, x.prev.Units[page])
		}
	}
	if len(goneUnits) == 0 {
		return
	}
	held := map[string]bool{}
	for _, u := range reached {
		for _, f := range u.Files {
			held[f] = true
		}
	}
	var gone []string
	for _, u := range goneUnits {
		for _, p := range pagesOf(u.Files) {
			if !held[p] {
				gone = append(gone, p)
			}
		}
	}
	if len(gone) > 0 {
		x.changed, x.deleted = true, true
		x.ops <- indexOp{pages: gone}
	}
}

// close finishes the index; it returns the number of documents.
func (x *indexer) close() (int, error) {
	close(x.ops)
	addErr := <-x.done
	x.ops = nil
	n, err := x.index.Close()
	if addErr != nil {
		err = addErr
	}
	// The index's own files are in the state folder, never in the site.
	return n, err
}

// abort stops the indexer when a build fails before close.
func (x *indexer) abort() {
	if x == nil || x.ops == nil {
		return
	}
	close(x.ops)
	<-x.done
	x.ops = nil
	x.index.Abort()
}

// writeStatic writes the static search index through w, or keeps the last
// build's when no document changed. It fills next's record of it.
func (x *indexer) writeStatic(w *siteWriter, docs int, next *buildState) (search.StaticStats, error) {
	if p := x.prev; p != nil && !x.changed && len(p.Static) > 0 && w.exists(p.Static) {
		w.keep(p.Static)
		next.Static, next.Search, next.Docs = p.Static, p.Search, p.Docs
		return p.Search, nil
	}
	var files []string
	keep := func(path string) bool {
		if !w.exists([]string{path}) {
			return false
		}
		w.keep([]string{path})
		files = append(files, path)
		return true
	}
	st, err := x.index.WriteStatic(func(path string, data []byte) error {
		files = append(files, path)
		if path != search.ManifestPath && path != search.APIPath {
			return w.writeShard(path, data)
		}
		_, err := w.write(path, data)
		return err
	}, keep, w.readShard)
	if err != nil {
		return st, fmt.Errorf("static search index: %w", err)
	}
	sort.Strings(files)
	next.Static, next.Search, next.Docs = files, st, docs
	return st, nil
}

// docsHash hashes documents from their search.DocHash (hashes[i] is
// docs[i]'s: every field the index holds, the time as its instant) and
// each time's zone offset, which DocHash leaves out. The index hashes each
// document anyway; hashing every text a second time here was 0.34 CPU-s
// of a cold 1 GB build.
func docsHash(docs []search.Doc, hashes []uint64) string {
	h := sha256.New()
	var b []byte
	for i := range docs {
		_, off := docs[i].Time.Zone()
		b = binary.AppendUvarint(b, hashes[i])
		b = binary.AppendVarint(b, int64(off))
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:16])
}
