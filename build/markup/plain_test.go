package markup

import (
	"math/rand/v2"
	"testing"

	"ccsite/internal/corpustest"
	"ccsite/internal/randtext"
)

// goldmarkOf is what goldmark makes of src, by the renderer's own path
// (no fast path, no cache).
func goldmarkOf(r *Renderer, src string) string { return string(r.markdown(src)) }

// samePlain checks that a text plainParagraph takes renders as goldmark
// renders it, and says whether it was taken.
func samePlain(t *testing.T, r *Renderer, src string) bool {
	t.Helper()
	out, ok := plainParagraph(src)
	if !ok {
		return false
	}
	if want := goldmarkOf(r, src); string(out) != want {
		t.Errorf("plainParagraph(%q) = %q, goldmark %q", src, out, want)
	}
	return true
}

// TestPlainParagraph: texts the fast path takes render as goldmark
// renders them; texts with anything Markdown could make more of are left
// to goldmark.
func TestPlainParagraph(t *testing.T) {
	r := New(NewHighlighter())
	take := []string{"yes", "Continue", "Fix the tests, then commit.", `Say "hello" (twice) 50% / 2 = 25; ok?`,
		"Hello\nworld", "naïve café 日本語", "Ünïcode first", "\u00a0leading no-break space", "\u3000ideographic",
		"line\u2028separator", "emoji 🎉 ok", "I’m — here “quoted” …", "a  b   c", "x:y", "a-b+c=d",
		"first line\nsecond line\nthird"}
	for _, s := range take {
		if !samePlain(t, r, s) {
			t.Errorf("plainParagraph(%q) not taken", s)
		}
	}
	leave := []string{"", " lead", "trail ", "1. item", "- item", "# head", "> quote", "*em*", "a_b_", "`code`",
		"<b>", "a & b", "[x](y)", "a\\b", "~~s~~", "a | b", "see https://x.y", "www.example.com", "WWW.X.Y",
		"hard  \nbreak", "para\n\npara", "ends\n", "foo\n===", "foo\n---", "foo\n bar", "tab\there", "cr\r\n",
		"mail a@b.c", "bad \xff utf8", "2024 starts with a digit", "a!b", "a#b", "a*b"}
	for _, s := range leave {
		if _, ok := plainParagraph(s); ok {
			t.Errorf("plainParagraph(%q) taken", s)
		}
	}

	// Random texts over the characters the path takes and some it does
	// not: every one taken must be goldmark's.
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "Z", "q", "7", "0", " ", " ", ",", ".", "?", "'", `"`, "(", ")", "/", ";", "%",
		"$", "=", "+", "-", ":", "\n", "é", "日", "\u00a0", "\u3000", "\u2028", "\u0085", "\ufeff", "🎉", "’",
		"—", "\u0301", "w", "W", "*", "_", "&", "<", "#", "1.", "\t", "!", "[", "]", "|", "~", "@"}
	taken := 0
	for range 30000 {
		text := []string{"a", "B", "é", "x"}[rng.IntN(4)] + randtext.Join(rng, alphabet, 40)
		if samePlain(t, r, text) {
			taken++
		}
	}
	if taken < 1000 {
		t.Errorf("only %d of 30,000 random texts taken: the comparison tests little", taken)
	}
}

// FuzzPlainParagraph: whatever the fast path takes, goldmark renders the
// same.
func FuzzPlainParagraph(f *testing.F) {
	for _, s := range []string{"yes", "Hello\nworld", `a "b" c`, "日本 語"} {
		f.Add(s)
	}
	r := New(NewHighlighter())
	f.Fuzz(func(t *testing.T, s string) { samePlain(t, r, s) })
}

// TestPlainParagraphCorpus: every text of the corpus ($CCSITE_CORPUS) the
// fast path takes renders as goldmark renders it.
func TestPlainParagraphCorpus(t *testing.T) {
	r := New(NewHighlighter())
	taken, texts := 0, 0
	corpustest.EachObject(t, func(v map[string]any) {
		for _, k := range []string{"text", "content", "thinking", "prompt", "summary"} {
			if s, ok := v[k].(string); ok {
				texts++
				if samePlain(t, r, s) {
					taken++
				}
			}
		}
	})
	t.Logf("%d of %d texts taken by the fast path", taken, texts)
	if taken == 0 {
		t.Error("no corpus text taken")
	}
}

// BenchmarkPlainParagraph: a short message, by the fast path and by
// goldmark.
func BenchmarkPlainParagraph(b *testing.B) {
	const msg = `Please run the tests again and fix whatever fails; then update the "README" (setup section).`
	r := New(NewHighlighter())
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			plainParagraph(msg)
		}
	})
	b.Run("goldmark", func(b *testing.B) {
		for b.Loop() {
			r.markdown(msg)
		}
	})
}
