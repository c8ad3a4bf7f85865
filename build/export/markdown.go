// Package export writes sessions in formats other than HTML: Markdown for
// reading and pasting, JSON for programs.
package export

import (
	"fmt"
	"io"
	"strings"

	"ccsite/build/session"
	"ccsite/build/transcript"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Markdown writes the live branch of s as Markdown: header facts, then each
// turn's prompt, answers, thinking (as quotes), tool calls with their input
// and output in fences, and events as notes. Text from the transcript is
// written as it is, inside fences where it is code or output.
func Markdown(w io.Writer, s *session.Session, project string) error {
	mw := &mdWriter{w: w, s: s}
	mw.header(project)
	for _, t := range s.Turns {
		title := "Turn " + fmt.Sprint(t.Index)
		if !t.Start.IsZero() {
			title += " · " + t.Start.UTC().Format("2006-01-02 15:04 UTC")
		}
		mw.printf("\n## %s\n", title)
		for _, m := range s.Messages[t.First : t.Last+1] {
			mw.message(m)
		}
	}
	if len(s.Branches) > 0 {
		mw.printf("\n## Abandoned branches\n\n%d branch(es) left by rewinds or edited prompts; see the HTML page.\n", len(s.Branches))
	}
	return mw.err
}

type mdWriter struct {
	w   io.Writer
	s   *session.Session
	err error
}

func (mw *mdWriter) printf(format string, args ...any) {
	if mw.err == nil {
		_, mw.err = fmt.Fprintf(mw.w, format, args...)
	}
}

func (mw *mdWriter) header(project string) {
	s := mw.s
	mw.printf("# %s\n\n", prose(oneLine(s.Title)))
	fact := func(k, v string) {
		if v != "" {
			mw.printf("- **%s:** %s\n", k, prose(oneLine(v)))
		}
	}
	fact("Project", project)
	if s.Agent != nil {
		fact("Session", s.Agent.ParentID)
		fact("Sub-agent", strings.TrimSpace(s.Agent.AgentType+" "+s.Agent.AgentID))
	} else {
		fact("Session", s.ID)
	}
	fact("Git branch", strings.Join(s.GitBranches, ", "))
	if !s.Start.IsZero() {
		fact("Time", s.Start.UTC().Format("2006-01-02 15:04 UTC")+" → "+s.End.UTC().Format("2006-01-02 15:04 UTC"))
	}
	fact("Models", strings.Join(s.Models, ", "))
	agent := "Claude Code"
	if s.AgentName != "" {
		agent = s.AgentName
	}
	fact(agent, strings.Join(s.Versions, ", "))
	st := s.Stats
	out := fmt.Sprintf("%d out", st.Tokens.Output)
	if t := st.Tokens; t.Partial > 0 {
		// Claude Code wrote only part of some counts: a lower bound.
		rec := "records"
		if t.Partial == 1 {
			rec = "record"
		}
		out = fmt.Sprintf("≥ %d out (~%d est., %d partial %s)", t.Output, t.OutputEstimate(), t.Partial, rec)
	}
	fact("Totals", fmt.Sprintf("%d turns, %d messages, %d tool calls; tokens %d in, %s, %d cache read, %d cache write",
		st.Turns, st.Messages, st.ToolCalls, st.Tokens.Input, out, st.Tokens.CacheRead, st.Tokens.CacheWrite))
}

func (mw *mdWriter) message(m *session.Message) {
	switch m.Kind {
	case session.KindPrompt, session.KindQueued:
		who := "You"
		if m.Kind == session.KindQueued {
			who = "You (queued)"
		}
		mw.printf("\n### %s\n\n%s\n", who, prose(strings.TrimSpace(m.Text())))
		for _, b := range m.Blocks {
			if b.Type == "image" {
				mw.printf("\n_[pasted image: see the HTML page]_\n")
			}
		}
	case session.KindCommand:
		mw.printf("\n### You\n\n%s\n", code(session.PromptText(m)))
	case session.KindBashInput:
		mw.printf("\n### You (shell)\n\n")
		mw.fence("sh", "$ "+m.Command.Input)
	case session.KindBashOutput, session.KindLocalOutput:
		mw.printf("\n")
		mw.fence("", strings.TrimSpace(m.Command.Stdout+"\n"+m.Command.Stderr))
	case session.KindInterruption:
		mw.printf("\n> _%s_\n", prose(oneLine(strings.Trim(strings.TrimSpace(m.Text()), "[]"))))
	case session.KindCompactSummary:
		mw.printf("\n> **Conversation compacted.** Summary:\n>\n%s\n", quote(prose(m.Text())))
	case session.KindNotification:
		// An agent team's messages, one per teammate, and an agent's
		// report; a background task's completion as one line; the rest is
		// text Claude Code added, kept out of the reading copy.
		for _, t := range m.Teammates {
			role := "Teammate "
			switch t.Via {
			case session.TagAgentMessage:
				role = "Agent "
			case session.TagCrossSession:
				role = "Session "
			}
			who := role + prose(oneLine(strings.TrimSpace(t.ID+" "+t.Name)))
			if t.Summary != "" {
				who += " — " + prose(oneLine(t.Summary))
			}
			if e, ok := session.TeamEventOf(t.Body); ok {
				mw.printf("\n> _%s: %s_\n", who, prose(oneLine(strings.ReplaceAll(strings.TrimSuffix(e.Type, "_notification"), "_", " "))))
				continue
			}
			mw.printf("\n### %s\n\n%s\n", who, prose(t.Body))
		}
		for _, n := range m.Notices {
			if f := session.ParseNotice(n); f.Summary != "" {
				mw.printf("\n> _Background task: %s_\n", prose(oneLine(f.Summary)))
			}
		}
	case session.KindMeta:
		// Text Claude Code added: kept out of the reading copy, but for a
		// prompt Claude Code or a program wrote.
		if m.PromptSource == session.PromptSourceSystem || m.PromptSource == session.PromptSourceSDK {
			mw.printf("\n### Prompt (%s)\n\n%s\n", m.PromptSource, prose(strings.TrimSpace(m.Text())))
		}
	case session.KindAnswer, session.KindSynthetic, session.KindAPIError:
		mw.answer(m)
	case session.KindToolResult:
		for _, b := range m.Blocks {
			if b.Type == "tool_result" && mw.s.Tool(b.ToolUseID) == nil {
				mw.printf("\n**Result of an unknown call** %s\n\n", code(b.ToolUseID))
				mw.fence("", b.Content.Text())
			} else if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				mw.printf("\n### You\n\n%s\n", prose(strings.TrimSpace(b.Text)))
			}
		}
	case session.KindAttachment:
		if text, ok := session.EventText(m.Record()); ok {
			mw.printf("\n> _%s_\n", prose(oneLine(text)))
		}
	case session.KindSystem:
		r := m.Record()
		if session.Bookkeeping(r) {
			return // the page's full view has it; the reading copy does not
		}
		if text, ok := session.EventText(r); ok {
			mw.printf("\n> _%s_\n", prose(oneLine(text)))
			return
		}
		switch r.Subtype {
		case transcript.SubtypeCompactBoundary:
			mw.printf("\n---\n\n_Conversation compacted._\n")
		case transcript.SubtypeAPIError:
			mw.printf("\n> _API error; retried._\n")
		}
	}
}

