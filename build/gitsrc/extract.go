package gitsrc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"ccsite/build/archive"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// blob is a file of the tree read.
type blob struct {
	path, oid string
	size      int64
	src       *source // the tree it was read from
}

// parseTree reads git ls-tree -r -z --long output; it keeps regular files
// (no links, no submodules).
func parseTree(listing []byte) ([]blob, error) {
	var out []blob
	for _, rec := range bytes.Split(listing, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			return nil, fmt.Errorf("unexpected line %q", rec)
		}
		f := strings.Fields(string(meta))
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected line %q", rec)
		}
		if f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("unexpected size in %q", rec)
		}
		out = append(out, blob{path: string(p), oid: f[2], size: size})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// sessionCopy is one copy of a session's transcript in the tree.
type sessionCopy struct {
	blob
	sid     string      // the session it is a copy of
	created time.Time   // its checkpoint's time (zero outside Entire's layout)
	md      *entireMeta // its checkpoint's metadata.json (Entire's layout)
	staged  string      // where its bytes were written, once read
	cwd     string      // the first cwd of its records, once read
	last    string      // the uuid of its last record with one, once read
}

// entireMeta is what ccsite reads of a session's metadata.json in one of
// Entire's checkpoints. Its agent label is not trusted: the transcript's
// content says whether it is Claude Code's.
type entireMeta struct {
	CheckpointID string   `json:"checkpoint_id"`
	SessionID    string   `json:"session_id"`
	CreatedAt    string   `json:"created_at"`
	Branch       string   `json:"branch"`
	FilesTouched []string `json:"files_touched"`
	TurnID       string   `json:"turn_id"`
	Agent        string   `json:"agent"`
}

// newer says whether a is a later copy than b: the newer checkpoint, then
// the longer transcript, then the later path.
func newer(a, b *sessionCopy) bool {
	if !a.created.Equal(b.created) {
		return a.created.After(b.created)
	}
	if a.size != b.size {
		return a.size > b.size
	}
	return a.path > b.path
}

// extractor writes the projects tree from the blobs of its sources.
type extractor struct {
	repo  *repo
	dir   string
	name  string // the repository's folder name, the project of sessions with no cwd
	srcs  []*source
	blobs []blob

	cf          *catFile
	stage       string
	nstaged     int
	mtime       time.Time       // the newest source's: folders and the marker get it
	oids        map[string]blob // file written → its blob
	sessions    int
	copies      int
	problems    []session.Problem
	checkpoints []Checkpoint
	ids         map[string]bool        // every checkpoint id met, readable or not
	prev        *runCache              // what the last run left
	prevDir     string                 // the last run's folder, moved aside ("" for none)
	next        *runCache              // what this one leaves
	prefixes    map[string]*prefixPlan // newest copy's blob → its earlier copies to find in it
}

func (ex *extractor) run(ctx context.Context) (err error) {
	ex.cf, err = ex.repo.catFile(ctx)
	if err != nil {
		return fmt.Errorf("--git: starting git cat-file: %v", err)
	}
	defer func() {
		if cerr := ex.cf.close(err != nil); err == nil && cerr != nil {
			err = fmt.Errorf("--git: git cat-file: %v", cerr)
		}
		if err != nil && ctx.Err() != nil {
			err = ctx.Err()
		}
	}()
	ex.stage = filepath.Join(ex.dir, ".stage")
	if err := os.MkdirAll(ex.stage, dirMode); err != nil {
		return fmt.Errorf("--git: %v", err)
	}
	if err := ex.list(ctx); err != nil {
		return err
	}
	if err := ex.extract(); err != nil {
		return fmt.Errorf("--git: %v", err)
	}
	if err := os.RemoveAll(ex.stage); err != nil {
		return fmt.Errorf("--git: %v", err)
	}
	if err := ex.next.write(ex.dir); err != nil {
		return fmt.Errorf("--git: %v", err)
	}
	return ex.stamp()
}

