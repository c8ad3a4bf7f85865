package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// The bleve index (what `ccsite search` and `ccsite serve` query) is made
// of the metas and texts a build leaves, when a search first opens it
// (Open), and brought up to date the same way after each build that
// changed documents: the documents gone or changed deleted, the new ones
// added. Beside it, the held file is a copy of the metas file it was made
// from: when the two are the same, it is up to date.

// heldPath is the copy of the metas file the bleve index in dir holds.
func heldPath(dir string) string { return filepath.Clean(dir) + "-held" }

// lockPath is the file a build's Writer and a search's Sync (or two)
// take turns on.
func lockPath(dir string) string { return filepath.Clean(dir) + "-sync.lock" }

// buildPath is the folder where a new index's segments are built, beside
// the index folder.
func buildPath(dir string) string { return filepath.Clean(dir) + "-build" }

// Sync brings the bleve index in dir up to the documents the last build
// left, making it when there is none. ErrNoIndex: no build left any.
func Sync(dir string) error { return syncIndex(dir, maxSegments, nil) }

// SyncNote, when Open is given one, is told before the bleve index is
// made anew (fresh) or updated, and of how many documents it then adds.
type SyncNote func(fresh bool, docs int)

// syncIndex is Sync, an update leaving at most most segments.
func syncIndex(dir string, most uint64, note SyncNote) error {
	data, err := os.ReadFile(metaPath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w at %s (build the site with ccsite build first)", ErrNoIndex, dir)
	}
	if err != nil {
		return err
	}
	if held, err := os.ReadFile(heldPath(dir)); err == nil && bytes.Equal(held, data) && exists(dir) {
		return nil
	}
	lock, err := takeLock(dir) // a build holds it until its metas are written
	if err != nil {
		return err
	}
	defer lock.Close()
	texts, err := openTextReader(dir)
	if err != nil {
		return err
	}
	defer texts.close()
	if data, err = os.ReadFile(metaPath(dir)); err != nil {
		return err
	}
	metas, err := decodeMetasFile(data)
	if err != nil {
		return fmt.Errorf("search index: %w (run ccsite build again)", err)
	}
	// was: the hash of each document the index holds; nil, no index.
	var was map[string]uint64
	if h, err := os.ReadFile(heldPath(dir)); err == nil && exists(dir) {
		if bytes.Equal(h, data) {
			return nil // another search synced it meanwhile
		}
		if held, err := decodeMetasFile(h); err == nil {
			was = make(map[string]uint64, len(held))
			for _, m := range held {
				was[m.id] = m.hash
			}
		}
	}
	os.Remove(heldPath(dir)) // until the index agrees with the metas again
	if note != nil {
		same := 0
		for _, m := range metas {
			if h, ok := was[m.id]; ok && h == m.hash {
				same++
			}
		}
		note(was == nil, len(metas)-same)
	}
	if was == nil {
		err = makeIndex(dir, metas, texts)
	} else {
		err = updateIndex(dir, was, metas, texts, most)
	}
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return writeAtomic(heldPath(dir), data)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// decodeMetasFile reads a metas file's content, as many as its header
// says.
func decodeMetasFile(data []byte) ([]meta, error) {
	metas, _, err := decodeMetas(data, -1)
	return metas, err
}

// writeAtomic writes a file through a temporary one, the user's alone
// (0600, as is every file of the index: they hold the transcripts' text).
func writeAtomic(path string, data []byte) error {
	f, err := createPrivate(path + ".tmp")
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.Remove(path + ".tmp")
		return err
	}
	return os.Rename(path+".tmp", path)
}

// createPrivate creates or truncates the file at path, as os.Create does,
// the user's alone (0600), also when it was there before with another
// mode (written by an older ccsite).
func createPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// docOf is the document a meta and its text describe.
func docOf(m *meta, text string) Doc {
	return Doc{ID: m.id, Project: m.project, Session: m.session, Title: m.title, Role: m.role,
		Tool: m.tool, Model: m.model, Agent: m.agent, Time: m.time, Text: text}
}

