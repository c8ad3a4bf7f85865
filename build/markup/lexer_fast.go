package markup

import (
	"reflect"
	"regexp/syntax"
	"strings"
	"unicode"
	"unsafe"

	"github.com/alecthomas/chroma/v2"
)

// fastLexer runs a chroma RegexLexer's own compiled rules with chroma's
// own algorithm (LexerState.Iterator, copied), but skips the rules that
// cannot match at the current character: chroma tries every rule of a
// state at every position, and each try of a regexp2 pattern costs a
// runner, a match object and its setup even when the pattern's first
// character rules it out at once. The tokens are the same; only hopeless
// tries are left out (see ruleFilter).
type fastLexer struct {
	*chroma.RegexLexer
	rules    chroma.CompiledRules
	registry *chroma.LexerRegistry
	filters  map[string][]ruleFilter
}

// ruleFilter says where a rule may match. first holds the ASCII
// characters a match can start with; any means no such bound is known
// (the pattern is not RE2 syntax, or can match empty). bol is a rule that
// matches only at the start of a line (a leading ^ in multi-line mode).
type ruleFilter struct {
	first [2]uint64
	any   bool
	bol   bool
}

// newFastLexer returns a fastLexer for l, or nil when l is not a regexp
// lexer whose rules can be read.
func newFastLexer(l chroma.Lexer) chroma.Lexer {
	r, ok := l.(*chroma.RegexLexer)
	if !ok {
		return nil
	}
	if _, err := r.Tokenise(nil, ""); err != nil { // compiles the rules
		return nil
	}
	f := reflect.ValueOf(r).Elem().FieldByName("rules")
	if !f.IsValid() || f.Type() != reflect.TypeFor[map[string][]*chroma.CompiledRule]() {
		return nil
	}
	rules := chroma.CompiledRules(*(*map[string][]*chroma.CompiledRule)(unsafe.Pointer(f.UnsafeAddr())))
	g := reflect.ValueOf(r).Elem().FieldByName("registry")
	if !g.IsValid() || g.Type() != reflect.TypeFor[*chroma.LexerRegistry]() {
		return nil
	}
	registry := *(**chroma.LexerRegistry)(unsafe.Pointer(g.UnsafeAddr()))
	cfg := r.Config()
	flags := syntax.Perl
	if cfg.CaseInsensitive {
		flags |= syntax.FoldCase
	}
	if cfg.DotAll {
		flags |= syntax.DotNL
	}
	if cfg.NotMultiline {
		flags |= syntax.OneLine
	}
	filters := map[string][]ruleFilter{}
	for state, rs := range rules {
		fs := make([]ruleFilter, len(rs))
		for i, rule := range rs {
			fs[i] = filterFor(rule.Pattern, flags)
		}
		filters[state] = fs
	}
	return &fastLexer{RegexLexer: r, rules: rules, registry: registry, filters: filters}
}

// filterFor bounds where pattern can match. Characters whose meaning
// differs between regexp2 and RE2 (ASCII controls other than \t, \n, \r:
// \s has \v in one only) are never filtered out (see skip); a pattern RE2
// does not parse, or with POSIX classes (which regexp2 reads as plain
// characters), is always tried.
func filterFor(pattern string, flags syntax.Flags) ruleFilter {
	pattern = anyChar.Replace(pattern)
	if strings.Contains(pattern, "[:") || oddClass(pattern) {
		return ruleFilter{any: true}
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return ruleFilter{any: true}
	}
	var f ruleFilter
	if nullable := firstChars(re, &f.first); nullable {
		f.any = true
	}
	f.bol = startsAtLine(re)
	return f
}

// anyChar rewrites the classes that hold every character (for the filter
// only: both engines read them so).
var anyChar = strings.NewReplacer(`[\w\W]`, `(?s:.)`, `[\s\S]`, `(?s:.)`, `[\d\D]`, `(?s:.)`)

