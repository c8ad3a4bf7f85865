package session

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"ccsite/build/transcript"
	"github.com/go-json-experiment/json/jsontext"
)

// Input is a tool call's input decoded loosely: each top-level member's raw
// JSON by name (a repeated name keeps its last value). Reading a member that
// is missing or of another type gives the zero value, never an error. It is
// nil when the input is not a JSON object.
type Input map[string]jsontext.Value

// DecodeInput decodes a tool_use input. Prefer (*ToolCall).In, which
// decodes a call's input once.
func DecodeInput(raw jsontext.Value) Input {
	if m, ok := transcript.FastObject(raw); ok {
		return m
	}
	var in Input
	_ = transcript.Unmarshal(raw, &in)
	return in
}

// lazyInput holds a call's decoded input, decoded on first use. Renderers,
// exports and search documents may read one session from several
// goroutines.
type lazyInput struct {
	once sync.Once
	in   Input
}

// In returns the call's input, decoded once. The result is shared: callers
// must not modify it.
func (c *ToolCall) In() Input {
	c.input.once.Do(func() { c.input.in = DecodeInput(c.Input) })
	return c.input.in
}

// Raw returns member k's raw JSON, nil when absent.
func (in Input) Raw(k string) jsontext.Value { return in[k] }

// Has reports whether member k is present.
func (in Input) Has(k string) bool {
	_, ok := in[k]
	return ok
}

// Str returns member k when it is a string, else "".
func (in Input) Str(k string) string { return RawString(in[k]) }

// Num returns member k as an int (a fraction truncated) when it is a
// number, else 0.
func (in Input) Num(k string) int {
	var n float64
	if transcript.Unmarshal(in[k], &n) != nil {
		return 0
	}
	return int(n)
}

// Bool returns member k when it is a boolean, else false.
func (in Input) Bool(k string) bool {
	var b bool
	_ = transcript.Unmarshal(in[k], &b)
	return b
}

// Decode decodes member k into out (a list of edits, todos, questions…).
// It reports false when k is absent or does not fit out; out may then be
// partly filled.
func (in Input) Decode(k string, out any) bool {
	v, ok := in[k]
	return ok && transcript.Unmarshal(v, out) == nil
}

// Keys returns the member names, sorted.
func (in Input) Keys() []string {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FilePath is the file a Read, Write, Edit, MultiEdit or NotebookEdit call
// works on: its file_path, or notebook_path for NotebookEdit. (No call names
// both; one that did would read as the two joined.)
func (in Input) FilePath() string { return in.Str("file_path") + in.Str("notebook_path") }

// Edit is one replacement of an Edit or MultiEdit call.
type Edit struct {
	Old string `json:"old_string"`
	New string `json:"new_string"`
}

// Edits returns the replacements of an Edit call (old_string, new_string)
// or, for MultiEdit (name), its edits list.
func (in Input) Edits(name string) []Edit {
	if name == "MultiEdit" {
		var edits []Edit
		_ = in.Decode("edits", &edits)
		return edits
	}
	return []Edit{{in.Str("old_string"), in.Str("new_string")}}
}

// Strings returns the non-empty strings in the input, nested ones too
// (objects in key order, arrays in order): first those of the members named
// in first, in that order, then those of all other members in key order.
func (in Input) Strings(first ...string) []string {
	var out []string
	seen := make(map[string]bool, len(first))
	for _, k := range first {
		seen[k] = true
		if v, ok := in[k]; ok {
			strs(v, &out)
		}
	}
	for _, k := range in.Keys() {
		if !seen[k] {
			strs(in[k], &out)
		}
	}
	return out
}

// strs appends the non-empty strings in v, objects in key order. A
// string, what most members are, is read by the transcript's scanner
// (search documents ask every call's input: 1 CPU-s of a cold 1 GB
// build went to json decoding members into any); a number, true, false or
// null holds no string.
func strs(v jsontext.Value, out *[]string) {
	if len(v) == 0 {
		return
	}
	switch v[0] {
	case '"':
		if s, ok := transcript.FastString(v); ok {
			if s != "" {
				*out = append(*out, s)
			}
			return
		}
	case '{', '[':
	default:
		return
	}
	var x any
	if transcript.Unmarshal(v, &x) != nil {
		return
	}
	strsOf(x, out)
}

func strsOf(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		if x != "" {
			*out = append(*out, x)
		}
	case []any:
		for _, e := range x {
			strsOf(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			strsOf(x[k], out)
		}
	}
}

// RawString returns v's value when v is a JSON string, else "".
func RawString(v jsontext.Value) string {
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	if s, ok := transcript.FastString(v); ok {
		return s
	}
	var s string
	if transcript.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// ResultText is the text of the call's tool_result: its string, or its text
// blocks joined. A call with no tool_result block falls back to a string
// toolUseResult (calls paired from a transcript always have the block when
// they have a toolUseResult).
func (c *ToolCall) ResultText() string {
	if c.ResultBlock == nil {
		return RawString(c.ToolUseResult)
	}
	return c.ResultBlock.Content.Text()
}

// reANSI matches terminal escape sequences: CSI (colours, cursor moves), OSC
// (titles, hyperlinks; ended by BEL or ST) and two-byte escapes.
var reANSI = regexp.MustCompile("\x1b(?:\\[[0-9;?]*[ -/]*[@-~]|\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|[@-Z\\\\-_])")

// StripANSI removes terminal escape sequences from s, which are neither text
// to find nor to show as plain text.
// Text without an escape byte is s itself: every sequence starts with one,
// and the expression would read the whole text to find none (0.5 CPU-s of
// a cold 1 GB build) and copy it.
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	return reANSI.ReplaceAllString(s, "")
}
