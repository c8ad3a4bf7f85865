package build

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/search"
)

// copyTree copies a folder of transcripts, so a test may change it.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel(src, p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// siteFiles reads every file of a site (the build's state is elsewhere).
func siteFiles(t *testing.T, out string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[rel(out, p)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameSite fails when two sites differ in any file or byte.
func sameSite(t *testing.T, label, got, want string) {
	t.Helper()
	a, b := siteFiles(t, got), siteFiles(t, want)
	for name, content := range b {
		g, ok := a[name]
		switch {
		case !ok:
			t.Errorf("%s: %s is missing from the updated site", label, name)
		case g != content:
			t.Errorf("%s: %s differs from a full build", label, name)

		}
	}
	for name := range a {
		if _, ok := b[name]; !ok {
			t.Errorf("%s: %s is in the updated site only", label, name)
		}
	}
}

// appendLine adds a user message after the file's last record.
func appendLine(t *testing.T, path, text string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var last map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(l), &r) == nil && r["uuid"] != nil {
			last = r
		}
	}
	rec := map[string]any{"type": "user", "uuid": "fefefefe-0000-4000-8000-" + strings.Repeat("0", 12-len(text)%12) + strings.Repeat("1", len(text)%12),
		"parentUuid": last["uuid"], "sessionId": last["sessionId"], "cwd": last["cwd"], "version": last["version"],
		"timestamp": "2026-06-01T12:00:00Z", "message": map[string]any{"role": "user", "content": text}}
	if last["isSidechain"] == true {
		rec["isSidechain"], rec["agentId"] = true, last["agentId"]
	}
	line, _ := json.Marshal(rec)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// TestIncrementalMatchesFull changes the archive and the options step by
// step; after each, an update of the previous site must equal a full build
// byte for byte, and redo only what changed.
func TestIncrementalMatchesFull(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	site := filepath.Join(t.TempDir(), "site")
	// A base URL (sitemap.xml lists every page) and the JSON exports.
	cfg := Config{Paths: []string{in}, Out: site, BaseURL: "https://example.org/s/", JSON: true}
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	units := first.Sessions + first.Orphans
	webapp := filepath.Join(in, "-home-demo-webapp")
	steps := []struct {
		name   string
		change func()
		opts   *omit.Options
		// redone is how many sessions and orphans must be rendered again;
		// -1: all of them.
		redone int
		// lists is how many list pages must be rendered again (-1: any).
		lists int
	}{
		{"nothing changed", nil, nil, 0, 0},
		{"a message appended", func() {
			appendLine(t, filepath.Join(webapp, "2f17df70-2c36-56b8-95ef-251e65ace575.jsonl"), "appended quokka question")
		}, nil, 1, 2}, // its project's page and the index
		{"a line edited", func() {
			p := filepath.Join(in, "-home-demo-infra", "134729e3-3267-5cea-8949-1cb65584dcaf.jsonl")
			data, _ := os.ReadFile(p)
			lines := strings.Split(string(data), "\n")
			for i, l := range lines {
				if strings.Contains(l, `"type":"assistant"`) && strings.Contains(l, `"text":"`) {
					lines[i] = strings.Replace(l, `"text":"`, `"text":"(edited, wombat) `, 1)
					break
				}
			}
			os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
		}, nil, 1, -1},
		{"a sub-agent's file appended", func() {
			appendLine(t, filepath.Join(webapp, "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2", "subagents", "agent-a7c31de.jsonl"), "agent numbat note")
		}, nil, 1, -1},
		{"a new session in a new project", func() {
			dir := filepath.Join(in, "-home-demo-garden")
			os.MkdirAll(dir, 0o755)
			line := `{"type":"user","uuid":"abababab-0000-4000-8000-000000000001","sessionId":"abababab-0000-4000-8000-0000000000aa","cwd":"/home/demo/garden","version":"2.1.0","timestamp":"2026-06-02T09:00:00Z","message":{"role":"user","content":"plant the axolotl beds"}}` + "\n"
			os.WriteFile(filepath.Join(dir, "abababab-0000-4000-8000-0000000000aa.jsonl"), []byte(line), 0o644)
		}, nil, 1, -1},
		{"a session deleted", func() {
			os.Remove(filepath.Join(in, "-home-demo-infra", "9343d76c-99a6-5728-8c41-0a4f0c694e77.jsonl"))
		}, nil, -2, -1}, // its neighbour's previous/next links change
		{"an agent file deleted", func() {
			os.Remove(filepath.Join(webapp, "agent-c0ffee12.jsonl"))
		}, nil, -2, -1},
		{"thinking left out", nil, &omit.Options{Thinking: true}, -1, -1},
		{"thinking back", nil, &omit.Options{}, -1, -1},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		if st.opts != nil {
			cfg.Omit = *st.opts
		}
		sum, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		// The full build starts with the same archive (the copies of
		// what earlier builds read): a deleted session stays in both.
		full := filepath.Join(t.TempDir(), "full")
		fcfg := withArchive(t, cfg, site)
		fcfg.Out = full
		want, err := Run(context.Background(), fcfg)
		if err != nil {
			t.Fatal(err)
		}
		sameSite(t, st.name, site, full)
		units = want.Sessions + want.Orphans
		redone := units - sum.Kept
		switch {
		case st.redone >= 0 && redone != st.redone:
			t.Errorf("%s: %d sessions rendered again, want %d", st.name, redone, st.redone)
		case st.redone == -1 && sum.Kept != 0:
			t.Errorf("%s: %d sessions kept after the options changed", st.name, sum.Kept)
		case st.redone == -2 && (redone == 0 || sum.Kept == 0):
			t.Errorf("%s: %d rendered again, %d kept", st.name, redone, sum.Kept)
		}
		if st.lists >= 0 && sum.listsRendered != st.lists {
			t.Errorf("%s: %d list pages rendered, want %d (of %d)", st.name, sum.listsRendered, st.lists, want.listsRendered)
		}
		if sum.Pages != want.Pages || sum.Sessions != want.Sessions || sum.Problems != want.Problems || sum.Docs != want.Docs {
			t.Errorf("%s: summary %d pages %d sessions %d problems %d docs, full build %d %d %d %d", st.name,
				sum.Pages, sum.Sessions, sum.Problems, sum.Docs, want.Pages, want.Sessions, want.Problems, want.Docs)
		}
	}
	// One more message: its session's documents are replaced in the index.
	appendLine(t, filepath.Join(webapp, "2f17df70-2c36-56b8-95ef-251e65ace575.jsonl"), "one more before force")
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.ReadFile(filepath.Join(DefaultStateDir(site, os.Getenv), "state.json")); !strings.Contains(string(st), `"indexUpdated":true`) {
		t.Error("documents were deleted, yet the manifest does not say the index was updated")
	}
	// --force redoes everything, to the same site.
	cfg.Force = true
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != 0 {
		t.Errorf("--force kept %d sessions", sum.Kept)
	}
	// Documents were deleted along the way: --force made the index anew.
	if st, _ := os.ReadFile(filepath.Join(DefaultStateDir(site, os.Getenv), "state.json")); strings.Contains(string(st), `"indexUpdated"`) {
		t.Error("after --force the search index is still an updated one")
	}
	full := filepath.Join(t.TempDir(), "full")
	fcfg := withArchive(t, cfg, site)
	fcfg.Out, fcfg.Force = full, false
	if _, err := Run(context.Background(), fcfg); err != nil {
		t.Fatal(err)
	}
	sameSite(t, "--force", site, full)
}

// withArchive is cfg with a new state folder holding a copy of the archive
// of the site at site (the sources its builds kept), and nothing else.
func withArchive(t *testing.T, cfg Config, site string) Config {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	copyTree(t, archiveDir(DefaultStateDir(site, os.Getenv)), archiveDir(state))
	cfg.State = state
	return cfg
}

// TestInterruptedBuild stops builds at several points; the next build
// reports it, starts over, removes what the stopped one left, and gives
// the full result.
func TestInterruptedBuild(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	site := filepath.Join(t.TempDir(), "site")
	cfg := Config{Paths: []string{in}, Out: site}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for i, delay := range []time.Duration{0, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
		appendLine(t, filepath.Join(in, "-home-demo-webapp", "2f17df70-2c36-56b8-95ef-251e65ace575.jsonl"), "round "+string(rune('a'+i)))
		ctx, cancel := context.WithTimeout(context.Background(), delay)
		_, err := Run(ctx, cfg)
		cancel()
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("stopped build: %v", err)
			}
			stopped++
		}
		// A file the stopped build wrote that no build writes.
		if err != nil {
			jr, _, _ := openJournal(DefaultStateDir(site, os.Getenv))
			jr.add("stray/left.html")
			jr.close()
			os.MkdirAll(filepath.Join(site, "stray"), 0o755)
			os.WriteFile(filepath.Join(site, "stray", "left.html"), []byte("half"), 0o644)
		}
		sum, err2 := Run(context.Background(), cfg)
		if err2 != nil {
			t.Fatal(err2)
		}
		if (err != nil) != sum.Recovered {
			t.Errorf("delay %s: stopped %v, next build recovered %v", delay, err != nil, sum.Recovered)
		}
		if _, err := os.Stat(filepath.Join(site, "stray", "left.html")); err == nil {
			t.Errorf("delay %s: a file the stopped build left is still there", delay)
		}
		full := filepath.Join(t.TempDir(), "full")
		fcfg := cfg
		fcfg.Out = full
		if _, err := Run(context.Background(), fcfg); err != nil {
			t.Fatal(err)
		}
		sameSite(t, "after a stop at "+delay.String(), site, full)
	}
	if stopped == 0 {
		t.Error("no build was stopped: the test tested nothing")
	}
	// A first build stopped halfway leaves a folder the next build takes.
	first := filepath.Join(t.TempDir(), "first")
	for _, delay := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 15 * time.Millisecond} {
		os.RemoveAll(first)
		ctx, cancel := context.WithTimeout(context.Background(), delay)
		_, err := Run(ctx, Config{Paths: []string{in}, Out: first})
		cancel()
		if _, err2 := Run(context.Background(), Config{Paths: []string{in}, Out: first}); err2 != nil {
			t.Fatalf("after a first build stopped at %s (%v): %v", delay, err, err2)
		}
		full := filepath.Join(t.TempDir(), "full")
		if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: full}); err != nil {
			t.Fatal(err)
		}
		sameSite(t, "after a first build stopped at "+delay.String(), first, full)
	}
}

