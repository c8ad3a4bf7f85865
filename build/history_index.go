package build

import (
	"fmt"
	"hash"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"ccsite/build/gitsrc"
	"ccsite/build/redact"
	"ccsite/build/session"
)

// historyIndex is the repository's History (--git) made ready to link
// commits and turns: commits by hash, the checkpoints of each session and
// the commits naming each checkpoint. Commit subjects and authors are
// redacted once, when first needed. A nil index (no repository) links
// nothing.
type historyIndex struct {
	h   *gitsrc.History
	red *redact.Redactor
	// bySession are the checkpoints of each session id; named the
	// commits naming each checkpoint id.
	bySession map[string][]*gitsrc.Checkpoint
	named     map[string][]*gitsrc.Commit
	byHash    map[string]*gitsrc.Commit

	once     sync.Once
	subjects map[string]string // redacted subject and author, by hash
	authors  map[string]string
	branches map[string][]string // redacted branch names, by hash
}

// newHistoryIndex indexes h; nil for no History.
func newHistoryIndex(h *gitsrc.History, red *redact.Redactor) *historyIndex {
	if h == nil {
		return nil
	}
	x := &historyIndex{h: h, red: red, bySession: map[string][]*gitsrc.Checkpoint{},
		named: map[string][]*gitsrc.Commit{}, byHash: make(map[string]*gitsrc.Commit, len(h.Commits))}
	for i := range h.Checkpoints {
		cp := &h.Checkpoints[i]
		x.bySession[cp.SessionID] = append(x.bySession[cp.SessionID], cp)
	}
	for i := range h.Commits {
		c := &h.Commits[i]
		x.byHash[c.Hash] = c
		for _, id := range c.Checkpoints {
			x.named[id] = append(x.named[id], c)
		}
	}
	return x
}

// text redacts the commits' subjects and authors, once.
func (x *historyIndex) text() {
	x.once.Do(func() {
		x.subjects = make(map[string]string, len(x.h.Commits))
		x.authors = make(map[string]string, len(x.h.Commits))
		x.branches = make(map[string][]string, len(x.h.Commits))
		names := map[string]string{}
		for _, c := range x.h.Commits {
			x.subjects[c.Hash] = x.red.String(x.file(), c.Subject)
			x.authors[c.Hash] = noEmail(x.red.String(x.file(), c.Author))
			for _, b := range c.Branches {
				if _, ok := names[b]; !ok {
					names[b] = x.red.String(x.file(), b)
				}
				x.branches[c.Hash] = append(x.branches[c.Hash], names[b])
			}
		}
	})
}

// file is what the redactor counts the History's redactions under.
func (x *historyIndex) file() string { return "git history of " + x.h.Name }

