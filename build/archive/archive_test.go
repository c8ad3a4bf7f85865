package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tree writes files (path relative to a new temporary root → content) and
// returns the root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// sessionLines is a two-record session as Claude Code writes it: a
// file-history-snapshot (no cwd) and then a prompt carrying cwd and
// sessionId. An empty cwd leaves the field out.
func sessionLines(sessionID, cwd string) string {
	env := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "sessionId": sessionID,
		"version": "2.1.14", "gitBranch": "main", "type": "user",
		"message":   map[string]any{"role": "user", "content": "hello"},
		"uuid":      "11111111-2222-4333-8444-" + strings.Repeat("5", 12),
		"timestamp": "2026-01-21T15:30:00.000Z",
	}
	if cwd != "" {
		env["cwd"] = cwd
	}
	b, err := json.Marshal(env)
	if err != nil {
		panic(err)
	}
	return `{"type":"file-history-snapshot","messageId":"m1","snapshot":{"messageId":"m1","trackedFileBackups":{},"timestamp":"2026-01-21T15:30:00.000Z"},"isSnapshotUpdate":false}` + "\n" + string(b) + "\n"
}

func agentTranscript(sessionID, agentID, cwd string) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.0.76","agentId":%q,"type":"user","message":{"role":"user","content":"Warmup"},"uuid":"aaaaaaaa-2222-4333-8444-555555555555","timestamp":"2026-01-21T15:30:00.000Z"}`+"\n",
		cwd, sessionID, agentID)
}

const (
	sid1 = "11111111-1111-4111-8111-111111111111"
	sid2 = "22222222-2222-4222-8222-222222222222"
	sid3 = "33333333-3333-4333-8333-333333333333"
	sid4 = "44444444-4444-4444-8444-444444444444"
)

func discover(t *testing.T, roots ...string) *Archive {
	t.Helper()
	a, err := Discover(context.Background(), roots)
	if err != nil {
		t.Fatalf("Discover(%v): %v", roots, err)
	}
	return a
}

// projectSummary is "path name fromFolder [folders] [session ids]".
func projectSummary(root string, p *Project) string {
	var folders, ids []string
	for _, f := range p.Folders {
		rel, _ := filepath.Rel(root, f)
		folders = append(folders, filepath.ToSlash(rel))
	}
	for _, s := range p.Sessions {
		ids = append(ids, s.ID[:min(8, len(s.ID))])
	}
	path := p.Path
	if rel, err := filepath.Rel(root, p.Path); err == nil && !strings.HasPrefix(rel, "..") {
		path = "<root>/" + filepath.ToSlash(rel)
	}
	return fmt.Sprintf("%s name=%s fromFolder=%v folders=%v sessions=%v", path, p.Name, p.FromFolder, folders, ids)
}

func summaries(root string, a *Archive) []string {
	var out []string
	for _, p := range a.Projects {
		out = append(out, projectSummary(root, p))
	}
	return out
}

