package render

import (
	"html/template"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"ccsite/build/link"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// TaskNote is a background task's or shell's notification as one line:
// what happened (its summary), its status, exit code, what it spent and
// its output file; its result (an agent's report) and the rest collapsed.
type TaskNote struct {
	Label   string
	Icon    string
	Level   string // "", "warn", "error"
	Summary string
	// Call links the tool call that started the task, on this page.
	Call string
	// Facts are the short figures after the summary ("exit 0", "48,210
	// tokens", "17 tool uses", "3m 04s").
	Facts []string
	// OutputFile is the task's output file; OutputName its base name.
	OutputFile, OutputName string
	Result                 template.HTML
	Chars                  int
	Open                   bool
	// Note is Claude Code's note to the model about the task, Fields its
	// ids and any other tag, Rest text outside the tags: in "details".
	Note   string
	Fields []NameValue
	Rest   string
}

// reSummaryExit is the exit code a summary ends with.
var reSummaryExit = regexp.MustCompile(`\s*(?:\(exit code -?\d+\)|with exit code -?\d+)\.?$`)

// taskNote reads one <task-notification> or <bash-notification> body.
func (c *viewCtx) taskNote(tag, body string) TaskNote {
	f := session.ParseNotice(body)
	n := TaskNote{Label: "background task", Icon: "•", Summary: f.Summary, Note: f.Note, Rest: f.Rest,
		OutputFile: f.OutputFile}
	if tag == session.TagBashNotification {
		n.Label = "background shell"
	}
	if n.OutputFile != "" {
		n.OutputName = path.Base(strings.ReplaceAll(n.OutputFile, `\`, "/"))
	}
	switch strings.ToLower(f.Status) {
	case "completed", "success", "done":
		n.Icon = "✓"
	case "failed", "error":
		n.Icon, n.Level = "✗", "error"
	case "killed", "stopped", "cancelled", "paused":
		n.Icon, n.Level = "■", "warn"
	}
	if n.Summary == "" {
		n.Summary = strings.TrimSpace(strings.Join([]string{"Task", f.TaskID, f.Status}, " "))
	} else if f.Status != "" && !strings.Contains(strings.ToLower(n.Summary), strings.ToLower(f.Status)) {
		n.Facts = append(n.Facts, f.Status)
	}
	if f.ExitCode != "" {
		// "completed (exit code 0)" reads "completed · exit 0".
		n.Summary = strings.TrimSpace(reSummaryExit.ReplaceAllString(n.Summary, ""))
		n.Facts = append(n.Facts, "exit "+f.ExitCode)
	}
	n.Facts = append(n.Facts, usageFacts(f.Usage)...)
	n.Call = c.taskCall(f)
	for _, kv := range []NameValue{{"task id", f.TaskID}, {"tool use id", f.ToolUseID}, {"shell id", f.ShellID},
		{"agent id", f.AgentID}, {"status", f.Status}, {"output file", f.OutputFile}} {
		if kv.Value != "" {
			n.Fields = append(n.Fields, kv)
		}
	}
	for _, kv := range f.Other {
		n.Fields = append(n.Fields, NameValue{strings.ReplaceAll(kv.Name, "-", " "), kv.Value})
	}
	if f.Result != "" {
		n.Result = c.b.MD.Markdown(f.Result)
		n.Chars = runes(f.Result)
		n.Open = n.Chars < 400
	}
	return n
}

// taskCall links the tool call that started a task, on this page: named
// by the notification's tool use id, else found by its task id (a
// background command's toolUseResult.backgroundTaskId, an agent's id).
func (c *viewCtx) taskCall(f session.NoticeFields) string {
	if c.s == nil {
		return ""
	}
	id := f.ToolUseID
	if id == "" || c.s.Tool(id) == nil {
		if c.taskCalls == nil {
			c.taskCalls = map[string]string{}
			for _, call := range c.s.Tools {
				var r struct {
					BackgroundTaskID string `json:"backgroundTaskId"`
				}
				if len(call.ToolUseResult) > 0 && transcript.Unmarshal(call.ToolUseResult, &r) == nil && r.BackgroundTaskID != "" {
					c.taskCalls[r.BackgroundTaskID] = call.ID
				}
				if call.AgentID != "" {
					c.taskCalls[call.AgentID] = call.ID
				}
			}
		}
		id = c.taskCalls[f.TaskID]
	}
	if id == "" || c.s.Tool(id) == nil {
		return ""
	}
	return "#" + c.pre + link.Tool(id)
}

// usageFacts spells a notification's usage: tokens, tool uses, duration;
// a figure of another name as "name value".
func usageFacts(u []session.NameValue) []string {
	var out []string
	for _, kv := range u {
		name := strings.ReplaceAll(strings.ToLower(kv.Name), "-", "_")
		n, err := strconv.ParseFloat(strings.ReplaceAll(kv.Value, ",", ""), 64)
		switch {
		case err != nil || name == "":
			out = append(out, strings.TrimSpace(strings.ReplaceAll(kv.Name, "_", " ")+" "+kv.Value))
		case strings.HasSuffix(name, "tokens"):
			out = append(out, thousands(int64(n))+" tokens")
		case name == "tool_uses":
			out = append(out, plural(int(n), "tool use"))
		case name == "duration_ms":
			out = append(out, ms(n))
		default:
			out = append(out, strings.ReplaceAll(name, "_", " ")+" "+thousands(int64(n)))
		}
	}
	return out
}

// teammate is a teammate's, agent's or session's message, credited to its
// writer; a protocol message in place of words is one line.
func (c *viewCtx) teammate(t session.Teammate) TeammateView {
	tv := TeammateView{Name: orDefault(t.ID, "teammate"), Role: "teammate", Summary: t.Summary}
	switch t.Via {
	case session.TagAgentMessage:
		tv.Role = "agent"
		if url, ok := c.agentURL[t.ID]; ok && url != "" {
			tv.URL = url
		}
		if a := c.agentNamed(t.ID); a != "" {
			tv.Name = a
		}
	case session.TagCrossSession:
		tv.Role = "session"
	}
	if t.Name != "" {
		tv.Name = t.Name
	}
	if reColor.MatchString(t.Color) {
		tv.Color = t.Color
	}
	if e, ok := session.TeamEventOf(t.Body); ok {
		teamEvent(&tv, e)
		return tv
	}
	if tv.Summary == "" && t.Via == session.TagAgentMessage {
		// A report's first line says what it is about.
		for l := range strings.SplitSeq(t.Body, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(l, "#*- ")); l != "" {
				tv.Summary = session.Excerpt(strings.Trim(l, "*"), 100)
				break
			}
		}
	}
	if t.Body != "" {
		tv.Body = c.b.MD.Markdown(t.Body)
		tv.Chars = runes(t.Body)
		tv.Open = tv.Chars < 400
	}
	return tv
}

// agentNamed is how the session's sub-agent of id is known: its
// description, else its type; "" when the session has none of that id.
func (c *viewCtx) agentNamed(id string) string {
	if c.s == nil || id == "" {
		return ""
	}
	for _, a := range c.s.Agents {
		if a.Agent == nil || a.Agent.AgentID != id {
			continue
		}
		if a.Agent.Description != "" {
			return a.Agent.Description
		}
		return a.Agent.AgentType
	}
	return ""
}

// teamEvent is a protocol message of a teammate as a line: "idle"
// (since its time) "(available)", "shutdown request (reason)".
func teamEvent(tv *TeammateView, e session.TeamEvent) {
	tv.Event = strings.ReplaceAll(strings.TrimSuffix(e.Type, "_notification"), "_", " ")
	if t, err := time.Parse(time.RFC3339, e.Timestamp); err == nil {
		tv.Since = mkTime(t)
	} else {
		tv.Since = Time{Zero: true}
	}
	var why []string
	for _, s := range []string{e.IdleReason, e.Reason, e.Summary} {
		if s = strings.TrimSpace(s); s != "" {
			why = append(why, session.Excerpt(s, 120))
		}
	}
	tv.EventWhy = strings.Join(why, "; ")
}

// framing is the text Claude Code wrote around a notification's blocks, as
// Markdown; long says it goes in a collapsed block.
func (c *viewCtx) framing(s string) (template.HTML, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	return c.b.MD.Markdown(s), runes(s) > 240 || strings.Count(s, "\n") > 3
}
