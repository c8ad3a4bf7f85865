package gemini

import (
	"fmt"
	"strings"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// outRecord is a Claude Code transcript line (FORMAT.md): what Read
// writes for each part of a Gemini message, decoded back by
// transcript.DecodeLine so that the record's Raw is that line.
type outRecord struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype,omitzero"`
	Level       string `json:"level,omitzero"`
	UUID        string `json:"uuid,omitzero"`
	ParentUUID  string `json:"parentUuid,omitzero"`
	IsSidechain bool   `json:"isSidechain,omitzero"`
	IsMeta      bool   `json:"isMeta,omitzero"`
	AgentID     string `json:"agentId,omitzero"`
	SessionID   string `json:"sessionId,omitzero"`
	Timestamp   string `json:"timestamp,omitzero"`
	CWD         string `json:"cwd,omitzero"`

	Message                 *outMessage    `json:"message,omitzero"`
	ToolUseResult           jsontext.Value `json:"toolUseResult,omitzero"`
	SourceToolAssistantUUID string         `json:"sourceToolAssistantUUID,omitzero"`

	Content string `json:"content,omitzero"` // system
	AITitle string `json:"aiTitle,omitzero"`
	// Gemini holds a message of a type this reader does not know, as
	// written: the record is shown raw.
	Gemini jsontext.Value `json:"gemini,omitzero"`
}

type outMessage struct {
	ID      string            `json:"id,omitzero"`
	Type    string            `json:"type,omitzero"`
	Role    string            `json:"role"`
	Model   string            `json:"model,omitzero"`
	Content []outBlock        `json:"content"`
	Usage   *transcript.Usage `json:"usage,omitzero"`
}

type outBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitzero"`
	Thinking  string         `json:"thinking,omitzero"`
	ID        string         `json:"id,omitzero"`
	Name      string         `json:"name,omitzero"`
	Input     jsontext.Value `json:"input,omitzero"`
	ToolUseID string         `json:"tool_use_id,omitzero"`
	Content   []outBlock     `json:"content,omitzero"`
	IsError   bool           `json:"is_error,omitzero"`
	Source    *outSource     `json:"source,omitzero"`
}

type outSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// emitter writes the records of a replayed log.
type emitter struct {
	out       *transcript.File
	path      string
	session   string // sessionId on every record: the parent's for a sub-agent
	agentID   string
	sidechain bool
	cwd       string
	used      map[string]bool
}

// emit writes every entry, live and dropped, in the order they were first
// written, each hanging from the message it followed.
func (l *chatLog) emit(out *transcript.File, data []byte) {
	sub, parent := agentInfo(l.path, l.meta)
	e := &emitter{out: out, path: l.path, session: l.meta.SessionID, used: map[string]bool{}}
	if sub {
		e.sidechain, e.agentID = true, l.meta.SessionID
		if e.agentID == "" {
			e.agentID = strings.TrimSuffix(strings.TrimSuffix(fileBase(l.path), ".jsonl"), ".json")
		}
		if parent != "" {
			e.session = parent
		}
	}
	e.cwd = newNamer(geminiHome(l.path)).projectOf(l.path, l.meta.ProjectHash, data)
	for i, en := range l.entries {
		en.first = e.uuid(en.msg.ID, i)
		en.last = en.first
		if len(en.msg.ToolCalls) > 0 && en.msg.Type == "gemini" {
			en.last = resultUUID(en.first, en.msg.ToolCalls, len(en.msg.ToolCalls)-1)
		} else if en.msg.Type == "user" && sentDiffers(en.msg) {
			en.last = en.first + "/sent"
		}
	}
	for _, en := range l.entries {
		parent := ""
		if en.parent != nil {
			parent = en.parent.last
		}
		e.message(en, parent)
	}
	if l.meta.Summary != "" {
		e.write(outRecord{Type: transcript.TypeAITitle, SessionID: e.session, AITitle: l.meta.Summary})
	}
}

func fileBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// uuid is a message's record uuid: its id, made unique.
func (e *emitter) uuid(id string, i int) string {
	if id == "" {
		id = fmt.Sprintf("gemini-message-%d", i+1)
	}
	u := id
	for n := 2; e.used[u]; n++ {
		u = fmt.Sprintf("%s#%d", id, n)
	}
	e.used[u] = true
	return u
}

