package redact

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refWindower is a windower's keywords as cut found them before it
// hashed three and four bytes and looked for line ends and lowersToASCII
// apart (by pairs of bytes, then three, in one loop).
type refWindower struct {
	pairs, short [1 << 16 / 64]uint64
	tris         [1 << 20 / 64]uint64
	first        [1 << 16]uint16
	lists        [][]keyword
}

func refTri(pair, c int) uint {
	return uint(uint32(pair<<8|c)*0x9e3779b1) >> (32 - 20)
}

func newRefWindower(w *windower) *refWindower {
	r := &refWindower{first: w.first, lists: w.lists}
	for _, g := range w.lists {
		for _, k := range g {
			i := fold(k.word[0])<<8 | fold(k.word[1])
			r.pairs[i/64] |= 1 << (i % 64)
			if len(k.word) == 2 {
				r.short[i/64] |= 1 << (i % 64)
			} else {
				t := refTri(i, int(lower[k.word[2]]))
				r.tris[t/64] |= 1 << (t % 64)
			}
		}
	}
	return r
}

// cutRef is cut's scan as it was (see refWindower), its windows written
// as cut writes them: what cut must return.
func (w *refWindower) cutRef(text string) (cut string, spans []span, long bool) {
	if w == nil {
		return text, nil, true
	}
	if len(text) < 2 {
		return "", nil, false
	}
	// Lines are numbered as the scan goes; a window is lines lo to hi.
	sp := lineStarts.Get().(*[]int)
	defer lineStarts.Put(sp)
	var (
		starts = (*sp)[:0] // of each line but the first
		wins   [][2]int
	)
	defer func() { *sp = starts[:0] }()
	prev := int(lower[text[0]])
	for i := 1; i < len(text); i++ {
		switch text[i-1] {
		case '\n', '\f':
			starts = append(starts, i)
		case 0xc4, 0xc5, 0xe2: // the first byte of each of lowersToASCII
			for _, s := range lowersToASCII {
				if strings.HasPrefix(text[i-1:], s) {
					return text, nil, true
				}
			}
		}
		pair := prev<<8 | int(lower[text[i]])
		prev = pair & 0xff
		if w.pairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		if w.short[pair/64]&(1<<(pair%64)) == 0 {
			if i+1 == len(text) {
				continue
			}
			if t := refTri(pair, int(lower[text[i+1]])); w.tris[t/64]&(1<<(t%64)) == 0 {
				continue
			}
		}
		g := w.first[pair]
		for _, k := range w.lists[g-1] {
			if !hasFoldedPrefix(text[i-1:], k.word) {
				continue
			}
			if k.long {
				long = true
			}
			if len(k.uses) == 0 || k.uses[0].group != 0 { // the main group's windows
				continue
			}
			line, n := len(starts), k.uses[0].lines
			if m := len(wins); m > 0 && wins[m-1][0] <= line-n && line+n <= wins[m-1][1] {
				continue
			}
			wins = append(wins, [2]int{line - n, line + n})
		}
	}
	if len(wins) == 0 {
		return "", nil, long
	}
	cut, spans = writeWindows(text, wins, starts)
	return cut, spans, long
}

// TestCutAsBefore: cut returns what cutRef does on every text the
// redactor scans in the corpus ($CCSITE_CORPUS), and on those texts
// changed: cut short, joined, with line ends, form feeds, upper case and
// the characters that make a text go whole put in at random places.
func TestCutAsBefore(t *testing.T) {
	r := newRedactor(t)
	w := r.det.win
	ref := newRefWindower(w)
	texts := append(corpusTexts(t, r), "", "k", "ke", "key", "\nkey\n", "\fpassword\f", "a\u212aey", "\u0130", "xxſ")
	rng := rand.New(rand.NewPCG(1, 2))
	bits := []string{"\n", "\f", "\n\n", "KEY", "Token", "pass", "\u0130", "\u017f", "\u212a", "\xc4", "\xe2", "secret=", "\x00"}
	n := len(texts)
	for i := range n {
		s := texts[i]
		if len(s) == 0 {
			continue
		}
		for range 3 {
			b := []byte(s)
			at := rng.IntN(len(b) + 1)
			b = slices.Insert(b, at, []byte(bits[rng.IntN(len(bits))])...)
			texts = append(texts, string(b))
		}
		texts = append(texts, s[:rng.IntN(len(s))], strings.ToUpper(s), s+texts[rng.IntN(n)])
	}
	for _, s := range texts {
		got, gotSpans, gotLong := w.cut(s)
		want, wantSpans, wantLong := ref.cutRef(s)
		if got != want || !slices.Equal(gotSpans, wantSpans) || gotLong != wantLong {
			t.Fatalf("cut(%.200q) = %.200q %v %v, want %.200q %v %v", s, got, gotSpans, gotLong, want, wantSpans, wantLong)
		}
	}
	t.Logf("%d texts", len(texts))
}

