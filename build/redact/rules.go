package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

// Version names the redaction rules and the way they are applied. Caches
// of redacted text are salted with it: text a leakier version let through
// must never be served again. Raise it whenever a change lets the
// redactor find something it did not, or changes what the cache keeps of a
// line: 3 keeps lines as redacted beside the clean ones, which a reader of
// version 2 (a value there meant "clean") would serve unredacted; 4 takes
// a password's value whole, past 1,000 bytes, after a name of any length;
// 5 finds passwords given to commands, cookies, .netrc, keys cut short,
// wrapped base64 and what HTML and JSON escapes hid.
// (Each binary's keys are its own already; the file's name keeps the
// versions apart even so.)
const Version = "5"

// extraRules are ccsite's rules beside gitleaks' defaults, for the shapes
// people paste and tools print that no default rule catches: HTTP
// authorization headers, assignments of passwords, secrets and tokens in
// code, .env files, YAML and connection strings, and Azure signatures.
// Each has a validator (see accept) that turns down placeholders and code
// that merely names a secret.
var extraRules = append(slices.Clip(ownRules), shapeRules...)

// ownRules are the first of extraRules: headers, assignments, key ids.
var ownRules = []config.Rule{
	{
		RuleID:      "authorization-basic",
		Description: "HTTP Basic credentials (base64 of user:password)",
		Regex:       glregexp.MustCompile(`(?i)\bbasic(?:[ \t]+|\+)([a-z0-9+/]{8,}={0,2})(?:[^a-z0-9+/=]|$)`),
		SecretGroup: 1,
		Keywords:    []string{"basic"},
	},
	{
		RuleID:      "authorization-bearer",
		Description: "An HTTP bearer token",
		Regex:       glregexp.MustCompile(`(?i)\bbearer(?:[ \t]+|\+)([a-z0-9\-._~+/]{16,}=*)`),
		SecretGroup: 1,
		Entropy:     3,
		Keywords:    []string{"bearer"},
	},
	{
		RuleID:      "password-assignment",
		Description: "A password, secret, token or key assigned a literal value",
		// No part of it is counted ({0,40}, {6,1000}, as it was): RE2
		// builds a DFA state for each count it may be at, and those
		// bounds cost about one CPU-second in every process that
		// redacted, before its first finding. Without them a name may be
		// longer (db_password_of_the_production_server=…) and a value is
		// taken whole (one past 1,000 bytes was cut there, its tail left
		// in the page). A value ends at a line's end, and the scanned
		// text writes line ends as form feeds (writeLoosened): \f ends a
		// quoted value too.
		Regex: glregexp.MustCompile(`(?i)(?:^|[^a-z0-9])[a-z0-9_.-]*?` +
			`(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|account[_.-]?key|` +
			`auth[_.-]?key|sharedaccesskey|credentials?|client[_.-]?secret)[a-z0-9_.-]*` +
			`["'\x60]?(?:[ \t]*(?:=|:=|:|=>|\|\|=)[ \t]*|\t+)` +
			`(?:"([^"\r\n\f]{6,})"|'([^'\r\n\f]{6,})'|([^\s"'\x60;,&<>]{6,}))`),
		Keywords: []string{"pass", "pwd", "secret", "token", "key", "credential"},
	},
	{
		// gitleaks' aws-access-token asks for an entropy a real key id
		// may fall short of (AKIAI2J2WUKOK22W2MWW).
		RuleID:      "aws-key-id",
		Description: "An AWS access key id",
		Regex:       glregexp.MustCompile(`\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`),
		SecretGroup: 1,
		Entropy:     2.5,
		Keywords:    []string{"a3t", "akia", "asia", "abia", "acca"},
	},
	{
		RuleID:      "mailgun-key",
		Description: "A Mailgun private API key on its own (key-<32 hex>)",
		Regex:       glregexp.MustCompile(`\b(key-[0-9a-f]{32})\b`),
		SecretGroup: 1,
		Keywords:    []string{"key-"},
	},
	{
		RuleID:      "azure-sas-signature",
		Description: "The signature of an Azure shared access signature URL",
		Regex:       glregexp.MustCompile(`(?i)[?&]sig=([a-z0-9%+/]{30,}(?:%3d|=){0,2})`),
		SecretGroup: 1,
		Keywords:    []string{"sig="},
	},
}

