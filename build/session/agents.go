package session

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"ccsite/build/transcript"
)

// splitSidechains separates the sidechain records of a main session file
// (1.0.x inline sub-agents) into one group per sub-agent: records joined by
// parent links, or sharing an agentId. A file holding only sidechain records
// is kept whole.
func splitSidechains(recs []*transcript.Record) (main []*transcript.Record, agents [][]*transcript.Record) {
	var side []*transcript.Record
	for _, r := range recs {
		if r.IsSidechain {
			side = append(side, r)
		} else {
			main = append(main, r)
		}
	}
	if len(side) == 0 || len(main) == 0 {
		return recs, nil
	}
	idx := map[string]int{}
	for i, r := range side {
		if r.UUID != "" {
			idx[r.UUID] = i
		}
	}
	uf := newUnionFind(len(side))
	byAgent := map[string]int{}
	for i, r := range side {
		if j, ok := idx[r.ParentUUID]; ok {
			uf.union(i, j)
		} else if r.ParentUUID != "" && i > 0 {
			// Its parent is missing (a damaged line): it continues the
			// sidechain record before it rather than starting an agent.
			uf.union(i, i-1)
		}
		if r.AgentID != "" {
			if j, ok := byAgent[r.AgentID]; ok {
				uf.union(i, j)
			} else {
				byAgent[r.AgentID] = i
			}
		}
	}
	group := map[int]int{}
	for i, r := range side {
		root := uf.find(i)
		g, ok := group[root]
		if !ok {
			g = len(agents)
			group[root] = g
			agents = append(agents, nil)
		}
		agents[g] = append(agents[g], r)
	}
	return main, agents
}

// inlineAgentID names an inline sub-agent by its agentId, else by its first
// record's uuid.
func inlineAgentID(recs []*transcript.Record, i int) string {
	for _, r := range recs {
		if r.AgentID != "" {
			return r.AgentID
		}
	}
	for _, r := range recs {
		if r.UUID != "" {
			return "sidechain-" + shortID(r.UUID)
		}
	}
	return fmt.Sprintf("sidechain-%d", i+1)
}

// linkInline ties an inline sub-agent to the Task/Agent call that ran it: the
// call whose prompt is the agent's first prompt, else the latest call started
// before it that no agent claimed yet.
func linkInline(parent, a *Session) {
	first := ""
	var start = a.Start
	for _, m := range a.Messages {
		if m.Type == transcript.TypeUser && m.Kind != KindToolResult {
			first = strings.TrimSpace(m.Text())
			if start.IsZero() {
				start = m.Time
			}
			break
		}
	}
	claimed := map[string]bool{}
	for _, o := range parent.Agents {
		if o.Agent != nil && o.Agent.ToolUseID != "" {
			claimed[o.Agent.ToolUseID] = true
		}
	}
	var best *ToolCall
	for _, c := range parent.Tools {
		if !isAgentTool(c.Name) || claimed[c.ID] {
			continue
		}
		if first != "" && strings.TrimSpace(c.In().Str("prompt")) == first {
			best = c
			a.Agent.LinkedBy = append(a.Agent.LinkedBy, "prompt")
			break
		}
		if c.Use != nil && !start.IsZero() && !c.Use.Time.After(start) {
			best = c
		}
	}
	if best == nil {
		return
	}
	if len(a.Agent.LinkedBy) == 0 {
		a.Agent.LinkedBy = append(a.Agent.LinkedBy, "time")
	}
	a.Agent.ToolUseID = best.ID
	if best.AgentID == "" {
		best.AgentID = a.Agent.AgentID
	}
	describe(a, best)
}

// isAgentTool reports whether a tool runs a sub-agent.
func isAgentTool(name string) bool { return name == "Task" || name == "Agent" }

// describe fills an agent's type and description from the call's input.
func describe(a *Session, c *ToolCall) {
	in := c.In()
	if a.Agent.Description == "" {
		a.Agent.Description = in.Str("description")
	}
	if a.Agent.AgentType == "" {
		a.Agent.AgentType = in.Str("subagent_type")
	}
}

// agentIDFromPath takes the id from "agent-<id>.jsonl", else from records.
func agentIDFromPath(path string, recs []*transcript.Record) string {
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if id, ok := strings.CutPrefix(base, "agent-"); ok && id != "" {
		return id
	}
	for _, r := range recs {
		if r.AgentID != "" {
			return r.AgentID
		}
	}
	return base
}

// isWarmup reports a "Warmup" agent: its first prompt is the word Warmup.
func isWarmup(s *Session) bool {
	for _, m := range s.Messages {
		if m.Type == transcript.TypeUser {
			return strings.TrimSpace(m.Text()) == "Warmup"
		}
	}
	return false
}

// Attach makes a sub-agent session a child of parent. evidence says what
// links them ("subagents-dir", "sessionId", "toolUseResult", ...). The
// agent's call, when the parent names it, gets the agent's id and the agent
// the call's description and type.
func Attach(parent, agent *Session, evidence ...string) {
	if agent.Agent == nil {
		agent.Agent = &AgentInfo{}
	}
	agent.Agent.ParentID = parent.ID
	agent.Agent.Orphan = false
	agent.Agent.LinkedBy = append(agent.Agent.LinkedBy, evidence...)
	for _, ref := range parent.AgentRefs {
		if ref.AgentID != agent.Agent.AgentID || ref.ToolUseID == "" {
			continue
		}
		agent.Agent.ToolUseID = ref.ToolUseID
		if c := parent.Tool(ref.ToolUseID); c != nil {
			if c.AgentID == "" {
				c.AgentID = agent.Agent.AgentID
			}
			describe(agent, c)
		}
		if !contains(agent.Agent.LinkedBy, ref.Via) {
			agent.Agent.LinkedBy = append(agent.Agent.LinkedBy, ref.Via)
		}
		break
	}
	parent.Agents = append(parent.Agents, agent)
	// The description may now title an agent that had no prompt, or only
	// a weaker source (a command, an answer, a tool call).
	if agent.Agent.Description != "" {
		title(agent)
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// FromProgress rebuilds a sub-agent's conversation from the agent_progress
// records of its parent, which embed each of its messages: some archives
// keep no agent file, and the progress records are then the only copy. It
// returns nil when the parent holds no such record for agentID.
func FromProgress(parent *Session, agentID string) *Session {
	f := &transcript.File{Path: parent.Path}
	for _, m := range parent.AllMessages() {
		for _, r := range m.Records {
			if r.Type != transcript.TypeProgress || r.Data == nil || r.Data.Type != transcript.ProgressAgent ||
				r.Data.AgentID != agentID || len(r.Data.Message) == 0 {
				continue
			}
			f.Lines++
			rec, prob := transcript.DecodeLine(r.Data.Message, parent.Path, r.Line)
			if prob != nil {
				f.Problems = append(f.Problems, *prob)
				continue
			}
			rec.IsSidechain = true
			f.Records = append(f.Records, rec)
		}
	}
	if f.Lines == 0 {
		return nil
	}
	sort.SliceStable(f.Records, func(i, j int) bool { return f.Records[i].Line < f.Records[j].Line })
	a := Build(f, Options{AgentFile: true, Layout: "progress"})
	a.Agent.AgentID = agentID
	a.ID = parent.ID + "/" + agentID
	return a
}
