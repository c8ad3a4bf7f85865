package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ccsite/build/keep"
)

// TestLongAgentID: an inline sub-agent record whose agentId is far longer
// than a file name may be still gets its page (a bounded, unique name), and
// the rest of the site is built.
func TestLongAgentID(t *testing.T) {
	in := t.TempDir()
	proj := filepath.Join(in, "-home-kim-shop")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("a1b2", 100)
	lines := []string{
		`{"type":"user","uuid":"10000000-0000-4000-8000-000000000001","sessionId":"s1","timestamp":"2026-03-01T10:00:00Z","cwd":"/home/kim/shop","message":{"role":"user","content":"hello"}}`,
		`{"type":"user","isSidechain":true,"agentId":"` + id + `","uuid":"10000000-0000-4000-8000-000000000002","sessionId":"s1","timestamp":"2026-03-01T10:00:01Z","cwd":"/home/kim/shop","message":{"role":"user","content":"sub-agent task"}}`,
		`{"type":"assistant","isSidechain":true,"agentId":"` + id + `","uuid":"10000000-0000-4000-8000-000000000003","parentUuid":"10000000-0000-4000-8000-000000000002","sessionId":"s1","timestamp":"2026-03-01T10:00:02Z","cwd":"/home/kim/shop","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"done"}]}}`,
	}
	if err := os.WriteFile(filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	var long []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && len(d.Name()) > 255 {
			long = append(long, p)
		}
		return nil
	})
	if len(long) > 0 {
		t.Errorf("names over 255 bytes: %v", long)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
}

// TestPanickingSession: a panic while one session is parsed, or rendered,
// is reported against its file; every other session is built.
func TestPanickingSession(t *testing.T) {
	for _, stage := range []string{"parse", "render"} {
		t.Run(stage, func(t *testing.T) {
			in := t.TempDir()
			copyTree(t, "../demo/projects", in)
			var victim string
			filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
				if victim == "" && err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "agent-") {
					victim = p
				}
				return nil
			})
			out := filepath.Join(t.TempDir(), "site")
			full, err := Run(context.Background(), Config{Paths: []string{in}, Out: filepath.Join(t.TempDir(), "full")})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out,
				panicOn: func(s, path string) {
					if s == stage && path == victim {
						panic("boom")
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Unreadable) != 1 || !strings.Contains(sum.Unreadable[0], "boom") || !strings.Contains(sum.Unreadable[0], filepath.Base(victim)) {
				t.Errorf("unreadable: %q", sum.Unreadable)
			}
			if sum.Sessions != full.Sessions-1 && !(stage == "render" && sum.Sessions == full.Sessions) {
				t.Errorf("%d sessions built, %d without the panic", sum.Sessions, full.Sessions)
			}
			if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestConcurrentBuilds: builds into one folder at once wait for each other
// and all succeed; one told not to wait says why, and the site is whole.
func TestConcurrentBuilds(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, Force: true, LockWait: time.Minute})
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent build: %v", err)
		}
	}
	// Held by someone else, no wait: a clear error, nothing touched.
	unlock, err := lockOut(context.Background(), out, DefaultStateDir(out, os.Getenv), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	waited := false
	_, err = Run(context.Background(), Config{Paths: []string{in}, Out: out, LockWait: 300 * time.Millisecond, OnWait: func() { waited = true }})
	unlock()
	if !errors.Is(err, ErrLocked) || !waited {
		t.Errorf("locked: err %v, told it waits %v", err, waited)
	}
	full := filepath.Join(t.TempDir(), "full")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: full}); err != nil {
		t.Fatal(err)
	}
	sameSite(t, "after concurrent builds", out, full)
}

// TestSymlinksInOutput: a folder of the site replaced by a link to another
// place is replaced again by a real folder; nothing is written or removed
// through it. A temporary file an earlier build left is removed.
func TestSymlinksInOutput(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(out)
	var project string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "assets" && e.Name() != "search" && e.Name() != "media" && !strings.HasPrefix(e.Name(), ".") {
			project = e.Name()
			break
		}
	}
	elsewhere := t.TempDir()
	keep := filepath.Join(elsewhere, "index.html")
	if err := os.WriteFile(keep, []byte("not the site's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(out, project)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, project)); err != nil {
		t.Fatal(err)
	}
	// Also a link where the assets folder was, and a temporary file left.
	if err := os.RemoveAll(filepath.Join(out, "assets")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, "assets")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, ".tmp-123456"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, Force: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadDir(elsewhere)
	if len(got) != 1 {
		t.Errorf("written through the link: %v", got)
	}
	if b, _ := os.ReadFile(keep); string(b) != "not the site's" {
		t.Errorf("the file behind the link was changed: %q", b)
	}
	for _, d := range []string{project, "assets"} {
		if st, err := os.Lstat(filepath.Join(out, d)); err != nil || !st.IsDir() {
			t.Errorf("%s is not a real folder again: %v %v", d, st, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, ".tmp-123456")); err == nil {
		t.Error("the leftover temporary file is still there")
	}
	full := filepath.Join(t.TempDir(), "full")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: full}); err != nil {
		t.Fatal(err)
	}
	sameSite(t, "after links in the output", out, full)
}

