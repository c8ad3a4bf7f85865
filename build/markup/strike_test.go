package markup

import (
	"strings"
	"testing"
)

// TestMarkdownSingleTilde: a single ~ is text, as on GitHub (GFM strikes
// through with ~~ only). goldmark's strikethrough takes one tilde too, and
// struck paths like iCloud's com~apple~CloudDocs (31 places on real data).
func TestMarkdownSingleTilde(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, want string
		del       bool
	}{
		{"cd ~/Library/Mobile Documents/com~apple~CloudDocs/notes", "com~apple~CloudDocs/notes", false},
		{"a ~one~ b", "a ~one~ b", false},
		{"~x~", "~x~", false},
		{"~~x~~ y", "<del>x</del> y", true},
		{"a ~~gone~~ b", "a <del>gone</del> b", true},
		{"~~a ~b~ c~~", "<del>a ~b~ c</del>", true},
		{"a ~~x~ b", "a ~~x~ b", false},
		{"a ~~~x~~~ b", "a ~~~x~~~ b", false},
		{"**~~both~~**", "<strong><del>both</del></strong>", true},
	} {
		out := md(tc.src)
		if !strings.Contains(out, tc.want) {
			t.Errorf("Markdown(%q) = %q, lacks %q", tc.src, out, tc.want)
		}
		if got := strings.Contains(out, "<del>"); got != tc.del {
			t.Errorf("Markdown(%q) = %q: struck through %v, want %v", tc.src, out, got, tc.del)
		}
	}
}
