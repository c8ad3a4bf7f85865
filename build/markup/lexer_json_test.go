package markup

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/go-json-experiment/json/jsontext"
)

// TestJSONLexerMatchesChroma highlights JSON texts with jsonLexer and with
// chroma's JSON lexer alone and compares the markup: edge cases, the same
// texts mutated at random, and with $CCSITE_CORPUS every line of the
// corpus as it is and indented (as tool results are shown).
func TestJSONLexerMatchesChroma(t *testing.T) {
	base := getLexer("json")
	if base == nil {
		t.Fatal("no JSON lexer")
	}
	fast := wrapLexer(base)
	if _, ok := fast.(jsonLexer); !ok {
		t.Fatalf("the JSON lexer is not wrapped: %T", fast)
	}
	slow := chroma.Coalesce(fastOf(base))
	texts := []string{
		``, ` `, `{}`, `[]`, `{"a":1}`, `{"a": [1, 2.5, -3, 4e10, 5.5E-3, 0, -0.0, true, false, null]}`,
		"{\n  \"a\": {\n    \"b\": \"c\\\"d\\\\\"\n  },\n  \"e\": []\n}",
		`"just a string"`, `42`, `-1.5e+7`, `true`, `null`, `[true,false,null]`, `{"k":"v","k2":{"x":[{"y":null}]}}`,
		`{"unicode": "ünï €𝄞", "esc": "\u0041\n\t\\\/"}`, "{\"a\":1}\n{\"b\":2}\n", `{"a":1}{"b":2}`, `[1,[2,[3,[4]]]]`,
		// Text chroma reads differently, or marks: handed to chroma.
		`{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `01`, `1.`, `1e`, `-`, `.5`, `tru`, `truex`, `nullnull`, `{"a":1}}`, `]`,
		"{\"a\": 1} // comment\n", "{\"a\":\r\n 1}", "[\"a\rb\"]", "[\"a\r\nb\"]", "{\"a\r\": 1}",
		// Comments: // to the line's end, in every state; one without a
		// line end after it is chroma's (an error).
		"// c\n{\"a\": // x\n 1, // y\n \"b\": [1, // z\n 2 // w\n]// v\n} // end\n", "[1 // é \"q\" // again\n]", "{\"a\": 1} // no end",
		"[1, /2]", "[1, / /\n2]", "//\n", "// only", "/", "//", "/\n", "{/}", "{\"a\"/: 1}", "[1,\n//\n/]", "[1,\v2]", "[1,\f2]", "[1,\u00a02]", "[1,\u20282]", `"unterminated`,
		`"bad \` + "\xff" + ` utf8"`, `{"a":1e5x}`, `[1.5.5]`, `[--1]`, `{"a":-}`, `["a"/"b"]`, `[1 2]`, `{"a":[}]`,
		"[1,\t2]", "\n\n[1]\n\n", `{"a":true,"b":false,"c":null}`, `{"":""}`, `["\\"]`, `["\\\""]`, `["\"\\"]`,
	}
	if root := os.Getenv("CCSITE_CORPUS"); root != "" {
		files, _ := filepath.Glob(filepath.Join(root, "*", "*", "*.jsonl"))
		more, _ := filepath.Glob(filepath.Join(root, "*", "*", "*", "*", "*.jsonl"))
		for _, p := range append(files, more...) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			for k := 0; sc.Scan(); k++ {
				line := sc.Text()
				if k%8 != 0 || len(line) > 16<<10 {
					continue // chroma's regexps are slow: a sample
				}
				texts = append(texts, line)
				v := jsontext.Value(line)
				if v.Indent(jsontext.WithIndent("  ")) == nil {
					texts = append(texts, string(v))
				}
			}
			f.Close()
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := len(texts)
	for i := range n {
		s := texts[i]
		if len(s) == 0 || len(s) > 4<<10 {
			continue
		}
		for range 3 {
			k := r.IntN(len(s))
			c := "{}[],:\"\\ \n-.e0x/\t"[r.IntN(17)]
			texts = append(texts, s[:k]+string(c)+s[k:])
		}
	}
	taken := sameMarkup(t, fast, slow, texts, func(s string) bool { _, ok := jsonTokens(s); return ok })
	t.Logf("%d texts, %d scanned by hand", len(texts), taken)
	if taken < 30 || taken < len(texts)/3 && os.Getenv("CCSITE_CORPUS") != "" {
		t.Errorf("only %d of %d texts scanned by hand", taken, len(texts))
	}
	// Comments are scanned, and a / no rule takes (an error token);
	// \r, which chroma turns into \n first, is not.
	for s, want := range map[string]bool{"{\"a\": // x\n 1} // y\n": true, "[\"a\rb\"]": false, "[1] //": true, "[1] // end": false, "[1, /2]": true} {
		if _, ok := jsonTokens(s); ok != want {
			t.Errorf("%q scanned by hand: %v, want %v", s, ok, want)
		}
	}
}