// TestCacheBetweenBuilds: a --force build with the cache of a previous one
// highlights nothing again and skips the lines it knows clean, yet gives
// the same site and finds the same secrets.
// redactedForceBuild builds in into out with secrets redacted, --force and
// the cache folder cache, failing the test on an error of the build or of
// its cache.
func redactedForceBuild(t *testing.T, in, out, cache string) Summary {
	t.Helper()
	red, err := redact.New(redact.Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, CacheDir: cache, Force: true, Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	if sum.CacheErr != nil {
		t.Fatal(sum.CacheErr)
	}
	return sum
}

func TestCacheBetweenBuilds(t *testing.T) {
	sec := fakeSecrets()
	in, _ := secretArchive(t, sec)
	copyTree(t, "../demo/projects", in)
	cache := t.TempDir()
	build := func(out string) Summary { return redactedForceBuild(t, in, out, cache) }
	one, two := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")
	first := build(one)
	second := build(two)
	if first.Highlighted == 0 {
		t.Fatal("the first build highlighted nothing: the test tests nothing")
	}
	if second.Highlighted != 0 || second.HighlightHits < first.Highlighted {
		t.Errorf("second build: %d highlighted, %d from the cache; the first highlighted %d",
			second.Highlighted, second.HighlightHits, first.Highlighted)
	}
	total := func(s Summary) (n int) {
		for _, r := range s.Redactions {
			n += r.Total
		}
		return n
	}
	if total(first) == 0 || total(first) != total(second) {
		t.Errorf("redactions: %d then %d", total(first), total(second))
	}
	sameSite(t, "built with the cache", two, one)
	all := readAll(t, two)
	for name, v := range sec {
		if name != "literal" && name != "userregx" && strings.Contains(all, v) { // those two are the user's own
			t.Errorf("the %s secret is in the site built with the cache", name)
		}
	}
}

// TestOrphansOfOneID: two orphan agent files with one agent id in one
// project (copies in two folders) get a page each, and keep them from one
// build to the next.
func TestOrphansOfOneID(t *testing.T) {
	in := t.TempDir()
	for i, folder := range []string{"-home-kim-x", "-home-kim-x-copy"} {
		line := `{"type":"user","uuid":"0000000` + string(rune('1'+i)) + `-0000-4000-8000-000000000001","isSidechain":true,"agentId":"abc123",` +
			`"sessionId":"99999999-0000-4000-8000-00000000000` + string(rune('1'+i)) + `","cwd":"/home/kim/x","version":"2.0.30",` +
			`"timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"orphan note ` + folder + `"}}` + "\n"
		os.MkdirAll(filepath.Join(in, folder), 0o755)
		if err := os.WriteFile(filepath.Join(in, folder, "agent-abc123.jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site := filepath.Join(t.TempDir(), "site")
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: site})
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(site, "*", "orphans", "agent-abc123*.html"))
	if sum.Orphans != 2 || len(pages) != 2 {
		t.Fatalf("%d orphans, pages %v", sum.Orphans, pages)
	}
	seen := map[string]bool{}
	for _, p := range pages {
		data, _ := os.ReadFile(p)
		for _, f := range []string{"-home-kim-x-copy", "-home-kim-x"} {
			if strings.Contains(string(data), "orphan note "+f) {
				seen[f] = true
				break
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("the two orphans' notes are not on two pages: %v", seen)
	}
	again, err := Run(context.Background(), Config{Paths: []string{in}, Out: site})
	if err != nil {
		t.Fatal(err)
	}
	if again.Kept != 2 {
		t.Errorf("the next build kept %d of the 2 orphans", again.Kept)
	}
}

// TestForceKeepsDocs: --force renders every page again, but a session
// whose sources are unchanged has the search documents it had: they are
// not made again, and the site and index are a full build's. A session
// that changed gets its documents made and indexed.
func TestForceKeepsDocs(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	site := filepath.Join(t.TempDir(), "site")
	cfg := Config{Paths: []string{in}, Out: site}
	var mu sync.Mutex
	var made []string
	docsHook = func(page string) { mu.Lock(); made = append(made, page); mu.Unlock() }
	defer func() { docsHook = nil }()
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) < first.Sessions {
		t.Fatalf("the first build made documents for %d pages, of %d sessions", len(made), first.Sessions)
	}
	cfg.Force = true
	check := func(label string, wantMade func(page string) bool) {
		t.Helper()
		made = nil
		sum, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Kept != 0 {
			t.Errorf("%s: --force kept %d sessions", label, sum.Kept)
		}
		for _, p := range made {
			if !wantMade(p) {
				t.Errorf("%s: documents of %s made again", label, p)
			}
		}
		full := filepath.Join(t.TempDir(), "full")
		fcfg := withArchive(t, cfg, site)
		fcfg.Out, fcfg.Force = full, false
		want, err := Run(context.Background(), fcfg)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Docs != want.Docs {
			t.Errorf("%s: %d documents, a full build %d", label, sum.Docs, want.Docs)
		}
		sameSite(t, label, site, full)
	}
	check("nothing changed", func(string) bool { return false })
	const word = "zorillaquest"
	appendLine(t, filepath.Join(in, "-home-demo-webapp", "2f17df70-2c36-56b8-95ef-251e65ace575.jsonl"), "a "+word+" appended")
	check("a message appended", func(p string) bool { return strings.Contains(p, "2f17df70") })
	if len(made) == 0 {
		t.Error("the changed session's documents were not made")
	}
	idx, err := search.Open(IndexPath(DefaultStateDir(site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	res, err := idx.Search(context.Background(), search.Query{Text: word})
	if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Page, "2f17df70") {
		t.Errorf("%q: %v, %+v", word, err, res.Hits)
	}
}
