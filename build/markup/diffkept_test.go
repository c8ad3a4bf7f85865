package markup

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDiffKept: a Highlighter's Diff is Diff, rendered once and then taken
// from memory or, in a new build, from the Store; hunks that differ only in
// where their lines break, or in a number, are never given another's HTML.
func TestDiffKept(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"a", "b", "func", "x := 1", "<script>", "é", "return y", ""}
	text := func() string {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			fmt.Fprintf(&b, "%s %s\n", words[r.IntN(len(words))], words[r.IntN(len(words))])
		}
		return b.String()
	}
	var cases [][]Hunk
	for range 300 {
		cases = append(cases, DiffStrings(text(), text(), 1+r.IntN(50)))
	}
	// Same bytes, other breaks or numbers.
	cases = append(cases,
		[]Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 0, Lines: []string{"-ab", "-c"}}},
		[]Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 0, Lines: []string{"-a", "b-c"}}},
		[]Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 0, Lines: []string{"-a", "-bc"}}},
		[]Hunk{{OldStart: 2, OldLines: 2, NewStart: 1, NewLines: 0, Lines: []string{"-a", "-bc"}}},
		[]Hunk{{OldStart: 2, OldLines: 2, NewStart: 1, NewLines: 0, Lines: []string{"-a", "-bc"}}, {OldStart: 9, NewStart: 8}},
		nil,
	)
	st := &mapStore{m: map[[32]byte]string{}}
	newHL := func() *Highlighter {
		hl := NewHighlighter()
		hl.Store = st
		return hl
	}
	a, b := newHL(), newHL()
	for i, hunks := range cases {
		want := Diff(hunks)
		for k, hl := range []*Highlighter{a, a, b, nil} {
			if got := hl.Diff(hunks); got != want {
				t.Fatalf("case %d, call %d: %q, want %q", i, k, got, want)
			}
		}
	}
	if st.puts == 0 || st.gets == 0 {
		t.Errorf("the Store was not used: %d puts, %d gets", st.puts, st.gets)
	}
}
