package markup

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/dlclark/regexp2/v2"
)

// TestQuickRules checks every rule of every chroma lexer that quickRule
// reads against regexp2 (the rule's own compiled expression) at every
// position of the samples: where it says it knows, it must say what
// regexp2 says, match or not and how long. It must also read many rules,
// so that it is used at all.
func TestQuickRules(t *testing.T) {
	text := []rune(strings.Join(fastSamples, "") + "x_1 ab9 __ if iff if( if  ( go_to goto\t\v\f ‐ 'a' \"b\" 0x1 1e5 ...\n")
	read, checked := 0, 0
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		f, _ := newFastLexer(l).(*fastLexer)
		if f == nil {
			continue
		}
		for state, rules := range f.rules {
			qs := f.quick[state]
			for i, rule := range rules {
				q := qs[i]
				if q == nil {
					continue
				}
				read++
				for pos := range text {
					n, known := q.match(text, pos)
					if !known {
						continue
					}
					checked++
					m, err := rule.Regexp.FindRunesMatchStartingAt(text, pos)
					want := -1
					if err == nil && m != nil && m.RuneIndex == pos {
						want = m.RuneLength
					}
					if n != want {
						t.Fatalf("%s %s %q at %d (%q): quick %d, regexp2 %d", l.Config().Name, state, rule.Pattern, pos, string(text[pos:min(pos+12, len(text))]), n, want)
					}
				}
			}
		}
	}
	if read < 500 {
		t.Errorf("only %d rules read", read)
	}
	t.Logf("%d rules read, %d matches checked", read, checked)
}

// TestQuickShapes: patterns quickRule must read, and must refuse.
func TestQuickShapes(t *testing.T) {
	for _, p := range []string{`\s+`, `[^\W\d]\w*`, `//[^\n\r]*`, `(true|false|nil)\b`, `\b(if|else)\b`,
		`(<<=|>>=|<<|&\^|[+\-*/%&])`, `([a-zA-Z_]\w*)(\s*)(\()`, `[|^<>=!()\[\]{}.,;:~]`, `\n`} {
		if newQuickRule(p, "m") == nil {
			t.Errorf("%q not read", p)
		}
	}
	for _, p := range []string{`^\s+`, `\w+$`, `\w*\w`, `[a-z]*[a-c]`, `"(\\\\|\\"|[^"])*"`, `a+?`, `a{2,3}`,
		`(?=x)x`, `\p{L}+`, `(a|bc*)`, `(if|else)x`, `\bfoo`, `[[:alpha:]]+`, `.+`, `é+`} {
		if newQuickRule(p, "m") != nil {
			t.Errorf("%q read", p)
		}
	}
}

// TestQuickPatterns checks shapes no lexer may have today against
// regexp2, compiled as chroma compiles a rule, at every position of texts
// made to trip them: words starting or ending with a non-word character,
// words with a space, case folding, a lookbehind, optional atoms.
func TestQuickPatterns(t *testing.T) {
	texts := []string{
		"yield from x; yield fromage, Yield From; -x a-x -xy (-x) if-x",
		"KEY key Key kEy keys ke\u212Ay \u212Aey ſecret Secret SECRET secrets",
		".foo foo a.foo _foo foo_ foo2 FOO ab\u00e9 \u00e9ab",
		"x = 1; y := 2; a<<=b; a<<b; a&^b; ... ..",
	}
	patterns := []struct{ p, flags string }{
		{`\b(yield from|yield|-x)\b`, "m"},
		{`(yield from|-x|x-)\b`, "m"},
		{`(key|secret|keys)\b`, "mi"},
		{`\b(key|secret)\b`, "mi"},
		{`(yield from|key)\b`, "mi"},
		{`(?<!\.)(foo|ab)\b`, "m"},
		{`(?<!\.)[a-z_]\w*`, "m"},
		{`[a-z]+[0-9]?[=;]?`, "m"},
		{`(<<=|<<|&\^|\.\.\.|[.;=])`, "m"},
	}
	for _, pt := range patterns {
		q := newQuickRule(pt.p, pt.flags)
		if q == nil {
			t.Errorf("%q not read", pt.p)
			continue
		}
		re, err := regexp2.Compile(`\G(?` + pt.flags + `)(?:` + pt.p + `)`)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			text := []rune(s)
			for pos := range text {
				n, known := q.match(text, pos)
				if !known {
					continue
				}
				m, _ := re.FindRunesMatchStartingAt(text, pos)
				want := -1
				if m != nil && m.RuneIndex == pos {
					want = m.RuneLength
				}
				if n != want {
					t.Errorf("%q at %d of %q: quick %d, regexp2 %d", pt.p, pos, s, n, want)
				}
			}
		}
	}
}
