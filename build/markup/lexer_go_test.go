package markup

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// TestGoLexerMatchesChroma: the Go twin's markup is chroma's Go lexer's, on
// edge cases of each rule, on a sample of Go's own sources (GOROOT), and
// on those texts cut and with characters put in at random (strings and
// comments left open, numbers run into words).
func TestGoLexerMatchesChroma(t *testing.T) {
	t.Parallel()
	twin, ref := twinLexers(t, "go", "Go")
	texts := []string{
		``, ` `, "\n", "\n\n  \t\n", `package main`, "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
		// Words: keywords whole, builtins before "(", types, functions.
		`format formatter for fortune if iff ifx1 x1if _if if_`, `len(x) len (x) len2(x) string(b) string x string`,
		`any(x) any x error(e) error`, `f(x) f (x) f	(x) f` + "\n(x)" + ` _f(x) F1(x)`, `1if 2for 3x 0x1Fg 1_000 0b102 09 00x1`,
		`import package var func struct map chan type interface const true false iota nil make new`,
		// Numbers, in each rule's shape and near misses.
		`1i 1.5i 1.i 1.e+5i .5i .5e-5i 1e+5i 1e5i 1e5 1.5 1. 1.5e5 1.5e+5 1.5E-5 .5 .5e5 .e5 1e 1e+ 1.e 1.5e`,
		`0 07 0755 08 0x 0x1 0X_F 0b 0b101 0b2 0 123 1_2 1__ 0.0 00.5 .5.5 1..2 1...`,
		// Comments.
		"// c\n//go:build x\n//\n//\t\n/* a */ /**/ /* a\nb */ /*/ x */ /* open", "/\\\n* a *\\\n/ x", "a /* b */ c // d", "x // é\n//é\n",
		`/*/`, `/* * / */`, "//", "// ", "a//b",
		// Strings and characters.
		`"" "a" "a\"b" "a\\" "a\\\"" "\\\\" "é€𝄞" "multi` + "\nline\"", `"open`, `"open\"`, `"a\\"b"`, `x := "a" + "b"`,
		`'a' '\n' '\'' '\\' '\x41' '\0' '\012' '\0123' '\u1234' '\U00012345' 'é' '' ''' '\8' '\x4' 'ab'`, `'`, `'\`,
		"`raw` `a\nb` `{{.X}}` `{{ if .A }}x{{ end }}` `json:\"x,omitempty\"` ``", "`open",
		// Operators and punctuation.
		`a<<=b>>=c<<d>>e<=f>=g&^=h&^i+=j-=k*=l/=m%=n&=o|=p&&q||r<-s++t--u==v!=w:=x...y+z-a*b/c%d&e|f^g<h>i=j!k~l`,
		`()[]{}.,;:`, `a.b.c()`, `x[1:2]`, `f(a, b...)`,
		// Characters no rule takes, Unicode words and spaces: chroma's.
		`a ? b`, `#x`, `$`, `@x`, `a \ b`, `é := 1`, `x é`, "a\u00a0b", "a\rb", "bad \xff utf8",
	}
	// A sample of Go's own sources.
	root := filepath.Join(runtime.GOROOT(), "src")
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		n++
		if n%40 != 0 {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && len(b) < 48<<10 {
			texts = append(texts, string(b))
		}
		return nil
	})
	texts = withMutations(texts, 5, []string{"\"", "'", "`", "/*", "//", "\\", ".", "e", "0x", "1", "(", " ", "\n", "é", "*/", "#", "_"})
	memo := memoLexer{ref, map[string][]chroma.Token{}}
	taken := sameMarkup(t, twin, memo, texts, goScanned)
	sameHandTokens(t, memo, texts, func(s string) ([]chroma.Token, bool) { return goTwin(NewHighlighter(), s) })
	t.Logf("%d texts, %d scanned by hand", len(texts), taken)
	if taken < len(texts)/3 {
		t.Errorf("only %d of %d texts scanned by hand", taken, len(texts))
	}
}

// goScanned reports whether the Go twin takes s (not chroma's rules).
func goScanned(s string) bool {
	_, ok := goTwin(NewHighlighter(), s)
	return ok
}

// BenchmarkGoLexer highlights a Go source file of the standard library
// with the Go twin and with chroma's lexer.
func BenchmarkGoLexer(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "strings", "strings.go"))
	if err != nil {
		b.Skip(err)
	}
	twin, ref := twinLexers(b, "go", "Go")
	benchLexers(b, string(src), twin, ref)
}

// FuzzGoLexer: on any text, the Go twin's markup is chroma's Go lexer's (and
// the scan does not panic).
func FuzzGoLexer(f *testing.F) {
	for _, s := range []string{"package main\nfunc f() { x := `a{{.B}}` + \"c\\\"\" }", "0x1F 1.5e+3i 'a' '\\x41' /* c */ // d", "a<<=b&^c...d", "f (x)"} {
		f.Add(s)
	}
	twin, ref := twinLexers(f, "go", "Go")
	f.Fuzz(func(t *testing.T, s string) {
		got, gotClean := markupOf(t, twin, s)
		want, wantClean := markupOf(t, ref, s)
		if got != want || gotClean != wantClean {
			t.Errorf("%q: hand %q, chroma %q", s, got, want)
		}
	})
}
