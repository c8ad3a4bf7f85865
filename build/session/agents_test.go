package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInlineAgentCorruptLine: a 1.0.x sub-agent whose Read call record was
// cut mid-string. The line is a problem, but the agent is still one agent:
// the record after the hole continues it (as in the main conversation, a
// record whose parent is missing joins the record before it).
func TestInlineAgentCorruptLine(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "sidechain-corrupt.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "sidechain-corrupt.jsonl", Options{})
	checkInvariants(t, s)
	if len(s.Problems) == 0 || s.Problems[0].Kind != "line" || s.Problems[0].Line != 6 {
		t.Errorf("problems = %+v, want the cut line 6 reported", s.Problems)
	}
	task := s.Tools[0]
	if len(s.Agents) != 1 {
		var ids []string
		for _, a := range s.Agents {
			ids = append(ids, a.Agent.AgentID+" (tool "+a.Agent.ToolUseID+")")
		}
		t.Fatalf("got %d inline agents %v, want 1", len(s.Agents), ids)
	}
	a := s.Agents[0]
	if a.Agent.ToolUseID != task.ID || task.AgentID != a.Agent.AgentID {
		t.Errorf("agent %s tool %q, call %s agent %q: not linked both ways", a.Agent.AgentID, a.Agent.ToolUseID, task.ID, task.AgentID)
	}
	var lines []int
	for _, m := range a.Messages {
		lines = append(lines, m.Line)
	}
	if want := []int{3, 4, 5, 7, 8}; !slices.Equal(lines, want) {
		t.Errorf("agent messages at lines %v, want %v", lines, want)
	}
	if !strings.HasPrefix(a.Title, "Find the slowest test") {
		t.Errorf("agent title = %q", a.Title)
	}
}

// TestAttach links an agent file's session to its parent by the parent's
// Task call, both ways, and titles an agent without a prompt by the call's
// description.
func TestAttach(t *testing.T) {
	t.Parallel()
	parentJSONL := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"0ccf1a04-1b4c-43b6-8aa5-79e41db43a68","version":"2.1.15","type":"user","message":{"role":"user","content":"Map the config loading"},"uuid":"user0001-0000-4000-8000-000000000001","timestamp":"2026-01-21T15:30:00.000Z"}
{"parentUuid":"user0001-0000-4000-8000-000000000001","isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"0ccf1a04-1b4c-43b6-8aa5-79e41db43a68","version":"2.1.15","message":{"model":"claude-opus-4-5-20251101","id":"msg_01A","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01Task","name":"Task","input":{"description":"Find config loaders","prompt":"Find every place that reads the config file.","subagent_type":"Explore"}}],"usage":{"input_tokens":10,"output_tokens":80}},"type":"assistant","uuid":"asst0001-0000-4000-8000-000000000002","timestamp":"2026-01-21T15:30:02.000Z"}
{"parentUuid":"asst0001-0000-4000-8000-000000000002","isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"0ccf1a04-1b4c-43b6-8aa5-79e41db43a68","version":"2.1.15","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01Task","type":"tool_result","content":[{"type":"text","text":"cmd/root.go"}]}]},"uuid":"rslt0001-0000-4000-8000-000000000003","timestamp":"2026-01-21T15:30:20.000Z","toolUseResult":{"status":"completed","prompt":"Find every place that reads the config file.","agentId":"a5bdbc1","totalDurationMs":18000}}
`
	parent := buildWithTimeout(t, []byte(parentJSONL), "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl", Options{})
	if len(parent.AgentRefs) != 1 || parent.AgentRefs[0] != (AgentRef{AgentID: "a5bdbc1", ToolUseID: "toolu_01Task", Via: "toolUseResult"}) {
		t.Fatalf("AgentRefs = %+v", parent.AgentRefs)
	}
	// The agent's file was left empty (a crash): nothing but its name.
	agent := buildWithTimeout(t, nil, "subagents/agent-a5bdbc1.jsonl", Options{AgentFile: true, Layout: "subagents"})
	if agent.Agent == nil || agent.Agent.AgentID != "a5bdbc1" || agent.Agent.Layout != "subagents" {
		t.Fatalf("agent info = %+v", agent.Agent)
	}
	if agent.TitleSource != "none" {
		t.Errorf("empty agent file titled %q (%s)", agent.Title, agent.TitleSource)
	}
	Attach(parent, agent, "subagents-dir")
	if !slices.Equal(agent.Agent.LinkedBy, []string{"subagents-dir", "toolUseResult"}) {
		t.Errorf("LinkedBy = %v", agent.Agent.LinkedBy)
	}
	if agent.Agent.ParentID != parent.ID || agent.Agent.ToolUseID != "toolu_01Task" || parent.Tool("toolu_01Task").AgentID != "a5bdbc1" {
		t.Errorf("links: parent %q tool %q; call agent %q", agent.Agent.ParentID, agent.Agent.ToolUseID, parent.Tool("toolu_01Task").AgentID)
	}
	if agent.Agent.Description != "Find config loaders" || agent.Agent.AgentType != "Explore" {
		t.Errorf("description/type = %q/%q, want the call's", agent.Agent.Description, agent.Agent.AgentType)
	}
	if agent.Title != "Find config loaders" {
		t.Errorf("title = %q (%s), want the call's description", agent.Title, agent.TitleSource)
	}
	if !slices.Equal(parent.Agents, []*Session{agent}) {
		t.Errorf("parent.Agents = %v", parent.Agents)
	}
}
