package markup

import "testing"

// TestPlainText: a Markdown title reads as its words, with nothing of the
// syntax left, and markup in it stays text.
func TestPlainText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"You are **bob**, a _careful_ reviewer.", "You are bob, a careful reviewer."},
		{"# Review `main.go`\n\n- check *errors*\n- [the docs](https://example.org/x)", "Review main.go check errors the docs"},
		{"1. first\n2. second", "first second"},
		{"> quoted **text**", "quoted text"},
		{"Fix <script>alert(1)</script> now", "Fix <script>alert(1)</script> now"},
		{"a \\*literal\\* star &amp; entity", "a *literal* star & entity"},
		{"path com~apple~CloudDocs stays", "path com~apple~CloudDocs stays"},
		{"code:\n\n```go\nx := 1\n```\nafter", "code: x := 1 after"},
		{"see https://example.org/a_b_c now", "see https://example.org/a_b_c now"},
		{"", ""},
	} {
		if got := PlainText(c.in); got != c.want {
			t.Errorf("PlainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
