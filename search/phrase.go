package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/index/scorch"
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
	holds := func(text string) bool { return phraseAt(an.Analyze([]byte(text)), p.terms, nil) }
	if oursAnalyzer(an) {
		var sc scratchAnalyzer
		holds = func(text string) bool { return sc.phraseIn(text, p.terms) }
	}
	text := storedTextOf(r)
	return searcher.NewFilteringSearcher(ctx, &stopping{Searcher: conj, ctx: ctx}, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		found := false
		err := text(d.IndexInternalID, func(t string) { found = holds(t) })
		return err == nil && found
	}), nil
}

// phraseCheckEvery is how many candidates of a phrase are checked between
// two looks at the search's context.
const phraseCheckEvery = 32

// stopping is a phrase's searcher of candidates, which ends with the
// search's context's error once the context has ended (ccsite serve's
// request, its client gone). bleve's collector looks at the context only
// between the hits it is given, a thousand apart: a phrase whose words
// many documents hold, but seldom as the phrase, has every one's text
// read and analysed before the next hit, and ran on to the last one.
type stopping struct {
	search.Searcher
	ctx context.Context
	n   int
}

func (s *stopping) check() error {
	s.n++
	if s.n%phraseCheckEvery == 1 {
		return s.ctx.Err()
	}
	return nil
}

func (s *stopping) Next(sc *search.SearchContext) (*search.DocumentMatch, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.Searcher.Next(sc)
}

func (s *stopping) Advance(sc *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return s.Searcher.Advance(sc, id)
}

// storedTextOf returns a function that calls fn with the stored text of a
// document given by its internal id, valid during the call. From a scorch
// snapshot it reads the one field from the document's segment; from
// another reader, through the document's external id.
func storedTextOf(r index.IndexReader) func(id index.IndexInternalID, fn func(string)) error {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return func(id index.IndexInternalID, fn func(string)) error {
			ext, err := r.ExternalID(id)
			if err != nil {
				return err
			}
			text, err := storedText(r, ext)
			if err == nil {
				fn(text)
			}
			return err
		}
	}
	// A document's number is its segment's first number (the sizes of
	// the segments before it, deleted documents included) plus its
	// number in the segment, as scorch numbers them.
	segs := snap.Segments()
	offsets := make([]uint64, len(segs))
	var running uint64
	for i, sg := range segs {
		offsets[i] = running
		running += uint64(sg.FullSize())
	}
	return func(id index.IndexInternalID, fn func(string)) error {
		if len(id) != 8 {
			return fmt.Errorf("internal id of %d bytes", len(id))
		}
		num := binary.BigEndian.Uint64(id)
		i := sort.Search(len(offsets), func(i int) bool { return offsets[i] > num }) - 1
		if i < 0 {
			return fmt.Errorf("no document %d", num)
		}
		found := false
		err := segs[i].VisitDocument(num-offsets[i], func(field string, _ byte, v []byte, _ []uint64) bool {
			if field != "text" {
				return true
			}
			found = true
			fn(unsafe.String(unsafe.SliceData(v), len(v)))
			return false
		})
		if err == nil && !found {
			err = fmt.Errorf("no stored text")
		}
		return err
	}
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
	s.reset()
	s.tb.run(unsafe.Slice(unsafe.StringData(text), len(text)))
	return lowerTokens(s.more(0))
}

