package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ccsite/build"
)

// TestNoStateHome: with no home folder for the state (no HOME, none in
// the user database) and no --state, every command that needs the state
// folder fails as build does, saying how to name one: none makes one in
// the current folder (--git extracting into ./git/…, search and serve
// looking for ./bleve).
func TestNoStateHome(t *testing.T) {
	old := stateDir
	stateDir = func(string, func(string) string) (string, error) { return "", build.ErrNoStateHome }
	defer func() { stateDir = old }()
	// Should a command look the home folder up itself: a folder of the
	// test's, never the real home.
	t.Setenv("HOME", t.TempDir())
	demo, err := filepath.Abs("demo/projects")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	getenv := func(k string) string {
		if k == "CCSITE_CACHE_DIR" {
			return cache
		}
		return ""
	}
	// A repository of transcripts for --git (another folder).
	repo := filepath.Join(t.TempDir(), "repo")
	if _, err := exec.LookPath("git"); err == nil {
		os.MkdirAll(filepath.Join(repo, "proj"), 0o755)
		os.WriteFile(filepath.Join(repo, "proj", "aaaaaaaa-1111-4111-8111-111111111111.jsonl"), []byte(`{"type":"user","uuid":"u1","sessionId":"aaaaaaaa-1111-4111-8111-111111111111","timestamp":"2026-01-02T03:04:05Z","message":{"role":"user","content":"hello"}}`+"\n"), 0o644)
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "proj"}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "t"}} {
			cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	work := t.TempDir()
	t.Chdir(work)
	os.Mkdir("site", 0o755)
	os.WriteFile(filepath.Join("site", siteMarker), nil, 0o644)
	for _, args := range [][]string{
		{"build", "--quiet", "-o", "built", demo},
		{"build", "--quiet", "--git", repo, "-o", "built"},
		{"search", "--site", "site", "hello"},
		{"serve", "--addr", "127.0.0.1:0", "site"},
		{"forget", "-o", "site", "aaaaaaaa-1111-4111-8111-111111111111"},
		{"archive", "export", "-o", "site", "out"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		var stdout, stderr bytes.Buffer
		code := run(ctx, args, &stdout, &stderr, getenv)
		cancel()
		name := args[0]
		if name == "archive" {
			name += " export"
		}
		if want := "ccsite " + name + ": " + build.ErrNoStateHome.Error() + "\n"; code != exitFail || stderr.String() != want {
			t.Errorf("%v without a home folder: exit %d, stderr %q; want %d, %q", args, code, stderr.String(), exitFail, want)
		}
		var names []string
		filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
			if p != "." {
				names = append(names, filepath.ToSlash(p))
			}
			return nil
		})
		if want := []string{"site", "site/" + siteMarker}; !slices.Equal(names, want) {
			t.Errorf("%v without a home folder left %v in the current folder", args, names)
			os.RemoveAll("built")
			os.RemoveAll("git")
			os.RemoveAll("bleve")
		}
	}
}
