package markup

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
)

// markdownLexers are the Markdown lexer as highlighting uses it (its twin
// first) and chroma's own, the reference.
func markdownLexers(t testing.TB) (twin, ref chroma.Lexer) {
	return twinLexers(t, "markdown", "markdown")
}

// mdScanned reports whether the twin takes s (not chroma's rules).
func mdScanned(s string) bool {
	_, ok := markdownTwin(NewHighlighter(), s)
	return ok
}

// TestMarkdownLexerMatchesChroma: the hand scan's markup and tokens are
// chroma's Markdown lexer's, on edge cases of each rule, on this
// repository's Markdown, and on those texts cut and with characters put in
// at random (fences, emphasis and links left open, lines run together).
func TestMarkdownLexerMatchesChroma(t *testing.T) {
	t.Parallel()
	hand, ref := markdownLexers(t)
	texts := []string{
		``, ` `, "\n", "\n\n", "#", "#\n", "##", "x",
		// Headings: # then one character not #, then at least one more.
		"# Title\n", "# Title", "#a\n", "#a\nb", "#\nabc\n", "#\n\n", "#é€x\n", "## Sub\n", "##\n", "###\n", "##x\n",
		"#######\n", "####### seven\n", "a # not\n", "  # indented\n", "#tag word", "#tag/x:y z", "@user and @", "@é_1/x",
		// Lists: task, bullet, numbered, quote; spaces before them, blank
		// lines among those spaces, Unicode spaces.
		"- [ ] todo\n", "- [x] done\n", "* [X] Done\n", "- [y] no\n", "- [ ]\n", "- [ ] \n", "- [ ]x\n", "  - [ ] deep\n",
		"- item\n", "* item\n", "-item\n", "- \n", "-\nnext\n", "-\n\n", "\n\n- after blanks\n", "\u00a0- nbsp\n", "\u2003* em space\n",
		"-\u00a0x\n", "- item **bold** and *em*\n", "- `code` [a](b)\n", "1. one\n", "12. twelve\n", "1.one\n", "1. \n", "  3. x *y*\n", "1) no\n",
		"> quote\n", ">quote\n", "> \n", ">\nx\n", "  > deep *x*\n", "> - not a list\n", "- x", "1. x", "> x",
		// Fences: plain, with a language (lexed by its lexer), unknown,
		// unclosed, closed at the end, a closing line with more on it.
		"```\ncode\n```\n", "```\ncode\n```", "```\n```\n", "```\ncode\n``` x\n```\n", "```go\nfunc f() {}\n```\n",
		"```python\ndef f():\n    return 1\n```\n", "```nosuchlang\nx\n```\n", "```go\nopen", "```go \nx\n```\n", "```\nopen",
		"text\n```bash\necho hi # c\n```\nafter\n", "```json\n{\"a\": [1, true]}\n```", "```é\nx\n```\n", "```markdown\n# in\n- x\n```\n",
		"````\nx\n````\n", " ```\nx\n```\n", "```go\n```\n",
		// Emphasis, strong, deleted: after a space, closed before the line
		// ends, followed by a character not of a word.
		"a *em* b", "a *em*b", "a *em*", "a *em\n* b", "a _em_ b", "a _em_b", "a *a_b* c", "a ** b", "a *",
		"a **strong** b", "a **strong**b", "a **s*t** b", "a **a** **b** c", "a __u__ b", "a **open\n** x", "a ****x",
		"a ~~del~~ b", "a ~~del~~b", "a ~~~x~~ b", "a ~~d\nl~~ b", "a ~~x~ b", "a~~x~~ b", "\t*tab* x", "\u00a0*nbsp* x",
		"a *é* b", "a *x*é", "a **x**é c", "a **x** é",
		// Code, escapes, comments, links, images.
		"`x`", "``", "`a\nb`", "`open", "\\*not em*", "\\\n", "\\", "\\é", "<!-- c -->x", "<!-- open", "<!--->", "a <!-- b\nc --> d",
		"[a](b)", "![img](src.png)", "[a] (b)", "[](b)", "[a]()", "[a\nb](c\nd)", "!x", "![", "[open", "[a](open",
		// Characters no rule takes.
		"plain words, punctuation; and é€𝄞 emoji 🎯 text\n", "tabs\tand\vcontrol\x01chars\n", "a\u0085b\n",
	}
	for _, name := range []string{"../../README.md", "../../ARCHITECTURE.md"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	texts = withMutations(texts, 7, []string{"*", "**", "_", "~~", "`", "```", "\n", " ", "#", "[", "](", ")", "<!--", "-->", "\\", "é", "- ", "1. ", "> "})
	memo := memoLexer{ref, map[string][]chroma.Token{}}
	taken := sameMarkup(t, hand, memo, texts, mdScanned)
	sameHandTokens(t, memo, texts, func(s string) ([]chroma.Token, bool) { return markdownTwin(NewHighlighter(), s) })
	t.Logf("%d texts, %d scanned by hand", len(texts), taken)
	if taken < len(texts)*9/10 {
		t.Errorf("only %d of %d texts scanned by hand", taken, len(texts))
	}
	// Where the scan gives way: chroma's rules lex these.
	for _, s := range []string{"a\r\nb", "bad \xff utf8"} {
		if mdScanned(s) {
			t.Errorf("%q scanned by hand", s)
		}
	}
}

// TestMarkdownLexerFrontMatter: a leading YAML block is still YAML's, the
// rest scanned by hand.
func TestMarkdownLexerFrontMatter(t *testing.T) {
	hand, ref := markdownLexers(t)
	sameMarkup(t, hand, ref, []string{"---\ntitle: x\ntags: [a, b]\n---\n# Doc\n- *item*\n", "---\nopen: front\n# x\n"}, mdScanned)
	got, _ := markupOf(t, hand, "---\ntitle: x\n---\n# Doc\n")
	if !strings.Contains(got, "title") || !strings.Contains(got, "# Doc") {
		t.Errorf("front matter lost: %q", got)
	}
}

// BenchmarkMarkdownLexer highlights this repository's README with the
// Markdown twin and with chroma's lexer.
func BenchmarkMarkdownLexer(b *testing.B) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		b.Skip(err)
	}
	text := string(src)
	twin, ref := markdownLexers(b)
	benchLexers(b, text, twin, ref)
}

