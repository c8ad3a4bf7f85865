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

// Tokenize is analyze's index analysis (withAlone), built for bleve with
// few allocations: every term is a slice of one arena and every token an
// element of one array (a large document has hundreds of thousands).
// TestTokenizeSame checks it against analyze.
func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	tb := tokBuilder{arena: make([]byte, 0, min(len(input)+16, arenaChunk)), toks: make([]analysis.Token, 0, min(len(input)/5+1, tokChunk))}
	tb.run(input)
	rv := make(analysis.TokenStream, 0, tb.count+len(tb.toks))
	for _, chunk := range append(tb.full, tb.toks) {
		for i := range chunk {
			rv = append(rv, &chunk[i])
		}
	}
	return rv
}

// Arena and token chunks: when one is full the next is made, none copied.
const (
	arenaChunk = 64 << 10
	tokChunk   = 4096
)

// tokBuilder is Tokenize's state: the terms' arena, the tokens, the
// current word's folded characters (fold) and their ranges (chars).
type tokBuilder struct {
	arena []byte
	toks  []analysis.Token   // the current chunk
	full  [][]analysis.Token // the chunks before it
	count int                // tokens in full
	fold  []byte
	chars []fchar
	pos   int
}

// fchar is a folded character of the current word: its bytes in fold, its
// range in the source.
type fchar struct {
	fs, fe, start, end int
	cjk                bool
}

func (tb *tokBuilder) run(b []byte) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if asciiWord[c] {
				if len(tb.chars) == 0 {
					// A word of ASCII characters ended by one that is not
					// a word's (most words): one token, no folding.
					j := i + 1
					for j < len(b) && asciiWord[b[j]] {
						j++
					}
					if j == len(b) || b[j] < utf8.RuneSelf {
						tb.word(b[i:j], i)
						i = j
						continue
					}
				}
				fs := len(tb.fold)
				tb.fold = append(tb.fold, c)
				tb.chars = append(tb.chars, fchar{fs: fs, fe: fs + 1, start: i, end: i + 1})
			} else if len(tb.chars) > 0 {
				tb.flush()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if isWord(r) {
			fs := len(tb.fold)
			tb.fold = appendFold(tb.fold, r)
			fr, _ := utf8.DecodeRune(tb.fold[fs:])
			tb.chars = append(tb.chars, fchar{fs: fs, fe: len(tb.fold), start: i, end: i + size, cjk: isCJK(fr)})
		} else if len(tb.chars) > 0 {
			tb.flush()
		}
		i += size
	}
	if len(tb.chars) > 0 {
		tb.flush()
	}
}

// asciiWord tells the ASCII characters of words (a byte of a longer
// UTF-8 sequence is none).
var asciiWord = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	return t
}()

// word emits w, a whole word of ASCII characters at start, as flush
// would.
func (tb *tokBuilder) word(w []byte, start int) {
	if len(tb.arena)+len(w) > cap(tb.arena) {
		tb.arena = make([]byte, 0, max(arenaChunk, len(w)))
	}
	at := len(tb.arena)
	tb.arena = append(tb.arena, w...)
	if len(tb.toks) == cap(tb.toks) {
		tb.full = append(tb.full, tb.toks)
		tb.count += len(tb.toks)
		tb.toks = make([]analysis.Token, 0, tokChunk)
	}
	tb.toks = append(tb.toks, analysis.Token{Term: tb.arena[at:len(tb.arena):len(tb.arena)], Start: start,
		End: start + len(w), Position: tb.pos + 1, Type: analysis.AlphaNumeric})
	tb.pos++
}

// appendFold appends fold(r) to dst.
func appendFold(dst []byte, r rune) []byte {
	switch {
	case r < rune(len(foldTable)):
		if f := foldTable[r]; f != "" {
			return append(dst, f...)
		}
	case r >= 0xFF01 && r <= 0xFF5E, r >= 0xFF66 && r <= 0xFF9D,
		unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic):
		return append(dst, fold(r)...)
	}
	return utf8.AppendRune(dst, r)
}

// foldTable holds fold(r) for the characters below U+2000 that fold to
// something else (accented Latin, Greek and Cyrillic letters): computed
// once, not per character.
var foldTable = func() (t [0x2000]string) {
	for r := rune(utf8.RuneSelf); r < rune(len(t)); r++ {
		if f := fold(r); f != string(r) {
			t[r] = f
		}
	}
	return t
}()

// term appends the folded bytes of cs (consecutive characters) to the arena
// and emits them as a token.
func (tb *tokBuilder) emit(cs []fchar, pos int, typ analysis.TokenType) {
	n := cs[len(cs)-1].fe - cs[0].fs // consecutive in fold
	if len(tb.arena)+n > cap(tb.arena) {
		tb.arena = make([]byte, 0, max(arenaChunk, n))
	}
	at := len(tb.arena)
	for _, c := range cs {
		tb.arena = append(tb.arena, tb.fold[c.fs:c.fe]...)
	}
	if len(tb.toks) == cap(tb.toks) {
		tb.full = append(tb.full, tb.toks)
		tb.count += len(tb.toks)
		tb.toks = make([]analysis.Token, 0, tokChunk)
	}
	tb.toks = append(tb.toks, analysis.Token{Term: tb.arena[at:len(tb.arena):len(tb.arena)], Start: cs[0].start,
		End: cs[len(cs)-1].end, Position: pos + 1, Type: typ})
}

// flush emits the current word's tokens, as analyze's flush does.
func (tb *tokBuilder) flush() {
	run := tb.chars
	for i := 0; i < len(run); {
		j := i
		for j < len(run) && run[j].cjk == run[i].cjk {
			j++
		}
		switch {
		case !run[i].cjk:
			tb.emit(run[i:j], tb.pos, analysis.AlphaNumeric)
			tb.pos++
		case j-i == 1:
			tb.emit(run[i:j], tb.pos, analysis.Ideographic)
			tb.pos++
		default:
			cs := run[i:j]
			for k := 0; k+1 < len(cs); k++ {
				tb.emit(cs[k:k+1], tb.pos+k, analysis.Ideographic)
				tb.emit(cs[k:k+2], tb.pos+k, analysis.Ideographic)
			}
			last := len(cs) - 1
			tb.emit(cs[last:], tb.pos+last-1, analysis.Ideographic)
			tb.pos += last
		}
		i = j
	}
	tb.chars, tb.fold = tb.chars[:0], tb.fold[:0]
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
