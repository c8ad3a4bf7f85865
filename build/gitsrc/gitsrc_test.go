package gitsrc

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

const (
	sidA = "aaaaaaaa-1111-4111-8111-111111111111"
	sidB = "bbbbbbbb-2222-4222-8222-222222222222"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// git runs git in dir with fixed identities and dates.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@x", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func lines(sid, cwd string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","parentUuid":null,"sessionId":%q,"cwd":%q,"timestamp":"2026-01-01T00:00:%02dZ","message":{"role":"user","content":"hello %d"}}`+"\n", i, sid, cwd, i, i)
	}
	return b.String()
}

func metadata(cp, sid, created string) string {
	return fmt.Sprintf(`{"checkpoint_id":%q,"session_id":%q,"created_at":%q,"branch":"main","agent":"Claude Code"}`, cp, sid, created)
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkpointRepo makes a repository whose main branch holds a docs folder
// of transcripts and whose entire/checkpoints/v1 holds two sessions, A in
// two checkpoints (the second longer).
func checkpointRepo(t *testing.T) string {
	t.Helper()
	needGit(t)
	repo := filepath.Join(t.TempDir(), "myrepo")
	os.MkdirAll(repo, 0o755)
	git(t, repo, "init", "-q")
	writeFiles(t, repo, map[string]string{
		"README":                                "code\n",
		"src/main.go":                           "package main\n",
		"docs/t/-home-u-app/" + sidB + ".jsonl": lines(sidB, "/home/u/app", 2),
	})
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "code")
	git(t, repo, "checkout", "-q", "--orphan", "entire/checkpoints/v1")
	git(t, repo, "rm", "-q", "-rf", ".")
	writeFiles(t, repo, map[string]string{
		"11/aaaaaaaaaa/metadata.json":   `{"checkpoint_id":"11aaaaaaaaaa"}`,
		"11/aaaaaaaaaa/0/metadata.json": metadata("11aaaaaaaaaa", sidA, "2026-01-01T10:00:00Z"),
		"11/aaaaaaaaaa/0/full.jsonl":    lines(sidA, "/home/u/proj", 2),
		"11/aaaaaaaaaa/0/prompt.txt":    "hello\n",
		"22/bbbbbbbbbb/0/metadata.json": metadata("22bbbbbbbbbb", sidA, "2026-01-01T11:00:00Z"),
		"22/bbbbbbbbbb/0/full.jsonl":    lines(sidA, "/home/u/proj", 5),
		"33/cccccccccc/0/metadata.json": metadata("33cccccccccc", sidB, "2026-01-01T09:00:00Z"),
		// No cwd in B's records: its project is the repository's name.
		"33/cccccccccc/0/full.jsonl": strings.ReplaceAll(lines(sidB, "", 3), `"cwd":"",`, ""),
	})
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "checkpoints")
	git(t, repo, "checkout", "-q", "main")
	return repo
}

// tree lists a folder's files (relative, slash) with their contents.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func TestMaterializeCheckpoints(t *testing.T) {
	repo := checkpointRepo(t)
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 2 || res.Copies != 3 || res.Ref != DefaultRef || len(res.Commit) != 40 || res.Root != dir {
		t.Errorf("result %+v", res)
	}
	got := tree(t, dir)
	want := []string{".ccsite-git", cacheName, "-home-u-proj/" + sidA + ".jsonl", "myrepo/" + sidB + ".jsonl"}
	sort.Strings(want)
	if k := keys(got); strings.Join(k, " ") != strings.Join(want, " ") {
		t.Fatalf("files %q, want %q", k, want)
	}
	if a := got["-home-u-proj/"+sidA+".jsonl"]; a != lines(sidA, "/home/u/proj", 5) {
		t.Errorf("session A is not the longer copy:\n%s", a)
	}
	// Every file's mtime is the commit's, to the second (its nanoseconds
	// come from the blob).
	commitTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []string{"-home-u-proj/" + sidA + ".jsonl", "-home-u-proj", ".ccsite-git"} {
		st, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.ModTime(); !got.Truncate(time.Second).Equal(commitTime) {
			t.Errorf("%s: mtime %v, want %v", p, got.UTC(), commitTime)
		}
	}

	// Deterministic: a second run gives the same bytes, replacing the
	// folder.
	res2, err := Materialize(context.Background(), repo+"@"+DefaultRef, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Sessions != res.Sessions || res2.Ref != res.Ref || res2.Commit != res.Commit || res2.Copies != res.Copies {
		t.Errorf("second run %+v, first %+v", res2, res)
	}
	got2 := tree(t, dir)
	if fmt.Sprint(got2) != fmt.Sprint(got) {
		t.Error("two runs differ")
	}
}

