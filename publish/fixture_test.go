package publish

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The user's repository for the runner test, made with git plumbing in a
// bare repository (as a push would leave it on GitHub): code on main and
// a feature branch, commits naming their checkpoints in
// `Entire-Checkpoint:` trailers, and the checkpoints in one of Entire's
// layouts:
//
//   - "refs": one ref per checkpoint, refs/entire/checkpoints/<last two
//     characters of the id>/<ULID>, each commit's tree holding
//     metadata.json and 0/full.jsonl, 0/metadata.json, 0/prompt.txt;
//   - "branch": the entire/checkpoints/v1 branch, whose tree holds
//     <id[:2]>/<id[2:]>/… for 12-hex ids.
//
// The transcripts are two of the demo archive's sessions: the notes one
// spread over two checkpoints (the first holding its first lines only),
// the infra one in a third.

const (
	notesSession  = "7e42ecb6-7c13-5256-b29f-8fd0d37313b4"
	infraSession  = "4decec74-5579-512c-9c10-022f83482f79"
	webappSession = "5d1c0a77-9e42-5b6f-8c3d-2a4b6c8d0e1f"
)

type checkpoint struct {
	id, session, file string
	lines             int // of the transcript; 0: all
	created, branch   string
	touched           []string
}

func fixtureCheckpoints(layout string) []checkpoint {
	ids := []string{"01J9ZK3M4N5P6Q7R8S9T0VWX1A", "01J9ZK3M4N5P6Q7R8S9T0VWX2B", "01J9ZK3M4N5P6Q7R8S9T0VWX3C"}
	if layout == "branch" {
		ids = []string{"a1b2c3d4e5f6", "a19f8e7d6c5b", "0c0ffee12345"}
	}
	notes := filepath.Join("..", "demo", "projects", "-home-demo-notes", notesSession+".jsonl")
	infra := filepath.Join("..", "demo", "projects", "-home-demo-infra", infraSession+".jsonl")
	return []checkpoint{
		{ids[0], notesSession, notes, 6, "2026-02-10T09:20:00Z", "main", []string{"notes/index.md"}},
		{ids[1], notesSession, notes, 0, "2026-02-10T09:40:00Z", "main", []string{"notes/index.md", "notes/todo.md"}},
		{ids[2], infraSession, infra, 0, "2026-02-11T14:00:00Z", "feature/deploy", []string{"deploy.sh"}},
	}
}

// plumber writes objects into a bare repository.
type plumber struct {
	t    *testing.T
	repo string
	date int // commit dates, one minute apart, for a repository that is the same each run
}

func (p *plumber) git(stdin string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = p.repo
	p.date++
	date := fmt.Sprintf("2026-02-10T10:%02d:00Z", p.date%60)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Kim", "GIT_AUTHOR_EMAIL=kim@example.org", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Kim", "GIT_COMMITTER_EMAIL=kim@example.org", "GIT_COMMITTER_DATE="+date)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		p.t.Fatalf("git %q: %s", args, msg)
	}
	return strings.TrimSpace(string(out))
}

// tree writes files (slash paths → contents) as a tree; its hash.
func (p *plumber) tree(files map[string]string) string {
	sub := map[string]map[string]string{}
	var entries []string
	for name, data := range files {
		if dir, rest, ok := strings.Cut(name, "/"); ok {
			if sub[dir] == nil {
				sub[dir] = map[string]string{}
			}
			sub[dir][rest] = data
			continue
		}
		blob := p.git(data, "hash-object", "-w", "--stdin")
		entries = append(entries, "100644 blob "+blob+"\t"+name)
	}
	for dir, fs := range sub {
		entries = append(entries, "040000 tree "+p.tree(fs)+"\t"+dir)
	}
	slices.Sort(entries)
	return p.git(strings.Join(entries, "\n")+"\n", "mktree")
}

func (p *plumber) commit(tree, msg string, parents ...string) string {
	args := []string{"commit-tree", tree, "-m", msg}
	for _, par := range parents {
		args = append(args, "-p", par)
	}
	return p.git("", args...)
}

func mustJSON(t *testing.T, v any) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

// files are a checkpoint's files, as Entire writes them.
func (c checkpoint) files(t *testing.T) map[string]string {
	data, err := os.ReadFile(c.file)
	if err != nil {
		t.Fatal(err)
	}
	transcript := string(data)
	if c.lines > 0 {
		ls := strings.SplitAfter(transcript, "\n")
		transcript = strings.Join(ls[:c.lines], "")
	}
	session := map[string]any{"metadata": "/0/metadata.json", "transcript": "/0/full.jsonl", "prompt": "/0/prompt.txt"}
	return map[string]string{
		"metadata.json": mustJSON(t, map[string]any{"checkpoint_id": c.id, "strategy": "manual-commit",
			"branch": c.branch, "checkpoints_count": 1, "files_touched": c.touched, "sessions": []any{session}}),
		"0/metadata.json": mustJSON(t, map[string]any{"checkpoint_id": c.id, "session_id": c.session,
			"created_at": c.created, "branch": c.branch, "files_touched": c.touched, "agent": "Claude Code",
			"turn_id": c.id[len(c.id)-12:], "checkpoints_count": 1}),
		"0/full.jsonl": transcript,
		"0/prompt.txt": "the prompt\n",
	}
}

