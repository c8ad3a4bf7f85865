package main

import (
	"bytes"
	"ccsite/build"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledBuild kills a real ccsite build of the corpus halfway
// (SIGKILL: nothing runs after it), builds again, and compares the result
// with a build that was never stopped, file by file.
func TestKilledBuild(t *testing.T) {
	corpus := os.Getenv("CCSITE_CORPUS")
	if corpus == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	if _, err := exec.LookPath("ccsite"); err != nil {
		t.Skip("no ccsite on PATH:", err)
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "CCSITE_CACHE_DIR="+filepath.Join(dir, "cache"), "CLAUDE_CONFIG_DIR=")
	ccsite := func(args ...string) *exec.Cmd {
		cmd := exec.Command("ccsite", args...)
		cmd.Dir, cmd.Env = dir, env
		return cmd
	}
	site := filepath.Join(dir, "site")
	cmd := ccsite("build", "--quiet", "-o", site, corpus)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once it has written a good part of the pages.
	journal := waitJournal(t, site, 150)
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("killed build left no journal: %v", err)
	}
	// A stray file the killed build was writing when it died.
	os.WriteFile(filepath.Join(site, "half.html"), []byte("<html"), 0o644)
	if f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0); err == nil {
		f.WriteString("half.html\n")
		f.Close()
	}
	out, err := ccsite("build", "-o", site, corpus).CombinedOutput()
	if err != nil {
		t.Fatalf("build after the kill: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "the last build was interrupted; this one rebuilt everything") {
		t.Errorf("the build after the kill did not say so:\n%s", out)
	}
	full := filepath.Join(dir, "full")
	if out, err := ccsite("build", "--quiet", "-o", full, corpus).CombinedOutput(); err != nil {
		t.Fatalf("full build: %v\n%s", err, out)
	}
	a, b := treeFiles(t, site), treeFiles(t, full)
	for name, content := range b {
		if a[name] != content {
			t.Errorf("%s differs from (or is missing beside) a build never stopped", name)
		}
	}
	for name := range a {
		if _, ok := b[name]; !ok {
			t.Errorf("%s is left over", name)
		}
	}
}

// treeFiles reads a site's files (an older build's state, .ccsite, aside).
func treeFiles(t *testing.T, root string) map[string]string {
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".ccsite" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestBuildRecord: a build records how to build the site again, in the
// cache folder (never in the site), without --quiet, which serve --watch
// adds itself: records do not grow from one rebuild to the next.
func TestBuildRecord(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	getenv := func(k string) string {
		switch k {
		case "CCSITE_CACHE_DIR":
			return cache
		case "CCSITE_STATE_HOME": // TestMain's: never the real home's
			return os.Getenv(k)
		}
		return ""
	}
	site := filepath.Join(dir, "site")
	for i := 0; i < 2; i++ {
		var stderr bytes.Buffer
		if code := run(t.Context(), []string{"build", "--quiet", "-o", site, "--redact", "hunter2", "demo/projects"}, io.Discard, &stderr, getenv); code != 0 {
			t.Fatalf("build: %d %s", code, stderr.String())
		}
	}
	p, err := recordPath(site, getenv)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); strings.Contains(got, "quiet") || !strings.Contains(got, `"hunter2"`) {
		t.Errorf("record:\n%s", got)
	}
	// The user's alone, as the cache folder it is in.
	for _, p := range []string{p, filepath.Dir(p), cache} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows" {
			t.Errorf("%s is open to others (%v)", p, err)
		}
	}
	// Nowhere in the site.
	filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte("hunter2")) {
				t.Errorf("the user's pattern is in %s", p)
			}
		}
		return nil
	})
}

// TestSignalStopsBuild: SIGTERM stops a build within a second or so, and
// the next build repairs what it left.
func TestSignalStopsBuild(t *testing.T) {
	corpus := os.Getenv("CCSITE_CORPUS")
	if corpus == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	if _, err := exec.LookPath("ccsite"); err != nil {
		t.Skip("no ccsite on PATH:", err)
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "CCSITE_CACHE_DIR="+filepath.Join(dir, "cache"), "CLAUDE_CONFIG_DIR=")
	site := filepath.Join(dir, "site")
	cmd := exec.Command("ccsite", "build", "--quiet", "-o", site, corpus)
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitJournal(t, site, 50)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	took := time.Since(start)
	t.Logf("stopped %s after SIGTERM (%v)", took.Round(time.Millisecond), err)
	if took > 2*time.Second {
		t.Errorf("the build took %s to stop after SIGTERM", took)
	}
	if err == nil {
		t.Error("a stopped build exited 0")
	}
	again := exec.Command("ccsite", "build", "--quiet", "-o", site, corpus)
	again.Dir, again.Env = dir, env
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("build after the signal: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Error(err)
	}
}

// waitJournal waits until the build into site has journaled more than n
// files, and returns the journal's path.
func waitJournal(t *testing.T, site string, n int) string {
	t.Helper()
	journal := filepath.Join(build.DefaultStateDir(site, os.Getenv), "journal")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		data, _ := os.ReadFile(journal)
		if bytes.Count(data, []byte("\n")) > n {
			return journal
		}
		if time.Now().After(deadline) {
			t.Fatal("the build wrote nothing in a minute")
		}
	}
}
