package redact

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// generic-api-key, matched where it can start. RE2 matching its
// expression unanchored (a thread started at every byte, its counted
// runs [\w.-]{0,50}? and [\w.=-]{10,150} multiplying them) builds DFA
// states for ~0.4 CPU-seconds in every process that redacts the corpus,
// however little it reads; anchored at one place, it builds few. A match
// holds one of the rule's keywords, which the gate lets through
// (genericGate: a necessary condition), and starts at most 50 bytes of
// [\w.-] before it; so the leftmost match at or after pos, if any, starts
// at the first such keyword's earliest start: as far back from the
// keyword as that run of [\w.-] goes, up to 50 bytes and not before pos
// (a match starting later with this keyword starts there too, its prefix
// taking the bytes between). Trying those starts in order, each anchored,
// finds what the unanchored search finds: TestGenericAnchored compares
// them.

// genericWords are the keywords of the expression's (?:access|auth|
// (?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token),
// compared without case (api is then a superset: a candidate too many
// costs a try).
var genericWords = [...]string{"access", "api", "auth", "credential", "creds", "key", "passwd", "password", "secret", "token"}

// genericStart: [\w.-], the run a match can start with.
var genericStart = func() (t [256]bool) {
	for c := range t[:0x80] {
		t[c] = isWordByte(byte(c)) || c == '.' || c == '-'
	}
	return t
}()

