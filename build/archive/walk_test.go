package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// symlink makes a link at link to target (as written, relative or
// not), skipping the test where links cannot be made.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// discoverIn runs Discover, failing rather than hanging when it blocks (on a
// named pipe, say).
func discoverIn(t *testing.T, roots ...string) (*Archive, error) {
	t.Helper()
	type result struct {
		a   *Archive
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := Discover(context.Background(), roots)
		done <- result{a, err}
	}()
	select {
	case r := <-done:
		return r.a, r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("Discover(%v) blocked", roots)
		return nil, nil
	}
}

// skips lists Skipped as "path: reason", paths under root relative to it
// (in the reasons too).
func skips(root string, a *Archive) []string {
	var out []string
	for _, s := range a.Skipped {
		out = append(out, relTo(root, s.Path)+": "+strings.ReplaceAll(s.Reason, root+string(filepath.Separator), ""))
	}
	return out
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// sessionPaths lists every session and agent file found, relative to root.
func sessionPaths(root string, a *Archive) []string {
	var out []string
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			out = append(out, relTo(root, s.Path))
			for _, ag := range s.Agents {
				out = append(out, relTo(root, ag.Path))
			}
		}
	}
	for _, ag := range a.Orphans {
		out = append(out, "orphan "+relTo(root, ag.Path))
	}
	slices.Sort(out)
	return out
}

func eqList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// A root that is a link (a dotfile manager's ~/.claude/projects) is walked;
// paths keep the link's name.
func TestDiscoverSymlinkRoot(t *testing.T) {
	t.Parallel()
	top := tree(t, map[string]string{
		"dotfiles/projects/-home-u-app/" + sid1 + ".jsonl":                         sessionLines(sid1, "/home/u/app"),
		"dotfiles/projects/-home-u-app/" + sid1 + "/subagents/agent-a5bdbc1.jsonl": agentTranscript(sid1, "a5bdbc1", "/home/u/app"),
	})
	link := filepath.Join(top, "claude", "projects")
	symlink(t, filepath.Join(top, "dotfiles", "projects"), link)
	// A link to that link, relative.
	link2 := filepath.Join(top, "projects2")
	symlink(t, filepath.Join("claude", "projects"), link2)

	a, err := discoverIn(t, link)
	if err != nil {
		t.Fatal(err)
	}
	eqList(t, "files", sessionPaths(top, a), []string{
		"claude/projects/-home-u-app/" + sid1 + ".jsonl",
		"claude/projects/-home-u-app/" + sid1 + "/subagents/agent-a5bdbc1.jsonl",
	})
	eqList(t, "projects", summaries(link, a), []string{"/home/u/app name=app fromFolder=false folders=[-home-u-app] sessions=[11111111]"})
	eqList(t, "skipped", skips(top, a), nil)
	if a.Files != 2 {
		t.Errorf("Files = %d, want 2", a.Files)
	}

	// The same folder by two roots is walked once; the second is said.
	a, err = discoverIn(t, link, link2)
	if err != nil {
		t.Fatal(err)
	}
	if a.Files != 2 {
		t.Errorf("two roots to one folder: Files = %d, want 2", a.Files)
	}
	eqList(t, "two roots: skipped", skips(top, a), []string{"projects2: same folder as claude/projects"})

	// Broken and looping root links are skipped, and said.
	broken := filepath.Join(top, "broken")
	symlink(t, filepath.Join(top, "nowhere"), broken)
	loopA, loopB := filepath.Join(top, "loopA"), filepath.Join(top, "loopB")
	symlink(t, loopB, loopA)
	symlink(t, loopA, loopB)
	a, err = discoverIn(t, broken, loopA)
	if !errors.Is(err, ErrNothing) {
		t.Errorf("broken and looping roots: error %v, want ErrNothing", err)
	}
	eqList(t, "bad roots: skipped", skips(top, a), []string{
		"broken: broken symlink to nowhere",
		"loopA: symlink loop",
	})
}

