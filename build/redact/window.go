package redact

import (
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/report"
)

// A windower cuts a text down to the lines a rule can match in: the lines
// around each keyword of a rule, as many lines before and after as a match
// of the rule can span. gitleaks runs a rule whose keyword a text holds
// over the whole text; in a transcript that is often a long tool output
// (a file read, a log) holding "key", "token" or "pass" once, and its
// rules (generic-api-key, password-assignment) cost the most. Cut down,
// they run over the lines that can hold their matches, and the keyword
// search that finds those lines is cheaper than gitleaks' own (lowering
// the whole text, then Aho-Corasick over it).
//
// It rests on what gitleaks' keywords are: a word every match of the rule
// holds (a rule is run only on texts that hold one). A match holding a
// keyword ends at most as many lines after it, and starts at most as many
// before, as the rule's expression can match line ends; the window of
// lines around the keyword holds it whole, and the expression finds in
// the window what it finds in the whole text (the window's edges are line
// ends, as in the text). A text goes whole when a keyword found in it is
// one of a rule whose matches can span any number of lines (a PEM key, a
// YAML secret), or when it holds a character whose lower case is ASCII or
// that an expression's (?i) takes for an ASCII letter (the Kelvin sign,
// the long s: a keyword there that an ASCII search would not see).
type windower struct {
	// tris holds a bit for the hash of each keyword's folded first three
	// bytes (128 KB, in a core's second cache): most triples of letters
	// in a text begin no keyword, and the scan looks at each once. Of
	// those that do ("acc", "sec", "tok"), most are words like "access"
	// that are not a keyword: whole holds a bit for the hash of each
	// three-byte keyword, quads for that of each longer one's first four
	// bytes, and only a triple that passes one of them is compared with
	// the keywords it begins.
	tris, whole, quads [1 << triBits / 64]uint64
	// by folded first two bytes of a keyword of three or more: 1 + its
	// index in lists.
	first [1 << 16]uint16
	lists [][]keyword
	// short holds a bit for each two-byte keyword (folded), shorts
	// those keywords.
	short  [1 << 16 / 64]uint64
	shorts []keyword
	// groups is how many groups of rules the windows are cut for.
	groups int
}

// keyword is one of the rules' keywords, lower case: whether it is one
// of a long rule's (the main group's, see newWindower), and the windows
// it opens in each group of rules it is a keyword of.
type keyword struct {
	word string
	long bool
	uses []use
}

// use is what a keyword opens in one group of rules: windows of as many
// lines either side as a match of a bounded rule of the group holding it
// can span past it; or, for a gated group, those its gate allows.
type use struct {
	group int
	lines int
	// gate, when set, looks at the text after a keyword found (end is
	// where the keyword ends) and says how many lines after the
	// keyword's a match holding it can end on, or -1 when no match of
	// its rule can hold it: a window opens only where gate allows one,
	// from the keyword's line to that many lines after it (see gates).
	gate func(text string, end int) int
	// whole: the keyword has its group take the whole text.
	whole bool
}

// ruleGroup is rules cut for together: a text's windows for the group
// are where any of its rules can match. gate, when set, gates every
// keyword of the group (use.gate).
type ruleGroup struct {
	rules map[string]config.Rule
	gate  func(text string, end int) int
	// whole: the group's window is the whole text when one of its
	// keywords is in it, and nothing otherwise (the rules run apart, on
	// whole texts, whose prechecks need only run when gitleaks would
	// run the rule).
	whole bool
}

