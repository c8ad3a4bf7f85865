package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"ccsite/build/archive"
	"ccsite/build/keep"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/build/session"
	"ccsite/build/transcript"

	"github.com/go-json-experiment/json/jsontext"
)

// ccsite review: every redaction a build would make, listed in context,
// on a page written to the site's state folder (never to the site), so a
// user sees what is hidden before anything is published, and can mark a
// finding as not a secret (its FindingID in an --allow-file).

// The review's files in the state folder.
const (
	ReviewPage = "review.html"
	ReviewJSON = "review.json"
)

// reviewContext is how many characters of context a finding shows on
// each side of its marker.
const reviewContext = 40

// ReviewConfig says what Review reads and where it writes.
type ReviewConfig struct {
	// Paths are the inputs, as a build takes them.
	Paths []string
	// Out is the site folder (may not exist): the state folder, and the
	// page in it, must not be inside it. "" checks nothing.
	Out string
	// State is the state folder the page is written to; its archive's
	// vanished sessions (those a build would restore) are reviewed too.
	State string
	// Redact is the redaction a build would make (its OnFind is Review's).
	Redact  redact.Options
	Exclude Exclude
	Omit    omit.Options
	// Home, when set, is shown as ~ in the paths.
	Home string
	// Now stamps the page (zero: the time Review starts).
	Now time.Time
}

// ReviewReport is what Review found: never a secret, only its rule, its
// place, its FindingID and its context taken from the redacted text.
type ReviewReport struct {
	Schema    string    `json:"schema"`
	Generated time.Time `json:"generated"`
	// Inputs are the paths read (home shown as ~).
	Inputs []string `json:"inputs"`
	// Files and Lines count the transcript files and lines read; Kept the
	// files of sessions that have vanished, read from the archive.
	Files int `json:"files"`
	Lines int `json:"lines"`
	Kept  int `json:"kept,omitempty"`
	// Total counts the findings (one per rule, file, line and id).
	Total int          `json:"total"`
	Rules []ReviewRule `json:"rules"`
	// Unreplaced counts the values a rule matched that nothing was
	// replaced for (the rules saw them in a rewritten form of the text,
	// which the strings do not hold as they are): not listed.
	Unreplaced int `json:"unreplaced,omitempty"`
	// Excluded is what the exclusions left out.
	Excluded ExcludeStats `json:"excluded"`
	// Page and JSON are where the review was written.
	Page string `json:"-"`
	JSON string `json:"-"`
}

// ByRule is the count of findings of each rule.
func (r *ReviewReport) ByRule() map[string]int {
	m := map[string]int{}
	for _, ru := range r.Rules {
		m[ru.Rule] = ru.Count
	}
	return m
}

// ReviewRule is the findings of one rule.
type ReviewRule struct {
	Rule  string `json:"rule"`
	Count int    `json:"count"`
	// Distinct counts the different values (ids) found.
	Distinct int             `json:"distinct"`
	Findings []ReviewFinding `json:"findings"`
}

