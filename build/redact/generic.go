package redact

import (
	"regexp"
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
	return keywordFindAll(anchored, s, n, genericCandidates(s)), true
}

// keywordFindAll is FindAllStringIndex(s, n) of an expression whose
// matches all begin with [\w.-]{0,50}? and then a keyword, given the
// starts of the keywords in s that can begin a match (cands, ascending):
// the leftmost match at or after pos, if any, starts at the first
// candidate's earliest start that one matches at (as far back from it as
// a run of [\w.-] goes, up to 50 bytes and not before pos), each tried
// anchored by anchored. (A match with a later keyword of the same run
// starts there too, its prefix taking the bytes between; one with a
// keyword further on starts no earlier than that keyword's own earliest
// start, which is tried in its turn.)
func keywordFindAll(anchored func(s string, fn func(matchAt func(int) int)), s string, n int, cands []int) [][]int {
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
			for p > pos && q-p < 50 && genericStart[s[p-1]] {
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
// sentry, discord, … 83 of them in gitleaks 8.30.1) share generic-api-key's start,
// (?i)[\w.-]{0,50}?(?:ids)(?:[ \t\w.-]{0,20}) then an assignment and a
// value: matched unanchored, each builds DFA states in RE2 for its counted
// runs (together ~0.2 CPU-seconds of a cold build of the corpus tree).
// Those whose ids are plain words are matched anchored too, where one of
// the ids starts (any case).

// semiShape is such an expression's start; its group, the ids.
var semiShape = regexp.MustCompile(`^\(\?i\)\[\\w\.-\]\{0,50\}\?\(\?:([a-z0-9_-]+(?:\|[a-z0-9_-]+)*)\)\(\?:\[ \\t\\w\.-\]\{0,20\}\)`)

// semiWords is the ids of a semi-generic expression (lower case), nil for
// an expression of another shape.
func semiWords(expr string) []string {
	m := semiShape.FindStringSubmatch(expr)
	if m == nil {
		return nil
	}
	return strings.Split(m[1], "|")
}

// semiFindAll is FindAllStringIndex(s, n) of a semi-generic expression
// whose ids are words, anchored as generic-api-key's is; false for a text
// plainText refuses.
func semiFindAll(anchored func(s string, fn func(matchAt func(int) int)), words []string, s string, n int) ([][]int, bool) {
	if !plainText(s) {
		return nil, false
	}
	var cands []int
	for i := 0; i < len(s); i++ {
		for _, w := range words {
			if int(w[0]) == fold(s[i]) && hasFoldedPrefix(s[i:], w) {
				cands = append(cands, i)
				break
			}
		}
	}
	return keywordFindAll(anchored, s, n, cands), true
}

// plainText tells whether s is valid UTF-8 without lowersToASCII's
// characters.
func plainText(s string) bool {
	return !holdsLowersToASCII(s) && utf8.ValidString(s)
}