// list reads the files of every source: git ls-tree for a branch or the
// ref named, one git cat-file for all the checkpoint refs.
func (ex *extractor) list(ctx context.Context) error {
	var refs []*source
	for _, s := range ex.srcs {
		if s.kind == kindRef {
			refs = append(refs, s)
			continue
		}
		if s.kind == kindTree {
			if err := ex.commitTime(s); err != nil {
				return fmt.Errorf("--git: %v", err)
			}
		}
		treeish := s.commit
		if s.sub != "" {
			treeish += ":" + s.sub
		}
		listing, err := ex.repo.output(ctx, "ls-tree", "-r", "-z", "--long", "--full-tree", treeish)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("--git: reading the tree of %s: %v", s.ref, err)
		}
		bs, err := parseTree(listing)
		if err != nil {
			return fmt.Errorf("--git: reading the tree of %s: %v", s.ref, err)
		}
		for i := range bs {
			bs[i].path, bs[i].src = s.prefix+bs[i].path, s
		}
		ex.blobs = append(ex.blobs, bs...)
	}
	bs, err := ex.repo.readTrees(ctx, ex.cf, refs)
	if err != nil {
		return fmt.Errorf("--git: reading the checkpoint refs: %v", err)
	}
	for _, b := range bs {
		if b.size >= 0 {
			ex.blobs = append(ex.blobs, b)
		}
	}
	sort.Slice(ex.blobs, func(i, j int) bool { return ex.blobs[i].path < ex.blobs[j].path })
	for _, s := range ex.srcs {
		if s.mtime.After(ex.mtime) {
			ex.mtime = s.mtime
		}
	}
	return nil
}

// commitTime reads the committer time of a source's commit: every file it
// gives gets it as its mtime, so that an unchanged commit gives unchanged
// files.
func (ex *extractor) commitTime(s *source) error {
	return ex.cf.fetch([]string{s.commit}, func(_ int, typ string, _ int64, body io.Reader) error {
		data, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" {
				break
			}
			if rest, ok := strings.CutPrefix(line, "committer "); ok {
				f := strings.Fields(rest)
				if len(f) >= 2 {
					if sec, err := strconv.ParseInt(f[len(f)-2], 10, 64); err == nil {
						s.mtime = time.Unix(sec, 0)
						return nil
					}
				}
			}
		}
		return fmt.Errorf("commit %s has no committer time", s.commit)
	})
}

func isJSONL(p string) bool { return strings.HasSuffix(p, ".jsonl") }

func isAgent(p string) bool { return strings.HasPrefix(path.Base(p), "agent-") }

// companion is the folder beside a session file that holds its sub-agents
// and tool results: a/b.jsonl → a/b/.
func companion(p string) string { return strings.TrimSuffix(p, ".jsonl") + "/" }

// underAny says whether p lies in one of the folders (ending in /) of set.
func underAny(p string, set map[string]bool) bool {
	for i := strings.IndexByte(p, '/'); i >= 0; i = nextSlash(p, i) {
		if set[p[:i+1]] {
			return true
		}
	}
	return false
}

