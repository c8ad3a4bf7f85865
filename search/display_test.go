package search

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/internal/randtext"
)

// TestCollapseSpace: collapseSpace is strings.Join(strings.Fields(s), " ").
func TestCollapseSpace(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb c", "\u00a0a\u2003b\u3000",
		"é  ü", "a \xff b", "\xff", "one two  three\n\nfour ", "x\u0085y", "  lead", "trail  "} {
		checkCollapse(t, s)
	}
	r := rand.New(rand.NewPCG(11, 12))
	pieces := append(randtext.Bytes("ab \t\n\r\v\f\xff"), "\u00a0", "\u2003", "\u0085", "é", "東", "word", "  ")
	for range 50000 {
		checkCollapse(t, randtext.Join(r, pieces, 30))
	}
}

func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{"a b", " a\t\tb\n", "é\u2003ü", "\xffa b"} {
		f.Add(s)
	}
	f.Fuzz(checkCollapse)
}

func checkCollapse(t *testing.T, s string) {
	if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
		t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
	}
}