var (
	// rePlaceholder finds values that stand for a secret rather than
	// being one.
	rePlaceholder = regexp.MustCompile(`(?i)your[-_ ]|example|placeholder|change[-_]?me|redacted|dummy|sample|insert[-_]|replace[-_]|(?-i:xxxx|XXXX)|\*\*\*|\.\.\.|…|<|>|^(?:null|none|nil|true|false|undefined|str|string|int|bool|required|optional|secret|password|passwd|token|bearer|basic|value|empty|default|test|todo)$`)
	// reIdent is a name as people write them: snake_case, CONSTANT,
	// camelCase, PascalCase, maybe with a number at the end.
	reIdent = regexp.MustCompile(`^[$_]*(?:[a-z][a-z_]*|[A-Z][A-Z_]*|[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z][a-z]+)+)[0-9]{0,2}$`)
	// reWordy is a name made of letters and underscores only: in code an
	// identifier, not a literal.
	reWordy = regexp.MustCompile(`^[A-Za-z_]+$`)
)

// accept is the validator of ccsite's own rules: false for a finding that
// is a placeholder, a reference (an environment variable, a template) or
// code. gitleaks' rules keep their own allow lists.
func accept(rule, secret, match string) bool {
	switch rule {
	case "authorization-basic":
		dec, err := base64.StdEncoding.DecodeString(secret)
		if err != nil {
			dec, err = base64.RawStdEncoding.DecodeString(secret)
		}
		return err == nil && utf8.Valid(dec) && strings.Contains(string(dec), ":") && printable(string(dec)) &&
			!rePlaceholder.MatchString(string(dec))
	case "authorization-bearer":
		return !rePlaceholder.MatchString(secret) && !strings.HasPrefix(secret, "$")
	case "password-assignment":
		return acceptAssigned(secret, match)
	}
	if isShapeRule(rule) {
		return acceptShape(rule, secret, match)
	}
	return true
}

// acceptAssigned says whether the value of a name = value assignment is a
// literal secret.
func acceptAssigned(v, match string) bool {
	if len(v) < 6 || rePlaceholder.MatchString(v) || fake(v) || reMeasure.MatchString(v) || refName(match, v) {
		return false
	}
	switch v[0] {
	case '$', '%', '{', '#', '@', '(', '[', '!', '?', '&', '|', '*', '\\', '-', '.', '=', ':':
		// ${VAR}, %VAR%, {{ template }}, #comment, @Value, a flag.
		return false
	}
	if strings.Contains(v, "/") && !strings.ContainsAny(v, "+=") && !randomParts(v) {
		// A path (/run/secrets/db, logs/<uuid>.jsonl), unless its parts
		// look random (a base64 key may hold a "/").
		return false
	}
	if strings.ContainsAny(v, " \t") || !strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		// Words; dates, counts, ranges and ports.
		return false
	}
	if v[len(v)-1] == '-' || v[len(v)-1] == '_' || reAssignment.MatchString(v) {
		// A prefix alone (sk-ant-api03-), another assignment (token=).
		return false
	}
	quoted := strings.HasSuffix(match, `"`) || strings.HasSuffix(match, `'`)
	if quoted {
		// A quoted word of lower-case letters is a label or a mode
		// ("bearer", "readonly"), not a secret.
		return !(len(v) < 12 && strings.ToLower(v) == v && reWordy.MatchString(v))
	}
	// Unquoted: code unless it looks like a literal.
	if i := strings.LastIndex(match, v); i > 0 && match[i-1] == ':' {
		// name:value with no space is a reference (file.css:12,
		// Class::method, a URL scheme), not YAML.
		return false
	}
	if strings.ContainsAny(v, "()[]{}") || reFilePath.MatchString(v) {
		return false
	}
	// Where no code can stand, a name-like value is a literal all the
	// same: a URL's query or a connection string (?…&password=…;), an
	// environment file (POSTGRES_PASSWORD=…), a table (name<TAB>value).
	return literalContext(match, v) || !codePath(v)
}

// reMeasure is a number with a unit: a time, a size, a count (404µs,
// 1.5GB, 12ms/op), which a timing table prints after a name holding
// "token" or "key".
var reMeasure = regexp.MustCompile(`^[0-9][0-9.,_]*(?:µs|μs|[a-zA-Z%]{1,5})?(?:/[a-z]{1,4})?$`)

