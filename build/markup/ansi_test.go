package markup

import (
	"encoding/json"
	"html"
	"html/template"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"ccsite/internal/corpustest"
	"ccsite/internal/randtext"

	terminal "github.com/buildkite/terminal-to-html/v3"
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
	// The bytes next to those escaped too: a word-at-a-time search must
	// not take them for one.
	const alphabet = "ab<>&\"'+\x00é \n=?;%(!#\x01\x7f\x80\xbe\xff"
	for range 20000 {
		texts = append(texts, randtext.Of(rng, alphabet, rng.IntN(70)))
	}
	for _, s := range texts {
		if got, want := escapeHTML(s), template.HTMLEscapeString(s); got != want {
			t.Fatalf("escapeHTML(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestCarriageReturnsAsEmulator: a text whose only controls are line ends
// and carriage returns reads, drawn by carriageReturns, as the terminal
// emulator draws it (terminal-to-html), but for what the eye cannot see:
// its trailing blanks on a line and its "&nbsp;" on an empty one. On random
// texts of short and long lines, wide characters and HTML's special ones,
// and on the corpus's tool outputs with carriage returns ($CCSITE_CORPUS).
func TestCarriageReturnsAsEmulator(t *testing.T) {
	norm := func(s string) string {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(strings.ReplaceAll(l, "\u00a0", ""), " \t")
		}
		return strings.TrimRight(strings.Join(lines, "\n"), "\n")
	}
	n, long := 0, 0
	check := func(s string) {
		if strings.IndexByte(s, '\r') < 0 || strings.ContainsAny(s, "\x1b\b") || !utf8.ValidString(s) {
			return
		}
		drawn, ok := carriageReturns(s)
		if !ok {
			long++
			return
		}
		n++
		if got, want := norm(drawn), norm(html.UnescapeString(terminal.Render([]byte(s)))); got != want {
			t.Fatalf("%q:\n drawn    %q\n emulator %q", s, got, want)
		}
		if out := string(ANSI(s)); out != escapeHTML(drawn) {
			t.Fatalf("ANSI(%q) = %q, not the drawn text escaped", s, out)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	pieces := append(randtext.Bytes("ab <&>\"' \t\r\n"), "\r\n", "é", "東", "  0 --:--\r", "\r\r", "Rebasing (1/1)\r",
		strings.Repeat("x", 150), strings.Repeat("y", 161))
	for range 20000 {
		check(randtext.Join(r, pieces, 40))
	}
	if os.Getenv("CCSITE_CORPUS") != "" {
		corpustest.EachLine(t, func(_ string, line []byte) {
			var v any
			if json.Unmarshal(line, &v) != nil {
				return
			}
			var walk func(any)
			walk = func(v any) {
				switch v := v.(type) {
				case string:
					check(v)
				case []any:
					for _, e := range v {
						walk(e)
					}
				case map[string]any:
					for _, e := range v {
						walk(e)
					}
				}
			}
			walk(v)
		})
	}
	if n < 1000 || long == 0 {
		t.Errorf("%d texts drawn, %d left to the emulator: the texts no longer test both", n, long)
	}
	t.Logf("%d drawn, %d left to the emulator", n, long)
}
