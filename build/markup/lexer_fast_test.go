package markup

import (
	"os"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// tokens returns the tokens of l over text, each run of one type joined
// (what the page shows: chroma's coalescer stops joining at 8 KB, where
// the fast lexer's runs of text may not).
func tokens(t testing.TB, l chroma.Lexer, text string) []chroma.Token {
	it, err := l.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.Token
	for tok := it(); tok != chroma.EOF && len(out) < 10*len(text)+100; tok = it() {
		if tok.Value == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Type == tok.Type {
			out[n-1].Value += tok.Value
			continue
		}
		out = append(out, tok)
	}
	return out
}

func sameTokens(t *testing.T, name string, l chroma.Lexer, text string) {
	t.Helper()
	fast := newFastMarkdown(l)
	if fast == nil {
		fast = newFastLexer(l)
	}
	if fast == nil {
		return
	}
	want, got := tokens(t, l, text), tokens(t, fast, text)
	if len(want) != len(got) {
		t.Errorf("%s: %d tokens, want %d", name, len(got), len(want))
		return
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("%s: token %d = %v, want %v", name, i, got[i], want[i])
			return
		}
	}
}

var fastSamples = []string{
	"package main\n\nimport \"fmt\"\n\n//go:build x\n// A comment\nfunc main() {\n\tx := 0x1F + 1.5e3i + 'a' + `raw {{.X}}`\n\tfmt.Println(\"hi\\\"\", x) /* c */\n}\n",
	"def f(x, *a, **k):\n    '''doc'''\n    return f\"{x!r:>10}\" + r'\\d' + b\"\\x00\" @ 0o17\n\nclass A(B): pass\n",
	"---\ntitle: x\n---\n# Title\n\nSome *emph* and **strong** and `code` text with [link](http://x) @user #tag.\n\n- [x] done\n1. one\n> quote\n\n```go\nfunc f() {}\n```\n\n```\nplain\n```\n",
	"{\"a\": [1, 2.5e-3, true, null, \"x\\\"y\"], \"b\": {}}\n",
	"#!/bin/bash\nset -euo pipefail\nfor f in *.go; do echo \"$f ${x:-y} $(ls)\"; done <<EOF\nheredoc $HOME\nEOF\n",
	"<html><body class=\"x\"><script>var a = 1;</script><style>a{color:red}</style></body></html>\n",
	"fn main() { let x: u8 = 0b1010; println!(\"{}\", x); }\n",
	"const f = async (a: number): Promise<void> => { return `t ${a}` }; // c\n",
	"key = \"v\"\n[table]\nn = 1_000\n",
	"a:\n  - b: 1\n    c: 'x'\n",
	"\t\r\n\x0b\x0c weird \u00a0\u2028 ünïcödé K ſ ١٢٣ \"unterminated\n'x\n/* never closed\n",
	"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
}

// TestFastLexerSame checks that every regexp lexer gives the same tokens
// with the filter as without, on samples of many languages (each lexer
// reads them all, which also feeds it text it does not expect).
// CCSITE_LEXER_SAMPLES names a folder of more sample files.
func TestFastLexerSame(t *testing.T) {
	samples := append([]string(nil), fastSamples...)
	if dir := os.Getenv("CCSITE_LEXER_SAMPLES"); dir != "" {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
					samples = append(samples, string(b))
				}
			}
			return nil
		})
	}
	names := strings.Fields("go python markdown json bash typescript javascript tsx rust html toml yaml swift css " +
		"powershell xml ini diff graphql c++ c java sql dockerfile makefile ruby php kotlin lua docker " +
		"plaintext desktop_entry systemd batchfile gherkin protobuf hcl nix elixir haskell csharp scala zig")
	if only := os.Getenv("CCSITE_LEXER_ONLY"); only != "" {
		names = strings.Fields(only)
	}
	for _, name := range names {
		l := lexers.Get(name)
		if l == nil {
			continue
		}
		for i, s := range samples {
			sameTokens(t, name+"/"+strconv.Itoa(i), l, s)
		}
	}
}

func TestOddClass(t *testing.T) {
	for p, want := range map[string]bool{
		`[^\W\d]\w*`: true, `[\W]`: true, `[^\s]`: true, `[\w.]+`: false, `\W+`: false,
		`[\[\]]`: false, `[]a]`: false, `[a-z-[aeiou]]`: true, `"[^"]*"`: false,
	} {
		if got := oddClass(p); got != want {
			t.Errorf("oddClass(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestFastLexerUsed checks that the common lexers get the filter.
func TestFastLexerUsed(t *testing.T) {
	if newFastMarkdown(lexers.Get("markdown")) == nil {
		t.Error("markdown not wrapped")
	}
	for _, name := range []string{"go", "python", "json", "bash"} {
		if newFastLexer(lexers.Get(name)) == nil {
			t.Errorf("%s not wrapped", name)
		}
	}
}

func TestRelax(t *testing.T) {
	for p, want := range map[string]string{
		`(\s)(\*|_)((?:(?!\2).)*)(\2)((?=\W|\n))`: `(\s)(\*|_)((?:.)*)((?s:.*))()`,
		`(?<=\.)\w+(?<!x)`:                        `\w+`,
		`(?>ab|a)c`:                               `(?:ab|a)c`,
		`[(?=]x\k<n>`:                             `[(?=]x(?s:.*)`,
		`\\1`:                                     `\\1`,
		`(?=[)])a`:                                `a`,
	} {
		if got := relax(p); got != want {
			t.Errorf("relax(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestRuleFilter checks what the filter lets through for rules of the
// shapes chroma's lexers have.
func TestRuleFilter(t *testing.T) {
	type at struct {
		text string
		pos  int
		skip bool
	}
	for pattern, cases := range map[string][]at{
		// markdown's emphasis: whitespace, then * or _.
		`(\s)(\*|_)((?:(?!\2).)*)(\2)((?=\W|\n))`: {{" *a*", 0, false}, {" a", 0, true}, {"a *", 0, true}, {" ", 0, true}},
		// a list item, only at a line's start.
		`^(\s*)([*-])(\s)(.+\n)`: {{"- a\n", 0, false}, {"x\n- a\n", 2, false}, {"x - a\n", 2, true}},
		`.|\n`:                   {{"a", 0, false}, {"\n", 0, false}},
		// non-ASCII characters are always tried.
		`(\s)(\*)`: {{"\u00a0*", 0, false}, {" é", 0, false}},
	} {
		f := filterFor(pattern, syntax.Perl&^syntax.OneLine)
		for _, c := range cases {
			if got := f.skip([]rune(c.text), c.pos); got != c.skip {
				t.Errorf("%q at %d of %q: skip = %v, want %v", pattern, c.pos, c.text, got, c.skip)
			}
		}
	}
}

// TestRegistryGet: registryGet finds what the registry's Get finds, for
// chroma's registry (through getLexer) and another one, names that are
// lexers' and names that are not, asked twice (the second from memory).
func TestRegistryGet(t *testing.T) {
	other := chroma.NewLexerRegistry()
	other.Register(lexers.Get("go"))
	names := []string{"go", "Go", "bash", "py", "tsx", "yaml", "x.rs", "Makefile", "", "nosuchlang", "mermaid", "text", "C++", "shell-session"}
	for round := range 2 {
		for _, reg := range []*chroma.LexerRegistry{lexers.GlobalLexerRegistry, other} {
			for _, n := range names {
				if got, want := registryGet(reg, n), reg.Get(n); got != want {
					t.Errorf("round %d: registryGet(%q) = %v, Get gives %v", round, n, got, want)
				}
			}
		}
	}
}
