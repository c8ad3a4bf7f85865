package markup

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ccsite/internal/corpustest"

	"github.com/alecthomas/chroma/v2"
)

// pythonLexers are the Python lexer as highlighting runs it (its twin
// first) and chroma's own (patient), the reference.
func pythonLexers(t testing.TB) (twin, ref chroma.Lexer) {
	return twinLexers(t, "python", "Python")
}

// pythonScanned reports whether the hand scan takes s (not chroma's
// rules).
func pythonScanned(s string) bool {
	_, ok := pythonTokens(s)
	return ok
}

// pythonEdgeCases are texts at the edges of each rule of chroma's Python
// lexer.
var pythonEdgeCases = []string{
	``, ` `, "\n", "\n\n  \t\n", "\v\f x", "\t", "x = 1", "x = 1\n", "print('hello, world')\n",
	// Comments and #!.
	"# c", "# c\n", "#", "#\n", "x # c", "x#c", "a #b\nc", "#!/usr/bin/env python3\nimport os", "#!", "#!\n", "#!x",
	" #!x\n", "x\n#!x\n", "# é — ünï\nx = 1", "#é", "\n#!x",
	// Backslashes in code.
	"x = 1 + \\\n    2", "\\", "x \\", "\\x", "\\\\", "a\\\n", "\\é",
	// Root keywords, whole and not, constants, words after digits.
	`if elif else while for in not and or is try except finally with as pass break continue return raise yield await async lambda global nonlocal del assert match case`,
	`ifx xif if_ _if if1 1if iff forx inx isnot notin a.if x.for`, `True False None Truex xNone None.x x.None`,
	"yield from x", "yield  from x", "yield from_x", "yield fromx", "yield from", "yield\nfrom", "yield from(x)", "yield from é",
	"async for x in y", "async def f(): pass", "await x", "x if y else z", "lambda x: x", "async  for", "yield fromé",
	// def, class, from, import and their states.
	"def f(x): pass", "def  f", "def\tf", "def\n\nf", "def \\\n f", "def\\\nf", "def", "def ", "def(", "def f", "def 1", "def é",
	"def __init__(self): pass", "def __init__", "def __init__x", "def __init__ x", "def __init__\n", "def __foo__(): pass", "deff x",
	"def __len__(self): return 0", "define x", "x.def y", "def\\ f", "def \\x", "def \\", "def\u00a0f", "def é(): pass",
	"class A: pass", "class A(B, metaclass=M):\n    pass", "class  A", "class\nA", "class", "class ", "class 1", "class (", "class é",
	"class _A1: pass", "classmethod", "class A\n", "class \\\nA",
	"from x import y", "from x.y import (a, b)", "from . import x", "from .. import x", "from .x import y as z", "from __future__ import annotations",
	"from x import*", "from x\nimport y", "from x importy", "from None import x", "from Nonex import y", "from x", "from", "from 1",
	"from x.import y", "from x import é", "from é import x", "from x  import", "from x\timport\ty", "from x import\n", "fromx import y",
	"import os", "import os, sys", "import os.path as osp, sys as s", "import a ,b", "import a,\n    b", "import a as", "import a as b",
	"import a asb", "import a  as  b", "import\n", "import", "import é", "import a, é", "import a.é", "import x # c", "import 1",
	"import a\nimport b\n", "import a as\nb", "importx", "x.import",
	// Expression keywords, operator words, builtins (not after "."), pseudo-builtins, exceptions, magic names.
	`x in y is not z and w or v`, `len(x) print(x) x.len x . len _len len_ isinstance(x, int) __import__('x') x.__import__`,
	`self cls x.self Ellipsis NotImplemented NotImplementedError ValueError x.ValueError Exception Warning`,
	`__init__ x.__init__ __name__ __file__ x.__doc__ __foo__ __init__x`, "super().__init__()", "obj.__class__.__name__",
	// Numbers, in each rule's shape and near misses.
	`1 12 1_000 1__0 1_ 0 00 007 0o17 0O7 0o 0o8 0o_7 0b101 0B1 0b 0b2 0x1F 0X_f 0x 0xg 1e5 1E+5 1e-5 1e 1e+ 1.5 1. .5 1.e5 1.5e5 1.5e 1e5j 1j 1.5j`,
	`1_000.000_1 1._5 1.__5 .5_5 ._5 1e1_0 1e_1 0x_ 0_0 09 1..2 1...2 x.5 x..5 ...`, "1é", "1.é", "1e٣", "1e+é", ".é", "1_é", "٣",
	"0o7é", "0x1é", "1.5e+é",
	// Operators and punctuation.
	`a!=b==c<<d>>e:=f-g~h+i/j*k%l=m<n>o&p^q|r.s`, `a != b == c <= d >= e ** f // g -> h += i @= j`, "()[]{}:,;", "x[1:2]", "a @ b",
	"a@b", "!", "a ! b", "$", "?", "`", "a = b ? c", "x\x00y", "x\x01", "a ;b",
	// Decorators.
	"@property\ndef f(): pass", "@app.route('/')\ndef f(): pass", "@ x", "@x . y . z", "@x.\ny", "@x\n.y", "@x.1", "@x.", "@", "@1",
	"@x .é", "@é", "@x.y é", "@functools.lru_cache(maxsize=None)", "@x .\ty",
	// Strings: prefixes of each kind and case, triple quotes, escapes.
	`'a' "a" '' "" 'a"b' "a'b" '\'' "\"" '\\' "\\"`, `u'a' U"a" b'a' B"a" r'a' R"a" rb'a' Rb"a" bR'a' BR"a" br'a'`,
	`f'a' F"a" rf'a' fR"a" Rf'a' FR"a" fr'a'`, `ub'a' ur'a' bu"a" fb'a' xr'a' ab"c" f 'a'`, `'''a''' """a""" r'''a''' b"""a""" f'''a''' rf"""a"""`,
	"'''a\nb''' \"\"\"a\n\"b\"\n\"\"\"", `'a\nb\tc\\d\'e\"f\0g\012h\1234i\x41j\x4k\u1234l\u12m\U0001F600n\U1234o\N{DASH}p\N{x\q\z'`,
	`r'\n\'' r"\"" r'\\' rb"\x" r'''\''' r"""\""" br'\''`, "'a\\\nb'", "r'a\\\nb'", "'''a\\\nb'''", "r'''a\\\nb'''",
	"'open", "\"open", "'open\nx = 1", "\"a\\\"", "'''open", "\"\"\"open\nx", "'a", "'", "\"", "''", "'''", "''''", "'''''", "''''''", "\"\"\"\"\"\"\"",
	"'é' \"€𝄞\" '''ünï\ncödé''' b'é' r'é' f'é{x}é'", "x = '\\N{EM DASH}'", `'\N{a}b}'`, `'\N{}'`, "'\\N{\n}'", `'\u00e9' '\U0001f600' '\xff'`,
	// %-format.
	`'%s %d %r %5.2f %-10s %(name)s %% %x %c %.3e %*d %.*f %ld %hs %Lf %(a)-5d %#o %+d % d %05d %i %u %a %E %G %X %o %%'`,
	`'%' '%y' '%(' '%(x' '%()s' '%(x)' '%(x)y' '%5' '%.' '%.x' '%.5' '%5.d' '%-' '%h' '%hl' '50% off' '%(é)s' '%(xé)s' '%.1é'`,
	// {}-format in plain strings.
	`'{} {0} {name} {0.x} {a[0]} {a[x].y} {a.b[c]} {!r} {0!s} {x!a} {:>10} {:*^30} {0:.2f} {x:,} {x:+.3e} {:%} {x:#x} {:08.3f}'`,
	`'{' '{{' '{{}}' '{x' '{x!}' '{x!z}' '{x:' '{x:q}' '{a[}' '{a[]}' '{a.}' '{a.1}' '{x:{y}}' '{:}}' '{:}>}' '{:<<}' '{ }' '{é}' '{x:é}' '{x:éa}'`,
	`"{a[" + x + "]}"`, `'{a[0]!r:>{w}}'`, `'{:>٣}'`, `'{:٣}'`, `'{0:}'`, `'{0:d}'`, `'{:.}'`, `'{:,.2f}'`, `'{:-#010,.5g}'`, `'{x[a]b}'`,
	`'{:x<}'`, "'{:\n<}'", "'''{:\n<}'''", `'{:é<}'`, `'{:é<10}'`, `'{:}'`, `'{0[a]]}'`, `'{0[a][b].c!r:10}'`,
	// f-strings.
	`f'{x}' f"{x!r}" f'{x!s:>10}' f"{x=}" f"{x = }" f'{x=!r}' f'{x=:>5}' f"{x:{w}.{p}}" f'{{x}}' f'{{' f'}}' f'}' f'{' f'{{{x}}}'`,
	`f"{d['k']}" f'{d["k"]}' f"{f(a, b)}" f'{[1, 2][0]}' f"{ {'a': 1}['a'] }" f'{x if y else z}' f"{lambda: 1}" f'{(x:=5)}' f'{a[1:2]}'`,
	`f"{x!}" f"{x!z}" f"{x!=y}" f"{x==y}" f"{x==}" f"{x= !r}" f"{x =}" f"{x:}" f"{x!r=}" f"{x}}" f'{x}}}' f"{'}'}" f"{x #c}" f"{x\\n}"`,
	"f'{x\n}'", "f'{\nx\n}'", "f'''{x\n}'''", "f'''a\nb{x}\n'''", "f'a\nb'", "f'{x'", "f\"{x\" + y", "f'{", "f'{x", "f'{x:", "f'{x:y", "f'{x!r",
	`f'\n\t\{x}\\{y}' rf'\n\{x}\\{y}' fr"\"{x}\"" rf'''\'{x}''' f'\N{DASH}{x}' f"\x41{x}\u1234"`, `f'{x:%Y-%m-%d}' f"{x:{'>'}10}"`,
	`f'{f"{x}"}' f"{f'{f"{x}"}'}"`, `f'{x["a"]["b"]}' f'{x:{y:{z}}}' f'{async for}' f'{yield from}' f'{def}' f'{x.len} {len} {None}'`,
	"f'{x\\}'", "f'{x#}'", "f'{é}'", "f'{x é}'", "f'{x:é}'", "f'{x!é}'", "f'{x=é}'", "f'{x= \u00a0}'", "f'{a $ b}'", "f'{!r}'", "f'{=}'",
	"f'{x!r }'", "f'{x:=1}'", "f'{(x)}'", "f'{[x]}'", "f'{{x}'", "f'{x}{y}'", "f'{ x }'", "f'{\tx\t}'", "f'{x\v}'", "f\"{'a\nb'}\"",
	"f'{x(}'", "f'{x)}'", "f'{x]}'", "f'{x(]}'", "f'{(}'", "f'{'a'}b'",
	// Unicode in code, "\r", invalid UTF-8, "{,2}".
	"é", "x = é", "é = 1", "x\u00a0= 1", "x = 1\u2003", "a\rb", "a\r\nb", "bad \xff utf8", "'\xff'", "x\u200d", "r{,2}'''doc'''",
	"'{,2}'", "\"\"\"doc {,2}\"\"\"", "x = r'\\d{,2}'\n", "  b{,2}'''doc'''", "\n\n U{,2}\"\"\"a\nb\"\"\" x", "r{,2}'''", "x{,2}'''a'''",
	"'{,2}' '''a'''",
	// Realistic code.
	"#!/usr/bin/env python3\n\"\"\"Module docstring.\"\"\"\n\nimport os\nimport sys\nfrom pathlib import Path\n\n\ndef main(argv=None):\n    \"\"\"Run.\"\"\"\n    args = argv or sys.argv[1:]\n    for a in args:\n        print(f\"{a!r}: {len(a):>5}\")\n    return 0\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n",
	"class Point:\n    __slots__ = ('x', 'y')\n\n    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:\n        self.x, self.y = x, y\n\n    def __repr__(self):\n        return 'Point(%r, %r)' % (self.x, self.y)\n\n    @property\n    def norm(self):\n        return (self.x ** 2 + self.y ** 2) ** .5\n",
	"try:\n    import json\nexcept ImportError as e:\n    raise SystemExit(1) from e\nfinally:\n    pass\n",
	"with open(path, 'rb') as f:\n    data = f.read()\nmatch data:\n    case b'':\n        pass\n    case _:\n        print(data[:10], sep='')\n",
	"async def fetch(session, url):\n    async with session.get(url) as r:\n        return await r.json()\n",
	"x = [i * 2 for i in range(10) if i % 2 == 0]\ny = {k: v for k, v in zip('abc', (1, 2, 3))}\nz = lambda *a, **k: (a, k)\n",
	"logger.info(\"%s: %d items\", name, len(items))\nmsg = \"{}/{}\".format(a, b)\nre.compile(r'^\\d+(?:\\.\\d+)?$')\n",
}