func nextSlash(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// fullName is the transcript of a session in one of Entire's checkpoints;
// the other JSONL files beside it (transcript.jsonl, Entire's compact
// form) are no copies of it.
const fullName = "full.jsonl"

// sessionCopies sorts the JSONL files into session copies and sub-agent
// files lying in no session's folder.
func (ex *extractor) sessionCopies() (copies []*sessionCopy, agents []blob) {
	// Session files: JSONL that is no sub-agent and lies in no other
	// session's folder. Everything else in such a folder goes with it.
	folders := map[string]bool{}
	full := map[string]bool{} // Entire's checkpoint folders
	for _, b := range ex.blobs {
		if isJSONL(b.path) && !isAgent(b.path) {
			folders[companion(b.path)] = true
		}
		if path.Base(b.path) == fullName {
			full[path.Dir(b.path)] = true
		}
	}
	for _, b := range ex.blobs {
		switch {
		case !isJSONL(b.path) || underAny(b.path, folders):
		case full[path.Dir(b.path)] && path.Base(b.path) != fullName:
		case isAgent(b.path):
			agents = append(agents, b)
		default:
			copies = append(copies, &sessionCopy{blob: b})
		}
	}
	ex.checkFolders(full)
	return copies, agents
}

func (ex *extractor) extract() error {
	copies, agents := ex.sessionCopies()
	ex.copies = len(copies)
	if err := ex.readMetadata(copies); err != nil {
		return err
	}
	// A copy named by its metadata need only be read when it is the
	// newest of its session; the others are read to learn their session.
	best := map[string]*sessionCopy{}
	var read []*sessionCopy
	for _, c := range copies {
		if c.sid == "" {
			read = append(read, c)
		} else if b := best[c.sid]; b == nil || newer(c, b) {
			best[c.sid] = c
		}
	}
	for _, c := range copies {
		if c.sid != "" && best[c.sid] == c {
			read = append(read, c)
		}
	}
	if err := ex.planPrefixes(copies, best); err != nil {
		return err
	}
	sniffs, err := ex.readCopies(read)
	if err != nil {
		return err
	}
	for i, c := range read {
		c.staged, c.cwd, c.last = sniffs[i].staged, sniffs[i].cwd, sniffs[i].last
		if c.sid == "" {
			c.sid = sessionID(c.path, sniffs[i])
		}
		if c.sid == "" {
			continue
		}
		if b := best[c.sid]; b == nil || b == c || newer(c, b) {
			best[c.sid] = c
		}
	}
	for i, c := range read {
		if best[c.sid] == c && c.md != nil && sniffs[i].claude == 0 {
			// Entire keeps other agents' transcripts too, and its label
			// is not to be trusted: the content tells.
			ex.problems = append(ex.problems, problem(c.src.ref, ex.rel(c.blob), "not a Claude Code transcript (its metadata says "+strconv.Quote(c.md.Agent)+"): left out"))
			delete(best, c.sid)
		}
	}
	if err := ex.lastUUIDs(copies); err != nil {
		return err
	}
	ex.recordCheckpoints(copies)
	projects, err := ex.placeSessions(best)
	if err != nil {
		return err
	}
	return ex.looseAgents(agents, projects)
}

// placeSessions writes the chosen copy of each session, with its folder.
func (ex *extractor) placeSessions(best map[string]*sessionCopy) (map[string]string, error) {
	sids := make([]string, 0, len(best))
	for sid := range best {
		sids = append(sids, sid)
	}
	sort.Strings(sids)
	projects := map[string]string{} // session id → project folder
	var side []placed
	for _, sid := range sids {
		c := best[sid]
		project := ex.project(c.path, c.cwd)
		name := fileName(sid)
		if err := ex.place(c.staged, filepath.Join(ex.dir, project, name+".jsonl"), c.blob); err != nil {
			return nil, err
		}
		ex.next.Files[c.oid] = project + "/" + name + ".jsonl"
		projects[sid] = project
		ex.sessions++
		prefix := companion(c.path)
		for _, b := range ex.blobs {
			if rel, ok := strings.CutPrefix(b.path, prefix); ok {
				if rel = safeRel(rel); rel != "" {
					side = append(side, placed{b, filepath.Join(ex.dir, project, name, filepath.FromSlash(rel))})
				}
			}
		}
	}
	return projects, ex.writeAll(side)
}

// readMetadata reads the metadata.json beside each copy (Entire's layout):
// its session, time, branch, turn and files touched.
func (ex *extractor) readMetadata(copies []*sessionCopy) error {
	byPath := map[string]blob{}
	for _, b := range ex.blobs {
		if path.Base(b.path) == "metadata.json" && b.size < 1<<20 {
			byPath[b.path] = b
		}
	}
	var want []blob
	var owners [][]*sessionCopy
	index := map[string]int{}
	for _, c := range copies {
		m, ok := byPath[path.Join(path.Dir(c.path), "metadata.json")]
		if !ok {
			if path.Base(c.path) == fullName && c.src.kind != kindTree {
				ex.problems = append(ex.problems, problem(c.src.ref, path.Join(path.Dir(ex.rel(c.blob)), "metadata.json"), "missing or over 1 MB: the session is named by its records"))
			}
			continue
		}
		i, seen := index[m.path]
		if !seen {
			i = len(want)
			index[m.path] = i
			want = append(want, m)
			owners = append(owners, nil)
		}
		owners[i] = append(owners[i], c)
	}
	return ex.cf.fetch(oidsOf(want), func(i int, _ string, _ int64, body io.Reader) error {
		var md entireMeta
		data, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &md); err != nil {
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) {
				if path.Base(owners[i][0].path) == fullName {
					ex.problems = append(ex.problems, problem(want[i].src.ref, ex.rel(want[i]), "unreadable: "+err.Error()+"; the session is named by its records"))
				}
				return nil // not Entire's: the copies are named by their records
			}
		}
		created, _ := time.Parse(time.RFC3339Nano, md.CreatedAt)
		for _, c := range owners[i] {
			c.created = created
			// Only the checkpoint's transcript is named by it.
			if path.Base(c.path) == fullName || len(owners[i]) == 1 {
				c.sid = entireSessionID(md.SessionID)
				c.md = &md
			}
		}
		return nil
	})
}

