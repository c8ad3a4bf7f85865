package gitsrc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"ccsite/build/session"
)

// CheckpointRefs is where Entire keeps one ref per checkpoint:
// refs/entire/checkpoints/<last two characters of the id>/<id>.
const CheckpointRefs = "refs/entire/checkpoints/"

// The kinds of source a blob comes from.
const (
	kindTree = iota // a ref named by the spec, or HEAD: any layout below it
	kindV1          // the entire/checkpoints/v1 branch: <id[:2]>/<id[2:]>/<n>/…
	kindRef         // a checkpoint ref: <n>/… below its root
)

// source is a tree read: a checkpoint ref, the checkpoint branch, or the
// ref the spec names.
type source struct {
	kind   int
	ref    string    // as problems and checkpoints name it
	id     string    // the checkpoint's id (kindRef)
	commit string    // the commit read
	mtime  time.Time // its committer time: the files it gives get it
	prefix string    // its blobs' paths begin with it ("" for kindTree)
	sub    string    // the folder of the commit read (kindTree)
}

// refInfo is a line of git for-each-ref.
type refInfo struct {
	name, oid, typ string
	time           int64
}

// listRefs reads every ref the build may need in one git for-each-ref:
// the checkpoint refs, the checkpoint branch and the branches.
func (r *repo) listRefs(ctx context.Context) ([]refInfo, error) {
	out, err := r.output(ctx, "for-each-ref", "--format=%(objectname) %(objecttype) %(committerdate:unix) %(refname)",
		CheckpointRefs, "refs/heads/", "refs/remotes/origin/")
	if err != nil {
		return nil, err
	}
	var refs []refInfo
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 {
			continue
		}
		t, _ := strconv.ParseInt(f[2], 10, 64)
		refs = append(refs, refInfo{oid: f[0], typ: f[1], time: t, name: f[3]})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].name < refs[j].name })
	return refs, nil
}

// isHexID says whether s is an older Entire checkpoint id: 12 lowercase
// hex characters.
func isHexID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isULID says whether s is a ULID: 26 characters of Crockford's base32.
func isULID(s string) bool {
	if len(s) != 26 || s[0] > '7' {
		return false
	}
	for _, c := range []byte(strings.ToUpper(s)) {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') || c == 'I' || c == 'L' || c == 'O' || c == 'U' {
			return false
		}
	}
	return true
}

// isCheckpointID says whether s is an id Entire gives checkpoints.
func isCheckpointID(s string) bool { return isHexID(s) || isULID(s) }

// checkpointSources turns the checkpoint refs into sources. A ref that is
// not refs/entire/checkpoints/<shard>/<id>, or not a commit, is a problem
// and is left out; one whose shard is not its id's last two characters,
// or whose id is neither a ULID nor 12 hex characters, is a problem and is
// read all the same.
func checkpointSources(refs []refInfo) (srcs []*source, probs []session.Problem) {
	for _, ref := range refs {
		rest, ok := strings.CutPrefix(ref.name, CheckpointRefs)
		if !ok {
			continue
		}
		shard, id, ok := strings.Cut(rest, "/")
		switch {
		case !ok || strings.Contains(id, "/") || id == "":
			probs = append(probs, problem(ref.name, "", "not a checkpoint ref: refs/entire/checkpoints/<shard>/<id> was expected"))
			continue
		case ref.typ != "commit":
			probs = append(probs, problem(ref.name, "", "the ref names a "+ref.typ+", not a commit"))
			continue
		case !isCheckpointID(id):
			probs = append(probs, problem(ref.name, "", "the id "+strconv.Quote(id)+" is neither a ULID nor 12 hex characters"))
		case len(id) < 2 || !strings.EqualFold(shard, id[len(id)-2:]):
			probs = append(probs, problem(ref.name, "", "the shard "+strconv.Quote(shard)+" is not the last two characters of the id"))
		}
		srcs = append(srcs, &source{kind: kindRef, ref: ref.name, id: id, commit: ref.oid,
			mtime: time.Unix(ref.time, 0), prefix: ref.name + "/"})
	}
	return srcs, probs
}

