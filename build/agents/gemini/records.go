package gemini

import (
	"fmt"
	"strings"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// outRecord is a Claude Code transcript line (FORMAT.md) of the rare
// kinds (system events, titles, messages of unknown types), written and
// decoded back by transcript.DecodeLine so that the record's Raw, shown
// raw, is that line. Prompts, answers and results are made as records
// directly (rec): their Raw is the Gemini message as written.
type outRecord struct {
	Type       string `json:"type"`
	Subtype    string `json:"subtype,omitzero"`
	Level      string `json:"level,omitzero"`
	UUID       string `json:"uuid,omitzero"`
	ParentUUID string `json:"parentUuid,omitzero"`
	IsMeta     bool   `json:"isMeta,omitzero"`
	SessionID  string `json:"sessionId,omitzero"`
	Timestamp  string `json:"timestamp,omitzero"`
	CWD        string `json:"cwd,omitzero"`

	Content string `json:"content,omitzero"` // system
	AITitle string `json:"aiTitle,omitzero"`
	// Gemini holds a message of a type this reader does not know, as
	// written: the record is shown raw.
	Gemini jsontext.Value `json:"gemini,omitzero"`
}

// emitter writes the records of a replayed log.
type emitter struct {
	out     *transcript.File
	path    string
	session string // sessionId on every record
	cwd     string
	used    map[string]bool
}

// emit writes every entry, live and dropped, in the order they were first
// written, each hanging from the message it followed. A sub-agent's file
// is read as a session of its own (its records are not sidechains):
// Find's Parent and SubAgent link it to its parent.
func (l *chatLog) emit(out *transcript.File, cwd string) {
	e := &emitter{out: out, path: l.path, session: l.meta.SessionID, cwd: cwd, used: map[string]bool{}}
	if e.session == "" {
		e.session = strings.TrimSuffix(strings.TrimSuffix(fileBase(l.path), ".jsonl"), ".json")
	}
	n := 1
	for i, en := range l.entries {
		n += 1 + len(en.msg.ToolCalls)
		en.first = e.uuid(en.msg.ID, i)
		en.last = en.first
		if len(en.msg.ToolCalls) > 0 && en.msg.Type == "gemini" {
			en.last = resultUUID(en.first, en.msg.ToolCalls, len(en.msg.ToolCalls)-1)
		} else if en.msg.Type == "user" && sentDiffers(en.msg) {
			en.last = en.first + "/sent"
		}
	}
	out.Records = make([]transcript.Record, 0, n)
	var prev *entry
	for _, en := range l.live {
		en.parent, prev = prev, en
	}
	start := e.start(l)
	for _, en := range l.entries {
		parent := start
		if en.parent != nil {
			parent = en.parent.last
		}
		e.message(en, parent)
	}
	if l.meta.Summary != "" {
		e.write(outRecord{Type: transcript.TypeAITitle, SessionID: e.session, AITitle: l.meta.Summary})
	}
}

// start writes the event both beginnings hang from when a rewind went
// back to the first message (two messages have none before them), so
// that the first attempt is an abandoned branch rather than a second
// conversation; its uuid, "" when there is one beginning.
func (e *emitter) start(l *chatLog) string {
	roots, ts := 0, l.meta.StartTime
	for _, en := range l.entries {
		if en.parent == nil {
			roots++
			if ts == "" {
				ts = en.msg.Timestamp
			}
		}
	}
	if roots < 2 {
		return ""
	}
	u := e.uuid("session-start", -1)
	r := e.base(transcript.TypeSystem, u, "", ts)
	r.Subtype, r.Level = transcript.SubtypeInformational, "info"
	r.Content = "The conversation went back to its first message: the first attempt is an abandoned branch"
	e.write(r)
	return u
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
	n := len(e.out.Records) + len(e.out.Problems) + 1
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
	return outRecord{Type: typ, UUID: uuid, ParentUUID: parent,
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
	r := e.rec(transcript.TypeUser, en.first, parent, m.Timestamp, m.raw)
	r.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: partBlocks(shown)}}
	if sentDiffers(m) {
		s := e.rec(transcript.TypeUser, en.first+"/sent", en.first, m.Timestamp, m.raw)
		s.IsMeta = true
		s.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: partBlocks(m.Content)}}
	}
}

// rec appends a record of the session's envelope, raw what it was read
// from, and returns it to be filled in place (a Record is large: it is
// not copied) before the next record is added.
func (e *emitter) rec(typ, uuid, parent, ts string, raw jsontext.Value) *transcript.Record {
	e.out.Records = append(e.out.Records, transcript.Record{})
	r := &e.out.Records[len(e.out.Records)-1]
	r.Line = len(e.out.Records) + len(e.out.Problems)
	r.Raw, r.Time, r.Type, r.UUID, r.ParentUUID = raw, parseTime(ts), typ, uuid, parent
	r.SessionID, r.Timestamp, r.CWD = e.session, ts, e.cwd
	return r
}

