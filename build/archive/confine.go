package archive

import (
	"os"
	"path/filepath"
	"strings"
)

// A session's folder (<session>/: sub-agents, their .meta.json, large tool
// outputs in tool-results/) is read only within itself: a link in it that
// leads out (to ~/.ssh/id_rsa, to another session's files) is not followed,
// and said, both in Archive.Skipped and in the session's own Skipped.

// WhyLinkOut is the reason a file reached by a link out of its session's
// folder is skipped.
const WhyLinkOut = "a link out of the session's folder"

// Within tells whether path, its links resolved, lies inside dir, its
// links resolved (or is dir). A path that cannot be resolved is not.
func Within(path, dir string) bool {
	rp, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	return inside(rp, rd)
}

// inside tells whether the resolved path p is the resolved dir d or below.
func inside(p, d string) bool {
	if p == d {
		return true
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && filepath.IsLocal(rel)
}

// SessionFolder is the folder an agent's files must stay in: its session's
// folder in the subagents layout (<session>/subagents/…), else the folder
// the agent file is in.
func (ag *AgentFile) SessionFolder() string {
	dir := filepath.Dir(ag.Path)
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "subagents" {
			return filepath.Dir(d)
		}
	}
	return dir
}

// MetaPath is the path of the agent's .meta.json.
func (ag *AgentFile) MetaPath() string { return strings.TrimSuffix(ag.Path, ".jsonl") + ".meta.json" }

// confine drops the files the walk found under a session's folder whose
// real path lies out of it, and reads each agent's .meta.json when it lies
// in the agent's folder (SessionFolder); what is left out is Skipped, and
// listed on its session (confined, by the session's folder path).
func (w *walker) confine() (bySessionDir map[string][]Skip) {
	bySessionDir = map[string][]Skip{}
	sessDirs := map[string]bool{}
	for _, s := range w.sessions {
		sessDirs[strings.TrimSuffix(s.Path, ".jsonl")] = true
	}
	// folderOf is the session folder p lies under, "" for none.
	folderOf := func(p string) string {
		for d := filepath.Dir(p); d != filepath.Dir(d); d = filepath.Dir(d) {
			if sessDirs[d] {
				return d
			}
		}
		return ""
	}
	realDirs := map[string]string{}
	realDir := func(d string) string {
		r, ok := realDirs[d]
		if !ok {
			r, _ = filepath.EvalSymlinks(d)
			realDirs[d] = r
		}
		return r
	}
	// allowed is the real path of the folder files under folder must lie
	// in: "" for none when folder is a session's and is itself a link out
	// of the folder holding it.
	allowed := func(folder string, session bool) string {
		rd := realDir(folder)
		if session && rd != "" {
			if pd := realDir(filepath.Dir(folder)); pd == "" || !inside(rd, pd) {
				return ""
			}
		}
		return rd
	}
	// out tells whether p, whose real path is real ("": not known yet),
	// leads out of folder; if so it is skipped.
	out := func(p, real, folder string, session bool) bool {
		if folder == "" {
			return false
		}
		if real == "" {
			var err error
			if real, err = filepath.EvalSymlinks(p); err != nil {
				return false // not there: nothing is read from it
			}
		}
		if rd := allowed(folder, session); rd != "" && inside(real, rd) {
			return false
		}
		w.skip(p, WhyLinkOut)
		bySessionDir[folder] = append(bySessionDir[folder], Skip{Path: p, Reason: WhyLinkOut})
		return true
	}
	sessions := w.sessions[:0]
	for _, s := range w.sessions {
		if !out(s.Path, w.realOf[s.Path], folderOf(s.Path), true) {
			sessions = append(sessions, s)
		}
	}
	w.sessions = sessions
	agents := w.agents[:0]
	for _, ag := range w.agents {
		folder := ag.SessionFolder()
		if ag.Layout != LayoutSubagents {
			folder = folderOf(ag.Path)
		}
		if out(ag.Path, w.realOf[ag.Path], folder, true) {
			continue
		}
		agents = append(agents, ag)
		meta := ag.MetaPath()
		if _, err := os.Lstat(meta); err != nil {
			continue
		}
		if folder != "" {
			if out(meta, "", folder, true) {
				continue
			}
		} else if out(meta, "", filepath.Dir(ag.Path), false) {
			// A legacy agent (beside the sessions) keeps its own
			// beside it.
			continue
		}
		ag.Meta, ag.MetaInfo = readMeta(meta)
	}
	w.agents = agents
	extras := w.extras[:0]
	for _, e := range w.extras {
		if !out(e, w.realOf[e], folderOf(e), true) {
			extras = append(extras, e)
		}
	}
	w.extras = extras
	return bySessionDir
}
