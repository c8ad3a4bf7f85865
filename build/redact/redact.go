// Package redact keeps secrets out of a published site. It works on each
// raw JSONL line before it is parsed, so every string built from a
// transcript (pages, titles, excerpts, exports, search documents and
// shards) comes from redacted text: a secret found by gitleaks' detector
// (its default rules) or by the user's own patterns becomes
// [REDACTED:<rule>]. Identifiers are never touched: uuids, msg_/toolu_/req_
// ids, commit hashes and thinking signatures.
//
// It also anonymises paths on request: the home directory becomes ~ and
// the user name "user".
package redact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// Options says what to redact.
type Options struct {
	// Secrets turns on gitleaks' detector.
	Secrets bool
	// Patterns are the user's own regular expressions (rule "user-regex";
	// a pattern with a group redacts the first group only).
	Patterns []*regexp.Regexp
	// Literals are the user's own strings (rule "user-literal").
	Literals []string
	// Anonymize replaces Home with ~ and User with "user".
	Anonymize bool
	Home      string
	User      string
}

// Redactor redacts lines and strings and counts what it redacted, by rule
// and by file. It is safe for concurrent use.
type Redactor struct {
	opts Options
	anon *strings.Replacer

	known KnownClean
	// det is gitleaks' detector, ready when detReady is closed (nil and
	// detErr set if it could not be made).
	det      *detect.Detector
	detReady chan struct{}
	detErr   error

	mu     sync.Mutex
	byRule map[string]int
	byFile map[string]map[string]int
}

