package markup

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"golang.org/x/net/html"
)

const goCode = "package main\n\nfunc main() {\n\tprintln(\"<b>&\")\n}\n"

// parseFragment parses an HTML fragment as the body of a page.
func parseFragment(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func visit(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		visit(c, fn)
	}
}

func classOf(n *html.Node) string {
	for _, a := range n.Attr {
		if a.Key == "class" {
			return a.Val
		}
	}
	return ""
}

func hasClassName(n *html.Node, c string) bool {
	for _, f := range strings.Fields(classOf(n)) {
		if f == c {
			return true
		}
	}
	return false
}

func rawText(n *html.Node) string {
	var b strings.Builder
	visit(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}

// codeText is the text of a block's <code>: what a reader copies.
func codeText(t *testing.T, s string) string {
	t.Helper()
	var out []string
	visit(parseFragment(t, s), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "code" {
			out = append(out, rawText(n))
		}
	})
	if len(out) != 1 {
		t.Fatalf("%d <code> elements, want 1:\n%s", len(out), s)
	}
	return out[0]
}

// lineNums are the line numbers a block shows: a gutter column or numbers
// per line, whichever the highlighter writes.
func lineNums(t *testing.T, s string) []int {
	t.Helper()
	var got []int
	visit(parseFragment(t, s), func(n *html.Node) {
		if n.Type != html.ElementNode || !(hasClassName(n, "gutter") || n.Data == "span" && hasClassName(n, "ln")) {
			return
		}
		for _, f := range strings.Fields(rawText(n)) {
			k, err := strconv.Atoi(f)
			if err != nil {
				t.Errorf("line number %q", f)
			}
			got = append(got, k)
		}
	})
	return got
}

func seq(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

func TestHighlighterCache(t *testing.T) {
	t.Parallel()
	h := NewHighlighter()
	first := h.Block("go", "", goCode)
	if hits, misses, plain := h.Stats(); hits != 0 || misses != 1 || plain != 0 {
		t.Fatalf("after one block: hits %d, misses %d, plain %d; want 0, 1, 0", hits, misses, plain)
	}
	second := h.Block("go", "", goCode)
	if hits, misses, _ := h.Stats(); hits != 1 || misses != 1 {
		t.Errorf("the same block again: hits %d, misses %d; want 1, 1", hits, misses)
	}
	if first != second {
		t.Errorf("a cached block differs from the first rendering")
	}
	// Line numbers, another language or another file name are other
	// blocks: none may be served the first one's HTML.
	h.Lines("go", "", goCode, 1)
	h.Lines("go", "", goCode, 7)
	h.Block("python", "", goCode)
	h.Block("", "main.go", goCode)
	if hits, misses, _ := h.Stats(); hits != 1 || misses != 5 {
		t.Errorf("different blocks: hits %d, misses %d; want 1, 5", hits, misses)
	}
	if got := lineNums(t, string(h.Lines("go", "", goCode, 7))); fmt.Sprint(got) != fmt.Sprint(seq(7, 5)) {
		t.Errorf("cached numbered block shows lines %v, want 7–11", got)
	}
}

func TestHighlighterHighlights(t *testing.T) {
	t.Parallel()
	h := NewHighlighter()
	out := string(h.Block("go", "", goCode))
	if !strings.Contains(out, `<span class="code-lang">go</span>`) {
		t.Errorf("no language label:\n%s", out)
	}
	if !strings.Contains(out, `<span class="k`) {
		t.Errorf("no token classes in highlighted Go:\n%s", out)
	}
	if got := codeText(t, out); got != strings.TrimSuffix(goCode, "\n") {
		t.Errorf("code text = %q, want the code (final newline dropped) %q", got, goCode)
	}
	if strings.Contains(out, "<b>") || !strings.Contains(out, "&lt;b&gt;&amp;") {
		t.Errorf("code not escaped:\n%s", out)
	}
	// A file name picks the lexer and labels the block.
	out = string(h.Block("", `C:\src\app\main.go`, goCode))
	if !strings.Contains(out, `<span class="code-lang">main.go</span>`) || !strings.Contains(out, `<span class="k`) {
		t.Errorf("file name did not pick the Go lexer or label:\n%s", out)
	}
}

func TestHighlighterLineNumbers(t *testing.T) {
	t.Parallel()
	h := NewHighlighter()
	for _, start := range []int{1, 40, 1234} {
		code := "const a = 1;\nconst b = 2;\n\nexport { a, b };\n"
		out := string(h.Lines("", "cart.ts", code, start))
		if got, want := lineNums(t, out), seq(start, 4); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("start %d: line numbers %v, want %v", start, got, want)
		}
		// The numbers sit apart from the code: copying takes the code only.
		if got := codeText(t, out); got != strings.TrimSuffix(code, "\n") {
			t.Errorf("start %d: the code reads %q, want %q", start, got, code)
		}
	}
	// Lines below 1 start at 1.
	if got := lineNums(t, string(h.Lines("go", "", "a\nb", 0))); fmt.Sprint(got) != "[1 2]" {
		t.Errorf("start 0: line numbers %v, want [1 2]", got)
	}
	// Block has none.
	if got := lineNums(t, string(h.Block("go", "", goCode))); len(got) != 0 {
		t.Errorf("Block shows line numbers %v", got)
	}
}

