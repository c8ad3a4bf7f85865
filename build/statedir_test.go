package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