// refNameParts are the last words of names that name or point to a secret
// rather than hold one: Kubernetes' secretName and secretKeyRef, a
// tokenPath, a password_file, a token_type.
var refNameParts = map[string]bool{"name": true, "names": true, "ref": true, "refs": true, "file": true, "files": true,
	"path": true, "paths": true, "type": true, "types": true, "arn": true, "url": true, "uri": true, "endpoint": true,
	"env": true, "var": true, "field": true, "label": true, "title": true, "length": true, "len": true, "size": true,
	"count": true, "prefix": true, "suffix": true, "format": true, "mode": true, "policy": true, "provider": true,
	"version": true, "hint": true, "header": true, "param": true, "kind": true, "class": true, "method": true,
	"ttl": true, "expiry": true, "expires": true, "lifetime": true, "usage": true, "limit": true, "store": true,
	"dir": true, "folder": true, "location": true, "source": true, "selector": true, "template": true, "usages": true}

// refName tells whether the name the assignment match gives value v to
// names a secret rather than holds one (secretName: tls-cert).
func refName(match, v string) bool {
	i := strings.LastIndex(match, v)
	if i <= 0 {
		return false
	}
	name := strings.TrimRight(match[:i], " \t\"'`=:>|")
	j := len(name)
	for j > 0 && (isAlnum(name[j-1]) || name[j-1] == '_' || name[j-1] == '.' || name[j-1] == '-') {
		j--
	}
	name = name[j:]
	// The last word: after the last _ . - or lower-to-upper change.
	k := len(name)
	for k > 0 {
		c := name[k-1]
		if c == '_' || c == '.' || c == '-' {
			break
		}
		if c >= 'A' && c <= 'Z' && k >= 2 && name[k-2] >= 'a' && name[k-2] <= 'z' {
			k--
			break
		}
		k--
	}
	return refNameParts[strings.ToLower(name[k:])]
}