// TestKilledRepair kills builds with SIGKILL (no chance to clean up) at
// several moments, including the build that repairs an earlier killed one;
// the next build that runs to its end leaves no temporary file and equals a
// full build. The builds run in a child process: this test binary, run
// again with CCSITE_TEST_CHILD_BUILD set.
func TestKilledRepair(t *testing.T) {
	if testing.Short() {
		t.Skip("builds in child processes")
	}
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	site := filepath.Join(t.TempDir(), "site")
	// child builds the site in a child process. One killed after delay, or
	// one that kills itself at its atWrite-th file of the site (between
	// writing it and renaming it), reports true.
	child := func(delay time.Duration, atWrite int) bool {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildBuild$")
		cmd.Env = append(os.Environ(), "CCSITE_TEST_CHILD_BUILD="+in+string(filepath.ListSeparator)+site,
			fmt.Sprintf("CCSITE_TEST_KILL_AT_WRITE=%d", atWrite))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if atWrite > 0 && cmd.ProcessState.ExitCode() == -1 { // ended by its signal
				return true
			}
			if err != nil {
				t.Fatalf("child build: %v", err)
			}
			return false
		case <-time.After(delay):
			cmd.Process.Kill()
			<-done
			return true
		}
	}
	// A first child build runs to its end: its time scales the timed kills.
	// The builds after it are incremental and take far less, so the timed
	// kills may all come too late on a fast machine; the kills at a chosen
	// write come at the same point of the build on any machine.
	start := time.Now()
	if child(time.Hour, 0) {
		t.Fatal("the first child build was killed")
	}
	whole := time.Since(start)
	at := func(f float64) time.Duration { return time.Duration(f * float64(whole)) }
	type kill struct {
		delay   time.Duration
		atWrite int
	}
	timed, counted := 0, 0
	// Each round's kills at a write come first, while the build has all its
	// files to write: an incremental build writes a few (its session's
	// page, the lists, the state), and one killed before a rename leaves
	// that file and those after it to the next.
	for i, kills := range [][]kill{
		{{time.Hour, 1}, {at(0.5), 0}},
		{{time.Hour, 2}, {time.Hour, 1}, {at(0.7), 0}, {at(0.3), 0}},
		{{time.Hour, 1}, {time.Hour, 1}, {at(0.9), 0}, {at(0.6), 0}, {at(0.4), 0}},
		{{time.Hour, 3}, {at(0.8), 0}, {at(0.2), 0}, {at(0.05), 0}},
	} {
		appendLine(t, filepath.Join(in, "-home-demo-webapp", "2f17df70-2c36-56b8-95ef-251e65ace575.jsonl"), "kill round "+string(rune('a'+i)))
		for _, k := range kills {
			if child(k.delay, k.atWrite) {
				if k.atWrite > 0 {
					counted++
				} else {
					timed++
				}
			} else if k.atWrite > 0 {
				t.Errorf("round %d: the child build to die at its write %d ended without it", i, k.atWrite)
			}
		}
		// A temporary file as a killed write leaves it, deep in the site,
		// and as a killed save of the archive's index leaves it.
		if st, err := os.Stat(filepath.Join(site, "assets")); err == nil && st.IsDir() {
			os.WriteFile(filepath.Join(site, "assets", ".tmp-4242"), []byte("half a file"), 0o644)
		}
		if st, err := os.Stat(archiveDir(DefaultStateDir(site, os.Getenv))); err == nil && st.IsDir() {
			os.WriteFile(filepath.Join(archiveDir(DefaultStateDir(site, os.Getenv)), ".tmp-4243"), []byte(`{"half`), 0o644)
		}
		if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: site}); err != nil {
			t.Fatalf("round %d: the build after the kills: %v", i, err)
		}
		filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
				t.Errorf("round %d: a temporary file is left: %s", i, p)
			}
			return nil
		})
		full := filepath.Join(t.TempDir(), "full")
		if _, err := Run(context.Background(), withArchive(t, Config{Paths: []string{in}, Out: full}, site)); err != nil {
			t.Fatal(err)
		}
		sameSite(t, fmt.Sprintf("round %d after kills %v", i, kills), site, full)
		// The archive holds whole copies only: each reads back to its hash.
		checkArchive(t, DefaultStateDir(site, os.Getenv))
	}
	if counted == 0 {
		t.Error("no build was killed at a write: the test tested nothing")
	}
	t.Logf("%d builds killed at a write, %d by time", counted, timed)
}

// TestChildBuild is the child process of TestKilledRepair. With
// CCSITE_TEST_KILL_AT_WRITE=N it kills itself at the Nth file of the site
// it writes, after writing the file and before renaming it.
func TestChildBuild(t *testing.T) {
	arg := os.Getenv("CCSITE_TEST_CHILD_BUILD")
	if arg == "" {
		t.Skip("only as TestKilledRepair's child")
	}
	if n, _ := strconv.Atoi(os.Getenv("CCSITE_TEST_KILL_AT_WRITE")); n > 0 {
		var writes atomic.Int64
		beforeRename = func() {
			if writes.Add(1) == int64(n) {
				p, _ := os.FindProcess(os.Getpid())
				p.Kill()
				select {} // the signal ends the process
			}
		}
	}
	in, out, _ := strings.Cut(arg, string(filepath.ListSeparator))
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
}

// checkArchive fails when the archive in state holds a temporary file or a
// copy that does not read back to the content it names.
func checkArchive(t *testing.T, state string) {
	t.Helper()
	filepath.WalkDir(archiveDir(state), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("a half-written copy is left: %s", p)
		}
		return nil
	})
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, e := range st.Entries() {
		if _, err := st.Read(e); err != nil {
			t.Error(err)
		}
	}
}
