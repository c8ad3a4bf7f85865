package markup

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// memoLexer is a lexer whose tokens of each text are kept.
type memoLexer struct {
	chroma.Lexer
	toks map[string][]chroma.Token
}

func (m memoLexer) Tokenise(opts *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	toks, ok := m.toks[text]
	if !ok {
		var err error
		if toks, err = chroma.Tokenise(m.Lexer, opts, text); err != nil {
			return nil, err
		}
		m.toks[text] = toks
	}
	return chroma.Literator(toks...), nil
}

// sameHandTokens fails t (up to ten times) for each text scan takes whose
// tokens are not ref's, coalesced as highlighting uses them.
func sameHandTokens(t *testing.T, ref chroma.Lexer, texts []string, scan func(string) ([]chroma.Token, bool)) {
	t.Helper()
	bad := 0
	for _, s := range texts {
		got, ok := scan(s)
		if !ok {
			continue
		}
		want := tokens(t, ref, s)
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		if i == len(got) && i == len(want) {
			continue
		}
		if bad++; bad <= 10 {
			t.Errorf("%.200q: token %d: %v, chroma %v", s, i, got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
		}
	}
}

// handShare logs how many of name's texts, and of their bytes, scanned
// takes by hand (and a few it hands to chroma), and fails t when it takes
// fewer than half of them.
func handShare(t *testing.T, name string, texts []string, scanned func(string) bool) {
	t.Helper()
	if len(texts) == 0 {
		return
	}
	n, size, sizeHand := 0, 0, 0
	for i, s := range texts {
		size += len(s)
		if scanned(s) {
			n++
			sizeHand += len(s)
		} else if i-n < 5 {
			t.Logf("%s: handed to chroma: %.120q", name, s)
		}
	}
	t.Logf("%s: %d of %d texts scanned by hand (%.1f%%; %.1f%% of %d bytes)", name, n, len(texts),
		100*float64(n)/float64(len(texts)), 100*float64(sizeHand)/float64(size), size)
	if n < len(texts)/2 {
		t.Errorf("%s: only %d of %d texts scanned by hand", name, n, len(texts))
	}
}

// textSet gathers up to limit distinct texts, as highlighting gets them
// (the final newline cut).
type textSet struct {
	seen  map[string]bool
	out   []string
	limit int
}

func newTextSet(limit int) *textSet { return &textSet{seen: map[string]bool{}, limit: limit} }

func (ts *textSet) full() bool { return len(ts.out) >= ts.limit }

func (ts *textSet) add(s string) {
	s = strings.TrimSuffix(s, "\n")
	if s != "" && !ts.seen[s] && !ts.full() {
		ts.seen[s] = true
		ts.out = append(ts.out, s)
	}
}

// fenced adds the code of each fenced block of text in one of langs.
func (ts *textSet) fenced(text string, langs ...string) {
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		for _, l := range langs {
			if strings.EqualFold(m[1], l) {
				ts.add(m[2])
				break
			}
		}
	}
}