// entireSessionID is Claude Code's session id in Entire's session_id:
// older Entire versions put the date before it (2026-01-13-<uuid>).
func entireSessionID(s string) string {
	s = strings.TrimSpace(s)
	if len(s) == 11+36 && transcript.IsUUID(s[11:]) && s[4] == '-' && s[7] == '-' && s[10] == '-' {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return s[11:]
		}
	}
	return s
}

// sessionID names a copy with no metadata: a file named like a session id
// is that session (Claude Code names them so, and a resumed session's
// first records still carry the earlier session's id); else the last
// sessionId of its records; else its file name.
func sessionID(p string, s sniffed) string {
	stem := strings.TrimSuffix(path.Base(p), ".jsonl")
	switch {
	case transcript.IsUUID(stem):
		return stem
	case !s.transcript:
		return "" // not a transcript
	case s.sid != "":
		return s.sid
	}
	return stem
}

// project is the folder of a session: the slug of its records' cwd, else
// the folder it sits in when that is a project slug, else the repository's
// name.
func (ex *extractor) project(p, cwd string) string {
	if cwd != "" {
		if s := archive.Slug(cwd); safeRel(s) == s && s != "" {
			return s
		}
	}
	parent := path.Base(path.Dir(p))
	if len(parent) > 1 && (parent[0] == '-' || len(parent) > 3 && parent[1:3] == "--") && safeRel(parent) == parent {
		return parent
	}
	return archive.Slug(ex.name)
}

// fileName makes a session id safe as a file name.
func fileName(sid string) string {
	b := []byte(sid)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	s := string(b)
	if s == "." || s == ".." {
		s = "-"
	}
	return s
}

// safeRel returns a slash path that stays inside its folder, else "".
func safeRel(rel string) string {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) {
		return ""
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return ""
		}
	}
	return rel
}

// looseAgents places the sub-agent files that lie in no session's folder:
// <session>/subagents/… keeps its layout, agent-*.jsonl beside sessions
// (2.0.x) goes beside its session, found by the sessionId of its records.
func (ex *extractor) looseAgents(agents []blob, projects map[string]string) error {
	sniffs, err := ex.stageAll(agents, false)
	if err != nil {
		return err
	}
	type choice struct {
		b      blob
		staged string
	}
	chosen := map[string]choice{}
	for i, b := range agents {
		s := sniffs[i]
		if !s.transcript {
			continue
		}
		parts := strings.Split(b.path, "/")
		sid, rel := s.sid, path.Base(b.path)
		for k := len(parts) - 2; k >= 1; k-- {
			if parts[k] == "subagents" {
				sid, rel = parts[k-1], strings.Join(parts[k:], "/")
				break
			}
		}
		if safeRel(rel) == "" {
			continue
		}
		project, ok := projects[sid]
		if !ok {
			project = ex.project(b.path, s.cwd)
		}
		out := filepath.Join(ex.dir, project, filepath.FromSlash(rel))
		if rel != path.Base(b.path) {
			out = filepath.Join(ex.dir, project, fileName(sid), filepath.FromSlash(rel))
		}
		if old, ok := chosen[out]; ok && (old.b.size > b.size || old.b.size == b.size && old.b.path > b.path) {
			continue
		}
		chosen[out] = choice{b, s.staged}
	}
	outs := make([]string, 0, len(chosen))
	for out := range chosen {
		outs = append(outs, out)
	}
	sort.Strings(outs)
	for _, out := range outs {
		if _, err := os.Lstat(out); err == nil {
			continue // already written from a session's folder
		}
		if err := ex.place(chosen[out].staged, out, chosen[out].b); err != nil {
			return err
		}
	}
	return nil
}

