package search

import (
	"sync"
	"time"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// A document is handed to bleve made, not mapped. Mapping a Go value
// (bleve's MapDocument) walks it by reflection, and analysing a text the
// usual way (document.TextField) makes a token object per word, then a
// map sized for every token, not every term: for the corpus tree's 17,519
// documents the two cost 0.9 CPU-s, a quarter of the search phase.
// newDocument makes the fields MapDocument makes of indexed(d), in its
// order, and the text field counts its terms with a reused analyser
// (textField). TestDocumentAsMapped checks both against bleve's.
//
// The composite _all field MapDocument adds is left out: every field is
// excluded from it (IncludeInAll is false throughout Mapping), so it
// holds no term, and no query names it (the default field is "text").

// fieldMaker holds the analysers the fields name, from the mapping.
type fieldMaker struct {
	text, keyword analysis.Analyzer
}

var (
	makerOnce sync.Once
	maker     fieldMaker
)

// fields returns the analysers, found once in Mapping.
func fields() *fieldMaker {
	makerOnce.Do(func() {
		m, err := Mapping()
		if err != nil {
			panic(err) // Mapping is a constant: tests make it
		}
		maker = fieldMaker{text: m.AnalyzerNamed(Analyzer), keyword: m.AnalyzerNamed(keyword.Name)}
		if maker.text == nil || maker.keyword == nil {
			panic("search: mapping without its analysers")
		}
	})
	return &maker
}

// newDocument is the bleve document of d: what MapDocument makes of
// indexed(d), less the empty _all field.
func newDocument(d *Doc) *document.Document {
	fm := fields()
	doc := document.NewDocument(d.ID)
	doc.Fields = make([]document.Field, 0, 12)
	kw := func(name, v string, opts index.FieldIndexingOptions) {
		doc.AddField(document.NewTextFieldCustom(name, nil, []byte(v), opts, fm.keyword))
	}
	stored := index.IndexField | index.StoreField
	kw("project", d.Project, stored)
	kw("session", d.Session, stored)
	doc.AddField(document.NewTextFieldCustom("title", nil, []byte(d.Title), index.StoreField, fm.text))
	kw("role", d.Role, stored)
	kw("tool", d.Tool, stored)
	kw("model", d.Model, stored)
	kw("agent", d.Agent, stored)
	// MapDocument drops a time a date field cannot hold (it logs why).
	if f, err := document.NewDateTimeFieldWithIndexingOptions("time", nil, d.Time, time.RFC3339, index.StoreField); err == nil {
		doc.AddField(f)
	}
	text := document.NewTextFieldCustom("text", nil, []byte(d.Text), textOptions(), fm.text)
	if termVectors {
		doc.AddField(text) // positions: bleve's own analysis
	} else {
		doc.AddField(&textField{TextField: text})
	}
	if hasTime(d.Time) {
		kw("day", dayKey(d.Time), index.IndexField)
		kw("order", orderKey(d.Time), index.IndexField|index.DocValues)
	}
	doc.SetIndexed() // as MapDocument; scorch adds the _id field
	return doc
}

// textOptions are the text field's options as Mapping sets them.
func textOptions() index.FieldIndexingOptions {
	o := index.IndexField | index.StoreField
	if termVectors {
		o |= index.IncludeTermVectors
	}
	return o
}

// textField is the text field, analysed by Analyzer's tokenizer and
// lower-casing as a scratchAnalyzer repeats them (no token object or
// arena of its own), its terms counted in a reused table and then copied,
// with their counts, into one buffer and one array: bleve's TokenFrequency
// makes a map with room for every token and an object per term. The
// field keeps no term vectors (textField is not used when termVectors is
// set), so a term's count is all bleve reads of it.
type textField struct {
	*document.TextField
	length int
	freqs  index.TokenFrequencies
}

// scratch is a textField's reusable analysis state.
type scratch struct {
	an   scratchAnalyzer
	slot map[string]int32
	ts   []int32 // each token's slot
	uniq []int32 // a term's first token, by slot
	n    []int   // a term's count, by slot
	rec  []byte  // a spill record
	pos  []uint32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{slot: map[string]int32{}} }}

func (f *textField) Analyze() {
	s := scratchPool.Get().(*scratch)
	v := f.Value()
	text := unsafe.String(unsafe.SliceData(v), len(v))
	toks, size := s.count(text)
	buf := make([]byte, 0, size)
	tfs := make([]index.TokenFreq, len(s.uniq))
	freqs := make(index.TokenFrequencies, len(s.uniq))
	for j, i := range s.uniq {
		at := len(buf)
		buf = append(buf, toks[i].Term...)
		term := buf[at:len(buf):len(buf)]
		tfs[j].Term = term
		tfs[j].SetFrequency(s.n[j])
		freqs[unsafe.String(unsafe.SliceData(term), len(term))] = &tfs[j]
	}
	f.length, f.freqs = len(toks), freqs
	s.done()
}

// count analyses text into s: its tokens (returned), each token's slot
// (ts), each term's first token (uniq) and count (n); size is the terms'
// bytes.
func (s *scratch) count(text string) (toks analysis.TokenStream, size int) {
	toks = s.an.analyze(text)
	s.ts, s.uniq, s.n = s.ts[:0], s.uniq[:0], s.n[:0]
	for i, t := range toks {
		k := unsafe.String(unsafe.SliceData(t.Term), len(t.Term))
		at, ok := s.slot[k]
		if !ok {
			at = int32(len(s.uniq))
			s.slot[k] = at
			s.uniq = append(s.uniq, int32(i))
			s.n = append(s.n, 0)
			size += len(t.Term)
		}
		s.n[at]++
		s.ts = append(s.ts, at)
	}
	if len(s.uniq) > slotKept {
		// Clearing a map costs what it has room for, not what it holds:
		// kept, one large document's room was paid again by every small
		// one after it.
		s.slot = map[string]int32{}
	} else {
		clear(s.slot)
	}
	return toks, size
}

// slotKept is the most terms a document may have for scratch to keep its
// map of them (cleared) for the next one.
const slotKept = 1024

// done gives s back to the pool.
func (s *scratch) done() {
	if cap(s.ts) > 1<<16 {
		// A huge document's tables are not kept.
		s.ts, s.uniq, s.n, s.rec, s.pos = nil, nil, nil, nil, nil
	}
	scratchPool.Put(s)
}

// spillDoc analyses d's text as the text field does and writes its record
// to sp: what the static index needs of a document a build adds.
// A document whose text (and display) was spilled before shares that
// record.
func spillDoc(sp *spill, d *Doc, num int32, hash uint64, k spillKey) {
	if sp.reuse(num, hash, k) {
		return
	}
	s := scratchPool.Get().(*scratch)
	toks, _ := s.count(d.Text)
	s.rec, s.pos = appendRecord(s.rec[:0], DisplayText(d.Role, d.Tool, d.Text), toks, s.ts, s.uniq, s.n, s.pos)
	sp.put(num, hash, s.rec, k)
	s.done()
}

func (f *textField) AnalyzedLength() int { return f.length }

func (f *textField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.freqs }
