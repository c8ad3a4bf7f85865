package redact

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// scanner runs gitleaks' rules over a text and finds what one detector
// with all of them finds, for less:
//   - the rules whose keywords are everywhere in transcripts (jwt's "ey",
//     vault's "s.") but whose expressions need a rarer shape (ey…17
//     letters….ey) are run, by a detector of their own, only on a text
//     that has that shape (prechecks, each a necessary condition of its
//     expression matching);
//   - gitleaks' last step (a generic finding that a specific one on the
//     same line holds is dropped) is done again over all the findings.
type scanner struct {
	main *detect.Detector
	// win cuts a text down for main (its group 0) and for each of
	// gated (group i+1), in one scan.
	win   *windower
	long  *detect.Detector // the rules win cannot cut a text for, if it is set
	split []splitRule
	gated []gatedRule
}

// gatedRule is a rule run apart on windows of its own (see gates).
type gatedRule struct {
	id  string
	det *detect.Detector
}

// splitRule is a rule run apart, only on texts its precheck lets through.
type splitRule struct {
	det   *detect.Detector
	maybe func(text string) bool
}

// prechecks are the rules run apart: for each, the expression the test
// was written for (another, from a newer gitleaks, keeps the rule with
// the others) and a test every text the expression matches in passes.
var prechecks = map[string]struct {
	expr  string
	maybe func(string) bool
}{
	"vault-service-token": {
		`\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:[\x60'"\s;]|\\[nr]|$)`,
		func(s string) bool { return strings.Contains(s, "hvs.") || vaultShort(s) },
	},
	"jwt": {
		`\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)(?:[\x60'"\s;]|\\[nr]|$)`,
		func(s string) bool { return runBefore(s, ".ey", 19) },
	},
	"twilio-api-key": {
		`SK[0-9a-fA-F]{32}`,
		func(s string) bool { return runAfter(s, "SK", 32, isHex) },
	},
	"lob-api-key": {
		`(?i)[\w.-]{0,50}?(?:lob)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}((live|test)_[a-f0-9]{35})(?:[\x60'"\s;]|\\[nr]|$)`,
		func(s string) bool { return runAfter(s, "_", 35, isHex) },
	},
	// The rules below have keywords common in transcripts ("curl",
	// "-----begin", "ext_", "api-", "key-") and expressions that need a
	// rarer literal. The literals looked for without case hold no k or
	// s, the letters (?i) also reads in a character of more than one byte
	// (the Kelvin sign, the long s).
	"curl-auth-header": {
		`\bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})[ \t\n\r](?:-H|--header)(?:=|[ \t]{0,5})(?:"(?i)(?:Authorization:[ \t]{0,5}(?:Basic[ \t]([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,}))|(?:(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token)):[ \t]{0,5}([\w=~@.+/-]{8,}))"|'(?i)(?:Authorization:[ \t]{0,5}(?:Basic[ \t]([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,}))|(?:(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token)):[ \t]{0,5}([\w=~@.+/-]{8,}))')(?:\B|\s|\z)`,
		// "curl", -H or --header after a space or line end, and a
		// header name ending the way Authorization, Key and Token end,
		// before its colon.
		func(s string) bool {
			return strings.Contains(s, "curl") && (spaceBefore(s, "-H") || spaceBefore(s, "--header")) &&
				(containsFold(s, "on:") || containsFold(s, "ey:") || containsFold(s, "en:"))
		},
	},
	"curl-auth-user": {
		`\bcurl\b(?:.*|.*(?:[\r\n]{1,2}.*){1,5})[ \t\n\r](?:-u|--user)(?:=|[ \t]{0,5})("(:[^"]{3,}|[^:"]{3,}:|[^:"]{3,}:[^"]{3,})"|'([^:']{3,}:[^']{3,})'|((?:"[^"]{3,}"|'[^']{3,}'|[\w$@.-]+):(?:"[^"]{3,}"|'[^']{3,}'|[\w${}@.-]+)))(?:\s|\z)`,
		func(s string) bool {
			return strings.Contains(s, "curl") && (spaceBefore(s, "-u") || spaceBefore(s, "--user"))
		},
	},
	"private-key": {
		`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----`,
		func(s string) bool { return containsFold(s, "private ") },
	},
	"authress-service-client-access-key": {
		`\b((?:sc|ext|scauth|authress)_(?i)[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.(?-i:acc)[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120})(?:[\x60'"\s;]|\\[nr]|$)`,
		func(s string) bool { return strings.Contains(s, ".acc_") || strings.Contains(s, ".acc-") },
	},
	"octopus-deploy-api-key": {
		`\b(API-[A-Z0-9]{26})(?:[\x60'"\s;]|\\[nr]|$)`,
		func(s string) bool { return runAfter(s, "API-", 26, isUpperOrDigit) },
	},
	"mailgun-key": {
		`\b(key-[0-9a-f]{32})\b`,
		func(s string) bool { return runAfter(s, "key-", 32, isLowerHex) },
	},
	"cloudflare-origin-ca-key": {
		`\b(v1\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[\x60'"\s;]|\\[nr]|$)`,
		func(s string) bool { return runAfter(s, "v1.0-", 24, isLowerHex) },
	},
}

