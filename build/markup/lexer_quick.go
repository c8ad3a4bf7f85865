package markup

import (
	"strings"
	"sync"

	"github.com/dlclark/regexp2/v2"
)

// quickRule matches a rule's pattern without regexp2, for the shapes most
// lexer rules have (whitespace, a name, a keyword list, a punctuation
// class, an operator list), on ASCII text: where the text it looks at
// holds another character it does not know the answer (known false) and
// the rule is tried with regexp2 as before. Each class's ASCII members
// are regexp2's own, asked of regexp2 when the rule is read (so \s, \w and
// case folding are regexp2's, not RE2's). A regexp2 try costs a runner, a
// match object and its setup (about a microsecond); a name in Go source
// was tried against four rules before the one that took it.
//
// The shapes, each matched the one way regexp2's backtracking can:
//   - a sequence of atoms, each one character of a class (a literal is a
//     class of one) taken once, optionally (?), or greedily (* or +), where
//     no greedy atom's class meets the class of an atom after it that it
//     could give characters back to: so the greedy run is the only one
//     that can lead to a match;
//   - a list of words (letters, digits, _) ending at a word boundary
//     (chroma's Words(…, `\b`, …)), maybe after one, maybe followed by a
//     sequence: the only place such a word can end is the end of the run
//     of word characters, so the run must be one of the words;
//   - a list of literals and one-character classes (an operator list), the
//     whole pattern: the first that matches is the match.
type quickRule struct {
	atoms []quickAtom
	// notAfter: a (?<!x) the pattern starts with, x's characters.
	notAfter    [2]uint64
	hasNotAfter bool
	// words, when not nil, comes before atoms; wordB: a \b before it.
	// ordered, when set, lists them in the pattern's order: some hold a
	// character that is not a word's (yield from).
	words   map[string]bool
	ordered []string
	longest int  // the longest word's length
	fold    bool // words compare case-folded (the lexer's (?i))
	wordB   bool
	word    [2]uint64 // regexp2's ASCII word characters, for words
	// alts, when not nil, is the whole pattern.
	alts []quickAlt
}

// quickAtom is one character of set, taken min to max (-1: any) times.
type quickAtom struct {
	set      [2]uint64
	min, max int
}

// quickAlt is an alternative of a list: a literal, or one character of set.
type quickAlt struct {
	lit   []rune
	set   [2]uint64
	isSet bool
}

func has(set *[2]uint64, c rune) bool { return set[c>>6]&(1<<(uint(c)&63)) != 0 }

// match returns the length of the rule's match at pos (-1: none); known is
// false when the text holds a character the rule's tables do not cover.
func (q *quickRule) match(text []rune, pos int) (n int, known bool) {
	if q.alts != nil {
		return q.matchAlts(text, pos)
	}
	p := pos
	if q.hasNotAfter && p > 0 {
		c := text[p-1]
		if c >= 128 {
			return 0, false
		}
		if has(&q.notAfter, c) {
			return -1, true
		}
	}
	if q.ordered != nil {
		n, known := q.matchOrdered(text, p)
		if n < 0 || !known {
			return n, known
		}
		p += n
	} else if q.words != nil {
		if q.wordB && p > 0 {
			c := text[p-1]
			if c >= 128 {
				return 0, false
			}
			if has(&q.word, c) {
				return -1, true // no boundary: the word starts inside one
			}
		}
		for p < len(text) && text[p] < 128 && has(&q.word, text[p]) {
			p++
		}
		if p < len(text) && text[p] >= 128 {
			return 0, false
		}
		if p == pos {
			return -1, true
		}
		w := string(text[pos:p])
		if q.fold {
			w = strings.ToLower(w)
		}
		if !q.words[w] {
			return -1, true
		}
	}
	for _, a := range q.atoms {
		k := 0
		for (a.max < 0 || k < a.max) && p < len(text) {
			c := text[p]
			if c >= 128 {
				return 0, false
			}
			if !has(&a.set, c) {
				break
			}
			p++
			k++
		}
		if k < a.min {
			if p < len(text) && text[p] >= 128 {
				return 0, false
			}
			return -1, true
		}
	}
	return p - pos, true
}

