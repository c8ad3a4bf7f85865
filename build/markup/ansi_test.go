package markup

import (
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestANSI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     []string // substrings of the HTML
		not      []string
		text     string // the text a reader sees, when set
	}{
		{name: "plain", in: "a < b && c > d", want: []string{"a &lt; b &amp;&amp; c &gt; d"}, text: "a < b && c > d"},
		{name: "colour", in: "\x1b[31mred\x1b[0m and \x1b[32mgreen\x1b[39m",
			want: []string{`<span class="term-fg31">red</span>`, `<span class="term-fg32">green</span>`}, not: []string{"\x1b", "[31m"},
			text: "red and green"},
		{name: "bright and bold", in: "\x1b[1;94mbold blue\x1b[0m", want: []string{"term-fg1", "term-fgi94"}, text: "bold blue"},
		{name: "background", in: "\x1b[41m FAIL \x1b[49m", want: []string{"term-bg41"}},
		{name: "escaped with colours", in: "\x1b[33m<script>alert(1)</script>\x1b[0m",
			want: []string{"&lt;script&gt;alert(1)&lt;"}, not: []string{"<script>"}, text: "<script>alert(1)</script>"},
		{name: "carriage return rewrites the line", in: "progress 10%\rprogress 100%\ndone", text: "progress 100%\ndone"},
		{name: "shorter rewrite keeps the tail", in: "abcdef\rXY", text: "XYcdef"},
		{name: "CRLF line ends", in: "one\r\ntwo\r\n", text: "one\ntwo"},
		{name: "backspace", in: "ab\bc", text: "ac"},
		{name: "cursor moves", in: "12345\x1b[3DX", text: "12X45"},
		{name: "https hyperlink kept", in: "\x1b]8;;https://example.com/a?b=1\x1b\\site\x1b]8;;\x1b\\",
			want: []string{`href="https://example.com/a?b=1`, `rel="nofollow noopener noreferrer"`}, text: "site"},
		{name: "javascript hyperlink dropped", in: "\x1b]8;;JavaScript:alert(1)\x07click\x1b]8;;\x07",
			not: []string{"href", "javascript", "JavaScript"}, text: "click"},
		{name: "data hyperlink dropped", in: "\x1b]8;;data:text/html,<script>alert(1)</script>\x07x\x1b]8;;\x07",
			not: []string{"href", "<script>"}},
		{name: "buildkite link escape", in: "\x1b]1339;url=javascript:alert(1);content=bk\x07", not: []string{"href"}},
		{name: "iTerm inline image", in: "\x1b]1337;File=name=eC5zdmc=;inline=1:PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\x07",
			want: []string{`class="term-img"`}, not: []string{"<img", "data:"}},
		{name: "buildkite image escape", in: "\x1b]1338;url=https://evil.example/t.png;alt=x\x07", not: []string{"<img", "evil.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := string(ANSI(tc.in))
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("ANSI(%q) = %q, lacks %q", tc.in, out, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("ANSI(%q) = %q, holds %q", tc.in, out, w)
				}
			}
			if tc.text != "" {
				got := strings.ReplaceAll(rawText(parseFragment(t, "<pre>"+out+"</pre>")), "\u00a0", "")
				if got != tc.text {
					t.Errorf("ANSI(%q) reads %q, want %q\n(HTML %q)", tc.in, got, tc.text, out)
				}
			}
		})
	}
}

// TestEscapeHTML: escapeHTML gives what template.HTMLEscapeString gives, on
// every byte that is escaped, at each end, runs of them, and random text.
func TestEscapeHTML(t *testing.T) {
	texts := []string{"", "a", "<", "\x00", "a<b>c&d\"e'f\x00g", "<<>>&&''\"\"", "é<é", "plain text, nothing to escape"}
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "ab<>&\"'\x00é \n"
	for range 5000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := escapeHTML(s), template.HTMLEscapeString(s); got != want {
			t.Fatalf("escapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}