// gates are the rules run apart on windows of their own, each opened at
// a keyword of the rule only where the text after it can go on as the
// expression does (the expression the gate was written for; another, from
// a newer gitleaks, keeps the rule with the others). gitleaks'
// generic-api-key costs more than all its other rules together: its
// keywords ("key", "token", "access", "auth") are in most texts, each
// opening a window of up to nine lines either side, and RE2 runs its
// expression at ~10 MB/s; but a keyword is seldom followed, within a few
// bytes, by an assignment and ten bytes of a value. ccsite's
// password-assignment has the same keywords, and needs a name running on
// to an assignment after them.
var gates = map[string]struct {
	expr string
	gate func(text string, end int) int
}{
	"generic-api-key": {
		expr: `(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)`,
		gate: genericGate,
	},
	"password-assignment": {
		expr: `(?i)(?:^|[^a-z0-9])[a-z0-9_.-]*?` +
			`(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|account[_.-]?key|` +
			`auth[_.-]?key|sharedaccesskey|credentials?|client[_.-]?secret)[a-z0-9_.-]*` +
			`["'\x60]?(?:[ \t]*(?:=|:=|:|=>|\|\|=)[ \t]*|\t+)` +
			`(?:"([^"\r\n\f]{6,})"|'([^'\r\n\f]{6,})'|([^\s"'\x60;,&<>]{6,}))`,
		gate: passwordGate,
	},
}

// genericGate is generic-api-key's gate. A match holds one of its
// keywords (each a keyword of the rule's), then at most 23 bytes of
// (?:[ \t\w.-]{0,20})[\s'"]{0,3}, then an assignment (=, >, :, ||,
// ?=, ",", at most four bytes: :::=), then at most five bytes of
// [\x60'"\s=]{0,5}, then ten bytes or more of a value ([\w.=-] or
// [a-z0-9+/]); the match starts on the keyword's line ([\w.-] holds no
// line end) and its value ends on the line of the assignment's
// surroundings (a value holds none either). So a keyword ending at end
// can be a match's when the bytes after it are at most 23 of those gaps
// then an assignment's first byte, and a run of ten value bytes starts
// within nine bytes after that; it returns the line ends from the
// keyword to the last byte that run can start at. A byte of a multi-byte
// character counts as a gap and as a value byte: under (?i) [a-z] takes
// the Kelvin sign and the long s.
func genericGate(text string, end int) int {
	j := end
	for j < len(text) && j-end < 23 && genericGap[text[j]] {
		j++
	}
	if j == len(text) || !genericOp[text[j]] { // no gap byte is one
		return -1
	}
	run := 0
	for k := j + 1; k < len(text) && k <= j+18; k++ {
		if !genericValue[text[k]] {
			run = 0
			continue
		}
		if run++; run == 10 {
			return lineEndCount(text[end : j+9]) // k-9 <= j+9 < k
		}
	}
	return -1
}

