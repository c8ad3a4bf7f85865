package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/unicode/norm"
)

// TokenizerName names the word tokenizer in bleve's registry.
const TokenizerName = "ccsite_words"

// The analysis, the same in bleve (here), in queries (Tokens) and in the
// browser (assets/search.js, tokens):
//
//   - a word is a run of Unicode letters, numbers and underscores;
//   - each character is folded: full-width ASCII to ASCII, half-width
//     katakana to full-width, Latin, Greek and Cyrillic letters lose their
//     accents (é → e); then the token is lower-cased;
//   - inside a word, runs of Han, Hiragana, Katakana (with ー) and Hangul
//     are split as Lucene's CJK analyzer does: overlapping bigrams, so a
//     Japanese sentence with no spaces is found by any of its words. The
//     index also holds every such character alone (at the position of its
//     bigram), so one character is searchable; a query uses the bigrams
//     only (a phrase of them), or the character when it stands alone.
//
// Positions: the bigrams of a run take consecutive positions; the run's
// last character alone shares the last bigram's; the next token follows.
// So a phrase of bigrams, and of words around them, matches.
type wordTokenizer struct{}

func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isCJK tells the characters split into bigrams.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 0x30FC || r == 0xFF70
}

// fold is a character as the index holds it (before lower-casing).
func fold(r rune) string {
	switch {
	case r < utf8.RuneSelf:
		return string(r)
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		return string(r - 0xFEE0)
	case r >= 0xFF66 && r <= 0xFF9D: // half-width katakana
		return norm.NFKC.String(string(r))
	case unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic):
		d := norm.NFD.String(string(r))
		if len(d) == utf8.RuneLen(r) {
			return d
		}
		return strings.Map(func(c rune) rune {
			if unicode.Is(unicode.Mn, c) {
				return -1
			}
			return c
		}, d)
	}
	return string(r)
}

// token is one token: its text (folded, not yet lower-cased), byte range
// in the source and position (from 0).
type token struct {
	term       string
	start, end int
	pos        int
	alone      bool // a CJK character alone, beside its bigram
}

// char is a folded character with its source range.
type char struct {
	s          string
	start, end int
	cjk        bool
}

// analyze calls fn with every token of b; withAlone adds the CJK
// characters alone (the index's analysis; queries leave them out).
func analyze(b []byte, withAlone bool, fn func(token)) {
	pos := 0
	var run []char
	flush := func() {
		for i := 0; i < len(run); {
			j := i
			for j < len(run) && run[j].cjk == run[i].cjk {
				j++
			}
			if !run[i].cjk {
				var sb strings.Builder
				for _, c := range run[i:j] {
					sb.WriteString(c.s)
				}
				fn(token{term: sb.String(), start: run[i].start, end: run[j-1].end, pos: pos})
				pos++
			} else {
				pos = cjkTokens(run[i:j], pos, withAlone, fn)
			}
			i = j
		}
		run = run[:0]
	}
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		if isWord(r) {
			f := fold(r)
			fr, _ := utf8.DecodeRuneInString(f)
			run = append(run, char{s: f, start: i, end: i + size, cjk: isCJK(fr)})
		} else if len(run) > 0 {
			flush()
		}
		i += size
	}
	if len(run) > 0 {
		flush()
	}
}

// cjkTokens emits the bigrams of a CJK run (and its characters alone when
// asked), from position pos; it returns the next position.
func cjkTokens(cs []char, pos int, withAlone bool, fn func(token)) int {
	if len(cs) == 1 {
		fn(token{term: cs[0].s, start: cs[0].start, end: cs[0].end, pos: pos, alone: true})
		return pos + 1
	}
	for k := 0; k+1 < len(cs); k++ {
		if withAlone {
			fn(token{term: cs[k].s, start: cs[k].start, end: cs[k].end, pos: pos + k, alone: true})
		}
		fn(token{term: cs[k].s + cs[k+1].s, start: cs[k].start, end: cs[k+1].end, pos: pos + k})
	}
	last := len(cs) - 1
	if withAlone {
		fn(token{term: cs[last].s, start: cs[last].start, end: cs[last].end, pos: pos + last - 1, alone: true})
	}
	return pos + last
}

func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	rv := make(analysis.TokenStream, 0, len(input)/6+1)
	analyze(input, true, func(t token) {
		typ := analysis.AlphaNumeric
		if t.alone || utf8.RuneCountInString(t.term) == 2 && isCJK([]rune(t.term)[0]) {
			typ = analysis.Ideographic
		}
		rv = append(rv, &analysis.Token{Term: []byte(t.term), Start: t.start, End: t.end, Position: t.pos + 1, Type: typ})
	})
	return rv
}

// Tokens analyses query text as the index does, lower-cased: its words,
// and the bigrams of its CJK runs (a character alone when a run is one).
func Tokens(text string) []string {
	var out []string
	analyze([]byte(text), false, func(t token) { out = append(out, strings.ToLower(t.term)) })
	return out
}

// init registers the tokenizer: bleve finds analysis components by name in
// its registry, which is the only way to plug one in.
func init() {
	err := registry.RegisterTokenizer(TokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return wordTokenizer{}, nil
	})
	if err != nil {
		panic(err)
	}
}