// Links inside the tree are followed: to a project folder, to a session
// file; a loop ends the descent and is said once; a file reached by two
// links counts once; broken links, named pipes and folders named .jsonl are
// skipped, and said.
func TestDiscoverSymlinksInTree(t *testing.T) {
	t.Parallel()
	top := tree(t, map[string]string{
		"projects/-home-u-app/" + sid1 + ".jsonl":                        sessionLines(sid1, "/home/u/app"),
		"elsewhere/-home-u-other/" + sid2 + ".jsonl":                     sessionLines(sid2, "/home/u/other"),
		"elsewhere/-home-u-other/" + sid2 + "/subagents/agent-abc.jsonl": agentTranscript(sid2, "abc", "/home/u/other"),
		"elsewhere/loose/" + sid3 + ".jsonl":                             sessionLines(sid3, "/home/u/app"),
		"elsewhere/loose/" + sid4 + ".jsonl":                             sessionLines(sid4, "/home/u/app"),
	})
	root := filepath.Join(top, "projects")
	app := filepath.Join(root, "-home-u-app")
	// A linked project folder, relative, and a second link to it.
	symlink(t, filepath.Join("..", "elsewhere", "-home-u-other"), filepath.Join(root, "-home-u-other"))
	symlink(t, filepath.Join(top, "elsewhere", "-home-u-other"), filepath.Join(root, "zz-again"))
	// A linked session file.
	symlink(t, filepath.Join(top, "elsewhere", "loose", sid3+".jsonl"), filepath.Join(app, sid3+".jsonl"))
	// One file by two links.
	symlink(t, filepath.Join(top, "elsewhere", "loose", sid4+".jsonl"), filepath.Join(app, sid4+".jsonl"))
	symlink(t, filepath.Join("..", "..", "elsewhere", "loose", sid4+".jsonl"), filepath.Join(app, "copy-of-4.jsonl"))
	// A loop: a folder linking back to its parent, and one above the root.
	symlink(t, "..", filepath.Join(app, "loop"))
	symlink(t, top, filepath.Join(app, "up"))
	// A chain of links that never ends.
	symlink(t, "chain2.jsonl", filepath.Join(app, "chain1.jsonl"))
	symlink(t, "chain1.jsonl", filepath.Join(app, "chain2.jsonl"))
	// A broken link.
	symlink(t, "nowhere.jsonl", filepath.Join(app, "gone.jsonl"))
	// A folder named .jsonl, holding a session: walked, and said.
	if err := os.MkdirAll(filepath.Join(app, "y.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "y.jsonl", "inner.jsonl"), []byte(sessionLines("inner", "/home/u/app")), 0o644); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"-home-u-app/" + sid1 + ".jsonl",
		"-home-u-app/" + sid3 + ".jsonl",
		"-home-u-app/" + sid4 + ".jsonl",
		"-home-u-app/y.jsonl/inner.jsonl",
		"-home-u-other/" + sid2 + ".jsonl",
		"-home-u-other/" + sid2 + "/subagents/agent-abc.jsonl",
	}
	wantSkips := []string{
		"-home-u-app/chain1.jsonl: symlink loop",
		"-home-u-app/chain2.jsonl: symlink loop",
		"-home-u-app/copy-of-4.jsonl: same file as -home-u-app/" + sid4 + ".jsonl",
		"-home-u-app/gone.jsonl: broken symlink to nowhere.jsonl",
		"-home-u-app/loop: symlink loop: leads back to " + root,
		"-home-u-app/up: symlink loop: leads to a folder above " + root,
		"-home-u-app/y.jsonl: a directory named .jsonl",
		"zz-again: same folder as -home-u-other",
	}
	// Named pipes named .jsonl, as a session and as an agent's meta.json:
	// never opened.
	fifo := filepath.Join(app, "x.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Logf("no named pipe: %v", err)
	} else {
		if err := mkfifo(filepath.Join(top, "elsewhere", "-home-u-other", sid2, "subagents", "agent-abc.meta.json")); err != nil {
			t.Fatal(err)
		}
		wantSkips = append(wantSkips, "-home-u-app/x.jsonl: not a regular file (named pipe)")
		slices.Sort(wantSkips)
	}

	a, err := discoverIn(t, root)
	if err != nil {
		t.Fatal(err)
	}
	eqList(t, "files", sessionPaths(root, a), want)
	eqList(t, "skipped", skips(root, a), wantSkips)
	if a.Files != len(want) {
		t.Errorf("Files = %d, want %d", a.Files, len(want))
	}
	eqList(t, "projects", summaries(root, a), []string{
		"/home/u/app name=app fromFolder=false folders=[-home-u-app -home-u-app/y.jsonl] sessions=[11111111 33333333 44444444 inner]",
		"/home/u/other name=other fromFolder=false folders=[-home-u-other] sessions=[22222222]",
	})
	// The agent's parent is found by its folder, as reached through the link.
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			if s.ID == sid2 && (len(s.Agents) != 1 || s.Agents[0].LinkedBy != "subagents-dir") {
				t.Errorf("session 2 agents = %+v, want agent-abc by its subagents folder", s.Agents)
			}
		}
	}

	// The same again gives the same: links change no order.
	b, err := discoverIn(t, root)
	if err != nil {
		t.Fatal(err)
	}
	eqList(t, "second run: skipped", skips(root, b), skips(root, a))
	eqList(t, "second run: files", sessionPaths(root, b), sessionPaths(root, a))
}

// A named pipe given as a root is skipped, not opened.
func TestDiscoverFIFORoot(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "x.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	a, err := discoverIn(t, fifo)
	if !errors.Is(err, ErrNothing) {
		t.Errorf("error %v, want ErrNothing", err)
	}
	eqList(t, "skipped", skips(filepath.Dir(fifo), a), []string{"x.jsonl: not a regular file (named pipe)"})
}

