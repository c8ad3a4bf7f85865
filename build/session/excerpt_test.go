package session

import (
	"strings"
	"testing"
)

// excerptWhole is Excerpt as it was written first: every word of s joined,
// then cut. Excerpt joins only the words it keeps; the two must agree.
func excerptWhole(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return strings.TrimSpace(string(runes[:n-1])) + "…"
}

var excerptCases = []string{
	"", " ", "a", "  hello   world  ", "one two three four five six seven eight nine ten",
	"héllo wörld ünïcode ñ", "日本語のテキスト 日本語のテキスト 日本語のテキスト", "a\u00a0b\u2003c\u3000d",
	"bad \xff\xfe bytes \xc3 here and there and there", "tabs\tand\nnew\r\nlines\vand\fform",
	strings.Repeat("word ", 100), strings.Repeat("ü", 30) + " " + strings.Repeat("x", 30),
}

func TestExcerptAsWhole(t *testing.T) {
	for _, s := range excerptCases {
		for n := 1; n <= 40; n++ {
			if got, want := Excerpt(s, n), excerptWhole(s, n); got != want {
				t.Errorf("Excerpt(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}

func FuzzExcerpt(f *testing.F) {
	for _, s := range excerptCases {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 1 || n > 300 {
			return
		}
		if got, want := Excerpt(s, n), excerptWhole(s, n); got != want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}
