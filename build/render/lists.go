package render

import (
	"fmt"
	"time"

	"ccsite/build/agents"
	"ccsite/build/session"
)

// HomeView is the front page's body: what was done last across projects,
// the archive's totals, then the projects.
type HomeView struct {
	*IndexView
	// Recent are the sessions with a conversation that were active last,
	// newest first.
	Recent []RecentRow
	Totals Totals
	// CostDays and CostModels draw the archive's cost per day and by
	// model.
	CostDays, CostModels *Chart
	// Tags are the archive's tags, each with its sessions.
	Tags []TagGroup
}

// RecentRow is a session among the most recent ones of the archive.
type RecentRow struct {
	Title, URL          string
	Project, ProjectURL string
	// When is the session's last activity.
	When      Time
	WhenUnix  int64
	Active    string
	ActiveSec int64
	Messages  int
	Size      string
	Bytes     int64
	// Tag is the session's tag, "" without one.
	Tag string
	// AgentName is the coding agent's when not Claude Code (a badge).
	AgentName string
}

// Totals are the archive's figures.
type Totals struct {
	Projects, Sessions int
	// Empty counts the sessions with no conversation (among Sessions).
	Empty int
	// ActiveTime sums the sessions' active time.
	ActiveTime time.Duration
	Messages   int
	ToolCalls  int
	Tokens     int64
	// CostUSD sums the sessions' costs (CostUnknown: some not priced).
	CostUSD     float64
	CostUnknown bool
	// CostPartial: some sessions' costs are lower bounds (partial output
	// counts).
	CostPartial bool
}

// ProjectPage is a project page's body: the sessions with a conversation
// in its table, those without one (see session.Overview.NoConversation)
// listed apart.
type ProjectPage struct {
	*ProjectView
	Empty []SessionRow
	// History links the project's history page (history.go).
	History string
}

// RecentOf is a session's row among the recent sessions of the front page.
func RecentOf(o session.Overview, url, project, projectURL string) RecentRow {
	r := RecentRow{Title: o.Title, URL: url, Project: project, ProjectURL: projectURL, When: mkTime(o.End),
		Active: duration(o.Active), ActiveSec: int64(o.Active.Seconds()), Messages: o.Messages,
		Size: Size(o.Bytes), Bytes: o.Bytes, Tag: o.Tag, AgentName: o.AgentName}
	if !o.End.IsZero() {
		r.WhenUnix = o.End.Unix()
	}
	return r
}

// Add counts a session's overview in the totals (projects are counted
// apart).
func (t *Totals) Add(o session.Overview) {
	t.Sessions++
	if o.NoConversation() {
		t.Empty++
	}
	t.ActiveTime += o.Active
	t.Messages += o.Messages
	t.ToolCalls += o.ToolCalls
	t.Tokens += o.Tokens.Total()
	t.CostUSD += o.Cost
	t.CostUnknown = t.CostUnknown || o.CostUnknown
	t.CostPartial = t.CostPartial || o.CostPartial
}

// Cost is the archive's cost, spelled.
func (t Totals) Cost() string {
	return LowerBound(SpellUSD(t.CostUSD, t.CostUnknown), t.CostPartial)
}

// Active is the total active time as pages show it.
func (t Totals) Active() string { return duration(t.ActiveTime) }

// Duration is a duration as pages show it: "42s", "3m 05s", "2h 10m".
func Duration(d time.Duration) string { return duration(d) }

// Size is a file size in bytes, KB or MB (of 1024).
func Size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// AgentFacet is an agent's button above a list of sessions: pressed, the
// list shows that agent's sessions only.
type AgentFacet struct {
	// Key is the agent's key (agents.All), the rows' data-agent.
	Key, Name string
	Count     int
}

// agentKey is the key (agents.All) of an agent by its name as a session
// gives it ("" for Claude Code).
func agentKey(name string) string {
	for _, a := range agents.All {
		if a.Name == name || name == "" {
			return a.Key
		}
	}
	return name
}

// agentFacets are the facets of counts by agent name, in agents.All's
// order: none when the sessions are all one agent's.
func agentFacets(counts map[string]int) []AgentFacet {
	var out []AgentFacet
	seen := map[string]bool{}
	for _, a := range agents.All {
		n := 0
		for name, c := range counts {
			if agentKey(name) == a.Key {
				n += c
			}
		}
		seen[a.Key] = true
		if n > 0 {
			out = append(out, AgentFacet{Key: a.Key, Name: a.Name, Count: n})
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// AgentFacets are the front page's agent facets, of the recent sessions
// they filter.
func (h HomeView) AgentFacets() []AgentFacet {
	counts := map[string]int{}
	for _, r := range h.Recent {
		counts[r.AgentName]++
	}
	return agentFacets(counts)
}

// AgentFacets are a project page's agent facets (of its table's sessions).
func (p ProjectPage) AgentFacets() []AgentFacet {
	counts := map[string]int{}
	for _, r := range p.Sessions {
		counts[r.AgentName]++
	}
	return agentFacets(counts)
}

// AgentKey is the row's agent's key (agents.All), "" for Claude Code's:
// a row without data-agent is Claude Code's.
func (r SessionRow) AgentKey() string { return agentKeyOf(r.AgentName) }

// AgentKey is as SessionRow's.
func (r RecentRow) AgentKey() string { return agentKeyOf(r.AgentName) }

func agentKeyOf(name string) string {
	if name == "" {
		return ""
	}
	return agentKey(name)
}