// passwordGate is password-assignment's gate (ccsite's rule, rules.go).
// Each of its names ends with one of its keywords or goes on from one
// with [a-z0-9_.-]; after the name, a quote may close it, then an
// assignment (=, :=, :, =>, ||= after spaces or tabs) or tabs alone.
// The name holds no line end, nor does the value: the match is on the
// keyword's line (the byte before the name may be the line end before
// it, which a window holds).
func passwordGate(text string, end int) int {
	j := end
	for j < len(text) && passwordName[text[j]] {
		j++
	}
	if j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == '`') {
		j++
	}
	if j < len(text) && text[j] == '\t' {
		return 0
	}
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j < len(text) && (text[j] == '=' || text[j] == ':' || text[j] == '|') {
		return 0
	}
	return -1
}

// byteSet is a set of bytes, with every byte of a multi-byte character.
func byteSet(ascii string) (t [256]bool) {
	for i := range t {
		t[i] = i >= 0x80 || i >= '0' && i <= '9' || i >= 'a' && i <= 'z' || i >= 'A' && i <= 'Z'
	}
	for i := range t[:0x80] {
		if strings.IndexByte(ascii, byte(i)) >= 0 {
			t[i] = true
		}
	}
	return t
}

var (
	// genericGap: [ \t\w.-] and [\s'"] (RE2's \s: \t \n \f \r space).
	genericGap = byteSet("_.- \t\n\f\r'\"")
	// genericValue: [\w.=-] and [a-z0-9+/].
	genericValue = byteSet("_.=-+/")
	// passwordName: [a-z0-9_.-] under (?i).
	passwordName = byteSet("_.-")
	// genericOp: an assignment's first byte.
	genericOp = func() (t [256]bool) {
		for _, c := range []byte("=>:|?,") {
			t[c] = true
		}
		return t
	}()
)

// vaultShort tells whether s may hold a short vault token as the rule
// has it: \bs\.(?i:[a-z0-9]{24})(?:[\x60'"\s;]|\\[nr]|$). After a
// word boundary, "s." and 24 ASCII letters and digits then one of those
// ends; a multi-byte character in the run may be one of the letters
// (ſ, the Kelvin sign), which the test lets through.
func vaultShort(s string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '.')
		if j < 0 {
			return false
		}
		dot := i + j
		i = dot + 1
		if dot == 0 || s[dot-1] != 's' || dot >= 2 && isWordByte(s[dot-2]) {
			continue
		}
		n, wide := 0, false
		for k := dot + 1; k < len(s) && alnumOrWide(s[k]); k++ {
			n++
			wide = wide || s[k] >= 0x80
		}
		if n < 24 {
			continue
		}
		if wide {
			return true
		}
		if end := dot + 1 + n; n == 24 && (end == len(s) || strings.IndexByte("`'\"\t\n\f\r ;\\", s[end]) >= 0) {
			return true
		}
	}
}

// isWordByte: \w as RE2 has it.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// alnumOrWide: an ASCII letter or digit, or a byte of a multi-byte
// character (under (?i), [a-z] also takes ſ and the Kelvin sign).
func alnumOrWide(c byte) bool { return isAlnum(c) || c >= 0x80 }

// runAfter tells whether s holds sep followed by n bytes that are all in.
func runAfter(s, sep string, n int, in func(byte) bool) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], sep)
		if j < 0 {
			return false
		}
		k := i + j + len(sep)
		if len(s)-k >= n {
			ok := true
			for _, c := range []byte(s[k : k+n]) {
				if !in(c) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		i = i + j + 1
	}
}

// runBefore tells whether s holds sep right after n ASCII letters or
// digits.
func runBefore(s, sep string, n int) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], sep)
		if j < 0 {
			return false
		}
		k := i + j
		if k >= n {
			ok := true
			for _, c := range []byte(s[k-n : k]) {
				if !isAlnum(c) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		i = k + 1
	}
}