func resultUUID(first string, calls []toolCall, i int) string {
	id := calls[i].ID
	if id == "" {
		id = fmt.Sprint(i + 1)
	}
	return fmt.Sprintf("%s/result/%d/%s", first, i+1, id)
}

// write encodes r as a Claude Code line and decodes it as one.
func (e *emitter) write(r outRecord) {
	line, err := json.Marshal(r, json.Deterministic(true))
	n := len(e.out.Records) + 1
	if err != nil {
		e.out.Problems = append(e.out.Problems, transcript.Problem{File: e.path, Line: n, Reason: "encode: " + err.Error()})
		return
	}
	rec, prob := transcript.DecodeLine(line, e.path, n)
	if prob != nil {
		e.out.Problems = append(e.out.Problems, *prob)
		return
	}
	e.out.Records = append(e.out.Records, rec)
}

// base fills the envelope every record of a message shares.
func (e *emitter) base(typ, uuid, parent, ts string) outRecord {
	return outRecord{Type: typ, UUID: uuid, ParentUUID: parent, IsSidechain: e.sidechain, AgentID: e.agentID,
		SessionID: e.session, Timestamp: ts, CWD: e.cwd}
}

func (e *emitter) message(en *entry, parent string) {
	m := en.msg
	switch m.Type {
	case "user":
		e.user(en, parent)
	case "gemini":
		e.gemini(en, parent)
	case "info", "warning", "error":
		r := e.base(transcript.TypeSystem, en.first, parent, m.Timestamp)
		r.Subtype, r.Level, r.Content = transcript.SubtypeInformational, m.Type, partsText(m.Content)
		e.write(r)
	default:
		// A message type (or log operation) this reader does not know:
		// kept where it was, counted and shown raw.
		t := m.Type
		if t == "" {
			t = "unknown"
		}
		r := e.base("gemini-"+t, en.first, parent, m.Timestamp)
		r.Gemini = m.raw
		e.write(r)
	}
}

// sentDiffers reports a prompt whose content (what the model was sent:
// referenced files read in) differs from displayContent (what was typed).
func sentDiffers(m *message) bool {
	return len(m.DisplayContent) > 0 && string(m.DisplayContent) != "null" &&
		partsText(m.DisplayContent) != partsText(m.Content)
}

// user writes a prompt: what the person typed, then, folded as Claude
// Code's meta messages are, what was sent when it differs.
func (e *emitter) user(en *entry, parent string) {
	m := en.msg
	shown := m.Content
	if sentDiffers(m) {
		shown = m.DisplayContent
	}
	r := e.base(transcript.TypeUser, en.first, parent, m.Timestamp)
	r.Message = &outMessage{Role: "user", Content: partBlocks(shown)}
	e.write(r)
	if sentDiffers(m) {
		s := e.base(transcript.TypeUser, en.first+"/sent", en.first, m.Timestamp)
		s.IsMeta = true
		s.Message = &outMessage{Role: "user", Content: partBlocks(m.Content)}
		e.write(s)
	}
}

// gemini writes an answer: its thoughts, text and tool calls in one
// assistant record, then one tool_result record per call.
func (e *emitter) gemini(en *entry, parent string) {
	m := en.msg
	var blocks []outBlock
	for _, t := range m.Thoughts {
		if b := thinking(t); b.Thinking != "" {
			blocks = append(blocks, b)
		}
	}
	blocks = append(blocks, partBlocks(m.Content)...)
	ids := make([]string, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		ids[i] = tc.ID
		if ids[i] == "" {
			ids[i] = fmt.Sprintf("%s-call-%d", en.first, i+1)
		}
		name, input := mapTool(tc)
		blocks = append(blocks, outBlock{Type: "tool_use", ID: ids[i], Name: name, Input: input})
	}
	if blocks == nil {
		blocks = []outBlock{}
	}
	r := e.base(transcript.TypeAssistant, en.first, parent, m.Timestamp)
	r.Message = &outMessage{ID: en.first, Type: "message", Role: "assistant", Model: m.Model, Content: blocks, Usage: usage(m.Tokens)}
	e.write(r)
	prev := en.first
	for i, tc := range m.ToolCalls {
		u := resultUUID(en.first, m.ToolCalls, i)
		ts := tc.Timestamp
		if parseTime(ts).Before(parseTime(m.Timestamp)) {
			ts = m.Timestamp
		}
		res := e.base(transcript.TypeUser, u, prev, ts)
		content, isErr := resultBlocks(tc)
		res.Message = &outMessage{Role: "user", Content: []outBlock{{Type: "tool_result", ToolUseID: ids[i], Content: content, IsError: isErr}}}
		res.ToolUseResult = toolUseResult(tc, content)
		res.SourceToolAssistantUUID = en.first
		e.write(res)
		prev = u
	}
}

