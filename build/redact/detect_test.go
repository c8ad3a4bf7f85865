package redact

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"ccsite/internal/corpustest"

	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// wholeDetector is gitleaks' detector with all the rules, as the scanner
// stands for.
func wholeDetector(t testing.TB) *detect.Detector {
	t.Helper()
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range extraRules {
		cfg.Rules[r.RuleID] = r
		cfg.OrderedRules = append(cfg.OrderedRules, r.RuleID)
		for _, k := range r.Keywords {
			cfg.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return newDetectorOf(cfg)
}

var scannerFound int

// findingKeys is what redaction takes of findings: the rule, the secret,
// the match, and the line (dropGeneric's). Not the columns: the scanner
// runs rules on windows of a text, and a line of a text the redactor
// makes is often the whole text (its line ends are form feeds to the
// rules), so columns are offsets in the windows. Not the end line either:
// gitleaks leaves it at the start line when no line end follows the match
// in the text it scans, and a window often ends sooner than the text.
func findingKeys(fs []report.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s|%d|%q|%q", f.RuleID, f.StartLine, f.Secret, f.Match))
	}
	sort.Strings(out)
	return out
}

// sameFindings fails when the scanner and the whole detector find
// different things in text.
func sameFindings(t *testing.T, sc *scanner, whole *detect.Detector, text string) {
	t.Helper()
	a, b := findingKeys(sc.DetectString(text)), findingKeys(whole.DetectString(text))
	scannerFound += len(b)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("text %.200q:\nscanner %v\nwhole   %v", text, a, b)
	}
}

func TestScannerSameAsDetector(t *testing.T) {
	sc, err := newDetector()
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeDetector(t)
	scannerFound = 0
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	for _, text := range []string{
		"", "nothing here", "token: " + jwt, jwt, "x " + jwt + " y",
		"VAULT_TOKEN=hvs.CAESIJlU9JMYEhOPYv4IGbm8Q8aTDkXbCH9wbhJtAL2GTf5YGh4KHGh2cy5Xa3BxQkNqVXpWa3ZCRlhTTjFldnVuVW0 end",
		"vault token s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4 done", "s.abcdefghijklmnopqrstuvwx", "\u212a s.ſbcdefghijklmnopqrstuvw x",
		"twilio SK0123456789abcdef0123456789abcdef ok", "api_key = SK0123456789abcdef0123456789abcdef",
		"lob_key = test_0123456789abcdef0123456789abcdef012 ", "LOB: live_0123456789abcdef0123456789abcdef012\n",
		"password = \"hunter2hunter\" and ghp_" + strings.Repeat("aB3", 12),
		"generic api_key=Zx9QwErTy8UiOp7AsDfGh and SK0123456789abcdef0123456789abcdef and s.Zx9QwErTy8UiOp7AsDfGh123",
		"KEY İ \u212aey ſecret",
		"x s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4;", `s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4\n`, "(s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4)", "s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4X ",
		"_s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4 ", "s.Ab3De6Gh9Jk2Mn5Pq8St1V\u212a4 ", "é.s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4\f\x00\f",
	} {
		sameFindings(t, sc, whole, text)
		sameFindings(t, sc, whole, strings.ToUpper(text))
	}
	if len(sc.split) != len(prechecks) {
		t.Errorf("%d rules run apart, want %d (has gitleaks changed their expressions?)", len(sc.split), len(prechecks))
	}
	if len(sc.gated) != len(gates) {
		t.Errorf("%d rules run on gated windows, want %d (has gitleaks changed their expressions?)", len(sc.gated), len(gates))
	}
	if scannerFound < 8 {
		t.Errorf("only %d findings: the texts no longer hold the secrets they should", scannerFound)
	}
}

// TestScannerCorpus compares the scanner with the whole detector on every
// text the redactor scans in the corpus ($CCSITE_CORPUS).
func TestScannerCorpus(t *testing.T) {
	r := newRedactor(t)
	texts := corpusTexts(t, r)
	whole := wholeDetector(t)
	for _, text := range texts {
		sameFindings(t, r.det, whole, text)
	}
	t.Logf("%d texts compared", len(texts))
}

// corpusTexts redacts every line of the corpus ($CCSITE_CORPUS) with r and
// returns the texts its rules scanned.
func corpusTexts(t testing.TB, r *Redactor) []string {
	t.Helper()
	var mu sync.Mutex
	var texts []string
	scanHook = func(s string) { mu.Lock(); texts = append(texts, s); mu.Unlock() }
	defer func() { scanHook = nil }()
	corpustest.EachLine(t, func(_ string, l []byte) { r.Line("f", l) })
	return texts
}