func TestMaterializeNewerCheckpointWins(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	// The newer checkpoint's copy wins even when shorter; equal times take
	// the longer.
	writeFiles(t, repo, map[string]string{
		"aa/1/0/metadata.json": metadata("aa1", sidA, "2026-01-01T10:00:00Z"),
		"aa/1/0/full.jsonl":    lines(sidA, "/w", 4),
		"bb/2/0/metadata.json": metadata("bb2", sidA, "2026-01-01T12:00:00Z"),
		"bb/2/0/full.jsonl":    lines(sidA, "/w", 2),
		"cc/3/0/metadata.json": metadata("cc3", sidB, "2026-01-01T10:00:00Z"),
		"cc/3/0/full.jsonl":    lines(sidB, "/w", 3),
		"dd/4/0/metadata.json": metadata("dd4", sidB, "2026-01-01T10:00:00Z"),
		"dd/4/0/full.jsonl":    lines(sidB, "/w", 1),
		// Older Entire versions put a date before the session id: the
		// same session.
		"ee/5/0/metadata.json": metadata("ee5", "2026-01-01-"+sidB, "2026-01-01T09:00:00Z"),
		"ee/5/0/full.jsonl":    lines(sidB, "/w", 9),
	})
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "c")
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != "HEAD" || res.Sessions != 2 || res.Copies != 5 {
		t.Errorf("result %+v", res)
	}
	got := tree(t, dir)
	if got["-w/"+sidA+".jsonl"] != lines(sidA, "/w", 2) || got["-w/"+sidB+".jsonl"] != lines(sidB, "/w", 3) {
		t.Errorf("wrong copies: %q", keys(got))
	}
}

// A file whose bytes change gets another mtime, even at the same size
// from a commit of the same second: the build's fingerprint sees it.
func TestMaterializeMtimeFollowsContent(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	name := "p/" + sidA + ".jsonl"
	writeFiles(t, repo, map[string]string{name: lines(sidA, "/w", 2)})
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "c")
	dir := filepath.Join(t.TempDir(), "out")
	out := filepath.Join(dir, "-w", sidA+".jsonl")
	mtime := func() time.Time {
		t.Helper()
		if _, err := Materialize(context.Background(), repo, dir); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return st.ModTime()
	}
	before := mtime()
	writeFiles(t, repo, map[string]string{name: strings.ReplaceAll(lines(sidA, "/w", 2), "hello", "jello")})
	git(t, repo, "commit", "-q", "-a", "--amend", "-m", "c")
	if after := mtime(); after.Equal(before) {
		t.Errorf("same mtime %v for other bytes", after)
	}
}

