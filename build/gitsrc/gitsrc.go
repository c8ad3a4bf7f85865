// Package gitsrc reads Claude Code transcripts straight from a git
// repository's object store, without a checkout, and writes the latest copy
// of each session as a projects tree (<project-slug>/<session-id>.jsonl,
// sub-agent files in <session-id>/subagents/) that the build reads like any
// other input.
//
// With no ref named, every checkpoint Entire keeps is read, in both of
// its layouts, merged:
//
//   - one ref per checkpoint (current Entire):
//     refs/entire/checkpoints/<last two characters of the id>/<id>, the id
//     a ULID or 12 hex characters, its tree <n>/full.jsonl beside
//     <n>/metadata.json (session_id, created_at, branch, turn_id,
//     files_touched…);
//   - the older checkpoint branch (entire/checkpoints/v1, local or
//     origin's): <id[:2]>/<id[2:]>/<n>/full.jsonl with its metadata.json.
//
// Later checkpoints of a session hold longer copies of its transcript;
// only the newest is written, whichever ref holds it. Without checkpoints,
// or in a ref named, any folder of JSONL transcripts is read too, such as
// a projects tree committed as it is (<slug>/<session>.jsonl with its
// <session>/ folder). Beside the transcripts comes the repository's
// History: its branches' commits with their Entire-Checkpoint trailers,
// and every checkpoint's session, turn, branch and files.
//
// The repository is read with the git program, not a Go implementation of
// git (go-git): git reads every pack and object format natively and fast,
// adds nothing to ccsite's single static binary, and is present wherever a
// repository is. A few processes do the work, whatever the number of
// checkpoints: git for-each-ref (every ref), git ls-tree -r -z --long (a
// branch's tree with blob sizes), one git cat-file --batch that streams
// every checkpoint ref's trees and every blob read, one --batch-check (the
// sizes of the refs' blobs) and one git log (the commits).
//
// A URL is cloned bare into CacheDir and fetched again on later calls:
// Entire's refs with their blobs, the branches without (History reads
// their commits only).
package gitsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ccsite/build/session"
)

// Result describes what Materialize extracted.
type Result struct {
	Root        string // the projects tree written (pass it to the build as its input path)
	Sessions    int    // sessions written
	Copies      int    // transcript copies seen (older copies of a session skipped)
	Ref, Commit string // the ref read and the commit it resolved to ("" for many refs)
	// CheckpointRefs is how many of Entire's checkpoint refs were read.
	CheckpointRefs int
	// Problems are the malformed checkpoints and trailers, each named by
	// its ref and path (git:REF:PATH) or its commit: the rest was read.
	Problems []session.Problem
	// History is the repository's commits and checkpoints (see History).
	History *History
}

// DefaultRef is the branch read when the spec names no ref and the
// repository has it (locally or as origin/entire/checkpoints/v1).
const DefaultRef = "entire/checkpoints/v1"

// marker is the file that says a folder was written by Materialize, so that
// the next call may remove it.
const marker = ".ccsite-git"

// The transcripts extracted are the user's alone, as the rest of the state
// folder they go to: files 0600, folders 0700 (every folder made on the
// way to dir too).
const (
	fileMode = 0o600
	dirMode  = 0o700
)

