package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookBuildLog: a build the SessionEnd hook started (--from-hook)
// that fails leaves hook.log in the state folder: private, saying when and
// how it failed, with its output redacted (a GitHub token in a path it
// quotes); the next build says so once, and after a build that worked the
// log is not told again. A hook build that works writes an "ok" log.
func TestHookBuildLog(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	cache := t.TempDir()
	getenv := func(k string) string {
		if k == "CCSITE_CACHE_DIR" {
			return cache
		}
		return ""
	}
	demo, err := filepath.Abs("demo/projects")
	if err != nil {
		t.Fatal(err)
	}
	token := "ghp_" + "R7kQ2mXv9LpT4wZb8NcY3dHf6JsA1eUg5oKi"
	missing := filepath.Join(dir, "gone", token)
	build := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"build", "--out", filepath.Join(dir, "site"), "--state", state}, args...), &out, &errb, getenv)
		return code, errb.String()
	}
	if code, _ := build("--quiet", "--from-hook", missing); code != exitFail {
		t.Fatalf("the hook's build of a missing folder: exit %d", code)
	}
	log := filepath.Join(state, hookLogName)
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("no hook log: %v", err)
	}
	t.Logf("%s", data)
	if st, _ := os.Stat(log); st.Mode().Perm() != 0o600 {
		t.Errorf("hook.log has mode %v, want 0600", st.Mode().Perm())
	}
	for _, want := range []string{hookLogHead + "failed at ", "(exit status 1", "no transcripts found in", "[REDACTED:github-pat]", "command: ccsite build "} {
		if !strings.Contains(string(data), want) {
			t.Errorf("hook.log lacks %q", want)
		}
	}
	if strings.Contains(string(data), token) || strings.Contains(string(data), "--from-hook") {
		t.Errorf("hook.log holds the token or --from-hook:\n%s", data)
	}

	code, stderr := build(demo)
	if code != exitOK {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "ccsite build: the last build by the SessionEnd hook failed at ") ||
		!strings.Contains(stderr, ": no transcripts found in ") || !strings.Contains(stderr, "; see "+log+"\n") ||
		strings.Contains(stderr, token) {
		t.Errorf("the next build does not say the hook's build failed:\n%s", stderr)
	}
	if _, stderr := build(demo); strings.Contains(stderr, "SessionEnd hook") {
		t.Errorf("told again after a build that worked:\n%s", stderr)
	}

	if code, _ := build("--quiet", "--from-hook", demo); code != exitOK {
		t.Fatalf("the hook's build: exit %d", code)
	}
	if data, _ := os.ReadFile(log); !strings.HasPrefix(string(data), hookLogHead+"ok at ") {
		t.Errorf("after a hook build that worked:\n%s", data)
	}
	if _, stderr := build(demo); strings.Contains(stderr, "SessionEnd hook") {
		t.Errorf("a hook build that worked is told:\n%s", stderr)
	}
}

// TestTailBuffer: the log keeps the end of a long output, from a line's
// start, and says that its start was cut.
func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 100}
	for i := range 50 {
		tb.Write([]byte(strings.Repeat("x", 10) + string(rune('a'+i%26)) + "\n"))
	}
	s := tb.String()
	if !strings.HasPrefix(s, "[…]\nxxxxxxxxxx") || len(s) > 100+len("[…]\n") || !strings.HasSuffix(s, "xxxxxxxxxxx\n") {
		t.Errorf("kept %q", s)
	}
	small := &tailBuffer{max: 100}
	small.Write([]byte("one line\n"))
	if small.String() != "one line\n" {
		t.Errorf("kept %q", small.String())
	}
}
