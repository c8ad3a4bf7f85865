package markup

import (
	"reflect"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unsafe"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
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
	// catchAll holds, per state, the rules that match any one character
	// as a plain token and change no state (markdown's `.|\n`): see
	// fastIter.run.
	catchAll map[string][]bool
	emits    map[string][]*fastEmit  // per state and rule
	quick    map[string][]*quickRule // per state and rule, nil for most
}

// ruleFilter says where a rule may match. first holds the ASCII
// characters a match can start with; any means no such bound is known
// (the pattern is not RE2 syntax, or can match empty). bol is a rule that
// matches only at the start of a line (a leading ^ in multi-line mode).
type ruleFilter struct {
	first  [2]uint64
	any    bool
	bol    bool
	second [2]uint64 // the characters the second one can be, when known
	two    bool      // second is known
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
	// chroma compiles every rule in multi-line mode (^ and $ at line
	// ends) unless the lexer says otherwise.
	flags := syntax.Perl &^ syntax.OneLine
	if cfg.CaseInsensitive {
		flags |= syntax.FoldCase
	}
	if cfg.DotAll {
		flags |= syntax.DotNL
	}
	if cfg.NotMultiline {
		flags |= syntax.OneLine
	}
	// And the flags' letters chroma prefixes each pattern with.
	letters := ""
	if !cfg.NotMultiline {
		letters += "m"
	}
	if cfg.CaseInsensitive {
		letters += "i"
	}
	if cfg.DotAll {
		letters += "s"
	}
	filters := map[string][]ruleFilter{}
	quick := map[string][]*quickRule{}
	catchAll := map[string][]bool{}
	emits := map[string][]*fastEmit{}
	for state, rs := range rules {
		fs := make([]ruleFilter, len(rs))
		ca := make([]bool, len(rs))
		es := make([]*fastEmit, len(rs))
		qs := make([]*quickRule, len(rs))
		for i, rule := range rs {
			es[i] = newFastEmit(rule.Type)
			qs[i] = newQuickRule(rule.Pattern, letters)
			fs[i] = filterFor(rule.Pattern, flags)
			_, plain := rule.Type.(chroma.TokenType)
			ca[i] = plain && rule.Mutator == nil && anyOneChar[rule.Pattern]
		}
		filters[state] = fs
		quick[state] = qs
		catchAll[state] = ca
		emits[state] = es
	}
	return &fastLexer{RegexLexer: r, rules: rules, registry: registry, filters: filters, catchAll: catchAll, emits: emits, quick: quick}
}

// anyOneChar are the patterns that match any one character, whatever the
// lexer's flags.
var anyOneChar = map[string]bool{`.|\n`: true, `[\w\W]`: true, `[\s\S]`: true, `(?s).`: true}

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
	pattern = relax(pattern)
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return ruleFilter{any: true}
	}
	var f ruleFilter
	if nullable := firstChars(re, &f.first); nullable {
		f.any = true
	}
	f.bol = startsAtLine(re)
	f.two = secondChars(re, &f.second)
	return f
}

// secondChars adds to set the ASCII characters the second character of a
// match of re can be, and reports whether every match has at least two
// (else a second character says nothing).
func secondChars(re *syntax.Regexp, set *[2]uint64) bool {
	ci := charsOf(re)
	if ci.nullable || ci.one {
		return false
	}
	*set = ci.second
	return true
}

// charInfo bounds the matches of a pattern: the characters the first and
// second can be (of the matches that have them), whether one can be empty
// and whether one can be a single character.
type charInfo struct {
	first, second [2]uint64
	nullable, one bool
}

var allChars = [2]uint64{^uint64(0), ^uint64(0)}

func union(a, b [2]uint64) [2]uint64 { return [2]uint64{a[0] | b[0], a[1] | b[1]} }

