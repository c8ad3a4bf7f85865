package codex

import (
	"bytes"
	"fmt"
	"os"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"
)

func zstdDecoder() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
}

// envelope is one rollout line.
type envelope struct {
	Timestamp string         `json:"timestamp"`
	Type      string         `json:"type"`
	Payload   jsontext.Value `json:"payload"`
	// RecordType is set on the state lines of older rollouts.
	RecordType string `json:"record_type"`
	// hasPayload: the line is an envelope (not an older rollout's line).
	hasPayload bool
}

// payload holds the members of every payload kind read here; a kind's
// members are set, the others zero.
type payload struct {
	Type string `json:"type"`
	// session_meta
	ID         string `json:"id"`
	CWD        string `json:"cwd"`
	CLIVersion string `json:"cli_version"`
	Git        *struct {
		Branch string `json:"branch"`
	} `json:"git"`
	// turn_context
	Model string `json:"model"`
	// response_item: message, reasoning
	Role    string   `json:"role"`
	Content itemList `json:"content"` // a string or null elsewhere: none
	Summary itemList `json:"summary"` // turn_context's is a string: none
	// function_call, custom_tool_call, their outputs, local_shell_call
	Name      string         `json:"name"`
	Arguments string         `json:"arguments"`
	Input     string         `json:"input"`
	CallID    string         `json:"call_id"`
	Output    jsontext.Value `json:"output"`
	Status    string         `json:"status"`
	Action    jsontext.Value `json:"action"`
	// event_msg
	Message string     `json:"message"`
	Info    *tokenInfo `json:"info"`
	// world_state
	State jsontext.Value `json:"state"`
}

// item is a content or summary element: input_text, output_text,
// input_image, summary_text, reasoning_text.
type item struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

type tokenInfo struct {
	Total *tokenUsage `json:"total_token_usage"`
	Last  *tokenUsage `json:"last_token_usage"`
}

type tokenUsage struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

// line is a decoded rollout line.
type line struct {
	no  int
	raw []byte
	env envelope
	p   payload
	err error // why it could not be decoded
}

// key is what of a line a fork's copy keeps: all but the timestamp,
// which Codex writes first ({"timestamp":…,"type":…,"payload":…}).
func (l *line) key() string {
	if i := bytes.Index(l.raw, []byte(`"type":`)); i >= 0 {
		return string(l.raw[i:])
	}
	return string(l.raw)
}

// Read reads the rollout at path (.jsonl, or .jsonl.zst) into
// Claude-Code-shaped records: prompts and answers as user and assistant
// messages, tool calls as tool_use and tool_result blocks named as Claude
// Code names the like tools, usage from token_count events. filter
// (redaction) rewrites each line before it is decoded. A line that cannot
// be read is a Problem; a line of a kind this reader does not know is a
// record of type "codex/<kind>", shown raw.
func Read(path string, filter transcript.Filter) (*transcript.File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	f := &transcript.File{Path: path, Bytes: int64(len(raw)), Agent: Name}
	data, err := decompress(path, raw)
	if err != nil {
		// A damaged .zst: what was decoded before the damage is still read.
		f.Problems = append(f.Problems, transcript.Problem{File: path, Reason: err.Error()})
	}
	lines := decodeLines(f, data, filter)
	lines, dropped, parent := ownPart(f, lines, filter)
	c := newConverter(f, lines)
	c.repeated, c.repeatedFrom = dropped, parent
	c.run()
	return f, nil
}

// decodeLines splits data into lines, filters and decodes each.
func decodeLines(f *transcript.File, data []byte, filter transcript.Filter) []line {
	var out []line
	no := 0
	last := "" // the last timestamp, for older rollouts' lines without one
	for len(data) > 0 {
		no++
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		f.Lines++
		if filter != nil {
			raw = filter(f.Path, raw)
		}
		l := line{no: no, raw: raw} // data is this reader's own: no copy
		if !decodeLine(&l) {
			f.Problems = append(f.Problems, problem(f.Path, no, l.err, l.raw))
			continue
		}
		if !legacy(&l, len(out) == 0, &last) {
			continue
		}
		if l.env.Timestamp != "" {
			last = l.env.Timestamp
		}
		out = append(out, l)
	}
	return out
}

func problem(path string, no int, err error, raw []byte) transcript.Problem {
	ex := string(raw)
	if len(ex) > 200 {
		ex = ex[:200]
	}
	return transcript.Problem{File: path, Line: no, Reason: err.Error(), Excerpt: ex}
}

// itemList is a content or summary array, decoded as it is read; a
// value of another shape (turn_context's summary "auto") gives none.
type itemList []item

// UnmarshalJSONFrom reads an array of items, or skips any other value.
func (l *itemList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	var out []item
	if err := json.UnmarshalDecode(dec, &out); err != nil {
		return err
	}
	*l = out
	return nil
}

func items(l itemList) []item { return l }

// responseKinds are the payload types of response items, which older
// rollouts (before the {timestamp, type, payload} envelope, Codex CLI
// 0.3x and earlier) wrote bare, one a line, after a first line holding
// the session's id and start.
var responseKinds = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "compaction": true,
}

// onePass is a rollout line decoded in one pass, its payload typed.
type onePass struct {
	Timestamp  string   `json:"timestamp"`
	Type       string   `json:"type"`
	RecordType string   `json:"record_type"`
	Payload    *payload `json:"payload"`
}

// decodeLine decodes l: envelope and payload in one pass, else (a payload
// that is not an object, an older rollout's line) the envelope, then an
// object payload. False, with l.err, for a line that is not a record.
func decodeLine(l *line) bool {
	var o onePass
	if transcript.Unmarshal(l.raw, &o) == nil && o.Payload != nil {
		l.env = envelope{Timestamp: o.Timestamp, Type: o.Type, RecordType: o.RecordType, hasPayload: true}
		l.p = *o.Payload
		return true
	}
	if err := transcript.Unmarshal(l.raw, &l.env); err != nil {
		l.err = err
		return false
	}
	l.env.hasPayload = len(l.env.Payload) > 0
	if len(l.env.Payload) > 0 && l.env.Payload[0] == '{' {
		if err := transcript.Unmarshal(l.env.Payload, &l.p); err != nil {
			l.err = err
			return false
		}
	}
	return true
}

// legacy reads a line of an older rollout as the envelope it stands for;
// false for a line to leave out (its state lines).
func legacy(l *line, first bool, last *string) bool {
	if l.env.hasPayload {
		return true
	}
	switch {
	case l.env.RecordType != "":
		return false // {"record_type": "state"}: bookkeeping
	case first && l.env.Type == "":
		l.env.Type = "session_meta"
		if err := transcript.Unmarshal(l.raw, &l.p); err != nil {
			return true // shown raw: an unknown kind
		}
	case responseKinds[l.env.Type]:
		if err := transcript.Unmarshal(l.raw, &l.p); err != nil {
			return true // shown raw, as codex/<its type>
		}
		l.env.Type = "response_item"
		if l.env.Timestamp == "" {
			l.env.Timestamp = *last
		}
	}
	return true
}
