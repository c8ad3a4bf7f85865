package export

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/internal/randtext"
)

// TestFence: the fence is longer than the longest run of backticks, and
// at least three, whatever surrounds the runs (characters of several
// bytes, invalid UTF-8); the text is kept, its final newlines trimmed.
func TestFence(t *testing.T) {
	// Counted by runes, as it was before it counted bytes.
	byRunes := func(text string) int {
		n, run := 3, 0
		for _, r := range text {
			if r == '`' {
				run++
				n = max(n, run+1)
			} else {
				run = 0
			}
		}
		return n
	}
	pieces := []string{"`", "``", "````", "a", "é", "日本", "\xff", "\xe6\x97", "\n", " ", "````````"}
	r := rand.New(rand.NewPCG(1, 2))
	cases := []string{"", "`", "```", "````", "a````b", "é`````é", "\xe6`\x97``````"}
	for range 3000 {
		cases = append(cases, randtext.Join(r, pieces, 12))
	}
	fence := func(lang, text string) string {
		var b strings.Builder
		(&mdWriter{w: &b}).fence(lang, text)
		return b.String()
	}
	for _, text := range cases {
		got := fence("go", text)
		f := strings.Repeat("`", byRunes(text))
		if want := f + "go\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"; got != want {
			t.Fatalf("fence(%q) = %q, want %q", text, got, want)
		}
	}
	if got := fence("", "a ````` b"); !strings.HasPrefix(got, "``````\n") {
		t.Errorf("fence of a run of five: %q", got)
	}
}