// matchOrdered is the word list tried in order, each word followed by a
// word boundary: the first that holds is the match.
func (q *quickRule) matchOrdered(text []rune, pos int) (int, bool) {
	isWord := func(i int) (bool, bool) {
		if i < 0 || i >= len(text) {
			return false, true
		}
		if text[i] >= 128 {
			return false, false
		}
		return has(&q.word, text[i]), true
	}
	if q.fold {
		// Under (?i) a non-ASCII character may match a word's letter
		// (K, the Kelvin sign, is a k): left to regexp2.
		for k := pos; k < len(text) && k < pos+q.longest; k++ {
			if text[k] >= 128 {
				return 0, false
			}
		}
	}
	if q.wordB {
		before, ok := isWord(pos - 1)
		at, ok2 := isWord(pos)
		if !ok || !ok2 {
			return 0, false
		}
		if before == at {
			return -1, true
		}
	}
	for _, w := range q.ordered {
		if pos+len(w) > len(text) {
			continue
		}
		same := true
		for k := 0; k < len(w) && same; k++ {
			c := text[pos+k]
			if q.fold && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			same = c == rune(w[k])
		}
		if !same {
			continue
		}
		last, _ := isWord(pos + len(w) - 1)
		next, ok := isWord(pos + len(w))
		if !ok {
			return 0, false
		}
		if last != next {
			return len(w), true
		}
	}
	return -1, true
}

func (q *quickRule) matchAlts(text []rune, pos int) (int, bool) {
	for _, a := range q.alts {
		if a.isSet {
			if pos >= len(text) {
				continue
			}
			c := text[pos]
			if c >= 128 {
				return 0, false
			}
			if has(&a.set, c) {
				return 1, true
			}
			continue
		}
		k := 0
		for k < len(a.lit) && pos+k < len(text) && text[pos+k] == a.lit[k] {
			k++
		}
		if k == len(a.lit) {
			return k, true
		}
		// A non-ASCII character cannot equal an ASCII literal's.
	}
	return -1, true
}

// newQuickRule reads pattern (a rule's, compiled with flags, chroma's
// "m", "i", "s") into a quickRule, or returns nil when it has another
// shape.
func newQuickRule(pattern, flags string) *quickRule {
	if anchored(pattern) || strings.Contains(pattern, "[:") || !ascii(pattern) {
		return nil
	}
	set := func(atom string) ([2]uint64, bool) { return probe(atom, flags) }
	q := &quickRule{}
	p := pattern
	if strings.HasPrefix(p, "(?<!") {
		atom, end, ok := atomText(p, 4)
		if !ok || end >= len(p) || p[end] != ')' {
			return nil
		}
		if q.notAfter, ok = set(atom); !ok {
			return nil
		}
		q.hasNotAfter = true
		p = p[end+1:]
	}
	// A list of words ending at a word boundary.
	if w, rest, lead, ok := wordList(p); ok {
		word, ok := set(`\w`)
		if !ok {
			return nil
		}
		q.word, q.wordB, q.fold = word, lead, strings.Contains(flags, "i")
		q.words = map[string]bool{}
		for _, x := range w {
			if q.fold {
				x = strings.ToLower(x)
			}
			for _, c := range []byte(x) {
				if !has(&word, rune(c)) {
					q.ordered = w
				}
			}
			q.words[x] = true
			q.longest = max(q.longest, len(x))
		}
		if q.ordered != nil {
			q.ordered = nil
			for _, x := range w {
				if q.fold {
					x = strings.ToLower(x)
				}
				q.ordered = append(q.ordered, x)
			}
		}
		p = rest
	} else if alts, ok := altList(p, set, flags); ok {
		q.alts = alts
		return q
	}
	atoms, ok := atomSeq(p, set)
	if !ok {
		return nil
	}
	// No greedy atom may give back a character a later atom could take.
	for i, a := range atoms {
		if a.max == 1 && a.min == 1 {
			continue
		}
		for _, b := range atoms[i+1:] {
			if a.set[0]&b.set[0] != 0 || a.set[1]&b.set[1] != 0 {
				return nil
			}
			if b.min > 0 {
				break
			}
		}
	}
	q.atoms = atoms
	if q.words == nil && len(atoms) == 0 && !q.hasNotAfter {
		return nil
	}
	return q
}

