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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/go-json-experiment/json/jsontext"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
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
	// Allow are findings marked as not secrets: a FindingID
	// ("sha256:…", as ccsite review shows it) or the string itself.
	// A secret rule's finding they name is left as it is.
	Allow []string
	// OnFind, when set, is told each secret found and replaced (rule and
	// value; "" for an image's metadata), from the goroutine redacting:
	// ccsite review lists them. It must not keep the value.
	OnFind func(rule, secret string)
}

// FindingID names a secret without holding it: what an allow list
// (Options.Allow) and ccsite review write for a finding.
func FindingID(secret string) string {
	sum := sha256.Sum256([]byte("ccsite finding\x00" + secret))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// allowed tells whether the allow list names secret.
func (r *Redactor) allowed(secret string) bool {
	if len(r.allow) == 0 {
		return false
	}
	return r.allow[secret] || r.allow[FindingID(secret)]
}

// found tells OnFind of a finding.
func (r *Redactor) found(rule, secret string) {
	if r.opts.OnFind != nil {
		r.opts.OnFind(rule, secret)
	}
}

// Redactor redacts lines and strings and counts what it redacted, by rule
// and by file. It is safe for concurrent use.
type Redactor struct {
	opts Options
	anon *strings.Replacer
	// small: the secret rules are made for a scan of a few lines (Fresh).
	small bool
	// allow is Options.Allow as a set.
	allow map[string]bool

	known, knownNames KnownClean
	// clean holds the values found clean in this Redactor's life.
	clean *cleanSet
	// scratch keeps the slices of one line's redaction for the next.
	scratch sync.Pool
	// det is gitleaks' detector, made by the goroutine the first Prepare
	// starts and ready when detReady is closed (nil and detErr set if it
	// could not be made).
	det      *scanner
	detStart sync.Once
	detReady chan struct{}
	detErr   error

	mu     sync.Mutex
	byRule map[string]int
	byFile map[string]map[string]int
}

// New makes a Redactor.
func New(opts Options) (*Redactor, error) {
	r := &Redactor{opts: opts, byRule: map[string]int{}, byFile: map[string]map[string]int{}, clean: newCleanSet()}
	if opts.Secrets {
		r.detReady = make(chan struct{})
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
	for _, a := range opts.Allow {
		if a = strings.TrimSpace(a); a != "" {
			if r.allow == nil {
				r.allow = map[string]bool{}
			}
			r.allow[a] = true
		}
	}
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

// Fresh returns a Redactor that redacts as r does (the same Options, so
// the same Fingerprint) with none of r's state: no counts, no values found
// clean, nothing to Remember, secret rules of its own, made at its own
// Prepare. A build redacts with one, so that the Redactor its
// configuration holds is left as it was. With small, the Redactor is for a
// scan of a few lines (a build that updates a site scans only the lines no
// earlier build scanned): its rules are made with lazy stop words, cheaper
// to make, dearer for each finding (loadDefaultConfig); the findings are
// the same. Fresh of nil is nil.
func (r *Redactor) Fresh(small bool) *Redactor {
	if r == nil {
		return nil
	}
	f, _ := New(r.opts) // (New returns no error)
	f.small = small
	return f
}

// KnownClean remembers lines found clean, by hash, so the next build need
// not scan them again. Its keys must be salted with the Redactor's
// Fingerprint and the rules' version.
type KnownClean interface {
	Clean(key [32]byte) bool
	MarkClean(key [32]byte)
}

// KnownRedacted is a KnownClean that also remembers the lines redaction
// changed: the line as redacted and what each rule found in it. A build
// after the first then scans no line at all, not only the clean ones:
// those that held a secret (often the longest, a tool's output) took the
// secret scanner's start and most of its time in a build with every line
// known. What it keeps is what the site shows, a secret already replaced.
type KnownRedacted interface {
	KnownClean
	// Known tells what the line was found before, in one look: ok and a
	// nil out when it was clean; ok, the line as redacted (never nil) and
	// the rules' counts when it held secrets; not ok when never seen.
	Known(key [32]byte) (out []byte, rules map[string]int, ok bool)
	MarkRedacted(key [32]byte, out []byte, rules map[string]int)
}

// Prepare starts making the secret rules, in the background, if they are
// not made or being made. Making them costs a few hundred milliseconds
// (gitleaks' rules read and compiled): a build calls
// Prepare as soon as it knows it will redact something, so that this runs
// beside its other work, and a build that redacts nothing (nothing changed)
// never pays for it. Redacting without Prepare makes the rules then.
func (r *Redactor) Prepare() {
	if r == nil || r.detReady == nil {
		return
	}
	r.detStart.Do(func() {
		go func() {
			defer close(r.detReady)
			det, err := newDetector(r.small)
			if err != nil {
				r.detErr = fmt.Errorf("secret rules: %w", err)
				return
			}
			r.det = det
		}()
	})
}

// Err reports a failure to make the secret rules (making them if need be).
func (r *Redactor) Err() error {
	if r == nil || r.detReady == nil {
		return nil
	}
	r.Prepare()
	<-r.detReady
	return r.detErr
}

// Remember makes r skip lines (and names) lines knows clean and tell it
// those it finds clean; names, when not nil, does that for names (see Name)
// instead: a set of its own, small, where a build that only redacts names
// (nothing changed) finds them in a few pages. nil, nil stops that.
func (r *Redactor) Remember(lines, names KnownClean) {
	if r != nil {
		if names == nil {
			names = lines
		}
		r.known, r.knownNames = lines, names
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

// ReadAllowList reads an allow list: one finding a line, a FindingID
// (sha256:…, maybe followed by a comment after white space) or the text
// itself; blank lines and lines starting with # are skipped.
func ReadAllowList(path string) ([]string, error) {
	lines, err := ReadLiterals(path)
	if err != nil {
		return nil, err
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "sha256:") {
			if f := strings.Fields(l); len(f) > 0 {
				lines[i] = f[0]
			}
		}
	}
	return lines, nil
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

// Line redacts one raw JSONL line of file. It redacts the decoded value of
// every JSON string (so a secret quoted inside a string, or alone on a
// line of a tool's output, reads as it would in a file), writes the
// changed strings back as valid JSON, and removes the metadata of images
// the line carries. Identifiers and thinking signatures are left as they
// are. A line that is not JSON is redacted as text.
func (r *Redactor) Line(file string, line []byte) []byte {
	return r.lineOf(file, line, true)
}

// LineOnce is Line for a caller that remembers clean lines its own way
// (the build, by file): a line found clean is not marked so (KnownClean),
// and its hash is taken only to look it up or to keep it redacted. A
// cold build of the 1 GB tree hashed and stored every one of its millions
// of lines, 2-3 CPU-s, for a memory the next build asks only of lines
// the build's own does not cover.
func (r *Redactor) LineOnce(file string, line []byte) []byte {
	return r.lineOf(file, line, false)
}

// Emptier is a KnownClean that can tell it holds nothing: nothing need be
// hashed to ask it.
type Emptier interface{ Empty() bool }

func (r *Redactor) lineOf(file string, line []byte, mark bool) []byte {
	if !r.Active() {
		return line
	}
	var key [32]byte
	hashed := false
	kr, _ := r.known.(KnownRedacted)
	if e, ok := r.known.(Emptier); r.known != nil && !(ok && e.Empty()) {
		key, hashed = sha256.Sum256(line), true
		if kr != nil {
			if out, rules, ok := kr.Known(key); ok {
				if out == nil {
					return line
				}
				r.count(file, rules)
				return out
			}
		} else if r.known.Clean(key) {
			return line
		}
	}
	out, changed, rules := r.line(line)
	if !changed {
		if r.known != nil && mark {
			if !hashed {
				key = sha256.Sum256(line)
			}
			r.known.MarkClean(key)
		}
		return line
	}
	if kr != nil {
		if !hashed {
			key = sha256.Sum256(line)
		}
		kr.MarkRedacted(key, out, rules)
	}
	r.count(file, rules)
	return out
}

// String redacts a string that does not come from a JSONL line (a
// sub-agent's .meta.json field), counting it under file.
func (r *Redactor) String(file, s string) string {
	if !r.Active() {
		return s
	}
	out, rules := r.values([]string{s}, []string{""})
	r.count(file, rules)
	return out[0]
}

// Name redacts a folder or file name from the archive (a project folder,
// a session or agent file's name) before it becomes a title, a page name
// or a search document: paths anonymised as asked, secrets replaced. In
// a name, "-", "_", "." and "/" may stand for spaces (Claude Code writes a
// project's path as -home-kim-src), so the rules also see it split there.
func (r *Redactor) Name(file, s string) string {
	return r.name(file, s, true)
}

// NameOnly is Name without counting: for a name shown again (in a report)
// that was counted where it was first shown.
func (r *Redactor) NameOnly(s string) string {
	return r.name("", s, false)
}

func (r *Redactor) name(file, s string, count bool) string {
	if !r.Active() || s == "" {
		return s
	}
	var key [32]byte
	if r.knownNames != nil {
		key = sha256.Sum256([]byte("name\x00" + s))
		if r.knownNames.Clean(key) {
			return s
		}
	}
	out, rules := r.values([]string{s}, []string{""})
	name := out[0]
	if r.det != nil {
		var sb strings.Builder
		for _, sep := range []string{"-", "_", ".", "/"} {
			sb.WriteString(strings.ReplaceAll(name, sep, " "))
			sb.WriteString(" \f")
		}
		for _, f := range r.findings(sb.String()) {
			if n := strings.Count(name, f.secret); n > 0 {
				name = strings.ReplaceAll(name, f.secret, "[REDACTED:"+f.rule+"]")
				if rules == nil {
					rules = map[string]int{}
				}
				rules[f.rule] += n
			}
		}
		// Random-looking parts: in the names Claude Code gave (the
		// project's folder, the file), not in the folders above them,
		// which are the user's own (a temporary folder's suffix).
		head, tail := "", name
		if i := lastSepBut(name, 1); i >= 0 {
			head, tail = name[:i+1], name[i+1:]
		}
		var n int
		if tail, n = randomTokens(tail); n > 0 {
			name = head + tail
			if rules == nil {
				rules = map[string]int{}
			}
			rules["name-token"] += n
		}
	}
	if name == s && r.knownNames != nil {
		r.knownNames.MarkClean(key)
	}
	if count {
		r.count(file, rules)
	}
	return name
}

// line redacts one JSONL line.
func (r *Redactor) line(line []byte) (out []byte, changed bool, rules map[string]int) {
	sc, _ := r.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	defer func() {
		sc.reset()
		r.scratch.Put(sc)
	}()
	strs, objs, ok := scanJSON(line, sc)
	if !ok {
		vals, rules := r.values([]string{string(line)}, []string{""})
		return []byte(vals[0]), vals[0] != string(line), rules
	}
	var (
		vals    = sc.vals[:0]
		keys    = sc.keys[:0]
		groups  = sc.groups[:0] // the array each value is an element of, or -1
		at      = sc.at[:0]     // index in strs of each value
		raws    = sc.raws[:0]   // each value's rawKey (zero: none)
		replace map[int]string  // index in strs → new decoded value
	)
	defer func() { sc.vals, sc.keys, sc.groups, sc.at, sc.raws = vals, keys, groups, at, raws }()
	secrets := r.opts.Secrets && r.clean != nil
	add := func(rule string, n int) {
		if rules == nil {
			rules = map[string]int{}
		}
		rules[rule] += n
	}
	set := func(i int, v string) {
		if replace == nil {
			replace = map[int]string{}
		}
		replace[i] = v
	}
	for i, s := range strs {
		if s.isKey {
			if !scanKey(line[s.start+1 : s.end-1]) {
				continue
			}
		} else {
			switch binaryKind(s, objs) {
			case binImage:
				if v, ok := s.value(line, sc); ok {
					if clean, rule := r.image(objs[s.obj], s.key, v); rule != "" {
						set(i, clean)
						add(rule, 1)
						r.found(rule, "")
					}
				}
				continue
			case binOther:
				set(i, "")
				add("binary-withheld", 1)
				continue
			}
			if skipValue(s, line) {
				continue
			}
		}
		key := s.key
		if s.obj >= 0 && objs[s.obj].secretName != "" && valueKeys[key] {
			key = objs[s.obj].secretName
		}
		// A value (not an array's element, which is scanned with its
		// neighbours) whose literal was found clean before is left as it
		// is, not decoded, nor looked at again: the same text comes many
		// times (see cleanSet).
		var raw [2]uint64
		if lit := line[s.start+1 : s.end-1]; secrets && s.arr < 0 && len(lit) >= cleanMin {
			if raw = r.clean.rawKey(judgedAs(key), lit); r.clean.has(raw) {
				continue
			}
		}
		v, ok := s.value(line, sc)
		if !ok {
			continue
		}
		vals, keys, groups, at, raws = append(vals, v), append(keys, key), append(groups, s.arr), append(at, i), append(raws, raw)
	}
	redacted, vrules := r.lines(vals, keys, groups)
	for k, n := range vrules {
		add(k, n)
	}
	for j, v := range redacted {
		if v != vals[j] {
			set(at[j], v)
		} else if raws[j] != ([2]uint64{}) {
			r.clean.add(raws[j], len(v))
		}
	}
	if len(replace) == 0 {
		return line, false, rules
	}
	var b []byte
	last := 0
	for i, s := range strs {
		v, ok := replace[i]
		if !ok {
			continue
		}
		q, err := jsontext.AppendQuote(nil, v)
		if err != nil {
			// Not valid UTF-8 after all: write what is safe.
			q, _ = jsontext.AppendQuote(nil, strings.ToValidUTF8(v, "\uFFFD"))
		}
		b = append(b, line[last:s.start]...)
		b = append(b, q...)
		last = s.end
	}
	b = append(b, line[last:]...)
	return b, true, rules
}

// Values redacts vals, the decoded strings of one record, together: one
// pass of the secret rules over all of them. keys are the names of the
// members they are the values of: a name that says the value is a secret
// (password, token, …) is shown to the rules beside it.
func (r *Redactor) values(vals, keys []string) ([]string, map[string]int) {
	return r.lines(vals, keys, nil)
}

// lines is values where groups, when set, numbers the arrays values are
// elements of (-1: none): consecutive elements of one array are scanned
// as the lines of one text (a patch's lines, a PEM key in them).
func (r *Redactor) lines(vals, keys []string, groups []int) ([]string, map[string]int) {
	groups = grouped(groups, len(vals))
	var rules map[string]int
	add := func(rule string, n int) {
		if rules == nil {
			rules = map[string]int{}
		}
		rules[rule] += n
	}
	out := make([]string, len(vals))
	for i, s := range vals {
		out[i] = r.own(s, add)
	}
	if r.opts.Secrets {
		r.Prepare()
		<-r.detReady
		if r.det == nil {
			// The rules are built in: this cannot happen but by a broken
			// build of ccsite, and going on would publish secrets.
			panic(fmt.Sprintf("ccsite: %v", r.detErr))
		}
		// Values scanned before and found clean are not scanned again.
		skip := make([]bool, len(out))
		var hashes [][2]uint64
		for i, v := range out {
			if len(v) < minSecret {
				skip[i] = true
				continue
			}
			if len(v) >= cleanMin && groups[i] < 0 {
				if hashes == nil {
					hashes = make([][2]uint64, len(out))
				}
				hashes[i] = r.clean.key(judgedAs(keys[i]), v)
				skip[i] = r.clean.has(hashes[i])
			}
		}
		before := append([]string(nil), out...)
		// Encoded runs first: a rule matching part of one (a long
		// base64 value after "key:") would leave the rest undecodable.
		r.encodedSecrets(out, skip, add)
		r.secrets(out, keys, groups, skip, hashes, add)
		for i, v := range out {
			if !skip[i] && len(v) >= cleanMin && groups[i] < 0 && v == before[i] {
				r.clean.add(hashes[i], len(v))
			}
		}
	}
	return out, rules
}

// judgedAs is the member name a value is judged with: its own when the
// name says it is a secret, else none.
func judgedAs(key string) string {
	if key != "" && sensitiveKey(key) {
		return key
	}
	return ""
}

// own applies the user's own strings and patterns, anonymising and the
// URL password rule to one string.
func (r *Redactor) own(s string, add func(string, int)) string {
	if r.anon != nil {
		s = r.anon.Replace(s)
	}
	for _, l := range r.opts.Literals {
		if n := strings.Count(s, l); n > 0 {
			s = strings.ReplaceAll(s, l, "[REDACTED:user-literal]")
			add("user-literal", n)
			r.found("user-literal", l)
		}
	}
	for _, re := range r.opts.Patterns {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if re.NumSubexp() > 0 {
				sub := re.FindStringSubmatchIndex(m)
				if len(sub) >= 4 && sub[2] >= 0 {
					add("user-regex", 1)
					r.found("user-regex", m[sub[2]:sub[3]])
					return m[:sub[2]] + "[REDACTED:user-regex]" + m[sub[3]:]
				}
				return m
			}
			add("user-regex", 1)
			r.found("user-regex", m)
			return "[REDACTED:user-regex]"
		})
	}
	if r.opts.Secrets {
		var n int
		if s, n = urlPasswordsOf(s, r.allowed, r.found); n > 0 {
			add("url-password", n)
		}
	}
	return s
}

// secrets runs the secret rules once over all of vals and replaces what
// they find in each.
func (r *Redactor) secrets(vals, keys []string, groups []int, skip []bool, hashes [][2]uint64, add func(string, int)) {
	text, stripped, gs := secretText(vals, keys, groups, skip, hashes)
	if text == "" {
		return
	}
	found := r.findings(text)
	for _, gr := range gs {
		gr.cutAcross(found, vals, stripped, add, r.found)
	}
	replaceFound(found, vals, stripped, add, r.found)
}

// lineGroup is the elements of one array among the values, as the lines of
// one text.
type lineGroup struct {
	members []int
	starts  []int
	lines   []string // each member as scanned
	text    strings.Builder
}

// secretText makes the one text the secret rules scan for vals: each value
// not skipped (nor seen before) loosened, named when its key says what it
// is, and apart from the next; the elements of an array (groups) as the
// lines of one text, also kept apart by array in gs. stripped holds the
// values that had colour codes, without them ("" for the others).
func secretText(vals, keys []string, groups []int, skip []bool, hashes [][2]uint64) (text string, stripped []string, gs map[int]*lineGroup) {
	var sb strings.Builder
	size := 0
	for i, v := range vals {
		if !skip[i] {
			size += len(v) + len(separator)
		}
	}
	sb.Grow(size)
	stripped = make([]string, len(vals))
	// A tool's output is often in a record twice (the result block and
	// toolUseResult): each text is scanned once (known by its hash).
	var seen map[[2]uint64]bool
	for i, v := range vals {
		if skip[i] {
			continue
		}
		sv := v
		if strings.IndexByte(v, 0x1b) >= 0 {
			sv = stripANSI(v)
			stripped[i] = sv
		}
		name := judgedAs(keys[i])
		if g := groups[i]; g >= 0 {
			if gs == nil {
				gs = map[int]*lineGroup{}
			}
			gr := gs[g]
			if gr == nil {
				gr = &lineGroup{}
				gs[g] = gr
			}
			gr.members = append(gr.members, i)
			gr.starts = append(gr.starts, gr.text.Len())
			gr.lines = append(gr.lines, sv)
			writeLoosened(&gr.text, sv)
			gr.text.WriteByte('\f')
			writeLoosened(&sb, sv)
			if i+1 < len(vals) && groups[i+1] == g {
				sb.WriteByte('\f')
			} else {
				sb.WriteString(separator)
			}
			continue
		}
		if name == "" && hashes != nil && hashes[i] != ([2]uint64{}) && stripped[i] == "" {
			if seen[hashes[i]] {
				continue
			}
			if seen == nil {
				seen = map[[2]uint64]bool{}
			}
			seen[hashes[i]] = true
		}
		if name != "" {
			sb.WriteString(name)
			sb.WriteString(": ")
		}
		writeLoosened(&sb, sv)
		// No rule reaches from one value into the next across a NUL.
		sb.WriteString(separator)
	}
	return sb.String(), stripped, gs
}

// lineCut is a cut of one line of a lineGroup: bytes lo to hi replaced by
// mark.
type lineCut struct {
	lo, hi int
	mark   string
}

// cutAcross cuts from the group's members in vals the secrets found that
// span lines of it (a key in a patch): each line it spans loses its part.
// The cuts are found on the lines as scanned, then made from the end of
// each line.
func (gr *lineGroup) cutAcross(found []finding, vals, stripped []string, add func(string, int), told func(rule, secret string)) {
	cuts := gr.findCuts(found, add, told)
	for m, cs := range cuts {
		if len(cs) == 0 {
			continue
		}
		sort.Slice(cs, func(x, y int) bool { return cs[x].lo > cs[y].lo })
		line, low := gr.lines[m], len(gr.lines[m])+1
		for _, c := range cs {
			if c.hi > low {
				continue // inside a cut already made
			}
			line = line[:c.lo] + c.mark + line[c.hi:]
			low = c.lo
		}
		k := gr.members[m]
		vals[k], stripped[k] = line, ""
	}
}

// findCuts finds, for each line of the group, the cuts of the secrets found
// that span more than one line (those within one are cut by replaceFound).
// The first line a secret spans gets the mark, the others lose their part
// only.
func (gr *lineGroup) findCuts(found []finding, add func(string, int), told func(rule, secret string)) [][]lineCut {
	text := gr.text.String()
	cuts := make([][]lineCut, len(gr.members))
	for _, f := range found {
		for from := 0; ; {
			j := strings.Index(text[from:], f.raw)
			if j < 0 {
				break
			}
			a, b := from+j, from+j+len(f.raw)
			from = b
			first := true
			for m, line := range gr.lines {
				s, e := gr.starts[m], gr.starts[m]+len(line)
				lo, hi := max(a, s)-s, min(b, e)-s
				if lo >= hi || (a >= s && b <= e) {
					continue // not here, or within one line (cut below)
				}
				mark := ""
				if first {
					mark = "[REDACTED:" + f.rule + "]"
					add(f.rule, 1)
					told(f.rule, f.secret)
					first = false
				} else if lo == 0 && strings.IndexByte("+- ", line[0]) >= 0 {
					lo = 1 // a patch line keeps its sign
				}
				cuts[m] = append(cuts[m], lineCut{lo, hi, mark})
			}
		}
	}
	return cuts
}

// replaceFound replaces each secret found wherever it is in vals; a value
// where colour codes cut a secret loses its colours rather than keep it.
func replaceFound(found []finding, vals, stripped []string, add func(string, int), told func(rule, secret string)) {
	for _, f := range found {
		replaced := false
		for i, v := range vals {
			if n := strings.Count(v, f.secret); n > 0 {
				vals[i] = strings.ReplaceAll(v, f.secret, "[REDACTED:"+f.rule+"]")
				add(f.rule, n)
				replaced = true
			} else if s := stripped[i]; s != "" && strings.Contains(s, f.secret) {
				// The secret is cut by colour codes: the value loses
				// its colours rather than keep the secret.
				n := strings.Count(s, f.secret)
				vals[i] = strings.ReplaceAll(s, f.secret, "[REDACTED:"+f.rule+"]")
				stripped[i] = vals[i]
				add(f.rule, n)
				replaced = true
			}
		}
		if replaced {
			told(f.rule, f.secret)
		}
	}
}

// grouped keeps the array numbers of arrays with two elements or more
// among the values (-1 for the others); nil gives all -1.
func grouped(groups []int, size int) []int {
	if groups == nil {
		groups = make([]int, size)
		for i := range groups {
			groups[i] = -1
		}
		return groups
	}
	var n map[int]int
	for _, g := range groups {
		if g >= 0 {
			if n == nil {
				n = map[int]int{}
			}
			n[g]++
		}
	}
	for i, g := range groups {
		if g >= 0 && n[g] < 2 {
			groups[i] = -1
		}
	}
	return groups
}

// finding is a secret to replace: as the values hold it, and as the
// scanned text did (line ends as form feeds).
type finding struct{ rule, secret, raw string }

// findings runs the rules over text and returns what is to be replaced,
// longest first (so a secret holding another goes whole). A secret two
// rules find is named by the more specific one (a provider's rule before
// ccsite's own, those before gitleaks' generic one), whatever order the
// rules ran in, so the same text is always redacted the same way.
func (r *Redactor) findings(text string) []finding {
	best := map[string]string{}
	r.findInto(text, best, 0)
	out := make([]finding, 0, len(best))
	for sec, rule := range best {
		out = append(out, finding{rule, sec, strings.ReplaceAll(sec, "\n", "\f")})
	}

	sort.Slice(out, func(i, j int) bool {
		if len(out[i].secret) != len(out[j].secret) {
			return len(out[i].secret) > len(out[j].secret)
		}
		return out[i].secret < out[j].secret
	})
	return out
}

// findInto runs the rules over text and adds what is to be replaced to
// best (secret → rule). A value rejected because it is itself an
// assignment or a name (API_KEY = "DB_PASSWORD=…", api_key:
// aws_secret_access_key = …, ?token=DB_PASSWORD=…) is scanned again from
// where it starts to the end of its line, depth times at the most: the
// rules' matches do not overlap, so the inner assignment was never tried.
func (r *Redactor) findInto(text string, best map[string]string, depth int) {
	if scanHook != nil && depth == 0 {
		scanHook(text)
	}
	for _, f := range r.det.DetectString(text) {
		sec := strings.TrimSpace(f.Secret)
		if ruleLabel(f.RuleID) == "private-key-cut" {
			sec = keyTail(sec)
		}
		if strings.IndexByte(sec, '\f') >= 0 {
			sec = strings.ReplaceAll(sec, "\f", "\n")
		}
		if len(sec) < minSecret || isPlaceholder(sec) || isSignature(sec) || isObjectID(sec) ||
			(!uuidSecret(ruleLabel(f.RuleID)) && (isUUID(sec) || isHash(sec))) ||
			strings.Contains(sec, "[REDACTED:") || !accept(f.RuleID, sec, f.Match) {
			if depth < 3 && (f.RuleID == "password-assignment" || strings.HasPrefix(f.RuleID, "generic")) {
				if rest := valueRest(text, f.Match, f.Secret); rest != "" {
					r.findInto(rest, best, depth+1)
				}
			}
			continue
		}
		rule := ruleLabel(f.RuleID)
		if rule == "cookie" {
			for _, c := range moreCookies(text, f.Match) {
				if _, ok := best[c]; !ok && !r.allowed(c) {
					best[c] = rule
				}
			}
		}
		if r.allowed(sec) {
			continue
		}
		if prev, ok := best[sec]; !ok || rulePriority(rule) < rulePriority(prev) ||
			(rulePriority(rule) == rulePriority(prev) && rule < prev) {
			best[sec] = rule
		}
	}
}

// keyTail drops from a key cut short the last line when it is a closing
// tag's name, not a line of the key: the scanned text writes "</tag>" as
// " /tag>" (writeLoosened), and "/tag" reads as base64.
func keyTail(sec string) string {
	i := strings.LastIndexByte(sec, '\f')
	if i < 0 {
		return sec
	}
	if last := strings.TrimSpace(sec[i+1:]); len(last) < 16 && strings.HasPrefix(last, "/") && i > 0 && sec[i+1] == ' ' {
		return strings.TrimSpace(sec[:i])
	}
	return sec
}

// uuidSecret tells whether a rule's secret may be shaped like a uuid: a
// Heroku API key is one, and so may be a password.
func uuidSecret(rule string) bool {
	switch rule {
	case "password-assignment", "cli-password", "netrc-password", "heroku-api-key", "snyk-api-token", "cookie", "curl-cookie":
		return true
	}
	return false
}

// valueRest is the text from where the value secret of a match starts to
// the end of its line, when an assignment (= or :) is in it: "" if not.
func valueRest(text, match, secret string) string {
	if secret == "" {
		return ""
	}
	at := strings.Index(text, match)
	if at < 0 {
		return ""
	}
	k := strings.LastIndex(match, secret)
	if k < 0 {
		return ""
	}
	from := at + k
	to := len(text)
	if e := strings.IndexAny(text[from:], "\f\x00"); e >= 0 {
		to = from + e
	}
	rest := text[from:to]
	if len(rest) < minSecret {
		return ""
	}
	// The value holds an assignment (DB_PASSWORD=…), or is a name an
	// assignment follows (aws_secret_access_key = …); either way the
	// name holds a word of the rules' (most rejected values are code,
	// and are not scanned again).
	name := ""
	if i := strings.IndexAny(secret, "=:"); i > 0 {
		name = secret[:i]
	} else {
		after := strings.TrimLeft(rest[len(secret):], " \t\"'`")
		if after == "" || after[0] != '=' && after[0] != ':' {
			return ""
		}
		name = secret
	}
	if !sensitiveKeyOf(name) {
		return ""
	}
	return rest
}

// rulePriority ranks rules from the most specific (0) to the least.
func rulePriority(rule string) int {
	switch {
	case strings.HasPrefix(rule, "generic"):
		return 2
	case isExtraRule(rule):
		return 1
	}
	return 0
}

// blob is a decoded view of part of a value: vals[val][from:to] holds
// text encoded.
type blob struct {
	val, from, to int
	text          string
	// enc, when set, writes a secret as the run holds it.
	enc func(string) []string
}

// encodedViews decodes what vals (those not skipped) hold encoded: base64
// runs (wrapped over lines too), percent-encoding, the lines holding HTML
// references or escaped JSON, and what those decode to encoded again.
func encodedViews(vals []string, skip []bool) []blob {
	var blobs []blob
	for i, v := range vals {
		if skip[i] {
			continue
		}
		for _, sp := range base64Runs(v) {
			if t, ok := decodeBase64Text(v[sp[0]:sp[1]]); ok {
				blobs = append(blobs, blob{val: i, from: sp[0], to: sp[1], text: t})
			}
		}
		for _, sp := range wrappedBase64Runs(v) {
			if t, ok := decodeBase64Text(joinLines(v[sp[0]:sp[1]])); ok {
				blobs = append(blobs, blob{val: i, from: sp[0], to: sp[1], text: t})
			}
		}
		for _, sp := range percentRuns(v) {
			if t, ok := decodePercent(v[sp[0]:sp[1]]); ok {
				blobs = append(blobs, blob{val: i, from: sp[0], to: sp[1], text: t})
			}
		}
		// The lines holding a character reference or an escaped quote,
		// decoded (not the whole value: a file read holds many).
		for _, sp := range linesWith(v, hasEntity) {
			if t, ok := decodeEntities(v[sp[0]:sp[1]]); ok {
				blobs = append(blobs, blob{val: i, from: sp[0], to: sp[1], text: t, enc: entityForms})
			}
		}
		for _, sp := range linesWith(v, hasEscape) {
			if t, ok := decodeEscapes(v[sp[0]:sp[1]]); ok {
				blobs = append(blobs, blob{val: i, from: sp[0], to: sp[1], text: t, enc: escapedForms})
			}
		}
	}
	// What a decoded run holds encoded again (base64 of a URL holding a
	// percent-encoded key, base64 of wrapped base64): once more, cut
	// with the outer run.
	for _, b := range blobs[:len(blobs):len(blobs)] {
		if b.enc != nil {
			continue
		}
		t := b.text
		for _, sp := range base64Runs(t) {
			if d, ok := decodeBase64Text(t[sp[0]:sp[1]]); ok {
				blobs = append(blobs, blob{val: b.val, from: b.from, to: b.to, text: d})
			}
		}
		for _, sp := range wrappedBase64Runs(t) {
			if d, ok := decodeBase64Text(joinLines(t[sp[0]:sp[1]])); ok {
				blobs = append(blobs, blob{val: b.val, from: b.from, to: b.to, text: d})
			}
		}
		for _, sp := range percentRuns(t) {
			if d, ok := decodePercent(t[sp[0]:sp[1]]); ok {
				blobs = append(blobs, blob{val: b.val, from: b.from, to: b.to, text: d})
			}
		}
	}
	return blobs
}

// encodedSecrets decodes what vals hold encoded and runs the rules over
// that: base64 runs that decode to text (a run wrapped over lines, as
// base64 writes 76 columns, joined first), percent-encoded URL parts,
// HTML character references (&quot;, &#39;: a page shows them decoded)
// and JSON string escapes (\" in a JSON text held in a string). A secret
// found is replaced where it stands when it stands there as it is, or
// encoded as that view encodes it; else the whole encoded run that hides
// it is.
func (r *Redactor) encodedSecrets(vals []string, skip []bool, add func(string, int)) {
	blobs := encodedViews(vals, skip)
	if len(blobs) == 0 {
		return
	}
	var sb strings.Builder
	scans := make([]string, len(blobs))
	for k, b := range blobs {
		scans[k] = loosen(stripANSI(b.text))
		sb.WriteString(scans[k])
		sb.WriteString(separator)
	}
	found := r.findings(sb.String())
	type cut struct {
		from, to int
		rule     string
		secret   string
	}
	cuts := map[int][]cut{}
	for k, b := range blobs {
		// gitleaks has no rule for a URL's password: ours, on the
		// decoded text too.
		if _, n := urlPasswordsOf(b.text, r.allowed, r.found); n > 0 && b.enc == nil {
			cuts[b.val] = append(cuts[b.val], cut{b.from, b.to, "url-password", ""})
			scans[k] = ""
		}
	}
	var literal []finding
	for _, f := range found {
		plain := false
		for _, v := range vals {
			if strings.Contains(v, f.secret) {
				plain = true
				break
			}
		}
		if plain {
			literal = append(literal, f)
			continue
		}
		for k, b := range blobs {
			if !strings.Contains(scans[k], f.raw) {
				continue
			}
			if b.enc != nil {
				// The secret as the value writes it, if it is there.
				done := false
				for _, e := range b.enc(f.secret) {
					if e != f.secret && strings.Contains(vals[b.val], e) {
						literal = append(literal, finding{f.rule, e, e})
						done = true
					}
				}
				if done {
					continue
				}
			}
			cuts[b.val] = append(cuts[b.val], cut{b.from, b.to, f.rule, f.secret})
		}
	}
	for i, cs := range cuts {
		// Overlapping spans (a line of a wrapped run, and the run) are
		// cut as one, named by the first; then from the end, so earlier
		// spans stay put.
		sort.Slice(cs, func(a, b int) bool { return cs[a].from < cs[b].from || cs[a].from == cs[b].from && cs[a].to > cs[b].to })
		merged := cs[:1]
		for _, c := range cs[1:] {
			if last := &merged[len(merged)-1]; c.from < last.to {
				last.to = max(last.to, c.to)
				continue
			}
			merged = append(merged, c)
		}
		v := vals[i]
		for k := len(merged) - 1; k >= 0; k-- {
			c := merged[k]
			v = v[:c.from] + "[REDACTED:" + c.rule + "]" + v[c.to:]
			add(c.rule, 1)
			if c.secret != "" {
				r.found(c.rule, c.secret)
			}
		}
		vals[i] = v
	}
	for _, f := range literal {
		replaced := false
		for i, v := range vals {
			if n := strings.Count(v, f.secret); n > 0 {
				vals[i] = strings.ReplaceAll(v, f.secret, "[REDACTED:"+f.rule+"]")
				add(f.rule, n)
				replaced = true
			}
		}
		if replaced {
			r.found(f.rule, f.secret)
		}
	}
}

// scanHook, when set (by tests), sees every text the rules scan.
var scanHook func(string)

// separator stands between the values scanned together: a line end for
// the rules that end a secret there, then a NUL no rule's character
// classes take, so no match runs from one value into the next.
const separator = "\f\x00\f"

// minSecret is the shortest string taken for a secret.
const minSecret = 6

// reURLPassword finds the password of scheme://user:password@host.
var reURLPassword = regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]{1,20}://[^\s/:@"'\\]{0,64}:([^\s/@"'\\]{3,128})@[a-z0-9\[]`)

// urlPasswords redacts the password of each scheme://user:password@host
// in s. The expression runs only on a window around each "://" (on whole
// lines it cost more than all of gitleaks' rules).
func urlPasswords(s string) (string, int) {
	return urlPasswordsOf(s, nil, nil)
}

// urlPasswordsOf is urlPasswords leaving the passwords allowed names,
// telling found of each one it redacts.
func urlPasswordsOf(s string, allowed func(string) bool, report func(rule, secret string)) (string, int) {
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
		if strings.HasPrefix(pw, "[REDACTED") || strings.HasPrefix(pw, "$") || strings.HasPrefix(pw, "{") ||
			allowed != nil && allowed(pw) {
			continue
		}
		if report != nil {
			report("url-password", pw)
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

// isID tells whether s is an identifier, never a secret: a uuid, an API
// object id (msg_…, toolu_…, req_…) or a commit hash.
func isID(s string) bool {
	return isUUID(s) || isObjectID(s) || isHash(s)
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
		} else if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isObjectID: msg_…, toolu_…, srvtoolu_…, req_…, chatcmpl_…, call_…,
// file_…, att_…, agent_… followed by letters and digits only.
func isObjectID(s string) bool {
	i := strings.IndexByte(s, '_')
	if i < 0 || i == len(s)-1 {
		return false
	}
	switch s[:i] {
	case "msg", "toolu", "srvtoolu", "req", "chatcmpl", "call", "file", "att", "agent":
	default:
		return false
	}
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// isHash: a commit hash (short or whole) or a SHA-256, in lower-case hex.
func isHash(s string) bool {
	if n := len(s); !(n >= 7 && n <= 12 || n == 40 || n == 64) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// Fingerprint names what the Redactor does (rules on or off, the user's
// patterns and strings, anonymising), so a build can tell whether pages
// made with another Redactor differ. It never holds a literal itself.
func (r *Redactor) Fingerprint() string {
	if !r.Active() {
		return "off"
	}
	h := sha256.New()
	fmt.Fprintf(h, "rules=%s secrets=%v anon=%v home=%q user=%q\n", Version, r.opts.Secrets, r.anon != nil, r.opts.Home, r.opts.User)
	for _, p := range r.opts.Patterns {
		fmt.Fprintf(h, "re %q\n", p.String())
	}
	for _, l := range r.opts.Literals {
		fmt.Fprintf(h, "lit %q\n", l)
	}
	allow := make([]string, 0, len(r.allow))
	for a := range r.allow {
		allow = append(allow, a)
	}
	sort.Strings(allow)
	for _, a := range allow {
		fmt.Fprintf(h, "allow %q\n", a)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
