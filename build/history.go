package build

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"ccsite/build/link"
	"ccsite/build/render"
	"ccsite/search"
)

// historyPage is a project's history page. A session page is
// <project>/<id>.html and its sub-agents' are under <project>/<id>/ with
// names starting "agent-": no session's page is this one.
func historyPage(slug string) string { return slug + "/history/index.html" }

// runFold is the shortest run of commits no session made that the
// history page folds into one line.
const runFold = 3

// withCommits shows on a session page's header and turns the commits the
// session made, and links its project's history page.
func (r *renderer) withCommits(v *render.SessionView, g *sessionGit, page string, pp *projectPlan) {
	v.History = link.Rel(page, historyPage(pp.slug))
	if g == nil {
		return
	}
	at := map[int]int{}
	for i, t := range v.Turns {
		at[t.Index] = i
	}
	for _, c := range g.Commits {
		cv := commitView(c, "")
		v.Commits = append(v.Commits, cv)
		if i, ok := at[c.Turn]; ok {
			cv.Turn, cv.TurnLabel = "", "" // the turn itself
			v.Turns[i].Commits = append(v.Turns[i].Commits, cv)
		}
	}
}

// commitView is a commit as pages show it; page, when set, is the page of
// the session that made it, for a link to its turn.
func commitView(c turnCommit, page string) render.CommitView {
	cv := render.CommitView{Hash: c.Hash, Short: short(c.Hash), Subject: c.Subject, URL: c.URL}
	if c.Turn > 0 {
		cv.Turn = page + "#" + link.Turn(c.Turn)
		cv.TurnLabel = fmt.Sprintf("turn %d", c.Turn)
	}
	return cv
}

// commitDocs makes a search document of each commit the session made: its
// hash and subject, found at its turn.
func (r *renderer) commitDocs(res *rendered, u *unit, page, project string) {
	if r.cfg.NoSearch || res.docsKept != "" || u.Git == nil {
		return
	}
	for _, c := range u.Git.Commits {
		id := page
		if c.Turn > 0 {
			id += "#" + link.Turn(c.Turn)
		}
		res.docs = append(res.docs, search.CommitDoc(id, project, u.Session, u.Title, short(c.Hash), c.Subject, c.Time))
	}
}

// madeBy is a commit a session of the project made.
type madeBy struct {
	c     turnCommit
	page  string // the session's page
	title string
	files []string
}

// historyView is a project's history page: its sessions and commits (the
// repository's when the site is built from one, else those its sessions'
// transcripts show), newest first.
func historyView(pp *projectPlan, units map[string]*unit, x *historyIndex, page string) *render.HistoryView {
	v := &render.HistoryView{Name: pp.p.Name, Path: pp.p.Path, ProjectURL: link.Rel(page, link.Project(pp.slug))}
	if x != nil {
		v.Repo = x.h.WebURL
	}
	ids := newFilterIDs()
	made := map[string]*madeBy{}
	var entries []timed
	for i := len(pp.sessions) - 1; i >= 0; i-- {
		sp := pp.sessions[i]
		u := units[sp.page]
		if u == nil || u.Orphan != nil || u.Overview.NoConversation() {
			continue
		}
		e := sessionEntry(u, sp.page, page, ids, made, v)
		entries = append(entries, timed{u.Overview.Start, sp.page, e})
		v.Sessions++
	}
	entries = append(entries, commitEntries(x, made, page, ids, v)...)
	sort.SliceStable(entries, func(i, j int) bool {
		if !entries[i].t.Equal(entries[j].t) {
			return entries[i].t.After(entries[j].t)
		}
		return entries[i].key < entries[j].key
	})
	v.Branches = ids.branchList()
	v.Files = ids.fileList()
	ids.number(v, entries)
	v.Entries = foldRuns(entries)
	return v
}

// timed is a history entry with its time and a tie-breaking key.
type timed struct {
	t   time.Time
	key string
	e   render.HistoryEntry
}