// thinking is a thought summary as a thinking block: its subject in bold,
// then its description.
func thinking(t thought) outBlock {
	subject := strings.TrimSpace(t.Subject)
	desc := strings.TrimSpace(strings.ReplaceAll(t.Description, `\n`, "\n"))
	text := desc
	if subject != "" {
		text = "**" + subject + "**"
		if desc != "" {
			text += "\n\n" + desc
		}
	}
	return outBlock{Type: "thinking", Thinking: text}
}

// usage maps TokensSummary to Claude Code's usage: Gemini's input counts
// the cached tokens, Claude's input_tokens does not, so input_tokens is
// input - cached (+ tool, the prompt tokens of tool use) and
// cache_read_input_tokens is cached; thoughts are billed as output, so
// output_tokens is output + thoughts. The sum is Gemini's total. nil for
// a message without counts (null, or all zero as older versions wrote).
func usage(t *tokens) *transcript.Usage {
	if t == nil || *t == (tokens{}) {
		return nil
	}
	return &transcript.Usage{
		InputTokens:          max(t.Input-t.Cached, 0) + t.Tool,
		CacheReadInputTokens: t.Cached,
		OutputTokens:         t.Output + t.Thoughts,
	}
}

// part is a Part of @google/genai, as much of it as is shown.
type part struct {
	Text       *string `json:"text"`
	Thought    bool    `json:"thought"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response jsontext.Value `json:"response"`
	} `json:"functionResponse"`
}

// parts reads a PartListUnion: a string, a Part, or a list of either.
func parts(v jsontext.Value) []jsontext.Value {
	switch v.Kind() {
	case '"', '{':
		return []jsontext.Value{v}
	case '[':
		var list []jsontext.Value
		if transcript.Unmarshal(v, &list) == nil {
			return list
		}
	}
	return nil
}

// partBlocks turns content into blocks: text, thought text as thinking,
// images; any other part as its JSON, so nothing is lost.
func partBlocks(v jsontext.Value) []outBlock {
	var out []outBlock
	for _, raw := range parts(v) {
		if raw.Kind() == '"' {
			var s string
			if transcript.Unmarshal(raw, &s) == nil && s != "" {
				out = append(out, outBlock{Type: "text", Text: s})
			}
			continue
		}
		var p part
		_ = transcript.Unmarshal(raw, &p)
		switch {
		case p.Text != nil && p.Thought:
			out = append(out, outBlock{Type: "thinking", Thinking: *p.Text})
		case p.Text != nil:
			if *p.Text != "" {
				out = append(out, outBlock{Type: "text", Text: *p.Text})
			}
		case p.InlineData != nil && strings.HasPrefix(p.InlineData.MimeType, "image/"):
			out = append(out, outBlock{Type: "image", Source: &outSource{Type: "base64", MediaType: p.InlineData.MimeType, Data: p.InlineData.Data}})
		default:
			out = append(out, outBlock{Type: "text", Text: "```json\n" + string(raw) + "\n```"})
		}
	}
	if out == nil {
		out = []outBlock{}
	}
	return out
}

// partsText is the text of content's text parts, joined.
func partsText(v jsontext.Value) string {
	var b strings.Builder
	for _, blk := range partBlocks(v) {
		if blk.Type == "text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}