// gemini writes an answer: its thoughts, text and tool calls in one
// assistant record, then one tool_result record per call.
func (e *emitter) gemini(en *entry, parent string) {
	m := en.msg
	var blocks []transcript.Block
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
		blocks = append(blocks, transcript.Block{Type: "tool_use", ID: ids[i], Name: name, Input: input})
	}
	r := e.rec(transcript.TypeAssistant, en.first, parent, m.Timestamp, m.raw)
	r.Message = &transcript.Message{ID: en.first, Type: "message", Role: "assistant", Model: m.Model,
		Content: transcript.Content{Blocks: blocks}, Usage: usage(m.Tokens)}
	prev := en.first
	for i, tc := range m.ToolCalls {
		u := resultUUID(en.first, m.ToolCalls, i)
		ts := tc.Timestamp
		if parseTime(ts).Before(parseTime(m.Timestamp)) {
			ts = m.Timestamp
		}
		res := e.rec(transcript.TypeUser, u, prev, ts, m.raw)
		content, isErr := resultBlocks(tc)
		res.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: []transcript.Block{
			{Type: "tool_result", ToolUseID: ids[i], Content: transcript.Content{Blocks: content}, IsError: isErr}}}}
		res.ToolUseResult = toolUseResult(tc, content)
		res.SourceToolAssistantUUID = en.first
		prev = u
	}
}

// thinking is a thought summary as a thinking block: its subject in bold,
// then its description.
func thinking(t thought) transcript.Block {
	subject := strings.TrimSpace(t.Subject)
	desc := strings.TrimSpace(strings.ReplaceAll(t.Description, `\n`, "\n"))
	text := desc
	if subject != "" {
		text = "**" + subject + "**"
		if desc != "" {
			text += "\n\n" + desc
		}
	}
	return transcript.Block{Type: "thinking", Thinking: text}
}

// usage maps TokensSummary to Claude Code's usage: Gemini's input counts
// the cached tokens, Claude's input_tokens does not, so input_tokens is
// input - cached (+ tool, the prompt tokens of tool use) and
// cache_read_input_tokens is cached; thoughts are billed as output, so
// output_tokens is output + thoughts. The sum is Gemini's total. nil for
// a message without counts (null, or all zero as older versions wrote).
func usage(t tokens) *transcript.Usage {
	if t == (tokens{}) {
		return nil
	}
	return &transcript.Usage{
		InputTokens:          max(t.Input-t.Cached, 0) + t.Tool,
		CacheReadInputTokens: t.Cached,
		OutputTokens:         t.Output + t.Thoughts,
	}
}

// part is a Part of @google/genai, as much of it as is shown. Its
// fields are of the kinds transcript.FastInto reads (no pointers):
// a member's presence is its raw value's.
type part struct {
	Text       jsontext.Value `json:"text"`
	Thought    bool           `json:"thought"`
	InlineData struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FunctionResponse struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response jsontext.Value `json:"response"`
	} `json:"functionResponse"`
}

// into decodes v, a part of a line already read as JSON, into out.
func into(v jsontext.Value, out any) bool {
	return transcript.FastIntoValid(v, out) || transcript.Unmarshal(v, out) == nil
}

// strOf is v's string, "" when v is not one.
func strOf(v jsontext.Value) string {
	if v.Kind() != '"' {
		return ""
	}
	if s, ok := transcript.FastString(v); ok {
		return s
	}
	var s string
	_ = transcript.Unmarshal(v, &s)
	return s
}

// parts reads a PartListUnion: a string, a Part, or a list of either.
func parts(v jsontext.Value) []jsontext.Value {
	switch v.Kind() {
	case '"', '{':
		return []jsontext.Value{v}
	case '[':
		var list []jsontext.Value
		if into(v, &list) {
			return list
		}
	}
	return nil
}

// partBlocks turns content into blocks: text, thought text as thinking,
// images; any other part as its JSON, so nothing is lost.
func partBlocks(v jsontext.Value) []transcript.Block {
	var out []transcript.Block
	for _, raw := range parts(v) {
		if raw.Kind() == '"' {
			if s := strOf(raw); s != "" {
				out = append(out, transcript.Block{Type: "text", Text: s})
			}
			continue
		}
		var p part
		_ = into(raw, &p)
		switch {
		case len(p.Text) > 0 && p.Thought:
			out = append(out, transcript.Block{Type: "thinking", Thinking: strOf(p.Text)})
		case len(p.Text) > 0:
			if t := strOf(p.Text); t != "" {
				out = append(out, transcript.Block{Type: "text", Text: t})
			}
		case strings.HasPrefix(p.InlineData.MimeType, "image/"):
			out = append(out, transcript.Block{Type: "image", Source: &transcript.Source{Type: "base64", MediaType: p.InlineData.MimeType, Data: p.InlineData.Data}})
		default:
			out = append(out, transcript.Block{Type: "text", Text: "```json\n" + string(raw) + "\n```"})
		}
	}
	if out == nil {
		out = []transcript.Block{}
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
