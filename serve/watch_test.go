package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
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
	t.Cleanup(func() { w.Close() })
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
	t.Cleanup(func() { stale.Close() })
	if !stale.poll() || stale.poll() {
		t.Error("a site older than its input: no build at the first poll, or a second one")
	}
	// A root that is a file is watched whatever its name.
	file := NewWatcher([]string{filepath.Join(root, "notes.txt"), filepath.Join(root, "missing")}, time.Hour, time.Now())
	t.Cleanup(func() { file.Close() })
	if file.Files() != 1 {
		t.Errorf("a file named as a root: watching %d files", file.Files())
	}
}

// TestWatcherRun runs the polling watcher on a clock: an appended line
// leads to one call of changed.
func TestWatcherRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	session := filepath.Join(root, "s.jsonl")
	appendTo(t, session, "{}\n")
	w := NewPollingWatcher([]string{root}, 10*time.Millisecond, time.Now().Add(time.Hour), "")
	if got, want := w.Mode(), "polling every 10ms (asked to)"; got != want {
		t.Errorf("Mode() = %q, want %q", got, want)
	}
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

// running is a watcher's Run in a goroutine: each call of changed is
// sent on calls, with its time.
type running struct {
	calls chan time.Time
	stop  func()
}

func runWatcher(t *testing.T, w *Watcher) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{calls: make(chan time.Time, 100)}
	done := make(chan struct{})
	go func() {
		w.Run(ctx, func(context.Context) { r.calls <- time.Now() })
		close(done)
	}()
	r.stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not stop")
		}
	}
	t.Cleanup(r.stop)
	return r
}

// next waits for a call of changed, failing after 5 s: with a poll
// interval of a minute, only notifications can explain a call that soon.
func (r *running) next(t *testing.T, what string, since time.Time) time.Duration {
	t.Helper()
	select {
	case at := <-r.calls:
		return at.Sub(since)
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no build 5s after it", what)
		return 0
	}
}

// none checks that changed is not called for a while.
func (r *running) none(t *testing.T, what string, d time.Duration) {
	t.Helper()
	select {
	case <-r.calls:
		t.Fatalf("%s: a build, want none", what)
	case <-time.After(d):
	}
}

// notifyingWatcher is NewWatcher with a poll interval of a minute; the
// test is skipped where notifications are not used (a network /tmp).
func notifyingWatcher(t *testing.T, roots []string, builtAt time.Time) *Watcher {
	t.Helper()
	w := NewWatcher(roots, time.Minute, builtAt)
	t.Cleanup(func() { w.Close() })
	if ok, why := w.Notifying(); !ok {
		t.Skipf("no notifications here: %s", why)
	}
	if got, want := w.Mode(), "watching with file-system notifications"; got != want {
		t.Errorf("Mode() = %q, want %q", got, want)
	}
	return w
}

