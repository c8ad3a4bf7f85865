package gitsrc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// fastCommit is a commit git fast-import makes: on ref (a branch, or a
// checkpoint ref), with files (path → bytes) as its whole tree, or, when
// parent is set, on top of its parent's tree.
type fastCommit struct {
	ref     string
	files   map[string]string
	message string
	author  string
	when    int64
	parent  bool              // on top of the ref's last commit
	from    string            // the parent, when the ref is not yet in this import
	links   map[string]string // path → symlink target
}

// fastImport makes the commits in one git fast-import: quick whatever
// their number (a test repository with hundreds of checkpoint refs).
func fastImport(t testing.TB, repo string, commits []fastCommit) {
	t.Helper()
	var b bytes.Buffer
	for i, c := range commits {
		author := c.author
		if author == "" {
			author = "Ada Lovelace"
		}
		when := c.when
		if when == 0 {
			when = 1767323045 + int64(i)
		}
		fmt.Fprintf(&b, "commit %s\nauthor %s <ada@example.org> %d +0000\ncommitter %s <ada@example.org> %d +0000\n", c.ref, author, when, author, when)
		fmt.Fprintf(&b, "data %d\n%s\n", len(c.message), c.message)
		if c.from != "" {
			fmt.Fprintf(&b, "from %s\n", c.from)
		}
		if !c.parent {
			b.WriteString("deleteall\n")
		}
		names := make([]string, 0, len(c.files))
		for name := range c.files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(&b, "M 100644 inline %s\ndata %d\n%s\n", name, len(c.files[name]), c.files[name])
		}
		for name, target := range c.links {
			fmt.Fprintf(&b, "M 120000 inline %s\ndata %d\n%s\n", name, len(target), target)
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "-C", repo, "fast-import", "--quiet", "--force")
	cmd.Stdin = &b
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
}

// ulid makes a ULID-like checkpoint id ending in the given two characters.
func ulid(n int, shard string) string {
	return fmt.Sprintf("01M0CMD2M3YA1TN5W4K%05dX", n)[:24] + shard
}

// cpRef is the ref of a checkpoint.
func cpRef(id string) string { return CheckpointRefs + id[len(id)-2:] + "/" + id }

// checkpointFiles is a checkpoint's tree as Entire writes it: one
// session, in 0/.
func checkpointFiles(id, sid, created, transcript string, extra map[string]string) map[string]string {
	files := map[string]string{
		"metadata.json":      fmt.Sprintf(`{"checkpoint_id":%q,"sessions":[{"transcript":"/0/full.jsonl"}]}`, id),
		"0/metadata.json":    fmt.Sprintf(`{"checkpoint_id":%q,"session_id":%q,"created_at":%q,"branch":"feature","files_touched":["b.go","a.go"],"agent":"Claude Code","turn_id":"turn-%s"}`, id, sid, created, id[len(id)-4:]),
		"0/full.jsonl":       transcript,
		"0/transcript.jsonl": `{"v":1,"agent":"claude-code","type":"user","ts":"2026-01-01T00:00:00Z","content":[{"text":"compact"}]}` + "\n",
		"0/prompt.txt":       "hello\n",
		"0/content_hash.txt": contentHash(transcript),
	}
	for k, v := range extra {
		if v == "" {
			delete(files, k)
		} else {
			files[k] = v
		}
	}
	return files
}

// contentHash is Entire's content_hash.txt for a transcript.
func contentHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:]) + "\n"
}

