package build

import (
	"fmt"
	"sort"

	"ccsite/build/archive"
	"ccsite/build/link"
)

// sitePlan fixes every page's path before anything is parsed. It is never
// changed after planSite: rendering reads it from every worker.
type sitePlan struct {
	projects   []*projectPlan
	orphanPage map[*archive.AgentFile]string
	byFile     map[*archive.SessionFile]*sessionPlan
	byProj     map[*archive.Project]*projectPlan
	hist       *historyIndex // the repository's History (--git), nil without
}

type projectPlan struct {
	p        *archive.Project
	slug     string
	sessions []*sessionPlan // by start time
	// orphanPages are the pages planned for the project's orphan agents
	// (those a session claims are never written).
	orphanPages []string
}

type sessionPlan struct {
	file *archive.SessionFile
	page string
	// dir names the folder of its sub-agents' pages: the session's id,
	// made unique in its project (two files of one id, or two names a
	// redaction made alike, must not share pages).
	dir        string
	prev, next *sessionPlan
	// contIn and contFrom link continued sessions (continue.go); fork
	// marks a background fork of contFrom (same first records).
	contIn, contFrom *sessionPlan
	fork             bool
	// parent is the session another agent's session was forked from or
	// ran as a sub-agent of (archive.SessionFile.ParentSession); kids are
	// the sessions that name this one so (continue.go).
	parent *sessionPlan
	kids   []*sessionPlan
}

func planSite(a *archive.Archive) *sitePlan {
	pl := &sitePlan{byFile: map[*archive.SessionFile]*sessionPlan{}, byProj: map[*archive.Project]*projectPlan{}}
	taken := map[string]bool{}
	slugOf := func(path string) string {
		slug := link.ProjectSlug(path)
		for n := 2; taken[slug]; n++ {
			slug = fmt.Sprintf("%s-%d", link.ProjectSlug(path), n)
		}
		taken[slug] = true
		return slug
	}
	for _, p := range a.Projects {
		pp := &projectPlan{p: p, slug: slugOf(p.Path)}
		pp.planSessions(pl)
		pl.projects = append(pl.projects, pp)
		pl.byProj[p] = pp
	}
	planContinuations(pl)
	// Orphan agents may name a project no session has: plan it now, so its
	// slug is fixed (and unique) whatever order pages are rendered in.
	for _, ag := range a.Orphans {
		op := orphanProject(a, ag)
		if pl.byPath(op.Path) != nil {
			continue
		}
		pp := &projectPlan{p: op, slug: slugOf(op.Path)}
		pl.projects = append(pl.projects, pp)
		pl.byProj[op] = pp
	}
	// Each orphan agent's page, unique in its project: two agent files of
	// one id (copies in two folders of a project) get two pages. Those a
	// session claims later leave theirs unused, so no name depends on
	// which are claimed.
	pl.orphanPage = map[*archive.AgentFile]string{}
	used := map[string]bool{}
	for _, ag := range a.Orphans {
		pp := pl.byPath(orphanProject(a, ag).Path)
		page := link.Agent(pp.slug, "orphans", ag.ID)
		for n := 2; used[page]; n++ {
			page = link.Agent(pp.slug, "orphans", fmt.Sprintf("%s-%d", ag.ID, n))
		}
		used[page] = true
		pl.orphanPage[ag] = page
		pp.orphanPages = append(pp.orphanPages, page)
	}
	return pl
}

// planSessions orders a project's sessions by start and gives each its
// page, unique in the project.
func (pp *projectPlan) planSessions(pl *sitePlan) {
	files := append([]*archive.SessionFile(nil), pp.p.Sessions...)
	sort.SliceStable(files, func(i, j int) bool {
		ti, tj := files[i].FirstTime, files[j].FirstTime
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return files[i].Path < files[j].Path
	})
	used := map[string]bool{}
	for i, f := range files {
		dir := f.ID
		page := link.Session(pp.slug, dir)
		for n := 2; used[page] || used[link.Agent(pp.slug, dir, "")]; n++ {
			dir = fmt.Sprintf("%s-%d", f.ID, n)
			page = link.Session(pp.slug, dir)
		}
		used[page], used[link.Agent(pp.slug, dir, "")] = true, true
		sp := &sessionPlan{file: f, page: page, dir: dir}
		if i > 0 {
			sp.prev = pp.sessions[i-1]
			pp.sessions[i-1].next = sp
		}
		pp.sessions = append(pp.sessions, sp)
		pl.byFile[f] = sp
	}
}

func (pl *sitePlan) byPath(path string) *projectPlan {
	for _, pp := range pl.projects {
		if pp.p.Path == path {
			return pp
		}
	}
	return nil
}

// projectOf finds the plan of a loaded session's or orphan agent's
// project (an orphan's project is made anew each time it is asked for, so
// it is found by path).
func (pl *sitePlan) projectOf(p *archive.Project) *projectPlan {
	if pp := pl.byProj[p]; pp != nil {
		return pp
	}
	return pl.byPath(p.Path)
}

// pageOf is the page of a session or orphan agent.
func (pl *sitePlan) pageOf(l Loaded) string {
	if l.File != nil {
		return pl.byFile[l.File].page
	}
	return pl.orphanPage[l.Agent]
}