// New makes a Redactor.
func New(opts Options) (*Redactor, error) {
	r := &Redactor{opts: opts, byRule: map[string]int{}, byFile: map[string]map[string]int{}}
	if opts.Secrets {
		// Compiling the rules takes a few hundred milliseconds: it runs
		// while the build discovers and fingerprints, and a build that
		// scans nothing (nothing changed) never waits for it.
		r.detReady = make(chan struct{})
		go func() {
			defer close(r.detReady)
			det, err := detect.NewDetectorDefaultConfig()
			if err != nil {
				r.detErr = fmt.Errorf("secret rules: %w", err)
				return
			}
			det.MaxDecodeDepth = 0
			r.det = det
		}()
	}
	var lits []string
	for _, l := range opts.Literals {
		if l = strings.TrimSpace(l); len(l) >= 3 {
			lits = append(lits, l)
		}
	}
	// Longer first, so a literal holding another is replaced whole.
	sort.SliceStable(lits, func(i, j int) bool { return len(lits[i]) > len(lits[j]) })
	r.opts.Literals = lits
	if opts.Anonymize {
		var pairs []string
		if h := strings.TrimRight(opts.Home, `/\`); h != "" && h != "/" {
			// In JSON a Windows path's backslashes are doubled.
			pairs = append(pairs, h, "~", strings.ReplaceAll(h, `\`, `\\`), "~")
		}
		if opts.User != "" && len(opts.User) >= 3 {
			for _, base := range []string{"/home/", "/Users/", `C:\Users\`, `C:\\Users\\`, `c:\Users\`, `c:\\Users\\`} {
				pairs = append(pairs, base+opts.User, "~")
			}
			// A folder name made from a path (Claude Code's project
			// folders: -home-kim-src) and the bare name.
			pairs = append(pairs, "-home-"+opts.User+"-", "-home-user-", "-Users-"+opts.User+"-", "-Users-user-")
		}
		if len(pairs) > 0 {
			r.anon = strings.NewReplacer(pairs...)
		}
	}
	return r, nil
}

// KnownClean remembers lines found clean, by hash, so the next build need
// not scan them again. Its keys must be salted with the Redactor's
// Fingerprint and the rules' version.
type KnownClean interface {
	Clean(key [32]byte) bool
	MarkClean(key [32]byte)
}

// Err reports a failure to make the secret rules (once they are made).
func (r *Redactor) Err() error {
	if r == nil || r.detReady == nil {
		return nil
	}
	<-r.detReady
	return r.detErr
}

// Remember makes r skip lines kc knows clean and tell it those it finds
// clean; nil stops that.
func (r *Redactor) Remember(kc KnownClean) {
	if r != nil {
		r.known = kc
	}
}

// ReadLiterals reads a file of literal strings, one per line (blank lines
// and lines starting with # are skipped).
func ReadLiterals(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// Active tells whether the Redactor changes anything at all.
func (r *Redactor) Active() bool {
	return r != nil && (r.opts.Secrets || len(r.opts.Patterns) > 0 || len(r.opts.Literals) > 0 || r.anon != nil)
}

// Counts returns the redactions so far, by rule and, per file, by rule.
func (r *Redactor) Counts() (byRule map[string]int, byFile map[string]map[string]int) {
	byRule, byFile = map[string]int{}, map[string]map[string]int{}
	if r == nil {
		return byRule, byFile
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range r.byRule {
		byRule[k] = v
	}
	for f, rules := range r.byFile {
		m := make(map[string]int, len(rules))
		for k, v := range rules {
			m[k] = v
		}
		byFile[f] = m
	}
	return byRule, byFile
}

func (r *Redactor) count(file string, rules map[string]int) {
	if len(rules) == 0 {
		return
	}
	r.mu.Lock()
	fr := r.byFile[file]
	if fr == nil {
		fr = map[string]int{}
		r.byFile[file] = fr
	}
	for k, v := range rules {
		r.byRule[k] += v
		fr[k] += v
	}
	r.mu.Unlock()
}

// Line redacts one raw JSONL line of file. The result is still valid JSON
// when the line was: a replacement that would break it (a secret ending
// inside an escape) is redone on the decoded strings instead.
func (r *Redactor) Line(file string, line []byte) []byte {
	if !r.Active() {
		return line
	}
	var key [32]byte
	if r.known != nil {
		key = sha256.Sum256(line)
		if r.known.Clean(key) {
			return line
		}
	}
	s := string(line)
	out, rules := r.text(s, true)
	if out == s {
		if r.known != nil {
			r.known.MarkClean(key)
		}
		return line
	}
	if json.Valid(line) && !json.Valid([]byte(out)) {
		if fixed, frules, ok := r.decoded(line); ok {
			out, rules = fixed, frules
		}
	}
	r.count(file, rules)
	return []byte(out)
}

// String redacts a string that does not come from a JSONL line (a
// sub-agent's .meta.json, a file name), counting it under file.
func (r *Redactor) String(file, s string) string {
	if !r.Active() {
		return s
	}
	out, rules := r.text(s, false)
	r.count(file, rules)
	return out
}

// Path anonymises a path (a project's folder or cwd) when asked to.
func (r *Redactor) Path(p string) string {
	if r == nil || r.anon == nil {
		return p
	}
	return r.anon.Replace(p)
}

// decoded redacts each string of a JSON line separately and encodes the
// line again.
func (r *Redactor) decoded(line []byte) (string, map[string]int, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", nil, false
	}
	rules := map[string]int{}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			out, rs := r.text(x, false)
			for k, n := range rs {
				rules[k] += n
			}
			return out
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return v
	}
	v = walk(v)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", nil, false
	}
	return strings.TrimRight(buf.String(), "\n"), rules, true
}

// reURLPassword finds the password of scheme://user:password@host.
var reURLPassword = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@"'\\]{1,64}:([^\s/@"'\\]{3,128})@[a-z0-9\[]`)

// urlPasswords redacts the password of each scheme://user:password@host
// in s. The expression runs only on a window around each "://" (on whole
// lines it cost more than all of gitleaks' rules).
func urlPasswords(s string) (string, int) {
	if !strings.Contains(s, "://") {
		return s, 0
	}
	type span struct{ from, to int }
	var found []span
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			break
		}
		at := i + j
		i = at + 3
		// A password needs an "@" soon after.
		end := min(len(s), at+3+64+1+128+2)
		if !strings.Contains(s[at:end], "@") {
			continue
		}
		start := max(0, at-21)
		win := s[start:end]
		m := reURLPassword.FindStringSubmatchIndex(win)
		if m == nil || start+m[0] > at {
			continue
		}
		pw := win[m[2]:m[3]]
		if strings.HasPrefix(pw, "[REDACTED") || strings.HasPrefix(pw, "$") || strings.HasPrefix(pw, "{") {
			continue
		}
		found = append(found, span{start + m[2], start + m[3]})
		i = start + m[3]
	}
	if len(found) == 0 {
		return s, 0
	}
	var b strings.Builder
	last := 0
	for _, f := range found {
		b.WriteString(s[last:f.from])
		b.WriteString("[REDACTED:url-password]")
		last = f.to
	}
	b.WriteString(s[last:])
	return b.String(), len(found)
}

// reSignature finds thinking signatures, which are never redacted.
var reSignature = regexp.MustCompile(`"signature"\s*:\s*"([^"]{16,})"`)