// genericCandidates are the starts of the keywords in s the gate lets
// through, in order.
func genericCandidates(s string) []int {
	var out []int
	for i := 0; i < len(s); i++ {
		c := lower[s[i]]
		switch c {
		case 'a', 'c', 'k', 'p', 's', 't':
		default:
			continue
		}
		for _, w := range genericWords {
			if w[0] == c && hasFoldedPrefix(s[i:], w) && genericGate(s, i+len(w)) >= 0 {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// genericFindAll is FindAllStringIndex(s, n) of generic-api-key's
// expression, matched anchored by anchored (Anchored of the expression);
// false when s holds what the byte tables above do not know: a character
// (?i) takes for an ASCII letter of [\w] (the Kelvin sign, the long s) or
// invalid UTF-8.
func genericFindAll(anchored func(s string, fn func(matchAt func(int) int)), s string, n int) ([][]int, bool) {
	if !plainText(s) {
		return nil, false
	}
	return keywordFindAll(anchored, s, n, genericCandidates(s), 50), true
}

// keywordFindAll is FindAllStringIndex(s, n) of an expression whose
// matches all begin with at most back bytes of [\w.-] (lazily) and then a
// keyword, given the places in s a keyword of a match can start at
// (cands, ascending; a superset does no harm): the leftmost match at or
// after pos, if any, starts at the first candidate's earliest start that
// one matches at (as far back from it as a run of [\w.-] goes, up to back
// bytes and not before pos), each tried anchored by anchored. (A match
// with a later keyword of the same run starts there too, its prefix
// taking the bytes between; one with a keyword further on starts no
// earlier than that keyword's own earliest start, which is tried in its
// turn.)
func keywordFindAll(anchored func(s string, fn func(matchAt func(int) int)), s string, n int, cands []int, back int) [][]int {
	if len(cands) == 0 || n == 0 {
		return nil
	}
	var out [][]int
	anchored(s, func(matchAt func(int) int) {
		pos, last := 0, -1
		for _, q := range cands {
			if q < pos {
				continue // inside the last match
			}
			p := q
			for p > pos && q-p < back && genericStart[s[p-1]] {
				p--
			}
			if p == last {
				continue // tried: a later keyword in the same run
			}
			last = p
			if e := matchAt(p); e > p {
				out = append(out, []int{p, e})
				if pos = e; len(out) == n {
					return
				}
			}
		}
	})
	return out
}

// The rules gitleaks makes with GenerateSemiGenericRegex (cloudflare,
// sentry, discord, … 99 of them in gitleaks 8.30.1) share generic-api-key's
// start, (?i)[\w.-]{0,50}?(?:ids)(?:[ \t\w.-]{0,20}) (or, for those
// whose ids keep their case, [\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:ids)…)),
// then an assignment and a value: matched unanchored, each builds DFA
// states in RE2 for its counted runs (together ~0.3 CPU-seconds of a cold
// build of the corpus tree). They are matched anchored too, where a
// match's id can start.

// semiPlan is how a semi-generic expression is matched anchored: every
// match starts with at most back bytes of [\w.-], then an id that starts
// with one of words (compared without case).
type semiPlan struct {
	words []string
	back  int
}

// semiPlanOf reads a semi-generic expression's plan from its syntax
// tree; false for an expression of another shape, or whose ids do not
// start with a known set of ASCII words.
func semiPlanOf(expr string) (semiPlan, bool) {
	// gitleaks writes them so; the others are not parsed (6 ms for all).
	if !strings.HasPrefix(expr, `(?i)[\w.-]{0,50}?`) && !strings.HasPrefix(expr, `[\w.-]{0,50}?`) {
		return semiPlan{}, false
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat {
		return semiPlan{}, false
	}
	var plan semiPlan
	subs := re.Sub
	for len(subs) > 0 && isIdentRun(subs[0]) {
		plan.back += 50
		subs = subs[1:]
	}
	if plan.back == 0 {
		return semiPlan{}, false
	}
	words, ok := prefixesOf(subs)
	if !ok || len(words) == 0 {
		return semiPlan{}, false
	}
	for _, w := range words {
		if w == "" {
			return semiPlan{}, false
		}
	}
	plan.words = words
	return plan, true
}

// isIdentRun tells whether re is [\w.-]{0,50}?: a lazy run of up to 50
// of those ASCII bytes (under (?i) the class also holds the Kelvin sign
// and the long s, which plainText keeps from the anchored search).
func isIdentRun(re *syntax.Regexp) bool {
	if re.Op != syntax.OpRepeat || re.Min != 0 || re.Max != 50 || re.Flags&syntax.NonGreedy == 0 || re.Sub[0].Op != syntax.OpCharClass {
		return false
	}
	ascii, ok := asciiOf(re.Sub[0].Rune, utf8.RuneSelf)
	return ok && string(ascii) == "-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
}

// asciiOf is the ASCII characters of a class's ranges r, in order (the
// Kelvin sign and the long s, which (?i) adds beside k and s, left out:
// plainText keeps them from the anchored search); false when r holds
// another character or more than max.
func asciiOf(r []rune, max int) ([]rune, bool) {
	var out []rune
	for i := 0; i+1 < len(r); i += 2 {
		for c := r[i]; c <= r[i+1]; c++ {
			switch {
			case c < utf8.RuneSelf:
				if out = append(out, c); len(out) > max {
					return nil, false
				}
			case c != 0x17f && c != 0x212a:
				return nil, false
			}
		}
	}
	return out, true
}

// maxWords bounds the words of a plan (an expression of more is left to
// RE2 as it is).
const maxWords = 64

// prefixesOf is the words (ASCII, lower case) one of which every match of
// the concatenation subs starts with; false when it cannot tell.
func prefixesOf(subs []*syntax.Regexp) ([]string, bool) {
	if len(subs) == 0 {
		return nil, false
	}
	switch e := subs[0]; {
	case e.Op == syntax.OpCapture:
		return prefixesOf(append([]*syntax.Regexp{e.Sub[0]}, subs[1:]...))
	case e.Op == syntax.OpConcat:
		return prefixesOf(append(slices.Clone(e.Sub), subs[1:]...))
	default:
		head, ok := fixedOf(e)
		if !ok {
			if e.Op != syntax.OpAlternate {
				return nil, false
			}
			var out []string
			for _, alt := range e.Sub {
				ws, ok := prefixesOf([]*syntax.Regexp{alt})
				if !ok {
					return nil, false
				}
				out = append(out, ws...)
			}
			return dedupe(out), len(out) <= maxWords
		}
		if rest, ok := prefixesOf(subs[1:]); ok && !slices.Contains(rest, "") && len(head)*len(rest) <= maxWords {
			return cross(head, rest), true
		}
		return head, true
	}
}

// fixedOf is every text e matches (ASCII, lower case), when they are few;
// false when it cannot tell.
func fixedOf(e *syntax.Regexp) ([]string, bool) {
	switch e.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		for _, c := range e.Rune {
			if c >= utf8.RuneSelf {
				return nil, false
			}
		}
		return []string{strings.ToLower(string(e.Rune))}, true
	case syntax.OpCharClass:
		ascii, ok := asciiOf(e.Rune, 2*maxWords) // (two cases of each letter)
		var out []string
		for _, c := range ascii {
			out = append(out, strings.ToLower(string(c)))
		}
		out = dedupe(out)
		return out, ok && len(out) > 0 && len(out) <= maxWords
	case syntax.OpCapture:
		return fixedOf(e.Sub[0])
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range e.Sub {
			f, ok := fixedOf(sub)
			if !ok || len(out)*len(f) > maxWords {
				return nil, false
			}
			out = cross(out, f)
		}
		return out, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range e.Sub {
			f, ok := fixedOf(sub)
			if !ok {
				return nil, false
			}
			out = append(out, f...)
		}
		out = dedupe(out)
		return out, len(out) <= maxWords
	}
	return nil, false
}

// cross is every a followed by every b.
func cross(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

func dedupe(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// semiFindAll is FindAllStringIndex(s, n) of a semi-generic expression
// with plan, anchored as generic-api-key's is; false for a text plainText
// refuses.
func semiFindAll(anchored func(s string, fn func(matchAt func(int) int)), plan semiPlan, s string, n int) ([][]int, bool) {
	if !plainText(s) {
		return nil, false
	}
	var cands []int
	for i := 0; i < len(s); i++ {
		for _, w := range plan.words {
			if hasFoldedPrefix(s[i:], w) {
				cands = append(cands, i)
				break
			}
		}
	}
	return keywordFindAll(anchored, s, n, cands, plan.back), true
}

// plainText tells whether s is valid UTF-8 without lowersToASCII's
// characters.
func plainText(s string) bool {
	return !holdsLowersToASCII(s) && utf8.ValidString(s)
}