// noEmail drops what looks like an e-mail address from a name.
func noEmail(s string) string {
	f := strings.Fields(s)
	out := f[:0]
	for _, w := range f {
		if !strings.Contains(w, "@") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// subject is a commit's subject, redacted.
func (x *historyIndex) subject(hash string) string { x.text(); return x.subjects[hash] }

// author is a commit's author, redacted.
func (x *historyIndex) author(hash string) string { x.text(); return x.authors[hash] }

// branchesOf are the branches holding a commit, redacted.
func (x *historyIndex) branchesOf(hash string) []string { x.text(); return x.branches[hash] }

// resolve is the repository's commit a hash (full or abbreviated, as git
// commit prints it) names; nil when none or more than one.
func (x *historyIndex) resolve(short string) *gitsrc.Commit {
	if x == nil {
		return nil
	}
	if c := x.byHash[short]; c != nil {
		return c
	}
	var found *gitsrc.Commit
	for i := range x.h.Commits {
		if strings.HasPrefix(x.h.Commits[i].Hash, short) {
			if found != nil {
				return nil
			}
			found = &x.h.Commits[i]
		}
	}
	return found
}

// commitURL is the web address of a commit, "" when unknown.
func (x *historyIndex) commitURL(hash string) string {
	if x == nil {
		return ""
	}
	return x.h.CommitURL(hash)
}

// key writes what the pages of the session with these ids take from the
// History: its checkpoints and the commits naming them, and the web
// address. A session's page is made again when these change, and only
// then.
func (x *historyIndex) key(h hash.Hash, ids ...string) {
	if x == nil {
		return
	}
	fmt.Fprintf(h, "history %q\n", x.h.WebURL)
	for _, id := range ids {
		for _, cp := range x.bySession[id] {
			fmt.Fprintf(h, "checkpoint %q %q %q %d %q\n", cp.ID, cp.LastUUID, cp.Branch, cp.Created.UnixNano(), cp.FilesTouched)
			for _, c := range x.named[cp.ID] {
				fmt.Fprintf(h, "commit %s %q %q\n", c.Hash, c.Subject, c.Author)
			}
		}
	}
}

// sessionGit is what a session did in git, for its page and its project's
// history page: kept in the build's manifest with its unit.
type sessionGit struct {
	Branches []string            `json:"branches,omitempty"`
	PRs      []session.PRLink    `json:"prs,omitempty"`
	Commits  []turnCommit        `json:"commits,omitempty"`
	Files    []session.FileTouch `json:"files,omitempty"`
}

// turnCommit is a commit a session's turn made.
type turnCommit struct {
	Hash    string    `json:"hash"` // in full when the repository knows it
	Subject string    `json:"subject"`
	Branch  string    `json:"branch,omitempty"` // as git commit printed it
	Turn    int       `json:"turn"`
	Time    time.Time `json:"time,omitzero"`
	URL     string    `json:"url,omitempty"`
}

// short is a commit hash as git prints it.
func short(hash string) string { return hash[:min(len(hash), 7)] }

// gitOf gathers what session s did in git: the commits its transcript
// shows and those whose Entire checkpoint names it, each once, at its turn;
// the files it changed; its branches and PRs. Nil when it did none of it.
func (x *historyIndex) gitOf(s *session.Session) *sessionGit {
	g := &sessionGit{Branches: s.GitBranches, PRs: s.PRLinks, Files: s.FilesTouched()}
	at := map[string]int{} // by full hash, or as printed
	add := func(c turnCommit) {
		if i, ok := at[c.Hash]; ok {
			if g.Commits[i].Subject == "" {
				g.Commits[i].Subject = c.Subject
			}
			return
		}
		at[c.Hash] = len(g.Commits)
		g.Commits = append(g.Commits, c)
	}
	for _, c := range madeIn(s) {
		tc := turnCommit{Hash: c.Hash, Subject: c.Subject, Branch: c.Branch, Turn: c.Turn, Time: c.Time}
		if rc := x.resolve(c.Hash); rc != nil {
			tc.Hash = rc.Hash
		}
		tc.URL = x.commitURL(tc.Hash)
		add(tc)
	}
	// The tool calls name files by their full path, Entire's checkpoints
	// by their path in the repository: one name each, below the session's
	// folder.
	files := map[string][]int{}
	touch := func(p string, turns ...int) {
		ts := files[p]
		for _, t := range turns {
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
		files[p] = ts
	}
	for _, ft := range g.Files {
		touch(underRoot(s.CWD, ft.Path), ft.Turns...)
	}
	if x != nil {
		for _, id := range sessionIDs(s) {
			for _, cp := range x.bySession[id] {
				turn := checkpointTurn(s, cp)
				for _, c := range x.named[cp.ID] {
					add(turnCommit{Hash: c.Hash, Subject: x.subject(c.Hash), Branch: x.red.String(x.file(), cp.Branch), Turn: turn, Time: c.When, URL: x.commitURL(c.Hash)})
				}
				for _, f := range cp.FilesTouched {
					if turn > 0 {
						touch(underRoot(s.CWD, x.red.String(x.file(), f)), turn)
					}
				}
			}
		}
	}
	g.Files = g.Files[:0]
	for p, t := range files {
		slices.Sort(t)
		g.Files = append(g.Files, session.FileTouch{Path: p, Turns: t})
	}
	sort.Slice(g.Files, func(i, j int) bool { return g.Files[i].Path < g.Files[j].Path })
	sort.SliceStable(g.Commits, func(i, j int) bool { return g.Commits[i].Turn < g.Commits[j].Turn })
	if len(g.Commits) == 0 && len(g.Files) == 0 && len(g.PRs) == 0 && len(g.Branches) == 0 {
		return nil
	}
	return g
}

// sessionIDs are the ids a session goes by: its own, and those its
// records carry.
func sessionIDs(s *session.Session) []string {
	ids := []string{s.ID}
	for _, id := range s.SessionIDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// checkpointTurn is the turn a checkpoint was taken in: the turn of the
// last record its copy of the transcript held, else the turn running when
// it was created (the first turn when it was created before any), else
// the last turn; 0 for a session without turns.
func checkpointTurn(s *session.Session, cp *gitsrc.Checkpoint) int {
	if len(s.Turns) == 0 {
		return 0
	}
	if cp.LastUUID != "" {
		for _, m := range s.Messages {
			if m.UUID == cp.LastUUID && m.Turn > 0 {
				return m.Turn
			}
		}
	}
	if cp.Created.IsZero() {
		return s.Turns[len(s.Turns)-1].Index
	}
	turn := s.Turns[0].Index
	for _, t := range s.Turns {
		if !t.Start.IsZero() && !t.Start.After(cp.Created) {
			turn = t.Index
		}
	}
	return turn
}

// madeIn are the commits the session's transcript shows, those of its
// sub-agents included: at the turn of the call that ran the sub-agent.
func madeIn(s *session.Session) []session.Commit {
	out := s.Commits()
	for _, a := range s.Agents {
		if a.Agent == nil || a.Agent.ToolUseID == "" {
			continue
		}
		call := s.Tool(a.Agent.ToolUseID)
		if call == nil || call.Use == nil || call.Use.Turn == 0 {
			continue
		}
		for _, c := range madeIn(a) {
			c.Turn = call.Use.Turn
			out = append(out, c)
		}
	}
	return out
}

// underRoot is path p below root when it is under it (with either
// separator, as a Windows session writes them), with forward slashes;
// else p as it is.
func underRoot(root, p string) string {
	root = strings.TrimRight(root, `/\`)
	win := strings.Contains(root, `\`)
	if root == "" || len(p) <= len(root)+1 || p[:len(root)] != root && !(win && strings.EqualFold(p[:len(root)], root)) {
		return p
	}
	if c := p[len(root)]; c != '/' && c != '\\' {
		return p
	}
	rel := p[len(root)+1:]
	if win {
		rel = strings.ReplaceAll(rel, `\`, "/")
	}
	return rel
}
