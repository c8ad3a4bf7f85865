package redact

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
	"github.com/zricethezav/gitleaks/v8/report"
)

// TestLowersToASCII: lowersToASCII is every character whose lower case,
// as gitleaks lowers a text before looking for keywords, holds an ASCII
// byte, or that case folding (an expression's (?i)) takes for an ASCII
// letter.
func TestLowersToASCII(t *testing.T) {
	var want []string
	for r := rune(utf8.RuneSelf); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		ascii := false
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			ascii = ascii || f < utf8.RuneSelf
		}
		if l := strings.ToLower(string(r)); ascii || strings.IndexFunc(l, func(c rune) bool { return c < utf8.RuneSelf }) >= 0 {
			want = append(want, string(r))
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(lowersToASCII) {
		t.Errorf("lowersToASCII = %q, want %q", lowersToASCII, want)
	}
	for _, s := range lowersToASCII {
		if s[0] != 0xc4 && s[0] != 0xc5 && s[0] != 0xe2 {
			t.Errorf("cut does not look for %q (first byte %#x)", s, s[0])
		}
	}
}

func TestLineEnds(t *testing.T) {
	for expr, want := range map[string]int{
		`abc`:                     0,
		`a\sb`:                    1,
		`a[\s'"]{0,3}b`:           3,
		`a.{0,20}b`:               20, // . takes a form feed
		`(?s)a.{0,2}b`:            2,
		`a\s+b`:                   -1,
		`a[^x]*b`:                 -1,
		`a(?:\n|\f\f)b`:           2,
		`(a\s?|b\s{2})c`:          2,
		`[\w.-]{0,50}?key\s*=\s*`: -1,
		`a(`:                      -1,
	} {
		if got := lineEnds(expr); got != want {
			t.Errorf("lineEnds(%q) = %d, want %d", expr, got, want)
		}
	}
}

// TestWindows: cut keeps the lines around each keyword, as many before and
// after as its rules' matches can span, and what is around them as the
// rules see it; a keyword of a rule without a bound asks for the whole
// text, as does a character gitleaks lowers to a keyword's letter.
func TestWindows(t *testing.T) {
	r := newRedactor(t)
	w := r.det.win
	if w == nil {
		t.Fatal("no windower")
	}
	filler := strings.Repeat("nothing to see\f", 40)
	text := filler + "my CLOUDFLARE_KEY = abc" + "\f" + filler
	cut, spans, long := w.cut(text)
	if long || len(spans) != 1 {
		t.Fatalf("cut: %d spans, long %v", len(spans), long)
	}
	if !strings.Contains(cut, "my CLOUDFLARE_KEY = abc") || len(cut) >= len(text)/2 {
		t.Errorf("cut %q", cut)
	}
	// The window's edges are line ends (form feeds here), kept as they are,
	// with a NUL past them.
	if !strings.HasPrefix(cut, "\x00\fnothing") || !strings.HasSuffix(cut, "see\f\x00") {
		t.Errorf("edges of %q", cut)
	}
	lines := strings.Count(cut, "\f") - 2
	if lines%2 != 0 || lines < 2 {
		t.Errorf("%d lines around the keyword's", lines)
	}
	if cut, _, _ := w.cut(filler); cut != "" {
		t.Errorf("no keyword, but cut %q", cut)
	}
	// The rules whose matches span any number of lines are all run apart
	// today (prechecks); a windower given one still scans its texts whole.
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	curl := cfg.Rules["curl-auth-user"]
	if lineEnds(curl.Regex.String()) >= 0 {
		t.Fatalf("curl-auth-user has a bound: %s", curl.Regex)
	}
	lw, longRules := newWindower(ruleGroup{rules: map[string]config.Rule{"curl-auth-user": curl, "cloudflare-api-key": cfg.Rules["cloudflare-api-key"]}})
	if _, ok := longRules["curl-auth-user"]; !ok || len(longRules) != 1 {
		t.Errorf("long rules %v, want curl-auth-user", slices.Collect(maps.Keys(longRules)))
	}
	if cut, _, long := lw.cut(filler + "curl -u a:b x\f" + filler); !long {
		t.Errorf("curl (curl-auth-user's, no bound) not long: %q", cut)
	}
	if _, _, long := lw.cut(filler + "cloudflare: x\f" + filler); long {
		t.Errorf("cloudflare (bound) long")
	}
	if _, _, long := w.cut(filler + "curl -u a:b x\f" + filler); long {
		t.Errorf("curl long in the scanner's windower, whose rules all have a bound")
	}
	for _, c := range []string{"my API_\u212aEY = abc\f", "my_\u017fecret = abc\f"} {
		if cut, _, _ := w.cut(filler + c + filler); cut != filler+c+filler {
			t.Errorf("%q: cut %q", c, cut)
		}
	}
	// Two keywords far apart: two windows, apart.
	two := "sentry = x\f" + filler + "cloudflare: y"
	cut, spans, _ = w.cut(two)
	if len(spans) != 2 || strings.Count(cut, "\f\x00\f") != 1 || !strings.HasPrefix(cut, "sentry = x\f") ||
		!strings.HasSuffix(cut, "\fcloudflare: y") || len(cut) >= len(two) {
		t.Errorf("two windows: %d spans, %q", len(spans), cut)
	}
}

