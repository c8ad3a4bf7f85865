package session

import (
	"strings"
	"time"
)

// Nest links the sub-agents of s started by other sub-agents (depth ≥ 2)
// to their parent agent: the agent their .meta.json names (ParentAgent),
// else the agent whose calls name them. s.Agents stays flat (every agent
// keeps its page); Children and TopLevel read the tree. The call that ran a
// nested agent is the parent agent's, so its ToolUseID is the parent's call.
func Nest(s *Session) {
	byID := map[string]*Session{}
	for _, a := range s.Agents {
		if a.Agent != nil && a.Agent.AgentID != "" && byID[a.Agent.AgentID] == nil {
			byID[a.Agent.AgentID] = a
		}
	}
	// namedBy maps an agent id to the first other agent whose calls name it.
	namedBy := map[string]*Session{}
	for _, b := range s.Agents {
		if b.Agent == nil {
			continue
		}
		for _, ref := range b.AgentRefs {
			if ref.AgentID != b.Agent.AgentID && namedBy[ref.AgentID] == nil {
				namedBy[ref.AgentID] = b
			}
		}
	}
	for _, a := range s.Agents {
		if a.Agent == nil {
			continue
		}
		parent := byID[a.Agent.ParentAgent]
		via := "parentAgentId"
		if parent == nil || parent == a {
			parent, via = namedBy[a.Agent.AgentID], "agent-call"
		}
		if parent == nil || parent == a || loops(byID, a, parent) {
			continue
		}
		a.Agent.ParentAgent = parent.Agent.AgentID
		if !contains(a.Agent.LinkedBy, via) {
			a.Agent.LinkedBy = append(a.Agent.LinkedBy, via)
		}
		for _, ref := range parent.AgentRefs {
			if ref.AgentID != a.Agent.AgentID || ref.ToolUseID == "" {
				continue
			}
			if s.Tool(a.Agent.ToolUseID) == nil {
				// Only when the session's own calls do not run it.
				a.Agent.ToolUseID = ref.ToolUseID
			}
			if c := parent.Tool(ref.ToolUseID); c != nil {
				if c.AgentID == "" {
					c.AgentID = a.Agent.AgentID
				}
				describe(a, c)
			}
			break
		}
	}
}

// loops reports whether making parent the parent of a closes a cycle.
func loops(byID map[string]*Session, a, parent *Session) bool {
	seen := map[*Session]bool{a: true}
	for p := parent; p != nil && p.Agent != nil; p = byID[p.Agent.ParentAgent] {
		if seen[p] {
			return true
		}
		seen[p] = true
	}
	return false
}

// ParentAgent is the sub-agent of s that started a, nil when s itself did.
func ParentAgent(s, a *Session) *Session {
	if a.Agent == nil || a.Agent.ParentAgent == "" {
		return nil
	}
	for _, b := range s.Agents {
		if b != a && b.Agent != nil && b.Agent.AgentID == a.Agent.ParentAgent {
			return b
		}
	}
	return nil
}

// Children are the sub-agents of s that agent a started, in s.Agents order.
func Children(s, a *Session) []*Session {
	var out []*Session
	for _, b := range s.Agents {
		if b != a && ParentAgent(s, b) == a {
			out = append(out, b)
		}
	}
	return out
}

// TopLevel are the sub-agents of s that s's own calls started (or whose
// parent agent is not among them), in s.Agents order.
func TopLevel(s *Session) []*Session {
	var out []*Session
	for _, a := range s.Agents {
		if ParentAgent(s, a) == nil {
			out = append(out, a)
		}
	}
	return out
}

// AgentOutcome is what a sub-agent's own file says of its run: its last
// answer (the result an async launch never wrote back), how long it ran and
// its tool calls.
type AgentOutcome struct {
	Result    string
	Duration  time.Duration
	ToolCalls int
	Tokens    int64
	Finished  bool
}

// Outcome reads an agent session's outcome: Finished when its last
// message is an answer with text.
func Outcome(a *Session) AgentOutcome {
	o := AgentOutcome{ToolCalls: a.Stats.ToolCalls, Tokens: a.Stats.Tokens.Output}
	if !a.Start.IsZero() && a.End.After(a.Start) {
		o.Duration = a.End.Sub(a.Start)
	}
	for i := len(a.Messages) - 1; i >= 0; i-- {
		m := a.Messages[i]
		if m.Kind != KindAnswer {
			if m.Kind == KindToolResult || m.Kind == KindPrompt {
				break
			}
			continue
		}
		if t := strings.TrimSpace(m.Text()); t != "" {
			o.Result, o.Finished = t, true
			break
		}
		if len(m.ToolUseIDs) > 0 {
			break
		}
	}
	return o
}
