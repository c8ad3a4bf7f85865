package session

import (
	"html"
	"regexp"
	"strings"

	"ccsite/build/transcript"
	"github.com/go-json-experiment/json/jsontext"
)

// A notice is a message Claude Code or another agent writes into the
// conversation as a user record: a background task's completion
// (<task-notification>, <bash-notification>), a teammate's message
// (<teammate-message>), a report handed back by an agent
// (<agent-message>), or a message from another Claude Code session
// (<cross-session-message>). None is typed by the person, so none opens a
// turn. Claude Code may write text around the blocks (a line before them,
// a paragraph after): that is the message's Framing.

// Notice tags.
const (
	TagTaskNotification = "task-notification"
	TagBashNotification = "bash-notification"
	TagTeammate         = "teammate-message"
	TagAgentMessage     = "agent-message"
	TagCrossSession     = "cross-session-message"
)

// reNoticeBlock finds every notice block of a message, in order.
var reNoticeBlock = regexp.MustCompile(`(?s)<(task-notification|bash-notification|teammate-message|agent-message|cross-session-message)((?:\s[^>]*)?)>(.*?)</(task-notification|bash-notification|teammate-message|agent-message|cross-session-message)>`)

// handBack is the frame Claude Code puts at the head of an agent's report
// (<agent-message>): its first line ends with "The report follows:", and
// every line of the report after it is indented by two spaces.
const handBack = "[Subagent hand-back]"

// noticeLead is how far into a record Claude Code's own lead-in may run
// before the first block of a record marked isMeta ("Another Claude
// session sent a message:").
const noticeLead = 200

// splitNotices reads the notice blocks of text: the task and bash
// notifications' bodies, the messages of teammates, agents and sessions,
// and the framing text around them. ok is false when text holds none.
func splitNotices(text string) (notices []string, people []Teammate, framing string, first string, ok bool) {
	matches := reNoticeBlock.FindAllStringSubmatchIndex(text, -1)
	var outside []string
	at := 0
	for _, mt := range matches {
		name, closing := text[mt[2]:mt[3]], text[mt[8]:mt[9]]
		if name != closing {
			continue
		}
		if s := strings.TrimSpace(text[at:mt[0]]); s != "" {
			outside = append(outside, s)
		}
		at = mt[1]
		if first == "" {
			first = name
		}
		attrs, body := text[mt[4]:mt[5]], text[mt[6]:mt[7]]
		switch name {
		case TagTaskNotification, TagBashNotification:
			notices = append(notices, strings.TrimSpace(body))
		default:
			t, frame := person(name, attrs, body)
			if frame != "" {
				outside = append(outside, frame)
			}
			people = append(people, t)
		}
	}
	if first == "" {
		return nil, nil, "", "", false
	}
	if s := strings.TrimSpace(text[at:]); s != "" {
		outside = append(outside, s)
	}
	return notices, people, strings.Join(outside, "\n\n"), first, true
}

// person is one teammate's, agent's or session's message. An agent's
// report loses its hand-back frame (returned apart) and the indent the
// frame puts on each of its lines.
func person(tag, attrs, body string) (Teammate, string) {
	t := Teammate{Via: tag}
	if tag == TagTeammate {
		t.Via = ""
	}
	for _, a := range reAttr.FindAllStringSubmatch(attrs, -1) {
		v := html.UnescapeString(a[2])
		switch a[1] {
		case "teammate_id":
			t.ID = v
		case "from":
			if t.ID == "" {
				t.ID = v
			}
		case "from-name", "name":
			t.Name = v
		case "color":
			t.Color = v
		case "summary":
			t.Summary = v
		}
	}
	body = strings.Trim(body, "\n")
	frame := ""
	if tag == TagAgentMessage {
		if i := strings.Index(body, handBack); i >= 0 && strings.TrimSpace(body[:i]) == "" {
			head, rest, _ := strings.Cut(body[i:], "\n")
			frame, body = strings.TrimSpace(head), dedent(rest, "  ")
		}
	}
	t.Body = strings.TrimSpace(body)
	return t, frame
}

// dedent takes prefix off every line that starts with it.
func dedent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n")
}

// classifyNotice makes m a notification when text holds notice blocks: of
// a record Claude Code marked isMeta (meta) only when the first block
// comes at its head, after at most a short lead-in line, since a skill's
// instructions may quote the tags.
func classifyNotice(m *Message, text string, meta bool) bool {
	if meta {
		if i := reNoticeBlock.FindStringIndex(text); i == nil || i[0] > noticeLead {
			return false
		}
	}
	notices, people, framing, first, ok := splitNotices(text)
	if !ok {
		return false
	}
	m.Kind = KindNotification
	m.Command = &Command{Name: first}
	if len(notices) > 0 {
		m.Command.Notice = notices[0]
	} else if len(people) > 0 {
		m.Command.Notice = people[0].Body
	}
	m.Notices, m.Teammates, m.Framing = notices, people, framing
	if len(people) > 0 && people[0].ID != "" && first != TagTaskNotification && first != TagBashNotification {
		m.Command.Args = people[0].ID
	}
	return true
}

