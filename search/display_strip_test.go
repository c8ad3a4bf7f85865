package search

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"ccsite/internal/corpustest"
	"ccsite/internal/randtext"
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