// BenchmarkCut: cut, and the scan it replaced (ref), over every text the
// redactor scans in the corpus.
func BenchmarkCut(b *testing.B) {
	r := newRedactor(b)
	texts := corpusTexts(b, r)
	size := 0
	for _, s := range texts {
		size += len(s)
	}
	ref := newRefWindower(r.det.win)
	for _, c := range []struct {
		name string
		cut  func(string) (string, []span, bool)
	}{{"hash", r.det.win.cut}, {"ref", ref.cutRef}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, s := range texts {
					c.cut(s)
				}
			}
		})
	}
}

// base64RunsRef is base64Runs as it was, byte by byte.
func base64RunsRef(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if b64Class[s[i]] == 0 || b64Class[s[i]] == 4 {
			i++
			continue
		}
		start := i
		var seen byte
		for i < len(s) && b64Class[s[i]] != 0 && b64Class[s[i]] != 4 {
			seen |= 1 << b64Class[s[i]]
			i++
		}
		for k := 0; k < 2 && i < len(s) && s[i] == '='; k++ {
			i++
		}
		if i-start >= minBase64 && seen&(1<<1) != 0 && seen&(1<<2) != 0 {
			out = append(out, [2]int{start, i})
		}
	}
	return out
}

// TestBase64RunsAsBefore: base64Runs, which skips, finds what a scan of
// every byte finds, on the corpus' scanned texts and on random strings of
// base64 characters, padding and breaks.
func TestBase64RunsAsBefore(t *testing.T) {
	r := newRedactor(t)
	texts := corpusTexts(t, r)
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aAzZ09+/-_==.  \n"
	for range 200000 {
		b := make([]byte, rng.IntN(80))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) > 0 && i > 0 {
				b[i] = b[i-1]&^0x20 | byte(rng.IntN(2))<<5 // runs of letters
				if b64Class[b[i]] == 0 {
					b[i] = 'q'
				}
			}
		}
		texts = append(texts, string(b))
	}
	withRuns := 0
	for _, s := range texts {
		got, want := base64Runs(s), base64RunsRef(s)
		if !slices.Equal(got, want) {
			t.Fatalf("base64Runs(%.300q) = %v, want %v", s, got, want)
		}
		if len(want) > 0 {
			withRuns++
		}
	}
	if withRuns < 1000 {
		t.Errorf("only %d of %d texts hold a run: the test no longer tests", withRuns, len(texts))
	}
	t.Logf("%d texts, %d with runs", len(texts), withRuns)
}

// TestCutsAsApart: one scan's windows for each group of rules (cuts) are
// what a windower of that group alone cuts, on every text the redactor
// scans in the corpus ($CCSITE_CORPUS) and on those texts upper-cased.
func TestCutsAsApart(t *testing.T) {
	r := newRedactor(t)
	sc := r.det
	alone := []*windower{}
	w, _ := newWindower(ruleGroup{rules: sc.main.Config.Rules})
	alone = append(alone, w)
	for _, g := range sc.gated {
		w, _ := newWindower(ruleGroup{rules: g.det.Config.Rules, gate: gates[g.id].gate})
		alone = append(alone, w)
	}
	texts := append(corpusTexts(t, r), "api_key = Zx9QwErTy8UiOp7AsDfGh\nnothing\fpassword: hunter2hunter", "token")
	windows := 0
	for _, s := range append(texts, strings.ToUpper(strings.Join(texts[:min(len(texts), 200)], "\n"))) {
		for g, a := range alone {
			got, gotSpans, _ := sc.win.cutGroup(s, g)
			want, wantSpans, _ := a.cut(s)
			if got != want || !slices.Equal(gotSpans, wantSpans) {
				t.Fatalf("group %d of %.200q: %.200q %v, alone %.200q %v", g, s, got, gotSpans, want, wantSpans)
			}
			if got != "" {
				windows++
			}
		}
	}
	if windows < 3 {
		t.Errorf("only %d windows cut: the texts no longer hold keywords", windows)
	}
	t.Logf("%d texts, %d windows", len(texts), windows)
}
