// Package search builds the site's search index with bleve and queries it:
// a document per message part worth finding, analysed so a browser can
// reproduce the analysis exactly (see tokenizer.go: words folded and
// lower-cased, CJK runs as bigrams).
package search

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/zeebo/xxh3"
)

// Analyzer is the name of the text analyser in the index mapping.
const Analyzer = "ccsite"

// Doc is one searchable part of a message: a prompt, an answer's text, a
// thinking block, a tool call (input and output), a sub-agent's message.
type Doc struct {
	// ID is the page and anchor that shows it: "proj/sess.html#m-…".
	ID      string `json:"id"`
	Project string `json:"project"`
	Session string `json:"session"`
	Title   string `json:"title"`
	Role    string `json:"role"` // prompt, answer, thinking, tool, agent
	Tool    string `json:"tool,omitempty"`
	Model   string `json:"model,omitempty"`
	// Agent is the key of the coding agent whose session it is
	// (agents.All: claude, codex, gemini).
	Agent string    `json:"agent,omitempty"`
	Time  time.Time `json:"time"`
	Text  string    `json:"text"`
}

// dayKey is t's day in UTC, as after: and before: name it.
func dayKey(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// orderKey is a key of t that sorts as t does, as bytes: its Unix
// nanoseconds, sign bit flipped, in 16 hex digits.
func orderKey(t time.Time) string {
	return fmt.Sprintf("%016x", uint64(t.UnixNano())^1<<63)
}

// termVectors makes indexes keep term vectors, as they did before
// (phrase.go): tests compare with bleve's own positions and phrases.
var termVectors = false

// Mapping is the index mapping: text analysed with Analyzer and stored (for
// snippets), the rest keywords, Time a date; BM25 scoring.
func Mapping() (mapping.IndexMapping, error) {
	m := bleve.NewIndexMapping()
	err := m.AddCustomAnalyzer(Analyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     TokenizerName,
		"token_filters": []string{lowercase.Name},
	})
	if err != nil {
		return nil, err
	}
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = Analyzer
	doc := bleve.NewDocumentMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = Analyzer
	text.Store = true
	text.IncludeTermVectors = termVectors // no positions: see phrase.go
	text.IncludeInAll = false             // no composite _all field: it would index everything twice
	text.DocValues = false
	kw := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	doc.AddFieldMappingsAt("text", text)
	// The title is shown, never searched (words search the text): stored,
	// not indexed, and the document's id (bleve's own _id) no field of
	// its own. Each was analysed and indexed for every document.
	title := bleve.NewTextFieldMapping()
	title.Analyzer = Analyzer
	title.Index = false
	title.Store = true
	title.IncludeInAll = false
	title.IncludeTermVectors = false
	title.DocValues = false
	doc.AddFieldMappingsAt("title", title)
	for _, f := range []string{"project", "session", "role", "tool", "model", "agent"} {
		doc.AddFieldMappingsAt(f, kw(true))
	}
	// The time is stored, for the results, and indexed as two keywords,
	// one term each: its day, for after: and before:, and a key that sorts
	// as it does, with doc values, for ties (Index.Search). As a date
	// field bleve indexed it as sixteen terms, one per precision step,
	// most of them found in no other document: the time cost a sixth of
	// the index's build.
	t := bleve.NewDateTimeFieldMapping()
	t.Index = false
	t.Store = true
	t.IncludeInAll = false
	t.DocValues = false
	doc.AddFieldMappingsAt("time", t)
	doc.AddFieldMappingsAt("day", kw(false))
	order := kw(false)
	order.DocValues = true
	doc.AddFieldMappingsAt("order", order)
	doc.Dynamic = false
	m.DefaultMapping = doc
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	m.DefaultField = "text"
	return m, nil
}

