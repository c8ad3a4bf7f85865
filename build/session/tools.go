package session

import (
	"bytes"
	"sort"
	"strings"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json/jsontext"
)

// allMessages returns the live branch's messages, then every branch's.
func (s *Session) allMessages() []*Message {
	out := append([]*Message(nil), s.Messages...)
	for _, b := range s.Branches {
		out = append(out, b.Messages...)
	}
	return out
}

// AllMessages returns the messages of every branch, live branch first.
func (s *Session) AllMessages() []*Message { return s.allMessages() }

// Tool returns the call with the given tool_use id, or nil.
func (s *Session) Tool(id string) *ToolCall { return s.toolIndex[id] }

// agentResult is the part of a Task/Agent toolUseResult that links agents.
type agentResult struct {
	AgentID string `json:"agentId"`
}

// resultAgent is the agentId of a toolUseResult object, as json decodes it
// into agentResult ("" when it is not one, or not a string). Every call's
// result is asked: read by the transcript's scanner (FastObject), json's
// reflection only for what that refuses. A result whose own members'
// names are neither "agentId" nor escaped (mayHaveAgent) is not read at
// all: most results are a command's or a file's text, and reading them
// whole was a sixtieth of a warm --force build.
func resultAgent(tur jsontext.Value) string {
	if len(tur) == 0 || tur[0] != '{' || !mayHaveAgent(tur) {
		return ""
	}
	if m, ok := transcript.FastObject(tur); ok {
		v := m["agentId"]
		if len(v) == 0 || v[0] != '"' && string(v) != "null" {
			return "" // json refuses another type: no agent
		}
		return RawString(v)
	}
	var ar agentResult
	if transcript.Unmarshal(tur, &ar) != nil {
		return ""
	}
	return ar.AgentID
}

// mayHaveAgent reports whether the object b may have a member of its own
// named agentId: a name of its depth that is "agentId" or has an escape.
// It finds the strings by their quotes alone (an escaped quote is preceded
// by an odd run of backslashes), at IndexByte's speed, and checks nothing
// else: on JSON that is not valid it may say anything, and json then
// refuses the result whichever it says.
func mayHaveAgent(b []byte) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			start, end := i+1, i+1
			for {
				q := bytes.IndexByte(b[end:], '"')
				if q < 0 {
					return true // no end: not JSON
				}
				end += q
				bs := 0
				for j := end - 1; j >= start && b[j] == '\\'; j-- {
					bs++
				}
				if bs%2 == 0 {
					break
				}
				end++
			}
			i = end
			if depth != 1 {
				continue
			}
			j := end + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && b[j] == ':' {
				name := b[start:end]
				if string(name) == "agentId" || bytes.IndexByte(name, '\\') >= 0 {
					return true
				}
			}
		}
	}
	return false
}

// pairTools pairs every tool_use with its tool_result, attaches progress
// records to their calls and collects the sub-agents calls name.
func pairTools(s *Session) {
	calls := map[string]*ToolCall{}
	msgs := s.allMessages()
	for _, m := range msgs {
		if m.Type != transcript.TypeAssistant {
			continue
		}
		for _, r := range m.Records {
			if r.Message == nil {
				continue
			}
			for _, b := range r.Message.Content.Blocks {
				if (b.Type != "tool_use" && b.Type != "server_tool_use") || b.ID == "" {
					continue
				}
				if _, dup := calls[b.ID]; dup {
					continue
				}
				c := &ToolCall{ID: b.ID, Name: b.Name, Input: b.Input, Use: m, UseUUID: r.UUID}
				calls[b.ID] = c
				s.Tools = append(s.Tools, c)
				m.ToolUseIDs = append(m.ToolUseIDs, b.ID)
			}
		}
		pairServerResults(m, calls)
	}
	seenRef := map[string]bool{}
	addRef := func(ref AgentRef) {
		if ref.AgentID == "" || seenRef[ref.AgentID+"\x00"+ref.Via] {
			return
		}
		seenRef[ref.AgentID+"\x00"+ref.Via] = true
		s.AgentRefs = append(s.AgentRefs, ref)
	}
	for _, m := range msgs {
		switch m.Kind {
		case KindToolResult:
			r := m.Record()
			for bi := range m.Blocks {
				b := &m.Blocks[bi]
				if b.Type != "tool_result" {
					continue
				}
				c := calls[b.ToolUseID]
				if c == nil {
					s.OrphanResults = append(s.OrphanResults, OrphanResult{ToolUseID: b.ToolUseID, UUID: m.UUID, Line: m.Line})
					continue
				}
				if c.Result != nil {
					continue
				}
				c.Result, c.ResultUUID, c.ResultBlock, c.IsError = m, m.UUID, b, b.IsError
				c.ToolUseResult = r.ToolUseResult
				if id := resultAgent(r.ToolUseResult); id != "" {
					c.AgentID = id
					addRef(AgentRef{AgentID: id, ToolUseID: c.ID, Via: "toolUseResult"})
				}
			}
		}
	}
	// Progress records anywhere (inlined or not) attach to their calls.
	for _, m := range msgs {
		for _, r := range m.Records {
			if r.Type != transcript.TypeProgress {
				continue
			}
			id := r.ParentToolUseID
			if calls[id] == nil {
				id = r.ToolUseID
			}
			if c := calls[id]; c != nil {
				c.Progress = append(c.Progress, r)
				c.ProgressCount++
			}
			if r.Data != nil && r.Data.Type == transcript.ProgressAgent && r.Data.AgentID != "" {
				addRef(AgentRef{AgentID: r.Data.AgentID, ToolUseID: r.ParentToolUseID, Via: "agent_progress"})
				if c := calls[r.ParentToolUseID]; c != nil && c.AgentID == "" {
					c.AgentID = r.Data.AgentID
				}
			}
		}
	}
	s.toolIndex = calls
	for _, c := range s.Tools {
		if c.Result == nil {
			s.Unanswered = append(s.Unanswered, c.ID)
		}
	}
	sort.Strings(s.Unanswered)
}

// IsServerResult reports whether a block type is a server tool's result
// (advisor_tool_result, web_search_tool_result, …): the answer to a
// server_tool_use in the same assistant message.
func IsServerResult(typ string) bool {
	return typ != "tool_result" && strings.HasSuffix(typ, "_tool_result")
}

// pairServerResults pairs the server_tool_use calls of an assistant message
// with the *_tool_result blocks that answer them in the same message. The
// result is in the calling message, so ResultUUID stays empty (the message
// already carries its anchor).
func pairServerResults(m *Message, calls map[string]*ToolCall) {
	for _, r := range m.Records {
		if r.Message == nil {
			continue
		}
		for bi := range r.Message.Content.Blocks {
			b := &r.Message.Content.Blocks[bi]
			if !IsServerResult(b.Type) || b.ToolUseID == "" {
				continue
			}
			c := calls[b.ToolUseID]
			if c == nil || c.Result != nil || c.Use != m {
				continue
			}
			c.Result, c.ResultBlock = m, b
			c.IsError = b.IsError || serverError(b)
		}
	}
}

// serverError reports a server tool result whose content is an error object
// ({"type": "web_search_tool_result_error", "error_code": …}).
func serverError(b *transcript.Block) bool {
	if len(b.Content.Raw) == 0 {
		return false
	}
	var v struct {
		Type string `json:"type"`
	}
	return transcript.Unmarshal(b.Content.Raw, &v) == nil && strings.HasSuffix(v.Type, "_error")
}
