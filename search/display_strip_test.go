package search

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"ccsite/internal/corpustest"
	"ccsite/internal/randtext"

	"github.com/blevesearch/bleve/v2/analysis"
)

// stripMarkdownRef is stripMarkdown with every expression tried on every
// line, as it was before the first-byte checks.
func stripMarkdownRef(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	fenced := false
	for _, l := range lines {
		if reFence.MatchString(l) {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, l)
			continue
		}
		if reRule.MatchString(l) {
			continue
		}
		l = reBlock.ReplaceAllString(l, "")
		out = append(out, inline(l))
	}
	return strings.Join(out, "\n")
}

// TestStripMarkdownAsRegexps: stripMarkdown, which tries an expression
// only on a line starting with a byte it can match, gives what trying
// every expression on every line gives, on random lines of Markdown's
// markers and on the corpus's texts ($CCSITE_CORPUS, when set).
func TestStripMarkdownAsRegexps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := append(randtext.Bytes(" \t#>-*+_=`~[]()!.)1234567890xX\n"), "```", "~~~", "---", "***", "___", "1. ", "- [x] ", "> ", "## ", "é", "word")
	n := 0
	check := func(text string) {
		if got, want := stripMarkdown(text), stripMarkdownRef(text); got != want {
			t.Fatalf("%q:\n got %q\nwant %q", text, got, want)
		}
		n++
	}
	for range 50000 {
		check(randtext.Join(r, pieces, 40))
	}
	for _, s := range []string{"", "   ", "```go\nx\n```", "  ~~~\n# not a heading\n~~~", "\t- item\n\t1) two\n***\n====", "---\n> quote\n#x"} {
		check(s)
	}
	if os.Getenv("CCSITE_CORPUS") != "" {
		corpustest.EachLine(t, func(_ string, line []byte) {
			for _, part := range strings.Split(string(line), `\n`) {
				check(part)
			}
		})
	}
	t.Logf("%d texts", n)
}

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
