package render_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"ccsite/templates"
)

// The helpers below turn a transcript into pages the way the site builder
// does: transcript.ReadFile → session.Build (sub-agent files attached) →
// render.Builder.Session → Templates.Page.

// testProject is the project slug every test page lives under.
const testProject = "shop"

var (
	loadOnce sync.Once
	loadTS   *render.Templates
	loadErr  error
	// One builder for every test, as a site build shares one: cached
	// highlighting must not leak between pages.
	sharedBuilder = &render.Builder{MD: markup.New(markup.NewHighlighter())}
)

func templatesForTest(t *testing.T) *render.Templates {
	t.Helper()
	loadOnce.Do(func() { loadTS, loadErr = render.Load(templates.FS) })
	if loadErr != nil {
		t.Fatalf("render.Load: %v", loadErr)
	}
	return loadTS
}

// loadSession builds the session of a transcript file, with the sub-agent
// files found beside it in <stem>/subagents/agent-<id>.jsonl attached (an
// agent-<id>.meta.json there gives its type and description).
func loadSession(t testing.TB, path string) *session.Session {
	t.Helper()
	f, err := transcript.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	s := session.Build(f, session.Options{})
	agents, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-*.jsonl"))
	for _, ap := range agents {
		af, err := transcript.ReadFile(ap)
		if err != nil {
			t.Fatalf("read %s: %v", ap, err)
		}
		a := session.Build(af, session.Options{AgentFile: true, Layout: "subagents"})
		id := strings.TrimPrefix(strings.TrimSuffix(filepath.Base(ap), ".jsonl"), "agent-")
		a.Agent.AgentID = id
		a.ID = "agent-" + id
		if data, err := os.ReadFile(strings.TrimSuffix(ap, ".jsonl") + ".meta.json"); err == nil {
			var meta struct {
				AgentType   string `json:"agentType"`
				Description string `json:"description"`
			}
			if err := json.Unmarshal(data, &meta); err != nil {
				t.Fatalf("%s: %v", ap, err)
			}
			a.Agent.AgentType, a.Agent.Description = meta.AgentType, meta.Description
		}
		session.Attach(s, a, "subagents-dir")
	}
	return s
}

// sessionPage is the path of a session's page.
func sessionPage(s *session.Session) string { return link.Session(testProject, s.ID) }

// agentPage is the path of a sub-agent's page ("" for warmups, as the site
// builder does).
func agentPage(parent, a *session.Session) string {
	if a.Agent == nil || a.Agent.Warmup {
		return ""
	}
	return link.Agent(testProject, parent.ID, a.Agent.AgentID)
}

// renderSession renders the page of session s.
func renderSession(t *testing.T, s *session.Session, project string) string {
	t.Helper()
	page := sessionPage(s)
	body := sharedBuilder.Session(s, project, render.Links{
		Page: page, Project: link.Project(testProject),
		Agent: func(a *session.Session) string { return agentPage(s, a) },
	})
	return renderPage(t, &render.Page{Path: page, Title: s.Title, Kind: "session",
		Crumbs: []render.Crumb{{Label: project, URL: link.Rel(page, link.Project(testProject))}, {Label: s.Title}}, Body: body})
}

// renderAgent renders the page of sub-agent a of session parent.
func renderAgent(t *testing.T, parent, a *session.Session, project string) string {
	t.Helper()
	page := agentPage(parent, a)
	body := sharedBuilder.Session(a, project, render.Links{
		Page: page, Project: link.Project(testProject),
		Agent:  func(*session.Session) string { return "" },
		Parent: sessionPage(parent), ParentTitle: parent.Title,
	})
	return renderPage(t, &render.Page{Path: page, Title: a.Title, Kind: "agent",
		Crumbs: []render.Crumb{{Label: parent.Title, URL: link.Rel(page, sessionPage(parent))}, {Label: a.Title}}, Body: body})
}

func renderPage(t *testing.T, p *render.Page) string {
	t.Helper()
	var buf bytes.Buffer
	if err := templatesForTest(t).Page(&buf, p); err != nil {
		t.Fatalf("render %s: %v", p.Path, err)
	}
	return buf.String()
}

// conversation cuts the part of a session page a golden holds: from the
// conversation to the end of the problems section (abandoned branches and
// warmups included), leaving out the header (dates, totals) and the source
// path, which would churn.
func conversation(t *testing.T, page string) string {
	t.Helper()
	start := strings.Index(page, `<div class="conversation">`)
	end := strings.Index(page, `<p class="source muted">`)
	if start < 0 || end < start {
		t.Fatalf("no conversation in page:\n%s", page)
	}
	return strings.TrimSpace(page[start:end]) + "\n"
}