// sessionEntry is a session's line on the history page; it notes the
// session's commits in made, its files and turns in v's files.
func sessionEntry(u *unit, sessPage, page string, ids *filterIDs, made map[string]*madeBy, v *render.HistoryView) render.HistoryEntry {
	url := link.Rel(page, sessPage)
	row := render.RowOf(u.Overview, url)
	hs := &render.HistorySession{Anchor: "s-" + link.File(u.Session), Title: u.Title, URL: url, Start: row.Start,
		Active: row.Active, Cost: row.Cost}
	e := render.HistoryEntry{Session: hs}
	g := u.Git
	if g == nil {
		return e
	}
	hs.Branches, hs.PRs, hs.Files = g.Branches, g.PRs, len(g.Files)
	branches := slices.Clone(g.Branches)
	for _, c := range g.Commits {
		if c.Branch != "" && !slices.Contains(branches, c.Branch) {
			branches = append(branches, c.Branch)
		}
	}
	e.B = ids.branches(branches...)
	var paths []string
	rel := func(p string) string { return underRoot(u.Project, p) } // a file outside the session's folder but in its project
	for _, f := range g.Files {
		paths = append(paths, rel(f.Path))
		for _, t := range f.Turns {
			ids.touch(rel(f.Path), render.HistoryTurn{Label: fmt.Sprintf("%s · turn %d", u.Title, t), URL: url + "#" + link.Turn(t)})
		}
	}
	e.F = ids.files(paths...)
	for _, c := range g.Commits {
		hs.Commits = append(hs.Commits, commitView(c, url))
		var cf []string
		for _, f := range g.Files {
			if c.Turn == 0 || slices.Contains(f.Turns, c.Turn) {
				cf = append(cf, rel(f.Path))
			}
		}
		if made[c.Hash] == nil {
			made[c.Hash] = &madeBy{c: c, page: url, title: u.Title, files: cf}
		}
	}
	return e
}

// commitEntries are the commits' lines: the repository's, then those a
// session made that the repository does not hold.
func commitEntries(x *historyIndex, made map[string]*madeBy, page string, ids *filterIDs, v *render.HistoryView) []timed {
	var out []timed
	add := func(hc render.HistoryCommit, when time.Time, m *madeBy) {
		hc.Anchor, hc.When = "c-"+hc.Hash, render.MkTime(when)
		hc.B = ids.branches(hc.Branches...)
		if m != nil {
			hc.Session, hc.SessionURL = m.title, m.page
			hc.Turn, hc.TurnLabel = commitView(m.c, m.page).Turn, commitView(m.c, m.page).TurnLabel
			hc.F = ids.files(m.files...)
			v.Linked++
		}
		v.Commits++
		out = append(out, timed{when, hc.Hash, render.HistoryEntry{Commit: &hc}})
	}
	seen := map[string]bool{}
	if x != nil {
		for _, c := range x.h.Commits {
			seen[c.Hash] = true
			hc := render.HistoryCommit{CommitView: render.CommitView{Hash: c.Hash, Short: short(c.Hash),
				Subject: x.subject(c.Hash), URL: x.commitURL(c.Hash)}, Author: x.author(c.Hash), Branches: x.branchesOf(c.Hash)}
			add(hc, c.When, made[c.Hash])
		}
	}
	hashes := make([]string, 0, len(made))
	for h := range made {
		hashes = append(hashes, h)
	}
	sort.Strings(hashes)
	for _, h := range hashes {
		m := made[h]
		if seen[h] {
			continue
		}
		hc := render.HistoryCommit{CommitView: render.CommitView{Hash: h, Short: short(h), Subject: m.c.Subject, URL: m.c.URL}}
		if m.c.Branch != "" {
			hc.Branches = []string{m.c.Branch}
		}
		add(hc, m.c.Time, m)
	}
	return out
}

// foldRuns turns the timeline into entries, runs of runFold or more
// commits no session made folded into one.
func foldRuns(list []timed) []render.HistoryEntry {
	var out []render.HistoryEntry
	var run []render.HistoryCommit
	flush := func() {
		if len(run) >= runFold {
			out = append(out, render.HistoryEntry{Run: run})
		} else {
			for i := range run {
				out = append(out, render.HistoryEntry{Commit: &run[i]})
			}
		}
		run = nil
	}
	for _, t := range list {
		if c := t.e.Commit; c != nil && c.Session == "" {
			run = append(run, *c)
			continue
		}
		flush()
		out = append(out, t.e)
	}
	flush()
	return out
}

// filterIDs numbers the history page's branches and files, for its
// filters, and gathers each file's turns.
type filterIDs struct {
	branch map[string]bool
	file   map[string][]render.HistoryTurn
}

func newFilterIDs() *filterIDs {
	return &filterIDs{branch: map[string]bool{}, file: map[string][]render.HistoryTurn{}}
}