// refRepo makes a repository in Entire's current layout: session A in two
// checkpoint refs (a ULID and a hex id; the later copy longer), session
// B in one, the checkpoint branch holding session C, and a main branch
// whose commits name them in trailers (one names two, one names none
// found).
func refRepo(t *testing.T) (repo string, ids []string) {
	t.Helper()
	needGit(t)
	repo = filepath.Join(t.TempDir(), "refrepo")
	os.MkdirAll(repo, 0o755)
	git(t, repo, "init", "-q")
	id1, id2, id3 := ulid(1, "8E"), "0a1b2c3d4e5f", ulid(3, "WP")
	sidC := "cccccccc-3333-4333-8333-333333333333"
	fastImport(t, repo, []fastCommit{
		{ref: cpRef(id1), message: "Checkpoint: " + id1, files: checkpointFiles(id1, sidA, "2026-01-01T10:00:00Z", lines(sidA, "/home/u/proj", 2), nil)},
		{ref: cpRef(id2), message: "Checkpoint: " + id2, files: checkpointFiles(id2, sidA, "2026-01-01T11:00:00Z", lines(sidA, "/home/u/proj", 5), nil)},
		{ref: cpRef(id3), message: "Checkpoint: " + id3, files: checkpointFiles(id3, sidB, "2026-01-01T09:00:00Z", lines(sidB, "/home/u/proj", 3),
			map[string]string{"0/metadata.json": fmt.Sprintf(`{"checkpoint_id":%q,"session_id":%q,"created_at":"2026-01-01T09:00:00Z","agent":"Gemini CLI"}`, id3, sidB)})},
		{ref: "refs/heads/entire/checkpoints/v1", message: "checkpoints", files: map[string]string{
			"dd/eeeeeeeeee/0/metadata.json": metadata("ddeeeeeeeeee", sidC, "2026-01-01T08:00:00Z"),
			"dd/eeeeeeeeee/0/full.jsonl":    lines(sidC, "/home/u/proj", 1),
		}},
		{ref: "refs/heads/main", message: "first\n", files: map[string]string{"README": "x\n"}, author: "Grace Hopper", when: 1767300000},
		{ref: "refs/heads/main", parent: true, message: "add a\n\nEntire-Checkpoint: " + id1 + "\n", files: map[string]string{"a.go": "package a\n"}, when: 1767300100},
		{ref: "refs/heads/main", parent: true, message: "add b\n\nWhy.\n\nEntire-Checkpoint: " + id2 + "\nEntire-Checkpoint: " + id3 + "\n", files: map[string]string{"b.go": "package b\n"}, when: 1767300200},
		{ref: "refs/heads/main", parent: true, message: "add c\n\nEntire-Checkpoint: 0123456789ab\n", files: map[string]string{"c.go": "package c\n"}, when: 1767300300},
	})
	git(t, repo, "branch", "feature", "main~1")
	git(t, repo, "symbolic-ref", "HEAD", "refs/heads/main")
	return repo, []string{id1, id2, id3}
}

