package search

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// TestPhraseWithoutVectors: phrases found from the stored text (phrase.go)
// are bleve's phrase query's, document for document and score for score,
// and the snippets' marks (matchSpans) are the locations bleve gave, on an
// index that keeps term vectors so that bleve can answer too.
func TestPhraseWithoutVectors(t *testing.T) {
	docs := testDocs(t, 2500, 3)
	// Phrases that repeat, overlap and hold a term twice.
	for i, txt := range []string{
		"the the the build fails", "in the build the test runs the build", "foo-bar foo bar foo-bar-baz",
		"日本語のテキスト 日本語", "Crème brûlée CRÈME BRÛLÉE", "go vet go vet go", "x x x x",
	} {
		docs = slices.Insert(docs, 0, Doc{ID: fmt.Sprintf("px/s.html#k%d", i), Project: "px", Session: "s", Role: "answer", Text: txt})
	}
	dir := filepath.Join(t.TempDir(), "idx")
	termVectors = true
	defer func() { termVectors = false }()
	buildIndex(t, dir, docs[:2000])
	t.Run("new", func(t *testing.T) { comparePhrases(t, dir, docs[:2000]) })
	// Updated: new documents in segments of their own, some deleted (the
	// document numbers cross segments, with gaps).
	w, err := OpenWriter(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var del []string
	for i := 0; i < 2000; i += 7 {
		del = append(del, docs[i].ID)
	}
	if _, err := w.Replace(del, docs[2000:]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Run("updated", func(t *testing.T) { comparePhrases(t, dir, docs) })
}

// comparePhrases runs phrase queries made from docs' texts both ways.
func comparePhrases(t *testing.T, dir string, docs []Doc) {
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()

	// Queries: crafted ones, and runs of two to four consecutive words of
	// the documents (so most match).
	queries := []string{`"the build"`, `"the the"`, `"the the the"`, `foo-bar`, `"foo bar" foo-bar`, `"日本語"`,
		`"crème brûlée"`, `"go vet" go`, `"x x x"`, `"build fails" the`, `"test runs" bu`, `"in the" "the build"`,
		`"no such phrase anywhere"`}
	r := rand.New(rand.NewPCG(5, 5))
	for len(queries) < 120 {
		w := strings.Fields(docs[r.IntN(len(docs))].Text)
		if len(w) < 4 {
			continue
		}
		k := r.IntN(len(w) - 3)
		queries = append(queries, `"`+strings.Join(w[k:k+2+r.IntN(3)], " ")+`"`)
	}
	an := x.idx.Mapping().AnalyzerNamed(Analyzer)
	matched := 0
	for _, text := range queries {
		p, err := parse(Query{Text: text, Prefix: true})
		if err != nil {
			continue
		}
		mine := run(t, x, p.build(), false)
		old := phraseQuery
		phraseQuery = func(toks []string) query.Query { return bleve.NewPhraseQuery(toks, "text") }
		ref := run(t, x, p.build(), true)
		phraseQuery = old
		if len(ref) != len(mine) {
			t.Errorf("%s: %d documents, bleve %d", text, len(mine), len(ref))
			continue
		}
		if len(ref) > 0 {
			matched++
		}
		for i, h := range ref {
			m := mine[i]
			if m.ID != h.ID || m.Score != h.Score {
				t.Errorf("%s: hit %d is %s (%v), bleve's %s (%v)", text, i, m.ID, m.Score, h.ID, h.Score)
				break
			}
			stored, _ := h.Fields["text"].(string)
			got := map[span]bool{}
			for _, s := range p.matchSpans(an, stored) {
				got[s] = true
			}
			want := map[span]bool{}
			for _, ls := range h.Locations["text"] {
				for _, l := range ls {
					want[span{int(l.Start), int(l.End)}] = true
				}
			}
			if !maps.Equal(got, want) {
				t.Errorf("%s: %s: marks %v, bleve's locations %v", text, h.ID, spanList(got), spanList(want))
				break
			}
		}
	}
	if matched < 100 {
		t.Errorf("%d of %d queries found something: test phrases that occur", matched, len(queries))
	}
}

// run returns every hit of q, best first, then by id.
func run(t *testing.T, x *Index, q query.Query, locations bool) []*search.DocumentMatch {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 10000, 0, false)
	req.Fields = []string{"text"}
	req.IncludeLocations = locations
	req.SortBy([]string{"-_score", "_id"})
	res, err := x.idx.SearchInContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.Hits
}

func spanList(m map[span]bool) []span {
	out := slices.Collect(maps.Keys(m))
	slices.SortFunc(out, func(a, b span) int { return a.start - b.start })
	return out
}

// TestTermsCount: Terms gives each term's number of documents, on an
// index without term vectors too (whose dictionary miscounts, see Terms).
func TestTermsCount(t *testing.T) {
	docs := testDocs(t, 2500, 9)
	// Terms of one document (stored inline in the dictionary) before
	// terms of several, in byte order.
	for i := range docs {
		docs[i].Text += fmt.Sprintf(" rare%03d common%d", i, i%7)
	}
	m, err := Mapping()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]bool{}
	for _, d := range docs {
		for _, tok := range m.AnalyzerNamed(Analyzer).Analyze([]byte(d.Text)) {
			if want[string(tok.Term)] == nil {
				want[string(tok.Term)] = map[string]bool{}
			}
			want[string(tok.Term)][d.ID] = true
		}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	buildIndex(t, dir, docs)
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	n, wrong := 0, 0
	err = x.Terms(func(term string, df uint64) bool {
		n++
		if df != uint64(len(want[term])) {
			if wrong++; wrong <= 5 {
				t.Errorf("term %q: %d documents, want %d", term, df, len(want[term]))
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) || wrong > 0 {
		t.Errorf("%d terms (want %d), %d miscounted", n, len(want), wrong)
	}
}

// TestScratchAnalyzer: the scratch analyser gives the index analyser's
// tokens, text after text with the same memory.
func TestScratchAnalyzer(t *testing.T) {
	m, err := Mapping()
	if err != nil {
		t.Fatal(err)
	}
	an := m.AnalyzerNamed(Analyzer)
	if !oursAnalyzer(an) {
		t.Fatal("the mapping's analyser is not the one scratchAnalyzer repeats")
	}
	var sc scratchAnalyzer
	texts := []string{"", "ÉTÉ Crème", strings.Repeat("Word ", 20000), "日本語のテキスト ＡＢＣ ｶﾀｶﾅ", "x"}
	for _, d := range testDocs(t, 3000, 11) {
		texts = append(texts, d.Text)
	}
	for i, text := range texts {
		got := sc.analyze(text)
		want := an.Analyze([]byte(text))
		if len(got) != len(want) {
			t.Fatalf("text %d: %d tokens, want %d", i, len(got), len(want))
		}
		for k := range want {
			g, w := got[k], want[k]
			if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type {
				t.Fatalf("text %d token %d: %+v, want %+v", i, k, g, w)
			}
		}
	}
}

// TestPhraseIn: phraseIn, which analyses a text a chunk at a time and
// stops at the phrase, answers as phraseAt does on the whole text's tokens,
// for phrases across chunk boundaries, in CJK runs and in texts without
// spaces.
func TestPhraseIn(t *testing.T) {
	m, err := Mapping()
	if err != nil {
		t.Fatal(err)
	}
	an := m.AnalyzerNamed(Analyzer)
	r := rand.New(rand.NewPCG(2, 8))
	words := strings.Fields("the The THE build fails Crème brûlée ÉTÉ 日本語のテキスト 中文分词 한국어 ＡＢＣ foo_bar x 42 λ Привет")
	seps := []string{" ", "  ", "\n", ", ", "-", "\t", "。"}
	var sc scratchAnalyzer
	found := 0
	for i := 0; i < 400; i++ {
		var b strings.Builder
		n := r.IntN(4000)
		if i%10 == 0 {
			n = 20000 // many chunks
		}
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
			if i%17 != 0 { // some texts have no space at all
				b.WriteString(seps[r.IntN(len(seps))])
			}
		}
		text := b.String()
		toks := an.Analyze([]byte(text))
		for k := 0; k < 20 && len(toks) > 0; k++ {
			var terms []string
			if k%4 == 3 {
				// Words of the text, in an order it may not hold.
				for j := 0; j < 2+r.IntN(2); j++ {
					terms = append(terms, string(toks[r.IntN(len(toks))].Term))
				}
			} else {
				// Consecutive tokens: mostly found.
				at := r.IntN(len(toks))
				for j := at; j < len(toks) && len(terms) < 2+r.IntN(3); j++ {
					if len(terms) == 0 || toks[j].Position == toks[j-1].Position+1 {
						terms = append(terms, string(toks[j].Term))
					}
				}
			}
			want := phraseAt(toks, terms, nil)
			if got := sc.phraseIn(text, terms); got != want {
				t.Fatalf("text %d (%d bytes), phrase %q: phraseIn says %v, the whole text %v", i, len(text), terms, got, want)
			}
			if want {
				found++
			}
		}
	}
	if found < 2000 {
		t.Errorf("only %d phrases found: test phrases that occur", found)
	}
}

// errAfter is a context that is never done but whose Err says Canceled
// from its (after+1)th call on: a client that leaves once a search has
// begun, at a point the test chooses.
type errAfter struct {
	context.Context
	calls, after int
}

func (c *errAfter) Err() error {
	c.calls++
	if c.calls > c.after {
		return context.Canceled
	}
	return nil
}

// TestPhraseStops: a phrase whose words many documents hold, but never
// as the phrase, has each one's text read and analysed; the search stops
// with the context's error once its context ends (serve's request, the
// client gone), not after the last document.
func TestPhraseStops(t *testing.T) {
	docs := make([]Doc, 3000)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("p/s%d.html#m", i), Project: "p", Session: fmt.Sprint("s", i), Role: "answer",
			Text: strings.Repeat("beta gamma alpha delta ", 50)}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	buildIndex(t, dir, docs)
	x, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	q := Query{Text: `"alpha beta"`, Size: 10}
	if res, err := x.Search(context.Background(), q); err != nil || res.Total != 0 {
		t.Fatalf("the phrase is in no document: %d hits, %v", res.Total, err)
	}
	ctx := &errAfter{Context: context.Background(), after: 3}
	_, err = x.Search(ctx, q)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a search whose context ended: %v, want context.Canceled", err)
	}
	if ctx.calls > ctx.after+1 {
		t.Errorf("the context was asked %d times after it ended", ctx.calls-ctx.after-1)
	}
	if max := (ctx.after + 1) * phraseCheckEvery; max >= len(docs) {
		t.Fatalf("the test ends its context after %d documents of %d", max, len(docs))
	}
}
