package markup

import (
	"slices"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// matchTimeout is how long one match of a rule's regexp may run in the
// lexers the Highlighter makes (patient). chroma gives each 250 ms, by a
// clock of regexp2's that a goroutine keeps: on a loaded machine that
// goroutine runs late, and a match of a few microseconds can find its time
// up. chroma takes a timeout for no match, so a block came out lexed
// worse, and the highlight cache kept it. Two seconds still ends a match
// that backtracks without end (highlight gives up on such a block at its
// first slow step).
const matchTimeout = 2 * time.Second

// patient returns a copy of chroma's lexer l whose rules' matches may run
// for matchTimeout, made through chroma's API: l's rules (Rules), a new
// lexer of them (NewLexer), and a first rule whose LexerMutator, run by
// chroma when it compiles the rules, sets each compiled rule's timeout and
// takes itself out. A lexer that is not a RegexLexer (Markdown's, which
// wraps one) is returned as it is. The copy finds the lexers its rules
// hand text to in chroma's registry, whose lexers keep their 250 ms.
func patient(l chroma.Lexer) chroma.Lexer {
	r, ok := l.(*chroma.RegexLexer)
	if !ok {
		return l
	}
	rules, err := r.Rules()
	if err != nil {
		return l
	}
	own := make(chroma.Rules, len(rules))
	for state, rs := range rules {
		own[state] = slices.Clone(rs)
	}
	own["root"] = slices.Insert(own["root"], 0, chroma.Rule{Mutator: setTimeout(matchTimeout)})
	cfg := *r.Config()
	p, err := chroma.NewLexer(&cfg, func() chroma.Rules { return own })
	if err != nil {
		return l
	}
	p.SetRegistry(lexers.GlobalLexerRegistry)
	if _, err := p.Tokenise(nil, ""); err != nil { // compiles the rules
		return l
	}
	return p
}

// setTimeout is patient's rule: a LexerMutator that sets every compiled
// rule's MatchTimeout and removes itself.
type setTimeout time.Duration

func (setTimeout) Mutate(*chroma.LexerState) error { return nil }

func (t setTimeout) MutateLexer(rules chroma.CompiledRules, state string, i int) error {
	for _, rs := range rules {
		for _, rule := range rs {
			if rule.Regexp != nil {
				rule.Regexp.MatchTimeout = time.Duration(t)
			}
		}
	}
	rules[state] = slices.Delete(rules[state], i, i+1)
	return nil
}
