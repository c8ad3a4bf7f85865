package render

import "testing"

// TestCatN: Read's numbered text back into its first line and content, a
// trailing system reminder left out (and found wherever it is), or not ok.
func TestCatN(t *testing.T) {
	for _, c := range []struct {
		text, content string
		start, lines  int
		ok            bool
	}{
		{"     1\tpackage a\n     2\t\n     3\tfunc f() {}\n", "package a\n\nfunc f() {}\n", 1, 3, true},
		{"    40\tx\n    41\ty\n\n<system-reminder>\nWhenever you read a file…\n</system-reminder>\n", "x\ny\n", 40, 2, true},
		{"    12→old style\n    13→next", "old style\nnext\n", 12, 2, true},
		{"     1\ta\n<system-reminder>x</system-reminder>     2\tb\n", "a\nb\n", 1, 2, true},
		{"     1\ta\n     3\tb\n", "", 0, 0, false},
		{"no numbers here", "", 0, 0, false},
		{"<system-reminder>only</system-reminder>\n", "", 0, 0, false},
	} {
		start, content, lines, ok := catN(c.text)
		if ok != c.ok || (ok && (start != c.start || content != c.content || lines != c.lines)) {
			t.Errorf("catN(%q) = %d %q %d %v, want %d %q %d %v", c.text, start, content, lines, ok, c.start, c.content, c.lines, c.ok)
		}
	}
}