// ReviewFinding is one redaction.
type ReviewFinding struct {
	Rule string `json:"rule"`
	// File is the file (under the home folder as ~/…) and Line its line,
	// 1-based (0: not a line of the file, see Where).
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Where is what was redacted: "line" (a transcript line), "stored" (a
	// large tool output's file: Line is its line), "meta" (a sub-agent's
	// .meta.json), "name" (a folder or file name shown on pages).
	Where string `json:"where"`
	// ID is redact.FindingID of the value: what an allow list names.
	// Empty for an image's metadata, which is always removed.
	ID string `json:"id,omitempty"`
	// Before, Marker and After are the redacted text around the finding:
	// Marker is [REDACTED:<rule>].
	Before string `json:"before"`
	Marker string `json:"marker"`
	After  string `json:"after"`
	// Placed is false when the marker could not be told apart (a secret
	// inside a base64 or percent-encoded run, replaced as the whole run):
	// the context is of a marker of the rule on that line.
	Placed bool `json:"placed"`
}

// CheckStatePlace refuses a state folder inside the site folder out (it
// would be published) and a site inside its state folder, links followed.
func CheckStatePlace(out, state string) error { return checkStatePlace(out, state) }

// Review reads every transcript line a build of cfg would read (omit
// applied, then redaction, one line after the other with one Redactor),
// lists each finding with its context, and writes review.html and
// review.json to the state folder.
func Review(ctx context.Context, cfg ReviewConfig) (*ReviewReport, error) {
	if cfg.State == "" {
		return nil, errors.New("review: no state folder")
	}
	page, jsonPath := filepath.Join(cfg.State, ReviewPage), filepath.Join(cfg.State, ReviewJSON)
	if cfg.Out != "" {
		if err := checkStatePlace(cfg.Out, cfg.State); err != nil {
			return nil, err
		}
		o := resolvedPath(cfg.Out)
		for _, p := range []string{page, jsonPath} {
			if t := linkTarget(p); within(resolvedPath(p), o) || t != "" && within(t, o) {
				return nil, fmt.Errorf("%s is inside the site %s: it would be published (choose another --state)", p, cfg.Out)
			}
		}
	}
	if cfg.Now.IsZero() {
		cfg.Now = time.Now()
	}
	rv := &reviewer{home: cfg.Home, seen: map[string]bool{}, secrets: map[string]bool{}, origin: map[string]string{}}
	opts := cfg.Redact
	opts.OnFind = rv.onFind
	red, err := redact.New(opts)
	if err != nil {
		return nil, err
	}
	rv.red = red
	if err := os.MkdirAll(cfg.State, 0o700); err != nil {
		return nil, err
	}

	a, err := archive.Discover(ctx, cfg.Paths)
	if err != nil && !errors.Is(err, archive.ErrNothing) {
		return nil, err
	}
	// Sessions a build would restore from the archive, written to a
	// private folder of the state folder while they are read.
	tmp, roots, err := rv.vanished(cfg.State, cfg.Paths, a)
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if len(roots) > 0 {
		a, err = archive.Discover(ctx, append(append([]string(nil), cfg.Paths...), roots...))
	}
	if err != nil {
		return nil, err
	}
	rep := &ReviewReport{Schema: "ccsite.review/1", Generated: cfg.Now.UTC().Truncate(time.Second)}
	for _, p := range cfg.Paths {
		rep.Inputs = append(rep.Inputs, rv.shown(p))
	}
	rep.Excluded = cfg.Exclude.Apply(a)
	if len(a.Projects) == 0 && len(a.Orphans) == 0 {
		return nil, fmt.Errorf("%w: the exclusions left nothing to review", archive.ErrNothing)
	}

	agent := func(ag *archive.AgentFile) error {
		if err := rv.file(ctx, ag.Path, cfg.Omit, rep); err != nil {
			return err
		}
		if ag.Meta != nil {
			rv.text(ag.MetaPath(), "meta", ag.Meta.AgentType)
			rv.text(ag.MetaPath(), "meta", ag.Meta.Description)
		}
		return nil
	}
	for _, p := range a.Projects {
		for _, sf := range p.Sessions {
			if err := rv.file(ctx, sf.Path, cfg.Omit, rep); err != nil {
				return nil, err
			}
			for _, ag := range sf.Agents {
				if err := agent(ag); err != nil {
					return nil, err
				}
			}
			if !cfg.Omit.ToolOutput {
				for _, x := range sf.Extras {
					if filepath.Base(filepath.Dir(x)) == "tool-results" && archive.Within(x, strings.TrimSuffix(sf.Path, ".jsonl")) {
						rv.stored(x)
					}
				}
			}
		}
	}
	for _, ag := range a.Orphans {
		if err := agent(ag); err != nil {
			return nil, err
		}
	}
	rv.names(a)

	var mask func(string) string
	rep.Rules, rep.Total, mask = rv.grouped()
	for i, p := range rep.Inputs {
		rep.Inputs[i] = mask(p)
	}
	rep.Unreplaced = rv.unreplaced
	if err := writeReview(page, jsonPath, rep); err != nil {
		return nil, err
	}
	rep.Page, rep.JSON = page, jsonPath
	return rep, nil
}

// linkTarget is where the link at p leads, resolved as far as it exists
// (a link to a file not made yet too); "" when p is no link.
func linkTarget(p string) string {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return ""
	}
	to, err := os.Readlink(p)
	if err != nil {
		return ""
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(filepath.Dir(p), to)
	}
	return resolvedPath(to)
}