// literalContext tells whether the assignment match ends in value v in a
// place where values are literals, never code.
func literalContext(match, v string) bool {
	i := strings.LastIndex(match, v)
	if i <= 0 {
		return false
	}
	before := strings.TrimRight(match[:i], " ")
	if before == "" {
		return false
	}
	sep := before[len(before)-1]
	if sep == '\t' {
		return true
	}
	if sep != '=' {
		return false
	}
	name := strings.TrimRight(before[:len(before)-1], " \t\"'`")
	j := len(name)
	for j > 0 && (isAlnum(name[j-1]) || name[j-1] == '_' || name[j-1] == '.' || name[j-1] == '-') {
		j--
	}
	if j > 0 && strings.IndexByte("?&;", name[j-1]) >= 0 {
		return true
	}
	n := name[j:]
	return n != "" && strings.Trim(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" && strings.ToUpper(n) == n
}

// randomParts tells whether p, a value with slashes, reads as random
// rather than as a path: a run of letters and digits of it looks random,
// or all of it without the slashes is long and mixes upper and lower case
// and digits (an AWS secret key: wJalr/XUtnF/EMI…).
func randomParts(p string) bool {
	if _, n := randomTokens(p); n > 0 {
		return true
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; !isAlnum(c) && c != '/' {
			return false // a path with names in it, not base64
		}
	}
	joined := strings.ReplaceAll(p, "/", "")
	upper, lower, digit := false, false, false
	for i := 0; i < len(joined); i++ {
		switch c := joined[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	_, n := randomTokens(joined)
	return len(joined) >= 20 && upper && lower && digit && n > 0
}

// codePath tells whether v reads as code: a name or a dotted path of
// names (password, userPassword, DB_PASSWORD, self.secret_key,
// req.body.token), not a random literal (oMZxFNIRTYavIDMLBIXN).
func codePath(v string) bool {
	for _, part := range strings.Split(v, ".") {
		if !identLike(part) {
			return false
		}
	}
	return true
}

// identLike tells whether s is a name as people write them, not random
// letters that happen to fall into camel case (nBcvXufhzKerxEdXjncg,
// GyyauvkgWkbbk3): in a name, most parts have a vowel; abbreviations
// (db, Pwd) are short.
func identLike(s string) bool {
	if !reIdent.MatchString(s) {
		return false
	}
	if len(s) < 8 {
		return true
	}
	short := 3 // the longest part that may go without a vowel
	if len(s) < 16 {
		short = 4
	}
	parts, bare, tiny := 0, 0, 0
	start := 0
	oneCase := s == strings.ToUpper(s) || s == strings.ToLower(s)
	for i := 1; i <= len(s); i++ {
		if i < len(s) && s[i] != '_' && (oneCase || !(s[i] >= 'A' && s[i] <= 'Z')) {
			continue
		}
		if part := strings.Trim(s[start:i], "_$0123456789"); part != "" {
			parts++
			if len(part) <= 2 {
				tiny++
			}
			if len(part) >= short && !strings.ContainsAny(strings.ToLower(part), "aeiou") {
				bare++
			}
		}
		start = i
	}
	// Most parts of one or two letters (PuIdFeMiTe) is no name either.
	return bare*4 <= parts && tiny*2 <= parts
}

var (
	// reFakeRun finds the runs of made-up values (sk-1234567890abcdef).
	reFakeRun = regexp.MustCompile(`1234|abc123|(?i:qwerty|letmein|hunter2)`)
	// reAssignment is a name and its separator with no value.
	reAssignment = regexp.MustCompile(`^[A-Za-z_][\w.-]{0,19}[=:]$`)
	// reFilePath is a path to a file.
	reFilePath = regexp.MustCompile(`/.*\.[A-Za-z0-9]{1,6}$`)
)

// fakeWords are the words of made-up secrets in examples and tests
// (sk-ant-api03-real-secret, ghp_test123, SuperSecret123).
var fakeWords = map[string]bool{"test": true, "tests": true, "testing": true, "secret": true, "password": true, "passwd": true,
	"real": true, "fake": true, "mock": true, "demo": true, "sample": true, "dummy": true, "foobar": true, "changeme": true,
	"mypassword": true, "mysecret": true, "passw0rd": true, "p4ssw0rd": true, "s3cr3t": true, "secr3t": true, "pa55word": true}

// fake tells whether v is a made-up value: one of its words (split at
// punctuation, digits and lower-to-upper case changes) is a fake word, or
// it holds a run such as 1234. A random value may hold "demo" by chance
// (jcd6DEMoj2), but seldom as a word of its own; in a long one (a storage
// key) only a word set apart by punctuation counts.
func fake(v string) bool {
	if len(v) > 40 {
		for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ' ' }) {
			if fakeWords[strings.ToLower(w)] {
				return true
			}
		}
		return false
	}
	if reFakeRun.MatchString(v) {
		return true
	}
	start := -1
	for i := 0; i <= len(v); i++ {
		letter := i < len(v) && (v[i] >= 'a' && v[i] <= 'z' || v[i] >= 'A' && v[i] <= 'Z')
		wordStart := letter && (start < 0 || v[i] >= 'A' && v[i] <= 'Z' && v[i-1] >= 'a' && v[i-1] <= 'z')
		if start >= 0 && (!letter || wordStart) {
			w := v[start:i]
			// A word in one case only: Secret, secret, SECRET.
			if (w[1:] == strings.ToLower(w[1:]) || w == strings.ToUpper(w)) && fakeWords[strings.ToLower(w)] {
				return true
			}
			start = -1
		}
		if wordStart || letter && start < 0 {
			start = i
		}
	}
	return false
}

// isPlaceholder tells whether a secret any rule found stands for one:
// documentation's AKIAIOSFODNN7EXAMPLE, sk_test_EXAMPLE…, your-key-here.
func isPlaceholder(s string) bool {
	return rePlaceholderAny.MatchString(s)
}

var rePlaceholderAny = regexp.MustCompile(`(?i)example|your[-_]|placeholder|(?-i:xxxxx|XXXXX)|dummy|<|>`)

// isSignature tells whether s is (a piece of) a thinking block's
// signature, as a tool may print one: base64 of a record that starts
// with the same bytes every time.
func isSignature(s string) bool {
	return len(s) >= 30 && strings.Contains(s[:min(len(s), 10)], "CkYIC")
}

// isExtraRule tells whether a rule is one of ccsite's own.
func isExtraRule(id string) bool {
	for _, r := range extraRules {
		if ruleLabel(r.RuleID) == ruleLabel(id) {
			return true
		}
	}
	return false
}

// isShapeRule tells whether a rule is one of shapeRules.
func isShapeRule(id string) bool {
	for _, r := range shapeRules {
		if ruleLabel(r.RuleID) == ruleLabel(id) {
			return true
		}
	}
	return false
}

// printable tells whether s is text a person could have typed.
func printable(s string) bool {
	if s == "" {
		return false
	}
	bad := 0
	for _, r := range s {
		if r == utf8.RuneError || (!unicode.IsPrint(r) && r != '\n' && r != '\r' && r != '\t') {
			bad++
		}
	}
	return bad*20 <= len(s)
}

// newDetector makes gitleaks' detector with its default rules and ours
// (a scanner of them); with lazyStops, its allowlists' stop words are
// made lazily (loadDefaultConfig). The default rules are read through a
// viper instance of its own: gitleaks' detect.NewDetectorDefaultConfig
// goes through the process-wide one, which concurrent Redactors would
// share.
func newDetector(lazyStops bool) (*scanner, error) {
	cfg, err := loadDefaultConfig(lazyStops)
	if err != nil {
		return nil, err
	}
	return newScannerWithExtras(cfg), nil
}

// newScannerWithExtras is the scanner of cfg's rules and ours.
func newScannerWithExtras(cfg config.Config) *scanner {
	for _, r := range extraRules {
		cfg.Rules[r.RuleID] = r
		cfg.OrderedRules = append(cfg.OrderedRules, r.RuleID)
		for _, k := range r.Keywords {
			cfg.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	return newScanner(cfg)
}

// defaultConfig is gitleaks' default configuration, as
// detect.NewDetectorDefaultConfig reads it, from a viper instance of its own.
func defaultConfig() (config.Config, error) {
	return loadDefaultConfig(false)
}

// loadDefaultConfig reads gitleaks' default configuration. With
// lazyStops, its allowlists' stop words are not made into the
// Aho-Corasick tries gitleaks builds for them as it reads them (1,500
// words for generic-api-key alone): a build that scans a line or two
// (a message appended) spent ~0.07 CPU-s of its ~0.45 building them, for
// the one or two findings, if any, they are asked about. Each allowlist
// holding stop words is read with a stand-in word in their place and then
// given back, a copy with the words and without the trie: gitleaks'
// Allowlist then tests them one by one (ContainsStopWord's own path for
// an allowlist not validated; its regular expressions and paths likewise,
// one by one, instead of joined). Whether a finding is allowed is the
// same (TestLazyStopWords).
func loadDefaultConfig(lazyStops bool) (config.Config, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return config.Config{}, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return config.Config{}, err
	}
	if !lazyStops {
		return vc.Translate()
	}
	var stops [][]string
	stash := func(words *[]string) {
		if len(*words) > 0 {
			*words, stops = []string{stopStandIn + strconv.Itoa(len(stops))}, append(stops, *words)
		}
	}
	for i := range vc.Rules {
		if a := vc.Rules[i].AllowList; a != nil {
			stash(&a.StopWords)
		}
		for _, a := range vc.Rules[i].Allowlists {
			stash(&a.StopWords)
		}
	}
	if vc.AllowList != nil {
		stash(&vc.AllowList.StopWords)
	}
	for _, a := range vc.Allowlists {
		stash(&a.StopWords)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return cfg, err
	}
	done := map[*config.Allowlist]*config.Allowlist{}
	giveBack := func(a *config.Allowlist) *config.Allowlist {
		if len(a.StopWords) != 1 || !strings.HasPrefix(a.StopWords[0], stopStandIn) {
			return a
		}
		if b, ok := done[a]; ok {
			return b
		}
		n, err := strconv.Atoi(strings.TrimPrefix(a.StopWords[0], stopStandIn))
		if err != nil || n < 0 || n >= len(stops) {
			return a
		}
		// As Validate keeps them: lower case, each once (here in order).
		seen := map[string]bool{}
		var words []string
		for _, w := range stops[n] {
			if w = strings.ToLower(w); !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		b := &config.Allowlist{Description: a.Description, MatchCondition: a.MatchCondition, Commits: a.Commits,
			Paths: a.Paths, RegexTarget: a.RegexTarget, Regexes: a.Regexes, StopWords: words}
		done[a] = b
		return b
	}
	for id, r := range cfg.Rules {
		for i, a := range r.Allowlists {
			r.Allowlists[i] = giveBack(a)
		}
		cfg.Rules[id] = r
	}
	for i, a := range cfg.Allowlists {
		cfg.Allowlists[i] = giveBack(a)
	}
	return cfg, nil
}

// stopStandIn starts the word that stands in for an allowlist's stop words
// while gitleaks reads it (then its index): no text holds it.
const stopStandIn = "\x00ccsite: stop words "
