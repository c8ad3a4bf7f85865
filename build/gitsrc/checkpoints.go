package gitsrc

import (
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// rel is a blob's path below its source's root.
func (ex *extractor) rel(b blob) string {
	if b.src == nil {
		return b.path
	}
	return strings.TrimPrefix(b.path, b.src.prefix)
}

// sessionDepth is how deep Entire puts a session's folder below a
// source's root: <n>/ in a checkpoint ref, <id[:2]>/<id[2:]>/<n>/ in the
// checkpoint branch; 0 elsewhere (any layout).
func sessionDepth(s *source) int {
	switch s.kind {
	case kindRef:
		return 1
	case kindV1:
		return 3
	}
	return 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkFolders notes every checkpoint id met and reports the checkpoints
// Entire's layouts say should hold a transcript and do not: a session
// folder with no full.jsonl, a checkpoint ref with no session folder.
func (ex *extractor) checkFolders(full map[string]bool) {
	ex.ids = map[string]bool{}
	sessions := map[*source]map[string]bool{}
	for _, s := range ex.srcs {
		if s.kind == kindRef {
			ex.ids[s.id] = true
			sessions[s] = map[string]bool{}
		}
	}
	for _, b := range ex.blobs {
		depth := sessionDepth(b.src)
		if depth == 0 {
			continue
		}
		parts := strings.Split(ex.rel(b), "/")
		if len(parts) != depth+1 || !isDigits(parts[depth-1]) {
			continue
		}
		if b.src.kind == kindV1 {
			ex.ids[parts[0]+parts[1]] = true
		}
		if sessions[b.src] == nil {
			sessions[b.src] = map[string]bool{}
		}
		sessions[b.src][b.src.prefix+strings.Join(parts[:depth], "/")] = true
	}
	for _, s := range ex.srcs {
		folders := make([]string, 0, len(sessions[s]))
		for f := range sessions[s] {
			folders = append(folders, f)
		}
		sort.Strings(folders)
		if s.kind == kindRef && len(folders) == 0 {
			ex.problems = append(ex.problems, problem(s.ref, "", "no session folder (<n>/full.jsonl) in the checkpoint"))
		}
		for _, f := range folders {
			if !full[f] {
				ex.problems = append(ex.problems, problem(s.ref, strings.TrimPrefix(f, s.prefix)+"/"+fullName, "missing: the checkpoint has no transcript"))
			}
		}
	}
}

// checkpointID is the id of the checkpoint a copy lies in: the ref's, the
// folders' in the checkpoint branch, else its metadata's.
func (ex *extractor) checkpointID(c *sessionCopy) string {
	switch c.src.kind {
	case kindRef:
		return c.src.id
	case kindV1:
		if parts := strings.Split(ex.rel(c.blob), "/"); len(parts) == 4 {
			return parts[0] + parts[1]
		}
	}
	if c.md != nil {
		return c.md.CheckpointID
	}
	return ""
}

// recordCheckpoints lists the checkpoints the copies lie in, by id.
func (ex *extractor) recordCheckpoints(copies []*sessionCopy) {
	for _, c := range copies {
		if c.md == nil && (c.src.kind == kindTree || path.Base(c.path) != fullName) {
			continue
		}
		id := ex.checkpointID(c)
		if id == "" {
			continue
		}
		ex.ids[id] = true
		cp := Checkpoint{ID: id, Ref: c.src.ref, SessionID: c.sid, LastUUID: c.last, Created: c.created}
		if c.src.kind != kindRef {
			cp.Ref += ":" + path.Dir(ex.rel(c.blob))
		}
		if c.md != nil {
			cp.TurnID, cp.Branch = c.md.TurnID, c.md.Branch
			cp.FilesTouched = append([]string(nil), c.md.FilesTouched...)
			sort.Strings(cp.FilesTouched)
		}
		if !cp.Created.IsZero() {
			cp.Created = cp.Created.UTC()
		}
		ex.checkpoints = append(ex.checkpoints, cp)
	}
	sort.Slice(ex.checkpoints, func(i, j int) bool {
		a, b := ex.checkpoints[i], ex.checkpoints[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		if a.SessionID != b.SessionID {
			return a.SessionID < b.SessionID
		}
		return a.Ref < b.Ref
	})
}

// lastUUIDs finds the last uuid of each checkpoint's copy not read to be
// written: from the last run's record of its blob, else by streaming it
// through git cat-file (not written anywhere).
func (ex *extractor) lastUUIDs(copies []*sessionCopy) error {
	var want []*sessionCopy
	for _, c := range copies {
		if c.md == nil && c.src.kind == kindTree {
			continue
		}
		switch prev, ok := ex.prev.Sniffs[c.oid]; {
		case c.staged != "":
		case c.last != "": // found in its session's newest copy
			ex.next.Sniffs[c.oid] = cachedSniff{SID: c.sid, Last: c.last, Transcript: true, Claude: 1}
		case ok:
			c.last = prev.Last
			ex.next.Sniffs[c.oid] = prev
		default:
			want = append(want, c)
		}
	}
	return ex.cf.fetch(oidsOf(blobsOf(want)), func(i int, _ string, _ int64, body io.Reader) error {
		sn := sniffer{uuids: true}
		if _, err := io.Copy(&sn, body); err != nil {
			return err
		}
		sn.finish()
		want[i].last = sn.lastUUID()
		ex.next.Sniffs[want[i].oid] = cachedSniff{CWD: sn.cwd, SID: sn.sid, Last: want[i].last, Transcript: sn.records > 0, Claude: sn.claude}
		return nil
	})
}

// runCache is what a run leaves for the next in the folder it writes, so
// that the next reads only the blobs it has not seen: what reading each
// blob learnt, and the session file each was written to (moved from the
// last run's folder instead of read again).
type runCache struct {
	Sniffs map[string]cachedSniff `json:"sniffs"`
	Files  map[string]string      `json:"files"`
}

// cachedSniff is a blob's sniffed (where it was staged aside).
type cachedSniff struct {
	CWD        string `json:"cwd,omitempty"`
	SID        string `json:"sid,omitempty"`
	Last       string `json:"last,omitempty"`
	Transcript bool   `json:"transcript,omitempty"`
	Claude     int    `json:"claude,omitempty"`
}

func newRunCache() *runCache {
	return &runCache{Sniffs: map[string]cachedSniff{}, Files: map[string]string{}}
}

// cacheName is the run cache's file in the folder written.
const cacheName = ".ccsite-git-cache.json"

// readRunCache reads what an earlier run left in dir (nothing when dir
// was not written by one).
func readRunCache(dir string) *runCache {
	c := newRunCache()
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		return c
	}
	data, err := os.ReadFile(filepath.Join(dir, cacheName))
	if err != nil {
		return c
	}
	var read runCache
	if json.Unmarshal(data, &read) != nil || read.Sniffs == nil || read.Files == nil {
		return c
	}
	return &read
}

func (c *runCache) write(dir string) error {
	data, err := json.Marshal(c) // keys sorted: deterministic
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, cacheName), data, fileMode)
}

