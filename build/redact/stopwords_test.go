package redact

import (
	"slices"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// TestLazyStopWords: rules made with lazy stop words (a build that scans a
// few lines) keep every allowlist's words and find what gitleaks' own
// configuration finds, on texts whose candidates stop words allow, on the
// scanner's own cases and on every text of the corpus ($CCSITE_CORPUS).
func TestLazyStopWords(t *testing.T) {
	full, err := loadDefaultConfig(false)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := loadDefaultConfig(true)
	if err != nil {
		t.Fatal(err)
	}
	words := func(cfg config.Config) (out []string) {
		add := func(where string, a *config.Allowlist) {
			w := slices.Clone(a.StopWords)
			slices.Sort(w)
			out = append(out, where+": "+strings.Join(w, " ")+" | "+a.Description)
		}
		for id, r := range cfg.Rules {
			for _, a := range r.Allowlists {
				add(id, a)
			}
		}
		for _, a := range cfg.Allowlists {
			add("global", a)
		}
		slices.Sort(out)
		return out
	}
	fw, lw := words(full), words(lazy)
	if !slices.Equal(fw, lw) {
		t.Fatalf("allowlists differ: %d with gitleaks' reading, %d lazy", len(fw), len(lw))
	}
	n := 0
	for _, w := range lw {
		if strings.Contains(w, stopStandIn) {
			t.Errorf("a stand-in is left: %.100q", w)
		}
		if !strings.Contains(w, ": |") {
			n++
		}
	}
	if n < 2 {
		t.Fatalf("only %d allowlists with stop words: nothing was tested", n)
	}
	// gitleaks' rules alone (ccsite's own would find these candidates
	// whatever the stop words say): candidates generic-api-key's stop
	// words allow ("about", "000000", "aaaaaa") and the same without them.
	fsc, lsc := newScanner(full), newScanner(lazy)
	texts := []string{
		`api_key = "about9Xk2Lq7Wz4Rt"`, `api_key = "Zk9Xk2Lq7Wz4Rt8Vb"`,
		`secret_token: aaaaaa7Kq2Zx9Wl4Pm`, `const apiKey = "xK9mQ2vL7pR4wT8zQ3";`,
		`client_secret=000000x7Kq2Zx9Wl4Pm`, `const apiKey = "xK9mQ2vL7pR4wT8zabout";`,
	}
	allowed := 0
	for _, s := range texts {
		a, b := findingKeys(fsc.DetectString(s)), findingKeys(lsc.DetectString(s))
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("%q: gitleaks' reading %v, lazy %v", s, a, b)
		}
		if len(a) == 0 {
			allowed++
		}
	}
	if allowed == 0 || allowed == len(texts) {
		t.Errorf("%d of %d texts found nothing: the stop words were not put to the test", allowed, len(texts))
	}
	// With ccsite's rules too (newScannerWithExtras adds them to the
	// configurations), as a build runs them.
	fsc, lsc = newScannerWithExtras(full), newScannerWithExtras(lazy)
	if !testing.Short() {
		corpus := corpusTexts(t, newRedactor(t))
		found := 0
		for _, s := range corpus {
			a, b := findingKeys(fsc.DetectString(s)), findingKeys(lsc.DetectString(s))
			found += len(a)
			if strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Errorf("corpus text %.200q: gitleaks' reading %v, lazy %v", s, a, b)
			}
		}
		t.Logf("%d corpus texts, %d findings, the same", len(corpus), found)
	}
}