func blobsOf(cs []*sessionCopy) []blob {
	out := make([]blob, len(cs))
	for i, c := range cs {
		out[i] = c.blob
	}
	return out
}

func oidsOf(bs []blob) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.oid
	}
	return out
}

// sniffed is what staging learnt of a JSONL file.
type sniffed struct {
	staged     string
	cwd, sid   string
	last       string // the uuid of its last record with one
	transcript bool
	claude     int // lines with a sessionId: Claude Code's records
}

// stageAll writes each blob to a file of the stage, reading its records'
// cwd and sessionId on the way.
func (ex *extractor) stageAll(bs []blob, uuids bool) ([]sniffed, error) {
	out := make([]sniffed, len(bs))
	err := ex.cf.fetch(oidsOf(bs), func(i int, _ string, _ int64, body io.Reader) error {
		ex.nstaged++
		name := filepath.Join(ex.stage, strconv.Itoa(ex.nstaged))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
		if err != nil {
			return err
		}
		sn := sniffer{uuids: uuids}
		var w io.Writer = &sn
		if plan := ex.prefixes[bs[i].oid]; plan != nil && uuids {
			w = newPrefixWatch(plan, &sn)
		}
		_, err = io.Copy(io.MultiWriter(f, w), body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		sn.finish()
		out[i] = sniffed{staged: name, cwd: sn.cwd, sid: sn.sid, transcript: sn.records > 0, claude: sn.claude}
		if uuids {
			out[i].last = sn.lastUUID()
		}
		return nil
	})
	return out, err
}

// placed is a blob and where it goes.
type placed struct {
	b   blob
	out string
}

// writeAll streams blobs straight to their places.
func (ex *extractor) writeAll(ps []placed) error {
	bs := make([]blob, len(ps))
	for i, p := range ps {
		bs[i] = p.b
	}
	return ex.cf.fetch(oidsOf(bs), func(i int, _ string, _ int64, body io.Reader) error {
		out := ps[i].out
		ex.written(out, ps[i].b)
		if err := os.MkdirAll(filepath.Dir(out), dirMode); err != nil {
			return err
		}
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// place moves a staged file to out.
func (ex *extractor) place(staged, out string, b blob) error {
	if err := os.MkdirAll(filepath.Dir(out), dirMode); err != nil {
		return err
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("%s written twice", out)
	}
	ex.written(out, b)
	return os.Rename(staged, out)
}

func (ex *extractor) written(out string, b blob) {
	if ex.oids == nil {
		ex.oids = map[string]blob{}
	}
	ex.oids[out] = b
}

// mtimeOf is a file's mtime: the time of the commit it was read from, its
// nanoseconds taken from the blob's name, so that a file whose bytes
// change gets another mtime even from a commit made in the same second (a
// build rehashes a source whose size or mtime changed), and a file from
// a checkpoint ref that did not change keeps its mtime when other refs
// come. Folders get the newest source's time.
func (ex *extractor) mtimeOf(p string) time.Time {
	b, ok := ex.oids[p]
	if !ok || len(b.oid) < 8 || b.src == nil {
		return ex.mtime
	}
	n, err := strconv.ParseUint(b.oid[:8], 16, 32)
	if err != nil {
		return ex.mtime
	}
	return b.src.mtime.Add(time.Duration(n % 1e9))
}

// stamp sets every file's and folder's mtime to the commit's time (see
// mtimeOf).
func (ex *extractor) stamp() error {
	var paths []string
	err := filepath.WalkDir(ex.dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("--git: %v", err)
	}
	// Children before their folders: writing in a folder moves its mtime.
	for i := len(paths) - 1; i >= 0; i-- {
		t := ex.mtimeOf(paths[i])
		if err := os.Chtimes(paths[i], t, t); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--git: %v", err)
		}
	}
	return nil
}