func TestHighlighterSizeCap(t *testing.T) {
	t.Parallel()
	h := NewHighlighter()
	h.MaxBytes = 200
	big := strings.Repeat("x := \"<script>alert(1)</script>\"\n", 20)
	out := string(h.Lines("go", "", big, 10))
	if !strings.Contains(out, "too-big") || !strings.Contains(out, "plain") {
		t.Errorf("oversized code not marked plain too-big:\n%.300s", out)
	}
	if strings.Contains(out, `<span class="k`) {
		t.Errorf("oversized code highlighted")
	}
	if strings.Contains(out, "<script>") || codeText(t, out) != strings.TrimSuffix(big, "\n") {
		t.Errorf("oversized code not shown escaped as it is")
	}
	if got := lineNums(t, out); fmt.Sprint(got) != fmt.Sprint(seq(10, 20)) {
		t.Errorf("oversized code: line numbers %v, want 10–29", got)
	}
	if _, misses, plain := h.Stats(); misses != 0 || plain != 1 {
		t.Errorf("Stats: misses %d, plain %d; want 0, 1", misses, plain)
	}
	// The line cap too.
	h2 := NewHighlighter()
	h2.MaxLines = 5
	if out := string(h2.Block("go", "", strings.Repeat("x := 1\n", 6))); !strings.Contains(out, "too-big") {
		t.Errorf("code over MaxLines not shown plain:\n%.300s", out)
	}
	if out := string(h2.Block("go", "", strings.Repeat("x := 1\n", 4))); strings.Contains(out, "too-big") {
		t.Errorf("code under MaxLines shown plain")
	}
}

func TestHighlighterUnknownLanguage(t *testing.T) {
	t.Parallel()
	h := NewHighlighter()
	out := string(h.Block("no-such-language", "", "<b>bold</b> & more"))
	if !strings.Contains(out, `class="chroma plain"`) || strings.Contains(out, "too-big") {
		t.Errorf("unknown language not shown plain (and not too-big):\n%s", out)
	}
	if !strings.Contains(out, "&lt;b&gt;bold&lt;/b&gt; &amp; more") {
		t.Errorf("plain code not escaped:\n%s", out)
	}
	if !strings.Contains(out, `<span class="code-lang">no-such-language</span>`) {
		t.Errorf("the label should still name what the transcript said:\n%s", out)
	}
	if _, _, plain := h.Stats(); plain != 1 {
		t.Errorf("plain = %d, want 1", plain)
	}
	// No language and no file name: plain, no label.
	if out := string(h.Block("", "", "text")); strings.Contains(out, "code-lang") || !strings.Contains(out, "plain") {
		t.Errorf("unlabelled text block:\n%s", out)
	}
}