// FuzzMarkdownLexer: on any text, the Markdown lexer's markup is chroma's
// (and the scan does not panic).
func FuzzMarkdownLexer(f *testing.F) {
	for _, s := range []string{"# T\n- [ ] a *b* **c** ~~d~~\n1. `e` [f](g)\n> h\n```go\nx := 1\n```\n", "<!-- c --> @u #t \\* a __b__ c\n", "  -\n x\n```\ny\n```"} {
		f.Add(s)
	}
	hand, ref := markdownLexers(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, gotClean := markupOf(t, hand, s)
		want, wantClean := markupOf(t, ref, s)
		if got != want || gotClean != wantClean {
			t.Errorf("%q: hand %q, chroma %q", s, got, want)
		}
	})
}

// TestMarkdownLexerLinear: texts where a rule is tried at every occurrence
// of something and searches to the end of the line or text each time (an
// opening ** never closed, thousands of blank lines, a [ or <!-- with
// nothing to close it) are scanned in linear time, and still as chroma
// does. At 32 KB, the most a block is highlighted, the worst of these took
// 3 s before the scan remembered its searches (chroma 14 s); now a few ms.
func TestMarkdownLexerLinear(t *testing.T) {
	hand, ref := markdownLexers(t)
	units := []string{" **a", " __a", " *a", "\n", "\n \t", "<!--", "[a](", "[", "`", " ~~a~", "\n#", "```go\n", "- \n", "1. x"}
	var small []string
	for _, u := range units {
		small = append(small, strings.Repeat(u, 2048/len(u))+"x")
	}
	sameMarkup(t, hand, ref, small, mdScanned)
	start := time.Now()
	for _, u := range units {
		markupOf(t, hand, strings.Repeat(u, 32<<10/len(u))+"x")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("%d texts of 32 KB took %v (quadratic again?)", len(units), d)
	}
}