// queuedNotice reports a queued command's attachment that is a notice:
// Claude Code delivers a background task's completion mid-turn as a queued
// command of mode "task-notification" (origin kind "task-notification"),
// and another session's message with origin kind "peer".
func queuedNotice(a *transcript.Attachment) bool {
	var f struct {
		CommandMode string `json:"commandMode"`
		Origin      struct {
			Kind string `json:"kind"`
		} `json:"origin"`
	}
	if len(a.Extra) > 0 && transcript.Unmarshal(a.Extra, &f) != nil {
		f.CommandMode, f.Origin.Kind = "", ""
	}
	return f.CommandMode == TagTaskNotification || f.Origin.Kind == TagTaskNotification || f.Origin.Kind == "peer"
}

// NoticeFields are the parts of a task or bash notification, each read
// from its tag (<task-id>, <status>, <summary>, <result>, <note>, <usage>
// …); Other keeps the tags of other names and any text outside the tags,
// in order, so that nothing is lost.
type NoticeFields struct {
	TaskID, ToolUseID, ShellID, AgentID string
	OutputFile, Status, Summary         string
	ExitCode                            string
	Result, Note                        string
	// Usage is what the task spent: tokens, tool uses, duration, by the
	// names the notification gives them.
	Usage []NameValue
	Other []NameValue
	Rest  string
}

// NameValue is a named value read from a notification.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

var (
	reExitCode  = regexp.MustCompile(`\bexit code (-?\d+)`)
	reUsageLine = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z_ -]*?)\s*:\s*(.+?)\s*$`)
)

// ParseNotice reads a task or bash notification's body.
func ParseNotice(body string) NoticeFields {
	var f NoticeFields
	fields, rest := tagFields(body)
	for _, kv := range fields {
		v := strings.TrimSpace(kv.Value)
		switch kv.Name {
		case "task-id":
			f.TaskID = v
		case "tool-use-id":
			f.ToolUseID = v
		case "shell-id":
			f.ShellID = v
		case "agent-id":
			f.AgentID = v
		case "output-file":
			f.OutputFile = v
		case "status":
			f.Status = v
		case "summary":
			f.Summary = html.UnescapeString(v)
		case "exit-code":
			f.ExitCode = v
		case "result":
			f.Result = v
		case "note":
			f.Note = v
		case "usage":
			f.Usage = usage(v)
		default:
			f.Other = append(f.Other, NameValue{kv.Name, v})
		}
	}
	f.Rest = strings.TrimSpace(rest)
	if f.ExitCode == "" {
		if m := reExitCode.FindStringSubmatch(f.Summary); m != nil {
			f.ExitCode = m[1]
		}
	}
	return f
}

// tagFields reads the elements <name>value</name> at the top of s, in
// order (a value may hold other elements: <usage> does), and what is left.
func tagFields(s string) (fields []NameValue, rest string) {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return fields, b.String()
		}
		name := s[i+1:]
		n := 0
		for n < len(name) && (name[n] >= 'a' && name[n] <= 'z' || n > 0 && (name[n] == '-' || name[n] == '_' || name[n] >= '0' && name[n] <= '9')) {
			n++
		}
		end := -1
		if n > 0 && n < len(name) && name[n] == '>' {
			end = strings.Index(name[n+1:], "</"+name[:n]+">")
		}
		if end < 0 {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		fields = append(fields, NameValue{name[:n], name[n+1 : n+1+end]})
		s = name[n+1+end+len(name[:n])+3:]
	}
}

// usage reads a notification's <usage>: nested tags
// (<total_tokens>N</total_tokens>…) or "name: value" lines.
func usage(s string) []NameValue {
	out, rest := tagFields(s)
	for i := range out {
		out[i].Value = strings.TrimSpace(out[i].Value)
	}
	for l := range strings.SplitSeq(rest, "\n") {
		if m := reUsageLine.FindStringSubmatch(l); m != nil {
			out = append(out, NameValue{strings.TrimSpace(m[1]), m[2]})
		} else if strings.TrimSpace(l) != "" {
			out = append(out, NameValue{"", strings.TrimSpace(l)})
		}
	}
	return out
}

// TeamEvent is a teammate's protocol message (a JSON object with a
// "type": idle_notification, shutdown_request, …) in place of words.
type TeamEvent struct {
	Type       string `json:"type"`
	From       string `json:"from,omitempty"`
	Timestamp  string `json:"timestamp,omitempty"`
	IdleReason string `json:"idleReason,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Summary    string `json:"summary,omitempty"`
}

// TeamEventOf reads a teammate message's body as a protocol message; ok is
// false when the body is words.
func TeamEventOf(body string) (e TeamEvent, ok bool) {
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, "{") || !strings.HasSuffix(body, "}") {
		return e, false
	}
	var m map[string]jsontext.Value
	if transcript.Unmarshal([]byte(body), &m) != nil {
		return e, false
	}
	str := func(k string) string { return RawString(m[k]) }
	e = TeamEvent{Type: str("type"), From: str("from"), Timestamp: str("timestamp"), IdleReason: str("idleReason"),
		Reason: str("reason"), Summary: str("summary")}
	return e, e.Type != ""
}
