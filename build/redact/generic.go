package redact

import "unicode/utf8"

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
	cands := genericCandidates(s)
	if len(cands) == 0 || n == 0 {
		return nil, true
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
	return out, true
}

// plainText tells whether s is valid UTF-8 without lowersToASCII's
// characters.
func plainText(s string) bool {
	return !holdsLowersToASCII(s) && utf8.ValidString(s)
}
