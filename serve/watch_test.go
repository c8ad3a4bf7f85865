package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWatcherPoll steps the watcher poll by poll: what counts as a change,
// and that a build waits until the files stop changing.
func TestWatcherPoll(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	session := filepath.Join(root, "-home-x", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, session, "{}\n")
	appendTo(t, filepath.Join(root, "notes.txt"), "x")
	w := NewWatcher([]string{root}, time.Hour, time.Now().Add(time.Hour))
	if w.Files() != 1 {
		t.Fatalf("watching %d files, want the one transcript", w.Files())
	}
	step := func(what string, want ...bool) {
		t.Helper()
		for i, b := range want {
			if got := w.poll(); got != b {
				t.Fatalf("%s: poll %d says build %v, want %v", what, i+1, got, b)
			}
		}
	}
	step("nothing changed", false, false)
	appendTo(t, session, "{}\n")
	step("a line appended", false, true, false)

	appendTo(t, session, "{}\n")
	step("a file being written", false)
	appendTo(t, session, "{}\n")
	step("a file being written", false)
	step("a file being written, then quiet", true, false)

	appendTo(t, filepath.Join(root, "notes.txt"), "y")
	step("another kind of file", false, false)

	meta := filepath.Join(root, "-home-x", "s", "subagents", "agent-a1.meta.json")
	if err := os.MkdirAll(filepath.Dir(meta), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, meta, "{}")
	step("a sub-agent's meta.json added", false, true)
	if w.Files() != 2 {
		t.Errorf("watching %d files, want 2", w.Files())
	}
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	step("a file removed", false, true)

	for i := 1; i < maxWaitPolls; i++ {
		appendTo(t, session, "{}\n")
		step("a file that keeps changing", false)
	}
	appendTo(t, session, "{}\n")
	step("a file that keeps changing, at last", true)

	// A site older than its input is built at the first poll.
	stale := NewWatcher([]string{root}, time.Hour, time.Now().Add(-time.Hour))
	if !stale.poll() || stale.poll() {
		t.Error("a site older than its input: no build at the first poll, or a second one")
	}
	// A root that is a file is watched whatever its name.
	file := NewWatcher([]string{filepath.Join(root, "notes.txt"), filepath.Join(root, "missing")}, time.Hour, time.Now())
	if file.Files() != 1 {
		t.Errorf("a file named as a root: watching %d files", file.Files())
	}
}

// TestWatcherRun runs the watcher on a clock: an appended line leads to
// one call of changed.
func TestWatcherRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	session := filepath.Join(root, "s.jsonl")
	appendTo(t, session, "{}\n")
	w := NewWatcher([]string{root}, 10*time.Millisecond, time.Now().Add(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		w.Run(ctx, func(context.Context) { calls <- struct{}{} })
		close(done)
	}()
	appendTo(t, session, "{}\n")
	select {
	case <-calls:
	case <-time.After(5 * time.Second):
		t.Fatal("no build 5s after a change")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
}

// TestScanFollowsLinks: a linked root or project folder is watched as
// discovery reads it, and a link loop ends.
func TestScanFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "projects", "-home-kim-shop")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "s.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "projects")
	if err := os.Symlink(filepath.Join(dir, "dotfiles", "projects"), root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(real, "loop")); err != nil {
		t.Fatal(err)
	}
	files := scan([]string{root})
	if len(files) != 1 {
		t.Errorf("watching %v", files)
	}
}
