package search

import (
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// The index keeps no term vectors (token positions and offsets): building
// them was about a third of bleve's work in a cold build, for two uses of
// the command line's and ccsite serve's search only (the static index
// keeps positions of its own, taken from the stored text). Those two are
// done here from the stored text, analysed again as bleve analysed it:
//
//   - a phrase is the conjunction of its terms (scored as bleve's phrase
//     query scores: that conjunction's score), kept for a document whose
//     text holds the terms at consecutive positions;
//   - a hit's snippet marks the tokens the query matched (matchSpans), as
//     bleve's locations did.
//
// An index built before, with term vectors, is searched the same way.

// phrase is a phrase query on the text field.
type phrase struct{ terms []string }

// phraseQuery makes the query for a phrase (a test makes bleve's own).
var phraseQuery = func(toks []string) query.Query { return phrase{terms: toks} }

// Searcher implements bleve's query.Query.
func (p phrase) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping,
	options search.SearcherOptions) (search.Searcher, error) {
	an := m.AnalyzerNamed(Analyzer)
	if an == nil {
		return nil, fmt.Errorf("no analyzer %q", Analyzer)
	}
	subs := make([]search.Searcher, 0, len(p.terms))
	closeAll := func() {
		for _, s := range subs {
			s.Close()
		}
	}
	for _, t := range p.terms {
		s, err := searcher.NewTermSearcher(ctx, r, t, "text", 1, options)
		if err != nil {
			closeAll()
			return nil, err
		}
		subs = append(subs, s)
	}
	conj, err := searcher.NewConjunctionSearcher(ctx, r, subs, options)
	if err != nil {
		closeAll()
		return nil, err
	}
	// A document whose text cannot be read (a broken index: it is stored
	// with every document) does not match. The searcher's documents come
	// one at a time: one scratch analyser serves them all.
	analyze := func(text string) analysis.TokenStream { return an.Analyze([]byte(text)) }
	if oursAnalyzer(an) {
		var sc scratchAnalyzer
		analyze = sc.analyze
	}
	return searcher.NewFilteringSearcher(ctx, conj, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		id, err := r.ExternalID(d.IndexInternalID)
		if err != nil {
			return false
		}
		text, err := storedText(r, id)
		return err == nil && len(phraseAt(analyze(text), p.terms, nil)) > 0
	}), nil
}

// scratchAnalyzer analyses texts as the index's analyser (Analyzer) does,
// reusing its memory from one text to the next: the tokens it returns are
// valid until the next call.
type scratchAnalyzer struct {
	tb     tokBuilder
	stream analysis.TokenStream
}

var lower = lowercase.NewLowerCaseFilter()

// oursAnalyzer tells whether an is the analyser scratchAnalyzer repeats:
// the word tokenizer, then lower case, nothing else.
func oursAnalyzer(an analysis.Analyzer) bool {
	d, ok := an.(*analysis.DefaultAnalyzer)
	if !ok || len(d.CharFilters) != 0 || len(d.TokenFilters) != 1 {
		return false
	}
	_, tok := d.Tokenizer.(wordTokenizer)
	_, low := d.TokenFilters[0].(*lowercase.LowerCaseFilter)
	return tok && low
}

func (s *scratchAnalyzer) analyze(text string) analysis.TokenStream {
	tb := &s.tb
	if tb.arena == nil {
		tb.arena = make([]byte, 0, arenaChunk)
		tb.toks = make([]analysis.Token, 0, tokChunk)
	}
	tb.arena, tb.toks = tb.arena[:0], tb.toks[:0]
	tb.full, tb.count, tb.pos = tb.full[:0], 0, 0
	tb.fold, tb.chars = tb.fold[:0], tb.chars[:0]
	tb.run(unsafe.Slice(unsafe.StringData(text), len(text)))
	s.stream = s.stream[:0]
	for _, chunk := range append(tb.full, tb.toks) {
		for i := range chunk {
			s.stream = append(s.stream, &chunk[i])
		}
	}
	return lower.Filter(s.stream)
}

// phraseAt finds where terms occur at consecutive positions in toks: the
// indexes in toks of the first token of each occurrence. With spans nil
// it stops at the first; else it finds them all and adds every token of
// each to spans.
func phraseAt(toks analysis.TokenStream, terms []string, spans *[]span) []int {
	if len(terms) == 0 {
		return nil
	}
	// Positions of each term (the phrase's terms only).
	want := make(map[string][]int, len(terms))
	for _, t := range terms {
		want[t] = nil
	}
	at := map[int][]int{} // position → indexes in toks
	for i, t := range toks {
		if _, ok := want[string(t.Term)]; ok {
			at[t.Position] = append(at[t.Position], i)
		}
	}
	var out []int
	for i, t := range toks {
		if string(t.Term) != terms[0] {
			continue
		}
		path := []int{i}
		if !extend(toks, at, terms, 1, t.Position, &path, spans) {
			continue
		}
		out = append(out, i)
		if spans == nil {
			return out
		}
	}
	return out
}

// extend matches terms[k:] at the positions after pos, depth first as
// bleve's findPhrasePaths does: when spans is not nil, every path found
// adds its tokens to it.
func extend(toks analysis.TokenStream, at map[int][]int, terms []string, k, pos int, path *[]int, spans *[]span) bool {
	if k == len(terms) {
		if spans != nil {
			for _, i := range *path {
				*spans = append(*spans, span{toks[i].Start, toks[i].End})
			}
		}
		return true
	}
	found := false
	for _, i := range at[pos+1] {
		if string(toks[i].Term) != terms[k] {
			continue
		}
		*path = append(*path, i)
		ok := extend(toks, at, terms, k+1, pos+1, path, spans)
		*path = (*path)[:len(*path)-1]
		if ok {
			found = true
			if spans == nil {
				return true
			}
		}
	}
	return found
}

// span is a match's bytes in a text.
type span struct{ start, end int }

// matchSpans is where the query p matched text: each word's tokens (the
// last one's as a prefix when p asks for it) and each phrase's tokens
// where the phrase occurs.
func (p parsed) matchSpans(an analysis.Analyzer, text string) []span {
	if an == nil || !p.scored() {
		return nil
	}
	toks := an.Analyze([]byte(text))
	terms := map[string]bool{}
	prefix := ""
	var seqs [][]string
	for i, w := range p.words {
		switch {
		case len(w) > 1:
			seqs = append(seqs, w)
		case i == len(p.words)-1 && p.q.Prefix:
			prefix = w[0]
		default:
			terms[w[0]] = true
		}
	}
	for _, ph := range p.phrases {
		if len(ph) == 1 {
			terms[ph[0]] = true
		} else {
			seqs = append(seqs, ph)
		}
	}
	var spans []span
	for _, t := range toks {
		if terms[string(t.Term)] || prefix != "" && strings.HasPrefix(string(t.Term), prefix) {
			spans = append(spans, span{t.Start, t.End})
		}
	}
	for _, s := range seqs {
		phraseAt(toks, s, &spans)
	}
	return spans
}