// TestWatcherNotify: with notifications, a change is built within a
// moment, not at the next poll; a burst of writes is one build; a file in
// a folder created after the watcher started is seen; other files are not
// transcripts.
func TestWatcherNotify(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	session := filepath.Join(root, "-home-x", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, session, "{}\n")
	w := notifyingWatcher(t, []string{root}, time.Now().Add(time.Hour))
	r := runWatcher(t, w)

	r.none(t, "nothing changed", 2*settle)

	at := time.Now()
	appendTo(t, session, "{}\n")
	took := r.next(t, "a line appended", at)
	t.Logf("a line appended: built after %s", took.Round(time.Millisecond))
	if took < settle {
		t.Errorf("built %s after a change: before the files settled (%s)", took, settle)
	}
	r.none(t, "a line appended, built", 3*settle)

	// Claude Code writes a turn line by line: one build.
	at = time.Now()
	for range 10 {
		appendTo(t, session, "{}\n")
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("a burst of 10 lines: built after %s", r.next(t, "a burst of lines", at).Round(time.Millisecond))
	r.none(t, "a burst of lines, built once", 4*settle)

	// A new project, and a sub-agent in a folder made with it.
	at = time.Now()
	meta := filepath.Join(root, "-home-y", "s2", "subagents", "agent-a1.meta.json")
	if err := os.MkdirAll(filepath.Dir(meta), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, meta, "{}")
	r.next(t, "a new folder's file", at)
	r.none(t, "a new folder's file, built", 2*settle)
	at = time.Now()
	appendTo(t, meta, "{}")
	r.next(t, "a file in a folder created while watching", at)
	if w.Files() != 2 {
		t.Errorf("watching %d files, want 2", w.Files())
	}

	appendTo(t, filepath.Join(root, "-home-y", "notes.txt"), "x")
	r.none(t, "another kind of file", 3*settle)

	// A project folder renamed: its files are elsewhere, and still watched.
	at = time.Now()
	if err := os.Rename(filepath.Join(root, "-home-y"), filepath.Join(root, "-home-z")); err != nil {
		t.Fatal(err)
	}
	r.next(t, "a project folder renamed", at)
	r.none(t, "a project folder renamed, built", 2*settle)
	at = time.Now()
	appendTo(t, filepath.Join(root, "-home-z", "s2", "subagents", "agent-a1.meta.json"), "{}")
	r.next(t, "a file in a renamed folder", at)
	if err := os.Rename(filepath.Join(root, "-home-z"), filepath.Join(root, "-home-y")); err != nil {
		t.Fatal(err)
	}
	r.next(t, "a project folder renamed back", at)

	at = time.Now()
	if err := os.RemoveAll(filepath.Join(root, "-home-y")); err != nil {
		t.Fatal(err)
	}
	r.next(t, "a project folder removed", at)
	if w.Files() != 1 {
		t.Errorf("watching %d files, want 1", w.Files())
	}
	if ok, why := w.Notifying(); !ok {
		t.Errorf("fell back to polling: %s", why)
	}
}

// TestWatcherNotifyKeepsWriting: a file written without a pause is built
// every maxSettle, not never.
func TestWatcherNotifyKeepsWriting(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	session := filepath.Join(root, "s.jsonl")
	appendTo(t, session, "{}\n")
	w := notifyingWatcher(t, []string{root}, time.Now().Add(time.Hour))
	r := runWatcher(t, w)
	at := time.Now()
	stop := time.After(maxSettle + time.Second)
	built := false
	for !built {
		appendTo(t, session, "{}\n")
		select {
		case <-r.calls:
			built = true
		case <-stop:
			t.Fatalf("a file written every 50ms: no build in %s", time.Since(at))
		case <-time.After(50 * time.Millisecond):
		}
	}
	if took := time.Since(at); took < maxSettle-100*time.Millisecond {
		t.Errorf("a file written every 50ms: built after %s, before it paused or maxSettle passed", took)
	}
}

// TestWatcherNotifyStale: a site older than its input is built at once.
func TestWatcherNotifyStale(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	appendTo(t, filepath.Join(root, "s.jsonl"), "{}\n")
	w := notifyingWatcher(t, []string{root}, time.Now().Add(-time.Hour))
	r := runWatcher(t, w)
	r.next(t, "a stale site", time.Now())
	r.none(t, "a stale site, built", 2*settle)
}

// TestWatcherNotifyRoots: a root that does not exist yet is watched for,
// and a root that is a file (behind a link) is watched by name.
func TestWatcherNotifyRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	projects := filepath.Join(dir, "claude", "projects")
	target := filepath.Join(dir, "elsewhere", "one.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, target, "{}\n")
	appendTo(t, filepath.Join(dir, "elsewhere", "other.jsonl"), "{}\n")
	file := filepath.Join(dir, "linked.jsonl")
	if err := os.Symlink(target, file); err != nil {
		t.Fatal(err)
	}
	w := notifyingWatcher(t, []string{projects, file}, time.Now().Add(time.Hour))
	if w.Files() != 1 {
		t.Fatalf("watching %d files, want the one root file", w.Files())
	}
	r := runWatcher(t, w)

	at := time.Now()
	appendTo(t, target, "{}\n")
	r.next(t, "a root file changed through its link", at)
	appendTo(t, filepath.Join(dir, "elsewhere", "other.jsonl"), "{}\n")
	r.none(t, "a transcript beside the root file, not a root", 3*settle)

	at = time.Now()
	session := filepath.Join(projects, "-home-x", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, session, "{}\n")
	r.next(t, "the projects folder created, with a transcript", at)
	r.none(t, "the projects folder created, built", 2*settle)
	at = time.Now()
	appendTo(t, session, "{}\n")
	r.next(t, "a transcript in the new projects folder", at)
}

// TestWatcherPollingFallback: polling, asked for, still builds.
func TestWatcherPollingFallback(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	session := filepath.Join(root, "p", "s.jsonl")
	if err := os.MkdirAll(filepath.Dir(session), 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, session, "{}\n")
	w := NewPollingWatcher([]string{root}, 20*time.Millisecond, time.Now().Add(time.Hour), "a network file system")
	if ok, why := w.Notifying(); ok || why != "a network file system" {
		t.Errorf("Notifying() = %v, %q", ok, why)
	}
	if got, want := w.Mode(), "polling every 20ms (a network file system)"; got != want {
		t.Errorf("Mode() = %q, want %q", got, want)
	}
	r := runWatcher(t, w)
	at := time.Now()
	appendTo(t, session, "{}\n")
	r.next(t, "a line appended", at)
	r.none(t, "a line appended, built", 200*time.Millisecond)
	// A folder created later needs no watch to be seen.
	at = time.Now()
	appendTo(t, mkdirFor(t, filepath.Join(root, "q", "t.jsonl")), "{}\n")
	r.next(t, "a new folder's file", at)
}

func mkdirFor(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWatchErr: what the user is told when a folder cannot be watched.
func TestWatchErr(t *testing.T) {
	if got := watchErr(fmt.Errorf("add: %w", syscall.ENOSPC)); !strings.Contains(got, "max_user_watches") {
		t.Errorf("ENOSPC: %q", got)
	}
	if got := watchErr(syscall.EMFILE); !strings.Contains(got, "too many open files") {
		t.Errorf("EMFILE: %q", got)
	}
}

// TestNetworkFS: a test's temporary folder is (normally) local.
func TestNetworkFS(t *testing.T) {
	if name, remote := networkFS(t.TempDir()); remote {
		t.Logf("the temporary folder is on %s", name)
	}
	if name, remote := networkFS(filepath.Join(t.TempDir(), "missing")); remote || name != "" {
		t.Errorf("a missing path: %q, %v", name, remote)
	}
}

// TestWatcherWatchFails: when a folder cannot be watched (too many
// watches), the watcher polls: from the start, or from when a new folder
// could not be added, and says why.
func TestWatcherWatchFails(t *testing.T) { // not parallel: it replaces addWatch
	root := t.TempDir()
	session := filepath.Join(root, "-home-x", "s.jsonl")
	appendTo(t, mkdirFor(t, session), "{}\n")
	var allowed atomic.Int32
	real := addWatch
	addWatch = func(n *fsnotify.Watcher, dir string) error {
		if allowed.Add(-1) < 0 {
			return fmt.Errorf("inotify_add_watch %s: %w", dir, syscall.ENOSPC)
		}
		return real(n, dir)
	}
	t.Cleanup(func() { addWatch = real })

	// At the start: the second folder cannot be watched.
	allowed.Store(1)
	w := NewWatcher([]string{root}, 20*time.Millisecond, time.Now().Add(time.Hour))
	t.Cleanup(func() { w.Close() })
	if ok, why := w.Notifying(); ok || !strings.Contains(why, "max_user_watches") {
		t.Errorf("Notifying() = %v, %q", ok, why)
	}
	if got := w.Mode(); !strings.HasPrefix(got, "polling every 20ms (cannot watch ") {
		t.Errorf("Mode() = %q", got)
	}
	r := runWatcher(t, w)
	at := time.Now()
	appendTo(t, session, "{}\n")
	r.next(t, "polling after watching failed", at)
	r.stop()

	// Later: a new folder cannot be watched; the watcher polls from then.
	allowed.Store(1000)
	w2 := NewWatcher([]string{root}, 20*time.Millisecond, time.Now().Add(time.Hour))
	t.Cleanup(func() { w2.Close() })
	if ok, why := w2.Notifying(); !ok {
		t.Skipf("no notifications here: %s", why)
	}
	r2 := runWatcher(t, w2)
	allowed.Store(0)
	at = time.Now()
	other := filepath.Join(root, "-home-y", "t.jsonl")
	appendTo(t, mkdirFor(t, other), "{}\n")
	r2.next(t, "a folder that could not be watched", at)
	if ok, why := w2.Notifying(); ok || !strings.Contains(why, "-home-y") {
		t.Errorf("after a watch failed: Notifying() = %v, %q", ok, why)
	}
	r2.none(t, "a folder that could not be watched, built", 100*time.Millisecond)
	at = time.Now()
	appendTo(t, other, "{}\n")
	r2.next(t, "polling after a watch failed", at)
}