// charsOf works out re's charInfo; what it does not know holds every
// character and can be empty.
func charsOf(re *syntax.Regexp) charInfo {
	fold := re.Flags&syntax.FoldCase != 0
	switch re.Op {
	case syntax.OpNoMatch:
		return charInfo{}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return charInfo{nullable: true}
	case syntax.OpLiteral:
		var ci charInfo
		if len(re.Rune) == 0 {
			ci.nullable = true
			return ci
		}
		addFolded(&ci.first, re.Rune[0], fold)
		if len(re.Rune) == 1 {
			ci.one = true
		} else {
			addFolded(&ci.second, re.Rune[1], fold)
		}
		return ci
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		var ci charInfo
		firstChars(re, &ci.first)
		ci.one = true
		return ci
	case syntax.OpCapture:
		return charsOf(re.Sub[0])
	case syntax.OpConcat:
		ci := charInfo{nullable: true}
		for _, sub := range re.Sub {
			ci = concatChars(ci, charsOf(sub))
		}
		return ci
	case syntax.OpAlternate:
		var ci charInfo
		for _, sub := range re.Sub {
			s := charsOf(sub)
			ci.first, ci.second = union(ci.first, s.first), union(ci.second, s.second)
			ci.nullable = ci.nullable || s.nullable
			ci.one = ci.one || s.one
		}
		return ci
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		x := charsOf(re.Sub[0])
		if x.nullable {
			break
		}
		many := re.Op == syntax.OpStar || re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && (re.Max < 0 || re.Max > 1)
		ci := x
		if many && x.one {
			// x then x again: a one-character x is followed by x.
			ci.second = union(ci.second, x.first)
		}
		ci.nullable = re.Op == syntax.OpStar || re.Op == syntax.OpQuest || re.Op == syntax.OpRepeat && re.Min == 0
		return ci
	}
	return charInfo{first: allChars, second: allChars, nullable: true, one: true}
}

// concatChars is the charInfo of a followed by b.
func concatChars(a, b charInfo) charInfo {
	ci := charInfo{first: a.first, second: a.second, nullable: a.nullable && b.nullable,
		one: a.one && b.nullable || a.nullable && b.one}
	if a.nullable {
		ci.first = union(ci.first, b.first)
		ci.second = union(ci.second, b.second)
	}
	if a.one {
		ci.second = union(ci.second, b.first)
	}
	return ci
}

// relax rewrites what regexp2 has and RE2 does not into RE2 that matches
// at least what the pattern matches (so its first characters bound the
// pattern's): lookarounds, zero-width, are left out; a backreference
// becomes any text; an atomic group a plain one. What it does not know
// stays, for RE2 to refuse (then the rule is always tried).
func relax(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			e := p[i+1]
			switch {
			case e >= '1' && e <= '9':
				b.WriteString(`(?s:.*)`)
				for i+2 < len(p) && p[i+2] >= '0' && p[i+2] <= '9' {
					i++
				}
			case e == 'k' && i+2 < len(p) && (p[i+2] == '<' || p[i+2] == '\''):
				end := strings.IndexAny(p[i+3:], ">'")
				if end < 0 {
					return p
				}
				b.WriteString(`(?s:.*)`)
				i += 3 + end - 1
			default:
				b.WriteByte(c)
				b.WriteByte(e)
			}
			i++
		case c == '[':
			end := classEnd(p, i)
			if end < 0 {
				return p
			}
			b.WriteString(p[i : end+1])
			i = end
		case c == '(' && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
			strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")):
			end := groupEnd(p, i)
			if end < 0 {
				return p
			}
			i = end
		case c == '(' && strings.HasPrefix(p[i:], "(?>"):
			b.WriteString("(?:")
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// classEnd returns the index of the ] closing the class opened at p[i],
// or -1.
func classEnd(p string, i int) int { return classClose(p, i, false) }

// classClose is classEnd; with innerOpen a [ inside the class is one of
// its characters (regexp2 reads it so: Python's []{}:(),;[]), unless it
// begins a subtraction (-[) or a POSIX class ([:); without, it is refused.
func classClose(p string, i int, innerOpen bool) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '[':
			if !innerOpen || p[j-1] == '-' || j+1 < len(p) && p[j+1] == ':' {
				return -1 // nested or subtracted: oddClass refuses these first
			}
		case ']':
			return j
		}
	}
	return -1
}

// groupEnd returns the index of the ) closing the group opened at p[i],
// or -1.
func groupEnd(p string, i int) int {
	depth := 0
	for j := i; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case '[':
			if j = classEnd(p, j); j < 0 {
				return -1
			}
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
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
	if !in(&f.first, text[pos]) {
		return true
	}
	if f.two {
		return pos+1 >= len(text) || !in(&f.second, text[pos+1])
	}
	return false
}

// in reports whether c may be in set: characters whose meaning differs
// between the engines (see filterFor) always may.
func in(set *[2]uint64, c rune) bool {
	if c >= 128 || (c < ' ' && c != '\t' && c != '\n' && c != '\r') || c == 127 {
		return true
	}
	return set[c>>6]&(1<<(uint(c)&63)) != 0
}

