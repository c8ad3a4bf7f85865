package session

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"ccsite/build/transcript"
)

// classify sets m.Kind (and m.Command) from the record.
func classify(m *Message, r *transcript.Record) {
	switch r.Type {
	case transcript.TypeUser:
		classifyUser(m, r)
	case transcript.TypeAssistant:
		switch {
		case r.IsAPIErrorMessage:
			m.Kind = KindAPIError
		case m.Model == "<synthetic>":
			m.Kind = KindSynthetic
		default:
			m.Kind = KindAnswer
		}
		m.Effort, m.Attribution = r.Effort, attribution(r)
	case transcript.TypeSystem:
		m.Kind = KindSystem
	case transcript.TypeAttachment:
		m.Kind = KindAttachment
		if r.Attachment != nil && r.Attachment.Type == transcript.AttachmentQueuedCommand {
			m.Kind = KindQueued
			m.Role = "user"
			text := r.Attachment.PromptText()
			m.Blocks = []transcript.Block{{Type: "text", Text: text}}
			// A background task's completion (or another session's
			// message) delivered while Claude worked: an event of the
			// running turn, not a prompt.
			if (queuedNotice(r.Attachment) || hasNoticeTag(text)) && classifyNotice(m, strings.TrimSpace(text), false) {
				m.PromptSource = PromptSourceQueued
			}
		}
	case transcript.TypeProgress:
		m.Kind = KindProgress
	case transcript.TypePRLink, transcript.TypeContinuedIn, transcript.TypeTag, transcript.TypeEndedByModel,
		transcript.TypeIsolationLatch, transcript.TypeAttributionSnapshot, transcript.TypeObserverRef,
		transcript.TypeContextCollapseCommit, transcript.TypeContextCollapseSnap, transcript.TypeContextCollapseReset,
		transcript.TypeHistorySuppression, transcript.TypeMemoryMode:
		m.Kind = KindSystem
	default:
		m.Kind = KindUnknown
	}
	if !r.Known() && m.Kind != KindUnknown {
		m.Kind = KindUnknown
	}
}

var (
	reCommandName = tagRe("command-name")
	reCommandMsg  = tagRe("command-message")
	reCommandArgs = tagRe("command-args")
	reLocalOut    = tagRe("local-command-stdout")
	reLocalErr    = tagRe("local-command-stderr")
	reBashInput   = tagRe("bash-input")
	reBashOut     = tagRe("bash-stdout")
	reBashErr     = tagRe("bash-stderr")
	reMemory      = tagRe("user-memory-input")
	// reContext matches the context Claude Code adds around what a person
	// typed: reminders and the IDE's opened file or selection.
	reContext = regexp.MustCompile(`(?s)<(system-reminder|ide_opened_file|ide_selection)>.*?</(system-reminder|ide_opened_file|ide_selection)>`)
)

// tagRe finds <name attr="…">body</name>, as the expression
// (?s)<name(?:\s[^>]*)?>(.*?)</name> does (TestTagAsRegexp), by string
// searches: the expression's machine ran over the whole body of a tag
// that was there (a command's output), 1.4% of a --force build.
func tagRe(name string) *tagFinder {
	return &tagFinder{open: "<" + name, close: "</" + name + ">"}
}

// tagFinder finds one tag's first element (tagRe).
type tagFinder struct{ open, close string }

// find returns the body of the first element of s, by the leftmost
// opening that has one: an opening whose name runs on ("<name-x") is not
// one; the first ">" after the name closes an opening; its body ends at
// the first closing tag after it. When the first opening has no closing
// tag after it, neither has any later one (its ">" is at or after the
// first's).
func (f *tagFinder) find(s string) (string, bool) {
	for i := 0; ; {
		j := strings.Index(s[i:], f.open)
		if j < 0 {
			return "", false
		}
		k := i + j + len(f.open)
		if k < len(s) && (s[k] == '>' || isRESpace(s[k])) {
			gt := strings.IndexByte(s[k:], '>')
			if gt < 0 {
				return "", false
			}
			body := k + gt + 1
			end := strings.Index(s[body:], f.close)
			if end < 0 {
				return "", false
			}
			return s[body : body+end], true
		}
		i += j + 1
	}
}

// hasNoticeTag reports text that may hold a notice block: the block
// expression runs only on those.
func hasNoticeTag(text string) bool {
	for _, t := range []string{TagTaskNotification, TagBashNotification, TagTeammate, TagAgentMessage, TagCrossSession} {
		if strings.Contains(text, "<"+t) {
			return true
		}
	}
	return false
}

// isRESpace is \s as Go's regexp has it.
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func tag(f *tagFinder, s string) (string, bool) { return f.find(s) }

// Interruption texts Claude Code writes as user messages.
const (
	interruptedPrefix = "[Request interrupted by user"
)