// text redacts s; it returns the result and the redactions by rule.
func (r *Redactor) text(s string, isJSON bool) (string, map[string]int) {
	var rules map[string]int
	add := func(rule string, n int) {
		if rules == nil {
			rules = map[string]int{}
		}
		rules[rule] += n
	}
	if r.anon != nil {
		s = r.anon.Replace(s)
	}
	for _, l := range r.opts.Literals {
		if n := strings.Count(s, l); n > 0 {
			s = strings.ReplaceAll(s, l, "[REDACTED:user-literal]")
			add("user-literal", n)
		}
	}
	for _, re := range r.opts.Patterns {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if re.NumSubexp() > 0 {
				sub := re.FindStringSubmatchIndex(m)
				if len(sub) >= 4 && sub[2] >= 0 {
					add("user-regex", 1)
					return m[:sub[2]] + "[REDACTED:user-regex]" + m[sub[3]:]
				}
				return m
			}
			add("user-regex", 1)
			return "[REDACTED:user-regex]"
		})
	}
	if r.opts.Secrets {
		<-r.detReady
		if r.det == nil {
			// The rules are built in: this cannot happen but by a broken
			// build of ccsite, and going on would publish secrets.
			panic(fmt.Sprintf("ccsite: %v", r.detErr))
		}
	}
	if r.det != nil {
		// gitleaks has no rule for a password in a URL's user info.
		var n int
		s, n = urlPasswords(s)
		if n > 0 {
			add("url-password", n)
		}
		scan := s
		if isJSON {
			scan = maskKeys(s)
		}
		findings := r.det.DetectString(scan)
		if len(findings) > 0 {
			var sigs []string
			for _, m := range reSignature.FindAllStringSubmatch(s, -1) {
				sigs = append(sigs, m[1])
			}
			// Longer secrets first, so one inside another goes whole.
			sort.SliceStable(findings, func(i, j int) bool { return len(findings[i].Secret) > len(findings[j].Secret) })
			for _, f := range findings {
				sec := f.Secret
				if len(sec) < 6 || isID(sec) || inAny(sec, sigs) || strings.Contains(sec, "[REDACTED:") {
					continue
				}
				if n := strings.Count(s, sec); n > 0 {
					s = strings.ReplaceAll(s, sec, "[REDACTED:"+f.RuleID+"]")
					add(f.RuleID, n)
				}
			}
		}
	}
	return s, rules
}

var (
	reUUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	reID   = regexp.MustCompile(`^(?:msg|toolu|srvtoolu|req|chatcmpl|call|file|att|agent)_[0-9A-Za-z]+$`)
	reHash = regexp.MustCompile(`^(?:[0-9a-f]{7,12}|[0-9a-f]{40}|[0-9a-f]{64})$`)
)

// isID tells whether s is an identifier, never a secret: a uuid, an API
// object id (msg_…, toolu_…, req_…) or a commit hash.
func isID(s string) bool {
	return reUUID.MatchString(s) || reID.MatchString(s) || reHash.MatchString(s)
}

func inAny(s string, in []string) bool {
	for _, x := range in {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// maskKeys blanks the member names of a JSON text (same length, so
// nothing moves). Names are structure, not secrets, and names such as
// "input_tokens" or "apiKeySource" would otherwise wake the generic rules
// (whose keywords are token, api, key, …) on every line, which then run
// their expressions over the whole line.
func maskKeys(s string) string {
	b := []byte(s)
	changed := false
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		start := i
		for i++; i < len(b) && b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		if i >= len(b) {
			break
		}
		j := i + 1
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j < len(b) && b[j] == ':' {
			for k := start + 1; k < i; k++ {
				b[k] = ' '
			}
			changed = true
		}
	}
	if !changed {
		return s
	}
	return string(b)
}

// Fingerprint names what the Redactor does (rules on or off, the user's
// patterns and strings, anonymising), so a build can tell whether pages
// made with another Redactor differ. It never holds a literal itself.
func (r *Redactor) Fingerprint() string {
	if !r.Active() {
		return "off"
	}
	h := sha256.New()
	fmt.Fprintf(h, "secrets=%v anon=%v home=%q user=%q\n", r.opts.Secrets, r.anon != nil, r.opts.Home, r.opts.User)
	for _, p := range r.opts.Patterns {
		fmt.Fprintf(h, "re %q\n", p.String())
	}
	for _, l := range r.opts.Literals {
		fmt.Fprintf(h, "lit %q\n", l)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
