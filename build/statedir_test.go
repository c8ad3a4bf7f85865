package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ccsite/build/redact"
	"ccsite/search"

	"github.com/klauspost/compress/zstd"
)

// TestStateOutsideSite: the output folder holds only what is published.
// The manifest and the bleve index are in the state folder. An older
// build's .ccsite folder in the site is removed. A state folder inside the
// site is refused. A site without its state builds again to the same
// bytes.
func TestStateOutsideSite(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	dir := t.TempDir()
	out, state := filepath.Join(dir, "site"), filepath.Join(dir, "state")
	if err := os.MkdirAll(filepath.Join(out, ".ccsite", "bleve"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, ".ccsite", "state.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(out, marker), []byte(markerHead), 0o644)
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: state}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"state.json", "bleve-metas", "bleve-texts.log", "bleve-texts.idx", "lock"} {
		if _, err := os.Stat(filepath.Join(state, f)); err != nil {
			t.Errorf("the state folder has no %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "journal")); err == nil {
		t.Error("a completed build left its journal")
	}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if name == ".ccsite" || strings.HasPrefix(name, "bleve") || name == "state.json" || name == "journal" || name == "lock" || strings.HasSuffix(name, ".gob") {
			t.Errorf("build state in the site: %s", p)
		}
		return nil
	})
	// The marker lists what was published, and only that.
	data, _ := os.ReadFile(filepath.Join(out, marker))
	if strings.Contains(string(data), ".ccsite/") {
		t.Errorf("the marker lists build state:\n%s", data)
	}
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: filepath.Join(out, "x")}); err == nil || !strings.Contains(err.Error(), "inside the site") {
		t.Errorf("a state folder inside the site: %v", err)
	}
	// The state lost (a CI machine): the next build starts over, to the
	// same site.
	before := siteFiles(t, out)
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: state})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != 0 {
		t.Errorf("without its state, a build kept %d sessions", sum.Kept)
	}
	after := siteFiles(t, out)
	if len(before) != len(after) {
		t.Errorf("the rebuilt site has %d files, before %d", len(after), len(before))
	}
	for name, content := range before {
		if after[name] != content {
			t.Errorf("%s differs after a build without state", name)
		}
	}
}

// TestStateDirNoHome: without $HOME (nor CCSITE_STATE_HOME or
// XDG_STATE_HOME), the state folder is under the home folder the system
// knows; with none, there is none (never a folder in /tmp, where another
// user could make it first), and a build says how to name one.
func TestStateDirNoHome(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("LocalAppData")
	}
	none := func(string) string { return "" }
	old := systemHome
	defer func() { systemHome = old }()
	sysHome := t.TempDir()
	systemHome = func() string { return sysHome }
	d, err := StateDir("site", none)
	if err != nil || !strings.HasPrefix(d, sysHome+string(filepath.Separator)) {
		t.Errorf("HOME unset: state folder %q (%v), want one under the system's home %s", d, err, sysHome)
	}
	systemHome = func() string { return "" }
	for _, getenv := range []func(string) string{none, func(k string) string {
		if k == "HOME" {
			return "relative/home"
		}
		return ""
	}} {
		d, err = StateDir("site", getenv)
		if !errors.Is(err, ErrNoStateHome) || d != "" {
			t.Errorf("no home folder: state folder %q, %v; want ErrNoStateHome", d, err)
		}
		if d := DefaultStateDir("site", getenv); d != "" {
			t.Errorf("no home folder: DefaultStateDir gives %q", d)
		}
	}
	if !strings.Contains(ErrNoStateHome.Error(), "CCSITE_STATE_HOME") || !strings.Contains(ErrNoStateHome.Error(), "--state") {
		t.Errorf("the error does not say how to name a state folder: %v", ErrNoStateHome)
	}
	// A build with none refuses, before writing anything.
	t.Setenv("HOME", "")
	t.Setenv("CCSITE_STATE_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "site")
	if _, err := Run(context.Background(), Config{Paths: []string{t.TempDir()}, Out: out}); !errors.Is(err, ErrNoStateHome) {
		t.Errorf("a build without a home folder: %v, want ErrNoStateHome", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("a build without a home folder wrote %v", entries)
	}
	// Other variables still name one.
	for _, kv := range [][2]string{{"CCSITE_STATE_HOME", tmp}, {"XDG_STATE_HOME", tmp}} {
		d, err := StateDir("site", func(k string) string {
			if k == kv[0] {
				return kv[1]
			}
			return ""
		})
		if err != nil || !strings.HasPrefix(d, tmp) {
			t.Errorf("%s=%s: %q, %v", kv[0], kv[1], d, err)
		}
	}
}

// TestStateFolderPrivate: a build makes its state folder, and every
// folder in it, the user's alone (0700), as it does every missing folder
// on the way to it; one an older build made open to others is closed.
func TestStateFolderPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	dir := t.TempDir()
	home := filepath.Join(dir, "statehome")
	t.Setenv("CCSITE_STATE_HOME", home)
	out := filepath.Join(dir, "site")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	state := DefaultStateDir(out, os.Getenv)
	open := func() []string {
		var bad []string
		filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if fi, err := d.Info(); err == nil && d.IsDir() && fi.Mode().Perm()&0o077 != 0 {
				bad = append(bad, fmt.Sprintf("%s %v", p, fi.Mode().Perm()))
			}
			return nil
		})
		return bad
	}
	if bad := open(); len(bad) > 0 {
		t.Errorf("folders open to others: %v", bad)
	}
	if _, err := os.Stat(archiveDir(state)); err != nil {
		t.Fatalf("no archive: %v", err)
	}
	// As an older build left them.
	for _, d := range []string{home, state, archiveDir(state), filepath.Join(archiveDir(state), "blobs")} {
		os.Chmod(d, 0o755)
	}
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{state, archiveDir(state), filepath.Join(archiveDir(state), "blobs")} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s an older build made 0755 is %v after a build, want 0700 (%v)", d, fi.Mode().Perm(), err)
		}
	}
	// A state folder the user named is made private, and left as it is
	// when it was there.
	named := filepath.Join(dir, "named", "state")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: named}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(named), named} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s made by a build is %v, want 0700 (%v)", d, fi.Mode().Perm(), err)
		}
	}
}

