package markup

import (
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"
)

func md(src string) string { return string(New(NewHighlighter()).Markdown(src)) }

// elems lists the elements named tag in s.
func elems(t *testing.T, s, tag string) []*html.Node {
	t.Helper()
	var out []*html.Node
	visit(parseFragment(t, s), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
	})
	return out
}

func attrOf(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func TestMarkdownGFM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"table", "| a | b |\n|---|--:|\n| 1 | 2 |\n", []string{"<table>", "<th>a</th>", `<td style="text-align:right">2</td>`}},
		// Task-list boxes carry an accessible name.
		{"task list", "- [x] done\n- [ ] todo\n", []string{`<input type="checkbox" checked disabled aria-label="done"> done`, `<input type="checkbox" disabled aria-label="not done"> todo`}},
		// Headings stay out of the page's outline.
		{"headings", "# Plan\n\n### Step", []string{`<p class="md-h md-h1">Plan</p>`, `<p class="md-h md-h3">Step</p>`}},
		{"strikethrough", "~~old~~ new", []string{"<del>old</del> new"}},
		{"autolink", "see https://example.com/x?a=1 now", []string{`<a href="https://example.com/x?a=1"`, ">https://example.com/x?a=1</a>"}},
		{"www autolink", "see www.example.com", []string{`href="http://www.example.com"`}},
		{"email autolink", "mail dev@example.com", []string{`href="mailto:dev@example.com"`}},
		{"emphasis", "**bold** _it_ `code`", []string{"<strong>bold</strong>", "<em>it</em>", "<code>code</code>"}},
		{"fenced code", "```go\nfunc main() {}\n```\n", []string{`<span class="code-lang">go</span>`, `class="copy"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := md(tc.src)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("Markdown(%q) = %q, lacks %q", tc.src, out, w)
				}
			}
		})
	}
}

func TestMarkdownRawHTML(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"inline <b>bold</b> and <script>alert(1)</script>",
		"<div>\n<script>alert(1)</script>\n</div>\n",
		"</details>\n\nafter",
		"<!-- comment --> <img src=x onerror=alert(1)>",
		`<a href="javascript:alert(1)">x</a>`,
		"<?php echo 1; ?> <![CDATA[x]]>",
	} {
		out := md(src)
		for _, tag := range []string{"script", "img", "div", "b", "details"} {
			if n := elems(t, out, tag); len(n) > 0 {
				t.Errorf("Markdown(%q) made a <%s> element: %q", src, tag, out)
			}
		}
		for _, a := range elems(t, out, "a") {
			if href, ok := attrOf(a, "href"); ok {
				t.Errorf("Markdown(%q) made a link to %q", src, href)
			}
		}
		// The raw HTML is shown as text, not dropped.
		text := rawText(parseFragment(t, out))
		for _, part := range strings.Fields(src) {
			if !strings.Contains(text, part) {
				t.Errorf("Markdown(%q) reads %q: %q is missing", src, text, part)
			}
		}
	}
}

func TestMarkdownLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, href string // href "" means no href at all
	}{
		{"[x](https://example.com/a)", "https://example.com/a"},
		{"[x](HTTPS://example.com/)", "HTTPS://example.com/"},
		{"[x](mailto:dev@example.com)", "mailto:dev@example.com"},
		{"[x](javascript:alert(1))", ""},
		{"[x](JAVASCRIPT:alert(1))", ""},
		{"[x](  javascript:alert(1))", ""},
		{"[x](<javascript:alert(1)>)", ""},
		{"[x](&#106;avascript:alert(1))", ""},
		{"[x](java\tscript:alert(1))", ""},
		{"[x](vbscript:msgbox(1))", ""},
		{"[x](data:text/html;base64,PHNjcmlwdD4=)", ""},
		{"[x](file:///etc/passwd)", ""},
		{"[x][r]\n\n[r]: javascript:alert(1)\n", ""},
		{"<javascript:alert(1)>", ""},
		{"[x](./src/main.go)", ""},
	} {
		out := md(tc.src)
		links := elems(t, out, "a")
		if len(links) != 1 {
			// Not every form is a link in CommonMark; then it must not be one.
			if tc.href != "" || len(links) > 1 {
				t.Errorf("Markdown(%q) = %q: %d links", tc.src, out, len(links))
			}
			continue
		}
		href, ok := attrOf(links[0], "href")
		switch {
		case tc.href == "" && ok:
			t.Errorf("Markdown(%q) kept href %q", tc.src, href)
		case tc.href != "" && href != tc.href:
			t.Errorf("Markdown(%q): href %q, want %q", tc.src, href, tc.href)
		}
		if rel, _ := attrOf(links[0], "rel"); ok && !strings.Contains(rel, "noopener") {
			t.Errorf("Markdown(%q): link without rel noopener: %q", tc.src, out)
		}
	}
	// A title cannot break out of its attribute.
	out := md(`[x](https://example.com "a\" onmouseover=\"alert(1)")`)
	for _, a := range elems(t, out, "a") {
		for _, at := range a.Attr {
			if strings.HasPrefix(at.Key, "on") {
				t.Errorf("link title made an attribute %s: %q", at.Key, out)
			}
		}
	}
}

func TestMarkdownImagesAreLinks(t *testing.T) {
	t.Parallel()
	out := md("![chart](https://example.com/chart.png) ![x](javascript:alert(1)) ![y](data:image/svg+xml;base64,PHN2Zz4=)")
	if imgs := elems(t, out, "img"); len(imgs) > 0 {
		t.Errorf("Markdown made <img> elements (a page would load them): %q", out)
	}
	links := elems(t, out, "a")
	if len(links) != 3 {
		t.Fatalf("%d image links, want 3: %q", len(links), out)
	}
	if href, _ := attrOf(links[0], "href"); href != "https://example.com/chart.png" || !strings.Contains(rawText(links[0]), "chart") {
		t.Errorf("image link %q", out)
	}
	for _, l := range links[1:] {
		if href, ok := attrOf(l, "href"); ok {
			t.Errorf("dangerous image source kept as href %q", href)
		}
	}
}

func TestMarkdownUnclosedFence(t *testing.T) {
	t.Parallel()
	out := md("before\n\n```js\nalert(1)\n</details><script>x</script>\n")
	if n := elems(t, out, "script"); len(n) > 0 {
		t.Errorf("script element from an unclosed fence: %q", out)
	}
	if !strings.Contains(rawText(parseFragment(t, out)), "alert(1)\n</details><script>x</script>") {
		t.Errorf("the fence's text is not shown as it is: %q", out)
	}
	// The fragment is balanced: what follows it on the page stays outside.
	doc := parseFragment(t, "<div id=wrap>"+out+"</div><p id=after>after</p>")
	var after *html.Node
	visit(doc, func(n *html.Node) {
		if v, _ := attrOf(n, "id"); v == "after" {
			after = n
		}
	})
	if after == nil || after.Parent == nil || after.Parent.Data != "body" {
		t.Errorf("Markdown output left an element open:\n%s", out)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	if got := string(Text(`<b>"&'`)); got != `<span class="plain">&lt;b&gt;&#34;&amp;&#39;</span>` {
		t.Errorf("Text = %q", got)
	}
}

// mapStore is a Store in memory that counts what it is asked.
type mapStore struct {
	mu         sync.Mutex
	m          map[[32]byte]string
	gets, puts int
}

func (s *mapStore) Get(k [32]byte) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	v, ok := s.m[k]
	return v, ok
}

func (s *mapStore) Put(k [32]byte, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts++
	s.m[k] = v
}

// TestMarkdownKept: a rebuild (a new renderer over the same Store) takes
// long Markdown's HTML from the Store, the same as rendered; short text is
// rendered each time; a code block with the same text is not mistaken for
// it.
func TestMarkdownKept(t *testing.T) {
	long := "# Plan\n\n" + strings.Repeat("Some **bold** text and `code`, <script>x</script>.\n\n", 8) + "```go\nfunc main() {}\n```\n"
	short := "just *this*"
	st := &mapStore{m: map[[32]byte]string{}}
	newR := func() *Renderer {
		hl := NewHighlighter()
		hl.Store = st
		return New(hl)
	}
	a := newR()
	first, firstShort := a.Markdown(long), a.Markdown(short)
	if !strings.Contains(string(first), "<strong>bold</strong>") || strings.Contains(string(first), "<script>") {
		t.Fatalf("rendered %q", first)
	}
	puts := st.puts
	if puts != 2 { // the block, the Markdown
		t.Errorf("%d blocks kept, want the code block and the Markdown", puts)
	}
	b := newR()
	if got := b.Markdown(long); got != first {
		t.Errorf("kept %q, rendered %q", got, first)
	}
	if got := b.Markdown(short); got != firstShort {
		t.Errorf("short: %q, then %q", firstShort, got)
	}
	if st.puts != puts {
		t.Errorf("a rebuild kept %d more", st.puts-puts)
	}
	// The Markdown's text as a code block is highlighted, not the
	// Markdown's HTML.
	if code := b.Highlighter().Code("", "", long, 0); strings.Contains(code, "<strong>") {
		t.Errorf("the code block was given the Markdown's HTML: %q", code)
	}
}

// TestANSIKept: long terminal output with escapes is kept and given back
// the same; output with none is only escaped, never kept.
func TestANSIKept(t *testing.T) {
	st := &mapStore{m: map[[32]byte]string{}}
	newR := func() *Renderer {
		hl := NewHighlighter()
		hl.Store = st
		return New(hl)
	}
	colour := strings.Repeat("\x1b[31mred\x1b[0m <b>plain</b> 50%\r\n", 20)
	plain := strings.Repeat("no escapes <here>\n", 20)
	a := newR()
	first := a.ANSI(colour)
	if first != ANSI(colour) || !strings.Contains(string(first), "term-fg31") {
		t.Fatalf("rendered %q", first)
	}
	if a.ANSI(plain) != ANSI(plain) {
		t.Errorf("plain output rendered differently")
	}
	if st.puts != 1 {
		t.Errorf("%d kept, want the coloured output alone", st.puts)
	}
	if got := newR().ANSI(colour); got != first || st.puts != 1 {
		t.Errorf("kept %q (%d puts), rendered %q", got, st.puts, first)
	}
	var none *Renderer
	if none.ANSI(colour) != first {
		t.Errorf("a nil renderer renders differently")
	}
}
