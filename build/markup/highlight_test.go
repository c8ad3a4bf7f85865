package markup

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"golang.org/x/net/html"
)

const goCode = "package main\n\nfunc main() {\n\tprintln(\"<b>&\")\n}\n"

// rustCode is code of a language chroma lexes (no twin).
const rustCode = "fn main() {\n    let x: u8 = 1;\n    println!(\"<b>&{}\", x);\n}\n"

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

// memStore is a Store in memory that counts what it is given.
type memStore struct {
	mu   sync.Mutex
	m    map[[32]byte]string
	puts int
}

func (s *memStore) Get(k [32]byte) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	return v, ok
}

func (s *memStore) Put(k [32]byte, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[32]byte]string{}
	}
	s.m[k] = v
	s.puts++
}

// TestHighlighterTimeout: a block whose lexing by chroma may have hit its
// match timeout (a step of slowStep or more of its thread's time) or failed is shown plain, the
// same bytes every time, and kept in neither cache; a block lexed in time
// is highlighted and kept. A block a twin is sure of (Go's here) is not
// lexed by chroma, and cannot time out.
func TestHighlighterTimeout(t *testing.T) {
	t.Parallel()
	slow := func(l chroma.Lexer, code string) (chroma.Iterator, error) {
		it, err := l.Tokenise(nil, code)
		if err != nil {
			return nil, err
		}
		first := true
		return func() chroma.Token {
			if first { // as a match that ran into its timeout: busy
				first = false
				spin(slowStep + 20*time.Millisecond)
			}
			return it()
		}, nil
	}
	failing := func(chroma.Lexer, string) (chroma.Iterator, error) { return nil, errors.New("broken") }
	panicking := func(chroma.Lexer, string) (chroma.Iterator, error) {
		return func() chroma.Token { panic("unknown state") }, nil
	}
	for name, lex := range map[string]func(chroma.Lexer, string) (chroma.Iterator, error){"timeout": slow, "error": failing, "panic": panicking} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var outs [2]string
			var stores [2]*memStore
			for i := range outs { // two builds, each with its caches
				stores[i] = &memStore{}
				h := NewHighlighter()
				h.Store, h.tokenise = stores[i], lex
				outs[i] = string(h.Lines("rust", "", rustCode, 1)) + string(h.JSON("{\"a\": 1}"))
				if again := string(h.Lines("rust", "", rustCode, 1)) + string(h.JSON("{\"a\": 1}")); again != outs[i] {
					t.Errorf("the block again differs:\n%s\n%s", outs[i], again)
				}
				if _, misses, plain := h.Stats(); misses != 4 || plain != 4 {
					t.Errorf("misses %d, plain %d: want 4, 4 (never cached)", misses, plain)
				}
				if stores[i].puts != 0 {
					t.Errorf("%d blocks put in the Store", stores[i].puts)
				}
			}
			if outs[0] != outs[1] {
				t.Errorf("two builds differ:\n%s\n%s", outs[0], outs[1])
			}
			if !strings.Contains(outs[0], `<pre class="chroma plain"><code>fn main`) || strings.Contains(outs[0], `<span class="k`) {
				t.Errorf("not shown plain: %s", outs[0])
			}
			if !strings.Contains(outs[0], `<pre class="gutter" aria-hidden="true">1`) {
				t.Errorf("plain block without its gutter: %s", outs[0])
			}
			h := NewHighlighter()
			h.tokenise = lex
			if out := string(h.Block("go", "", goCode)); !strings.Contains(out, `<span class="k`) {
				t.Errorf("Go's twin went through chroma: %s", out)
			}
		})
	}
	// Lexed in time, a block is highlighted and kept.
	s := &memStore{}
	h := NewHighlighter()
	h.Store = s
	if out := string(h.Lines("rust", "", rustCode, 1)); !strings.Contains(out, `<span class="k`) || s.puts != 1 {
		t.Errorf("a block lexed in time: %d puts, %s", s.puts, out)
	}
}

// spin keeps its thread busy for d of its own CPU time.
func spin(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for t0 := threadTime(); threadTime()-t0 < d; {
	}
}

// TestHighlighterUnderLoad: a step that waits for a core (a loaded
// machine: long on the clock, short on its thread) does not change how a
// block is shown: it is lexed again and highlighted and kept. One that
// waits at every try, long enough to have met a timeout, is shown plain
// and not kept.
func TestHighlighterUnderLoad(t *testing.T) {
	t.Parallel()
	waiting := func(times int, d time.Duration) func(chroma.Lexer, string) (chroma.Iterator, error) {
		var mu sync.Mutex
		left := times
		return func(l chroma.Lexer, code string) (chroma.Iterator, error) {
			it, err := l.Tokenise(nil, code)
			mu.Lock()
			wait := left > 0
			left--
			mu.Unlock()
			first := true
			return func() chroma.Token {
				if first && wait {
					time.Sleep(d)
				}
				first = false
				return it()
			}, err
		}
	}
	want := string(NewHighlighter().Lines("rust", "", rustCode, 1))
	for _, c := range []struct {
		name  string
		lex   func(chroma.Lexer, string) (chroma.Iterator, error)
		plain bool
	}{
		{"waited once", waiting(1, stallStep+50*time.Millisecond), false},
		{"waited twice a little", waiting(2, slowStep+20*time.Millisecond), false},
		{"waited every time", waiting(100, stallStep+50*time.Millisecond), true},
	} {
		s := &memStore{}
		h := NewHighlighter()
		h.Store, h.tokenise = s, c.lex
		out := string(h.Lines("rust", "", rustCode, 1))
		switch {
		case c.plain && (!strings.Contains(out, `<pre class="chroma plain">`) || s.puts != 0):
			t.Errorf("%s: want plain, not kept; %d puts: %s", c.name, s.puts, out)
		case !c.plain && (out != want || s.puts != 1):
			t.Errorf("%s: want highlighted as on an idle machine and kept; %d puts:\n%s\n%s", c.name, s.puts, out, want)
		}
	}
}