// A folder that cannot be read is skipped, and said; the rest is found.
func TestDiscoverUnreadableFolder(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"-home-u-app/" + sid1 + ".jsonl":  sessionLines(sid1, "/home/u/app"),
		"-home-u-shut/" + sid2 + ".jsonl": sessionLines(sid2, "/home/u/shut"),
	})
	shut := filepath.Join(root, "-home-u-shut")
	if err := os.Chmod(shut, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(shut, 0o755) })
	if _, err := os.ReadDir(shut); err == nil {
		t.Skip("permissions not enforced here (running as root?)")
	}
	a, err := discoverIn(t, root)
	if err != nil {
		t.Fatal(err)
	}
	eqList(t, "files", sessionPaths(root, a), []string{"-home-u-app/" + sid1 + ".jsonl"})
	eqList(t, "skipped", skips(root, a), []string{"-home-u-shut: permission denied"})
}

// TestNewerLayouts: workflow agents under subagents/workflows/<id>/, large
// outputs in tool-results/ (Extras), the continued-in last line and the
// first uuid are all found.
func TestNewerLayouts(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "-home-u-app")
	sid := "11110000-0000-4000-8000-000000000001"
	sdir := filepath.Join(proj, sid)
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, sid+".jsonl"), `{"type":"user","uuid":"u-1","sessionId":"`+sid+`","cwd":"/home/u/app","timestamp":"2026-05-01T10:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"+
		`{"type":"continued-in","sessionId":"`+sid+`","continuedInSessionId":"next-session"}`+"\n")
	write(filepath.Join(sdir, "subagents", "workflows", "wf_1", "agent-w1.jsonl"), `{"type":"user","uuid":"w-1","sessionId":"`+sid+`","message":{"role":"user","content":"step"}}`+"\n")
	write(filepath.Join(sdir, "subagents", "workflows", "wf_1", "agent-w1.meta.json"), `{"agentType":"workflow-subagent","parentAgentId":"p1","worktreeBranch":"b","spawnedWithWorktree":true}`)
	write(filepath.Join(sdir, "subagents", "workflows", "wf_1", "journal.jsonl"), "{}\n")
	write(filepath.Join(sdir, "tool-results", "toolu_1.txt"), "big\n")
	a, err := Discover(context.Background(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Projects) != 1 || len(a.Projects[0].Sessions) != 1 {
		t.Fatalf("projects: %+v", a.Projects)
	}
	s := a.Projects[0].Sessions[0]
	if s.ContinuedIn != "next-session" || s.FirstUUID != "u-1" {
		t.Errorf("ContinuedIn %q FirstUUID %q", s.ContinuedIn, s.FirstUUID)
	}
	if len(s.Agents) != 1 || s.Agents[0].WorkflowID != "wf_1" || s.Agents[0].ID != "w1" || s.Agents[0].Meta == nil ||
		s.Agents[0].Meta.ParentAgentID != "p1" || !s.Agents[0].Meta.SpawnedWithWorktree || s.Agents[0].Meta.WorktreeBranch != "b" {
		t.Errorf("workflow agent: %+v", s.Agents)
	}
	var stored bool
	for _, e := range s.Extras {
		if filepath.Base(e) == "toolu_1.txt" {
			stored = true
		}
	}
	if !stored || len(s.Extras) != 2 {
		t.Errorf("extras: %v", s.Extras)
	}
}

// TestContinuedInTail: the continued-in record is read from the file's
// last line whatever its length up to the tail read (a short line, one
// longer than the first small read, trailing blank lines), and a last
// line of another kind, or one that begins before the tail, names nothing.
func TestContinuedInTail(t *testing.T) {
	dir := t.TempDir()
	first := `{"type":"user","uuid":"u-1","message":{"role":"user","content":"` + strings.Repeat("x", 100<<10) + `"}}` + "\n"
	rec := func(pad int) string {
		return `{"type":"continued-in","pad":"` + strings.Repeat("p", pad) + `","continuedInSessionId":"next"}`
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"short", first + rec(0) + "\n", "next"},
		{"only line", rec(0), "next"},
		{"longer than 4 KB", first + rec(10<<10) + "\n", "next"},
		{"trailing blank lines", first + rec(10) + "\n" + strings.Repeat(" \n", 3<<10), "next"},
		{"begins before the tail", first + rec(80<<10) + "\n", ""},
		{"another kind last", rec(0) + "\n" + first, ""},
		{"empty", "", ""},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := peek(p, int64(len(c.data))).continuedIn; got != c.want {
			t.Errorf("%s: continuedIn = %q, want %q", c.name, got, c.want)
		}
	}
	// A file that shrank since it was walked: what is left is read, not
	// the zeros past its end.
	p := filepath.Join(dir, "shrank.jsonl")
	if err := os.WriteFile(p, []byte(first+rec(0)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := peek(p, int64(len(first)+len(rec(0))+500)).continuedIn; got != "next" {
		t.Errorf("shrank: continuedIn = %q, want next", got)
	}
}