func TestProjectNaming(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		// Named after its cwd, as Claude Code names folders.
		"-home-u-app/" + sid1 + ".jsonl": sessionLines(sid1, "/home/u/app"),
		// A Windows cwd: C:\Users\x\proj → C--Users-x-proj.
		"C--Users-x-proj/" + sid2 + ".jsonl": sessionLines(sid2, `C:\Users\x\proj`),
		// A folder whose name matches no cwd (copied or renamed): each session
		// goes to the project of its own cwd, one of them the app's.
		"backup/" + sid3 + ".jsonl": sessionLines(sid3, "/home/u/app"),
		"backup/" + sid4 + ".jsonl": sessionLines(sid4, "/srv/tools"),
		// No cwd at all: the project is the folder.
		"-home-u-nocwd/55555555-5555-4555-8555-555555555555.jsonl": sessionLines("55555555-5555-4555-8555-555555555555", ""),
	})
	a := discover(t, root)
	got := summaries(root, a)
	want := []string{
		"/home/u/app name=app fromFolder=false folders=[-home-u-app backup] sessions=[11111111 33333333]",
		"/srv/tools name=tools fromFolder=false folders=[backup] sessions=[44444444]",
		"<root>/-home-u-nocwd name=-home-u-nocwd fromFolder=true folders=[-home-u-nocwd] sessions=[55555555]",
		`C:\Users\x\proj name=proj fromFolder=false folders=[C--Users-x-proj] sessions=[22222222]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("projects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.Files != 5 {
		t.Errorf("Files = %d, want 5", a.Files)
	}
	var size int64
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			size += s.Size
			if s.SessionID != s.ID {
				t.Errorf("session %s: SessionID %q from its records", s.ID, s.SessionID)
			}
		}
	}
	if a.Bytes != size {
		t.Errorf("Bytes = %d, want the sum of the files' sizes %d", a.Bytes, size)
	}
}

// Two real paths that encode to the same folder name (the mapping is lossy)
// are still two projects: the records' cwd is the truth.
func TestProjectNamingCollision(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"-home-u-my-app/" + sid1 + ".jsonl": sessionLines(sid1, "/home/u/my-app"),
		"-home-u-my-app/" + sid2 + ".jsonl": sessionLines(sid2, "/home/u/my/app"),
		"-home-u-my-app/" + sid3 + ".jsonl": sessionLines(sid3, "/home/u/my-app"),
	})
	got := summaries(root, discover(t, root))
	want := []string{
		"/home/u/my-app name=my-app fromFolder=false folders=[-home-u-my-app] sessions=[11111111 33333333]",
		"/home/u/my/app name=app fromFolder=false folders=[-home-u-my-app] sessions=[22222222]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("projects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"/home/u/app", "-home-u-app"},
		{`C:\Users\x\proj`, "C--Users-x-proj"},
		{"/home/u/my.site_v2", "-home-u-my-site-v2"},
		{"/home/u/my-app", "-home-u-my-app"},
	} {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"/home/u/app", "app"}, {`C:\Users\x\proj`, "proj"}, {"/home/u/app/", "app"}, {"/", "/"},
	} {
		if got := ShortName(c.in); got != c.want {
			t.Errorf("ShortName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDefaultRoots(t *testing.T) {
	t.Parallel()
	base := tree(t, map[string]string{
		"one/projects/.keep":                  "",
		"three/projects/.keep":                "",
		"two/nothing-here":                    "",
		"home/.claude/projects/.keep":         "",
		"home/.config/claude/projects/.keep":  "",
		"emptyhome/.claude/not-projects/.txt": "",
	})
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" {
				return v
			}
			return ""
		}
	}
	j := func(parts ...string) string { return filepath.Join(append([]string{base}, parts...)...) }
	// A comma-separated list, blanks trimmed, entries without projects/ dropped.
	list := j("one") + " , " + j("two") + ",," + j("three") + "," + j("missing")
	if got, want := DefaultRoots(env(list), j("home")), []string{j("one", "projects"), j("three", "projects")}; !slices.Equal(got, want) {
		t.Errorf("CLAUDE_CONFIG_DIR list: got %v, want %v", got, want)
	}
	// The variable wins over the home folder.
	if got, want := DefaultRoots(env(j("one")), j("home")), []string{j("one", "projects")}; !slices.Equal(got, want) {
		t.Errorf("CLAUDE_CONFIG_DIR=one: got %v, want %v", got, want)
	}
	// Unset: both home locations, when they exist.
	if got, want := DefaultRoots(env(""), j("home")), []string{j("home", ".claude", "projects"), j("home", ".config", "claude", "projects")}; !slices.Equal(got, want) {
		t.Errorf("home: got %v, want %v", got, want)
	}
	if got := DefaultRoots(env(""), j("emptyhome")); len(got) != 0 {
		t.Errorf("home without projects: got %v, want none", got)
	}
	if got := DefaultRoots(env(""), ""); len(got) != 0 {
		t.Errorf("no home: got %v, want none", got)
	}
}

func TestErrNothing(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string]string{
		"empty":     {},
		"no jsonl":  {"-home-u-app/notes.txt": "hello", "-home-u-app/sub/x.json": "{}"},
		"only dirs": nil,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var root string
			if name == "only dirs" {
				root = t.TempDir()
				if err := os.MkdirAll(filepath.Join(root, "-home-u-app", "empty"), 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				root = tree(t, files)
			}
			a, err := Discover(context.Background(), []string{root})
			if !errors.Is(err, ErrNothing) {
				t.Fatalf("Discover(%s) error = %v, want ErrNothing", name, err)
			}
			if a == nil || len(a.Projects) != 0 {
				t.Errorf("Discover(%s) archive = %+v", name, a)
			}
		})
	}
	// A missing root is skipped, not fatal; with nothing else it is ErrNothing.
	missing := filepath.Join(t.TempDir(), "nope")
	a, err := Discover(context.Background(), []string{missing})
	if !errors.Is(err, ErrNothing) {
		t.Fatalf("missing root: error = %v, want ErrNothing", err)
	}
	if len(a.Skipped) != 1 || a.Skipped[0].Path != missing {
		t.Errorf("missing root: Skipped = %+v", a.Skipped)
	}
}

func TestDiscoverLayouts(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"-home-u-app/" + sid1 + ".jsonl":                                              sessionLines(sid1, "/home/u/app"),
		"-home-u-app/" + sid1 + "/subagents/agent-a5bdbc1.jsonl":                      agentTranscript(sid1, "a5bdbc1", "/home/u/app"),
		"-home-u-app/" + sid1 + "/subagents/agent-a5bdbc1.meta.json":                  `{"agentType":"Explore","description":"Find config loaders","worktreePath":"/home/u/app/.claude/worktrees/agent-a5bdbc1"}`,
		"-home-u-app/" + sid1 + "/subagents/workflows/wf_demo01/agent-ag000001.jsonl": agentTranscript(sid1, "ag000001", "/home/u/app"),
		"-home-u-app/" + sid1 + "/workflows/wf_demo01/journal.jsonl":                  `{"type":"workflow-step"}` + "\n",
		"-home-u-app/" + sid2 + ".jsonl":                                              sessionLines(sid2, "/home/u/app"),
		"-home-u-app/agent-a7fec9a.jsonl":                                             agentTranscript(sid2, "a7fec9a", "/home/u/app"),
		"-home-u-app/agent-deadbee.jsonl":                                             agentTranscript(sid4, "deadbee", "/home/u/app"),
		"-home-u-app/" + sid3 + "/subagents/agent-0rphan1.jsonl":                      agentTranscript(sid3, "0rphan1", "/home/u/app"),
	})
	a := discover(t, root)
	if len(a.Projects) != 1 || len(a.Projects[0].Sessions) != 2 {
		t.Fatalf("projects: %v", summaries(root, a))
	}
	s1, s2 := a.Projects[0].Sessions[0], a.Projects[0].Sessions[1]
	if s1.ID != sid1 || s2.ID != sid2 {
		t.Fatalf("sessions %s, %s", s1.ID, s2.ID)
	}
	type agentRow struct{ ID, Layout, ParentID, LinkedBy string }
	rows := func(list []*AgentFile) []agentRow {
		var out []agentRow
		for _, ag := range list {
			out = append(out, agentRow{ag.ID, ag.Layout, ag.ParentID, ag.LinkedBy})
		}
		return out
	}
	if got, want := rows(s1.Agents), []agentRow{
		{"a5bdbc1", LayoutSubagents, sid1, "subagents-dir"},
		{"ag000001", LayoutSubagents, sid1, "subagents-dir"},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("session 1 agents = %+v, want %+v", got, want)
	}
	if m := s1.Agents[0].Meta; m == nil || m.AgentType != "Explore" || m.Description != "Find config loaders" || m.WorktreePath == "" {
		t.Errorf("meta.json not read: %+v", m)
	}
	if len(s1.Extras) != 1 || filepath.Base(s1.Extras[0]) != "journal.jsonl" {
		t.Errorf("session 1 extras = %v, want the workflow journal", s1.Extras)
	}
	if got, want := rows(s2.Agents), []agentRow{{"a7fec9a", LayoutLegacy, sid2, "sessionId"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("session 2 agents = %+v, want %+v", got, want)
	}
	if got, want := rows(a.Orphans), []agentRow{
		{"0rphan1", LayoutSubagents, sid3, "subagents-dir"},
		{"deadbee", LayoutLegacy, sid4, ""},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("orphans = %+v, want %+v", got, want)
	}
	if a.Files != 7 {
		t.Errorf("Files = %d, want 7 transcripts (journal not counted)", a.Files)
	}
}

func TestDiscoverFilesAndRoots(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"-home-u-app/" + sid1 + ".jsonl": sessionLines(sid1, "/home/u/app"),
		"-home-u-app/" + sid2 + ".jsonl": sessionLines(sid2, "/home/u/app"),
		"other/" + sid3 + ".jsonl":       sessionLines(sid3, "/home/u/other"),
		"-home-u-app/empty.jsonl":        "",
	})
	one := filepath.Join(root, "-home-u-app", sid1+".jsonl")
	missing := filepath.Join(root, "missing")
	// A file given twice (as itself and within its folder) counts once; a
	// missing path is skipped.
	a := discover(t, one, missing, filepath.Join(root, "-home-u-app"))
	if a.Files != 3 {
		t.Errorf("Files = %d, want 3", a.Files)
	}
	if len(a.Skipped) != 1 || a.Skipped[0].Path != missing {
		t.Errorf("Skipped = %+v", a.Skipped)
	}
	got := summaries(root, a)
	// The empty file has no cwd and no id of its own but its stem.
	want := []string{"/home/u/app name=app fromFolder=false folders=[-home-u-app] sessions=[11111111 22222222 empty]"}
	if !slices.Equal(got, want) {
		t.Errorf("projects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDiscoverDeterministic(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", 0xfff-i*7, i)
		cwd := fmt.Sprintf("/home/u/p%d", i%4)
		files[Slug(cwd)+"/"+sid+".jsonl"] = sessionLines(sid, cwd)
		files[Slug(cwd)+fmt.Sprintf("/agent-%07x.jsonl", 0xabc000+i)] = agentTranscript(sid, fmt.Sprintf("%07x", 0xabc000+i), cwd)
		files[Slug(cwd)+fmt.Sprintf("/agent-%07x.jsonl", 0x0fe000+i)] = agentTranscript("99999999-0000-4000-8000-000000000000", fmt.Sprintf("%07x", 0x0fe000+i), cwd)
	}
	root := tree(t, files)
	dump := func(a *Archive) string {
		var b strings.Builder
		for _, p := range a.Projects {
			fmt.Fprintln(&b, projectSummary(root, p))
			for _, s := range p.Sessions {
				for _, ag := range s.Agents {
					fmt.Fprintln(&b, "  ", s.ID, ag.ID, ag.LinkedBy)
				}
			}
		}
		for _, o := range a.Orphans {
			fmt.Fprintln(&b, "orphan", o.ID)
		}
		return b.String()
	}
	first := dump(discover(t, root))
	if second := dump(discover(t, root)); first != second {
		t.Errorf("two runs differ:\n%s\n---\n%s", first, second)
	}
	a := discover(t, root)
	if !slices.IsSortedFunc(a.Projects, func(x, y *Project) int { return strings.Compare(x.Path, y.Path) }) {
		t.Error("projects not sorted by path")
	}
	for _, p := range a.Projects {
		if !slices.IsSortedFunc(p.Sessions, func(x, y *SessionFile) int { return strings.Compare(x.Path, y.Path) }) {
			t.Errorf("sessions of %s not sorted by path", p.Path)
		}
		if len(p.Sessions) != 3 {
			t.Errorf("project %s has %d sessions, want 3", p.Path, len(p.Sessions))
		}
	}
	if len(a.Orphans) != 12 || !slices.IsSortedFunc(a.Orphans, func(x, y *AgentFile) int { return strings.Compare(x.Path, y.Path) }) {
		t.Errorf("want 12 orphans sorted by path, got %d", len(a.Orphans))
	}
}

func TestDiscoverCanceled(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{"-home-u-app/" + sid1 + ".jsonl": sessionLines(sid1, "/home/u/app")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Discover(ctx, []string{root}); !errors.Is(err, context.Canceled) {
		t.Errorf("Discover with a canceled context: %v, want context.Canceled", err)
	}
}

// Every session of an archive needs an id of its own: pages and links are
// named by it. A copy of a session file under another name (here
// "<id>-2.jsonl", as a backup or an export tool writes it) carries the same
// sessionId in its records.
func TestSessionIDsUnique(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"-home-u-app/" + sid1 + ".jsonl":   sessionLines(sid1, "/home/u/app"),
		"-home-u-app/" + sid1 + "-2.jsonl": sessionLines(sid1, "/home/u/app"),
		"-home-u-app/backup.jsonl":         sessionLines(sid1, "/home/u/app"),
	})
	a := discover(t, root)
	seen := map[string]string{}
	var dups []string
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			if prev, ok := seen[s.ID]; ok {
				dups = append(dups, fmt.Sprintf("%s and %s are both %s", filepath.Base(prev), filepath.Base(s.Path), s.ID))
			}
			seen[s.ID] = s.Path
		}
	}
	if len(dups) > 0 {
		t.Errorf("session files of one archive share an id: %s", strings.Join(dups, "; "))
	}
	if len(seen) != 3 {
		t.Errorf("got %d sessions, want 3", len(seen))
	}
}
