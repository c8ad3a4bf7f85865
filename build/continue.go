package build

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"ccsite/build/link"
	"ccsite/build/render"
	"ccsite/build/session"
)

// Continuations: a session sent to the background ends with a continued-in
// record naming the session it goes on in; a background fork re-writes the
// whole earlier chain into the new file with the same uuids (only the
// session id differs). Both are linked both ways, "Continued in …" and
// "Continued from …", from what discovery read (the first uuid and the last
// line of each file), so every page's links are fixed by the plan.

// planContinuations links the sessions of pl: by continued-in records, then
// files of one folder beginning with the same record (uuid and time) under
// another session id (the source is the one the other's continued-in names,
// else the shorter).
func planContinuations(pl *sitePlan) {
	var all []*sessionPlan
	for _, pp := range pl.projects {
		all = append(all, pp.sessions...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].file.Path < all[j].file.Path })
	byID := map[string]*sessionPlan{}
	for _, sp := range all {
		for _, id := range []string{sp.file.ID, sp.file.SessionID} {
			if id != "" && byID[id] == nil {
				byID[id] = sp
			}
		}
	}
	link := func(from, to *sessionPlan, fork bool) {
		if from == nil || to == nil || from == to || from.contIn != nil || to.contFrom != nil {
			return
		}
		from.contIn, to.contFrom, to.fork = to, from, fork
	}
	for _, sp := range all {
		if id := sp.file.ContinuedIn; id != "" {
			link(sp, byID[id], false)
		}
	}
	planParents(all, byID)
	byUUID := map[string][]*sessionPlan{}
	var uuids []string
	for _, sp := range all {
		if u := sp.file.FirstUUID; u != "" {
			// The same record: same uuid and time, in the same folder.
			u = fmt.Sprintf("%s\x00%s\x00%d", sp.file.Folder, u, sp.file.FirstTime.UnixNano())
			if byUUID[u] == nil {
				uuids = append(uuids, u)
			}
			byUUID[u] = append(byUUID[u], sp)
		}
	}
	for _, u := range uuids {
		g := byUUID[u]
		if len(g) < 2 {
			continue
		}
		sort.SliceStable(g, func(i, j int) bool {
			a, b := g[i].file, g[j].file
			if a.ContinuedIn != "" && (a.ContinuedIn == b.SessionID || a.ContinuedIn == b.ID) {
				return true
			}
			if b.ContinuedIn != "" && (b.ContinuedIn == a.SessionID || b.ContinuedIn == a.ID) {
				return false
			}
			if a.Size != b.Size {
				return a.Size < b.Size
			}
			return a.Path < b.Path
		})
		for i := 1; i < len(g); i++ {
			a, b := g[i-1], g[i]
			if a.file.SessionID == b.file.SessionID {
				continue // a copy of one session, not a fork
			}
			if a.contIn == b {
				b.fork = true
				continue
			}
			link(a, b, true)
		}
	}
}

// continuationLinks are the Continued in / from links of sp's page.
func continuationLinks(page string, sp *sessionPlan) (in, from *render.Nav) {
	if sp.contIn != nil {
		in = navTo(page, sp.contIn, "Continued in "+shortSession(sp.contIn))
	}
	if sp.contFrom != nil {
		label := "Continued from " + shortSession(sp.contFrom)
		if sp.fork {
			label = "Continued from " + shortSession(sp.contFrom) + " (its earlier turns repeat that session)"
		}
		from = navTo(page, sp.contFrom, label)
	}
	return in, from
}

// planParents links forks and sub-agents (Codex's forked_from_id,
// parent_thread_id) with the session they name, both ways.
func planParents(all []*sessionPlan, byID map[string]*sessionPlan) {
	for _, sp := range all {
		if id := sp.file.ParentSession; id != "" {
			if p := byID[id]; p != nil && p != sp {
				sp.parent = p
				p.kids = append(p.kids, sp)
			}
		}
	}
}

// relatedLinks are the links of sp's page to the session it was forked
// from or is a sub-agent of, and to its own forks and sub-agents.
func relatedLinks(page string, sp *sessionPlan) []*render.Nav {
	var out []*render.Nav
	if p := sp.parent; p != nil {
		label := "Forked from " + shortSession(p)
		if sp.file.SubAgent {
			label = "Sub-agent of " + shortSession(p)
		}
		out = append(out, navTo(page, p, label))
	}
	for _, k := range sp.kids {
		label := "Fork: " + shortSession(k)
		if k.file.SubAgent {
			label = "Sub-agent: " + shortSession(k)
		}
		out = append(out, navTo(page, k, label))
	}
	return out
}

func shortSession(sp *sessionPlan) string {
	id := sp.file.ID
	if len(id) > 8 {
		id = id[:8]
	}
	return "session " + id
}

// continuationKey writes what of the plan beyond sp's own files its pages
// show: the sessions it continues or goes on in, its stored large outputs
// (tool-results/), by size and time, and the files of its folder left out.
func (k keyer) continuationKey(w io.Writer, sp *sessionPlan) {
	for _, n := range []*sessionPlan{sp.contIn, sp.contFrom} {
		if n != nil {
			fmt.Fprintf(w, "cont %q %q %d %t\n", n.page, n.file.ID, n.file.FirstTime.UnixNano(), sp.fork)
		} else {
			fmt.Fprintln(w, "cont -")
		}
	}
	for _, n := range append([]*sessionPlan{sp.parent}, sp.kids...) {
		if n != nil {
			fmt.Fprintf(w, "related %q %q %d %t\n", n.page, n.file.ID, n.file.FirstTime.UnixNano(), n.file.SubAgent)
		}
	}
	for _, e := range sp.file.Extras {
		if filepath.Base(filepath.Dir(e)) != "tool-results" {
			continue
		}
		if st, err := os.Stat(e); err == nil {
			fmt.Fprintf(w, "stored %q %d %d\n", e, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(w, "stored %q -\n", e)
		}
	}
	for _, sk := range sp.file.Skipped {
		fmt.Fprintf(w, "skipped %q %q\n", sk.Path, sk.Reason)
	}
}

// treeView is what a page of the agent tree shows: for the session (a
// nil), its sub-agents its own calls started; for agent a, a with the
// agents it started. The sessions are shallow copies: s itself, its
// exports and search documents keep every agent.
func treeView(s, a *session.Session) *session.Session {
	if a == nil {
		top := session.TopLevel(s)
		if len(top) == len(s.Agents) {
			return s
		}
		c := *s
		c.Agents = top
		return &c
	}
	kids := session.Children(s, a)
	if len(kids) == 0 {
		return a
	}
	c := *a
	c.Agents = append(append([]*session.Session(nil), a.Agents...), kids...)
	return &c
}

// agentCrumbs are the crumbs from the session down to agent pa (its
// ancestors first), relative to page.
func agentCrumbs(s, pa *session.Session, page string, agentPage func(*session.Session) string) []render.Crumb {
	var chain []*session.Session
	seen := map[*session.Session]bool{}
	for p := pa; p != nil && !seen[p]; p = session.ParentAgent(s, p) {
		seen[p] = true
		chain = append(chain, p)
	}
	out := make([]render.Crumb, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		p := chain[i]
		if ap := agentPage(p); ap != "" {
			out = append(out, render.Crumb{Label: p.Title, URL: link.Rel(page, ap)})
		}
	}
	return out
}