// anchored reports whether p has a ^ or $ outside classes, unescaped.
func anchored(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			j := classClose(p, i, true)
			if j < 0 {
				return true // not read: refused
			}
			i = j
		case '^', '$':
			return true
		}
	}
	return false
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 128 {
			return false
		}
	}
	return true
}

// probes remembers probe's answers: lexers share most atoms (\s, \w).
var probes sync.Map // [2]string{atom, flags} → probed

type probed struct {
	set [2]uint64
	ok  bool
}

// probe returns the ASCII characters regexp2 matches with atom (one
// character's pattern) under flags.
func probe(atom, flags string) ([2]uint64, bool) {
	key := [2]string{atom, flags}
	if p, ok := probes.Load(key); ok {
		return p.(probed).set, p.(probed).ok
	}
	set, ok := probeNew(atom, flags)
	probes.Store(key, probed{set, ok})
	return set, ok
}

func probeNew(atom, flags string) ([2]uint64, bool) {
	pat := `\G(?:` + atom + `)`
	if flags != "" {
		pat = `\G(?` + flags + `:` + atom + `)`
	}
	re, err := regexp2.Compile(pat)
	if err != nil {
		return [2]uint64{}, false
	}
	var set [2]uint64
	for c := rune(0); c < 128; c++ {
		m, err := re.FindRunesMatchStartingAt([]rune{c}, 0)
		if err != nil {
			return [2]uint64{}, false
		}
		if m != nil && m.RuneIndex == 0 && m.RuneLength == 1 {
			set[c>>6] |= 1 << (uint(c) & 63)
		}
	}
	return set, true
}

// atomText returns the pattern of the one-character atom at p[i:] and
// where it ends; ok false when p[i:] starts with something else.
func atomText(p string, i int) (atom string, end int, ok bool) {
	switch c := p[i]; {
	case c == '\\':
		if i+1 >= len(p) {
			return "", 0, false
		}
		d := p[i+1]
		switch {
		case strings.IndexByte(`sSwWdDnt`, d) >= 0:
		case strings.IndexByte(`\.+*?()[]{}|/-#"'`+"`"+`!<>=:;,&%@~^$`, d) >= 0:
		default:
			return "", 0, false // \b, \G, \x.., \p{..}, back references
		}
		return p[i : i+2], i + 2, true
	case c == '[':
		j := classClose(p, i, true)
		if j < 0 {
			return "", 0, false
		}
		return p[i : j+1], j + 1, true
	case strings.IndexByte(`.^$|?*+(){}`, c) >= 0:
		return "", 0, false
	default:
		return p[i : i+1], i + 1, true
	}
}