func TestHighlighterConcurrent(t *testing.T) {
	t.Parallel()
	h := NewHighlighter()
	var wg sync.WaitGroup
	outs := make([]string, 16)
	for i := range outs {
		wg.Go(func() { outs[i] = string(h.Lines("go", "", goCode, 3)) })
	}
	wg.Wait()
	for i, o := range outs {
		if o != outs[0] {
			t.Fatalf("rendering %d differs from rendering 0", i)
		}
	}
	if hits, misses, _ := h.Stats(); hits+misses != 16 {
		t.Errorf("hits %d + misses %d != 16 calls", hits, misses)
	}
}

// TestLexerMatchSame: matchLexer and getLexer find the lexer chroma's
// lexers.Match and lexers.Get find, for every name made from chroma's own
// file name patterns (as is, upper case, with an ignored suffix, the
// extension swapped), every lexer name and alias, and common and odd names.
func TestLexerMatchSame(t *testing.T) {
	fill := strings.NewReplacer("*", "foo", "?", "x", "[", "", "]", "", "\\", "")
	var names, langs []string
	for i, l := range lexers.GlobalLexerRegistry.Lexers {
		cfg := l.Config()
		for _, p := range append(append([]string(nil), cfg.Filenames...), cfg.AliasFilenames...) {
			n := fill.Replace(p)
			// (lexers.Match takes milliseconds: a few variants each.)
			names = append(names, n, strings.ToUpper(n), n+ignoredSuffixes[i%len(ignoredSuffixes)])
			if i := strings.LastIndexByte(n, '.'); i > 0 {
				names = append(names, n[:i]+".bak")
			}
		}
		for _, a := range append([]string{cfg.Name}, cfg.Aliases...) {
			langs = append(langs, a, strings.ToUpper(a))
		}
	}
	names = append(names, "Makefile", "Makefile.in", "Dockerfile", "Dockerfile.dev", "CMakeLists.txt", "go.mod", "go.sum",
		"README", "LICENSE", "notes.txt", "server.log", "data.jsonl", "x.S", "x.R", "x.C", "PKGBUILD", "Gemfile", "Rakefile",
		"BUILD", "WORKSPACE", "Jenkinsfile", "nginx.conf", "a.b.c", ".bashrc", ".gitignore", "config", "schema.graphql",
		"", ".", "/", "a/b.go", `dir\x.go`, "x.go~", "x.py.orig", "CMakeLists.txt.orig", "x.", "x..go", "~")
	langs = append(langs, "go", "golang", "py", "python3", "sh", "console", "text", "plaintext", "output", "diff", "json5",
		"c++", "objective-c", "foo/bar", "", "x.go", "Makefile", "tsx", "jsx", "shell-session", "zsh", "ps1", "dockerfile",
		"env", "ini", "toml", "yml", "proto", "mermaid", "log", "csv", "sql", "patch", "txt", "rs")
	same := func(what, n string, want, got chroma.Lexer) {
		if want != got {
			t.Errorf("%s(%q): %v, chroma's %v", what, n, got, want)
		}
	}
	var wg sync.WaitGroup
	for k := range 2 {
		wg.Go(func() {
			for i := k; i < len(names); i += 2 {
				same("matchLexer", names[i], lexers.Match(names[i]), matchLexer(names[i]))
			}
			for i := k; i < len(langs); i += 2 {
				same("getLexer", langs[i], lexers.Get(langs[i]), getLexer(langs[i]))
			}
		})
	}
	wg.Wait()
	if len(names) < 1000 || len(langs) < 500 {
		t.Errorf("only %d names and %d languages checked", len(names), len(langs))
	}
	t.Logf("%d names, %d languages", len(names), len(langs))
}

// BenchmarkLexerMatch: a name no lexer has, which tries every pattern.
func BenchmarkLexerMatch(b *testing.B) {
	for b.Loop() {
		matchLexer("x.unknownext")
	}
}