// Materialize reads spec ("REPO", "REPO@REF", REF may contain a path:
// "REPO@main:docs/t"; REPO a folder, or a URL cloned bare and without
// blobs into CacheDir, fetched again on each call) and writes the latest copy of each session as a
// projects tree under dir (made anew each time, deterministic), without a
// checkout. dir must be missing, empty or written by an earlier call.
func Materialize(ctx context.Context, spec, dir string) (Result, error) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return Result{}, errors.New("--git: the git program is needed to read a repository and was not found on PATH")
	}
	repoPath, ref, err := splitSpec(spec)
	name := repoName(repoPath)
	url := ""
	if errors.Is(err, errURL) {
		url, ref = splitURL(spec)
		name = urlName(url)
		repoPath, err = mirror(ctx, gitBin, url)
	}
	if err != nil {
		return Result{}, err
	}
	sub := ""
	if i := strings.IndexByte(ref, ':'); i >= 0 {
		ref, sub = ref[:i], strings.Trim(ref[i+1:], "/")
	}
	r := &repo{git: gitBin, dir: repoPath, env: gitEnv()}
	if _, err := r.output(ctx, "rev-parse", "--git-dir"); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("--git: %s is not a git repository", repoPath)
	}
	refs, err := r.listRefs(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{}, fmt.Errorf("--git: listing the refs of %s: %v", repoPath, err)
	}
	res := Result{Root: dir}
	var srcs []*source
	if ref == "" && sub == "" {
		srcs, res.Problems = checkpointSources(refs)
		res.CheckpointRefs = len(srcs)
		if b := branchSource(refs); b != nil {
			srcs = append(srcs, b)
		}
	}
	if len(srcs) == 0 {
		src, err := r.treeSource(ctx, ref, sub)
		if err != nil {
			return res, err
		}
		srcs = []*source{src}
	}
	res.Ref, res.Commit = describe(srcs)
	prev := readRunCache(dir)
	prevDir, err := freshDir(dir)
	if err != nil {
		return res, err
	}
	if prevDir != "" {
		defer os.RemoveAll(prevDir)
	}
	ex := &extractor{repo: r, dir: dir, name: name, srcs: srcs, prev: prev, prevDir: prevDir, next: newRunCache()}
	if err := ex.run(ctx); err != nil {
		return res, err
	}
	res.Sessions, res.Copies = ex.sessions, ex.copies
	res.Problems = append(res.Problems, ex.problems...)
	if res.Sessions == 0 {
		switch {
		case len(res.Problems) > 0:
			return res, fmt.Errorf("--git: no readable transcripts in %s: %s: %s (%d problem(s))", res.Ref, res.Problems[0].File, res.Problems[0].Reason, len(res.Problems))
		case srcs[0].kind == kindTree && ref == "" && sub == "":
			hint := ""
			if h, err := r.history(ctx, refs, name, "", nil); err == nil && h.trailers() > 0 {
				// A clone leaves Entire's refs behind unless asked.
				hint = fmt.Sprintf(" (%d commit trailer(s) name checkpoints: fetch them with git fetch origin '+refs/entire/*:refs/entire/*')", h.trailers())
			}
			return res, fmt.Errorf("--git: no checkpoints (%s*, %s) and no transcripts in %s%s", CheckpointRefs, DefaultRef, res.Ref, hint)
		}
		return res, fmt.Errorf("--git: no transcripts in %s", res.Ref)
	}
	web := WebURL(url)
	if url == "" {
		web = WebURL(r.originURL(ctx))
	}
	res.History, err = r.history(ctx, refs, name, web, ex.checkpoints)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, fmt.Errorf("--git: reading the commits: %v", err)
	}
	res.Problems = append(res.Problems, trailerProblems(res.History, ex.ids)...)
	return res, nil
}

// treeSource is the tree a spec names (ref, and a folder in it): the
// checkpoint branch or HEAD when ref is "".
func (r *repo) treeSource(ctx context.Context, ref, sub string) (*source, error) {
	name, commit, err := r.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	src := &source{kind: kindTree, ref: name, commit: commit}
	if sub != "" {
		treeish := commit + ":" + sub
		out, err := r.output(ctx, "cat-file", "-t", treeish)
		if err != nil || strings.TrimSpace(string(out)) != "tree" {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("--git: no folder %s in %s", sub, name)
		}
		src.ref += ":" + sub
		src.sub = sub
	}
	return src, nil
}

// describe names what was read: the ref and its commit, or the checkpoint
// refs (refs/entire/checkpoints) with the branch's commit when the branch
// was read too.
func describe(srcs []*source) (ref, commit string) {
	if len(srcs) == 1 && srcs[0].kind != kindRef {
		return srcs[0].ref, srcs[0].commit
	}
	for _, s := range srcs {
		if s.kind == kindV1 {
			commit = s.commit
		}
	}
	return strings.TrimSuffix(CheckpointRefs, "/"), commit
}