// newWindower makes the windower of groups of rules, one scan of a text
// finding the windows of each (cuts), and returns the rules of the first
// group (the main one) it cannot cut a text for: the long rules, whose
// matches can span any number of lines (or that need other rules'
// findings). The other groups must have none. It returns no windower
// when a rule has no keyword (it runs on every text whole).
func newWindower(groups ...ruleGroup) (*windower, map[string]config.Rule) {
	long := map[string]config.Rule{}
	bound := map[string]*keyword{}
	for g, grp := range groups {
		lines := map[string]int{} // by keyword, in this group
		for id, r := range grp.rules {
			if r.Regex != nil && len(r.Keywords) == 0 {
				return nil, nil // none such today
			}
			if grp.whole {
				for _, k := range r.Keywords {
					k = strings.ToLower(k)
					if bound[k] == nil {
						bound[k] = &keyword{word: k}
					}
					lines[k] = -1
				}
				continue
			}
			n := -1 // a path rule (no expression) has no windows
			if r.Regex != nil {
				if n = lineEnds(r.Regex.String()); n < 0 || len(r.RequiredRules) > 0 {
					if g > 0 {
						return nil, nil
					}
					long[id] = r
				}
			}
			for _, k := range r.Keywords {
				k = strings.ToLower(k)
				kw := bound[k]
				if kw == nil {
					kw = &keyword{word: k}
					bound[k] = kw
				}
				if _, isLong := long[id]; isLong {
					kw.long = true
					continue
				}
				if m, ok := lines[k]; !ok || n > m {
					lines[k] = n
				}
			}
		}
		for k, n := range lines {
			if grp.whole {
				bound[k].uses = append(bound[k].uses, use{group: g, whole: true})
			} else if n >= 0 {
				bound[k].uses = append(bound[k].uses, use{group: g, lines: n, gate: grp.gate})
			}
		}
	}
	w := &windower{groups: len(groups)}
	words := make([]string, 0, len(bound))
	for k := range bound {
		words = append(words, k)
	}
	slices.Sort(words)
	for _, k := range words {
		if len(k) < 2 || !isASCII(k) {
			// No such keyword today: such a one makes every text go whole.
			return nil, nil
		}
		kw := *bound[k]
		slices.SortFunc(kw.uses, func(a, b use) int { return a.group - b.group })
		i := fold(k[0])<<8 | fold(k[1])
		if len(k) == 2 {
			w.short[i/64] |= 1 << (i % 64)
			w.shorts = append(w.shorts, kw)
			continue
		}
		if w.first[i] == 0 {
			w.lists = append(w.lists, nil)
			w.first[i] = uint16(len(w.lists))
		}
		g := w.first[i] - 1
		w.lists[g] = append(w.lists[g], kw)
		t := hash3(uint32(i<<8 | fold(k[2])))
		w.tris[t/64] |= 1 << (t % 64)
		if len(k) == 3 {
			w.whole[t/64] |= 1 << (t % 64)
		} else {
			q := hash4(uint32(i<<16 | fold(k[2])<<8 | fold(k[3])))
			w.quads[q/64] |= 1 << (q % 64)
		}
	}
	return w, long
}

// lineEnds is the most line ends (\n) a match of expr can hold, -1 when
// there is no bound (or expr does not parse as Go's syntax has it).
func lineEnds(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return -1
	}
	return reLineEnds(re)
}

func reLineEnds(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.Count(string(re.Rune), "\n") + strings.Count(string(re.Rune), "\f")
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] || re.Rune[i] <= '\f' && '\f' <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpEmptyMatch, syntax.OpNoMatch,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return reLineEnds(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if reLineEnds(re.Sub[0]) != 0 {
			return -1
		}
		return 0
	case syntax.OpRepeat:
		n := reLineEnds(re.Sub[0])
		switch {
		case n == 0:
			return 0
		case n < 0 || re.Max < 0:
			return -1
		}
		return n * re.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			n := reLineEnds(s)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	}
	return -1
}

// lineEndCount is how many line ends (\n, \f) s holds.
func lineEndCount(s string) int {
	return strings.Count(s, "\n") + strings.Count(s, "\f")
}