// reuse is the file the last run wrote from blob oid, moved aside in
// prevDir, with what reading it learnt; ok is false when there is none
// (or it was taken already).
func (ex *extractor) reuse(oid string, taken map[string]bool) (s sniffed, ok bool) {
	cs, ok1 := ex.prev.Sniffs[oid]
	rel, ok2 := ex.prev.Files[oid]
	if !ok1 || !ok2 || taken[oid] || ex.prevDir == "" || safeRel(rel) == "" {
		return s, false
	}
	p := filepath.Join(ex.prevDir, filepath.FromSlash(rel))
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return s, false
	}
	taken[oid] = true
	return sniffed{staged: p, cwd: cs.CWD, sid: cs.SID, last: cs.Last, transcript: cs.Transcript, claude: cs.Claude}, true
}

// readCopies stages the copies to read, or takes them from the last run.
func (ex *extractor) readCopies(read []*sessionCopy) ([]sniffed, error) {
	sniffs := make([]sniffed, len(read))
	taken := map[string]bool{}
	var fetch []*sessionCopy
	var at []int
	for i, c := range read {
		if s, ok := ex.reuse(c.oid, taken); ok {
			sniffs[i] = s
		} else {
			fetch, at = append(fetch, c), append(at, i)
		}
	}
	fetched, err := ex.stageAll(blobsOf(fetch), true)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		sniffs[i] = fetched[k]
	}
	for i, c := range read {
		s := sniffs[i]
		ex.next.Sniffs[c.oid] = cachedSniff{CWD: s.cwd, SID: s.sid, Last: s.last, Transcript: s.transcript, Claude: s.claude}
	}
	return sniffs, nil
}