// Writer adds documents to the search index and deletes them: to the
// metas and the texts files (texts.go), and, as a new document's text is
// analysed, to the spill the static index is written from (spill.go).
// The bleve index is made of the metas and texts when a search first
// needs it (Open, sync.go), never by a build.
type Writer struct {
	dir   string
	texts *textStore
	// metas are every document's metas (text length included): kept
	// beside the index, so an update knows the documents it did not add.
	metas *metaSet
	// ids numbers the ids of the documents this writer met (idtab.go):
	// the metas it adds, the added set and the spill keep theirs by it.
	ids *idTab
	// added are the documents added, or kept as they were, in this
	// writer's life (by number in ids).
	added idBits
	// byPage lists the documents' ids by page (the id's part before
	// '#'), made when first needed (DeletePages) and kept up to date.
	byPage map[string]map[string]bool
	scans  int      // docsOf's calls without byPage
	count  int      // documents in an opened index, until its metas are read
	spill  *spill   // what the static index needs of the documents added (spill.go)
	fresh  bool     // made anew
	dirty  bool     // changed since opened
	marked bool     // the metas file's count set to badCount (marked)
	lock   *os.File // held from OpenWriter to Close: a search's sync waits
}

// Fresh tells whether the index was made anew (not updated).
func (w *Writer) Fresh() bool { return w.fresh }

// metaPath is the file holding the metas, beside the index folder.
func metaPath(dir string) string { return filepath.Clean(dir) + "-metas" }

// Create makes a new, empty index in dir (removing one that was there).
func Create(dir string) (*Writer, error) {
	return OpenWriter(dir, true)
}

// Remove deletes the index in dir, if any.
func Remove(dir string) error {
	os.Remove(metaPath(dir))
	os.Remove(filepath.Clean(dir) + "-metas.gob") // before format 4
	os.Remove(shardsPath(dir))
	os.Remove(statsPath(dir))
	os.Remove(spillPath(dir))
	os.Remove(textsPath(dir)) // before the log
	for _, p := range []string{textsLogPath(dir), textsIdxPath(dir)} {
		os.Remove(p)
		os.Remove(p + ".new") // a compaction's, stopped
	}
	os.Remove(heldPath(dir))
	os.RemoveAll(buildPath(dir))
	os.RemoveAll(stagingPath(dir))
	return os.RemoveAll(dir)
}

// OpenWriter opens the index in dir to update it, or makes a new one when
// fresh is set or no usable index is there.
//
// The writer holds the lock a search's Sync takes, from here to Close or
// Abort: a build waits for a search making the bleve index to finish, and
// a search waits for the build to leave its texts and metas agreeing.
func OpenWriter(dir string, fresh bool) (*Writer, error) {
	lock, err := takeLock(dir)
	if err != nil {
		return nil, err
	}
	w, err := openWriter(dir, fresh)
	if err != nil {
		lock.Close()
		return nil, err
	}
	w.lock = lock
	return w, nil
}

func openWriter(dir string, fresh bool) (*Writer, error) {
	os.Remove(spillPath(dir)) // a stopped build's
	if !fresh {
		if w, err := openExisting(dir); err == nil {
			return w, nil
		}
	}
	if err := Remove(dir); err != nil {
		return nil, err
	}
	t, err := openTexts(dir, true)
	if err != nil {
		return nil, fmt.Errorf("create search index: %w", err)
	}
	ids := newIDTab()
	return &Writer{dir: dir, texts: t, metas: newMetaSet(nil, ids), ids: ids, fresh: true, dirty: true}, nil
}

