package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ccsite/build/gitsrc"
	"ccsite/build/redact"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"ccsite/search"
)

// historySession is a session (id 5e55...) of three turns: the second
// runs git commit (the repository's commit 0a1b2c3…), the third edits a
// file; Entire's checkpoint of the third turn names its last record.
const historySession = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":"start"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:00:05Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"ok"}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:01:00Z","message":{"role":"user","content":"commit it"}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:01:05Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"git commit -am first"}}]}}
{"type":"user","uuid":"r2","parentUuid":"a2","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:01:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"[main 0a1b2c3] First <b>commit</b>\n 1 file changed"}]}}
{"type":"user","uuid":"u3","parentUuid":"r2","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:02:00Z","message":{"role":"user","content":"edit"}}
{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:02:05Z","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"/r/pkg/a.go","old_string":"x","new_string":"y"}}]}}
{"type":"user","uuid":"r3","parentUuid":"a3","sessionId":"5e550000-0000-4000-8000-000000000001","gitBranch":"main","cwd":"/r","timestamp":"2026-01-02T10:02:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"ok"}]}}
`

// historyOf is a repository's History: the session's commit (also named
// by the transcript), a commit whose trailer names the third turn's
// checkpoint, and five commits no session made, one with a hostile
// subject, one with a secret, authors with e-mail addresses.
func historyOf(secret string) *gitsrc.History {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	h := &gitsrc.History{Name: "r", WebURL: "https://github.com/o/r",
		Checkpoints: []gitsrc.Checkpoint{{ID: "a1b2c3d4e5f6", SessionID: "5e550000-0000-4000-8000-000000000001", LastUUID: "r3",
			Branch: "main", Created: day.Add(10*time.Hour + 3*time.Minute), FilesTouched: []string{"pkg/b.go", "notes " + secret}}}}
	add := func(hash, subject string, at time.Duration, cps ...string) {
		h.Commits = append([]gitsrc.Commit{{Hash: hash, Subject: subject, Author: "Kim Doe <kim@example.com>", When: day.Add(at),
			Branches: []string{"main"}, Checkpoints: cps}}, h.Commits...)
	}
	add("0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "First commit (as the repository says)", 10*time.Hour+time.Minute)
	add("1111111111111111111111111111111111111111", "Second, from a checkpoint", 10*time.Hour+4*time.Minute, "a1b2c3d4e5f6")
	for i, s := range []string{"<script>alert(1)</script> hostile", "token " + secret, "third", "fourth", "fifth"} {
		add(strings.Repeat(string(rune('2'+i)), 40), s, 11*time.Hour+time.Duration(i)*time.Minute)
	}
	return h
}

// TestHistoryLinks: with a repository's History, each commit a session
// made shows on its turn and in its header (once, though both the
// transcript and a checkpoint name it), linked to the repository; the
// project's history page joins each commit to its turn, folds the
// commits no session made, lists each file with its turns, and shows
// subjects escaped and redacted, authors without e-mail addresses.
func TestHistoryLinks(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-r")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "5e550000-0000-4000-8000-000000000001.jsonl"), []byte(historySession), 0o644)
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "Kz9Q1x"
	red, err := redact.New(redact.Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "site")
	_, err = Run(context.Background(), Config{Paths: []string{filepath.Join(dir, "projects")}, Out: out, State: filepath.Join(dir, "state"),
		History: historyOf(secret), Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		data, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	sess := read("r/5e550000-0000-4000-8000-000000000001.html")
	turn := func(n string) string {
		i := strings.Index(sess, `id="t-`+n+`"`)
		j := strings.Index(sess[i:], "</section>")
		return sess[i : i+j]
	}
	if t2 := turn("2"); !strings.Contains(t2, `href="https://github.com/o/r/commit/0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"`) || !strings.Contains(t2, "0a1b2c3") {
		t.Errorf("turn 2 does not show its commit linked:\n%s", t2)
	}
	if t3 := turn("3"); !strings.Contains(t3, "Second, from a checkpoint") || !strings.Contains(t3, "commit/1111111111111111111111111111111111111111") {
		t.Errorf("turn 3 does not show the checkpoint's commit:\n%s", t3)
	}
	head := regexp.MustCompile(`(?s)<p class="commits">.*?</p>`).FindString(sess)
	if strings.Count(head, `class="commit"`) != 2 || !strings.Contains(head, "First &lt;b&gt;commit&lt;/b&gt;") {
		t.Errorf("header commits (want 2, the transcript's subject escaped): %s", head)
	}
	hist := read("r/history/index.html")
	for _, want := range []string{
		`href="../5e550000-0000-4000-8000-000000000001.html#t-2"`, `href="../5e550000-0000-4000-8000-000000000001.html#t-3"`,
		"5 commits without a session", "&lt;script&gt;alert(1)&lt;/script&gt; hostile", "Kim Doe", "<code>pkg/a.go</code>", "<code>pkg/b.go</code>",
		`href="../index.html"`,
	} {
		if !strings.Contains(hist, want) {
			t.Errorf("history page lacks %q", want)
		}
	}
	for _, bad := range []string{secret, "kim@example.com", "<script>alert"} {
		if strings.Contains(hist, bad) || strings.Contains(sess, bad) {
			t.Errorf("a page shows %q", bad)
		}
	}
	idx, err := search.Open(IndexPath(filepath.Join(dir, "state")))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for word, want := range map[string]string{"checkpoint": "r/5e550000-0000-4000-8000-000000000001.html#t-3",
		"fourth": "r/history/index.html#c-" + strings.Repeat("5", 40)} {
		res, err := idx.Search(context.Background(), search.Query{Text: word, Role: "commit"})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].Page+"#"+res.Hits[0].Anchor != want {
			t.Errorf("search %q: %v %+v, want one hit at %s", word, err, res.Hits, want)
		}
	}
	if !strings.Contains(read("r/index.html"), `href="history/index.html"`) || !strings.Contains(read("index.html"), `href="r/history/index.html"`) {
		t.Error("the project page or the index does not link the history page")
	}
}

// TestHistoryTranscriptOnly: without a repository, the commits the
// transcripts show make the history page, linked to their turns, with no
// link to a web page.
func TestHistoryTranscriptOnly(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-r")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "5e550000-0000-4000-8000-000000000001.jsonl"), []byte(historySession), 0o644)
	// A project whose sessions made no commit has no history page.
	quiet := filepath.Join(dir, "projects", "-q")
	os.MkdirAll(quiet, 0o755)
	noCommit := strings.NewReplacer("[main 0a1b2c3]", "nothing to commit", "/r", "/q").Replace(historySession)
	os.WriteFile(filepath.Join(quiet, "5e550000-0000-4000-8000-000000000009.jsonl"), []byte(noCommit), 0o644)
	out := filepath.Join(dir, "site")
	if _, err := Run(context.Background(), Config{Paths: []string{filepath.Join(dir, "projects")}, Out: out, State: filepath.Join(dir, "state")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "q/history/index.html")); err == nil {
		t.Error("a project without commits has a history page")
	}
	if data, err := os.ReadFile(filepath.Join(out, "q/index.html")); err != nil || strings.Contains(string(data), "history") {
		t.Error("a project without commits links a history page")
	}
	data, err := os.ReadFile(filepath.Join(out, "r/history/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	hist := string(data)
	if !strings.Contains(hist, `<code class="hash">0a1b2c3</code>`) || !strings.Contains(hist, "First &lt;b&gt;commit&lt;/b&gt;") ||
		!strings.Contains(hist, `#t-2"`) || strings.Contains(hist, "github.com") {
		t.Errorf("history page:\n%s", hist)
	}
}