// TestWindowsFindAsWhole: the scanner finds on windows what gitleaks'
// detector finds on the whole text, at the same lines, for secrets at the
// start, middle and end of long texts, next to others, across lines.
func TestWindowsFindAsWhole(t *testing.T) {
	sc, err := newDetector(false)
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeDetector(t)
	scannerFound = 0
	filler := strings.Repeat("some log line with nothing in it\n", 30)
	secrets := []string{
		"STRIPE_KEY=" + stripe,
		"aws " + awsID,
		"password = \"wjoNyAcXpmiAdgEik\"",
		"my_api_key = \"q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0Gy\"",
		"my_api_key =\n\n   \"q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0Gy\"",
		"-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n", 5) + "-----END RSA PRIVATE KEY-----",
		"import { token } from 'x'\ntoken = \"q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0Gy\"",
	}
	for _, s := range secrets {
		for _, text := range []string{s, filler + s, s + "\n" + filler, filler + s + "\n" + filler, filler + s + "\n" + filler + s + filler} {
			for _, t2 := range []string{text, strings.ReplaceAll(text, "\n", "\f")} {
				sameFindings(t, sc, whole, t2)
			}
		}
	}
	// A match whose keyword is there only as (?i) reads it: "ſecret"
	// (long s), far from the keyword that has the rule run.
	for _, text := range []string{
		"token: none\n" + filler + "my_\u017fecret = \"q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0Gy\"\n",
		"token: none\f" + strings.ReplaceAll(filler, "\n", "\f") + "my_\u017fecret = \"q8Zr2Lx7Wp4Nv9Tb3Kc6Hj1Md5Fs0Gy\"\f",
	} {
		before := scannerFound
		sameFindings(t, sc, whole, text)
		if scannerFound == before {
			t.Errorf("nothing found in %.60q…: the text no longer holds the secret it should", text)
		}
	}
	if scannerFound < len(secrets)*5 {
		t.Errorf("only %d findings: the texts no longer hold the secrets they should", scannerFound)
	}
}

// TestWindowsShortInsideLong: a two-byte keyword that starts one byte
// into a longer keyword ("ab" in "xabc") is found with it, in order (a
// scan that took the two-byte one first counted line ends backwards).
func TestWindowsShortInsideLong(t *testing.T) {
	rule := func(id, expr string, kw ...string) config.Rule {
		return config.Rule{RuleID: id, Regex: glregexp.MustCompile(expr), Keywords: kw}
	}
	w, long := newWindower(ruleGroup{rules: map[string]config.Rule{
		"long":  rule("long", `xabc\s?=\s?\w+`, "xabc"),
		"short": rule("short", `ab:\w+`, "ab"),
	}})
	if w == nil || len(long) != 0 || len(w.shorts) != 1 {
		t.Fatalf("windower %v, long %v", w, long)
	}
	filler := strings.Repeat("nothing to see\n", 20)
	for _, text := range []string{"xabc = 1", filler + "xabc = 1\n" + filler, filler + "ab:1 xabc\n" + filler + "ab:2\n" + filler} {
		cut, spans, _ := w.cut(text)
		if cut == "" || len(spans) == 0 && cut != text {
			t.Errorf("%.40q: no window", text)
			continue
		}
		for _, s := range spans {
			if s.from > s.to || s.to > len(text) {
				t.Errorf("%.40q: span %v", text, s)
			}
		}
		for _, k := range []string{"xabc", "ab:2"} {
			if strings.Contains(text, k) && !strings.Contains(cut, k) {
				t.Errorf("%.40q: %q not in the windows %q", text, k, cut)
			}
		}
	}
}

