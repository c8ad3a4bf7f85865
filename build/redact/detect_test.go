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
	sc, err := newDetector(false)
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

// TestPrechecksLetSecretsThrough: every rule run apart finds, through
// the scanner, the secrets of its texts that the whole detector finds
// (and nothing else), also written in upper case, across lines, and with
// the characters (?i) takes for ASCII letters; the near misses beside
// them find what gitleaks finds.
func TestPrechecksLetSecretsThrough(t *testing.T) {
	sc, err := newDetector(false)
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeDetector(t)
	hex := func(n int) string { return strings.Repeat("9f3a1c7e5b2d8", n/13+1)[:n] }
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n", 3) + "-----END RSA PRIVATE KEY-----"
	texts := map[string][]string{
		"curl-auth-header": {
			`curl -X GET https://api.example.com/v1 -H "Authorization: Bearer q8Zr2Lx7Wp4Nv9Tb3Kc6" -o out`,
			"curl https://api.example.com \\\n  -H 'X-Api-Key: q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1'\n",
			"curl https://api.example.com\t--header=\"Token: q8Zr2Lx7Wp4Nv9Tb3Kc6\" ",
			`curl -s https://x.example.com -H "Authorization: Basic cXVpbmN5OnE4WnIyTHg3V3A0TnY5" `,
			"curl -H \"Api-\u212aey: q8Zr2Lx7Wp4Nv9Tb3Kc6\" https://x.example.com ",
		},
		"curl-auth-user": {
			"curl -u admin:q8Zr2Lx7Wp4N https://x.example.com/api",
			"curl https://x.example.com \\\n  --user \"bob:Wp4Nv9Tb3Kc6\" -d x\n",
		},
		"private-key": {pem, "key:\n" + pem + "\nok", strings.Replace(pem, "PRIVATE KEY", "PRIVATE \u212aEY", 2)},
		"authress-service-client-access-key": {
			"AUTHRESS=sc_a8f3k2m9x7.q4w8.acc_9f3a1c7e5b2d8f4a.q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0GyQ8Zr2Lx7 ",
			"ext_a8f3k2m9x7.q4w8.acc-9f3a1c7e5b2d8f4a.q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0GyQ8Zr2Lx7\n",
		},
		"octopus-deploy-api-key": {"OCTOPUS_KEY=API-Q8ZR2LX7WP4NV9TB3KC6HJ1MD5 ", "API-Q8ZR2LX7WP4NV9TB3KC6HJ1MD5\n"},
		"mailgun-key":            {"MAILGUN=key-" + hex(32) + " ", "key-" + hex(32)},
		"cloudflare-origin-ca-key": {
			"CF_ORIGIN=v1.0-" + hex(24) + "-" + hex(146) + " ",
		},
	}
	misses := []string{
		"curl https://x.example.com", "curl -H 'Accept: text/plain' https://x.example.com",
		"curl-H \"Authorization: Bearer q8Zr2Lx7Wp4Nv9Tb3Kc6\"", "CURL -H \"Authorization: Bearer q8Zr2Lx7Wp4Nv9Tb3Kc6\"",
		"curl https://x.example.com?-u=admin:q8Zr2Lx7Wp4N", "git push -u origin main && curl x",
		"-----BEGIN CERTIFICATE-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END CERTIFICATE-----",
		"sc_a8f3k2m9x7.q4w8.ACC_9f3a1c7e5b2d8f4a.q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0GyQ8Zr2Lx7 ",
		"api-Q8ZR2LX7WP4NV9TB3KC6HJ1MD5 ", "API-Q8ZR2LX7WP4NV9TB3KC6HJ1M ", "key-" + hex(31) + " ", "KEY-" + hex(32),
		"v1.0-" + hex(23) + "-" + hex(146),
		// Rules bound to file paths find nothing in a text, which has none.
		"kind: Secret\ndata:\n  password: cTh6cjJseDd3cDRudjl0YjM=\n",
		`administrator_login_password = "q8Zr2Lx7Wp4Nv9Tb"`,
	}
	bound := 0
	for id, rule := range whole.Config.Rules {
		if !pathBound(rule) {
			continue
		}
		bound++
		for _, d := range append([]*detect.Detector{sc.main, sc.long}, func() (ds []*detect.Detector) {
			for _, g := range sc.gated {
				ds = append(ds, g.det)
			}
			for _, r := range sc.split {
				ds = append(ds, r.det)
			}
			return ds
		}()...) {
			if d == nil {
				continue
			}
			if _, ok := d.Config.Rules[id]; ok {
				t.Errorf("%s is bound to paths, but the scanner runs it", id)
			}
		}
	}
	if bound < 2 {
		t.Errorf("%d rules bound to paths: kubernetes-secret-yaml and hashicorp-tf-password are, at least", bound)
	}
	for id, ts := range texts {
		if _, ok := prechecks[id]; !ok {
			t.Errorf("%s is not run apart", id)
		}
		for _, text := range ts {
			for _, v := range []string{text, strings.ToUpper(text), "a line before\n" + text + "\nand after",
				strings.ReplaceAll(text, "\n", "\f"), strings.Repeat("filler line\n", 50) + text} {
				sameFindings(t, sc, whole, v)
			}
			found := false
			for _, f := range sc.DetectString(text) {
				found = found || f.RuleID == id
			}
			if !found {
				t.Errorf("%s: nothing found in %q", id, text)
			}
		}
	}
	for _, text := range misses {
		sameFindings(t, sc, whole, text)
		sameFindings(t, sc, whole, strings.ToUpper(text))
	}
}
