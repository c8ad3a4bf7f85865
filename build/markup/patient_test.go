package markup

import (
	"slices"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// TestPatientSameTokens: a patient lexer gives chroma's tokens.
func TestPatientSameTokens(t *testing.T) {
	t.Parallel()
	samples := map[string]string{
		"go":         goCode + "// a comment\nvar x = map[string]int{\"a\": 1} /* b */\n",
		"python":     "def f(x):\n    \"\"\"doc\"\"\"\n    return [i for i in x if i > 0]  # c\n",
		"bash":       "for f in *.go; do echo \"$f\" | wc -l; done > /dev/null 2>&1\n",
		"json":       "{\"a\": [1, 2.5, true, null], \"b\": {\"c\": \"d\"}}\n",
		"rust":       "fn main() { let x: Vec<u8> = vec![1]; println!(\"{}\", x.len()); }\n",
		"typescript": "const f = async (x: number): Promise<string> => `${x}`;\n",
		"yaml":       "a: 1\nb:\n  - c\n  - 'd'\n",
		"html":       "<p class=\"x\">hi<script>let a = 1;</script><style>p { color: red }</style></p>\n",
	}
	tokens := func(l chroma.Lexer, code string) []chroma.Token {
		it, err := l.Tokenise(nil, code)
		if err != nil {
			t.Fatal(err)
		}
		return it.Tokens()
	}
	for lang, code := range samples {
		l := lexers.Get(lang)
		p := patient(l)
		if p == l {
			t.Errorf("%s: no patient copy", lang)
		}
		if want, got := tokens(l, code), tokens(p, code); !slices.Equal(want, got) {
			t.Errorf("%s: tokens differ:\n%v\n%v", lang, got, want)
		}
	}
	// Markdown's lexer wraps a RegexLexer: it stays chroma's.
	if md := lexers.Get("markdown"); patient(md) != md {
		t.Errorf("markdown's lexer replaced")
	}
}

// timeouts is a LexerMutator that records the compiled rules' timeouts.
type timeouts struct{ got *[]time.Duration }

func (timeouts) Mutate(*chroma.LexerState) error { return nil }

func (t timeouts) MutateLexer(rules chroma.CompiledRules, state string, i int) error {
	for _, rs := range rules {
		for _, r := range rs {
			if r.Regexp != nil {
				*t.got = append(*t.got, r.Regexp.MatchTimeout)
			}
		}
	}
	rules[state] = slices.Delete(rules[state], i, i+1)
	return nil
}

// TestPatientTimeout: setTimeout gives every compiled rule matchTimeout
// (chroma's own is 250 ms).
func TestPatientTimeout(t *testing.T) {
	t.Parallel()
	var got []time.Duration
	l := chroma.MustNewLexer(&chroma.Config{Name: "probe"}, func() chroma.Rules {
		return chroma.Rules{
			"root": {
				{Mutator: setTimeout(matchTimeout)},
				{Pattern: `a+`, Type: chroma.Keyword},
				{Pattern: `\s+`, Type: chroma.Text},
				chroma.Include("other"),
				{Mutator: timeouts{&got}},
			},
			"other": {{Pattern: `b`, Type: chroma.Name}},
		}
	})
	if _, err := l.Tokenise(nil, "aa b"); err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("%d rules seen", len(got))
	}
	for _, d := range got {
		if d != matchTimeout {
			t.Errorf("a rule's timeout is %v, want %v", d, matchTimeout)
		}
	}
}