// oddClass reports whether pattern has a bracketed class that regexp2 may
// read otherwise than RE2: one holding a negated escape (\W, \D, \S, \P),
// or a negated one holding any class escape. regexp2 matches digits with
// [^\W\d], for one.
func oddClass(pattern string) bool {
	in, negated := false, false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			i++
			e := pattern[i]
			if in && (strings.IndexByte("WDSP", e) >= 0 || negated && strings.IndexByte("wdsp", e) >= 0) {
				return true
			}
		case c == '[' && !in:
			in, negated = true, i+1 < len(pattern) && pattern[i+1] == '^'
			if negated {
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				i++ // a leading ] is a member
			}
		case c == '[' && in:
			return true // nested or subtracted classes
		case c == ']' && in:
			in = false
		}
	}
	return false
}

// startsAtLine reports whether every match of re begins with ^ (line mode).
func startsAtLine(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpBeginLine:
			return true
		case syntax.OpCapture:
			re = re.Sub[0]
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		default:
			return false
		}
	}
}

func addRune(set *[2]uint64, r rune) {
	if r >= 0 && r < 128 {
		set[r>>6] |= 1 << (uint(r) & 63)
	}
}

// addFolded adds r and, with case folding, every rune folding to it.
func addFolded(set *[2]uint64, r rune, fold bool) {
	addRune(set, r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			addRune(set, f)
		}
	}
}

// firstChars adds to set the ASCII characters a match of re can start
// with and reports whether re can match the empty string (then what
// follows it also counts, and a caller at the top must try the rule
// anywhere).
func firstChars(re *syntax.Regexp, set *[2]uint64) (nullable bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		addFolded(set, re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1] && c < 128; c++ {
				addFolded(set, c, re.Flags&syntax.FoldCase != 0)
			}
			if re.Rune[i+1] >= 128 {
				// Non-ASCII runes can fold to ASCII ones (K, ſ).
				set[0], set[1] = ^uint64(0), ^uint64(0)
			}
		}
		return false
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		set[0], set[1] = ^uint64(0), ^uint64(0)
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return firstChars(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		firstChars(re.Sub[0], set)
		return true
	case syntax.OpRepeat:
		n := firstChars(re.Sub[0], set)
		return n || re.Min == 0
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !firstChars(s, set) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		n := false
		for _, s := range re.Sub {
			if firstChars(s, set) {
				n = true
			}
		}
		return n
	}
	set[0], set[1] = ^uint64(0), ^uint64(0)
	return true
}

// skip reports whether the rule cannot match at text[pos].
func (f *ruleFilter) skip(text []rune, pos int) bool {
	if f.bol && pos > 0 && text[pos-1] != '\n' {
		return true
	}
	if f.any {
		return false
	}
	c := text[pos]
	if c >= 128 || (c < ' ' && c != '\t' && c != '\n' && c != '\r') || c == 127 {
		return false
	}
	return f.first[c>>6]&(1<<(uint(c)&63)) == 0
}

// Tokenise is chroma's RegexLexer.Tokenise with the filtered iterator.
func (l *fastLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	if options != nil && (options.State != "root" || options.Nested || !options.EnsureLF) {
		return l.RegexLexer.Tokenise(options, text)
	}
	text = ensureLF(text)
	it := &fastIter{l: l, state: &chroma.LexerState{
		Registry:       l.registry,
		Lexer:          l.RegexLexer,
		Stack:          []string{"root"},
		Rules:          l.rules,
		MutatorContext: map[any]any{},
	}}
	if l.Config().EnsureNL && !strings.HasSuffix(text, "\n") {
		text += "\n"
		it.newlineAdded = true
	}
	it.state.Text = []rune(text)
	return it.next, nil
}

// ensureLF is chroma's: \r\n and \r become \n.
func ensureLF(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	buf := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\r' {
			if i < len(text)-1 && text[i+1] == '\n' {
				continue
			}
			c = '\n'
		}
		buf = append(buf, c)
	}
	return string(buf)
}
