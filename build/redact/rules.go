package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

// Version names the redaction rules and the way they are applied. Caches
// of redacted text are salted with it: text a leakier version let through
// must never be served again. Raise it whenever a change lets the
// redactor find something it did not.
const Version = "2"

// extraRules are ccsite's rules beside gitleaks' defaults, for the shapes
// people paste and tools print that no default rule catches: HTTP
// authorization headers, assignments of passwords, secrets and tokens in
// code, .env files, YAML and connection strings, and Azure signatures.
// Each has a validator (see accept) that turns down placeholders and code
// that merely names a secret.
var extraRules = []config.Rule{
	{
		RuleID:      "authorization-basic",
		Description: "HTTP Basic credentials (base64 of user:password)",
		Regex:       glregexp.MustCompile(`(?i)\bbasic[ \t]+([a-z0-9+/]{8,}={0,2})(?:[^a-z0-9+/=]|$)`),
		SecretGroup: 1,
		Keywords:    []string{"basic"},
	},
	{
		RuleID:      "authorization-bearer",
		Description: "An HTTP bearer token",
		Regex:       glregexp.MustCompile(`(?i)\bbearer[ \t]+([a-z0-9\-._~+/]{16,}=*)`),
		SecretGroup: 1,
		Entropy:     3,
		Keywords:    []string{"bearer"},
	},
	{
		RuleID:      "password-assignment",
		Description: "A password, secret, token or key assigned a literal value",
		Regex: glregexp.MustCompile(`(?i)(?:^|[^a-z0-9])[a-z0-9_.-]{0,40}?` +
			`(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_.-]?key|access[_.-]?key|private[_.-]?key|account[_.-]?key|` +
			`auth[_.-]?key|sharedaccesskey|credentials?|client[_.-]?secret)[a-z0-9_.-]{0,20}` +
			`["'\x60]?[ \t]*(?:=|:=|:|=>|\|\|=)[ \t]*` +
			`(?:"([^"\r\n]{6,200})"|'([^'\r\n]{6,200})'|([^\s"'\x60;,&<>]{6,200}))`),
		Keywords: []string{"pass", "pwd", "secret", "token", "key", "credential"},
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
	rePlaceholder = regexp.MustCompile(`(?i)your[-_ ]|example|placeholder|change[-_]?me|redacted|dummy|sample|insert[-_]|replace[-_]|xxx|\*\*\*|\.\.\.|…|<|>|^(?:null|none|nil|true|false|undefined|str|string|int|bool|required|optional|secret|password|passwd|token|bearer|basic|value|empty|default|test|todo)$`)
	// reCodePath is a dotted name (self.password, req.body.token).
	reCodePath = regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$`)
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
	return true
}

// acceptAssigned says whether the value of a name = value assignment is a
// literal secret.
func acceptAssigned(v, match string) bool {
	if len(v) < 6 || rePlaceholder.MatchString(v) || reFakeWord.MatchString(v) {
		return false
	}
	switch v[0] {
	case '$', '%', '{', '#', '@', '(', '[', '!', '?', '&', '|', '*', '/', '\\', '-', '.', '=', ':':
		// ${VAR}, %VAR%, {{ template }}, #comment, @Value, a flag, a path.
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
	if strings.ContainsAny(v, "()[]{}") || reCodePath.MatchString(v) || reWordy.MatchString(v) || reFilePath.MatchString(v) {
		return false
	}
	return true
}

var (
	// reFakeWord finds the words of made-up secrets in examples and
	// tests (sk-ant-api03-real-secret, ghp_test123, SuperSecret123).
	reFakeWord = regexp.MustCompile(`(?i)test|secret|passw|real|fake|mock|demo|sample|abc123|1234|qwerty|letmein|hunter2`)
	// reAssignment is a name and its separator with no value.
	reAssignment = regexp.MustCompile(`^[A-Za-z_][\w.-]{0,19}[=:]$`)
	// reFilePath is a path to a file.
	reFilePath = regexp.MustCompile(`/.*\.[A-Za-z0-9]{1,6}$`)
)

// isPlaceholder tells whether a secret any rule found stands for one:
// documentation's AKIAIOSFODNN7EXAMPLE, sk_test_EXAMPLE…, your-key-here.
func isPlaceholder(s string) bool {
	return rePlaceholderAny.MatchString(s)
}

var rePlaceholderAny = regexp.MustCompile(`(?i)example|your[-_]|placeholder|x{5}|dummy|<|>`)

// isSignature tells whether s is (a piece of) a thinking block's
// signature, as a tool may print one: base64 of a record that starts
// with the same bytes every time.
func isSignature(s string) bool {
	return len(s) >= 30 && strings.Contains(s[:min(len(s), 10)], "CkYIC")
}

// isExtraRule tells whether a rule is one of ccsite's own.
func isExtraRule(id string) bool {
	for _, r := range extraRules {
		if r.RuleID == id {
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

// rulesMu guards gitleaks' configuration loading, which goes through a
// process-wide viper instance.
var rulesMu sync.Mutex

// newDetector makes gitleaks' detector with its default rules and ours.
func newDetector() (*detect.Detector, error) {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	def, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, err
	}
	cfg := def.Config
	for _, r := range extraRules {
		cfg.Rules[r.RuleID] = r
		cfg.OrderedRules = append(cfg.OrderedRules, r.RuleID)
		for _, k := range r.Keywords {
			cfg.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	det := detect.NewDetector(cfg)
	det.MaxDecodeDepth = 0
	return det, nil
}
