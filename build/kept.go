package build

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ccsite/build/archive"
	"ccsite/build/keep"
	"ccsite/build/session"
	"golang.org/x/sync/errgroup"
)

// archiveDir is the archive's folder in the state folder.
func archiveDir(state string) string { return filepath.Join(state, "archive") }

// peekCachePath is discovery's cache (archive.PeekCache): in the archive's
// folder, private like the transcripts it is read from.
func peekCachePath(state string) string { return filepath.Join(archiveDir(state), "peeks.json") }

// kept is the keep step's product: the archive, and the vanished sources
// the build reads from it (by their restored path).
type kept struct {
	store  *keep.Store
	origin map[string]*keep.Entry
	roots  []string // restored roots, to discover with the inputs
}

// keepSources copies every source file of a (sessions, sub-agents, their
// .meta.json, files under a session's folder, file-history backups) into
// the archive, and restores the ones kept from these roots that vanished.
func keepSources(ctx context.Context, state string, roots []string, a *archive.Archive, workers int) (*kept, error) {
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		return nil, err
	}
	day := time.Now().UTC().Format("2006-01-02")
	files := keepList(roots, a)
	seen := map[string]bool{}
	for _, e := range files {
		seen[e.Path] = true
	}
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for _, e := range files {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := st.Keep(e, day); err != nil && !os.IsNotExist(err) {
				return err
			}
			return nil
		})
	}
	err = g.Wait()
	if err == nil {
		err = st.Flush()
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	k := &kept{store: st}
	if k.roots, k.origin, err = st.Restore(st.Vanished(roots, seen)); err != nil {
		st.Close()
		return nil, err
	}
	return k, nil
}

// keepList lists the files of a to keep, with where they are from their
// input root and which session they belong to.
func keepList(roots []string, a *archive.Archive) []keep.Entry {
	var absRoots []string
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			absRoots = append(absRoots, abs)
		}
	}
	var out []keep.Entry
	// fi is the file's stat from the walk; nil: stat it here.
	add := func(path string, fi fs.FileInfo, kind, sess, project string, start time.Time) {
		if fi == nil {
			var err error
			if fi, err = os.Stat(path); err != nil {
				return
			}
		}
		if !fi.Mode().IsRegular() {
			return
		}
		root, rel := rootOf(absRoots, path)
		if root == "" {
			return
		}
		out = append(out, keep.Entry{Path: path, Root: root, Rel: rel, Kind: kind, Size: fi.Size(), MTime: fi.ModTime().UnixNano(),
			Session: sess, Project: project, Start: start})
	}
	agent := func(ag *archive.AgentFile, sess, project string) {
		add(ag.Path, ag.Info, keep.KindAgent, sess, project, ag.FirstTime)
		// A walked agent's MetaInfo is nil when it has no .meta.json (or
		// it is a link out of the agent's folder). Never one out of it.
		if meta := ag.MetaPath(); (ag.MetaInfo != nil || ag.Info == nil) && archive.Within(meta, ag.SessionFolder()) {
			add(meta, ag.MetaInfo, keep.KindMeta, sess, project, ag.FirstTime)
		}
	}
	for _, p := range a.Projects {
		for _, sf := range p.Sessions {
			sess := sf.ID
			add(sf.Path, sf.Info, keep.KindSession, sess, p.Path, sf.FirstTime)
			for _, ag := range sf.Agents {
				agent(ag, sess, p.Path)
			}
			dir := strings.TrimSuffix(sf.Path, ".jsonl")
			for _, x := range sf.Extras {
				// Discovery lists none out of the session's folder.
				if archive.Within(x, dir) {
					add(x, nil, keep.KindExtra, sess, p.Path, sf.FirstTime)
				}
			}
			out = append(out, fileHistory(absRoots, sf, p.Path)...)
		}
	}
	for _, ag := range a.Orphans {
		agent(ag, ag.ParentID, "")
	}
	return out
}

// fileHistory lists the file-history backups Claude Code keeps for a
// session (~/.claude/file-history/<session id>/), when its root is a
// ~/.claude/projects folder. The id comes from the transcript: only a
// plain name (archive.PlainName) names a folder, never "..", and a folder
// that is a link out of file-history/ is not read.
func fileHistory(roots []string, sf *archive.SessionFile, project string) []keep.Entry {
	root, _ := rootOf(roots, sf.Path)
	if root == "" || filepath.Base(root) != "projects" {
		return nil
	}
	base := filepath.Dir(root)
	history := filepath.Join(base, "file-history")
	var out []keep.Entry
	for _, id := range []string{sf.SessionID, sf.ID} {
		if !archive.PlainName(id) {
			continue
		}
		dir := filepath.Join(history, id)
		if !archive.Within(dir, history) {
			continue
		}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(base, p)
			out = append(out, keep.Entry{Path: p, Root: base, Rel: filepath.ToSlash(rel), Kind: keep.KindFileHistory,
				Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Session: sf.ID, Project: project, Start: sf.FirstTime})
			return nil
		})
		if sf.SessionID == sf.ID {
			break
		}
	}
	return out
}

// rootOf finds the input root holding path and the path from it.
func rootOf(roots []string, path string) (root, rel string) {
	for _, r := range roots {
		if r == path {
			return r, filepath.Base(path)
		}
		if x, err := filepath.Rel(r, path); err == nil && filepath.IsLocal(x) {
			return r, filepath.ToSlash(x)
		}
	}
	return "", ""
}

// restoreOrigins gives a session read from the archive (and its
// sub-agents) their original paths; it returns, for it and each of its
// sub-agents read from the archive, the day its file was last seen.
func restoreOrigins(s *session.Session, origin map[string]*keep.Entry) map[*session.Session]string {
	seen := map[*session.Session]string{}
	var walk func(x *session.Session)
	walk = func(x *session.Session) {
		if e := origin[x.Path]; e != nil {
			for i := range x.Problems {
				if x.Problems[i].File == x.Path {
					x.Problems[i].File = e.Path
				}
			}
			x.Path, seen[x] = e.Path, e.Seen
		}
		for _, a := range x.Agents {
			walk(a)
		}
	}
	walk(s)
	return seen
}

// ForgetSelect chooses kept sessions to forget: by session id (the file's
// id or its sessionId), by project (a glob on its path or last element),
// or started before a day. A selection with none of them selects nothing.
type ForgetSelect struct {
	Sessions []string
	Project  string
	Before   time.Time
}

func (f ForgetSelect) empty() bool {
	return len(f.Sessions) == 0 && f.Project == "" && f.Before.IsZero()
}

func (f ForgetSelect) match(e *keep.Entry) bool {
	for _, id := range f.Sessions {
		if e.Session == id || strings.TrimSuffix(filepath.Base(e.Path), ".jsonl") == id {
			return true
		}
	}
	if f.Project != "" && e.Project != "" {
		if ok, _ := filepath.Match(f.Project, e.Project); ok {
			return true
		}
		if ok, _ := filepath.Match(f.Project, archive.ShortName(e.Project)); ok {
			return true
		}
	}
	return !f.Before.IsZero() && !e.Start.IsZero() && e.Start.Before(f.Before)
}

// KeepsFrom tells whether the archive in the state folder keeps files
// found under any of roots (the CLI builds from them, not the demo, even
// when Claude Code has deleted them all).
func KeepsFrom(state string, roots []string) bool {
	if _, err := os.Stat(filepath.Join(archiveDir(state), "index.json")); err != nil {
		return false
	}
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		return false
	}
	defer st.Close()
	return len(st.Vanished(roots, nil)) > 0
}