// makeIndex makes the index in dir of every document: offline, in one
// pass (scorch's Builder), segments of builderBatch documents written to
// disk as they come and merged once at the end into the one segment the
// index holds, where the online path would merge and re-merge them.
func makeIndex(dir string, metas []meta, texts *textReader) error {
	os.RemoveAll(dir)
	if len(metas) == 0 {
		return emptyIndex(dir)
	}
	m, err := Mapping()
	if err != nil {
		return err
	}
	tmp := buildPath(dir)
	os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cfg := map[string]any{
		"batchSize":       builderBatch,
		"mergeMax":        builderMergeMax,
		"buildPathPrefix": tmp,
	}
	// bleve's builder writes the index's meta file and puts the mapping
	// and the store's path in cfg; it maps each document it is given, so
	// the documents, made (newDocument), go to a scorch builder of the
	// same config. bleve's own builder is never used: its empty folder in
	// tmp goes with tmp.
	if _, err := bleve.NewBuilder(dir, m, cfg); err != nil {
		return err
	}
	if err := closeMeta(dir); err != nil {
		return err
	}
	b, err := scorch.NewBuilder(cfg)
	if err != nil {
		return err
	}
	if err := texts.want(nil); err != nil { // every text
		return err
	}
	err = texts.view(func(get func(*meta) (string, error)) error {
		for i := range metas {
			text, err := get(&metas[i])
			if err != nil {
				return err
			}
			d := docOf(&metas[i], text)
			if err := b.Index(newDocument(&d)); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.RemoveAll(dir)
	}
	return err
}

// updateIndex brings the index in dir, which holds the documents of was
// (their hashes by id; was is used up), to metas.
func updateIndex(dir string, was map[string]uint64, metas []meta, texts *textReader, most uint64) error {
	idx, err := bleve.Open(dir)
	if err != nil {
		return makeIndex(dir, metas, texts)
	}
	batch := idx.NewBatch()
	flush := func() error {
		if batch.Size() < 4000 {
			return nil
		}
		err := idx.Batch(batch)
		batch.Reset()
		return err
	}
	err = texts.view(func(get func(*meta) (string, error)) error {
		for i := range metas {
			m := &metas[i]
			h, ok := was[m.id]
			delete(was, m.id)
			if ok && h == m.hash {
				continue
			}
			text, err := get(m)
			if err != nil {
				return err
			}
			d := docOf(m, text)
			if err := batch.IndexAdvanced(newDocument(&d)); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		for id := range was { // gone since
			batch.Delete(id)
		}
		if batch.Size() > 0 {
			err = idx.Batch(batch)
		}
	}
	if err == nil {
		err = merge(idx, most)
	}
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	return err
}

// The offline builder's segment size (documents) and how many segments
// one merge takes. The builder merges the first mergeMax segments into
// one, then that one with the next ones, and so on: with 100, the 175
// segments of a 1 GB archive were merged in two passes, the first 100
// written twice (the search phase grew faster than the archive). With
// 1024 an archive of up to a million documents is merged in one pass.
const (
	builderBatch    = 1000
	builderMergeMax = 1024
)

// emptyIndex makes an empty index in dir.
func emptyIndex(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	m, err := Mapping()
	if err != nil {
		return err
	}
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return err
	}
	if err := closeMeta(dir); err != nil {
		idx.Close()
		return err
	}
	return idx.Close()
}

// closeMeta makes the index's meta file, which bleve creates 0666 (less
// the umask) where its other files are 0600, the user's alone too.
func closeMeta(dir string) error {
	return os.Chmod(filepath.Join(dir, "index_meta.json"), 0o600)
}

// maxSegments is how many segments an updated index may keep.
const maxSegments = 8

// merge merges idx's segments until it has at most most.
func merge(idx bleve.Index, most uint64) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("search index: not a scorch index")
	}
	// bleve's single-segment plan may score a roster of one segment best
	// and merge nothing (small segments); this one always merges them all.
	opts := mergeplan.SingleSegmentMergePlanOptions
	opts.SegmentsPerMergeTask = 1 << 20
	opts.ScoreSegments = func(segments []mergeplan.Segment, _ *mergeplan.MergePlanOptions) float64 {
		return 1 / float64(len(segments))
	}
	// While the others hold together under smallShare of the largest
	// segment's live documents, they are merged among themselves and the
	// largest is left as it is: an update adds a segment of a few
	// documents, and merging those into the largest rewrote the whole
	// index every few builds (+0.5 CPU-s for one message appended on the
	// corpus tree; at 1 GB, a 220 MB segment).
	planFor := func(files uint64) *mergeplan.MergePlanOptions {
		big, rest := liveSizes(s)
		if big > 0 && rest*smallShare < big && files > 2 {
			o := opts
			o.MaxSegmentSize = 2 * big // the largest is not eligible (LiveSize < MaxSegmentSize/2)
			return &o
		}
		return &opts
	}
	// ForceMerge returns once the merged segment is in the index's root;
	// wait until that root holds only it and is persisted, so Close keeps
	// it.
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; ; i++ {
		st := s.StatsMap()
		root, _ := st["CurRootEpoch"].(uint64)
		persisted, _ := st["LastPersistedEpoch"].(uint64)
		files, _ := st["TotFileSegmentsAtRoot"].(uint64)
		mem, _ := st["TotMemorySegmentsAtRoot"].(uint64)
		if files <= most && mem == 0 && persisted >= root {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("search index: segments not merged after 2 minutes (%d on disk, %d in memory)", files, mem)
		}
		if files > most && mem == 0 {
			if err := s.ForceMerge(context.Background(), planFor(files)); err != nil {
				return err
			}
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// smallShare: the segments other than the largest are merged apart from
// it while their live documents are under 1/smallShare of its.
const smallShare = 8

// liveSizes returns the live documents of the index's largest segment and
// of all the others together.
func liveSizes(s *scorch.Scorch) (big, rest int64) {
	r, err := s.Reader()
	if err != nil {
		return 0, 0
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return 0, 0
	}
	for _, seg := range snap.Segments() {
		n := seg.LiveSize()
		if n > big {
			big, n = n, big
		}
		rest += n
	}
	return big, rest
}