func TestMaterializeCheckpointRefs(t *testing.T) {
	repo, ids := refRepo(t)
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A (two refs) and B (one) from the refs, C from the branch; B's
	// metadata says Gemini CLI, its content is Claude Code's.
	if res.Sessions != 3 || res.Copies != 4 || res.CheckpointRefs != 3 || res.Ref != "refs/entire/checkpoints" || len(res.Commit) != 40 {
		t.Errorf("result %+v", res)
	}
	got := tree(t, dir)
	if got["-home-u-proj/"+sidA+".jsonl"] != lines(sidA, "/home/u/proj", 5) || got["-home-u-proj/"+sidB+".jsonl"] == "" {
		t.Errorf("files %q", keys(got))
	}
	for k := range got {
		if strings.Contains(k, "transcript") {
			t.Errorf("Entire's compact transcript read as a session: %s", k)
		}
	}
	h := res.History
	if h == nil || h.Name != "refrepo" {
		t.Fatalf("history %+v", h)
	}
	var subjects []string
	for _, c := range h.Commits {
		subjects = append(subjects, fmt.Sprintf("%s %s %q %q", c.Subject, c.Author, c.Branches, c.Checkpoints))
	}
	want := []string{
		`add c Ada Lovelace ["main"] ["0123456789ab"]`,
		fmt.Sprintf(`add b Ada Lovelace ["feature" "main"] [%q %q]`, ids[1], ids[2]),
		fmt.Sprintf(`add a Ada Lovelace ["feature" "main"] [%q]`, ids[0]),
		`first Grace Hopper ["feature" "main"] []`,
	}
	if strings.Join(subjects, "\n") != strings.Join(want, "\n") {
		t.Errorf("commits:\n%s\nwant:\n%s", strings.Join(subjects, "\n"), strings.Join(want, "\n"))
	}
	if c := h.Commits[0]; len(c.Hash) != 40 || !c.When.Equal(time.Unix(1767300300, 0)) {
		t.Errorf("commit %+v", c)
	}
	var cps []string
	for _, cp := range h.Checkpoints {
		cps = append(cps, fmt.Sprintf("%s %s %s %s %s %q %s %s", cp.ID, cp.Ref, cp.SessionID[:1], cp.TurnID, cp.Branch, cp.FilesTouched, cp.LastUUID, cp.Created.Format(time.RFC3339)))
	}
	wantCPs := []string{
		fmt.Sprintf(`%s %s a turn-%s feature ["a.go" "b.go"] u4 2026-01-01T11:00:00Z`, ids[1], cpRef(ids[1]), ids[1][8:]),
		fmt.Sprintf(`%s %s a turn-%s feature ["a.go" "b.go"] u1 2026-01-01T10:00:00Z`, ids[0], cpRef(ids[0]), ids[0][22:]),
		fmt.Sprintf(`%s %s b   [] u2 2026-01-01T09:00:00Z`, ids[2], cpRef(ids[2])),
		`ddeeeeeeeeee entire/checkpoints/v1:dd/eeeeeeeeee/0 c  main [] u0 2026-01-01T08:00:00Z`,
	}
	sort.Strings(wantCPs)
	if strings.Join(cps, "\n") != strings.Join(wantCPs, "\n") {
		t.Errorf("checkpoints:\n%s\nwant:\n%s", strings.Join(cps, "\n"), strings.Join(wantCPs, "\n"))
	}
	// The trailer naming no checkpoint is a problem, and the only one.
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].File, "git:commit "+h.Commits[0].Hash) || !strings.Contains(res.Problems[0].Reason, `"0123456789ab" names no checkpoint`) {
		t.Errorf("problems %+v", res.Problems)
	}

	// Again: the same History, the same files; the copies' last uuids
	// come from the last run.
	res2, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res2.History) != fmt.Sprint(res.History) || fmt.Sprint(tree(t, dir)) != fmt.Sprint(got) {
		t.Error("a second run differs")
	}
	if res.History.Digest() != res2.History.Digest() || res.History.Digest() == "" {
		t.Error("digest")
	}
}

