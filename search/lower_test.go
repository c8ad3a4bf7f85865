package search

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"ccsite/internal/randtext"

	"github.com/blevesearch/bleve/v2/analysis"
)

// TestLowerTokens: lowerTokens gives each term what bleve's lower-case
// filter gives it, on random terms of ASCII letters and digits, accented
// and other letters (the final sigma, letters whose lower case is longer,
// the Kelvin sign, the dotted capital I) and broken UTF-8.
func TestLowerTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	pieces := append(randtext.Bytes("aZqM09_"), "É", "Σ", "σ", "Ⱥ", "Ⱦ", "\u212a", "İ", "ß", "Ǆ", "東", "\xff", "ABC", "xyz")
	ascii := 0
	for range 50000 {
		s := randtext.Join(r, pieces, 12)
		if s == "" {
			continue
		}
		a := &analysis.Token{Term: []byte(s)}
		b := &analysis.Token{Term: []byte(s)}
		lowerTokens(analysis.TokenStream{a})
		lower.Filter(analysis.TokenStream{b})
		if !bytes.Equal(a.Term, b.Term) {
			t.Fatalf("%q: lowerTokens %q, the filter %q", s, a.Term, b.Term)
		}
		if isASCII([]byte(s)) {
			ascii++
		}
	}
	if ascii < 1000 {
		t.Errorf("only %d ASCII terms", ascii)
	}
}