func classifyUser(m *Message, r *transcript.Record) {
	m.Role = "user"
	m.PromptSource = r.PromptSource
	content := transcript.Content{Blocks: m.Blocks}
	if content.Has("tool_result") {
		m.Kind = KindToolResult
		for _, b := range m.Blocks {
			if b.Type == "tool_result" {
				m.ToolUseIDs = append(m.ToolUseIDs, b.ToolUseID)
			}
		}
		return
	}
	if r.IsCompactSummary {
		m.Kind = KindCompactSummary
		return
	}
	text := strings.TrimSpace(content.Text())
	if r.IsMeta {
		// An agent's report or a teammate's message may come marked
		// isMeta: it is still theirs.
		if !hasNoticeTag(text) || !classifyNotice(m, text, true) {
			m.Kind = KindMeta
		}
		return
	}
	if strings.HasPrefix(text, interruptedPrefix) {
		m.Kind = KindInterruption
		return
	}
	if name, ok := tag(reCommandName, text); ok {
		m.Kind = KindCommand
		c := &Command{Name: strings.TrimSpace(name)}
		c.Message, _ = tag(reCommandMsg, text)
		c.Args, _ = tag(reCommandArgs, text)
		c.Args = strings.TrimSpace(c.Args)
		m.Command = c
		return
	}
	if out, ok := tag(reLocalOut, text); ok {
		m.Kind = KindLocalOutput
		m.Command = &Command{Stdout: out}
		m.Command.Stderr, _ = tag(reLocalErr, text)
		return
	}
	if errOut, ok := tag(reLocalErr, text); ok {
		m.Kind = KindLocalOutput
		m.Command = &Command{Stderr: errOut}
		return
	}
	if in, ok := tag(reBashInput, text); ok {
		m.Kind = KindBashInput
		m.Command = &Command{Input: in}
		return
	}
	out, okOut := tag(reBashOut, text)
	errOut, okErr := tag(reBashErr, text)
	if okOut || okErr {
		m.Kind = KindBashOutput
		m.Command = &Command{Stdout: out, Stderr: errOut}
		return
	}
	if hasNoticeTag(text) && classifyNotice(m, text, false) {
		return
	}
	if note, ok := tag(reMemory, text); ok {
		// "# note" typed to save a memory: a prompt of its own.
		m.Kind = KindPrompt
		m.Command = &Command{Name: "memory", Input: strings.TrimSpace(note)}
		return
	}
	switch r.PromptSource {
	case PromptSourceSystem, PromptSourceSDK:
		// Written by Claude Code or a program, not typed: no turn opens.
		m.Kind = KindMeta
	case PromptSourceQueued:
		m.Kind = KindQueued
	default:
		m.Kind = KindPrompt
	}
}

// Prompt sources (user records' promptSource).
const (
	PromptSourceTyped  = "typed"
	PromptSourceQueued = "queued"
	PromptSourceSystem = "system"
	PromptSourceSDK    = "sdk"
)

// PromptText is what a person typed for a turn-starting message, as one line
// of plain text: "/command args", "! shell input", or the prompt without
// the reminders and IDE context Claude Code adds (kept when that is all).
func PromptText(m *Message) string {
	switch m.Kind {
	case KindCommand:
		s := m.Command.Name
		if !strings.HasPrefix(s, "/") {
			s = "/" + s
		}
		if m.Command.Args != "" {
			s += " " + m.Command.Args
		}
		return s
	case KindBashInput:
		return "! " + m.Command.Input
	case KindPrompt:
		if m.Command != nil && m.Command.Name == "memory" {
			return "# " + m.Command.Input
		}
	}
	t := strings.TrimSpace(reContext.ReplaceAllString(m.Text(), ""))
	if t == "" {
		t = m.Text()
	}
	if strings.TrimSpace(t) == "" {
		for _, b := range m.Blocks {
			if b.Type == "image" {
				return "[image]"
			}
		}
	}
	return t
}

// Excerpt collapses white space and cuts s to at most n runes, adding "…".
func Excerpt(s string, n int) string {
	// The words are joined only until they are more than n runes: a
	// title is asked of prompts and answers of any length (normalising
	// all of a long one was most of a session's titling).
	var b []byte
	runes := 0
	for f := range strings.FieldsSeq(s) {
		if len(b) > 0 {
			b = append(b, ' ')
			runes++
		}
		b = append(b, f...)
		if runes += utf8.RuneCountInString(f); runes > n {
			return strings.TrimSpace(string([]rune(string(b))[:n-1])) + "…"
		}
	}
	return string(b)
}

// markPrompts sets Prompt on the messages a person typed to open a turn. A
// record holding only context (pasted images, IDE context) written next to
// the prompt it came with, within a few seconds, is not a prompt itself.
func markPrompts(msgs []*Message) {
	for i, m := range msgs {
		m.Prompt = m.Kind.StartsTurn()
		if !m.Prompt || !contextOnly(m) {
			continue
		}
		if i+1 < len(msgs) && msgs[i+1].Kind.StartsTurn() && near(m, msgs[i+1]) ||
			i > 0 && msgs[i-1].Prompt && near(msgs[i-1], m) {
			m.Prompt = false
		}
	}
}

func near(a, b *Message) bool {
	if a.Time.IsZero() || b.Time.IsZero() {
		return true
	}
	d := a.Time.Sub(b.Time)
	return d <= 5*time.Second && d >= -5*time.Second
}

// contextOnly reports a prompt that holds no typed text: only pasted images,
// IDE context or reminders.
func contextOnly(m *Message) bool {
	return m.Kind == KindPrompt && strings.TrimSpace(reContext.ReplaceAllString(m.Text(), "")) == ""
}

// leadIn reports a message that belongs to the turn of the prompt after it:
// a context-only record that is not a prompt, or the caveat Claude Code
// writes before a local command's records.
func leadIn(m *Message) bool {
	if m.Kind == KindPrompt && !m.Prompt {
		return true
	}
	if m.Kind != KindMeta {
		return false
	}
	t := strings.TrimSpace(m.Text())
	return strings.HasPrefix(t, "<local-command-caveat>") || strings.HasPrefix(t, "Caveat: The messages below were generated by the user while running local commands")
}
