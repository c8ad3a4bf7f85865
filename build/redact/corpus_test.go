package redact

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"ccsite/internal/corpustest"
)

// TestCorpusFalsePositives runs the redactor over every line of the real
// corpus ($CCSITE_CORPUS), which holds no live credential: what it finds
// is mostly false positives (SSH fingerprints in logs, test keys, key
// regexes in code). It logs the counts by rule and a sample, and fails
// when they grow past the bound the issue set (88).
func TestCorpusFalsePositives(t *testing.T) {
	r := newRedactor(t)
	type hit struct{ file, rule, text string }
	var hits []hit
	files := corpustest.EachLine(t, func(p string, in []byte) {
		out := r.Line(p, in)
		if string(out) == string(in) {
			return
		}
		s := string(out)
		for i := 0; ; {
			j := strings.Index(s[i:], "[REDACTED:")
			if j < 0 {
				break
			}
			j += i
			k := strings.IndexByte(s[j:], ']')
			from, to := max(0, j-60), min(len(s), j+k+30)
			hits = append(hits, hit{filepath.Base(p), s[j+10 : j+k], s[from:to]})
			i = j + k
		}
	})
	byRule, _ := r.Counts()
	total := 0
	var rules []string
	for k, n := range byRule {
		total += n
		rules = append(rules, k)
	}
	sort.Strings(rules)
	for _, k := range rules {
		t.Logf("%-28s %d", k, byRule[k])
	}
	t.Logf("%d redactions in %d files", total, files)
	seen := map[string]int{}
	for _, h := range hits {
		if seen[h.rule] < 12 {
			seen[h.rule]++
			t.Logf("%s %s: …%s…", h.rule, h.file, strings.ReplaceAll(h.text, "\n", `\n`))
		}
	}
	// The corpus's keys cut short (private-key-cut) are the head of a
	// real OpenSSH key a session printed: secrets, not false positives.
	secrets := total - byRule["image-metadata"] - byRule["image-withheld"] - byRule["private-key-cut"]
	if secrets > 88 {
		t.Errorf("%d redactions on the corpus (88 before the command-line, cookie and .netrc rules): false positives grew", secrets)
	}
}
