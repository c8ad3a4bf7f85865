package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/net/html"
)

// TestMain lets the test binary double as the ccsite command that the
// scripts in testdata/script run.
func TestMain(m *testing.M) {
	var tm testscript.TestingM = m
	if os.Getenv("CCSITE_STATE_HOME") == "" {
		// The build states of the tests that call run, in a folder of
		// their own (the scripts get their own in Setup), removed when
		// the tests end: testscript.Main exits, so a deferred removal
		// never ran and each run of the tests left ~100 MB in $TMPDIR.
		dir, err := os.MkdirTemp("", "ccsite-state-")
		if err == nil {
			os.Setenv("CCSITE_STATE_HOME", dir)
			tm = removeAfter{m, dir}
		}
	}
	testscript.Main(tm, map[string]func(){
		"ccsite": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

// removeAfter runs the tests, then removes dir.
type removeAfter struct {
	m   *testing.M
	dir string
}

func (r removeAfter) Run() int {
	code := r.m.Run()
	os.RemoveAll(r.dir)
	return code
}

// TestScripts runs the CLI scripts in testdata/script. Each script starts
// with HOME=/no-home and no CLAUDE_CONFIG_DIR, so only the trees it writes
// are read. CCSITE_UPDATE=1 rewrites the files that cmp compares against.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("CCSITE_UPDATE") != "",
		Setup: func(env *testscript.Env) error {
			// The highlight cache in the script's own folder.
			env.Setenv("CCSITE_CACHE_DIR", filepath.Join(env.WorkDir, ".cache"))
			// The build states too.
			env.Setenv("CCSITE_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits":         cmdExits,
			"grepall":       cmdGrepAll,
			"json":          cmdJSON,
			"replace":       cmdReplace,
			"selfcontained": cmdSelfContained,
			"sitelinks":     cmdSiteLinks,
		},
	})
}

// cmdExits runs a program and checks its exit status; its stdout and
// stderr are then checked as after exec:
//
//	exits 2 ccsite inspect --bogus
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad exit code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdJSON checks that a file (or stdout, stderr) holds one JSON document,
// and that a dotted path in it exists and, with a value, equals it. Path
// elements are object keys or array indexes; len(PATH) is the length of an
// array or object. Strings compare as text, other values as compact JSON.
// With "!": no PATH, the file must not be JSON; no VALUE, the path must be
// missing; with a VALUE, the path must exist with another value.
//
//	json stdout projects.0.sessions.0.title 'Fix the build'
//	json stdout len(projects) 2
//	! json stdout orphanAgents.0
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 3 {
		ts.Fatalf("usage: json FILE [PATH [VALUE]]")
	}
	data := ts.ReadFile(args[0])
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var doc any
	err := dec.Decode(&doc)
	if err == nil {
		if _, extra := dec.Token(); extra == nil {
			err = errors.New("more than one JSON value")
		}
	}
	switch {
	case len(args) == 1 && neg && err == nil:
		ts.Fatalf("%s is valid JSON", args[0])
	case len(args) == 1 && neg:
		return
	case err != nil:
		ts.Fatalf("%s: invalid JSON: %v", args[0], err)
	case len(args) == 1:
		return
	}
	path := args[1]
	inner, isLen := strings.CutPrefix(path, "len(")
	inner, closed := strings.CutSuffix(inner, ")")
	if isLen != closed {
		ts.Fatalf("json: bad path %q", path)
	}
	v, err := lookup(doc, inner)
	if err == nil && isLen {
		v, err = length(v, inner)
	}
	if err != nil {
		if neg && len(args) == 2 {
			return
		}
		ts.Fatalf("%s: %v", args[0], err)
	}
	got := display(v)
	switch {
	case len(args) == 2 && neg:
		ts.Fatalf("%s: %s exists: %s", args[0], path, got)
	case len(args) == 3 && neg && got == args[2]:
		ts.Fatalf("%s: %s = %s", args[0], path, got)
	case len(args) == 3 && !neg && got != args[2]:
		ts.Fatalf("%s: %s = %s, want %s", args[0], path, got, args[2])
	}
}

// lookup follows a dotted path through decoded JSON.
func lookup(v any, path string) (any, error) {
	var at []string
	for _, key := range strings.Split(path, ".") {
		here := strings.Join(at, ".")
		if here == "" {
			here = "the top"
		}
		at = append(at, key)
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[key]
			if !ok {
				return nil, errors.New("no key " + strconv.Quote(key) + " at " + here)
			}
			v = e
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, errors.New("no index " + key + " at " + here + " (length " + strconv.Itoa(len(x)) + ")")
			}
			v = x[i]
		default:
			return nil, errors.New(here + " is not an object or array")
		}
	}
	return v, nil
}