// newScanner makes the scanner of the rules of cfg.
func newScanner(cfg config.Config) *scanner {
	sc := &scanner{}
	mainCfg := cfg
	mainCfg.Rules = make(map[string]config.Rule, len(cfg.Rules))
	for id, rule := range cfg.Rules {
		if pathBound(rule) {
			continue
		}
		pc, ok := prechecks[id]
		if !ok || rule.Regex == nil || rule.Regex.String() != pc.expr || rule.Path != nil {
			mainCfg.Rules[id] = rule
			continue
		}
		one := cfg
		one.Rules = map[string]config.Rule{id: rule}
		one.OrderedRules = []string{id}
		one.Keywords = keywordsOf(one.Rules)
		sc.split = append(sc.split, splitRule{det: newDetectorOf(one), maybe: pc.maybe})
	}
	var groups []ruleGroup
	for _, id := range slices.Sorted(maps.Keys(gates)) {
		g := gates[id]
		rule, ok := mainCfg.Rules[id]
		if !ok || rule.Regex == nil || rule.Regex.String() != g.expr || rule.Path != nil || len(rule.RequiredRules) > 0 ||
			lineEnds(rule.Regex.String()) < 0 {
			continue
		}
		one := cfg
		one.Rules = map[string]config.Rule{id: rule}
		one.OrderedRules = []string{id}
		one.Keywords = keywordsOf(one.Rules)
		sc.gated = append(sc.gated, gatedRule{id: id, det: newDetectorOf(one)})
		groups = append(groups, ruleGroup{rules: one.Rules, gate: g.gate})
		delete(mainCfg.Rules, id)
	}
	// The rules whose matches can span any number of lines run on whole
	// texts, by a detector of their own; the others on windows of them.
	// The rules run apart are groups of their own, after the gated ones:
	// their prechecks run only on a text holding one of their keywords.
	for _, sr := range sc.split {
		groups = append(groups, ruleGroup{rules: sr.det.Config.Rules, whole: true})
	}
	var long map[string]config.Rule
	if sc.win, long = newWindower(append([]ruleGroup{{rules: mainCfg.Rules}}, groups...)...); len(long) > 0 {
		longCfg := mainCfg
		longCfg.Rules, longCfg.Keywords = long, keywordsOf(long)
		sc.long = newDetectorOf(longCfg)
		maps.DeleteFunc(mainCfg.Rules, func(id string, _ config.Rule) bool { _, ok := long[id]; return ok })
	}
	// The keywords of the rules run apart ("ey", "s.", "sk") are the
	// commonest: the main detector looks for its own rules' only.
	mainCfg.Keywords = keywordsOf(mainCfg.Rules)
	sc.main = newDetectorOf(mainCfg)
	return sc
}

// keywordsOf is the keywords of rules, lower case.
func keywordsOf(rules map[string]config.Rule) map[string]struct{} {
	out := map[string]struct{}{}
	for _, rule := range rules {
		for _, k := range rule.Keywords {
			out[strings.ToLower(k)] = struct{}{}
		}
	}
	return out
}

func newDetectorOf(cfg config.Config) *detect.Detector {
	det := detect.NewDetector(cfg)
	det.MaxDecodeDepth = 0
	// A "gitleaks:allow" comment is for a repository's authors to mark a
	// false positive; in a transcript it is text like any other, and
	// gitleaks would take it for the whole text the rules scan (all the
	// values of a record, on one line for it): one in a tool's output
	// would publish every secret beside it.
	det.IgnoreGitleaksAllow = true
	return det
}

