package search

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"ccsite/build/agents"
	"ccsite/build/link"
	"ccsite/build/session"
)

// MaxText caps the text indexed for one document, and MaxOutput the part
// of it a tool's output may take: a multi-megabyte output is found by its
// start nearly as well as by all of it, and indexing all of it would make
// the index (and the build) several times bigger.
const (
	MaxText   = 16 << 10
	MaxOutput = 4 << 10
)

// Docs lists the searchable parts of a session's live branch, for the page
// at page (a site path): prompts, answer text, thinking, and each tool call
// with its input and output. A sub-agent's prompts and answers get the role
// "agent".
func Docs(s *session.Session, page, project string) []Doc {
	var out []Doc
	agent := s.Agent != nil
	base := Doc{Project: project, Session: s.ID, Title: s.Title, Agent: AgentKey(s.AgentName)}
	if agent && s.Agent.ParentID != "" {
		base.Session = s.Agent.ParentID
	}
	var last time.Time
	add := func(anchor, role, tool, model string, t session.Message, text string) {
		// A record without a time (the bookkeeping kinds write none) is
		// found by date as the message before it.
		if t.Time.IsZero() {
			t.Time = last
		}
		last = t.Time
		text = strings.TrimSpace(text)
		if text == "" {
			return
		}
		if agent && (role == "prompt" || role == "answer") {
			role = "agent"
		}
		d := base
		d.ID = page + "#" + anchor
		d.Role, d.Tool, d.Model, d.Time, d.Text = role, tool, model, t.Time, clip(session.StripANSI(text))
		out = append(out, d)
	}
	if s.Tag != "" && !agent {
		// The session's tag, found as "#tag" or its word.
		add("session-tag", "event", "", "", session.Message{Time: s.Start}, "#"+s.Tag+" tag "+s.Tag)
	}
	for _, m := range s.Messages {
		anchor := link.Message(m.UUID)
		switch {
		case m.Prompt || m.Kind == session.KindQueued:
			add(anchor, "prompt", "", "", *m, session.PromptText(m))
		case m.Kind == session.KindMeta && (m.PromptSource == session.PromptSourceSystem || m.PromptSource == session.PromptSourceSDK):
			// A prompt Claude Code or a program wrote: found as a prompt.
			add(anchor, "prompt", "", "", *m, m.Text())
		case len(m.Teammates) > 0 || len(m.Notices) > 0:
			// One document per teammate's message; the ids differ by a
			// suffix the page ignores.
			for i, t := range m.Teammates {
				d := len(out)
				add(anchor, "teammate", "", "", *m, strings.Join(strings.Fields(t.ID+" "+t.Name+" "+t.Summary), " ")+"\n"+t.Body)
				if len(out) > d {
					out[d].ID += fmt.Sprintf("?teammate=%d", i+1)
				}
			}
			// A background task's completion: found by its summary and
			// result.
			for i, n := range m.Notices {
				f := session.ParseNotice(n)
				d := len(out)
				add(anchor, "event", "", "", *m, strings.TrimSpace(f.Summary+"\n"+clipTo(f.Result, MaxOutput)))
				if len(out) > d && i > 0 {
					out[d].ID += fmt.Sprintf("?notice=%d", i+1)
				}
			}
		case m.Kind == session.KindSystem || m.Kind == session.KindAttachment:
			if text, ok := session.EventText(m.Record()); ok {
				if m.Kind == session.KindAttachment {
					text += "\n" + clipTo(session.AttachmentBody(m.Record().Attachment), MaxOutput)
				}
				add(anchor, "event", "", "", *m, text)
			}
		case m.Kind == session.KindAnswer:
			var text, thinking []string
			for _, b := range m.Blocks {
				switch b.Type {
				case "text":
					text = append(text, b.Text)
				case "thinking":
					thinking = append(thinking, b.Thinking)
				}
			}
			add(anchor, "answer", "", m.Model, *m, strings.Join(text, "\n\n"))
			// Thinking and answer share the message's anchor; the ids
			// differ by a suffix the page ignores.
			if th := strings.Join(thinking, "\n\n"); strings.TrimSpace(th) != "" {
				d := len(out)
				add(anchor, "thinking", "", m.Model, *m, th)
				if len(out) > d {
					out[d].ID += "?thinking"
				}
			}
			for _, id := range m.ToolUseIDs {
				if c := s.Tool(id); c != nil && c.Use == m {
					add(link.Tool(c.ID), "tool", c.Name, m.Model, *m, toolText(c))
				}
			}
		}
	}
	return out
}

// toolText is what a tool call is found by: its input's strings (the
// usual fields first, then all others, nested ones too, in key order), then
// its output.
func toolText(c *session.ToolCall) string {
	parts := c.In().Strings("description", "command", "file_path", "path", "pattern", "query", "url", "prompt",
		"old_string", "new_string", "content", "plan", "new_source", "skill")
	if c.ResultBlock != nil {
		out := c.ResultText()
		if len(out) > MaxOutput {
			out = clipTo(out, MaxOutput)
		}
		parts = append(parts, out)
	}
	return strings.Join(parts, "\n")
}

func clip(s string) string { return clipTo(s, MaxText) }

// clipTo cuts s to at most n bytes, on a character boundary.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// CommitDoc is a git commit's search document: found by its short hash
// and subject, at id (the turn that made it, or its line on the project's
// history page). Its subject is redacted text, as the page shows it.
func CommitDoc(id, project, session, title, hash, subject string, t time.Time) Doc {
	return Doc{ID: id, Project: project, Session: session, Title: title, Role: "commit", Time: t,
		Text: clip(hash + " " + subject)}
}

// AgentKey is the key (agents.All) of the agent named name, as a
// session's AgentName gives it: "claude" for Claude Code's (whose name may
// be empty), the name lower-cased for an agent ccsite does not list.
func AgentKey(name string) string {
	if name == "" {
		return agents.All[0].Key
	}
	for _, a := range agents.All {
		if a.Name == name || a.Key == name {
			return a.Key
		}
	}
	return strings.ToLower(name)
}