// length is the number of elements of an array or object.
func length(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		return json.Number(strconv.Itoa(len(x))), nil
	case []any:
		return json.Number(strconv.Itoa(len(x))), nil
	}
	return nil, errors.New(path + " is not an object or array")
}

// display is a string's text or any other value's compact JSON.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "<" + err.Error() + ">"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cmdReplace edits a file as a user would: every occurrence of OLD
// becomes NEW, and OLD must occur.
//
//	replace th/templates/layout.html 'Made with ccsite' 'Kim''s archive'
//
// cmdGrepAll looks for a regular expression in every file under a
// folder, each read whole (search shards and the bleve index included):
//
//	grepall PATTERN DIR     some file matches
//	! grepall PATTERN DIR   no file does
func cmdGrepAll(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: grepall PATTERN DIR")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	var hits []string
	err = filepath.WalkDir(ts.MkAbs(args[1]), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if re.Match(data) {
			hits = append(hits, p)
		}
		return nil
	})
	ts.Check(err)
	switch {
	case neg && len(hits) > 0:
		ts.Fatalf("%s found in %s", args[0], strings.Join(hits, ", "))
	case !neg && len(hits) == 0:
		ts.Fatalf("%s found in no file under %s", args[0], args[1])
	}
}

func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || args[1] == "" {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	data := ts.ReadFile(args[0])
	if !strings.Contains(data, args[1]) {
		ts.Fatalf("%s does not contain %q", args[0], args[1])
	}
	err := os.WriteFile(ts.MkAbs(args[0]), []byte(strings.ReplaceAll(data, args[1], args[2])), 0o644)
	ts.Check(err)
}

// cmdSelfContained checks that an HTML file needs no other file to show:
// <link href> and every src, srcset, poster, data, action and formaction
// is a data: URL; an <a> or <area> href is a "#…" anchor naming an id of
// the file, or an absolute http(s) or mailto link (leaving the page, not
// loading into it); CSS in <style> and style attributes has no url() but
// data: and no @import. With "!": the file must break one of these rules.
//
//	selfcontained one.html
func cmdSelfContained(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: selfcontained FILE")
	}
	doc := parseHTML(ts, args[0])
	var bad []string
	for _, r := range doc.refs {
		switch {
		case r.attr == "href" && (r.tag == "a" || r.tag == "area"):
			if frag, ok := strings.CutPrefix(r.val, "#"); ok {
				if frag != "" && !doc.ids[unescapeFrag(frag)] {
					bad = append(bad, fmt.Sprintf("<%s href=%q>: no id %q in the file", r.tag, r.val, frag))
				}
				continue
			}
			if leaves(r.val) {
				continue
			}
			bad = append(bad, fmt.Sprintf("<%s href=%q>: a link to another file", r.tag, r.val))
		case r.attr == "style":
			bad = append(bad, cssRefs(r.tag, r.val)...)
		default:
			if !strings.HasPrefix(strings.TrimSpace(strings.ToLower(r.val)), "data:") {
				bad = append(bad, fmt.Sprintf("<%s %s=%q>: not a data: URL", r.tag, r.attr, r.val))
			}
		}
	}
	for _, css := range doc.styles {
		bad = append(bad, cssRefs("style", css)...)
	}
	switch {
	case neg && len(bad) == 0:
		ts.Fatalf("%s is self-contained", args[0])
	case !neg && len(bad) > 0:
		ts.Fatalf("%s is not self-contained:\n\t%s", args[0], strings.Join(bad, "\n\t"))
	}
}

// leaves reports whether a link goes to another site (absolute http(s)
// with a host, or mailto) rather than to a file beside the page.
func leaves(v string) bool {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" || u.Scheme == "mailto"
}

// cmdSiteLinks checks every .html page under a site folder: each relative
// href and src names a file inside the site, each "#…" fragment names an id
// of the page it points to, no page repeats an id, and no URL is
// root-relative ("/x", "//host/x") or of a scheme other than http(s),
// mailto and data (the site must work from file:// and any sub-path).
//
//	sitelinks site
func cmdSiteLinks(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sitelinks DIR")
	}
	root := ts.MkAbs(args[0])
	docs := map[string]*htmlDoc{} // by slash path from root
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		docs[filepath.ToSlash(rel)] = parseHTML(ts, p)
		return nil
	})
	if err != nil {
		ts.Fatalf("sitelinks: %v", err)
	}
	if len(docs) == 0 {
		ts.Fatalf("sitelinks: no .html page under %s", args[0])
	}
	var bad []string
	for page, doc := range docs {
		for _, id := range doc.dups {
			bad = append(bad, fmt.Sprintf("%s: id %q appears more than once", page, id))
		}
		for _, r := range doc.refs {
			if r.attr == "style" {
				continue
			}
			urls := []string{r.val}
			if r.attr == "srcset" { // "a.png 1x, b.png 2x"
				urls = nil
				for _, c := range strings.Split(r.val, ",") {
					u, _, _ := strings.Cut(strings.TrimSpace(c), " ")
					urls = append(urls, u)
				}
			}
			for _, v := range urls {
				if msg := checkSiteLink(root, page, v, docs); msg != "" {
					bad = append(bad, fmt.Sprintf("%s: <%s %s=%q>: %s", page, r.tag, r.attr, v, msg))
				}
			}
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		ts.Fatalf("broken links in %s:\n\t%s", args[0], strings.Join(bad, "\n\t"))
	}
}