func (mw *mdWriter) answer(m *session.Message) {
	who := "Claude"
	if mw.s != nil && mw.s.AgentName != "" {
		who = mw.s.AgentName // another agent's session (Codex)
	}
	mw.printf("\n### %s\n", prose(who))
	if m.Effort != "" {
		mw.printf("\n_Effort: %s_\n", prose(oneLine(m.Effort)))
	}
	if note := m.Attribution.String(); note != "" {
		mw.printf("\n_Attributed to %s_\n", prose(oneLine(note)))
	}
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			if t := strings.TrimSpace(b.Text); t != "" {
				mw.printf("\n%s\n", prose(t))
			}
		case "thinking":
			if t := strings.TrimSpace(b.Thinking); t != "" {
				mw.printf("\n> _Thinking:_\n>\n%s\n", quote(prose(t)))
			}
		case "tool_use", "server_tool_use":
			if c := mw.s.Tool(b.ID); c != nil {
				mw.tool(c)
			}
		}
	}
}

func (mw *mdWriter) tool(c *session.ToolCall) {
	in := c.In()
	str := in.Str
	switch c.Name {
	case "Bash":
		mw.printf("\n**Bash**%s\n\n", suffix(str("description")))
		mw.fence("sh", str("command"))
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit":
		mw.printf("\n**%s** %s\n", prose(oneLine(c.Name)), code(in.FilePath()))
		if c.Name == "Edit" {
			mw.printf("\n")
			mw.fence("diff", minusPlus(str("old_string"), str("new_string")))
		}
		if c.Name == "Write" {
			mw.printf("\n")
			mw.fence("", str("content"))
		}
	case "Task", "Agent":
		mw.printf("\n**%s**%s\n\n%s\n", prose(oneLine(c.Name)), suffix(str("description")), quote(prose(str("prompt"))))
	default:
		input := strings.TrimSpace(string(c.Input))
		if v := jsontext.Value(input); v.IsValid() {
			_ = v.Indent(jsontext.WithIndent("  "))
			input = string(v)
		}
		mw.printf("\n**%s**\n\n", prose(oneLine(c.Name)))
		mw.fence("json", input)
	}
	if c.Result != nil && c.Name != "Edit" && c.Name != "Write" {
		out := ""
		if c.ResultBlock != nil {
			out = c.ResultText()
		}
		if strings.TrimSpace(out) != "" {
			label := "Output"
			if c.IsError {
				label = "Error"
			}
			mw.printf("\n%s:\n\n", label)
			mw.fence("", out)
		}
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return " — " + prose(oneLine(s))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// fence writes text in a code fence longer than any run of backticks in
// it, straight to the export: a tool's output can be megabytes, and making
// the fenced string, then formatting it into the export, copied it twice
// (at 1 GB, 0.6 CPU-s of the exports' 2.2).
func (mw *mdWriter) fence(lang, text string) {
	if mw.err != nil {
		return
	}
	f := strings.Repeat("`", fenceLen(text))
	for _, s := range [...]string{f, lang, "\n", strings.TrimRight(text, "\n"), "\n", f, "\n"} {
		if _, mw.err = io.WriteString(mw.w, s); mw.err != nil {
			return
		}
	}
}

// fenceLen is the length of a fence longer than any run of backticks in
// text, and at least 3.
func fenceLen(text string) int {
	if !strings.Contains(text, "```") {
		return 3 // the commonest case, found by a vectorised search
	}
	n := 3
	run := 0
	// By bytes, not runes: a backtick is one byte, never part of another
	// character.
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	return n
}

func quote(s string) string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimRight(s, "\n")) {
		b.WriteString("> " + strings.TrimRight(line, "\n") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func minusPlus(old, new string) string {
	var b strings.Builder
	for l := range strings.Lines(strings.TrimRight(old, "\n")) {
		b.WriteString("-" + l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	for l := range strings.Lines(strings.TrimRight(new, "\n")) {
		b.WriteString("+" + l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// JSON writes the session model (schema ccsite.inspect/1's Session).
func JSON(w io.Writer, s *session.Session) error {
	return json.MarshalWrite(w, s, json.Deterministic(true), jsontext.AllowInvalidUTF8(true),
		jsontext.WithIndent("  "))
}
