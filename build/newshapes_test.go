package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
)

// The newer shapes of Claude Code 2.1.2xx (FORMAT.md, "Newer shapes"):
// async sub-agents, nested and workflow agents, continued sessions and
// background forks, large outputs stored beside the session. No progress
// records: every link comes from toolUseResult, the subagents layout and
// .meta.json.

const (
	nsS1   = "aaaaaaaa-0000-4000-8000-000000000001"
	nsS2   = "bbbbbbbb-0000-4000-8000-000000000002"
	nsOld  = "cccccccc-0000-4000-8000-000000000003"
	nsFork = "dddddddd-0000-4000-8000-000000000004"
)

// nsLines makes records of one file: each body a type and members; uuids
// from prefix, chained.
type nsFile struct {
	sid, prefix string
	n           int
	parent      string
	lines       []string
	minute      int
}

func (f *nsFile) rec(kind, body string) {
	f.n++
	uuid := fmt.Sprintf("%s-%04x-4000-8000-%012x", f.prefix, f.n, f.n)
	p := "null"
	if f.parent != "" {
		p = `"` + f.parent + `"`
	}
	f.lines = append(f.lines, fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"%s","version":"2.1.250","type":"%s",%s,"uuid":"%s","timestamp":"2026-05-01T10:%02d:%02d.000Z"}`,
		p, f.sid, kind, body, uuid, f.minute, f.n))
	f.parent = uuid
}

func (f *nsFile) prompt(text string) {
	f.rec("user", fmt.Sprintf(`"message":{"role":"user","content":%q}`, text))
}

func (f *nsFile) answer(text string) {
	f.rec("assistant", fmt.Sprintf(`"message":{"model":"claude-opus-5","id":"msg_%s%d","type":"message","role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":5,"output_tokens":7}}`, f.prefix, f.n, text))
}

func (f *nsFile) call(id, name, input string) {
	f.rec("assistant", fmt.Sprintf(`"message":{"model":"claude-opus-5","id":"msg_%s%d","type":"message","role":"assistant","content":[{"type":"tool_use","id":"%s","name":"%s","input":%s}],"usage":{"input_tokens":5,"output_tokens":9}}`, f.prefix, f.n, id, name, input))
}

func (f *nsFile) result(id, content, tur string) {
	body := fmt.Sprintf(`"message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":%q}]}`, id, content)
	if tur != "" {
		body += `,"toolUseResult":` + tur
	}
	f.rec("user", body)
}

func (f *nsFile) write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(f.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const nsStoredTail = "STORED-OUTPUT-LAST-LINE"

// newShapesTree writes the fixture projects tree and returns its root.
func newShapesTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "projects")
	proj := filepath.Join(root, "-home-u-app")
	sdir := filepath.Join(proj, nsS1)

	s1 := &nsFile{sid: nsS1, prefix: "aaaaaaaa"}
	s1.prompt("Survey the code with a background agent")
	s1.call("toolu_Async1", "Agent", `{"description":"Survey modules","prompt":"survey the modules","subagent_type":"Explore","run_in_background":true}`)
	s1.result("toolu_Async1", "Async agent launched successfully.\nagentId: ag1 (use this to check on it)", `{"isAsync":true,"status":"async_launched","agentId":"ag1","description":"Survey modules","prompt":"survey the modules"}`)
	s1.call("toolu_Async2", "Agent", `{"description":"Lost agent","prompt":"never written","subagent_type":"Explore"}`)
	s1.result("toolu_Async2", "Async agent launched successfully.\nagentId: agGone", `{"isAsync":true,"status":"async_launched","agentId":"agGone"}`)
	s1.call("toolu_Big", "Bash", `{"command":"cat big.log"}`)
	preview := func(id string) string {
		return "<persisted-output>\nOutput too large (60.2KB). Full output saved to: /home/u/.claude/projects/-home-u-app/" + nsS1 + "/tool-results/" + id + ".txt\n\nPreview (first 2KB):\nline 0\nline 1\n</persisted-output>"
	}
	s1.result("toolu_Big", preview("toolu_Big"), "")
	s1.call("toolu_Gone", "Read", `{"file_path":"/home/u/app/huge.json"}`)
	s1.result("toolu_Gone", preview("toolu_Gone"), "")
	s1.answer("Sent to the background.")
	s1.lines = append(s1.lines, `{"type":"continued-in","sessionId":"`+nsS1+`","continuedInSessionId":"`+nsS2+`"}`)
	s1.write(t, filepath.Join(proj, nsS1+".jsonl"))

	var big strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&big, "line %d of the stored output\n", i)
	}
	big.WriteString(nsStoredTail + "\n")
	writeFile(t, filepath.Join(sdir, "tool-results", "toolu_Big.txt"), big.String())

	// ag1: started by the session (async), starts ag2 (async).
	ag1 := &nsFile{sid: nsS1, prefix: "a1a1a1a1", minute: 1}
	ag1.prompt("survey the modules")
	ag1.call("toolu_Nested", "Agent", `{"description":"Deep dive","prompt":"dig into the parser","subagent_type":"general-purpose"}`)
	ag1.result("toolu_Nested", "Async agent launched successfully.\nagentId: ag2", `{"isAsync":true,"status":"async_launched","agentId":"ag2"}`)
	ag1.answer("SURVEY-FINAL: three modules, one parser.")
	ag1.write(t, filepath.Join(sdir, "subagents", "agent-ag1.jsonl"))
	writeFile(t, filepath.Join(sdir, "subagents", "agent-ag1.meta.json"), `{"agentType":"Explore","description":"Survey modules"}`)

	ag2 := &nsFile{sid: nsS1, prefix: "a2a2a2a2", minute: 2}
	ag2.prompt("dig into the parser")
	ag2.answer("DEEP-FINAL: the parser is fine.")
	ag2.write(t, filepath.Join(sdir, "subagents", "agent-ag2.jsonl"))
	writeFile(t, filepath.Join(sdir, "subagents", "agent-ag2.meta.json"), `{"agentType":"general-purpose","description":"Deep dive","parentAgentId":"ag1","worktreePath":"/home/u/app/.worktrees/ag2","worktreeBranch":"agent-ag2","spawnedWithWorktree":true}`)

	wf := &nsFile{sid: nsS1, prefix: "f1f1f1f1", minute: 3}
	wf.prompt("workflow step one")
	wf.answer("WORKFLOW-FINAL")
	wf.write(t, filepath.Join(sdir, "subagents", "workflows", "wf_demo01", "agent-wfa.jsonl"))
	writeFile(t, filepath.Join(sdir, "subagents", "workflows", "wf_demo01", "agent-wfa.meta.json"), `{"agentType":"workflow-subagent"}`)
	writeFile(t, filepath.Join(sdir, "subagents", "workflows", "wf_demo01", "journal.jsonl"), `{"step":1}`+"\n")

	// S2: where S1 went on.
	s2 := &nsFile{sid: nsS2, prefix: "bbbbbbbb", minute: 10}
	s2.prompt("Carry on in the background")
	s2.answer("Carried on.")
	s2.write(t, filepath.Join(proj, nsS2+".jsonl"))

	// A background fork: the new file re-writes the old chain (same
	// uuids), then goes on.
	old := &nsFile{sid: nsOld, prefix: "cccccccc", minute: 20}
	old.prompt("Start a long refactor")
	old.answer("Refactor started.")
	old.write(t, filepath.Join(proj, nsOld+".jsonl"))
	fork := &nsFile{sid: nsFork, prefix: "cccccccc", minute: 20}
	fork.prompt("Start a long refactor")
	fork.answer("Refactor started.")
	fork.prompt("Keep going")
	fork.answer("Kept going.")
	fork.write(t, filepath.Join(proj, nsFork+".jsonl"))
	return root
}

func nsSession(t *testing.T, loaded []Loaded, id string) *session.Session {
	t.Helper()
	for _, l := range loaded {
		if l.File != nil && l.File.ID == id {
			return l.Session
		}
	}
	t.Fatalf("no session %s", id)
	return nil
}

func TestNewShapesLoad(t *testing.T) {
	root := newShapesTree(t)
	a, loaded := discoverLoad(t, root)
	if len(a.Orphans) != 0 {
		t.Errorf("orphans: %v", a.Orphans)
	}
	s := nsSession(t, loaded, nsS1)

	// Async: linked by the agentId of the launch's toolUseResult.
	ag1 := agentByID(t, s, "ag1")
	if ag1.Agent.ToolUseID != "toolu_Async1" || s.Tool("toolu_Async1").AgentID != "ag1" {
		t.Errorf("ag1 call %q, call's agent %q", ag1.Agent.ToolUseID, s.Tool("toolu_Async1").AgentID)
	}
	if o := session.Outcome(ag1); !o.Finished || !strings.Contains(o.Result, "SURVEY-FINAL") {
		t.Errorf("ag1 outcome %+v", o)
	}

	// Nested: ag2's parent is ag1, run by ag1's call.
	ag2 := agentByID(t, s, "ag2")
	if ag2.Agent.ParentAgent != "ag1" || ag2.Agent.ToolUseID != "toolu_Nested" {
		t.Errorf("ag2 parent %q call %q", ag2.Agent.ParentAgent, ag2.Agent.ToolUseID)
	}
	if p := session.ParentAgent(s, ag2); p != ag1 {
		t.Errorf("ParentAgent(ag2) = %v", p)
	}
	if kids := session.Children(s, ag1); len(kids) != 1 || kids[0] != ag2 {
		t.Errorf("Children(ag1) = %d", len(kids))
	}
	for _, top := range session.TopLevel(s) {
		if top == ag2 {
			t.Error("ag2 listed at the top level")
		}
	}

	// Workflow agent attached to its session, with its workflow id.
	wfa := agentByID(t, s, "wfa")
	if wfa.Agent.WorkflowID != "wf_demo01" || wfa.Agent.ParentID != s.ID {
		t.Errorf("workflow agent: %+v", wfa.Agent)
	}

	// Stored output read; the missing one a problem at its line.
	if got := s.Tool("toolu_Big").ResultText(); !strings.Contains(got, nsStoredTail) {
		t.Errorf("stored output not read: %.100q", got)
	}
	var missing []session.Problem
	for _, p := range s.Problems {
		if p.Kind == "tool-result" {
			missing = append(missing, p)
		}
	}
	if len(missing) != 1 || !strings.Contains(missing[0].Reason, "toolu_Gone.txt") || missing[0].Line == 0 || missing[0].File != s.Path {
		t.Errorf("missing stored output problems: %+v", missing)
	}
	if !strings.Contains(s.Tool("toolu_Gone").ResultText(), "Preview") {
		t.Error("the preview of a missing stored output is not kept")
	}
}

func TestNewShapesSite(t *testing.T) {
	root := newShapesTree(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{root}, Out: out, NoSearch: true}); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			b, _ := os.ReadFile(p)
			pages[rel(out, p)] = string(b)
		}
		return nil
	})
	pageOf := func(id string) (string, string) {
		t.Helper()
		for name, body := range pages {
			if strings.HasSuffix(name, id+".html") || strings.HasSuffix(name, id+"/index.html") {
				return name, body
			}
		}
		for name := range pages {
			t.Log(name)
		}
		t.Fatalf("no page for %s", id)
		return "", ""
	}
	_, s1 := pageOf(nsS1)
	// Async card completed from the agent's file.
	if !strings.Contains(s1, "launched in the background · finished") || !strings.Contains(s1, "SURVEY-FINAL") {
		t.Error("the async call is not completed from its agent's transcript")
	}
	// An async launch whose agent file is missing stays launched, not completed.
	if strings.Count(s1, "status-background") != 1 {
		t.Error("an async launch without its agent's file is shown as completed")
	}
	// The nested agent is not listed under the session; its parent's page links it.
	if strings.Contains(s1, "agent-ag2") || strings.Contains(s1, ">ag2<") {
		t.Error("the nested agent is listed flat under the session")
	}
	_, ag1 := pageOf("ag1")
	if !strings.Contains(ag1, "Deep dive") || !strings.Contains(ag1, "DEEP-FINAL") {
		t.Error("ag1's page does not link its child or show its async result")
	}
	_, ag2 := pageOf("ag2")
	if !strings.Contains(ag2, `of <a href="agent-ag1.html">`) {
		t.Error("ag2's page does not name its parent agent")
	}
	if !strings.Contains(ag2, `href="agent-ag1.html#tool-toolu_Nested"`) {
		t.Error("ag2's page does not link the call that ran it")
	}
	// Workflow agent listed with its workflow.
	if !strings.Contains(s1, "wf_demo01") {
		t.Error("the workflow agent is not listed with its workflow")
	}
	// Stored output shown; missing one counted.
	if !strings.Contains(s1, nsStoredTail) {
		t.Error("the stored large output is not shown")
	}
	if !strings.Contains(s1, "toolu_Gone.txt") {
		t.Error("the missing stored output is not reported")
	}
	// Continuation both ways.
	_, s2 := pageOf(nsS2)
	if !strings.Contains(s1, "Continued in session bbbbbbbb") || !strings.Contains(s2, "Continued from session aaaaaaaa") {
		t.Error("continued sessions not linked both ways")
	}
	_, oldPage := pageOf(nsOld)
	_, forkPage := pageOf(nsFork)
	if !strings.Contains(oldPage, "Continued in session dddddddd") || !strings.Contains(forkPage, "Continued from session cccccccc (its earlier turns repeat") {
		t.Error("background fork not recognised")
	}
}

// TestNewShapesIncremental: updating a site after the newer shapes change
// (a stored output removed, a continued-in record gone, a nested agent's
// parent dropped from its .meta.json) equals a full build byte for byte.
func TestNewShapesIncremental(t *testing.T) {
	root := newShapesTree(t)
	site := filepath.Join(t.TempDir(), "site")
	cfg := Config{Paths: []string{root}, Out: site, JSON: true}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "-home-u-app")
	sdir := filepath.Join(proj, nsS1)
	steps := []struct {
		name   string
		change func()
	}{
		{"stored output removed", func() {
			if err := os.Remove(filepath.Join(sdir, "tool-results", "toolu_Big.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{"continued-in dropped", func() {
			p := filepath.Join(proj, nsS1+".jsonl")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			writeFile(t, p, strings.Join(lines[:len(lines)-1], "\n")+"\n")
		}},
		{"parent agent dropped", func() {
			writeFile(t, filepath.Join(sdir, "subagents", "agent-ag2.meta.json"), `{"agentType":"general-purpose"}`)
		}},
	}
	for _, st := range steps {
		st.change()
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		full := filepath.Join(t.TempDir(), "site")
		fcfg := cfg
		fcfg.Out = full
		if _, err := Run(context.Background(), fcfg); err != nil {
			t.Fatal(err)
		}
		sameSite(t, st.name, site, full)
	}
}