// A clone has the checkpoint branch as origin's: it is the default too.
func TestMaterializeOriginBranch(t *testing.T) {
	repo := checkpointRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", repo, clone)
	res, err := Materialize(context.Background(), clone, filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != "origin/"+DefaultRef || res.Sessions != 2 {
		t.Errorf("result %+v", res)
	}
}

func TestMaterializeRefWithPath(t *testing.T) {
	repo := checkpointRepo(t)
	// A bare clone reads the same.
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(t, filepath.Dir(bare), "clone", "-q", "--bare", repo, bare)
	for _, r := range []string{repo, bare} {
		dir := filepath.Join(t.TempDir(), "out")
		res, err := Materialize(context.Background(), r+"@main:docs/t", dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sessions != 1 || res.Copies != 1 || res.Ref != "main:docs/t" {
			t.Errorf("%s: result %+v", r, res)
		}
		got := tree(t, dir)
		if got["-home-u-app/"+sidB+".jsonl"] != lines(sidB, "/home/u/app", 2) {
			t.Errorf("%s: files %q", r, keys(got))
		}
	}
}

func TestMaterializeProjectsTree(t *testing.T) {
	needGit(t)
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	agent := strings.ReplaceAll(lines(sidA, "/home/u/x", 1), `"type":"user"`, `"type":"user","isSidechain":true,"agentId":"a1"`)
	writeFiles(t, repo, map[string]string{
		"transcripts/-home-u-x/" + sidA + ".jsonl":                        lines(sidA, "/home/u/x", 2),
		"transcripts/-home-u-x/" + sidA + "/subagents/agent-a1.jsonl":     agent,
		"transcripts/-home-u-x/" + sidA + "/subagents/agent-a1.meta.json": `{"agentType":"Explore"}`,
		"transcripts/-home-u-x/" + sidA + "/tool-results/toolu_1.txt":     "big\n",
		"transcripts/-home-u-x/agent-legacy.jsonl":                        strings.ReplaceAll(agent, "a1", "legacy"),
		"transcripts/notes.jsonl":                                         `{"a":1}` + "\n",
		"other/data.json":                                                 "{}",
	})
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "c")
	dir := filepath.Join(t.TempDir(), "out")
	res, err := Materialize(context.Background(), repo, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions != 1 || res.Copies != 2 {
		t.Errorf("result %+v", res)
	}
	want := []string{".ccsite-git", cacheName,
		"-home-u-x/" + sidA + ".jsonl",
		"-home-u-x/" + sidA + "/subagents/agent-a1.jsonl",
		"-home-u-x/" + sidA + "/subagents/agent-a1.meta.json",
		"-home-u-x/" + sidA + "/tool-results/toolu_1.txt",
		"-home-u-x/agent-legacy.jsonl",
	}
	sort.Strings(want)
	if k := keys(tree(t, dir)); strings.Join(k, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", k, want)
	}
}

func TestMaterializeErrors(t *testing.T) {
	repo := checkpointRepo(t)
	t.Setenv("CCSITE_CACHE_DIR", t.TempDir())
	ctx := context.Background()
	notRepo := t.TempDir()
	cases := []struct{ spec, want string }{
		{repo + "@nosuch", "--git: ref nosuch not found"},
		{repo + "@main:nosuch", "--git: no folder nosuch in main"},
		{repo + "@:nosuch", "--git: no folder nosuch in " + DefaultRef},
		{repo + "@main:src", "--git: no transcripts in main:src"},
		{notRepo, "--git: " + notRepo + " is not a git repository"},
		{filepath.Join(notRepo, "missing") + "@main", "--git: " + filepath.Join(notRepo, "missing") + " is not a git repository"},
		{"file://" + filepath.ToSlash(notRepo) + "/missing.git", "--git: cloning file://"},
	}
	for _, c := range cases {
		_, err := Materialize(ctx, c.spec, filepath.Join(t.TempDir(), "out"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.spec, err, c.want)
		}
	}
	// A folder that holds other things is never replaced.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644)
	if _, err := Materialize(ctx, repo, dir); err == nil || !strings.Contains(err.Error(), "not replacing") {
		t.Errorf("non-empty folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Error("the folder's file is gone")
	}
	// No git on PATH.
	t.Setenv("PATH", t.TempDir())
	if _, err := Materialize(ctx, repo, filepath.Join(t.TempDir(), "out")); err == nil || !strings.Contains(err.Error(), "git program") {
		t.Errorf("no git: %v", err)
	}
}

// A URL is cloned (bare, without blobs) into the cache, then fetched.
func TestMaterializeURL(t *testing.T) {
	repo := checkpointRepo(t)
	cache := t.TempDir()
	t.Setenv("CCSITE_CACHE_DIR", cache)
	url := "file://" + filepath.ToSlash(repo)
	for i := 0; i < 2; i++ {
		dir := filepath.Join(t.TempDir(), "out")
		res, err := Materialize(context.Background(), url, dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sessions != 2 || res.Ref != DefaultRef {
			t.Errorf("result %+v", res)
		}
		// No cwd: the project is named after the URL.
		if _, err := os.Stat(filepath.Join(dir, "myrepo", sidB+".jsonl")); err != nil {
			t.Error(err)
		}
	}
	res, err := Materialize(context.Background(), url+"@main:docs/t", filepath.Join(t.TempDir(), "out"))
	if err != nil || res.Sessions != 1 || res.Ref != "main:docs/t" {
		t.Errorf("with a ref: %+v, %v", res, err)
	}
	clones, _ := filepath.Glob(filepath.Join(cache, "git", "myrepo-*.git"))
	if len(clones) != 1 {
		t.Errorf("clones in the cache: %q", clones)
	}
}

func TestSplitURL(t *testing.T) {
	cases := []struct{ spec, url, ref string }{
		{"https://user@host/o/r.git", "https://user@host/o/r.git", ""},
		{"https://user@host/o/r.git@main:docs", "https://user@host/o/r.git", "main:docs"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git", ""},
		{"git@github.com:o/r.git@entire/checkpoints/v1", "git@github.com:o/r.git", "entire/checkpoints/v1"},
		{"https://host", "https://host", ""},
	}
	for _, c := range cases {
		if url, ref := splitURL(c.spec); url != c.url || ref != c.ref {
			t.Errorf("splitURL(%q) = %q, %q", c.spec, url, ref)
		}
	}
	if n := urlName("git@github.com:o/r.git"); n != "r" {
		t.Errorf("urlName %q", n)
	}
}

func TestSplitSpec(t *testing.T) {
	base := t.TempDir()
	at := filepath.Join(base, "a@b")
	os.MkdirAll(at, 0o755)
	cases := []struct{ spec, repo, ref string }{
		{at, at, ""},
		{at + "@main", at, "main"},
		{at + "@HEAD@{1}", at, "HEAD@{1}"},
		{base + "@x/y:docs", base, "x/y:docs"},
	}
	for _, c := range cases {
		r, ref, err := splitSpec(c.spec)
		if err != nil || r != c.repo || ref != c.ref {
			t.Errorf("splitSpec(%q) = %q, %q, %v", c.spec, r, ref, err)
		}
	}
}

func TestSniffer(t *testing.T) {
	var s sniffer
	in := `{"type":"summary","summary":"x \"cwd\":\"/no\""}` + "\n" +
		`// comment` + "\n" +
		`{"cwd": "/a/b", "sessionId": "s1", "type": "user"}` + "\n" +
		`{"sessionId":"s2","cwd":"/c"}`
	for _, chunk := range []string{in[:7], in[7:50], in[50:]} {
		s.Write([]byte(chunk))
	}
	s.finish()
	if s.cwd != "/a/b" || s.sid != "s2" || s.records != 3 {
		t.Errorf("sniffer %+v", s)
	}
}

// TestMaterializePrivate: the extracted transcripts are the user's alone,
// like the rest of the state folder they are extracted to: files 0600,
// folders 0700 (those made on the way to dir too), from checkpoints
// (staged, then moved) and from a folder of transcripts (written in
// place).
func TestMaterializePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	repo := checkpointRepo(t)
	for _, spec := range []string{repo, repo + "@main:docs/t"} {
		base := t.TempDir()
		dir := filepath.Join(base, "state", "git", "x")
		res, err := Materialize(context.Background(), spec, dir)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sessions == 0 {
			t.Fatalf("%s: nothing extracted", spec)
		}
		files := 0
		filepath.WalkDir(filepath.Join(base, "state"), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			fi, err := d.Info()
			if err != nil {
				t.Fatal(err)
			}
			want := fs.FileMode(0o600)
			if d.IsDir() {
				want = 0o700
			} else {
				files++
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s: %s is %v, want %v", spec, p, fi.Mode().Perm(), want)
			}
			return nil
		})
		if files < 2 {
			t.Errorf("%s: %d files extracted", spec, files)
		}
	}
}

// TestCacheDirNoHome: without a home folder in the environment, clones
// are kept in the one the user database gives, never in the temporary
// folder every user may write to.
func TestCacheDirNoHome(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "plan9" {
		t.Skip("the user's cache folder is not $XDG_CACHE_HOME or $HOME/.cache")
	}
	t.Setenv("CCSITE_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if d := CacheDir(); d != "" && (!filepath.IsAbs(d) || strings.HasPrefix(d, os.TempDir())) {
		t.Errorf("no HOME: clones kept in %s", d)
	}
}