func (f *filterIDs) touch(path string, t render.HistoryTurn) { f.file[path] = append(f.file[path], t) }

// branches and files note names and give them back as a placeholder the
// page's ids replace once every name is known (spaced).
func (f *filterIDs) branches(names ...string) string {
	for _, n := range names {
		f.branch[n] = true
	}
	return spaced(names)
}

func (f *filterIDs) files(paths ...string) string {
	for _, p := range paths {
		if _, ok := f.file[p]; !ok {
			f.file[p] = nil
		}
	}
	return spaced(paths)
}

func spaced(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "\x00" + strings.Join(names, "\x00") + "\x00"
}

func (f *filterIDs) branchList() []string {
	out := make([]string, 0, len(f.branch))
	for b := range f.branch {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

func (f *filterIDs) fileList() []render.HistoryFile {
	out := make([]render.HistoryFile, 0, len(f.file))
	for p, turns := range f.file {
		out = append(out, render.HistoryFile{Path: p, Turns: turns})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	for i := range out {
		out[i].ID = i
	}
	return out
}

// number turns the entries' branch and file names into the numbers of
// the page's choices: " 0 3 ".
func (f *filterIDs) number(v *render.HistoryView, list []timed) {
	bIDs := make(map[string]int, len(v.Branches))
	for i, b := range v.Branches {
		bIDs[b] = i
	}
	fIDs := make(map[string]int, len(v.Files))
	for _, hf := range v.Files {
		fIDs[hf.Path] = hf.ID
	}
	num := func(s string, ids map[string]int) string {
		if s == "" {
			return ""
		}
		var b strings.Builder
		b.WriteByte(' ')
		for _, n := range strings.Split(strings.Trim(s, "\x00"), "\x00") {
			fmt.Fprintf(&b, "%d ", ids[n])
		}
		return b.String()
	}
	for i := range list {
		e := &list[i].e
		e.B, e.F = num(e.B, bIDs), num(e.F, fIDs)
		if c := e.Commit; c != nil {
			c.B, c.F = num(c.B, bIDs), num(c.F, fIDs)
		}
	}
}

// historyListPage is a project's history page (its path, and the page),
// linked back to the project page and the index; nil when the project
// has no repository (--git) and its sessions made no commit.
func historyListPage(pp *projectPlan, units map[string]*unit, x *historyIndex) (string, *render.Page) {
	page := historyPage(pp.slug)
	v := historyView(pp, units, x, page)
	if x == nil && v.Commits == 0 {
		return page, nil
	}
	return page, &render.Page{Path: page, Title: "History of " + pp.p.Name, Kind: "history",
		Crumbs: []render.Crumb{{Label: pp.p.Name, URL: v.ProjectURL}, {Label: "History"}}, Body: v}
}

// historyDocs indexes the repository's commits no session made, each
// found at its line of the history page (of the first project with
// sessions: the repository's commits are on each project's page). They
// are that page's documents, kept with a unit of their own, so the next
// build replaces them as it does a session's.
func historyDocs(x *indexer, pl *sitePlan, units map[string]*unit) {
	h := pl.hist
	var pp *projectPlan
	for _, p := range pl.projects {
		if len(p.sessions) > 0 {
			pp = p
			break
		}
	}
	if x == nil || h == nil || pp == nil {
		return
	}
	made := map[string]bool{}
	for _, u := range units {
		if u.Git != nil {
			for _, c := range u.Git.Commits {
				made[c.Hash] = true
			}
		}
	}
	page := historyPage(pp.slug)
	title := "History of " + pp.p.Name
	var docs []search.Doc
	for _, c := range h.h.Commits {
		if !made[c.Hash] {
			docs = append(docs, search.CommitDoc(page+"#c-"+c.Hash, pp.p.Path, "", title, short(c.Hash), h.subject(c.Hash), c.When))
		}
	}
	u := &unit{Title: title, Project: pp.p.Path, Files: []string{page}}
	x.send(u, page, docs)
	units[page] = u
}

// historyUnits counts the units historyDocs made: no session's, so not
// counted as sessions kept.
func historyUnits(units map[string]*unit) int {
	n := 0
	for page, u := range units {
		if u.Session == "" && u.Orphan == nil && strings.HasSuffix(page, "/history/index.html") {
			n++
		}
	}
	return n
}
