package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// render turns Markdown into HTML as a permissive renderer would: raw
// HTML passed through.
func render(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := gm.Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestProseNoLiveHTML: whatever the transcript's text, the Markdown we
// write holds no live HTML, yet code keeps its "<" as written.
func TestProseNoLiveHTML(t *testing.T) {
	hostile := []string{
		"<script>alert(1)</script>",
		"hello <img src=x onerror=alert(1)> world",
		"<!-- hidden --> <iframe src=//evil>",
		"\\` <script>alert(2)</script> \\`",
		"`unclosed <script>alert(3)</script>",
		"```js\nlet a = 1 < 2;\n```\n<script>alert(4)</script>",
		"    ```\n<script>alert(5)</script>\n    ```",
		"``` `bad info\n<script>alert(6)</script>\n```",
		"> quote\n<details open ontoggle=alert(7)>",
		"a \\<script>alert(8)</script>",
		"<div>\n*md*\n</div>",
		"- item\n  <svg onload=alert(9)>",
	}
	for _, in := range hostile {
		out := render(t, prose(in))
		for _, bad := range []string{"<script", "<img", "<iframe", "<!--", "<details", "<div", "<svg"} {
			if strings.Contains(out, bad) {
				t.Errorf("prose(%q) renders live %s:\n%s", in, bad, out)
			}
		}
	}
	// Code stays code, with its "<" as written.
	out := render(t, prose("Use `a < b` and\n\n```go\nif a < b {}\n```\n"))
	if !strings.Contains(out, "<code>a &lt; b</code>") || !strings.Contains(out, "if a &lt; b {}") || strings.Contains(out, "&amp;lt;") {
		t.Errorf("code changed:\n%s", out)
	}
	// Text shows "<" as the reader wrote it.
	if out := render(t, prose("1 <2 and <b>x</b>")); !strings.Contains(out, "1 &lt;2 and &lt;b&gt;x&lt;/b&gt;") && !strings.Contains(out, "1 &lt;2 and &lt;b>x&lt;/b>") {
		t.Errorf("text: %s", out)
	}
}

func TestCodeSpan(t *testing.T) {
	for _, in := range []string{"a`b", "`x`", "<script>", "path/with ``two`` runs"} {
		out := render(t, code(in))
		if strings.Contains(out, "<script") || !strings.Contains(out, "<code>") {
			t.Errorf("code(%q) renders %s", in, out)
		}
	}
}
