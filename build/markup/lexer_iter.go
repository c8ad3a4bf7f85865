package markup

import (
	"fmt"

	"github.com/alecthomas/chroma/v2"
)

// fastIter is chroma's LexerState.Iterator (v2.27) with the rules that
// cannot match skipped, and named groups filled only for the rules whose
// emitter or mutator may read them.
type fastIter struct {
	l            *fastLexer
	root         string // the state it started in
	state        *chroma.LexerState
	stack        []chroma.Iterator
	newlineAdded bool
	// one holds the groups of a plain token's match (read before the
	// next match: a slice of one made for every token was a fifth of
	// highlighting's allocations).
	one [1]string
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
		quick := it.l.quick[l.State]
		if len(quick) != len(selected) {
			quick = nil
		}
		i, rule, groups := it.match(selected, filters, quick)
		// No match.
		if groups == nil {
			// As in Pygments: an unplaceable newline empties the stack.
			if l.Text[l.Pos] == '\n' && l.State != it.root {
				l.Stack = []string{it.root}
				continue
			}
			l.Pos++
			return chroma.Token{Type: chroma.Error, Value: string(l.Text[l.Pos-1 : l.Pos])}
		}
		if filters != nil && it.l.catchAll[l.State][i] {
			groups = it.run(i, filters, end, groups)
		}
		l.Rule = i
		l.Groups = groups
		if rule.Mutator != nil {
			if err := rule.Mutator.Mutate(l); err != nil {
				panic(err)
			}
		}
		if rule.Type != nil {
			var e *fastEmit
			if es := it.l.emits[l.State]; len(es) == len(selected) {
				e = es[i]
			}
			// A rule emitting one token type, with nothing queued: the
			// token itself, not an iterator of one (chroma's Literator, a
			// closure and a slice for every token of most lexers).
			if tt, ok := rule.Type.(chroma.TokenType); ok && (e == nil || e.kind == "") && len(it.stack) == 0 {
				if tt == chroma.Ignore {
					continue
				}
				return chroma.Token{Type: tt, Value: l.Groups[0]}
			}
			it.stack = append(it.stack, it.emit(e, rule.Type, l.Groups))
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

// run extends the one character a catch-all rule (i) just matched over
// the characters after it where every rule before i is filtered out: at
// each of them chroma would match rule i again, one character at a time
// (markdown's text, one character per try of every rule), and the
// coalescer would join the tokens into the one returned here.
func (it *fastIter) run(i int, filters []ruleFilter, end int, groups []string) []string {
	l := it.state
	start := l.Pos - 1
	for l.Pos < end {
		skipped := true
		for j := 0; j < i && skipped; j++ {
			skipped = filters[j].skip(l.Text, l.Pos)
		}
		if !skipped {
			break
		}
		l.Pos++
	}
	if l.Pos-start == 1 {
		return groups
	}
	return []string{string(l.Text[start:l.Pos])}
}

// emit is e's Emit (orig's when e is nil), with the text it hands to a
// lexer lexed by the fast one (chroma v2.27's emitters, copied).
func (it *fastIter) emit(e *fastEmit, orig chroma.Emitter, groups []string) chroma.Iterator {
	if e == nil || e.kind == "" {
		return orig.Emit(groups, it.state)
	}
	switch e.kind {
	case "usingself":
		iter, err := it.l.Tokenise(&chroma.TokeniseOptions{State: e.state, Nested: true}, groups[0])
		if err != nil {
			panic(err)
		}
		return iter
	case "using":
		if it.state.Registry == nil {
			panic(fmt.Sprintf("no LexerRegistry available for Using(%q)", e.lexer))
		}
		lexer := registryGet(it.state.Registry, e.lexer)
		if lexer == nil {
			panic(fmt.Sprintf("no such lexer %q", e.lexer))
		}
		iter, err := fastOf(lexer).Tokenise(&chroma.TokeniseOptions{State: "root", Nested: true}, groups[0])
		if err != nil {
			panic(err)
		}
		return iter
	case "bygroups":
		iterators := make([]chroma.Iterator, 0, len(groups)-1)
		if len(e.subs) != len(groups)-1 {
			iterators = append(iterators, chroma.Error.Emit(groups, it.state))
		} else {
			for i, group := range groups[1:] {
				if sub := e.subs[i]; sub != nil {
					iterators = append(iterators, it.emit(sub, sub.orig, []string{group}))
				}
			}
		}
		return chroma.Concaterator(iterators...)
	case "usingbygroup":
		if len(e.subs) != len(groups)-1 {
			panic("UsingByGroup expects number of emitters to be the same as len(groups)-1")
		}
		sublexer := fastOf(registryGet(it.state.Registry, groups[e.nameGroup]))
		iterators := make([]chroma.Iterator, len(groups)-1)
		for i, group := range groups[1:] {
			if i == e.codeGroup-1 && sublexer != nil {
				var err error
				iterators[i], err = sublexer.Tokenise(nil, groups[e.codeGroup])
				if err != nil {
					panic(err)
				}
			} else if sub := e.subs[i]; sub != nil {
				iterators[i] = it.emit(sub, sub.orig, []string{group})
			}
		}
		return chroma.Concaterator(iterators...)
	}
	return orig.Emit(groups, it.state)
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
func (it *fastIter) match(rules []*chroma.CompiledRule, filters []ruleFilter, quick []*quickRule) (int, *chroma.CompiledRule, []string) {
	l := it.state
	for i, rule := range rules {
		if filters != nil && filters[i].skip(l.Text, l.Pos) {
			continue
		}
		if quick != nil && quick[i] != nil {
			if n, known := quick[i].match(l.Text, l.Pos); known {
				if n < 0 {
					continue
				}
				if _, plain := rule.Type.(chroma.TokenType); plain && rule.Mutator == nil {
					l.Pos += n
					it.one[0] = string(l.Text[l.Pos-n : l.Pos])
					return i, rule, it.one[:]
				}
				// It matches; regexp2 gives the groups.
			}
		}
		m, err := rule.Regexp.FindRunesMatchStartingAt(l.Text, l.Pos)
		if m == nil || err != nil || m.RuneIndex != l.Pos {
			continue
		}
		_, plain := rule.Type.(chroma.TokenType)
		if plain && rule.Mutator == nil {
			// A token of the whole match: the groups are not read.
			l.Pos += m.RuneLength
			it.one[0] = string(l.Text[m.RuneIndex : m.RuneIndex+m.RuneLength])
			return i, rule, it.one[:]
		}
		gs := m.Groups()
		groups := make([]string, len(gs))
		for j := range gs {
			groups[j] = gs[j].String()
		}
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
