package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ccsite/build/archive"
	"ccsite/build/session"
	"github.com/rogpeppe/go-internal/txtar"
)

// The layout tests write a projects tree from testdata/layouts/*.txtar into
// a temporary folder and run it through archive.Discover and Load, as the
// site build does.

// loadLayout discovers and loads the tree of testdata/layouts/<name>.txtar.
func loadLayout(t *testing.T, name string) (string, *archive.Archive, []Loaded) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "layouts", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := txtar.Write(ar, dir); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "projects")
	a, loaded := discoverLoad(t, root)
	return root, a, loaded
}

func discoverLoad(t *testing.T, roots ...string) (*archive.Archive, []Loaded) {
	t.Helper()
	ctx := context.Background()
	a, err := archive.Discover(ctx, roots)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	var loaded []Loaded
	err = Load(ctx, a, LoadOptions{Workers: 2}, func(l Loaded) error {
		if l.Err != nil {
			t.Errorf("load %v: %v", l.File, l.Err)
		}
		loaded = append(loaded, l)
		return nil
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return a, loaded
}

// split separates loaded main sessions from orphan agents.
func split(loaded []Loaded) (sessions, orphans []*session.Session) {
	for _, l := range loaded {
		if l.File != nil {
			sessions = append(sessions, l.Session)
		} else {
			orphans = append(orphans, l.Session)
		}
	}
	return sessions, orphans
}

func agentByID(t *testing.T, s *session.Session, id string) *session.Session {
	t.Helper()
	for _, a := range s.Agents {
		if a.Agent != nil && a.Agent.AgentID == id {
			return a
		}
	}
	var ids []string
	for _, a := range s.Agents {
		ids = append(ids, a.Agent.AgentID)
	}
	t.Fatalf("session %s has no agent %s (has %v)", s.ID, id, ids)
	return nil
}

// callNamed returns the session's only call of the tool whose input
// description is desc.
func callNamed(t *testing.T, s *session.Session, desc string) *session.ToolCall {
	t.Helper()
	for _, c := range s.Tools {
		if strings.Contains(string(c.Input), `"description":"`+desc+`"`) {
			return c
		}
	}
	t.Fatalf("session %s has no call described %q", s.ID, desc)
	return nil
}

// checkLink asserts the links both ways between a parent, an agent and the
// call that ran it.
func checkLink(t *testing.T, parent, agent *session.Session, call *session.ToolCall, layout string, linkedBy ...string) {
	t.Helper()
	ai := agent.Agent
	if ai == nil {
		t.Fatalf("agent %s has no AgentInfo", agent.ID)
	}
	if !slices.Contains(parent.Agents, agent) {
		t.Errorf("parent %s does not list agent %s", parent.ID, ai.AgentID)
	}
	if ai.ParentID != parent.ID {
		t.Errorf("agent %s: ParentID = %q, want %q", ai.AgentID, ai.ParentID, parent.ID)
	}
	if ai.Layout != layout {
		t.Errorf("agent %s: Layout = %q, want %q", ai.AgentID, ai.Layout, layout)
	}
	if ai.Orphan {
		t.Errorf("agent %s attached to %s but marked orphan", ai.AgentID, parent.ID)
	}
	for _, ev := range linkedBy {
		if !slices.Contains(ai.LinkedBy, ev) {
			t.Errorf("agent %s: LinkedBy = %v, want it to hold %q", ai.AgentID, ai.LinkedBy, ev)
		}
	}
	if call == nil {
		if ai.ToolUseID != "" {
			t.Errorf("agent %s: ToolUseID = %q, want none", ai.AgentID, ai.ToolUseID)
		}
		return
	}
	if ai.ToolUseID != call.ID {
		t.Errorf("agent %s: ToolUseID = %q, want %q (%s call)", ai.AgentID, ai.ToolUseID, call.ID, call.Name)
	}
	if call.AgentID != ai.AgentID {
		t.Errorf("call %s: AgentID = %q, want %q", call.ID, call.AgentID, ai.AgentID)
	}
	if parent.Tool(call.ID) != call {
		t.Errorf("parent.Tool(%s) does not return the call", call.ID)
	}
}

func TestLoadInline(t *testing.T) {
	t.Parallel()
	_, a, loaded := loadLayout(t, "inline")
	sessions, orphans := split(loaded)
	if len(sessions) != 1 || len(orphans) != 0 || len(a.Orphans) != 0 {
		t.Fatalf("got %d sessions, %d orphans (%d in archive), want 1 and 0", len(sessions), len(orphans), len(a.Orphans))
	}
	s := sessions[0]
	if s.ID != "fe5e1c67-53e7-4862-81ae-d0e013e3270b" {
		t.Errorf("session ID = %q", s.ID)
	}
	if len(s.Agents) != 1 {
		t.Fatalf("got %d agents, want 1 inline sub-agent", len(s.Agents))
	}
	ag := s.Agents[0]
	checkLink(t, s, ag, callNamed(t, s, "Review auth errors"), archive.LayoutInline, "prompt")
	if want := s.ID + "/" + ag.Agent.AgentID; ag.ID != want {
		t.Errorf("agent ID = %q, want %q", ag.ID, want)
	}
	if ag.Agent.Description != "Review auth errors" {
		t.Errorf("agent description = %q", ag.Agent.Description)
	}
	for _, m := range s.AllMessages() {
		if m.Sidechain {
			t.Errorf("sidechain record at line %d left in the main conversation", m.Line)
		}
	}
	if n := len(ag.Messages); n != 4 {
		t.Errorf("agent has %d messages, want 4 (prompt, Read call, result, answer)", n)
	}
	if got := s.Stats.Tokens.Output; got != 90+30 {
		t.Errorf("main session output tokens = %d, want 120 (the agent's are its own)", got)
	}
}

func TestLoadLegacy(t *testing.T) {
	t.Parallel()
	_, a, loaded := loadLayout(t, "legacy")
	sessions, orphans := split(loaded)
	if len(sessions) != 1 || len(orphans) != 0 {
		t.Fatalf("got %d sessions and %d orphans, want 1 and 0", len(sessions), len(orphans))
	}
	sf := a.Projects[0].Sessions[0]
	if len(sf.Agents) != 2 {
		t.Fatalf("Discover gave the session %d agent files, want 2", len(sf.Agents))
	}
	for _, af := range sf.Agents {
		if af.Layout != archive.LayoutLegacy || af.LinkedBy != "sessionId" || af.ParentID != sf.ID {
			t.Errorf("agent file %s: layout %q linked by %q parent %q", filepath.Base(af.Path), af.Layout, af.LinkedBy, af.ParentID)
		}
	}
	s := sessions[0]
	if len(s.Agents) != 2 {
		t.Fatalf("session has %d agents, want 2", len(s.Agents))
	}
	work := agentByID(t, s, "a7fec9a")
	checkLink(t, s, work, callNamed(t, s, "Find retry config"), archive.LayoutLegacy, "sessionId", "toolUseResult")
	if work.ID != "agent-a7fec9a" {
		t.Errorf("agent ID = %q, want agent-a7fec9a", work.ID)
	}
	if work.Agent.Warmup {
		t.Error("the working agent is marked Warmup")
	}
	if work.Agent.Description != "Find retry config" || work.Agent.AgentType != "Explore" {
		t.Errorf("agent description/type = %q/%q, want them from the Task call", work.Agent.Description, work.Agent.AgentType)
	}
	if len(work.Messages) == 0 || work.Messages[0].Kind != session.KindPrompt {
		t.Errorf("agent file's first message should be its prompt")
	}
	warm := agentByID(t, s, "a230b10")
	checkLink(t, s, warm, nil, archive.LayoutLegacy, "sessionId")
	if !warm.Agent.Warmup {
		t.Error("the Warmup agent is not marked Warmup")
	}
}

func TestLoadSubagents(t *testing.T) {
	t.Parallel()
	_, a, loaded := loadLayout(t, "subagents")
	sessions, orphans := split(loaded)
	if len(sessions) != 1 || len(orphans) != 0 {
		t.Fatalf("got %d sessions and %d orphans, want 1 and 0", len(sessions), len(orphans))
	}
	for _, af := range a.Projects[0].Sessions[0].Agents {
		if af.Layout != archive.LayoutSubagents || af.LinkedBy != "subagents-dir" || af.Meta == nil {
			t.Errorf("agent file %s: layout %q linked by %q meta %v", filepath.Base(af.Path), af.Layout, af.LinkedBy, af.Meta)
		}
	}
	s := sessions[0]
	if len(s.Agents) != 2 {
		t.Fatalf("session has %d agents, want 2", len(s.Agents))
	}
	if s.Agents[0].Agent.AgentID != "a5bdbc1" || s.Agents[1].Agent.AgentID != "a9cad17" {
		t.Errorf("agents in order %s, %s; want a5bdbc1, a9cad17", s.Agents[0].Agent.AgentID, s.Agents[1].Agent.AgentID)
	}
	explore := agentByID(t, s, "a5bdbc1")
	task := callNamed(t, s, "Find config loaders")
	checkLink(t, s, explore, task, archive.LayoutSubagents, "subagents-dir", "toolUseResult")
	if explore.Agent.AgentType != "Explore" || explore.Agent.Description != "Find config loaders" {
		t.Errorf("a5bdbc1 type/description = %q/%q, want them from its meta.json", explore.Agent.AgentType, explore.Agent.Description)
	}
	if task.ProgressCount != 1 {
		t.Errorf("Task call has %d progress records, want its agent_progress", task.ProgressCount)
	}
	poem := agentByID(t, s, "a9cad17")
	checkLink(t, s, poem, callNamed(t, s, "Poem about Thai green curry"), archive.LayoutSubagents, "subagents-dir", "toolUseResult")
	if poem.Agent.AgentType != "general-purpose" || poem.Agent.Description != "Poem about Thai green curry" {
		t.Errorf("a9cad17 type/description = %q/%q, want the meta's type and the call's description",
			poem.Agent.AgentType, poem.Agent.Description)
	}
	if poem.Title != "Write a short poem about Thai green curry." {
		t.Errorf("a9cad17 title = %q (%s)", poem.Title, poem.TitleSource)
	}
	refs := map[string]bool{}
	for _, r := range s.AgentRefs {
		refs[r.AgentID+" "+r.Via] = true
	}
	for _, want := range []string{"a5bdbc1 toolUseResult", "a5bdbc1 agent_progress", "a9cad17 toolUseResult"} {
		if !refs[want] {
			t.Errorf("AgentRefs lack %q: %v", want, s.AgentRefs)
		}
	}
}

func TestLoadOrphans(t *testing.T) {
	t.Parallel()
	root, a, loaded := loadLayout(t, "orphans")
	sessions, orphans := split(loaded)
	if len(sessions) != 1 {
		t.Fatalf("got %d sessions, want 1", len(sessions))
	}
	if len(a.Orphans) != 5 {
		t.Errorf("Discover found %d orphan agent files, want 5 (two to be claimed)", len(a.Orphans))
	}
	s := sessions[0]

	// Claimed by the parent's calls although their sessionId is another's.
	if len(s.Agents) != 2 {
		t.Fatalf("session has %d agents, want the 2 it claims", len(s.Agents))
	}
	byResult := agentByID(t, s, "c1a1c1a")
	checkLink(t, s, byResult, callNamed(t, s, "Pending migrations"), archive.LayoutLegacy, "toolUseResult")
	byProgress := agentByID(t, s, "b0b0b0b")
	checkLink(t, s, byProgress, callNamed(t, s, "Summarize TODOs"), archive.LayoutLegacy, "agent_progress")

	// The rest are orphans, each loaded once, in path order.
	var got []string
	for _, o := range orphans {
		if o.Agent == nil {
			t.Fatalf("orphan %s has no AgentInfo", o.ID)
		}
		got = append(got, o.Agent.AgentID)
		if !o.Agent.Orphan {
			t.Errorf("orphan %s not marked Orphan", o.Agent.AgentID)
		}
		if len(o.Messages) == 0 {
			t.Errorf("orphan %s loaded without messages", o.Agent.AgentID)
		}
	}
	if want := []string{"dead002", "dead001", "feed003"}; !slices.Equal(got, want) {
		t.Fatalf("orphans = %v, want %v", got, want)
	}
	layouts := map[string]string{}
	projects := map[string]*archive.Project{}
	for _, l := range loaded {
		if l.File == nil {
			layouts[l.Session.Agent.AgentID] = l.Session.Agent.Layout
			projects[l.Session.Agent.AgentID] = l.Project
		}
	}
	if layouts["dead001"] != archive.LayoutLegacy || layouts["dead002"] != archive.LayoutSubagents {
		t.Errorf("orphan layouts = %v", layouts)
	}
	if p := projects["dead001"]; p == nil || p.Path != "/home/u/app" || p != projects["dead002"] {
		t.Errorf("orphans of -home-u-app should be in the /home/u/app project, got %+v and %+v", projects["dead001"], projects["dead002"])
	}
	if p := projects["feed003"]; p == nil || !p.FromFolder || p.Path != filepath.Join(root, "other") || p.Name != "other" {
		t.Errorf("orphan without cwd or session: project %+v, want folder %s named other", p, filepath.Join(root, "other"))
	}
	if o := orphans[2]; !o.Agent.Warmup {
		t.Error("feed003 (Warmup) not marked Warmup")
	}
	// Every agent file is accounted for once.
	files := 0
	for _, p := range a.Projects {
		for _, sf := range p.Sessions {
			files += len(sf.Agents)
		}
	}
	files += len(a.Orphans)
	if attached := len(s.Agents); attached+len(orphans) != files {
		t.Errorf("%d agent files, but %d attached + %d orphans", files, attached, len(orphans))
	}
}

func TestLoadAgentOrder(t *testing.T) {
	t.Parallel()
	_, _, loaded := loadLayout(t, "order")
	sessions, orphans := split(loaded)
	if len(sessions) != 1 || len(orphans) != 0 {
		t.Fatalf("got %d sessions and %d orphans, want 1 and 0", len(sessions), len(orphans))
	}
	s := sessions[0]
	var got []string
	for _, a := range s.Agents {
		got = append(got, a.Agent.AgentID)
	}
	for i, c := range s.Tools {
		if c.AgentID == "" || i >= len(s.Agents) || s.Agents[i].Agent.ToolUseID != c.ID {
			t.Fatalf("agents %v are not in the order of their calls", got)
		}
	}
	if want := []string{"af00f06", "a31c0de", "a0b1c2d"}; !slices.Equal(got, want) {
		t.Errorf("agents = %v, want %v (order of the calls that ran them)", got, want)
	}
}

// TestLoadClaimDeterministic: two sessions of one folder name the same orphan
// agent file (a resumed session copies the call that ran it). Exactly one
// may claim it, and which one must not depend on scheduling.
func TestLoadClaimDeterministic(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "projects", "-home-u-app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const agentID = "c1a1c1a"
	// The first session in path order is large, so it parses slowly.
	write := func(name string, lines []string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := "0aaaaaaa-1111-4111-8111-111111111111"
	second := "0bbbbbbb-2222-4222-8222-222222222222"
	write(first+".jsonl", taskSession(first, agentID, 1500))
	write(second+".jsonl", taskSession(second, agentID, 0))
	write("agent-"+agentID+".jsonl", []string{
		`{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":"/home/u/app","sessionId":"9fffffff-9999-4999-8999-999999999999","version":"2.0.76","agentId":"c1a1c1a","type":"user","message":{"role":"user","content":"Check which migrations are pending."},"uuid":"5a000001-0000-4000-8000-000000000001","timestamp":"2026-01-21T15:30:04.000Z"}`,
		`{"parentUuid":"5a000001-0000-4000-8000-000000000001","isSidechain":true,"userType":"external","cwd":"/home/u/app","sessionId":"9fffffff-9999-4999-8999-999999999999","version":"2.0.76","agentId":"c1a1c1a","message":{"model":"claude-opus-4-5-20251101","id":"msg_01AgentAnswer","type":"message","role":"assistant","content":[{"type":"text","text":"0007 and 0008 are pending."}],"usage":{"input_tokens":4,"output_tokens":9}},"type":"assistant","uuid":"5a000002-0000-4000-8000-000000000002","timestamp":"2026-01-21T15:30:06.000Z"}`,
	})
	root := filepath.Dir(dir)
	claimer := func(workers int) string {
		a, err := archive.Discover(context.Background(), []string{root})
		if err != nil {
			t.Fatal(err)
		}
		var who []string
		orphans := 0
		err = Load(context.Background(), a, LoadOptions{Workers: workers}, func(l Loaded) error {
			if l.File == nil {
				orphans++
				return nil
			}
			for _, ag := range l.Session.Agents {
				if ag.Agent.AgentID == agentID {
					who = append(who, l.Session.ID)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(who)+orphans != 1 {
			t.Fatalf("workers=%d: agent claimed by %v and loaded as %d orphans; want exactly once", workers, who, orphans)
		}
		if len(who) == 0 {
			return "(orphan)"
		}
		return who[0]
	}
	got1 := claimer(1)
	for i := 0; i < 3; i++ {
		if got := claimer(2); got != got1 {
			t.Fatalf("which session claims an orphan agent named by two sessions depends on scheduling: %s with 1 worker, %s with 2", got1, got)
		}
	}
	if got1 != first {
		t.Errorf("claimed by %s, want the first session in archive order (%s)", got1, first)
	}
}

// taskSession is a 2.0.x session whose Task call ran agentID, after pad
// prompt/answer pairs.
func taskSession(sid, agentID string, pad int) []string {
	var lines []string
	parent := "null"
	n := 0
	rec := func(kind, body string) {
		n++
		uuid := fmt.Sprintf("%s-%04x-4000-8000-%012x", sid[:8], n, n)
		p := parent
		if p != "null" {
			p = `"` + p + `"`
		}
		lines = append(lines, fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"%s","version":"2.0.76","gitBranch":"main","type":"%s",%s,"uuid":"%s","timestamp":"2026-01-21T%02d:%02d:%02d.000Z"}`,
			p, sid, kind, body, uuid, 10+n/3600%10, n/60%60, n%60))
		parent = uuid
	}
	for i := 0; i < pad; i++ {
		rec("user", fmt.Sprintf(`"message":{"role":"user","content":"Step %d: rename the next handler and keep the tests green."}`, i))
		rec("assistant", fmt.Sprintf(`"message":{"model":"claude-opus-4-5-20251101","id":"msg_01Pad%d","type":"message","role":"assistant","content":[{"type":"text","text":"Renamed handler %d; tests pass."}],"usage":{"input_tokens":5,"output_tokens":7}}`, i, i))
	}
	rec("user", `"message":{"role":"user","content":"Check pending migrations with an agent"}`)
	rec("assistant", `"message":{"model":"claude-opus-4-5-20251101","id":"msg_01Task","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01TaskMigrations","name":"Task","input":{"description":"Pending migrations","prompt":"Check which migrations are pending.","subagent_type":"general-purpose"}}],"usage":{"input_tokens":5,"output_tokens":40}}`)
	rec("user", `"message":{"role":"user","content":[{"tool_use_id":"toolu_01TaskMigrations","type":"tool_result","content":[{"type":"text","text":"0007 and 0008 are pending."}]}]},"toolUseResult":{"status":"completed","prompt":"Check which migrations are pending.","agentId":"`+agentID+`","content":[{"type":"text","text":"0007 and 0008 are pending."}],"totalDurationMs":2000,"totalTokens":900,"totalToolUseCount":0}`)
	return lines
}

// TestLoadStops: an error from fn ends Load with that error, and no call
// follows; a canceled context ends it too.
func TestLoadStops(t *testing.T) {
	t.Parallel()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "layouts", "orphans.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := txtar.Write(ar, dir); err != nil {
		t.Fatal(err)
	}
	a, err := archive.Discover(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	calls := 0
	err = Load(context.Background(), a, LoadOptions{Workers: 2}, func(Loaded) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Load returned %v after %d calls, want the callback's error after 1", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	err = Load(ctx, a, LoadOptions{Workers: 2}, func(Loaded) error { calls++; return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a canceled context returned %v after %d calls, want context.Canceled", err, calls)
	}
}