// TestGenericGate: generic-api-key, run on the windows its gate opens,
// finds what gitleaks' detector finds on the whole text, for texts made
// of the expression's parts at and past their bounds (23 bytes between
// keyword and assignment, four-byte assignments, five bytes before the
// value, values of nine to eleven bytes, line ends in the gaps, multi-byte
// characters, keywords in any case), among lines that hold keywords and no
// match.
func TestGenericGate(t *testing.T) {
	sc, err := newDetector(false)
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeDetector(t)
	rnd := rand.New(rand.NewPCG(20, 26))
	pick := func(s []string) string { return s[rnd.IntN(len(s))] }
	keywords := []string{"access", "auth", "api", "Api", "API", "aPI", "credential", "creds", "key", "KEY", "passwd", "password", "PassWord", "secret", "token", "Tokens"}
	gapBytes := []string{" ", "\t", "a", "Z", "9", "_", ".", "-", "\n", "\r", "'", "\"", "\f", "é", "\u212a"}
	ops := []string{"=", ">", ":", "::=", ":::=", "||", "=>", "?=", ",", "?", "|", ";", "=="}
	skips := []string{"", " ", "\"", "'", "`", "=", "\n", "  \"", "\t\t\t\t\t", " \n \n ", "======"}
	value := func() string {
		const alnum = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
		n := 14 + rnd.IntN(30) // fewer bytes than 13 fall short of the rule's entropy
		if rnd.IntN(4) == 0 {
			n = 9 + rnd.IntN(4)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rnd.IntN(len(alnum))]
		}
		if rnd.IntN(5) == 0 {
			b[rnd.IntN(n)] = ".=-+/_"[rnd.IntN(6)]
		}
		return string(b)
	}
	ends := []string{"", " ", "\n", ";", "\"", "`", `\n`, ")", "!"}
	noise := []string{
		"the api is down", "token, which expires", "keyboard: none", "access denied for user", "auth => ok",
		"secret-less mode = on", "a line with nothing", "credential helper", "key\n\n\n\n= x",
	}
	found := 0
	// At the bounds: gaps of 20 bytes of [ \t\w.-] and 3 of [\s'"], one
	// more, spaces both take; every assignment; five bytes before values of
	// nine to thirteen bytes.
	for _, gap := range []string{
		strings.Repeat("a", 20) + " \n'", strings.Repeat("a", 21) + " \n'", strings.Repeat("a", 20) + " \n''",
		strings.Repeat("a", 18) + "     ", strings.Repeat("a", 18) + "      ", strings.Repeat(" ", 23), strings.Repeat(" ", 24),
		"\n\n\n", "\n\n\n\n", "",
	} {
		for _, op := range ops {
			for _, skip := range []string{"", "\n\n\n\n\n", "\n\n\n\n\n\n", "`'\" ="} {
				for _, v := range []string{"Zx9QwErTy", "Zx9QwErTy8", "Zx9QwErTy8U", "Zx9QwErTy8Ui", "Zx9QwErTy8UiOp7As"} {
					for _, sep := range []string{"\n", "\f"} {
						text := "token: none" + sep + "api" + gap + op + skip + v + sep + "key\n\n\n\n= x"
						before := scannerFound
						sameFindings(t, sc, whole, text)
						found += scannerFound - before
					}
				}
			}
		}
	}
	for i := 0; i < 4000; i++ {
		gap := ""
		for n := rnd.IntN(26); n > 0; n-- {
			gap += pick(gapBytes)
		}
		m := pick([]string{"", "my_", "x.", "AWS-"}) + pick(keywords) + gap + pick(ops) + pick(skips) + value() + pick(ends)
		text := amidNoise(rnd, m, noise, 6)
		before := scannerFound
		sameFindings(t, sc, whole, text)
		found += scannerFound - before
		if t.Failed() {
			break
		}
	}
	if found < 700 {
		t.Errorf("only %d findings (856 when written): the texts no longer hold what the rule matches", found)
	}
}

