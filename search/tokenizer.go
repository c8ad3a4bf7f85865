package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// TokenizerName names the word tokenizer in bleve's registry.
const TokenizerName = "ccsite_words"

// wordTokenizer finds runs of Unicode letters, numbers and underscores: the
// same tokens as TokenPattern, several times faster than a regexp.
type wordTokenizer struct{}

func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// spans calls fn with the byte range of every token in b.
func spans(b []byte, fn func(start, end int)) {
	start := -1
	for i := 0; i < len(b); {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		if isWord(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(start, i)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(start, len(b))
	}
}

func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	rv := make(analysis.TokenStream, 0, len(input)/6+1)
	spans(input, func(s, e int) {
		rv = append(rv, &analysis.Token{Term: input[s:e], Start: s, End: e, Position: len(rv) + 1, Type: analysis.AlphaNumeric})
	})
	return rv
}

// Tokens analyses text as the index does: tokens, lower-cased.
func Tokens(text string) []string {
	var out []string
	spans([]byte(text), func(s, e int) { out = append(out, strings.ToLower(text[s:e])) })
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