// TestStateBehindLink: a state folder reached through a link into the
// site is inside it (refused before anything is written), and so is a
// site reached through a link into its state folder, though neither
// folder exists yet.
func TestStateBehindLink(t *testing.T) {
	dir := t.TempDir()
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	real := filepath.Join(dir, "real")
	os.MkdirAll(real, 0o755)
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for _, c := range []struct{ out, state, want string }{
		{"real/site", "link/site/state", "inside the site"},
		{"link/site", "real/site/state", "inside the site"},
		{"link/site", "real/site", "inside the site"},
		{"real/state/site", "link/state", "inside its state folder"},
	} {
		out, state := filepath.Join(dir, c.out), filepath.Join(dir, c.state)
		_, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: state})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("site %s, state %s: %v; want %q", c.out, c.state, err, c.want)
		}
		if entries, _ := os.ReadDir(real); len(entries) != 0 {
			t.Errorf("site %s, state %s: refused after writing %v", c.out, c.state, entries)
			os.RemoveAll(real)
			os.MkdirAll(real, 0o755)
		}
	}
	// Apart, through a link: built.
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: filepath.Join(dir, "link", "site"), State: filepath.Join(dir, "state")}); err != nil {
		t.Errorf("site through a link, state apart: %v", err)
	}
}

// grepState lists the files under dir that hold s: as they are on disk,
// or once decoded when they are zstd (the archive's copies and packs).
func grepState(t *testing.T, dir, s string) []string {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var hits []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		plain, _ := dec.DecodeAll(data, nil) // what decodes before an error
		if bytes.Contains(data, []byte(s)) || bytes.Contains(plain, []byte(s)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

// TestForgetErasesState: after forget, no file of the state folder holds
// a word of the forgotten session: not the archive's copies (its current
// one, the earlier one it grew from, its restored file), nor the build's
// manifest or the search index's texts, metas and bleve index. The next
// build makes the site again without it, the other sessions all there.
// While a build runs, forget waits for nothing and changes nothing.
func TestForgetErasesState(t *testing.T) {
	const (
		sid    = "7e3f9a1c-2b4d-4e6f-8a0b-1c2d3e4f5a6b"
		secret = "zebraquux"
	)
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	src := filepath.Join(in, "-home-kim-shop", sid+".jsonl")
	os.MkdirAll(filepath.Dir(src), 0o755)
	os.WriteFile(src, []byte(`{"type":"user","uuid":"aaaaaaaa-0000-4000-8000-000000000001","sessionId":"`+sid+`","cwd":"/home/kim/shop","timestamp":"2026-02-03T09:00:00.000Z","message":{"role":"user","content":"Which Go version for `+secret+`?"}}
{"type":"assistant","uuid":"aaaaaaaa-0000-4000-8000-000000000002","parentUuid":"aaaaaaaa-0000-4000-8000-000000000001","sessionId":"`+sid+`","cwd":"/home/kim/shop","timestamp":"2026-02-03T09:00:05.000Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Go 1.26 for `+secret+`:\n\n`+"```go\\nconst "+secret+" = \\\"1.26\\\"\\n```"+`"}]}}
{"type":"user","uuid":"aaaaaaaa-0000-4000-8000-000000000003","parentUuid":"aaaaaaaa-0000-4000-8000-000000000002","sessionId":"`+sid+`","cwd":"/home/kim/shop","timestamp":"2026-02-03T09:00:09.000Z","message":{"role":"user","content":"The `+secret+` token is hunter2hunter2, keep it."}}
`), 0o644)
	dir := t.TempDir()
	site, state, cache := filepath.Join(dir, "site"), filepath.Join(dir, "state"), filepath.Join(dir, "cache")
	// With the highlight cache, and redaction: it keeps highlighted code
	// and the lines redacted as redacted.
	red, err := redact.New(redact.Options{Secrets: true, Literals: []string{"hunter2hunter2"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Paths: []string{in}, Out: site, State: state, CacheDir: cache, Redact: red}
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// It grows (its copy: the first one and a frame more), is searched
	// (the bleve index made), then Claude Code deletes it (restored).
	appendLine(t, src, "And the "+secret+" linter?")
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	os.Remove(src)
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(IndexPath(state))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := idx.Search(context.Background(), search.Query{Text: secret, Size: 5}); err != nil || len(res.Hits) == 0 {
		t.Errorf("search before forget: %+v, %v", res.Hits, err)
	}
	idx.Close()
	for _, want := range []string{archiveDir(state), filepath.Join(archiveDir(state), "restored"), filepath.Join(state, stateFile), cache} {
		if len(grepState(t, want, secret)) == 0 {
			t.Fatalf("before forget, %s holds no %s: the test finds nothing", want, secret)
		}
	}

	// While a build holds the lock: refused, nothing forgotten.
	unlock, err := lockOut(context.Background(), site, state, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ForgetErasing(context.Background(), site, state, cache, ForgetSelect{Sessions: []string{sid}}); err == nil || !strings.Contains(err.Error(), "running") {
		t.Errorf("forget during a build: %v", err)
	}
	unlock()
	if len(grepState(t, archiveDir(state), secret)) == 0 || len(grepState(t, cache, secret)) == 0 {
		t.Fatal("forget during a build forgot")
	}

	res, err := ForgetErasing(context.Background(), site, state, cache, ForgetSelect{Sessions: []string{sid}})
	if err != nil || res.Sessions != 1 || res.Files != 1 || res.Bytes <= 0 || !res.Rebuild || !res.Cache {
		t.Fatalf("forget: %+v, %v", res, err)
	}
	for _, dir := range []string{state, cache} {
		if hits := grepState(t, dir, secret); len(hits) > 0 {
			t.Errorf("after forget, %q is still in %v", secret, hits)
		}
	}
	// Forgetting it again: nothing to forget, the rest left as it is.
	again, err := ForgetErasing(context.Background(), site, state, cache, ForgetSelect{Sessions: []string{sid}})
	if err != nil || again.Files != 0 || again.Rebuild || again.Cache {
		t.Errorf("forget again: %+v, %v", again, err)
	}

	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != first.Sessions-1 {
		t.Errorf("after forget: %d sessions, want %d", sum.Sessions, first.Sessions-1)
	}
	if hits := grepState(t, site, secret); len(hits) > 0 {
		t.Errorf("after forget and a build, %q is still in the site: %v", secret, hits)
	}
	for _, dir := range []string{state, cache} {
		if hits := grepState(t, dir, secret); len(hits) > 0 {
			t.Errorf("after forget and a build, %q is back in %v", secret, hits)
		}
	}
	idx, err = search.Open(IndexPath(state))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if res, err := idx.Search(context.Background(), search.Query{Text: "naive string comparisons", Size: 5}); err != nil || len(res.Hits) == 0 {
		t.Errorf("search after forget and a build: %+v, %v", res.Hits, err)
	}
}