// TestHistoryIncremental: a build again with the same History keeps every
// session; a new checkpoint of the session (and its commit) renders that
// session again, and its commit shows on its turn.
func TestHistoryIncremental(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-r")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "5e550000-0000-4000-8000-000000000001.jsonl"), []byte(historySession), 0o644)
	os.WriteFile(filepath.Join(proj, "5e550000-0000-4000-8000-000000000002.jsonl"), []byte(strings.ReplaceAll(historySession, "000000000001", "000000000002")), 0o644)
	out := filepath.Join(dir, "site")
	h := historyOf("nothing")
	build := func() Summary {
		sum, err := Run(context.Background(), Config{Paths: []string{filepath.Join(dir, "projects")}, Out: out, State: filepath.Join(dir, "state"), History: h})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	build()
	if sum := build(); sum.Kept != 2 {
		t.Errorf("the same History again: %d sessions kept, want 2", sum.Kept)
	}
	h.Checkpoints = append(h.Checkpoints, gitsrc.Checkpoint{ID: "0123456789ab", SessionID: "5e550000-0000-4000-8000-000000000002", LastUUID: "a1"})
	h.Commits = append([]gitsrc.Commit{{Hash: strings.Repeat("9", 40), Subject: "From the new checkpoint", When: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Checkpoints: []string{"0123456789ab"}}}, h.Commits...)
	if sum := build(); sum.Kept != 1 {
		t.Errorf("a new checkpoint: %d sessions kept, want 1", sum.Kept)
	}
	data, _ := os.ReadFile(filepath.Join(out, "r/5e550000-0000-4000-8000-000000000002.html"))
	if i := strings.Index(string(data), `id="t-1"`); i < 0 || !strings.Contains(string(data[i:]), "From the new checkpoint") {
		t.Error("the new checkpoint's commit is not on its turn")
	}
}

// TestHistoryLong: a repository of 2000 commits, one made in a session:
// the others fold into runs, and the page stays small.
func TestHistoryLong(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-r")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "5e550000-0000-4000-8000-000000000001.jsonl"), []byte(historySession), 0o644)
	h := &gitsrc.History{Name: "r", WebURL: "https://gitlab.com/o/r"}
	start := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2000 {
		hash := fmt.Sprintf("%040x", i+1)
		if i == 1500 {
			hash = "0a1b2c3" + strings.Repeat("f", 33)
		}
		h.Commits = append([]gitsrc.Commit{{Hash: hash, Subject: fmt.Sprintf("change %d", i), Author: "Kim", When: start.Add(time.Duration(i) * 40 * time.Minute), Branches: []string{"main"}}}, h.Commits...)
	}
	out := filepath.Join(dir, "site")
	begin := time.Now()
	if _, err := Run(context.Background(), Config{Paths: []string{filepath.Join(dir, "projects")}, Out: out, State: filepath.Join(dir, "state"), History: h}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	data, err := os.ReadFile(filepath.Join(out, "r/history/index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	// Newer than the session's commit, between it and the session's
	// start, older than the session.
	folded := 0
	for _, m := range regexp.MustCompile(`<summary>([\d,]+) commits without a session</summary>`).FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		folded += n
	}
	if runs := strings.Count(page, `class="h-run"`); runs != 3 || folded != 1999 || !strings.Contains(page, "499 commits without a session") {
		t.Errorf("%d runs of %d commits, want 3 of 1999", runs, folded)
	}
	if !strings.Contains(page, "https://gitlab.com/o/r/-/commit/0a1b2c3") {
		t.Error("the session's commit is not linked to GitLab")
	}
	t.Logf("2000 commits: %d KB page, build %v", len(data)/1024, took)
	if len(data) > 2<<20 {
		t.Errorf("the page is %d KB", len(data)/1024)
	}
}

// TestCheckpointTurn: a checkpoint's turn is its last record's, else the
// turn running when it was made (the first before any), else the last.
func TestCheckpointTurn(t *testing.T) {
	f, err := transcript.Decode(strings.NewReader(historySession), "s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := session.Build(f, session.Options{})
	day := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		cp   gitsrc.Checkpoint
		want int
	}{
		{gitsrc.Checkpoint{LastUUID: "r2"}, 2},
		{gitsrc.Checkpoint{LastUUID: "gone", Created: day.Add(90 * time.Second)}, 2},
		{gitsrc.Checkpoint{Created: day.Add(-time.Hour)}, 1},
		{gitsrc.Checkpoint{LastUUID: "gone"}, 3},
	} {
		if got := checkpointTurn(s, &c.cp); got != c.want {
			t.Errorf("%+v: turn %d, want %d", c.cp, got, c.want)
		}
	}
}

// TestUnderRoot: a file a tool call names by its full path and the same
// file Entire's checkpoint names by its path in the repository are one.
func TestUnderRoot(t *testing.T) {
	for _, c := range []struct{ root, p, want string }{
		{"/home/x/proj", "/home/x/proj/a/b.go", "a/b.go"},
		{"/home/x/proj/", "/home/x/proj/a.go", "a.go"},
		{"/home/x/proj", "/home/x/project/a.go", "/home/x/project/a.go"},
		{"/home/x/proj", "/home/x/PROJ/a.go", "/home/x/PROJ/a.go"},
		{`C:\Users\s\repo`, `C:\Users\s\repo\sub\prune.ps1`, "sub/prune.ps1"},
		{`C:\Users\s\repo`, `c:\users\s\repo\prune.ps1`, "prune.ps1"},
		{`C:\Users\s\repo`, "prune.ps1", "prune.ps1"},
		{"", "/a.go", "/a.go"},
	} {
		if got := underRoot(c.root, c.p); got != c.want {
			t.Errorf("underRoot(%q, %q) = %q, want %q", c.root, c.p, got, c.want)
		}
	}
}