// newCheckpoint is a fourth checkpoint, pushed after the first runs: the
// demo's webapp session, a session of its own.
func newCheckpoint(layout string) checkpoint {
	id := "01J9ZK3M4N5P6Q7R8S9T0VWX4D"
	if layout == "branch" {
		id = "b0b1b2b3b4b5"
	}
	return checkpoint{id, webappSession, filepath.Join("..", "demo", "projects", "-home-demo-webapp", webappSession+".jsonl"),
		0, "2026-02-12T08:00:00Z", "main", []string{"app.js"}}
}

// push adds checkpoint c to the bare repository as Entire would: a new
// ref, or a new commit on entire/checkpoints/v1 with c's folder added.
func push(t *testing.T, repo, layout string, c checkpoint) {
	p := &plumber{t: t, repo: repo, date: 30}
	files := c.files(t)
	if layout == "refs" {
		p.git("", "update-ref", "refs/entire/checkpoints/"+c.id[len(c.id)-2:]+"/"+c.id, p.commit(p.tree(files), "Checkpoint: "+c.id))
		return
	}
	const branch = "refs/heads/entire/checkpoints/v1"
	parent := p.git("", "rev-parse", branch)
	// The tree of the last commit with c's folder added: an index of its own.
	env := "GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index")
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, append(os.Environ(), env), strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	run("", "read-tree", parent)
	for name, data := range files {
		blob := p.git(data, "hash-object", "-w", "--stdin")
		run("", "update-index", "--add", "--cacheinfo", "100644,"+blob+","+c.id[:2]+"/"+c.id[2:]+"/"+name)
	}
	p.git("", "update-ref", branch, p.commit(run("", "write-tree"), "Checkpoint: "+c.id, parent))
}

// checkpointOrigin makes the bare repository; it returns its path and the
// number of sessions its checkpoints hold.
func checkpointOrigin(t *testing.T, layout string) (string, int) {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "shop.git")
	if layout == "sample" {
		// 3 checkpoint refs holding 2 sessions, 3 commits with trailers.
		dir := os.Getenv("CCSITE_ENTIRE")
		if dir == "" {
			t.Skip("CCSITE_ENTIRE is not set (the real sample: CCSITE_ENTIRE=/work/shared/entire)")
		}
		if out, err := exec.Command("git", "clone", "-q", "--mirror", filepath.Join(dir, "branch-pruner.bundle"), repo).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		return repo, 2
	}
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	p := &plumber{t: t, repo: repo}
	cps := fixtureCheckpoints(layout)

	switch layout {
	case "refs":
		for _, c := range cps {
			ref := "refs/entire/checkpoints/" + c.id[len(c.id)-2:] + "/" + c.id
			p.git("", "update-ref", ref, p.commit(p.tree(c.files(t)), "Checkpoint: "+c.id))
		}
	case "branch":
		all := map[string]string{}
		for _, c := range cps {
			for name, data := range c.files(t) {
				all[c.id[:2]+"/"+c.id[2:]+"/"+name] = data
			}
		}
		p.git("", "update-ref", "refs/heads/entire/checkpoints/v1", p.commit(p.tree(all), "Checkpoints"))
	default:
		t.Fatalf("layout %q", layout)
	}

	// The code: main, with a commit naming one checkpoint and one naming
	// two; a feature branch naming the third.
	trailer := func(subject string, ids ...string) string {
		msg := subject + "\n\nWhat changed, and why.\n\n"
		for _, id := range ids {
			msg += "Entire-Checkpoint: " + id + "\n"
		}
		return msg
	}
	c0 := p.commit(p.tree(map[string]string{"README.md": "# shop\n"}), "Start")
	c1 := p.commit(p.tree(map[string]string{"README.md": "# shop\n", "notes/index.md": "notes\n"}),
		trailer("notes: an index", cps[0].id), c0)
	c2 := p.commit(p.tree(map[string]string{"README.md": "# shop\n", "notes/index.md": "notes\n", "notes/todo.md": "- deploy\n"}),
		trailer("notes: a to-do list", cps[0].id, cps[1].id), c1)
	p.git("", "update-ref", "refs/heads/main", c2)
	c3 := p.commit(p.tree(map[string]string{"README.md": "# shop\n", "deploy.sh": "#!/bin/sh\n"}),
		trailer("deploy: a script", cps[2].id), c0)
	p.git("", "update-ref", "refs/heads/feature/deploy", c3)
	return repo, 2
}