// reviewer collects the findings, one unit of text (a line, a name, a
// file) at a time.
type reviewer struct {
	red  *redact.Redactor
	home string

	mu   sync.Mutex
	told []told // the current unit's findings, as OnFind told them

	seen     map[string]bool // file, line, id of each finding listed
	findings []ReviewFinding
	// secrets are the values found, kept only while Review runs: no
	// context or path is written holding one.
	secrets map[string]bool
	// origin is the path each vanished file read from the archive had.
	origin map[string]string
	// unreplaced counts the findings told whose rule left no marker.
	unreplaced int
}

type told struct{ rule, secret string }

func (rv *reviewer) onFind(rule, secret string) {
	rv.mu.Lock()
	rv.told = append(rv.told, told{rule, secret})
	rv.mu.Unlock()
}

// take returns what OnFind was told since the last take.
func (rv *reviewer) take() []told {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	t := rv.told
	rv.told = nil
	return t
}

// shown is a path as the page shows it: where it was read from (a vanished
// file's own path), under the home folder as ~/….
func (rv *reviewer) shown(p string) string {
	if o, ok := rv.origin[p]; ok {
		p = o
	}
	if rv.home == "" {
		return p
	}
	home := strings.TrimRight(rv.home, `/\`)
	rel, err := filepath.Rel(home, p)
	if err != nil || !filepath.IsAbs(p) || rel != "." && !filepath.IsLocal(rel) {
		return p
	}
	if rel == "." {
		return "~"
	}
	return "~/" + filepath.ToSlash(rel)
}

// file reviews a transcript's lines, numbered and read as the transcript
// reader does (blank lines counted, surrounding blanks trimmed, lines over
// the reader's limit skipped).
func (rv *reviewer) file(ctx context.Context, path string, om omit.Options, rep *ReviewReport) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		// The build reports it as a problem: nothing of it is published.
		return nil
	}
	rep.Files++
	if _, ok := rv.origin[path]; ok {
		rep.Kept++
	}
	lineNo := 0
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		seg := data[:n]
		data = data[n:]
		lineNo++
		if n > transcript.MaxLineBytes {
			continue
		}
		line := bytes.TrimSpace(seg)
		if len(line) == 0 {
			continue
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		rep.Lines++
		in := om.Line(path, line)
		out := rv.red.Line(path, in)
		t := rv.take()
		if len(t) == 0 {
			continue
		}
		orig, ok1 := jsonStrings(in)
		redd, ok2 := jsonStrings(out)
		if !ok1 || !ok2 || len(orig) != len(redd) {
			orig, redd = []string{string(in)}, []string{string(out)}
		}
		rv.unit(path, lineNo, "line", t, orig, redd, false)
	}
	return nil
}

// stored reviews a large tool output's file, which a page shows in place
// of its preview.
func (rv *reviewer) stored(path string) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > storedMax {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	s := string(data)
	out := rv.red.String(path, s)
	if t := rv.take(); len(t) > 0 {
		rv.unit(path, 0, "stored", t, []string{s}, []string{out}, true)
	}
}

// text reviews a string a page shows that is no transcript line.
func (rv *reviewer) text(file, where, s string) {
	if s == "" {
		return
	}
	out := rv.red.String(file, s)
	if t := rv.take(); len(t) > 0 {
		rv.unit(file, 0, where, t, []string{s}, []string{out}, false)
	}
}

// names reviews the names pages show of the archive's folders and files
// (redactNames).
func (rv *reviewer) names(a *archive.Archive) {
	name := func(file, s string) {
		if s == "" {
			return
		}
		out := rv.red.Name(file, s)
		if t := rv.take(); len(t) > 0 {
			rv.unit(file, 0, "name", t, []string{s}, []string{out}, false)
		}
	}
	agent := func(ag *archive.AgentFile) {
		name(ag.Path, ag.ID)
		name(ag.Path, ag.ParentID)
		name(ag.Path, ag.FirstCWD)
		if ag.Meta != nil {
			name(ag.Path, ag.Meta.WorktreePath)
		}
	}
	for _, p := range a.Projects {
		file := ""
		if len(p.Sessions) > 0 {
			file = p.Sessions[0].Path
		}
		name(file, p.Path)
		name(file, p.Name)
		for _, sf := range p.Sessions {
			name(sf.Path, sf.ID)
			name(sf.Path, sf.SessionID)
			name(sf.Path, sf.FirstCWD)
			for _, ag := range sf.Agents {
				agent(ag)
			}
		}
	}
	for _, ag := range a.Orphans {
		agent(ag)
	}
}

// unit lists the findings t of one unit of text, whose strings were orig
// and became red. lines: Line is the line of the finding in the unit's one
// text (a stored output).
func (rv *reviewer) unit(file string, line int, where string, t []told, orig, red []string, lines bool) {
	// Each value once, in the order told.
	var uniq []told
	dup := map[told]bool{}
	for _, f := range t {
		if !dup[f] {
			dup[f] = true
			uniq = append(uniq, f)
		}
	}
	for _, f := range uniq {
		if f.secret != "" {
			rv.secrets[f.secret] = true
		}
	}
	for _, f := range uniq {
		id := ""
		if f.secret != "" {
			id = redact.FindingID(f.secret)
		}
		pl := place(f, uniq, orig, red)
		if pl.val < 0 && f.secret != "" {
			// No marker of its rule: the rules matched the value in a
			// form of the text they scan (loosened, escapes decoded) that
			// the strings do not hold as it is, and nothing was replaced.
			rv.unreplaced++
			continue
		}
		ln := line
		if lines {
			ln = 1
			switch {
			case pl.origVal >= 0:
				ln += strings.Count(orig[pl.origVal][:pl.origAt], "\n")
			case pl.val >= 0:
				ln += strings.Count(red[pl.val][:pl.at], "\n")
			}
		}
		key := fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", file, ln, where, id, f.rule)
		if id != "" {
			key = fmt.Sprintf("%s\x00%d\x00%s\x00%s", file, ln, where, id)
		}
		if rv.seen[key] {
			continue
		}
		rv.seen[key] = true
		fd := ReviewFinding{Rule: f.rule, File: file, Line: ln, Where: where, ID: id, Placed: pl.placed}
		if pl.val >= 0 {
			fd.Marker = reviewMarker(f.rule)
			fd.Before, fd.After = around(red[pl.val], pl.at, pl.at+len(fd.Marker))
		}
		rv.findings = append(rv.findings, fd)
	}
}

func reviewMarker(rule string) string { return "[REDACTED:" + rule + "]" }

// placed is where a finding's marker is in the redacted strings (val -1:
// nowhere), and where its value was in the original ones (origVal -1:
// not there as it is).
type placed struct {
	val, at         int
	origVal, origAt int
	placed          bool
}

// place finds the marker that replaced finding f of a unit (all its
// findings), whose strings were orig and became red. The redactor
// replaces each occurrence of a value where it stands, in order, so the
// k-th marker of the rule in a string is the k-th occurrence there of a
// value of the rule (markers already in the text counted). A value found
// only inside an encoded run (the run replaced whole) has no occurrence
// of its own: the first marker of its rule stands for it.
func place(f told, all []told, orig, red []string) placed {
	m := reviewMarker(f.rule)
	res := placed{val: -1, origVal: -1}
	if f.secret == "" {
		return res
	}
	if len(orig) == len(red) {
		for i := range orig {
			p := strings.Index(orig[i], f.secret)
			if p < 0 {
				continue
			}
			if res.origVal < 0 {
				res.origVal, res.origAt = i, p
			}
			ms := indexAll(red[i], m)
			if len(ms) == 0 {
				continue
			}
			k := strings.Count(orig[i][:p], m) + occurrencesBefore(orig[i], p, f.rule, all)
			res.origVal, res.origAt = i, p
			if k < len(ms) {
				res.val, res.at, res.placed = i, ms[k], true
			} else {
				res.val, res.at = i, ms[len(ms)-1]
			}
			return res
		}
	}
	for i := range red {
		if j := strings.Index(red[i], m); j >= 0 {
			res.val, res.at = i, j
			return res
		}
	}
	return res
}

// indexAll is every index of sub in s, not overlapping.
func indexAll(s, sub string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + len(sub)
	}
}

// occurrencesBefore counts the occurrences, not overlapping, of the values
// of rule's findings in s that end before p (the longest first where they
// overlap, as the redactor replaces them).
func occurrencesBefore(s string, p int, rule string, all []told) int {
	type span struct{ from, to int }
	var spans []span
	for _, f := range all {
		if f.rule != rule || f.secret == "" {
			continue
		}
		for _, at := range indexAll(s[:min(len(s), p+len(f.secret))], f.secret) {
			if at < p {
				spans = append(spans, span{at, at + len(f.secret)})
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].from != spans[j].from {
			return spans[i].from < spans[j].from
		}
		return spans[i].to > spans[j].to
	})
	n, end := 0, -1
	for _, sp := range spans {
		if sp.from < end {
			continue
		}
		n++
		end = sp.to
	}
	return n
}

// around is up to reviewContext characters of s before from and after to,
// on one line: line ends shown as ⏎, other control characters and
// terminal escapes dropped.
func around(s string, from, to int) (before, after string) {
	// A few more bytes than characters wanted, then cut to characters.
	const room = reviewContext * 8
	b := s[max(0, from-room):from]
	a := s[to:min(len(s), to+room)]
	b, a = strings.ToValidUTF8(b, ""), strings.ToValidUTF8(a, "")
	b, a = oneLineText(session.StripANSI(b)), oneLineText(session.StripANSI(a))
	if n := utf8.RuneCountInString(b); n > reviewContext {
		r := []rune(b)
		b = "…" + string(r[n-reviewContext:])
	} else if from > room {
		b = "…" + b
	}
	if n := utf8.RuneCountInString(a); n > reviewContext {
		a = string([]rune(a)[:reviewContext]) + "…"
	} else if to+room < len(s) {
		a += "…"
	}
	return b, a
}

// oneLineText writes line ends as ⏎ and a run of blanks as one space, and
// drops the other control characters.
func oneLineText(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return '⏎'
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029:
			return -1
		}
		return r
	}, s)
	if !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' && space {
			continue
		}
		space = r == ' '
		b.WriteRune(r)
	}
	return b.String()
}

// jsonStrings is every string of a JSON line (member names too), decoded,
// in order: what the redactor scans and writes back in place. ok is false
// when the line is not JSON.
func jsonStrings(line []byte) (out []string, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return out, len(out) > 0
		}
		if err != nil {
			return nil, false
		}
		if tok.Kind() == '"' {
			out = append(out, tok.String())
		}
	}
}

// vanished writes the sessions the archive in state keeps from paths that
// a build would restore (their files gone) to a private folder of state,
// and returns it and the roots to discover with paths.
func (rv *reviewer) vanished(state string, paths []string, a *archive.Archive) (tmp string, roots []string, err error) {
	if _, err := os.Stat(filepath.Join(archiveDir(state), "index.json")); err != nil {
		return "", nil, nil
	}
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		return "", nil, err
	}
	defer st.Close()
	seen := map[string]bool{}
	if a != nil {
		for _, e := range keepList(paths, a) {
			seen[e.Path] = true
		}
	}
	var gone []*keep.Entry
	for _, e := range st.Vanished(paths, seen) {
		if e.Kind != keep.KindFileHistory {
			gone = append(gone, e)
		}
	}
	if len(gone) == 0 {
		return "", nil, nil
	}
	if tmp, err = os.MkdirTemp(state, ".review-"); err != nil {
		return "", nil, err
	}
	if tmp, err = filepath.Abs(tmp); err != nil {
		return tmp, nil, err
	}
	for _, e := range gone {
		sum := sha256.Sum256([]byte(e.Root))
		root := filepath.Join(tmp, hex.EncodeToString(sum[:8]))
		p := filepath.Join(root, filepath.FromSlash(e.Rel))
		if !strings.HasPrefix(p, root+string(filepath.Separator)) {
			continue
		}
		data, err := st.Read(e)
		if err != nil {
			return tmp, nil, err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return tmp, nil, err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return tmp, nil, err
		}
		os.Chtimes(p, time.Unix(0, e.MTime), time.Unix(0, e.MTime))
		rv.origin[p] = e.Path
		if !slices.Contains(roots, root) {
			roots = append(roots, root)
		}
	}
	return tmp, roots, nil
}

// grouped is the findings by rule, the most found first, each rule's by
// file and line; no path or context holds a value found.
func (rv *reviewer) grouped() (rules []ReviewRule, total int, mask func(string) string) {
	var vals []string
	for s := range rv.secrets {
		if len(s) >= 3 {
			vals = append(vals, s)
		}
	}
	// Longest first, so one holding another goes whole.
	sort.Slice(vals, func(i, j int) bool {
		return len(vals[i]) > len(vals[j]) || len(vals[i]) == len(vals[j]) && vals[i] < vals[j]
	})
	mask = func(s string) string { return s }
	if len(vals) > 0 {
		pairs := make([]string, 0, 2*len(vals))
		for _, v := range vals {
			pairs = append(pairs, v, "[REDACTED]")
		}
		r := strings.NewReplacer(pairs...)
		mask = r.Replace
	}
	by := map[string]*ReviewRule{}
	ids := map[string]map[string]bool{}
	for _, f := range rv.findings {
		f.File = mask(rv.shown(f.File))
		f.Before, f.After = mask(f.Before), mask(f.After)
		ru := by[f.Rule]
		if ru == nil {
			ru = &ReviewRule{Rule: f.Rule}
			by[f.Rule] = ru
			ids[f.Rule] = map[string]bool{}
		}
		ru.Findings = append(ru.Findings, f)
		ru.Count++
		if f.ID != "" {
			ids[f.Rule][f.ID] = true
		}
	}
	out := make([]ReviewRule, 0, len(by))
	for _, ru := range by {
		ru.Distinct = len(ids[ru.Rule])
		sort.SliceStable(ru.Findings, func(i, j int) bool {
			a, b := ru.Findings[i], ru.Findings[j]
			if a.File != b.File {
				return a.File < b.File
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Where < b.Where
		})
		total += ru.Count
		out = append(out, *ru)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Rule < out[j].Rule
	})
	return out, total, mask
}

// writeReview writes the page and the JSON, the user's alone.
func writeReview(page, jsonPath string, rep *ReviewReport) error {
	var b bytes.Buffer
	if err := reviewTemplate.Execute(&b, rep); err != nil {
		return err
	}
	if err := WritePrivateFile(page, b.Bytes()); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return WritePrivateFile(jsonPath, append(data, '\n'))
}

// reviewWhere says where a finding is: file:line, or what of the file.
func reviewWhere(f ReviewFinding) string {
	switch f.Where {
	case "meta":
		return f.File + " (sub-agent description)"
	case "name":
		return f.File + " (a name pages show)"
	}
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

var reviewTemplate = template.Must(template.New("review").Funcs(template.FuncMap{
	// pathParts cuts a path after each separator, where it may wrap.
	"pathParts": func(p string) []string { return strings.SplitAfter(p, "/") },
	"whereNote": func(f ReviewFinding) string {
		switch f.Where {
		case "meta":
			return "(its sub-agent description)"
		case "name":
			return "(a name pages show)"
		case "stored":
			return "(a large tool output)"
		}
		return ""
	},
	"anchor": func(rule string) string { return "rule-" + rule },
	// allowLines are a rule's ids, each once, as an allow file takes them.
	"allowLines": func(ru ReviewRule) string {
		var b strings.Builder
		seen := map[string]bool{}
		for _, f := range ru.Findings {
			if f.ID == "" || seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			fmt.Fprintf(&b, "%s  # %s, %s\n", f.ID, ru.Rule, reviewWhere(f))
		}
		return b.String()
	},
}).Parse(reviewHTML))

const reviewHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>ccsite review: {{.Total}} redaction(s)</title>
<style>
:root { color-scheme: light dark; --bg: #fff; --fg: #1d2125; --muted: #5e6873; --line: #d9dee3; --code: #f3f5f7; --mark: #fde2a6; --markfg: #5a3b00; --accent: #0b62c4; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15181c; --fg: #e3e6e9; --muted: #9aa4ae; --line: #30363d; --code: #1f242a; --mark: #6b4b0c; --markfg: #ffe6ad; --accent: #6cb2ff; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 78rem; padding: 1.5rem; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
a { color: var(--accent); }
p, li { max-width: 62rem; }
.muted, .count { color: var(--muted); }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre, .how code { background: var(--code); border-radius: 4px; }
pre { padding: .5rem .75rem; overflow-x: auto; }
.how { border: 1px solid var(--line); border-radius: 6px; padding: .25rem 1rem; margin: 1rem 0; }
.how code { padding: 0 .25rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
th { font-weight: 600; color: var(--muted); font-size: 13px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.summary { width: auto; min-width: 24rem; }
td.file { width: 30%; overflow-wrap: anywhere; font-size: 13px; }
.ln { white-space: nowrap; }
td.ctx code { white-space: pre-wrap; overflow-wrap: anywhere; }
td.id { white-space: nowrap; font-size: 13px; }
mark { background: var(--mark); color: var(--markfg); border-radius: 3px; padding: 0 .15rem; white-space: nowrap; }
.approx { color: var(--muted); font-size: 12px; }
details { margin: .5rem 0; }
summary { cursor: pointer; color: var(--muted); }
</style>
</head>
<body>
<h1>Review: what redaction hides</h1>
<p class="muted">{{.Total}} finding(s) in {{.Files}} transcript file(s), {{.Lines}} line(s){{if .Kept}}, {{.Kept}} of them kept in the archive (their files are gone){{end}}. Made {{.Generated.Format "2006-01-02 15:04 MST"}} from {{range $i, $p := .Inputs}}{{if $i}}, {{end}}<code>{{$p}}</code>{{end}}. This page is in the site's state folder, never in the site; it holds no secret, only where each was and the text around it, redacted.</p>

<div class="how">
<p><b>Not a secret?</b> Put its id (<code>sha256:…</code>, a comment may follow it) on a line of a file, and build with <code>--allow-file FILE</code> (<code>build</code> and <code>share</code> take it): every finding of that value is then left as it is. One id stands for the same value wherever it is.</p>
<pre># allow.txt: findings that are not secrets
sha256:0123456789abcdef  # a test fixture's token</pre>
<p><b>Something missed?</b> Add a pattern with <code>--redact REGEX</code> (a group redacts just the group) or a file of literal strings, one a line, with <code>--redact-file FILE</code>; run <code>ccsite review</code> again with the same flags to see them here.</p>
</div>

{{if .Rules}}
<table class="summary">
<thead><tr><th>Rule</th><th class="n">Findings</th><th class="n">Values</th></tr></thead>
<tbody>
{{range .Rules}}<tr><td><a href="#{{anchor .Rule}}">{{.Rule}}</a></td><td class="n">{{.Count}}</td><td class="n">{{if .Distinct}}{{.Distinct}}{{else}}—{{end}}</td></tr>
{{end}}<tr><td><b>Total</b></td><td class="n"><b>{{.Total}}</b></td><td></td></tr>
</tbody>
</table>
{{else}}
<p><b>Redaction finds nothing to hide.</b></p>
{{end}}
{{if .Unreplaced}}<p class="approx">Not listed: {{.Unreplaced}} value(s) the rules matched only in the form of the text they scan (punctuation after a word read as a space), which the text does not hold as it is: nothing was replaced for them.</p>{{end}}

{{range .Rules}}
<h2 id="{{anchor .Rule}}">{{.Rule}} <span class="count">{{.Count}} finding(s){{if .Distinct}}, {{.Distinct}} value(s){{end}}</span></h2>
<table>
<thead><tr><th>Where</th><th>In context (redacted)</th><th>Id</th></tr></thead>
<tbody>
{{range .Findings}}<tr><td class="file">{{range pathParts .File}}{{.}}<wbr>{{end}}{{if .Line}}<span class="ln">:{{.Line}}</span>{{end}}{{with whereNote .}} <span class="approx">{{.}}</span>{{end}}</td><td class="ctx">{{if .Marker}}<code>{{.Before}}<mark>{{.Marker}}</mark>{{.After}}</code>{{if not .Placed}} <span class="approx">(inside an encoded run, or not told apart: the nearest marker of this rule)</span>{{end}}{{else if .ID}}<span class="approx">(the marker could not be placed)</span>{{else if eq .Rule "image-withheld"}}<span class="approx">an image or document that could not be read, withheld (always)</span>{{else}}<span class="approx">metadata removed from an image (always)</span>{{end}}</td><td class="id">{{if .ID}}<code>{{.ID}}</code>{{else}}<span class="muted">—</span>{{end}}</td></tr>
{{end}}</tbody>
</table>
{{with allowLines .}}<details><summary>Its ids, as lines of an allow file</summary>
<pre>{{.}}</pre></details>{{end}}
{{end}}
</body>
</html>
`