// TestJSONLexerLinear: 32 KB of slashes (each an error token, and each a
// try of the comment rule that chroma's regexp2 runs to the end of the
// text: 20 s) or of comments scan in linear time.
func TestJSONLexerLinear(t *testing.T) {
	l := wrapLexer(getLexer("json"))
	start := time.Now()
	for _, u := range []string{"//", "/", "// x\n", "[1,//\n", "[\"a\", // b\n"} {
		s := strings.Repeat(u, 32<<10/len(u))
		if _, ok := jsonTokens(s); !ok {
			t.Errorf("%q…: not scanned by hand", s[:12])
		}
		highlightTokens(l, s, 0)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("5 texts of 32 KB took %v (quadratic again?)", d)
	}
}

// BenchmarkJSONLexer highlights 100 KB of indented JSON (a tool's result)
// with jsonLexer and with chroma's lexer.
func BenchmarkJSONLexer(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[\n")
	for i := 0; sb.Len() < 100<<10; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, "  {\n    \"id\": %d,\n    \"name\": \"item \\\"%d\\\"\",\n    \"price\": %d.5e-2,\n    \"tags\": [\"a\", \"b\"],\n    \"ok\": true,\n    \"next\": null\n  }", i, i, i)
	}
	sb.WriteString("\n]")
	text := sb.String()
	base := getLexer("json")
	benchLexers(b, text, wrapLexer(base), chroma.Coalesce(fastOf(base)))
}

// benchLexers highlights text with a hand scan ("hand") and with chroma's
// rules ("chroma"), as sub-benchmarks.
func benchLexers(b *testing.B, text string, hand, rules chroma.Lexer) {
	for _, c := range []struct {
		name  string
		lexer chroma.Lexer
	}{{"hand", hand}, {"chroma", rules}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				highlightTokens(c.lexer, text, 0)
			}
		})
	}
}

// withMutations adds to texts, for each (a window of 6 KB at most of the
// longer ones), a random tail of it and three copies with one of inserts
// put in at random: strings, comments and blocks left open or closed
// early. seed makes it the same every run.
func withMutations(texts []string, seed uint64, inserts []string) []string {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, s := range texts[:len(texts):len(texts)] {
		if len(s) < 2 {
			continue
		}
		if len(s) > 6<<10 {
			k := r.IntN(len(s) - 6<<10)
			s = s[k : k+6<<10]
		}
		texts = append(texts, s[r.IntN(len(s)):])
		for range 3 {
			k := r.IntN(len(s))
			texts = append(texts, s[:k]+inserts[r.IntN(len(inserts))]+s[k:])
		}
	}
	return texts
}

// sameMarkup checks that the fast lexer's markup (and whether it is clean)
// is the slow one's on each text, and returns how many texts scanned
// tells were scanned by hand.
func sameMarkup(t *testing.T, fast, slow chroma.Lexer, texts []string, scanned func(string) bool) int {
	t.Helper()
	taken := 0
	for _, s := range texts {
		if scanned(s) {
			taken++
		}
		got, gotClean := highlightTokens(fast, s, 0)
		want, wantClean := highlightTokens(slow, s, 0)
		if got != want || gotClean != wantClean {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%.300q: markup differs at byte %d (clean %v, chroma %v):\nhand:   …%.200q\nchroma: …%.200q", s, i, gotClean, wantClean, got[max(0, i-80):], want[max(0, i-80):])
		}
	}
	return taken
}