// DetectString returns what a detector with all the rules finds in text.
func (sc *scanner) DetectString(text string) []report.Finding {
	var found []report.Finding
	var wins [maxGroups]window
	cuts := wins[:]
	if n := 1 + len(sc.gated) + len(sc.split); n > len(cuts) {
		cuts = make([]window, n)
	}
	long := sc.win.cuts(text, cuts)
	if t, spans := cuts[0].text, cuts[0].spans; t != "" {
		found = sc.main.DetectString(t)
		if spans != nil && len(found) > 0 {
			textLines(found, text, spans)
		}
	}
	more := false
	if long && sc.long != nil {
		if fs := sc.long.DetectString(text); len(fs) > 0 {
			more = len(found) > 0
			found = append(found, fs...)
		}
	}
	for i, g := range sc.gated {
		t, spans := cuts[i+1].text, cuts[i+1].spans
		if t == "" {
			continue
		}
		if fs := g.det.DetectString(t); len(fs) > 0 {
			if spans != nil {
				textLines(fs, text, spans)
			}
			more = more || len(found) > 0
			found = append(found, fs...)
		}
	}
	for i, sr := range sc.split {
		// The rule runs (as gitleaks would) only on a text holding one
		// of its keywords, and then only where its precheck passes.
		if cuts[1+len(sc.gated)+i].text != "" && sr.maybe(text) {
			if fs := sr.det.DetectString(text); len(fs) > 0 {
				more = more || len(found) > 0
				found = append(found, fs...)
			}
		}
	}
	if more {
		found = dropGeneric(found)
	}
	return found
}

// dropGeneric is gitleaks' filter: a generic rule's finding is dropped
// when another, not generic, rule found on the same line a secret that
// holds it.
func dropGeneric(found []report.Finding) []report.Finding {
	var out []report.Finding
	for _, f := range found {
		keep := true
		if strings.Contains(strings.ToLower(f.RuleID), "generic") {
			for _, g := range found {
				if f.StartLine == g.StartLine && f.Commit == g.Commit && f.RuleID != g.RuleID &&
					strings.Contains(g.Secret, f.Secret) && !strings.Contains(strings.ToLower(g.RuleID), "generic") {
					keep = false
					break
				}
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

func isUpperOrDigit(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
func isLowerHex(c byte) bool     { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// containsFold tells whether s holds word (lower case ASCII) with its
// ASCII letters in either case. Its search starts at the first byte of
// word that is not a letter, when there is one (":" in "ey:"), which is
// rarer in text than a letter.
func containsFold(s, word string) bool {
	at := strings.IndexFunc(word, func(r rune) bool { return r < 'a' || r > 'z' })
	if at < 0 {
		return containsFoldAt(s, word, 0, word[0]) || containsFoldAt(s, word, 0, word[0]-'a'+'A')
	}
	return containsFoldAt(s, word, at, word[at])
}

// containsFoldAt looks for word in s where byte at of word is c.
func containsFoldAt(s, word string, at int, c byte) bool {
	for i := at; i < len(s); {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return false
		}
		k := i + j - at
		if k+len(word) <= len(s) && hasFoldedPrefix(s[k:], word) {
			return true
		}
		i += j + 1
	}
	return false
}

// pathBound tells whether a rule can only find something in a file whose
// path it matches (kubernetes-secret-yaml's .yaml, hashicorp-tf-password's
// .tf): the scanner's texts have none (gitleaks' DetectString gives an
// empty path), so such a rule never fires on them, and its keywords
// ("secret", "password") would only open windows and whole-text scans
// for nothing. The path's expression is tried by Go's regexp: RE2's,
// compiled for one empty string, cost 37 ms of every build. One Go's
// regexp does not parse is taken to match (the rule is kept).
func pathBound(rule config.Rule) bool {
	if rule.Path == nil {
		return false
	}
	re, err := regexp.Compile(rule.Path.String())
	return err == nil && !re.MatchString("")
}

// spaceBefore tells whether s holds word right after a space, a tab or a
// line end ([ \t\n\r]).
func spaceBefore(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		if k := i + j; k > 0 && strings.IndexByte(" \t\n\r", s[k-1]) >= 0 {
			return true
		}
		i += j + 1
	}
}
