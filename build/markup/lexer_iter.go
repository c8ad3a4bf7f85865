package markup

import (
	"github.com/alecthomas/chroma/v2"
)

// fastIter is chroma's LexerState.Iterator (v2.27) with the rules that
// cannot match skipped, and named groups filled only for the rules whose
// emitter or mutator may read them.
type fastIter struct {
	l            *fastLexer
	state        *chroma.LexerState
	stack        []chroma.Iterator
	newlineAdded bool
}

func (it *fastIter) next() chroma.Token {
	l := it.state
	end := len(l.Text)
	if it.newlineAdded {
		end--
	}
	for l.Pos < end && len(l.Stack) > 0 {
		// Exhaust the iterator stack, if any.
		if t, ok := it.drain(); ok {
			return t
		}
		l.State = l.Stack[len(l.Stack)-1]
		selected, ok := l.Rules[l.State]
		if !ok {
			panic("unknown state " + l.State)
		}
		filters := it.l.filters[l.State]
		if len(filters) != len(selected) {
			filters = nil
		}
		i, rule, groups := it.match(selected, filters)
		// No match.
		if groups == nil {
			// As in Pygments: an unplaceable newline empties the stack.
			if l.Text[l.Pos] == '\n' && l.State != "root" {
				l.Stack = []string{"root"}
				continue
			}
			l.Pos++
			return chroma.Token{Type: chroma.Error, Value: string(l.Text[l.Pos-1 : l.Pos])}
		}
		l.Rule = i
		l.Groups = groups
		if rule.Mutator != nil {
			if err := rule.Mutator.Mutate(l); err != nil {
				panic(err)
			}
		}
		if rule.Type != nil {
			it.stack = append(it.stack, rule.Type.Emit(l.Groups, l))
		}
	}
	if t, ok := it.drain(); ok {
		return t
	}
	// If we get to here and we still have text, return it as an error.
	if l.Pos != len(l.Text) && len(l.Stack) == 0 {
		value := string(l.Text[l.Pos:])
		l.Pos = len(l.Text)
		return chroma.Token{Type: chroma.Error, Value: value}
	}
	return chroma.EOF
}

// drain returns the next token of the pending emitters, if any.
func (it *fastIter) drain() (chroma.Token, bool) {
	for len(it.stack) > 0 {
		n := len(it.stack) - 1
		t := it.stack[n]()
		if t.Type == chroma.Ignore {
			continue
		}
		if t == chroma.EOF {
			it.stack = it.stack[:n]
			continue
		}
		return t, true
	}
	return chroma.Token{}, false
}

// match is chroma's matchRules with the filter; it also advances Pos and
// sets NamedGroups as chroma does (for the rules that may read them).
func (it *fastIter) match(rules []*chroma.CompiledRule, filters []ruleFilter) (int, *chroma.CompiledRule, []string) {
	l := it.state
	for i, rule := range rules {
		if filters != nil && filters[i].skip(l.Text, l.Pos) {
			continue
		}
		m, err := rule.Regexp.FindRunesMatchStartingAt(l.Text, l.Pos)
		if m == nil || err != nil || m.RuneIndex != l.Pos {
			continue
		}
		gs := m.Groups()
		groups := make([]string, len(gs))
		for j := range gs {
			groups[j] = gs[j].String()
		}
		_, plain := rule.Type.(chroma.TokenType)
		if !plain || rule.Mutator != nil {
			named := make(map[string]string, len(gs))
			for j := range gs {
				named[gs[j].Name] = groups[j]
			}
			l.NamedGroups = named
		}
		l.Pos += m.RuneLength
		return i, rule, groups
	}
	return 0, nil, nil
}