// lowerTokens is lower.Filter(ts), in place as it is: an ASCII term is
// lowered byte by byte; one with other characters is left to the filter
// (its ASCII start, lowered already, it leaves as it is). Most terms are
// ASCII, and the filter decodes and lowers rune by rune (a quarter of
// analysing the corpus's texts).
func lowerTokens(ts analysis.TokenStream) analysis.TokenStream {
	var one [1]*analysis.Token
	for _, t := range ts {
		b := t.Term
		for i, c := range b {
			if c >= utf8.RuneSelf {
				one[0] = t
				lower.Filter(one[:])
				break
			}
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
	}
	return ts
}

// reset makes s ready for a new text.
func (s *scratchAnalyzer) reset() {
	tb := &s.tb
	if tb.arena == nil {
		tb.arena = make([]byte, 0, arenaChunk)
		tb.toks = make([]analysis.Token, 0, tokChunk)
	}
	tb.arena, tb.toks = tb.arena[:0], tb.toks[:0]
	tb.full, tb.count, tb.pos = tb.full[:0], 0, 0
	tb.fold, tb.chars = tb.fold[:0], tb.chars[:0]
	s.stream = s.stream[:0]
}

// more adds to s.stream the tokens made since it held from of them, and
// returns those (not lower-cased yet).
func (s *scratchAnalyzer) more(from int) analysis.TokenStream {
	tb := &s.tb
	at := 0
	add := func(chunk []analysis.Token) {
		for i := max(0, from-at); i < len(chunk); i++ {
			s.stream = append(s.stream, &chunk[i])
		}
		at += len(chunk)
	}
	for _, chunk := range tb.full {
		add(chunk)
	}
	add(tb.toks)
	return s.stream[from:]
}

// phraseChunk is how much text phraseIn analyses before it looks for the
// phrase: a phrase of common words is mostly found in the first one.
const phraseChunk = 2 << 10

// phraseIn tells whether text holds terms at consecutive positions, as
// phraseAt would tell of analyze(text); it analyses the text a chunk at a
// time and stops at the first occurrence. A chunk ends after an ASCII
// space: no token crosses one, and the tokenizer numbers positions on
// from one chunk to the next, so the tokens are those of the whole text.
//
// Only tokens that can be one of the terms are lower-cased: an ASCII
// token keeps its length, so one of another length than every term is
// none of them as it is.
func (s *scratchAnalyzer) phraseIn(text string, terms []string) bool {
	s.reset()
	var lens [64]bool // lens[n]: a term has n bytes (n < 64)
	long := false     // a term has 64 bytes or more
	for _, t := range terms {
		if len(t) < len(lens) {
			lens[len(t)] = true
		} else {
			long = true
		}
	}
	b := unsafe.Slice(unsafe.StringData(text), len(text))
	for start := 0; start < len(b); {
		end := min(len(b), start+phraseChunk)
		for end < len(b) && !asciiSpace[b[end-1]] {
			end++
		}
		from := len(s.stream)
		s.tb.run(b[start:end])
		start = end
		toks := s.more(from)
		if len(toks) == 0 {
			continue
		}
		for i, t := range toks {
			if n := len(t.Term); n < len(lens) && lens[n] || n >= len(lens) && long || !isASCII(t.Term) {
				lower.Filter(toks[i : i+1])
			}
		}
		// A phrase may begin in the tokens before: up to len(terms)-1
		// positions back.
		first := toks[0].Position - (len(terms) - 1)
		for from > 0 && s.stream[from-1].Position >= first {
			from--
		}
		if phraseAt(s.stream[from:], terms, nil) {
			return true
		}
	}
	return false
}

// phraseAt tells whether toks (in position order, as the analyser makes
// them) hold terms at consecutive positions. With spans nil it stops at
// the first occurrence; else it finds every one, depth first as bleve's
// findPhrasePaths does, and adds the spans of its tokens.
func phraseAt(toks analysis.TokenStream, terms []string, spans *[]span) bool {
	found := false
	var path []int // the tokens of the occurrence being matched (for spans)
	for i, t := range toks {
		if string(t.Term) != terms[0] {
			continue
		}
		if spans != nil {
			path = append(path[:0], i)
		}
		if followed(toks, i+1, t.Position, terms[1:], &path, spans) {
			if spans == nil {
				return true
			}
			found = true
		}
	}
	return found
}

// followed tells whether toks[j:] hold terms at the positions after pos;
// with spans set, it follows every way they do and adds the spans of each
// path's tokens.
func followed(toks analysis.TokenStream, j, pos int, terms []string, path *[]int, spans *[]span) bool {
	if len(terms) == 0 {
		if spans != nil {
			for _, k := range *path {
				*spans = append(*spans, span{toks[k].Start, toks[k].End})
			}
		}
		return true
	}
	found := false
	for ; j < len(toks) && toks[j].Position <= pos+1; j++ {
		if toks[j].Position != pos+1 || string(toks[j].Term) != terms[0] {
			continue
		}
		if spans != nil {
			*path = append(*path, j)
		}
		ok := followed(toks, j+1, pos+1, terms[1:], path, spans)
		if spans != nil {
			*path = (*path)[:len(*path)-1]
		}
		if ok {
			if spans == nil {
				return true
			}
			found = true
		}
	}
	return found
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