// TestPythonLexerMatchesChroma: the Python twin's markup, and the hand scan's
// tokens, are chroma's Python lexer's, on edge cases of each rule, on the
// Python of the corpus ($CCSITE_CORPUS: each ```python or ```py block,
// each .py file a tool read or wrote, each edit of one), on a sample of
// the Python library on this machine, and on those texts cut and with
// characters put in at random (strings and f-strings left open or closed
// early, numbers run into words).
func TestPythonLexerMatchesChroma(t *testing.T) {
	t.Parallel()
	hand, ref := pythonLexers(t)
	texts := append([]string(nil), pythonEdgeCases...)
	corpus := pythonCorpus(t, 600)
	library := pythonLibrary(t, 60)
	texts = append(texts, corpus...)
	texts = append(texts, library...)
	texts = withMutations(texts, 11, []string{"'", "\"", "\"\"\"", "'''", "f\"", "rb'", "{", "}", "#", "\\", "\n", "é", "0x", "1e", ".", "@", ":", " "})
	// Chroma's tokens of each text, kept: the markup's and the tokens'
	// comparisons both need them, and chroma takes most of the time.
	memo := memoLexer{ref, map[string][]chroma.Token{}}
	taken := sameMarkup(t, hand, memo, texts, pythonScanned)
	sameHandTokens(t, memo, texts, pythonTokens)
	t.Logf("%d texts, %d scanned by hand", len(texts), taken)
	if taken < len(texts)/2 {
		t.Errorf("only %d of %d texts scanned by hand", taken, len(texts))
	}
	handShare(t, "corpus", corpus, pythonScanned)
	handShare(t, "library", library, pythonScanned)
}