// takeLock takes the lock of the index in dir (lockPath), waiting for it.
func takeLock(dir string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(lockPath(dir), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// unlock lets a search's Sync go on (closing the file lets its lock go).
func (w *Writer) unlock() {
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
}

// openExisting opens an index to update it: its metas' header (the metas
// are read when first needed, loadMetas) and its texts.
func openExisting(dir string) (*Writer, error) {
	f, err := os.Open(metaPath(dir))
	if err != nil {
		return nil, err
	}
	format, count, err := readMetasHeader(bufio.NewReader(f))
	f.Close()
	if err != nil || format != metasFormat || uint64(count) == badCount {
		return nil, fmt.Errorf("search index metas of another format, or of a stopped build")
	}
	t, err := openTexts(dir, false)
	if err != nil {
		return nil, err
	}
	return &Writer{dir: dir, texts: t, count: count, ids: newIDTab()}, nil
}

// loadMetas reads the metas of an opened index, once.
func (w *Writer) loadMetas() error {
	if w.metas != nil {
		return nil
	}
	metas, mf, err := readMetas(metaPath(w.dir), w.count)
	if err != nil {
		return err
	}
	w.metas = newMetaSet(metas, w.ids)
	w.metas.file = mf
	return nil
}

// mark sets the metas file's count to badCount before an update first
// changes the texts file: until Close writes the metas, they agree with no
// texts, and a build stopped in between leaves an index the next one
// makes anew.
func (w *Writer) mark() error {
	if w.fresh || w.marked {
		return nil
	}
	if err := setMetasCount(metaPath(w.dir), badCount); err != nil {
		return err
	}
	w.marked = true
	return nil
}

// Delete removes documents by id (ids not in the index are ignored).
func (w *Writer) Delete(ids []string) error {
	if err := w.loadMetas(); err != nil {
		return err
	}
	for _, id := range ids {
		if _, ok := w.metas.get(id); !ok {
			continue
		}
		if err := w.mark(); err != nil {
			return err
		}
		w.metas.del(id)
		if w.byPage != nil {
			delete(w.byPage[pageOf(id)], id)
		}
		if err := w.texts.del(id); err != nil {
			return err
		}
		w.dirty = true
	}
	return nil
}

// Replace deletes the documents del and adds docs, leaving in the index
// (neither deleted nor added again) each document of docs that is among
// del with the same content: when a message is appended to a session, its
// other documents stay as they are. It returns the ids it added.
func (w *Writer) Replace(del []string, docs []Doc) ([]string, error) {
	return w.replace(del, docs, nil)
}

// replace is Replace; hashes, when not nil, are the documents' DocHash.
func (w *Writer) replace(del []string, docs []Doc, hashes []uint64) ([]string, error) {
	if err := w.loadMetas(); err != nil {
		return nil, err
	}
	gone := make(map[string]bool, len(del))
	for _, id := range del {
		gone[id] = true
	}
	fresh := make([]Doc, 0, len(docs))
	var freshHashes []uint64
	if hashes != nil {
		freshHashes = make([]uint64, 0, len(docs))
	}
	for i := range docs {
		d := &docs[i]
		if gone[d.ID] && !w.isAdded(d.ID) {
			if m, ok := w.metas.get(d.ID); ok && m.hash == hashOf(d, hashes, i) {
				delete(gone, d.ID)
				w.added.add(w.ids.number(d.ID))
				continue
			}
		}
		fresh = append(fresh, *d)
		if hashes != nil {
			freshHashes = append(freshHashes, hashes[i])
		}
	}
	// A document this writer added before (another unit's, whose page
	// this one's pages still name: a page that moved) is not stale.
	rest := make([]string, 0, len(gone))
	for _, id := range del {
		if gone[id] && !w.isAdded(id) {
			rest = append(rest, id)
		}
	}
	if err := w.Delete(rest); err != nil {
		return nil, err
	}
	return w.add(fresh, freshHashes)
}

// ReplacePages is Replace with, for del, every document of the pages
// (site paths, as document ids begin): the caller need not remember which
// documents a page gave.
func (w *Writer) ReplacePages(pages []string, docs []Doc) ([]string, error) {
	return w.ReplacePagesHashed(pages, docs, nil)
}

// ReplacePagesHashed is ReplacePages of documents whose DocHash the
// caller has: hashes[i] is docs[i]'s (nil: none).
func (w *Writer) ReplacePagesHashed(pages []string, docs []Doc, hashes []uint64) ([]string, error) {
	del, err := w.docsOf(pages)
	if err != nil {
		return nil, err
	}
	return w.replace(del, docs, hashes)
}

// DeletePages deletes every document of the pages.
func (w *Writer) DeletePages(pages []string) error {
	del, err := w.docsOf(pages)
	if err != nil {
		return err
	}
	return w.Delete(del)
}

// docsOf lists the ids of the documents of pages, sorted. The first few
// calls look through every document (a build that changed a session or
// two); later ones use a map by page, made then.
func (w *Writer) docsOf(pages []string) ([]string, error) {
	if len(pages) == 0 {
		return nil, nil
	}
	if err := w.loadMetas(); err != nil {
		return nil, err
	}
	var ids []string
	if w.byPage == nil && w.scans < 4 {
		w.scans++
		want := make(map[string]bool, len(pages))
		for _, p := range pages {
			want[p] = true
		}
		ids = w.metas.scan(want)
		sort.Strings(ids)
		return ids, nil
	}
	if w.byPage == nil {
		w.byPage = map[string]map[string]bool{}
		w.metas.each(w.pageAdd)
	}
	for _, p := range pages {
		for id := range w.byPage[p] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func (w *Writer) pageAdd(id string) {
	p := pageOf(id)
	set := w.byPage[p]
	if set == nil {
		set = map[string]bool{}
		w.byPage[p] = set
	}
	set[id] = true
}

// pageOf is the page a document id points into.
func pageOf(id string) string {
	page, _, _ := strings.Cut(id, "#")
	return page
}

// isAdded tells whether the document id was added, or kept as it was, in
// this writer's life.
func (w *Writer) isAdded(id string) bool {
	i, ok := w.ids.find(id)
	return ok && w.added.has(i)
}

// hashOf is hashes[i] when hashes is given, else d's hash.
func hashOf(d *Doc, hashes []uint64, i int) uint64 {
	if hashes != nil {
		return hashes[i]
	}
	return DocHash(d)
}

// DocHash is the hash the index keeps of d, to know it unchanged: every
// field of d the index holds, each after its length. A caller that needs
// it too (a build hashes each unit's documents) hands it to AddHashed or
// ReplacePagesHashed, so that no document is hashed twice. It is XXH3
// (64 bits, as the SHA-256 it replaces was cut to): a change of a
// document must not go unseen by chance, and nothing rides on an
// adversary's collision (the page is made anew whatever the index keeps);
// SHA-256 was 0.07 CPU-s of a cold build of the corpus tree.
func DocHash(d *Doc) uint64 {
	h := xxh3.New()
	for _, f := range [...]string{d.ID, d.Project, d.Session, d.Title, d.Role, d.Tool, d.Model, d.Agent, d.Time.UTC().Format(time.RFC3339Nano), d.Text} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.WriteString(f)
	}
	return h.Sum64()
}

// Add adds docs. A document whose id was added before in this writer's
// life is left out (the first stays). It returns the ids it added.
func (w *Writer) Add(docs []Doc) ([]string, error) { return w.add(docs, nil) }

// AddHashed is Add of documents whose DocHash the caller has: hashes[i] is
// docs[i]'s.
func (w *Writer) AddHashed(docs []Doc, hashes []uint64) ([]string, error) {
	if len(hashes) != len(docs) {
		return nil, fmt.Errorf("search index: %d hashes for %d documents", len(hashes), len(docs))
	}
	return w.add(docs, hashes)
}

// add is Add; hashes, when not nil, are the documents' DocHash.
func (w *Writer) add(docs []Doc, hashes []uint64) ([]string, error) {
	var ids []string
	if err := w.loadMetas(); err != nil {
		return nil, err
	}
	for i := range docs {
		d := &docs[i]
		if d.ID == "" {
			return ids, errors.New("search index: a document without an id")
		}
		num := w.ids.number(d.ID)
		if w.added.has(num) {
			continue
		}
		if err := w.mark(); err != nil {
			return ids, err
		}
		w.added.add(num)
		if w.spill == nil && spillDocs {
			w.spill = newSpill(w.dir, w.ids)
		}
		m := newMeta(d, hashOf(d, hashes, i))
		k := keyOf(d) // the text's key, for the spill and the texts
		if w.spill != nil {
			spillDoc(w.spill, d, num, m.hash, k)
		}
		if err := w.texts.putKeyed(d.ID, m.hash, d.Text, k.text); err != nil {
			return ids, err
		}
		w.metas.setNumbered(num, m)
		if w.byPage != nil {
			w.pageAdd(d.ID)
		}
		ids = append(ids, d.ID)
		w.dirty = true
	}
	return ids, nil
}

// Close writes the texts and the metas; it returns the number of
// documents.
func (w *Writer) Close() (int, error) {
	defer w.unlock()
	if w.texts == nil {
		return w.len(), nil
	}
	t := w.texts
	w.texts = nil
	// The texts first (compacted, maybe): a stop before the metas are
	// written leaves them marked, and the next build starts anew.
	err := t.close()
	if err == nil && w.dirty {
		err = w.writeMetas()
	}
	return w.len(), err
}

// writeMetas writes the metas of a changed index: whole, or, for an
// update that only added documents, the newest, their section appended
// (their count is badCount: mark).
func (w *Writer) writeMetas() error {
	if !w.fresh {
		if add, appendOnly := w.metas.appendOnly(); appendOnly {
			err := appendMetas(metaPath(w.dir), w.metas.file, add, w.metas.len())
			if err != nil {
				os.Remove(metaPath(w.dir)) // whatever it holds now
			}
			return err
		}
	}
	return w.saveMetas()
}

// len is the number of documents.
func (w *Writer) len() int {
	if w.metas != nil {
		return w.metas.len()
	}
	return w.count
}

// Abort gives up a writer: a new index is removed, an updated one left as
// it is (its metas, marked when it changed, make the next build start
// anew).
func (w *Writer) Abort() error {
	defer w.unlock()
	if w.fresh {
		w.texts.abort()
		w.texts = nil
		return Remove(w.dir)
	}
	err := w.texts.close()
	w.texts = nil
	return err
}

func (w *Writer) saveMetas() error {
	return writeMetas(metaPath(w.dir), w.metas.numbered())
}

// WriteStatic writes the static index (see StaticDir) derived from the
// closed index, calling write with each file's site path and content
// (which write must not keep once it returns: a shard's buffer is the
// next one's). keep,
// when not nil, is asked to keep a display shard the last static index
// wrote, unchanged: it says whether the site still holds it. read, when
// not nil, reads a file of the site (written or kept): merges are made of
// the layers the site holds.
func (w *Writer) WriteStatic(write func(path string, data []byte) error, keep func(path string) bool,
	read func(path string) ([]byte, error)) (StaticStats, error) {
	if err := w.loadMetas(); err != nil {
		return StaticStats{}, err
	}
	metas := w.metas.numbered()
	kept := &keptShards{prev: map[string]keptLayer{}, next: map[string]keptLayer{}, keep: keep}
	if keep != nil {
		if data, err := os.ReadFile(shardsPath(w.dir)); err == nil {
			var prev keptFile
			// Format 3 had the same layers (and its pending merges
			// staged elsewhere: made again).
			if json.Unmarshal(data, &prev) == nil && (prev.Format == staticFormat || prev.Format == 3) {
				kept.prev, kept.pendPrev = prev.Layers, prev.Pending
			}
		}
	}
	os.Remove(shardsPath(w.dir))
	os.Remove(statsPath(w.dir))
	if w.spill != nil {
		w.spill.done() // on an error, the documents are read from the texts
		defer func() { w.spill.close(); w.spill = nil }()
	}
	st, tokens, err := writeStatic(w.dir, metas, write, read, kept, w.spill)
	for _, m := range metas {
		st.TextBytes += m.text
	}
	w.metas, w.added, w.byPage = nil, nil, nil
	if err == nil {
		err = writeJSON(statsPath(w.dir), indexStats{Docs: len(metas), Tokens: tokens})
	}
	if err == nil {
		err = writeJSON(shardsPath(w.dir), keptFile{Format: staticFormat, Layers: kept.next, Pending: kept.pendNext})
	}
	return st, err
}

// staticFormat is the version of the static index's layers, as the
// shards file keeps them.
const staticFormat = 5

// keptFile is the shards file: the layers of the last static index.
type keptFile struct {
	Format int                  `json:"format"`
	Layers map[string]keptLayer `json:"layers"`
	// Pending are the pending merges' layers as far as they are made
	// (publish.go).
	Pending map[string]mergeState `json:"pending,omitempty"`
}

// indexStats are what BM25 scores with, beside the index: the documents
// and their field lengths summed (AvgDL), written with the static index so
// that bleve (Index.Search) and the browser score alike, whatever the
// index's segments.
type indexStats struct {
	Docs   int   `json:"docs"`
	Tokens int64 `json:"tokens"`
}

// statsPath is the file holding indexStats, beside the index folder.
func statsPath(dir string) string { return filepath.Clean(dir) + "-stats.json" }

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// shardsPath is the file naming the display shards of the last static
// index by their documents (keptShards), beside the index folder.
func shardsPath(dir string) string { return filepath.Clean(dir) + "-shards.json" }

// Index is an opened index.
type Index struct {
	idx   bleve.Index
	stats *indexStats // from beside the index, when there
	once  sync.Once
	bm    *search.BM25Stats
	bmErr error
}

// ErrNoIndex is returned when a site has no search index.
var ErrNoIndex = errors.New("no search index")

// Open opens the bleve index in dir (a site's is in its state folder),
// bringing it up to the last build's documents first (Sync).
func Open(dir string) (*Index, error) { return OpenNoting(dir, nil) }

// OpenNoting is Open, telling note (when not nil) before it makes or
// updates the bleve index.
func OpenNoting(dir string, note SyncNote) (*Index, error) {
	if err := syncIndex(dir, maxSegments, note); err != nil {
		return nil, err
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	x := &Index{idx: idx}
	if data, err := os.ReadFile(statsPath(dir)); err == nil {
		var st indexStats
		if json.Unmarshal(data, &st) == nil {
			x.stats = &st
		}
	}
	return x, nil
}

// bm25 is what BM25 scores with: the text field's average length from the
// stats the static index was written with (AvgDL), so that the browser
// scores the same; bleve's own for the other fields. Nil when the index
// has no stats beside it.
func (x *Index) bm25() (*search.BM25Stats, error) {
	if x.stats == nil {
		return nil, nil
	}
	x.once.Do(func() {
		n, err := x.idx.DocCount()
		if err != nil || int(n) != x.stats.Docs {
			return // stats of another index: bleve's own
		}
		adv, err := x.idx.Advanced()
		if err != nil {
			x.bmErr = err
			return
		}
		r, err := adv.Reader()
		if err != nil {
			x.bmErr = err
			return
		}
		defer r.Close()
		bm := &search.BM25Stats{DocCount: float64(n), FieldCardinality: map[string]int{}}
		fields, err := r.Fields()
		if err != nil {
			x.bmErr = err
			return
		}
		if br, ok := r.(index.BM25Reader); ok {
			for _, f := range fields {
				if bm.FieldCardinality[f], err = br.FieldCardinality(f); err != nil {
					x.bmErr = err
					return
				}
			}
		}
		// ceil(card/n) is bleve's average length: card = AvgDL·n.
		bm.FieldCardinality["text"] = int(AvgDL(x.stats.Tokens, int(n))) * int(n)
		// "*" is the field bleve gives the term searcher it makes of an
		// unscored conjunction of term searchers (filters alone: no
		// scores, no positions); it asks for its stats all the same.
		bm.FieldCardinality["*"] = 0
		x.bm = bm
	})
	return x.bm, x.bmErr
}

// Close closes the index.
func (x *Index) Close() error { return x.idx.Close() }

// Count is the number of documents.
func (x *Index) Count() (uint64, error) { return x.idx.DocCount() }

// Terms calls fn with every term of the text field and the number of
// documents holding it, in the index's (byte) order, until fn returns
// false.
//
// The number is read from the term's postings, not from the dictionary's
// entry: zapx v16.2.8's dictionary iterator keeps a term stored inline
// (one document, once, no positions: rare terms of a merged index without
// term vectors) in its scratch postings list, and then says 1 for every
// term after it (TestTermsCount).
func (x *Index) Terms(fn func(term string, docs uint64) bool) error {
	adv, err := x.idx.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	dict, err := r.FieldDict("text")
	if err != nil {
		return err
	}
	defer dict.Close()
	ctx := context.Background()
	for {
		e, err := dict.Next()
		if err != nil || e == nil {
			return err
		}
		tfr, err := r.TermFieldReader(ctx, []byte(e.Term), "text", false, false, false)
		if err != nil {
			return err
		}
		n := tfr.Count()
		tfr.Close()
		if !fn(e.Term, n) {
			return nil
		}
	}
}
