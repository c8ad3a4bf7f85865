package search

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// indexedDoc is a document as the mapping maps it: its fields and the
// keys of its time, none for a time the index cannot hold (see hasTime).
// The keys are pointers: bleve indexes an empty string as a term, a nil
// pointer not at all. newDocument makes what MapDocument makes of it.
type indexedDoc struct {
	Doc
	Day   *string `json:"day"`
	Order *string `json:"order"`
}

func indexed(d *Doc) indexedDoc {
	x := indexedDoc{Doc: *d}
	if hasTime(d.Time) {
		day, order := dayKey(d.Time), orderKey(d.Time)
		x.Day, x.Order = &day, &order
	}
	return x
}

// TestDocumentAsMapped: newDocument makes, field for field, the document
// bleve's mapping makes of the same Doc (names, options, values, order),
// and each indexed field, analysed, has the same length and terms with
// the same counts; the _all field it leaves out holds no term. The texts
// are testDocs' (with CCSITE_CORPUS, real transcript lines) and edge
// cases: empty fields, times bleve cannot hold, CJK runs, upper case that
// lower-cases to other lengths, a long repeated text.
func TestDocumentAsMapped(t *testing.T) {
	m, err := Mapping()
	if err != nil {
		t.Fatal(err)
	}
	docs := testDocs(t, 2000, 5)
	docs = append(docs,
		Doc{ID: "a.html#1"},
		Doc{ID: "a.html#2", Text: "İSTANBUL ẞ KELVIN \u212a Σσς", Time: time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)},
		Doc{ID: "a.html#3", Project: "p", Session: "s", Title: "Tïtle 日本", Role: "tool", Tool: "Bash", Model: "m",
			Text: strings.Repeat("Word word WORD 日本語 ", 5000), Time: time.Date(1969, 12, 31, 23, 59, 59, 1, time.FixedZone("x", 3600))},
	)
	for i := range docs {
		d := &docs[i]
		want := document.NewDocument(d.ID)
		x := indexed(d)
		if err := m.MapDocument(want, &x); err != nil {
			t.Fatal(err)
		}
		got := newDocument(d)
		if len(want.CompositeFields) != 1 || len(got.CompositeFields) != 0 {
			t.Fatalf("doc %d: composite fields %d and %d, want 1 (mapped) and 0", i, len(want.CompositeFields), len(got.CompositeFields))
		}
		if got.Indexed() != want.Indexed() {
			t.Fatalf("doc %d: indexed %v, want %v", i, got.Indexed(), want.Indexed())
		}
		if len(got.Fields) != len(want.Fields) {
			t.Fatalf("doc %d: %d fields, want %d: %v", i, len(got.Fields), len(want.Fields), want.GoString())
		}
		for k, w := range want.Fields {
			g := got.Fields[k]
			if g.Name() != w.Name() || g.Options() != w.Options() || string(g.Value()) != string(w.Value()) ||
				fmt.Sprint(g.ArrayPositions()) != fmt.Sprint(w.ArrayPositions()) || g.EncodedFieldType() != w.EncodedFieldType() ||
				g.NumPlainTextBytes() != w.NumPlainTextBytes() {
				t.Fatalf("doc %d field %d: %s %v %q, want %s %v %q", i, k, g.Name(), g.Options(), g.Value(), w.Name(), w.Options(), w.Value())
			}
			if !w.Options().IsIndexed() {
				continue
			}
			w.Analyze()
			g.Analyze()
			if g.AnalyzedLength() != w.AnalyzedLength() {
				t.Fatalf("doc %d field %s: length %d, want %d", i, w.Name(), g.AnalyzedLength(), w.AnalyzedLength())
			}
			gf, wf := g.AnalyzedTokenFrequencies(), w.AnalyzedTokenFrequencies()
			if len(gf) != len(wf) {
				t.Fatalf("doc %d field %s: %d terms, want %d", i, w.Name(), len(gf), len(wf))
			}
			for term, wt := range wf {
				gt := gf[term]
				if gt == nil || string(gt.Term) != term || gt.Frequency() != wt.Frequency() || len(gt.Locations) != len(wt.Locations) {
					t.Fatalf("doc %d field %s term %q: %+v, want %+v", i, w.Name(), term, gt, wt)
				}
			}
			for _, cf := range want.CompositeFields {
				cf.Compose(w.Name(), w.AnalyzedLength(), wf)
			}
		}
		for _, cf := range want.CompositeFields {
			if cf.AnalyzedLength() != 0 || len(cf.AnalyzedTokenFrequencies()) != 0 {
				t.Fatalf("doc %d: the _all field holds %d terms", i, len(cf.AnalyzedTokenFrequencies()))
			}
		}
	}
}

// TestTextFieldKeepsNothing: a text field's terms are its own, not the
// reused analyser's: analysing other texts after it changes none.
func TestTextFieldKeepsNothing(t *testing.T) {
	a := newDocument(&Doc{ID: "a", Text: "Alpha beta ALPHA gamma"})
	var tf index.Field
	for _, f := range a.Fields {
		if f.Name() == "text" {
			tf = f
		}
	}
	tf.Analyze()
	for i := 0; i < 50; i++ {
		d := newDocument(&Doc{ID: "b", Text: strings.Repeat("zzzzz yyyyy ", i+1)})
		for _, f := range d.Fields {
			f.Analyze()
		}
	}
	got := map[string]int{}
	for term, f := range tf.AnalyzedTokenFrequencies() {
		if string(f.Term) != term {
			t.Fatalf("term %q holds %q", term, f.Term)
		}
		got[term] = f.Frequency()
	}
	if fmt.Sprint(got) != "map[alpha:2 beta:1 gamma:1]" || tf.AnalyzedLength() != 4 {
		t.Fatalf("terms %v, length %d", got, tf.AnalyzedLength())
	}
}