// checkSiteLink says what is wrong with one URL of a site page, or "".
func checkSiteLink(root, page, v string, docs map[string]*htmlDoc) string {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil {
		return err.Error()
	}
	switch {
	case u.Scheme == "data" || u.Scheme == "mailto":
		return ""
	case u.Scheme == "http" || u.Scheme == "https":
		if u.Host == "" {
			return "no host"
		}
		return ""
	case u.Scheme != "":
		return "scheme " + u.Scheme
	case u.Host != "" || strings.HasPrefix(u.Path, "/"):
		return "root-relative: breaks under a sub-path and file://"
	}
	target := page
	if u.Path != "" {
		target = path.Join(path.Dir(page), u.Path)
		if target == ".." || strings.HasPrefix(target, "../") {
			return "outside the site"
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
			return "no such file " + target
		}
	}
	if u.Fragment == "" {
		return ""
	}
	doc := docs[target]
	if doc == nil {
		return "a fragment of a file that is not a page"
	}
	if !doc.ids[u.Fragment] {
		return fmt.Sprintf("no id %q in %s", u.Fragment, target)
	}
	return ""
}

// htmlDoc is what the link checks need of a parsed page.
type htmlDoc struct {
	refs   []htmlRef
	styles []string        // text of <style> elements
	ids    map[string]bool // id attributes and <a name>
	dups   []string        // ids seen more than once
}

// htmlRef is one attribute that may name another resource.
type htmlRef struct{ tag, attr, val string }

// refAttrs are the attributes that name another resource.
var refAttrs = map[string]bool{"href": true, "src": true, "srcset": true, "poster": true,
	"data": true, "action": true, "formaction": true, "style": true}

// parseHTML reads the links, styles and ids of an HTML file.
func parseHTML(ts *testscript.TestScript, file string) *htmlDoc {
	f, err := os.Open(ts.MkAbs(file))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	defer f.Close()
	root, err := html.Parse(f)
	if err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	doc := &htmlDoc{ids: map[string]bool{}}
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if n.Data == "style" && n.FirstChild != nil {
			doc.styles = append(doc.styles, n.FirstChild.Data)
		}
		for _, a := range n.Attr {
			if a.Namespace != "" {
				continue
			}
			switch {
			case a.Key == "id" || a.Key == "name" && n.Data == "a":
				if doc.ids[a.Val] && a.Key == "id" {
					doc.dups = append(doc.dups, a.Val)
				}
				doc.ids[a.Val] = true
			case a.Key == "data" && n.Data != "object":
				// Only <object data> loads a resource.
			case refAttrs[a.Key]:
				doc.refs = append(doc.refs, htmlRef{n.Data, a.Key, a.Val})
			}
		}
	}
	return doc
}

// cssURL finds url() and @import in CSS.
var cssURL = regexp.MustCompile(`(?i)url\(\s*['"]?\s*([^'")\s]*)|@import`)

// cssRefs lists the references of CSS to anything but data: URLs.
func cssRefs(where, css string) []string {
	var bad []string
	for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
		if m[0] == "@import" || !strings.HasPrefix(strings.ToLower(m[1]), "data:") {
			bad = append(bad, fmt.Sprintf("<%s>: CSS %s", where, m[0]))
		}
	}
	return bad
}

// unescapeFrag decodes a fragment as a browser matches it against ids.
func unescapeFrag(f string) string {
	if s, err := url.PathUnescape(f); err == nil {
		return s
	}
	return f
}

// TestTuneGC checks the collector's settings: a soft limit of 600 MiB and
// GOGC 200 unless the environment sets them, and the environment's own
// values left alone when it does.
func TestTuneGC(t *testing.T) {
	oldLimit, oldPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetMemoryLimit(oldLimit); debug.SetGCPercent(oldPercent) })

	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(100)
	tuneGC(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != 600<<20 {
		t.Errorf("memory limit %d, want %d", got, 600<<20)
	}
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("GOGC %d, want 200", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(150)
	env := map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}
	tuneGC(func(k string) string { return env[k] })
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d with GOMEMLIMIT set, want it left alone", got)
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC %d with GOGC=150 set, want it left alone", got)
	}
}