// atomSeq reads p as a sequence of atoms, each maybe followed by ?, * or +;
// plain and capturing parentheses around atoms are read through.
func atomSeq(p string, set func(string) ([2]uint64, bool)) ([]quickAtom, bool) {
	var atoms []quickAtom
	depth := 0
	for i := 0; i < len(p); {
		switch {
		case strings.HasPrefix(p[i:], "(?:"):
			depth++
			i += 3
			continue
		case p[i] == '(':
			if i+1 < len(p) && p[i+1] == '?' {
				return nil, false
			}
			depth++
			i++
			continue
		case p[i] == ')':
			if depth == 0 {
				return nil, false
			}
			depth--
			i++
			if i < len(p) && strings.IndexByte("?*+{", p[i]) >= 0 {
				return nil, false // a quantified group
			}
			continue
		}
		atom, end, ok := atomText(p, i)
		if !ok {
			return nil, false
		}
		s, ok := set(atom)
		if !ok {
			return nil, false
		}
		a := quickAtom{set: s, min: 1, max: 1}
		if end < len(p) {
			switch p[end] {
			case '?':
				a.min = 0
				end++
			case '*':
				a.min, a.max = 0, -1
				end++
			case '+':
				a.max = -1
				end++
			case '{':
				return nil, false
			}
			if end < len(p) && (p[end] == '?' || p[end] == '+') && a.max != 1 || end < len(p) && p[end] == '?' && a.min == 0 && a.max == 1 {
				return nil, false // lazy or possessive
			}
		}
		atoms = append(atoms, a)
		i = end
	}
	return atoms, depth == 0
}

// wordList reads p as chroma's Words(prefix, `\b`, …): maybe \b, then
// (w1|w2|…) or (?:…) of literal words, then \b; rest is what follows.
func wordList(p string) (words []string, rest string, lead, ok bool) {
	if strings.HasPrefix(p, `\b`) {
		lead, p = true, p[2:]
	}
	var body string
	switch {
	case strings.HasPrefix(p, "(?:"):
		body = p[3:]
	case strings.HasPrefix(p, "(") && !strings.HasPrefix(p, "(?"):
		body = p[1:]
	default:
		return nil, "", false, false
	}
	j := strings.IndexByte(body, ')')
	if j < 0 || !strings.HasPrefix(body[j+1:], `\b`) {
		return nil, "", false, false
	}
	for _, w := range strings.Split(body[:j], "|") {
		if w == "" || strings.ContainsAny(w, `\[](){}.*+?|^$#`) || strings.TrimSpace(w) != w || strings.Contains(w, "  ") {
			return nil, "", false, false
		}
		words = append(words, w)
	}
	return words, body[j+3:], lead, true
}

// altList reads p, maybe in parentheses, as literals and one-character
// classes separated by |.
func altList(p string, set func(string) ([2]uint64, bool), flags string) ([]quickAlt, bool) {
	if strings.Contains(flags, "i") || !strings.Contains(p, "|") {
		return nil, false
	}
	switch {
	case strings.HasPrefix(p, "(?:") && strings.HasSuffix(p, ")"):
		p = p[3 : len(p)-1]
	case strings.HasPrefix(p, "(") && !strings.HasPrefix(p, "(?") && strings.HasSuffix(p, ")"):
		p = p[1 : len(p)-1]
	}
	var alts []quickAlt
	for i := 0; i <= len(p); {
		var a quickAlt
		for i < len(p) && p[i] != '|' {
			atom, end, ok := atomText(p, i)
			if !ok {
				return nil, false
			}
			switch {
			case atom[0] == '[' || atom[0] == '\\' && strings.IndexByte(`sSwWdD`, atom[1]) >= 0:
				if len(a.lit) > 0 || a.isSet || end < len(p) && p[end] != '|' {
					return nil, false // a class alone is an alternative
				}
				s, ok := set(atom)
				if !ok {
					return nil, false
				}
				a.set, a.isSet = s, true
			case atom == `\n`:
				a.lit = append(a.lit, '\n')
			case atom == `\t`:
				a.lit = append(a.lit, '\t')
			case atom[0] == '\\':
				a.lit = append(a.lit, rune(atom[1]))
			default:
				a.lit = append(a.lit, rune(atom[0]))
			}
			i = end
		}
		if !a.isSet && len(a.lit) == 0 {
			return nil, false
		}
		alts = append(alts, a)
		i++
	}
	return alts, true
}