// lineNumbers is the "cat -n" prefix of each line of a Read tool's result.
var lineNumbers = regexp.MustCompile(`(?m)^ *\d+(?:→|\t)`)

// pythonCorpus returns up to limit distinct Python texts of the corpus,
// as highlighting gets them (the final newline cut): each ```python, ```py
// or ```python3 block of a message's text, each .py file a Write tool call
// wrote and each a Read tool call read (its result, the line numbers
// taken off), and the old and new text of each Edit of one. None without
// $CCSITE_CORPUS.
func pythonCorpus(t *testing.T, limit int) []string {
	if os.Getenv("CCSITE_CORPUS") == "" {
		return nil
	}
	ts := newTextSet(limit)
	add := ts.add
	blocks := func(text string) { ts.fenced(text, "python", "py", "python3") }
	reads := map[string]bool{} // the ids of Read calls of .py files
	corpustest.EachLine(t, func(_ string, line []byte) {
		// Only lines that may hold one are decoded: most hold none.
		if ts.full() || !bytes.Contains(line, []byte(".py")) && !bytes.Contains(line, []byte("```py")) &&
			!bytes.Contains(line, []byte("```Py")) && !bytes.Contains(line, []byte("tool_result")) {
			return
		}
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil {
			return
		}
		msg, _ := rec["message"].(map[string]any)
		switch content := msg["content"].(type) {
		case string:
			blocks(content)
		case []any:
			for _, item := range content {
				item, _ := item.(map[string]any)
				switch item["type"] {
				case "tool_use":
					input, _ := item["input"].(map[string]any)
					path, _ := input["file_path"].(string)
					if !strings.HasSuffix(path, ".py") {
						continue
					}
					switch item["name"] {
					case "Read":
						if id, ok := item["id"].(string); ok {
							reads[id] = true
						}
					case "Write":
						if s, ok := input["content"].(string); ok {
							add(s)
						}
					case "Edit":
						for _, k := range []string{"old_string", "new_string"} {
							if s, ok := input[k].(string); ok {
								add(s)
							}
						}
					}
				case "tool_result":
					if id, _ := item["tool_use_id"].(string); !reads[id] {
						continue
					}
					var text string
					switch c := item["content"].(type) {
					case string:
						text = c
					case []any:
						for _, part := range c {
							if part, _ := part.(map[string]any); part["type"] == "text" {
								s, _ := part["text"].(string)
								text += s
							}
						}
					}
					if lineNumbers.MatchString(text) {
						add(lineNumbers.ReplaceAllString(text, ""))
					}
				case "text":
					if text, ok := item["text"].(string); ok {
						blocks(text)
					}
				}
			}
		}
	})
	if len(ts.out) == 0 {
		t.Error("no Python texts in the corpus")
	}
	return ts.out
}

