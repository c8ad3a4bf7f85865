// Package search builds the site's search index with bleve and queries it:
// a document per message part worth finding, analysed so a browser can
// reproduce the analysis exactly (Unicode letter/digit runs, lower case).
package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// TokenPattern is the tokenizer's pattern: a token is a run of Unicode
// letters, digits and underscores. The browser uses the same expression
// (/[\p{L}\p{N}_]+/gu) and lower-cases the same way.
const TokenPattern = `[\p{L}\p{N}_]+`

// Analyzer is the name of the text analyser in the index mapping.
const Analyzer = "ccsite"

// Dir is where a site keeps its bleve index, relative to the site root: a
// dot-folder, because it is a build product for `ccsite search` and
// `ccsite serve`, not a page to publish, and bleve's files are not
// byte-identical from one build to the next (the pages are).
const Dir = ".ccsite/bleve"

// Doc is one searchable part of a message: a prompt, an answer's text, a
// thinking block, a tool call (input and output), a sub-agent's message.
type Doc struct {
	// ID is the page and anchor that shows it: "proj/sess.html#m-…".
	ID      string    `json:"id"`
	Project string    `json:"project"`
	Session string    `json:"session"`
	Title   string    `json:"title"`
	Role    string    `json:"role"` // prompt, answer, thinking, tool, agent
	Tool    string    `json:"tool,omitempty"`
	Model   string    `json:"model,omitempty"`
	Time    time.Time `json:"time"`
	Text    string    `json:"text"`
}

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
	text.IncludeTermVectors = true // positions: phrases and highlighting
	text.IncludeInAll = false      // no composite _all field: it would index everything twice
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
	title := bleve.NewTextFieldMapping()
	title.Analyzer = Analyzer
	title.Store = true
	title.IncludeInAll = false
	title.IncludeTermVectors = false
	title.DocValues = false
	doc.AddFieldMappingsAt("title", title)
	for _, f := range []string{"project", "session", "role", "tool", "model"} {
		doc.AddFieldMappingsAt(f, kw(true))
	}
	doc.AddFieldMappingsAt("id", kw(false))
	t := bleve.NewDateTimeFieldMapping()
	t.Store = true
	t.IncludeInAll = false
	t.DocValues = false
	doc.AddFieldMappingsAt("time", t)
	doc.Dynamic = false
	m.DefaultMapping = doc
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	m.DefaultField = "text"
	return m, nil
}

// Writer adds documents to a new index, in batches.
type Writer struct {
	dir   string
	idx   bleve.Index
	batch *bleve.Batch
	metas []meta
	seen  map[string]bool
	text  int64
}

// Create makes a new, empty index in dir (removing one that was there).
func Create(dir string) (*Writer, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	m, err := Mapping()
	if err != nil {
		return nil, err
	}
	// (scorch's "unsafe_batch" would be faster, but Close does not wait
	// for what it has not persisted yet: the last batches were lost.)
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("create search index: %w", err)
	}
	return &Writer{dir: dir, idx: idx, batch: idx.NewBatch(), seen: map[string]bool{}}, nil
}

// Add queues docs, writing a batch every few thousand. A document whose
// id was added before is left out: bleve would replace the first, and the
// static index must hold what bleve holds.
func (w *Writer) Add(docs []Doc) error {
	for i := range docs {
		if w.seen[docs[i].ID] {
			continue
		}
		w.seen[docs[i].ID] = true
		if err := w.batch.Index(docs[i].ID, &docs[i]); err != nil {
			return err
		}
		w.metas = append(w.metas, newMeta(&docs[i]))
		w.text += int64(len(docs[i].Text))
	}
	if w.batch.Size() >= 4000 {
		return w.flush()
	}
	return nil
}

func (w *Writer) flush() error {
	if w.batch.Size() == 0 {
		return nil
	}
	err := w.idx.Batch(w.batch)
	w.batch.Reset()
	return err
}

// Close writes what is queued, merges the index into one segment and
// closes it; it returns the number of documents. One segment makes the
// index's statistics (bleve's BM25 average length counts each segment's
// terms) the same from one build to the next.
func (w *Writer) Close() (int, error) {
	err := w.flush()
	if err == nil {
		err = w.merge()
	}
	if cerr := w.idx.Close(); err == nil {
		err = cerr
	}
	return len(w.metas), err
}

func (w *Writer) merge() error {
	adv, err := w.idx.Advanced()
	if err != nil {
		return err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("search index: not a scorch index")
	}
	return s.ForceMerge(context.Background(), &mergeplan.SingleSegmentMergePlanOptions)
}

// WriteStatic writes the static index (see StaticDir) derived from the
// closed index, calling write with each file's site path and content.
func (w *Writer) WriteStatic(write func(path string, data []byte) error) (StaticStats, error) {
	st, err := writeStatic(w.dir, w.metas, write)
	st.TextBytes = w.text
	w.metas, w.seen = nil, nil
	return st, err
}

// Index is an opened index.
type Index struct {
	idx bleve.Index
}

// ErrNoIndex is returned when a site has no search index.
var ErrNoIndex = errors.New("no search index")

// Open opens the index of the site in siteDir.
func Open(siteDir string) (*Index, error) {
	dir := siteDir + string(os.PathSeparator) + Dir
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("%w in %s (build the site with ccsite build first)", ErrNoIndex, siteDir)
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	return &Index{idx: idx}, nil
}

// Close closes the index.
func (x *Index) Close() error { return x.idx.Close() }

// Count is the number of documents.
func (x *Index) Count() (uint64, error) { return x.idx.DocCount() }

// Terms calls fn with every term of the text field and the number of
// documents holding it, in the index's (byte) order, until fn returns
// false.
func (x *Index) Terms(fn func(term string, docs uint64) bool) error {
	dict, err := x.idx.FieldDict("text")
	if err != nil {
		return err
	}
	defer dict.Close()
	for {
		e, err := dict.Next()
		if err != nil || e == nil {
			return err
		}
		if !fn(e.Term, e.Count) {
			return nil
		}
	}
}