// Tokenise is chroma's RegexLexer.Tokenise with the filtered iterator, in
// any state: nested (a rule's text handed to this lexer again or to
// another, by UsingSelf, Using or UsingByGroup) as at the top.
func (l *fastLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	if options == nil {
		options = &chroma.TokeniseOptions{State: "root", EnsureLF: true}
	}
	if _, ok := l.rules[options.State]; !ok {
		return l.RegexLexer.Tokenise(options, text)
	}
	if options.EnsureLF {
		text = ensureLF(text)
	}
	it := &fastIter{l: l, root: options.State, state: &chroma.LexerState{
		Registry:       l.registry,
		Lexer:          l.RegexLexer,
		Stack:          []string{options.State},
		Rules:          l.rules,
		MutatorContext: map[any]any{},
	}}
	if !options.Nested && l.Config().EnsureNL && !strings.HasSuffix(text, "\n") {
		text += "\n"
		it.newlineAdded = true
	}
	it.state.Text = []rune(text)
	return it.next, nil
}

// fastEmit is a rule's emitter as the fast iterator runs it: the ones that
// hand text to a lexer (UsingSelf, Using, UsingByGroup, and ByGroups
// holding them) are run again here so that lexer is a fast one too;
// chroma's would lex it with its own iterator, every rule at every
// character. kind "" is any other emitter, run as it is.
type fastEmit struct {
	orig                 chroma.Emitter
	kind                 string
	state, lexer         string      // usingself, using
	subs                 []*fastEmit // bygroups, usingbygroup (nil where the emitter is)
	nameGroup, codeGroup int         // usingbygroup
}

// newFastEmit reads e's kind and fields (chroma's emitter types are not
// exported; their fields are).
func newFastEmit(e chroma.Emitter) *fastEmit {
	if e == nil {
		return nil
	}
	f := &fastEmit{orig: e}
	se, ok := e.(chroma.SerialisableEmitter)
	if !ok {
		return f
	}
	v := reflect.ValueOf(e)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return f
	}
	v = v.Elem()
	str := func(name string) (string, bool) {
		fv := v.FieldByName(name)
		if !fv.IsValid() || fv.Kind() != reflect.String {
			return "", false
		}
		return fv.String(), true
	}
	subs := func() ([]*fastEmit, bool) {
		fv := v.FieldByName("Emitters")
		if !fv.IsValid() || fv.Type() != reflect.TypeFor[chroma.Emitters]() {
			return nil, false
		}
		var out []*fastEmit
		for _, sub := range fv.Interface().(chroma.Emitters) {
			out = append(out, newFastEmit(sub))
		}
		return out, true
	}
	switch kind := se.EmitterKind(); kind {
	case "usingself":
		if f.state, ok = str("State"); ok {
			f.kind = kind
		}
	case "using":
		if f.lexer, ok = str("Lexer"); ok {
			f.kind = kind
		}
	case "bygroups":
		if f.subs, ok = subs(); ok {
			f.kind = kind
		}
	case "usingbygroup":
		n, c := v.FieldByName("SublexerNameGroup"), v.FieldByName("CodeGroup")
		if f.subs, ok = subs(); ok && n.IsValid() && n.Kind() == reflect.Int && c.IsValid() && c.Kind() == reflect.Int {
			f.kind, f.nameGroup, f.codeGroup = kind, int(n.Int()), int(c.Int())
		}
	}
	return f
}

// fastOf returns the fast form of a lexer chroma's registry gave, made
// once per lexer.
func fastOf(l chroma.Lexer) chroma.Lexer {
	if l == nil || reflect.ValueOf(l).Kind() != reflect.Pointer {
		return l
	}
	if f, ok := fastLexers.Load(l); ok {
		return f.(chroma.Lexer)
	}
	f := l
	if fast := newFastMarkdown(l); fast != nil {
		f = fast
	} else if fast := newFastLexer(l); fast != nil {
		f = fast
	}
	got, _ := fastLexers.LoadOrStore(l, f)
	return got.(chroma.Lexer)
}

var fastLexers sync.Map // chroma.Lexer → its fast form

// registryGet is reg.Get(name), remembered: a name no lexer has (a code
// block's language) costs chroma a match against every file pattern,
// 3–5 ms; from chroma's own registry getLexer finds the same lexer in
// microseconds (TestLexerMatchSame). A cold corpus build asked for about
// twenty such names, 0.06 CPU-s.
func registryGet(reg *chroma.LexerRegistry, name string) chroma.Lexer {
	key := registryKey{reg, name}
	if l, ok := registryNames.Load(key); ok {
		l, _ := l.(chroma.Lexer)
		return l
	}
	var l chroma.Lexer
	if reg == lexers.GlobalLexerRegistry {
		l = getLexer(name)
	} else {
		l = reg.Get(name)
	}
	var v any = l
	if l == nil {
		v = false
	}
	registryNames.Store(key, v)
	return l
}

type registryKey struct {
	reg  *chroma.LexerRegistry
	name string
}

var registryNames sync.Map // registryKey → chroma.Lexer, or false

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
