package markup

import (
	"errors"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"ccsite/internal/corpustest"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

const chromaModule = "github.com/alecthomas/chroma/v2"

// TestTwinChromaPinned fails when the chroma this module builds with is
// not the version the twins were checked against: a twin re-codes its
// lexer's rules, and a new chroma may change them.
func TestTwinChromaPinned(t *testing.T) {
	got, from := chromaVersion(t)
	t.Logf("chroma %s, from %s", got, from)
	if got != twinChroma {
		t.Fatalf("chroma is %s, but the twins (twin.go: Go, Python and Markdown lexed by hand) "+
			"were checked against %s. Re-check the twins against the new chroma: run "+
			"go test -tags gore2regex -run 'MatchesChroma|TwinsCorpus' ./build/markup/ "+
			"(with CCSITE_CORPUS set for the corpus), fix what differs, then set twinChroma to %s",
			got, twinChroma, got)
	}
}

// chromaVersion is the version of chroma in the build: from the binary's
// build information, else (a test binary's may list no modules) from
// go.mod, which must not replace it.
func chromaVersion(t *testing.T) (version, from string) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == chromaModule {
				if d.Replace != nil {
					t.Fatalf("chroma is replaced by %s %s", d.Replace.Path, d.Replace.Version)
				}
				return d.Version, "the build information"
			}
		}
	}
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "require" || f[0] == "replace") {
			if f[0] == "replace" && strings.Contains(line, chromaModule) {
				t.Fatalf("go.mod replaces chroma: %s", strings.TrimSpace(line))
			}
			f = f[1:]
		}
		if len(f) >= 2 && f[0] == chromaModule {
			version = f[1]
		}
	}
	if version == "" {
		t.Fatal("go.mod does not require chroma")
	}
	return version, "go.mod"
}

// twinLexer lexes as highlighting does (lexTokens: the twin where it is
// sure, else chroma's lexer, patient), for the comparisons.
type twinLexer struct {
	chroma.Lexer // chroma's, for its Config
	h            *Highlighter
}

func (l twinLexer) Tokenise(_ *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	toks, ok := l.h.lexTokens(l.Lexer, text)
	if !ok {
		return nil, errors.New("lexing failed")
	}
	return chroma.Literator(toks...), nil
}

// twinLexers are chroma's lexer called name as highlighting runs it (its
// twin first) and the reference: chroma's, patient (patient.go: a match
// may run for 2 s, so that the comparison holds on a loaded machine).
func twinLexers(t testing.TB, name, config string) (twin, ref chroma.Lexer) {
	t.Helper()
	base := lexers.Get(name)
	if base == nil || base.Config().Name != config {
		t.Fatalf("no %s lexer", config)
	}
	if twinOf(base) == nil {
		t.Fatalf("%s has no twin", config)
	}
	return twinLexer{base, NewHighlighter()}, patient(base)
}

// markupOf is the HTML of text lexed by l, and whether chroma placed all
// of it (no Error token).
func markupOf(t testing.TB, l chroma.Lexer, text string) (string, bool) {
	t.Helper()
	toks, err := chroma.Tokenise(l, nil, text)
	if err != nil {
		t.Fatalf("%.100q: %v", text, err)
	}
	out, how := writeCode(toks, text, 0)
	return out, how == lexClean
}

// tokens returns the tokens of l over text, each run of one type joined
// (what the page shows).
func tokens(t testing.TB, l chroma.Lexer, text string) []chroma.Token {
	t.Helper()
	toks, err := chroma.Tokenise(l, nil, text)
	if err != nil {
		t.Fatal(err)
	}
	return joined(toks)
}

// joined is toks, each run of one type one token, empty ones left out.
func joined(toks []chroma.Token) []chroma.Token {
	var out []chroma.Token
	for _, tok := range toks {
		if tok.Value == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Type == tok.Type {
			out[n-1].Value += tok.Value
			continue
		}
		out = append(out, tok)
	}
	return out
}