// A malformed checkpoint is a problem named by its ref and path; the rest
// of the repository is read.
func TestMaterializeBadCheckpoints(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	good, wrongShard, noFull, badMeta, other, linked := ulid(1, "8E"), ulid(2, "HP"), ulid(3, "AA"), ulid(4, "BB"), ulid(5, "CC"), ulid(6, "DD")
	sidC := "cccccccc-3333-4333-8333-333333333333"
	sidD := "dddddddd-4444-4444-8444-444444444444"
	codex := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}` + "\n"
	gemini := `{"sessionId":"g1","projectHash":"p","startTime":"2026-01-01T00:00:00Z","messages":[{"id":"m1","type":"user","content":"hi"}]}` + "\n"
	geminiID := ulid(7, "EE")
	fastImport(t, repo, []fastCommit{
		{ref: cpRef(good), files: checkpointFiles(good, sidA, "2026-01-01T10:00:00Z", lines(sidA, "/w", 2), nil)},
		{ref: CheckpointRefs + "ZZ/" + wrongShard, files: checkpointFiles(wrongShard, sidB, "2026-01-01T10:00:00Z", lines(sidB, "/w", 2), nil)},
		{ref: cpRef(noFull), files: checkpointFiles(noFull, sidC, "2026-01-01T10:00:00Z", "", map[string]string{"0/full.jsonl": ""})},
		{ref: cpRef(badMeta), files: checkpointFiles(badMeta, sidD, "2026-01-01T10:00:00Z", lines(sidD, "/w", 1), map[string]string{"0/metadata.json": "{not json"})},
		{ref: cpRef(other), files: checkpointFiles(other, "codex-1", "2026-01-01T10:00:00Z", codex, nil)},
		{ref: cpRef(geminiID), files: checkpointFiles(geminiID, "g1", "2026-01-01T10:00:00Z", gemini, nil)},
		{ref: cpRef(linked), files: map[string]string{"0/metadata.json": metadata(linked, "x", "2026-01-01T10:00:00Z")}, links: map[string]string{"0/full.jsonl": "../../../../etc/passwd"}},
		{ref: CheckpointRefs + "a/b/c", files: map[string]string{"x": "y"}},
		{ref: CheckpointRefs + "XY/not-an-id", files: map[string]string{"0/full.jsonl": lines(sidA, "/w", 1)}},
	})
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	var probs []string
	for _, p := range res.Problems {
		probs = append(probs, p.File+": "+p.Reason)
	}
	want := []string{
		"git:" + CheckpointRefs + "ZZ/" + wrongShard + `: the shard "ZZ" is not the last two characters of the id`,
		"git:" + cpRef(noFull) + ":0/full.jsonl: missing: the checkpoint has no transcript",
		"git:" + cpRef(badMeta) + ":0/metadata.json: unreadable: ",
		"git:" + cpRef(other) + `:0/full.jsonl: not a Claude Code transcript (its metadata says "Claude Code"): left out`,
		"git:" + cpRef(geminiID) + `:0/full.jsonl: not a Claude Code transcript (its metadata says "Claude Code"): left out`,
		"git:" + cpRef(linked) + ":0/full.jsonl: missing: the checkpoint has no transcript",
		"git:" + CheckpointRefs + "a/b/c: not a checkpoint ref",
		"git:" + CheckpointRefs + `XY/not-an-id: the id "not-an-id" is neither a ULID nor 12 hex characters`,
	}
	all := strings.Join(probs, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no problem %q in:\n%s", w, all)
		}
	}
	// The good checkpoint, the one with the wrong shard and the one named
	// by its records are read.
	got := tree(t, dir)
	for _, sid := range []string{sidA, sidB, sidD} {
		if got["-w/"+sid+".jsonl"] == "" {
			t.Errorf("session %s not written: %q", sid[:8], keys(got))
		}
	}
	if res.Sessions != 3 {
		t.Errorf("%d sessions, want 3", res.Sessions)
	}
}

// A repository with no checkpoints and no transcripts says so, in one
// line.
func TestMaterializeNothing(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	writeFiles(t, repo, map[string]string{"main.go": "package main\n"})
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "c")
	_, err := Materialize(context.Background(), repo, filepath.Join(t.TempDir(), "out"))
	if err == nil || err.Error() != "--git: no checkpoints (refs/entire/checkpoints/*, entire/checkpoints/v1) and no transcripts in HEAD" {
		t.Errorf("error %v", err)
	}
}

// TestMaterializeEntireSample reads the real sample repository
// (CCSITE_ENTIRE=/work/shared/entire): 3 checkpoint refs holding 2
// sessions, 3 commits naming them in trailers.
func TestMaterializeEntireSample(t *testing.T) {
	dir := os.Getenv("CCSITE_ENTIRE")
	if dir == "" {
		t.Skip("CCSITE_ENTIRE is not set")
	}
	needGit(t)
	repo := filepath.Join(t.TempDir(), "branch-pruner.git")
	git(t, filepath.Dir(repo), "clone", "-q", "--mirror", filepath.Join(dir, "branch-pruner.bundle"), repo)
	out := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), repo, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 2 || res.CheckpointRefs != 3 || len(res.Problems) != 0 {
		t.Errorf("result %+v", res)
	}
	h := res.History
	found := map[string]Checkpoint{}
	for _, cp := range h.Checkpoints {
		found[cp.ID] = cp
		if cp.SessionID == "" || cp.TurnID == "" || cp.LastUUID == "" || cp.Branch == "" || cp.Created.IsZero() {
			t.Errorf("checkpoint %+v", cp)
		}
	}
	trailers := 0
	for _, c := range h.Commits {
		if strings.Contains(c.Author, "@") {
			t.Errorf("an e-mail address as the author: %q", c.Author)
		}
		for _, id := range c.Checkpoints {
			trailers++
			cp, ok := found[id]
			if !ok {
				t.Errorf("commit %s names %s, not found", c.Hash[:8], id)
				continue
			}
			// The session the checkpoint names is written, and holds the
			// record the checkpoint ends with.
			files, _ := filepath.Glob(filepath.Join(out, "*", cp.SessionID+".jsonl"))
			if len(files) != 1 {
				t.Errorf("session %s: files %q", cp.SessionID, files)
				continue
			}
			data, _ := os.ReadFile(files[0])
			if !strings.Contains(string(data), `"uuid":"`+cp.LastUUID+`"`) {
				t.Errorf("session %s has no record %s", cp.SessionID, cp.LastUUID)
			}
			// The last uuid is the one its copy ends with.
			sn := sniffer{uuids: true}
			sn.Write([]byte(git(t, repo, "show", cp.Ref+":0/full.jsonl") + "\n"))
			sn.finish()
			if last := sn.lastUUID(); last != cp.LastUUID {
				t.Errorf("checkpoint %s: last uuid %s, its copy ends with %s", cp.ID, cp.LastUUID, last)
			}
		}
	}
	if len(found) != 3 || trailers != 3 || len(h.Commits) != 4 {
		t.Errorf("%d checkpoints, %d trailers, %d commits", len(found), trailers, len(h.Commits))
	}
}

// A URL's clone is fetched again with Entire's refs: a checkpoint ref
// made after the clone is read.
func TestMaterializeURLCheckpointRefs(t *testing.T) {
	repo, _ := refRepo(t)
	t.Setenv("CCSITE_CACHE_DIR", t.TempDir())
	url := "file://" + filepath.ToSlash(repo)
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), url, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 3 || res.CheckpointRefs != 3 || len(res.History.Commits) != 4 || res.History.Name != "refrepo" {
		t.Errorf("result %+v", res)
	}
	id := ulid(9, "HP")
	sidE := "eeeeeeee-5555-4555-8555-555555555555"
	fastImport(t, repo, []fastCommit{{ref: cpRef(id), files: checkpointFiles(id, sidE, "2026-01-02T10:00:00Z", lines(sidE, "/w", 2), nil)}})
	res, err = Materialize(context.Background(), url, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 4 || res.CheckpointRefs != 4 {
		t.Errorf("after a new checkpoint: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "-w", sidE+".jsonl")); err != nil {
		t.Error(err)
	}
}

// In a clone, most branches are origin's only: their commits are listed
// too, under their names; a local branch behind origin's gives both.
func TestHistoryClone(t *testing.T) {
	repo, ids := refRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", "--no-checkout", repo, clone)
	git(t, clone, "fetch", "-q", "origin", "refs/entire/*:refs/entire/*")
	git(t, clone, "update-ref", "refs/heads/main", "refs/remotes/origin/main~1")
	res, err := Materialize(context.Background(), clone, filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range res.History.Commits {
		got[c.Subject] = fmt.Sprint(c.Branches, c.Checkpoints)
	}
	want := map[string]string{
		"add c": "[origin/main] [0123456789ab]",
		"add b": fmt.Sprintf("[feature main origin/main] [%s %s]", ids[1], ids[2]),
		"add a": fmt.Sprintf("[feature main origin/main] [%s]", ids[0]),
		"first": "[feature main origin/main] []",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("commits %v, want %v", got, want)
	}
	if res.History.WebURL != "" {
		t.Errorf("a local origin has no web address: %q", res.History.WebURL)
	}
	// A clone without Entire's refs: what to fetch is said.
	plain := filepath.Join(t.TempDir(), "plain")
	git(t, filepath.Dir(plain), "clone", "-q", "--single-branch", "--branch", "main", repo, plain)
	_, err = Materialize(context.Background(), plain, filepath.Join(t.TempDir(), "out"))
	if err == nil || !strings.HasSuffix(err.Error(), "and no transcripts in HEAD (4 commit trailer(s) name checkpoints: fetch them with git fetch origin '+refs/entire/*:refs/entire/*')") {
		t.Errorf("error %v", err)
	}
}

// The web address is the origin remote's, credentials dropped.
func TestHistoryWebURL(t *testing.T) {
	repo, _ := refRepo(t)
	git(t, repo, "remote", "add", "origin", "https://user:secret@github.com/o/refrepo.git")
	res, err := Materialize(context.Background(), repo, filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	if res.History.WebURL != "https://github.com/o/refrepo" || res.History.CommitURL("abc") != "https://github.com/o/refrepo/commit/abc" {
		t.Errorf("web address %q", res.History.WebURL)
	}
}

// An earlier checkpoint's copy whose content hash is that of the newest
// copy's first bytes is not read: its last uuid is found while the newest
// is. (Here its bytes differ from what its hash says, to tell.)
func TestMaterializePrefixCopies(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	newest, earlier, other := lines(sidA, "/w", 5), lines(sidA, "/w", 2), lines(sidA, "/w", 3)
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "sha256:" + hex.EncodeToString(h[:]) + "\n"
	}
	id1, id2, id3 := ulid(1, "AA"), ulid(2, "BB"), ulid(3, "CC")
	fastImport(t, repo, []fastCommit{
		{ref: cpRef(id1), files: checkpointFiles(id1, sidA, "2026-01-01T10:00:00Z", strings.ReplaceAll(earlier, `"uuid":"u`, `"uuid":"x`),
			map[string]string{"0/content_hash.txt": sum(earlier)})},
		{ref: cpRef(id2), files: checkpointFiles(id2, sidA, "2026-01-01T11:00:00Z", strings.ReplaceAll(other, `"uuid":"u`, `"uuid":"y`),
			map[string]string{"0/content_hash.txt": sum("not a prefix")})},
		{ref: cpRef(id3), files: checkpointFiles(id3, sidA, "2026-01-01T12:00:00Z", newest, map[string]string{"0/content_hash.txt": sum(newest)})},
	})
	res, err := Materialize(context.Background(), repo, filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cp := range res.History.Checkpoints {
		got = append(got, cp.ID[24:]+" "+cp.LastUUID)
	}
	if want := "AA u1 BB y2 CC u4"; strings.Join(got, " ") != want {
		t.Errorf("last uuids %q, want %q", strings.Join(got, " "), want)
	}
}

// A checkpoint ref's tree is read as ls-tree's are: entries named "..",
// ".git", links and submodules are left out, and nothing is written
// outside the folder.
func TestMaterializeHostileRefTree(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@x"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	b := run(lines(sidA, "/w", 1), "hash-object", "-w", "--stdin")
	sub := run("", "commit-tree", run("", "mktree"), "-m", "e")
	inner := run(fmt.Sprintf("100644 blob %s\t..\n100644 blob %s\tfull.jsonl\n160000 commit %s\tsub\n120000 blob %s\tlink.jsonl\n", b, b, sub, b), "mktree", "--missing")
	root := run(fmt.Sprintf("040000 tree %s\t0\n040000 tree %s\t..\n040000 tree %s\t.git\n", inner, inner, inner), "mktree", "--missing")
	id := "0123456789aa"
	run("", "update-ref", cpRef(id), run("", "commit-tree", root, "-m", "x"))
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	res, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 1 || res.Copies != 1 {
		t.Errorf("result %+v", res)
	}
	want := []string{"-w/" + sidA + ".jsonl", ".ccsite-git", cacheName}
	if k := keys(tree(t, dir)); strings.Join(k, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", k, want)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 1 {
		t.Errorf("written beside the folder: %v", entries)
	}
}
