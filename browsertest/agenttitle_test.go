package browsertest

import (
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build"
	"ccsite/build/link"
)

// agentTitleState is every place a page names sessions and sub-agents.
type agentTitleState struct {
	H1     string   `json:"h1"`
	Title  string   `json:"title"`
	Crumbs []string `json:"crumbs"`
	Agents []string `json:"agents"` // the parent's list of sub-agents
	Hits   []string `json:"hits"`   // search results' session headings
}

const agentTitleJS = `(() => ({
	h1: document.querySelector("h1")?.textContent || "",
	title: document.title,
	crumbs: [...document.querySelectorAll(".crumbs li")].map(li => li.textContent),
	agents: [...document.querySelectorAll(".agents li a:first-child")].map(a => a.textContent),
	hits: [...document.querySelectorAll("#search-results .hit-title")].map(e => e.textContent),
}))()`

// TestAgentTitleText builds a session whose sub-agent's prompt is Markdown
// ("You are **bob**, a _careful_ reviewer. Read ` + "`main.go`" + `…"): its
// page's h1, <title> and crumbs, the parent's list of sub-agents and the
// search results all name it by the words a reader sees.
func TestAgentTitleText(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("testdata", "agenttitle"))
	if err != nil {
		t.Fatal(err)
	}
	s := extraSite(t, "agenttitle", build.Config{Paths: []string{dir}})
	const want = "You are bob, a careful reviewer. Read main.go and the notes. Steps list every problem"
	proj := link.ProjectSlug("/home/test/agenttitle")
	parent := link.Session(proj, "77777777-0000-4000-8000-000000000001")
	agent := link.Agent(proj, "77777777-0000-4000-8000-000000000001", "b0b0b0b")
	tb := newTab(t)
	s.openIn(tb)
	check := func(where string, got []string) {
		t.Helper()
		found := false
		for _, g := range got {
			if strings.ContainsAny(g, "*_`[]#") {
				t.Errorf("%s shows Markdown: %q", where, g)
			}
			found = found || strings.Contains(g, want)
		}
		if !found {
			t.Errorf("%s: %q, want one to hold %q", where, got, want)
		}
	}
	for _, scheme := range []string{"file", "http"} {
		tb.open(s.url(scheme, agent))
		st := eval[agentTitleState](tb, agentTitleJS)
		check(scheme+" agent page h1", []string{st.H1})
		check(scheme+" agent page <title>", []string{st.Title})
		check(scheme+" agent page crumbs", st.Crumbs[len(st.Crumbs)-1:])
		tb.open(s.url(scheme, parent))
		st = eval[agentTitleState](tb, agentTitleJS)
		check(scheme+" parent's sub-agents", st.Agents)
		tb.open(s.url(scheme, "search.html?q=unchecked+role:agent"))
		tb.waitFor(`ccsiteSearch.lastShown === "unchecked role:agent"`)
		hits := eval[[]string](tb, `[...document.querySelectorAll("#search-results .hit-title")].map(e => e.textContent)`)
		if len(hits) == 0 {
			t.Errorf("%s: no search result", scheme)
		}
		for _, h := range hits {
			if strings.ContainsAny(h, "*_`[]#") {
				t.Errorf("%s search result titled %q", scheme, h)
			}
		}
		tb.assertClean(scheme)
	}
}