// branchSource is the checkpoint branch, local or origin's; nil when the
// repository has neither.
func branchSource(refs []refInfo) *source {
	for _, name := range []string{"refs/heads/" + DefaultRef, "refs/remotes/origin/" + DefaultRef} {
		for _, ref := range refs {
			if ref.name == name && ref.typ == "commit" {
				short := strings.TrimPrefix(strings.TrimPrefix(name, "refs/heads/"), "refs/remotes/")
				return &source{kind: kindV1, ref: short, commit: ref.oid, mtime: time.Unix(ref.time, 0), prefix: short + "/"}
			}
		}
	}
	return nil
}

// problem is a problem with a checkpoint, named by its ref and path.
func problem(ref, p, reason string) session.Problem {
	file := "git:" + ref
	if p != "" {
		file += ":" + p
	}
	return session.Problem{File: file, Kind: "checkpoint", Reason: reason}
}

// maxTreeDepth bounds how deep a checkpoint ref's tree is read: Entire's
// are two levels deep.
const maxTreeDepth = 8

// readTrees lists the files of every checkpoint ref's tree through one
// git cat-file --batch (the trees) and one --batch-check (the blobs'
// sizes), whatever the number of refs. Like parseTree, it keeps regular
// files only: no links, no submodules.
func (r *repo) readTrees(ctx context.Context, cf *catFile, srcs []*source) ([]blob, error) {
	type pending struct {
		src  *source
		path string // below the source's root, ending in / when not ""
		oid  string
	}
	var level []pending
	for _, s := range srcs {
		level = append(level, pending{src: s, oid: s.commit + "^{tree}"})
	}
	var out []blob
	for depth := 0; len(level) > 0 && depth < maxTreeDepth; depth++ {
		oids := make([]string, len(level))
		for i, p := range level {
			oids[i] = p.oid
		}
		var next []pending
		err := cf.fetch(oids, func(i int, typ string, _ int64, body io.Reader) error {
			if typ != "tree" {
				return nil
			}
			data, err := io.ReadAll(body)
			if err != nil {
				return err
			}
			p := level[i]
			return parseTreeObject(data, len(p.src.commit)/2, func(mode, name, oid string) {
				switch {
				case name == "" || name == "." || name == ".." || strings.EqualFold(name, ".git") || strings.ContainsAny(name, "/\\"):
				case mode == "40000":
					next = append(next, pending{src: p.src, path: p.path + name + "/", oid: oid})
				case mode == "100644" || mode == "100755":
					out = append(out, blob{path: p.src.prefix + p.path + name, oid: oid, src: p.src})
				}
			})
		})
		if err != nil {
			return nil, err
		}
		level = next
	}
	if err := r.blobSizes(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// parseTreeObject walks a raw tree object: "<mode> <name>\0<20 or 32
// byte id>" entries.
func parseTreeObject(data []byte, idLen int, each func(mode, name, oid string)) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp {
			return fmt.Errorf("malformed tree object")
		}
		if len(data) < nul+1+idLen {
			return fmt.Errorf("malformed tree object")
		}
		each(string(data[:sp]), string(data[sp+1:nul]), fmt.Sprintf("%x", data[nul+1:nul+1+idLen]))
		data = data[nul+1+idLen:]
	}
	return nil
}

// blobSizes fills the blobs' sizes with one git cat-file --batch-check.
func (r *repo) blobSizes(ctx context.Context, bs []blob) error {
	if len(bs) == 0 {
		return nil
	}
	var in strings.Builder
	for _, b := range bs {
		in.WriteString(b.oid)
		in.WriteByte('\n')
	}
	cmd := r.command(ctx, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git cat-file --batch-check: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(bs) {
		return fmt.Errorf("git cat-file --batch-check: %d answers for %d objects", len(lines), len(bs))
	}
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "blob" {
			bs[i].size, _ = strconv.ParseInt(f[2], 10, 64)
		} else {
			bs[i].size = -1 // missing: left out by the caller
		}
	}
	return nil
}