// originURL is the address of the origin remote, "" when there is none.
func (r *repo) originURL(ctx context.Context) string {
	out, err := r.output(ctx, "config", "--get", "remote.origin.url")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// errURL says that a spec is a URL.
var errURL = errors.New("a URL")

// splitSpec splits "REPO[@REF]". REPO may itself hold "@" (and REF may, as
// in HEAD@{1}): the longest prefix that is a folder is the repository.
func splitSpec(spec string) (repoPath, ref string, err error) {
	if spec == "" {
		return "", "", errors.New("--git: no repository given")
	}
	if isDir(spec) {
		return spec, "", nil
	}
	for i := strings.LastIndexByte(spec, '@'); i > 0; i = strings.LastIndexByte(spec[:i], '@') {
		if isDir(spec[:i]) {
			return spec[:i], spec[i+1:], nil
		}
	}
	if looksLikeURL(spec) {
		return "", "", errURL
	}
	repoPath = spec
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		repoPath = spec[:i]
	}
	return "", "", fmt.Errorf("--git: %s is not a git repository", repoPath)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// looksLikeURL is true for URLs (https://…, ssh://…, file://…) and scp-like
// addresses (git@host:path).
func looksLikeURL(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	at, colon := strings.IndexByte(s, '@'), strings.IndexByte(s, ':')
	slash := strings.IndexByte(s, '/')
	return at > 0 && colon > at && (slash < 0 || colon < slash)
}

// repoName is the project name of sessions with no cwd: the repository's
// folder name, without .git.
func repoName(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	name := filepath.Base(abs)
	if name == ".git" {
		name = filepath.Base(filepath.Dir(abs))
	}
	name = strings.TrimSuffix(name, ".git")
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "repository"
	}
	return name
}

// repo runs git in one repository.
type repo struct {
	git, dir string
	env      []string
}

func (r *repo) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.git, append([]string{"-C", r.dir}, args...)...)
	cmd.Env = r.env
	return cmd
}

// output runs git and returns its standard output; an error carries git's
// first line of complaint.
func (r *repo) output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := r.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			if i := strings.IndexByte(msg, '\n'); i > 0 {
				msg = msg[:i]
			}
			return out, fmt.Errorf("%w: %s", err, msg)
		}
		return out, err
	}
	return out, nil
}

// resolve turns ref into a commit. An empty ref is DefaultRef when the
// repository has that branch (or origin's), else HEAD.
func (r *repo) resolve(ctx context.Context, ref string) (name, commit string, err error) {
	candidates := []string{ref}
	if ref == "" {
		candidates = []string{"refs/heads/" + DefaultRef, "refs/remotes/origin/" + DefaultRef, "HEAD"}
	} else if strings.HasPrefix(ref, "-") {
		return ref, "", fmt.Errorf("--git: ref %s not found", ref)
	}
	for _, c := range candidates {
		out, err := r.output(ctx, "rev-parse", "--verify", "--quiet", c+"^{commit}")
		if ctx.Err() != nil {
			return c, "", ctx.Err()
		}
		if err == nil {
			name = strings.TrimPrefix(strings.TrimPrefix(c, "refs/heads/"), "refs/remotes/")
			return name, strings.TrimSpace(string(out)), nil
		}
	}
	if ref == "" {
		ref = "HEAD"
	}
	return ref, "", fmt.Errorf("--git: ref %s not found", ref)
}

// gitEnv is the environment without the variables that would point git at
// another repository than the one named, and with no prompts.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_COMMON_DIR",
			"GIT_PREFIX", "GIT_TERMINAL_PROMPT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}

// freshDir empties dir (made when missing). A folder that holds anything
// but an earlier Materialize's output is refused, never removed; an
// earlier output is moved aside, to dir.prev (returned), for the files
// that did not change to be moved back instead of read again.
func freshDir(dir string) (prev string, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("--git: %v", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
			return "", fmt.Errorf("--git: %s is not empty and was not written by --git: not replacing it", dir)
		}
		prev = dir + ".prev"
		if err := os.RemoveAll(prev); err != nil {
			return "", fmt.Errorf("--git: %v", err)
		}
		if err := os.Rename(dir, prev); err != nil {
			return "", fmt.Errorf("--git: %v", err)
		}
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return prev, fmt.Errorf("--git: %v", err)
	}
	return prev, os.WriteFile(filepath.Join(dir, marker), []byte("written by ccsite build --git; replaced by the next one\n"), fileMode)
}
