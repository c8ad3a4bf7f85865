//go:build gore2regex

package redact

import (
	"ccsite/internal/randtext"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	re2 "github.com/wasilibs/go-re2"
)

// TestGenericAnchored: generic-api-key's expression matched anchored
// where it can start (anchoredGeneric) finds what RE2 finds unanchored,
// and gives the same submatches, on the windows the corpus
// ($CCSITE_CORPUS) cuts for it, on texts built at the expression's bounds
// (runs of [\w.-] of 49 to 51 bytes before a keyword, keywords in a run,
// matches side by side), on texts that go to RE2 whole (the Kelvin sign,
// invalid UTF-8), and with a limit on the matches.
func TestGenericAnchored(t *testing.T) {
	expr := gates["generic-api-key"].expr
	hooked, plain := anchoredGeneric(expr), re2.MustCompile(expr)
	if hooked == nil {
		t.Fatal("no anchored expression")
	}
	r := newRedactor(t)
	sc := r.det
	g := slices.IndexFunc(sc.gated, func(g gatedRule) bool { return g.id == "generic-api-key" })
	var texts []string
	for _, text := range corpusTexts(t, r) {
		if c, _, _ := sc.win.cutGroup(text, g+1); c != "" {
			texts = append(texts, c)
		}
	}
	rnd := rand.New(rand.NewPCG(4, 28))
	run := func(n int) string { return randtext.Of(rnd, identBytes, n) }
	values := []string{"Zx9QwErTy8UiOp7AsDfGh", "q8Zr2Lx7Wp4Nv9Tb3Kc6", "abc", "ab+cd/ef+gh/ij+kl/mn==", strings.Repeat("Qw9/", 200)}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for k := rnd.IntN(4) + 1; k > 0; k-- {
			b.WriteString(pick(rnd, []string{"", " ", "\n", "x=1 ", "(", "\"", "\f"}))
			b.WriteString(run(rnd.IntN(4) * 17))
			b.WriteString(pick(rnd, []string{"api", "KEY", "token", "Secret", "passwd", "password", "creds", "credential", "auth", "access", "apikey", "key_token"}))
			b.WriteString(pick(rnd, []string{"", "_id", "s", " "}))
			b.WriteString(pick(rnd, []string{"=", ": ", " = ", "=>", ":::=", ",", " is "}))
			b.WriteString(pick(rnd, []string{"", "\"", "'", "  "}))
			b.WriteString(pick(rnd, values))
			b.WriteString(pick(rnd, []string{"", "\"", ";", "\n", " ", "\\n"}))
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, "api_key=Zx9QwErTy8UiOp7AsDfGh \u212a", "api_key=Zx9QwErTy8UiOp7AsDfGh \xff", "my_\u017fecret=Zx9QwErTy8UiOp7AsDfGh ", "")
	matches := 0
	for _, s := range texts {
		for _, n := range []int{-1, 1, 2} {
			got, want := hooked.FindAllStringIndex(s, n), plain.FindAllStringIndex(s, n)
			if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Fatalf("FindAllStringIndex(%.300q, %d): anchored %v, RE2 %v", s, n, got, want)
			}
			if n < 0 {
				matches += len(want)
			}
		}
		for _, m := range plain.FindAllStringIndex(s, -1) {
			sec := strings.Trim(s[m[0]:m[1]], "\n")
			if got, want := hooked.FindStringSubmatch(sec), plain.FindStringSubmatch(sec); !slices.Equal(got, want) {
				t.Fatalf("FindStringSubmatch(%q): hooked %q, RE2 %q", sec, got, want)
			}
		}
	}
	if matches < 2000 {
		t.Errorf("only %d matches: the texts no longer hold what the rule matches", matches)
	}
	t.Logf("%d texts, %d matches", len(texts), matches)
}

func pick[T any](rnd *rand.Rand, s []T) T { return s[rnd.IntN(len(s))] }

// identBytes are bytes of [\w.-], for the runs a match of generic-api-key
// or a semi-generic rule may start with.
const identBytes = "abcXYZ019_.-"
