package archive

import (
	"os"
	"path/filepath"
	"strings"

	"ccsite/build/agents"
)

// others finds the sessions of the agents other than Claude Code under
// paths (build/agents): each becomes a SessionFile with its Agent set,
// grouped into projects by its cwd with Claude Code's. claimed holds their
// paths, which the Claude Code walk leaves to them; owned the roots under
// which some other agent found sessions.
func (w *walker) others(paths []string, only map[string]bool) (found []*SessionFile) {
	w.claimed = map[string]bool{}
	w.owned = map[string]bool{}
	for _, root := range paths {
		abs, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		// A root that is neither a folder nor a regular file (a named
		// pipe: opening it would block) is the Claude Code walk's to
		// report, never an agent's to read.
		if st, err := os.Stat(abs); err != nil || !st.IsDir() && !st.Mode().IsRegular() {
			continue
		}
		for _, ag := range agents.All {
			if ag.Find == nil {
				continue
			}
			// An agent left out still claims its files: they are never
			// read as Claude Code's.
			skip := only != nil && !only[ag.Key]
			fs, err := ag.Find(abs)
			if err != nil {
				continue // the Claude Code walk reports unreadable roots
			}
			for _, f := range fs {
				if w.claimed[f.Path] {
					continue
				}
				st, err := os.Stat(f.Path)
				if err != nil && !skip {
					continue
				}
				w.claimed[f.Path] = true
				w.owned[abs] = true
				if skip {
					continue
				}
				w.a.Files++
				w.a.Bytes += st.Size()
				found = append(found, &SessionFile{
					Path: f.Path, Folder: filepath.Dir(f.Path), Size: st.Size(), Info: st,
					FirstCWD: f.Project, SessionID: f.ID, ID: f.ID, FirstTime: f.Start,
					Agent: ag.Key, ParentSession: f.Parent, SubAgent: f.SubAgent,
				})
			}
		}
	}
	return found
}

// notClaude drops what the Claude Code walk found under a root another
// agent owns that holds no Claude Code record (a Codex home's
// history.jsonl, say).
func notClaude(s *SessionFile, owned map[string]bool) bool {
	if s.SessionID != "" || s.FirstUUID != "" || s.FirstCWD != "" {
		return false
	}
	for root := range owned {
		if s.Path == root || strings.HasPrefix(s.Path, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