// TestGenericGateLineAllowlist: gitleaks lets generic-api-key's finding go
// when its line holds an import (import { a } from 'b'); to gitleaks a
// line of a text the redactor makes is the whole text (its line ends are
// form feeds), so an import anywhere in a file read let every generic
// secret of the file through. On the gate's windows the line is the
// window's (the keyword's lines): a secret lines away from an import is
// found, one on the import's line is let go as before.
func TestGenericGateLineAllowlist(t *testing.T) {
	sc, err := newDetector(false)
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeDetector(t)
	has := func(fs []report.Finding) bool {
		for _, f := range fs {
			if f.RuleID == "generic-api-key" {
				return true
			}
		}
		return false
	}
	// Run alone: ccsite's password-assignment finds these secrets too,
	// and the scanner then drops generic-api-key's findings.
	g := slices.IndexFunc(sc.gated, func(g gatedRule) bool { return g.id == "generic-api-key" })
	if g < 0 {
		t.Fatal("generic-api-key is not gated")
	}
	gated := func(text string) []report.Finding {
		cut, _, _ := sc.win.cutGroup(text, g+1)
		return sc.gated[g].det.DetectString(cut)
	}
	apart := "import { a } from 'b'\fconst x = 1\fapi_key: Zx9QwErTy8UiOp7AsDfGh\f"
	if !has(gated(apart)) || has(whole.DetectString(apart)) {
		t.Errorf("apart: gated %v, whole %v", gated(apart), whole.DetectString(apart))
	}
	same := "import { a } from 'b'; api_key: Zx9QwErTy8UiOp7AsDfGh\f"
	if has(gated(same)) || has(whole.DetectString(same)) {
		t.Errorf("same line: gated %v, whole %v", gated(same), whole.DetectString(same))
	}
}

// amidNoise is line m among fewer than n lines of noise, at random, the
// lines joined by line ends or form feeds.
func amidNoise(rnd *rand.Rand, m string, noise []string, n int) string {
	var lines []string
	for k := rnd.IntN(n); k > 0; k-- {
		lines = append(lines, noise[rnd.IntN(len(noise))])
	}
	lines = slices.Insert(lines, rnd.IntN(len(lines)+1), m)
	return strings.Join(lines, []string{"\n", "\f"}[rnd.IntN(2)])
}

// TestPasswordGate: password-assignment, run on the windows its gate
// opens, finds what gitleaks' detector with every rule finds on the whole
// text, for names of each keyword with and without quotes, every
// assignment after spaces and tabs, tabs alone, values quoted and not,
// long and too short, next to lines with keywords and no assignment.
func TestPasswordGate(t *testing.T) {
	sc, err := newDetector(false)
	if err != nil {
		t.Fatal(err)
	}
	whole := wholeDetector(t)
	rnd := rand.New(rand.NewPCG(28, 11))
	pick := func(s []string) string { return s[rnd.IntN(len(s))] }
	names := []string{"password", "db_Password", "PASSWD", "passphrase", "pwd", "my.secret", "client-secret", "Token", "api_key", "APIKEY",
		"access.key", "private_key_file", "sharedAccessKey", "credentials", "credential9", "passes", "keychain", "pass", "x\u017fecret_z", "token.prod", "key.v2"}
	quotes := []string{"", "", "\"", "'", "`"}
	ops := []string{"=", ":=", ":", "=>", "||=", "\t", "\t\t", "|", "==", "-", ""}
	spaces := []string{"", " ", "  ", "\t", " \t "}
	values := []string{"hunter2hunter", "\"s3cr3tV4lue\"", "'s3cr3tV4lue'", "abc", "\"abc\"", "Zx9QwErTy8UiOp7AsDfGh", "`nope`", "ab;cdefgh", "=abcdefg", "\"line\fbreak\""}
	noise := []string{"the key is here", "token, which expires", "password reset link sent", "secret sauce", "a line with nothing"}
	found := 0
	for i := 0; i < 3000; i++ {
		m := pick([]string{"", " ", "(", "export ", "\""}) + pick(names) + pick(quotes) + pick(spaces) + pick(ops) + pick(spaces) + pick(values)
		text := amidNoise(rnd, m, noise, 5)
		before := scannerFound
		sameFindings(t, sc, whole, text)
		found += scannerFound - before
		if t.Failed() {
			break
		}
	}
	if found < 600 {
		t.Errorf("only %d findings (729 when written): the texts no longer hold what the rule matches", found)
	}
}
