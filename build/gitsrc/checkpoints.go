package gitsrc

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
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
	ex.seenUUIDs = map[string]string{}
	var want []*sessionCopy
	for _, c := range copies {
		if c.md == nil && c.src.kind == kindTree {
			continue
		}
		switch last, ok := ex.uuids[c.oid]; {
		case c.staged != "":
		case ok:
			c.last = last
		default:
			want = append(want, c)
			continue
		}
		ex.seenUUIDs[c.oid] = c.last
	}
	err := ex.cf.fetch(oidsOf(blobsOf(want)), func(i int, _ string, _ int64, body io.Reader) error {
		sn := sniffer{uuids: true}
		if _, err := io.Copy(&sn, body); err != nil {
			return err
		}
		sn.finish()
		want[i].last = sn.lastUUID()
		ex.seenUUIDs[want[i].oid] = want[i].last
		if want[i].sid == "" && want[i].md == nil {
			want[i].sid = sn.sid
		}
		return nil
	})
	return err
}

// uuidCache is the file, in the folder written, that keeps each
// checkpoint copy's last uuid by blob, so that the next run reads only
// the copies it has not seen.
const uuidCache = ".ccsite-git-uuids.json"

// readUUIDCache reads what an earlier run left in dir (nothing when dir
// was not written by one).
func readUUIDCache(dir string) map[string]string {
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, uuidCache))
	if err != nil {
		return nil
	}
	var m map[string]string
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

func writeUUIDCache(dir string, m map[string]string) error {
	if len(m) == 0 {
		return nil
	}
	data, err := json.Marshal(m) // keys sorted: deterministic
	if err != nil {
		return err
	}
	err = os.WriteFile(filepath.Join(dir, uuidCache), data, fileMode)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