// sameMarkup checks that the twin's markup (and whether it is clean) is
// chroma's on each text, and returns how many texts scanned tells were
// scanned by hand.
func sameMarkup(t *testing.T, twin, ref chroma.Lexer, texts []string, scanned func(string) bool) int {
	t.Helper()
	taken := 0
	for _, s := range texts {
		if scanned(s) {
			taken++
		}
		got, gotClean := markupOf(t, twin, s)
		want, wantClean := markupOf(t, ref, s)
		if got != want || gotClean != wantClean {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%.300q: markup differs at byte %d (clean %v, chroma %v):\nhand:   …%.200q\nchroma: …%.200q", s, i, gotClean, wantClean, got[max(0, i-80):], want[max(0, i-80):])
		}
	}
	return taken
}

// sameHandTokens fails t (up to ten times) for each text scan takes whose
// tokens are not ref's, each run of one type joined.
func sameHandTokens(t *testing.T, ref chroma.Lexer, texts []string, scan func(string) ([]chroma.Token, bool)) {
	t.Helper()
	bad := 0
	for _, s := range texts {
		toks, ok := scan(s)
		if !ok {
			continue
		}
		got := joined(toks)
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

// withMutations adds to texts, for each (a window of 6 KB at most of the
// longer ones), a random tail of it and three copies with one of inserts
// put in at random: strings, comments and blocks left open or closed
// early. seed makes it the same every run.
func withMutations(texts []string, seed uint64, inserts []string) []string {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, s := range texts[:len(texts):len(texts)] {
		if len(s) < 2 {
			continue
		}
		if len(s) > 6<<10 {
			k := r.IntN(len(s) - 6<<10)
			s = s[k : k+6<<10]
		}
		texts = append(texts, s[r.IntN(len(s)):])
		for range 3 {
			k := r.IntN(len(s))
			texts = append(texts, s[:k]+inserts[r.IntN(len(inserts))]+s[k:])
		}
	}
	return texts
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

// benchLexers highlights text with a twin ("hand") and with chroma's
// rules ("chroma"), as sub-benchmarks.
func benchLexers(b *testing.B, text string, twin, ref chroma.Lexer) {
	for _, c := range []struct {
		name  string
		lexer chroma.Lexer
	}{{"hand", twin}, {"chroma", ref}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				markupOf(b, c.lexer, text)
			}
		})
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

// fence finds the code blocks of Markdown text: language and code.
var fence = regexp.MustCompile("(?ms)^```([\\w+#-]+)\\n(.*?)^```$")

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

// TestTwinsCorpus compares the twins with chroma's lexers (patient),
// token for token, on what the corpus ($CCSITE_CORPUS) has them
// highlight: the files its sessions write (by name) and the code blocks
// of their messages (by language), each under the highlighting limits.
func TestTwinsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	h := NewHighlighter()
	type block struct{ lang, name, code string }
	var blocks []block
	corpustest.EachObject(t, func(v map[string]any) {
		if name, ok := v["file_path"].(string); ok {
			if code, ok := v["content"].(string); ok {
				blocks = append(blocks, block{"", name, code})
			}
		}
		if text, ok := v["text"].(string); ok {
			for _, m := range fence.FindAllStringSubmatch(text, -1) {
				blocks = append(blocks, block{m[1], "", m[2]})
			}
		}
	})
	seen := map[string]bool{}
	compared, bad := map[string]int{}, 0
	for _, b := range blocks {
		code := strings.TrimSuffix(b.code, "\n")
		key := b.lang + "\x00" + b.name + "\x00" + code
		if seen[key] || len(code) > h.MaxBytes || strings.Count(code, "\n") >= h.MaxLines {
			continue
		}
		seen[key] = true
		l := h.pickLexer(b.lang, b.name)
		if twinOf(l) == nil {
			continue
		}
		want, got := tokens(t, patient(l), code), tokens(t, twinLexer{l, h}, code)
		compared[l.Config().Name]++
		same := len(want) == len(got)
		for i := 0; same && i < len(want); i++ {
			same = want[i] == got[i]
		}
		if !same {
			if bad++; bad <= 5 {
				t.Errorf("%s %s (%d bytes): %d tokens, want %d", l.Config().Name, b.name, len(code), len(got), len(want))
			}
		}
	}
	total := 0
	for _, n := range compared {
		total += n
	}
	if total < 200 {
		t.Errorf("only %d blocks compared", total)
	}
	t.Logf("blocks compared %v, %d differ", compared, bad)
}