// nextByte is the index of the first c in s from i on, len(s) if none.
func nextByte(s string, i int, c byte) int {
	if j := strings.IndexByte(s[i:], c); j >= 0 {
		return i + j
	}
	return len(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// maxGroups is how many groups of rules a windower cuts for without
// allocating (the main one, two gated, eleven run apart, today).
const maxGroups = 16

// triBits is the size of a hash of three bytes, and of four.
const triBits = 20

// hash3 hashes three bytes (as the low 24 bits of v); hash4, four.
func hash3(v uint32) uint { return uint(v*0x9e3779b1) >> (32 - triBits) }
func hash4(v uint32) uint { return uint(v*0x85ebca6b) >> (32 - triBits) }

// fold is an ASCII byte in lower case (other bytes as they are).
func fold(c byte) int { return int(lower[c]) }

// lower is each byte in lower case (ASCII letters), others as they are.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// lowersToASCII are the characters (as UTF-8) a keyword search that
// compares ASCII letters without case would miss where gitleaks, or a rule,
// sees a keyword's letter: those whose lower case, as strings.ToLower has
// it, holds an ASCII byte (the dotted capital I, the Kelvin sign: gitleaks
// lowers a text before looking for keywords), and those an expression's
// (?i) takes for an ASCII letter (the long s, the Kelvin sign: a match
// holding "ſecret" holds no keyword for an ASCII search). A text holding
// one is scanned whole. TestLowersToASCII checks there are no others.
var lowersToASCII = []string{"\u0130", "\u017f", "\u212a"}

// holdsLowersToASCII tells whether s holds one of lowersToASCII.
func holdsLowersToASCII(s string) bool {
	for _, c := range lowersToASCII {
		if strings.Contains(s, c) {
			return true
		}
	}
	return false
}

// lineStarts holds cut's line starts, from one text to the next.
var lineStarts = sync.Pool{New: func() any { return new([]int) }}

// span is a window: bytes from to to of a text.
type span struct{ from, to int }

// window is the cut of a text for a group of rules: the windows of the
// text the group's bounded rules need, and where they are in the text;
// the text itself (and no spans) when they need all of it, "" when none
// of their keywords is in it.
type window struct {
	text  string
	spans []span
}

// cut is the main group's window of text, and whether a long rule's
// keyword is in it.
func (w *windower) cut(text string) (string, []span, bool) {
	return w.cutGroup(text, 0)
}

// cutGroup is group g's window of text, and whether a long rule's keyword
// is in it.
func (w *windower) cutGroup(text string, g int) (string, []span, bool) {
	var one [maxGroups]window
	out := one[:]
	if w != nil && w.groups > len(out) {
		out = make([]window, w.groups)
	}
	long := w.cuts(text, out)
	return out[g].text, out[g].spans, long
}

// cuts writes each group's window of text in out (one per group, as
// newWindower had them), found in one scan of the text, and returns
// whether a long rule's keyword is in it.
func (w *windower) cuts(text string, out []window) (long bool) {
	if done, long := w.cutsWhole(text, out); done {
		return long
	}
	// A window is lines lo to hi, numbered by counting line ends (with
	// Go's vector count) from one keyword found to the next; wins holds
	// each group's.
	var (
		winsOf       [maxGroups][][2]int
		wholeOf      [maxGroups]bool
		line, lineAt int // line is the number of line ends before lineAt
	)
	wins, whole := winsOf[:], wholeOf[:]
	if w.groups > len(wins) {
		wins, whole = make([][][2]int, w.groups), make([]bool, w.groups)
	}
	// found takes keyword k, found at text[at:].
	found := func(k *keyword, at int) {
		if k.long {
			long = true
		}
		if len(k.uses) == 0 {
			return
		}
		if k.uses[0].whole && len(k.uses) == 1 {
			whole[k.uses[0].group] = true // no line count needed
			return
		}
		line += lineEndCount(text[lineAt:at])
		lineAt = at
		for _, u := range k.uses {
			if u.whole {
				whole[u.group] = true
				continue
			}
			before, after := u.lines, u.lines
			if u.gate != nil {
				if after = u.gate(text, at+len(k.word)); after < 0 {
					continue
				}
				before = 0
			}
			ws := wins[u.group]
			if n := len(ws); n > 0 && ws[n-1][0] <= line-before && line+after <= ws[n-1][1] {
				continue
			}
			wins[u.group] = append(ws, [2]int{line - before, line + after})
		}
	}
	// shortAt finds the two-byte keywords at text[at:].
	shortAt := func(at int) {
		for i := range w.shorts {
			if k := &w.shorts[i]; hasFoldedPrefix(text[at:], k.word) {
				found(k, at)
			}
		}
	}
	// longAt finds the keywords of three bytes or more at text[at:],
	// whose first three bytes, folded, are the low 24 bits of v (and the
	// byte after them next, when there is one).
	longAt := func(at int, v uint32) {
		t := hash3(v & 0xffffff)
		if w.whole[t/64]&(1<<(t%64)) == 0 {
			if at+3 == len(text) {
				return
			}
			if q := hash4(v<<8 | uint32(lower[text[at+3]])); w.quads[q/64]&(1<<(q%64)) == 0 {
				return
			}
		}
		g := w.first[v>>8&0xffff]
		if g == 0 {
			return // a hash's false hit
		}
		list := w.lists[g-1]
		for i := range list {
			if k := &list[i]; hasFoldedPrefix(text[at:], k.word) {
				found(k, at)
			}
		}
	}
	// Keywords are taken in the order they start (found counts line ends
	// from the last): at i, those of three bytes or more from i-2, then
	// those of two from i-1.
	tris, short, lw := &w.tris, &w.short, &lower
	v := uint32(lw[text[0]])<<8 | uint32(lw[text[1]]) // the last three bytes, folded
	if p := v; short[p/64]&(1<<(p%64)) != 0 {
		shortAt(0)
	}
	for i := 2; i < len(text); i++ {
		v = v<<8 | uint32(lw[text[i]])
		if t := hash3(v & 0xffffff); tris[t/64]&(1<<(t%64)) != 0 {
			longAt(i-2, v)
		}
		if p := v & 0xffff; short[p/64]&(1<<(p%64)) != 0 {
			shortAt(i - 1)
		}
	}
	for g, yes := range whole[:w.groups] {
		if yes {
			out[g] = window{text: text}
		}
	}
	w.writeCuts(text, wins, out)
	return long
}

// cutsWhole settles the texts cuts need not scan: with no windower every
// group takes the whole text; a text shorter than a keyword has no
// window; a text holding a character that lowers to ASCII goes whole
// (looked for first, each with Go's vector search, not byte by byte).
// done is false, with out cleared, when the text must be scanned.
func (w *windower) cutsWhole(text string, out []window) (done, long bool) {
	if w == nil {
		for g := range out {
			out[g] = window{text: text}
		}
		return true, true
	}
	for g := range out[:w.groups] {
		out[g] = window{}
	}
	if len(text) < 2 {
		return true, false
	}
	if holdsLowersToASCII(text) {
		for g := range out[:w.groups] {
			out[g] = window{text: text}
		}
		return true, true
	}
	return false, false
}

// writeCuts writes each group's windows, wins (lines lo to hi), of text
// into out.
func (w *windower) writeCuts(text string, wins [][][2]int, out []window) {
	// The start of each line (but the first) up to the last a window
	// needs: after each line end but one that ends the text.
	need := 0
	for _, ws := range wins[:w.groups] {
		for _, w := range ws {
			need = max(need, w[1]+1)
		}
	}
	if need == 0 {
		return
	}
	sp := lineStarts.Get().(*[]int)
	defer lineStarts.Put(sp)
	starts := (*sp)[:0]
	defer func() { *sp = starts[:0] }()
	nl, ff := nextByte(text, 0, '\n'), nextByte(text, 0, '\f')
	for len(starts) < need {
		j := min(nl, ff)
		if j >= len(text)-1 {
			break
		}
		starts = append(starts, j+1)
		if j == nl {
			nl = nextByte(text, j+1, '\n')
		} else {
			ff = nextByte(text, j+1, '\f')
		}
	}
	for g, ws := range wins[:w.groups] {
		if len(ws) > 0 {
			out[g].text, out[g].spans = writeWindows(text, ws, starts)
		}
	}
}

// writeWindows writes the windows of text, lines lo to hi of each of wins
// (starts: where each line but the first starts, as far as they reach),
// and where they are in text: text itself and no spans when they cover it.
func writeWindows(text string, wins [][2]int, starts []int) (string, []span) {
	lineStart := func(l int) int {
		if l <= 0 {
			return 0
		}
		if l > len(starts) {
			return len(text) + 1
		}
		return starts[l-1]
	}
	spans := make([]span, 0, len(wins))
	for _, w := range wins {
		// Lines w[0] to w[1], without the line end after the last.
		spans = append(spans, span{lineStart(w[0]), lineStart(w[1]+1) - 1})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.from <= last.to+1 {
			last.to = max(last.to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	if len(merged) == 1 && merged[0].from == 0 && merged[0].to == len(text) {
		return text, nil
	}
	// A window is written with what is around it in the text as the
	// expressions see it: the start of the text, or the line end before
	// it; the end of the text, or the line end after it. Windows are kept
	// apart by a NUL between those line ends, which no bounded rule
	// matches across.
	var b strings.Builder
	size := 2
	for _, s := range merged {
		size += s.to - s.from + 3
	}
	b.Grow(size)
	for i, s := range merged {
		if s.from > 0 {
			if i == 0 {
				b.WriteByte(0)
			}
			b.WriteByte(text[s.from-1])
		}
		b.WriteString(text[s.from:s.to])
		if s.to < len(text) {
			b.WriteByte(text[s.to])
			b.WriteByte(0)
		}
	}
	return b.String(), merged
}

// textLines moves the lines (as gitleaks counts them, by \n) of findings
// in the windows of text (spans, as cut wrote them) to their lines in
// text.
func textLines(found []report.Finding, text string, spans []span) {
	type start struct{ win, text int } // a window's first line, in each
	starts := make([]start, len(spans))
	win, lines, prev := 0, 0, 0
	for i, s := range spans {
		lines += strings.Count(text[prev:s.from], "\n")
		prev = s.from
		if s.from > 0 && text[s.from-1] == '\n' {
			win++
		}
		starts[i] = start{win, lines}
		win += strings.Count(text[s.from:s.to], "\n")
		if s.to < len(text) && text[s.to] == '\n' {
			win++
		}
	}
	move := func(line int) int {
		i := len(starts) - 1
		for i > 0 && starts[i].win > line {
			i--
		}
		return starts[i].text + line - starts[i].win
	}
	for i := range found {
		found[i].StartLine = move(found[i].StartLine)
		found[i].EndLine = move(found[i].EndLine)
	}
}

// hasFoldedPrefix tells whether s starts with word (lower case ASCII),
// ASCII letters compared without case.
func hasFoldedPrefix(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if fold(s[i]) != int(word[i]) {
			return false
		}
	}
	return true
}
