package codex

import (
	"fmt"
	"strings"
	"time"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// converter turns decoded lines into records, in order, each the child of
// the one before.
type converter struct {
	f     *transcript.File
	lines []line
	// prompts are the texts of user_message events: what the user typed;
	// said the texts of the response items' messages.
	prompts, said map[string]bool
	userTexts     []string // the response items' user texts
	answers       int      // the response items' assistant texts
	// session facts, from session_meta and turn_context.
	id, cwd, branch, version, model string
	prev                            string // the last record's uuid
	resp                            int    // the current response's number
	inResp                          bool   // the last record was the model's
	// respRecords are the indexes in f.Records of each response's records.
	respRecords [][]int
	usages      []*transcript.Usage
	lastTotal   int64
	// calls maps a call id to what its output is shown as.
	calls map[string]callKind
	// repeated lines of the parent's history were left out (fork.go).
	repeated     int
	repeatedFrom string
}

func newConverter(f *transcript.File, lines []line) *converter {
	c := &converter{f: f, lines: lines, prompts: map[string]bool{}, lastTotal: -1, said: map[string]bool{}}
	for _, l := range lines {
		switch {
		case l.env.Type == "event_msg" && l.p.Type == "user_message":
			c.prompts[strings.TrimSpace(l.p.Message)] = true
		case l.env.Type == "response_item" && l.p.Type == "message":
			for _, it := range items(l.p.Content) {
				c.said[strings.TrimSpace(it.Text)] = true
				if l.p.Role == "user" {
					c.userTexts = append(c.userTexts, it.Text)
				} else if l.p.Role == "assistant" {
					c.answers++
				}
			}
		}
	}
	return c
}

func (c *converter) run() {
	for i := range c.lines {
		c.line(&c.lines[i])
	}
	c.attachUsage()
}

// line converts one line.
func (c *converter) line(l *line) {
	switch l.env.Type {
	case "session_meta":
		c.id, c.cwd, c.version = l.p.ID, l.p.CWD, l.p.CLIVersion
		if l.p.Git != nil {
			c.branch = l.p.Git.Branch
		}
		if c.repeated > 0 && c.id != "" {
			r := c.record(l, transcript.TypeSystem)
			r.Subtype, r.Level = "informational", "info"
			r.Content = jsontext.Value(mustJSON(fmt.Sprintf("%d lines of this rollout repeat the history of session %s, which it goes on from: they are shown on that session's page, not here.", c.repeated, c.repeatedFrom)))
			c.add(r, false)
			c.repeated = 0
		}
	case "turn_context":
		if l.p.Model != "" {
			c.model = l.p.Model
		}
		if l.p.CWD != "" {
			c.cwd = l.p.CWD
		}
	case "response_item":
		c.responseItem(l)
	case "event_msg":
		c.event(l)
	case "compacted":
		r := c.record(l, "user")
		r.IsCompactSummary = true
		r.Message = &transcript.Message{Role: "user", Content: textContent(l.p.Message)}
		c.add(r, false)
	case "world_state":
		c.worldState(l)
	case "inter_agent_communication_metadata":
		// Bookkeeping of the message that follows.
	default:
		c.unknown(l)
	}
}

// unsaid tells an event's text the response items do not hold: an
// answer when there are none (a version that wrote only events; the
// event's text may differ a little from the item's), a prompt no user
// item holds, whole or inside added context.
func (c *converter) unsaid(kind, text string) bool {
	if kind == "agent_message" {
		return c.answers == 0
	}
	for _, u := range c.userTexts {
		if strings.Contains(u, text) {
			return false
		}
	}
	return true
}

// events whose content the response items already hold, or that are
// bookkeeping: read, not shown.
var quietEvents = map[string]bool{
	"user_message": true, "agent_message": true, "agent_reasoning": true,
	"agent_reasoning_raw_content": true, "agent_reasoning_section_break": true,
	"task_started": true, "task_complete": true, "turn_started": true, "turn_complete": true,
	"context_compacted": true, "mcp_tool_call_begin": true, "mcp_tool_call_end": true,
	"exec_command_begin": true, "exec_command_end": true, "exec_command_output_delta": true,
	"patch_apply_begin": true, "patch_apply_end": true, "web_search_begin": true, "web_search_end": true,
	"turn_diff": true, "view_image_tool_call": true, "plan_update": true, "item_started": true,
	"item_completed": true, "mcp_startup_update": true, "mcp_startup_complete": true,
	"session_configured": true, "background_event": true, "entered_review_mode": true,
	"exited_review_mode": true, "undo_started": true, "undo_completed": true,
	"get_history_entry_response": true, "mcp_list_tools_response": true,
	"list_custom_prompts_response": true, "shutdown_complete": true, "deprecation_notice": true,
	"thread_name_updated": true, "raw_response_item": true, "token_count": true,
}

func (c *converter) event(l *line) {
	switch l.p.Type {
	case "token_count":
		c.tokens(l.p.Info)
	case "user_message", "agent_message":
		// Shown from the response items; an event whose text none of
		// them holds (a version that wrote only the event) from itself.
		if t := strings.TrimSpace(l.p.Message); t != "" && !c.said[t] && c.unsaid(l.p.Type, t) {
			c.said[t] = true
			if l.p.Type == "agent_message" {
				c.answer(l, transcript.Block{Type: "text", Text: l.p.Message})
				return
			}
			r := c.record(l, "user")
			r.Message = &transcript.Message{Role: "user", Content: textContent(l.p.Message)}
			c.add(r, false)
		}
	case "turn_aborted", "thread_rolled_back", "error", "stream_error", "warning":
		// Worth seeing where they happened: a system note with the event.
		r := c.record(l, transcript.TypeSystem)
		r.Subtype = "informational"
		r.Level = "info"
		msg := l.p.Message
		if msg == "" {
			msg = strings.ReplaceAll(l.p.Type, "_", " ")
		}
		r.Content = jsontext.Value(mustJSON(msg))
		c.add(r, false)
	default:
		if !quietEvents[l.p.Type] {
			c.unknown(l)
		}
	}
}

// tokens takes a token_count's usage of the last response. Codex may
// write the same count twice: a count whose total did not grow is the same
// response's.
func (c *converter) tokens(info *tokenInfo) {
	if info == nil || info.Last == nil {
		return
	}
	if info.Total != nil {
		if info.Total.Total == c.lastTotal {
			return
		}
		c.lastTotal = info.Total.Total
	}
	u := info.Last
	c.usages = append(c.usages, &transcript.Usage{
		InputTokens:          max(u.Input-u.Cached, 0),
		CacheReadInputTokens: u.Cached,
		OutputTokens:         u.Output,
	})
}

// attachUsage gives the n-th response the n-th usage, as Claude Code's
// records carry theirs (every record of a response the same usage). Usage
// left over (counts without a response item) goes to the last response,
// so the session's total is the token_counts' total.
func (c *converter) attachUsage() {
	if len(c.respRecords) == 0 {
		return
	}
	for i, u := range c.usages {
		n := min(i, len(c.respRecords)-1)
		for _, ri := range c.respRecords[n] {
			m := c.f.Records[ri].Message
			if m.Usage == nil {
				m.Usage = u
			} else if m.Usage != u {
				sum := *m.Usage
				sum.InputTokens += u.InputTokens
				sum.CacheReadInputTokens += u.CacheReadInputTokens
				sum.OutputTokens += u.OutputTokens
				m.Usage = &sum
				for _, rj := range c.respRecords[n] {
					c.f.Records[rj].Message.Usage = m.Usage
				}
			}
		}
	}
}

// record starts a record of the line with the session's envelope.
func (c *converter) record(l *line, typ string) transcript.Record {
	r := transcript.Record{
		Line: l.no, Raw: jsontext.Value(l.raw), Type: typ, Timestamp: l.env.Timestamp,
		SessionID: c.id, CWD: c.cwd, GitBranch: c.branch, Version: c.version,
	}
	if t, err := time.Parse(time.RFC3339Nano, l.env.Timestamp); err == nil {
		r.Time = t.UTC()
	}
	return r
}

// add appends r, chained to the record before; model marks a record of
// the model's response (grouped by message id with the others of it).
func (c *converter) add(r transcript.Record, model bool) {
	r.UUID = fmt.Sprintf("codex-%s-%d", c.id, len(c.f.Records)+1)
	r.ParentUUID = c.prev
	c.prev = r.UUID
	if model {
		if !c.inResp {
			c.resp++
			c.respRecords = append(c.respRecords, nil)
		}
		// Unique across sessions: usage counts a message id once.
		owner := c.id
		if owner == "" {
			owner = c.f.Path
		}
		r.Message.ID = fmt.Sprintf("codex-%s-response-%d", owner, c.resp)
		r.Message.Model = c.model
		c.respRecords[len(c.respRecords)-1] = append(c.respRecords[len(c.respRecords)-1], len(c.f.Records))
	}
	c.inResp = model
	c.f.Records = append(c.f.Records, r)
}

// unknown keeps a line of a kind not read here, to be shown raw.
func (c *converter) unknown(l *line) {
	kind := l.env.Type
	if l.p.Type != "" {
		kind += "/" + l.p.Type
	}
	r := c.record(l, "codex/"+kind)
	c.add(r, false)
}

// worldState shows the AGENTS.md text a world_state injects, folded, as
// injected context.
func (c *converter) worldState(l *line) {
	var ws struct {
		AgentsMD *struct {
			Text string `json:"text"`
		} `json:"agents_md"`
	}
	if transcript.Unmarshal(l.p.State, &ws) != nil || ws.AgentsMD == nil || ws.AgentsMD.Text == "" {
		return
	}
	c.meta(l, []transcript.Block{{Type: "text", Text: ws.AgentsMD.Text}})
}

func (c *converter) meta(l *line, blocks []transcript.Block) {
	r := c.record(l, "user")
	r.IsMeta = true
	r.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: blocks}}
	c.add(r, false)
}

func textContent(s string) transcript.Content {
	return transcript.Content{IsString: true, Blocks: []transcript.Block{{Type: "text", Text: s}}}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true)) // map keys sorted: same input, same site
	if err != nil {
		panic(err)
	}
	return b
}