// pythonLibrary returns up to limit Python files of this machine's Python
// library under 48 KB (every 30th), as highlighting gets them.
func pythonLibrary(t *testing.T, limit int) []string {
	dirs, _ := filepath.Glob("/usr/lib/python3*")
	var out []string
	n := 0
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= limit {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".py") {
				return nil
			}
			if n++; n%30 != 0 {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && len(b) < 48<<10 {
				if s := strings.TrimSuffix(string(b), "\n"); s != "" {
					out = append(out, s)
				}
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Log("no Python library on this machine")
	}
	return out
}

// BenchmarkPythonLexer highlights a file of Python's library with
// the Python twin and with chroma's lexer.
func BenchmarkPythonLexer(b *testing.B) {
	files, _ := filepath.Glob("/usr/lib/python3*/textwrap.py")
	if len(files) == 0 {
		b.Skip("no textwrap.py")
	}
	src, err := os.ReadFile(files[0])
	if err != nil {
		b.Skip(err)
	}
	if !pythonScanned(string(src)) {
		b.Fatalf("%s is not scanned by hand", files[0])
	}
	hand, ref := pythonLexers(b)
	benchLexers(b, string(src), hand, ref)
}

// FuzzPythonLexer: on any text, the Python twin's markup is chroma's Python
// lexer's (and the scan does not panic).
func FuzzPythonLexer(f *testing.F) {
	for _, s := range pythonEdgeCases {
		f.Add(s)
	}
	hand, ref := pythonLexers(f)
	f.Fuzz(func(t *testing.T, s string) {
		// No rule of the Python lexer backtracks more than the length of
		// a line or of the text at a character, so chroma's time limit
		// (250 ms a match) is far off below this size.
		if len(s) > 64<<10 || !pythonScanned(s) {
			return
		}
		got, gotClean := markupOf(t, hand, s)
		want, wantClean := markupOf(t, ref, s)
		if got != want || gotClean != wantClean {
			t.Errorf("%q: hand %q, chroma %q", s, got, want)
		}
	})
}
