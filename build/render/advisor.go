package render

import (
	"html/template"
	"slices"
	"strings"
	"time"

	"ccsite/build/session"
	"ccsite/build/transcript"
	"github.com/go-json-experiment/json/jsontext"
)

// AdvisorView is a call of the advisor tool: a server tool with which the
// model asks a stronger model (the advisor) for advice in the middle of an
// answer. The API answers it in the same message (advisor_tool_result),
// with the advice as text, encrypted, or an error code.
type AdvisorView struct {
	// Model is the advisor's model; Usage its tokens and cost ("" when
	// the records hold none).
	Model, Usage string
	// Advice is the advice when readable; Encrypted the size of the
	// encrypted advice when not; Error the error code of a failed call.
	Advice    template.HTML
	Encrypted string
	Error     string
	// Fields are the result's other plain fields (stop_reason…).
	Fields []Field
	// Input is the call's input when it has one (highlighted JSON).
	Input template.HTML
}

// advisorResult is an advisor_tool_result's content.
type advisorResult struct {
	Type             string `json:"type"`
	Text             string `json:"text"`
	EncryptedContent string `json:"encrypted_content"`
	ErrorCode        string `json:"error_code"`
}

func (c *viewCtx) advisorTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	if b := call.ResultBlock; b != nil && b.Type != "advisor_tool_result" {
		c.genericTool(t, call, in, tur) // a tool of this name that is not the server's
		return
	}
	t.Kind = "advisor"
	v := AdvisorView{}
	if r := c.advisorResponse(call); r != nil {
		v.Model = r.Model
		v.Usage = advisorUsage(r.Cost)
	}
	if v.Model == "" && call.Use != nil {
		for _, r := range call.Use.Records {
			if r.AdvisorModel != "" {
				v.Model = r.AdvisorModel
				break
			}
		}
	}
	t.Summary = v.Model
	if len(call.Input) > 0 && string(call.Input) != "{}" {
		if html, _, ok := c.jsonBlock(string(call.Input)); ok {
			v.Input = html
		}
	}
	if b := call.ResultBlock; b != nil {
		raw := b.Content.Raw
		var res advisorResult
		if len(raw) > 0 && transcript.Unmarshal(raw, &res) == nil {
			switch {
			case res.Type == "advisor_tool_result_error" || res.ErrorCode != "":
				v.Error = orDefault(res.ErrorCode, res.Type)
				t.Status = "error"
			case res.EncryptedContent != "":
				v.Encrypted = byteSize(len(res.EncryptedContent))
			case res.Text != "":
				v.Advice = c.b.MD.Markdown(res.Text)
			}
			v.Fields = plainFields(raw, "type", "text", "encrypted_content", "error_code")
		} else if text := b.Content.Text(); text != "" {
			v.Advice = c.b.MD.Markdown(text)
		}
	}
	t.Data = v
}

// advisorResponse is the advisor's model call answering call: the n-th
// advisor call of its message is the n-th advisor_message of the
// message's usage.
func (c *viewCtx) advisorResponse(call *session.ToolCall) *session.Response {
	if call.Use == nil {
		return nil
	}
	n := 0
	for _, id := range call.Use.ToolUseIDs {
		if id == call.ID {
			break
		}
		if o := c.s.Tool(id); o != nil && o.Name == call.Name {
			n++
		}
	}
	k := 0
	rs := c.s.Responses(c.s.Pricing)
	for i := range rs {
		if rs[i].Advisor && rs[i].Message == call.Use {
			if k == n {
				return &rs[i]
			}
			k++
		}
	}
	return nil
}

// advisorUsage spells an advisor call's tokens and cost: "41,250 in ·
// 1,630 out · $0.25".
func advisorUsage(c session.Cost) string {
	t := c.Tokens
	if t.Total() == 0 {
		return ""
	}
	parts := []string{thousands(t.Input) + " in", thousands(t.Output) + " out"}
	if t.CacheRead > 0 {
		parts = append(parts, thousands(t.CacheRead)+" cache read")
	}
	if t.CacheWrite > 0 {
		parts = append(parts, thousands(t.CacheWrite)+" cache write")
	}
	if c.USD > 0 || c.Unknown {
		parts = append(parts, SpellCost(c))
	}
	return strings.Join(parts, " · ")
}

// plainFields lists an object's members that are plain text (strings,
// numbers, booleans), but those named in skip, in name order.
func plainFields(raw jsontext.Value, skip ...string) []Field {
	var m map[string]jsontext.Value
	if transcript.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []Field
	for k, v := range m {
		if slices.Contains(skip, k) || len(v) == 0 {
			continue
		}
		switch v.Kind() {
		case '"':
			out = append(out, Field{Label: strings.ReplaceAll(k, "_", " "), Value: session.RawString(v)})
		case '0', 't', 'f':
			out = append(out, Field{Label: strings.ReplaceAll(k, "_", " "), Value: string(v)})
		}
	}
	slices.SortFunc(out, func(a, b Field) int { return strings.Compare(a.Label, b.Label) })
	return out
}

// serverTook is how long a server tool's call took: from the record of
// its server_tool_use to the record of its result, fragments of the one
// message both (whose own time is its first fragment's). ok is false for
// any other call.
func serverTook(call *session.ToolCall) (d time.Duration, ok bool) {
	if call.Use == nil || call.Use != call.Result || call.ResultBlock == nil {
		return 0, false
	}
	var use, res time.Time
	for _, r := range call.Use.Records {
		if r.Message == nil {
			continue
		}
		for i := range r.Message.Content.Blocks {
			b := &r.Message.Content.Blocks[i]
			if b.Type == "server_tool_use" && b.ID == call.ID && use.IsZero() {
				use = r.Time
			}
			if b == call.ResultBlock {
				res = r.Time
			}
		}
	}
	if use.IsZero() || res.IsZero() || res.Before(use) {
		return 0, false
	}
	return res.Sub(use), true
}
