// Package omit leaves parts of a transcript out of a site: the model's
// thinking, or what tools returned (the calls stay). It rewrites each raw
// JSONL line before it is parsed, so what it drops reaches no page, export
// or search document, wherever the line carries it: a message's content,
// the structured toolUseResult, streamed progress output, or a sub-agent
// message embedded in a progress record.
package omit

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Options says what to leave out.
type Options struct {
	// Thinking drops thinking and redacted_thinking blocks.
	Thinking bool
	// ToolOutput replaces every tool_result's content with Placeholder and
	// drops toolUseResult and streamed output; the calls are kept.
	ToolOutput bool
}

// Placeholder stands for a tool's output left out.
const Placeholder = "[output left out of this site: --no-tool-output]"

// Active tells whether o changes anything.
func (o Options) Active() bool { return o.Thinking || o.ToolOutput }

// decodeOpts read JSON as the transcript decoder does: a line it accepts
// (invalid UTF-8, a repeated name whose last value counts) is read here
// too, not passed on whole.
var decodeOpts = []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)}

// Line rewrites one raw JSONL line; a line that is not JSON, or holds
// nothing to leave out, comes back as it was. Every JSON value of a line
// holding several is rewritten: the parser recovers a record from each.
func (o Options) Line(_ string, line []byte) []byte {
	if !o.Active() || !o.mayHold(line) {
		return line
	}
	dec := jsontext.NewDecoder(bytes.NewReader(line), decodeOpts...)
	var out []byte
	changed, prev := false, 0
	for {
		v, err := dec.ReadValue()
		if err != nil {
			// The end, or what follows is not JSON: the parser reads
			// nothing from it.
			break
		}
		end := int(dec.InputOffset())
		nv, c, ok := o.value(v)
		if !ok {
			return line
		}
		if c {
			changed = true
			out = append(out, line[prev:end-len(v)]...)
			out = append(out, nv...)
		} else {
			out = append(out, line[prev:end]...)
		}
		prev = end
	}
	if !changed {
		return line
	}
	return append(out, line[prev:]...)
}

// mayHold is a cheap test that the line may hold something to drop. It
// looks at raw bytes, so a line with an escape that could spell part of a
// name or type it looks for (a letter or '_' as \uXXXX) always may.
func (o Options) mayHold(line []byte) bool {
	if letterEscape(line) {
		return true
	}
	if o.Thinking && bytes.Contains(line, []byte(`thinking"`)) {
		return true
	}
	if o.ToolOutput && (bytes.Contains(line, []byte(`"tool_result"`)) || bytes.Contains(line, []byte(`"toolUseResult"`)) ||
		bytes.Contains(line, []byte(`_progress"`))) {
		return true
	}
	return false
}

// letterEscape reports a \uXXXX escape of an ASCII letter or '_' in line
// (or what looks like one: an escaped backslash before "u" counts too).
// Escapes of anything else (ESC, '<', a non-ASCII character) cannot spell
// the ASCII names mayHold looks for.
func letterEscape(line []byte) bool {
	for i := 0; ; {
		j := bytes.Index(line[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if len(line)-i < 4 {
			return false
		}
		r, err := strconv.ParseUint(string(line[i:i+4]), 16, 16)
		if err != nil {
			continue
		}
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return true
		}
	}
}

type member struct {
	name string
	val  jsontext.Value
}

// value rewrites a JSON value; ok is false when it is not valid JSON.
func (o Options) value(v jsontext.Value) (out jsontext.Value, changed, ok bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return v, false, false
	}
	switch v[0] {
	case '{':
		return o.object(v)
	case '[':
		return o.array(v)
	}
	return v, false, v.IsValid(decodeOpts...)
}

func (o Options) object(v jsontext.Value) (jsontext.Value, bool, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), decodeOpts...)
	if _, err := dec.ReadToken(); err != nil {
		return v, false, false
	}
	var members []member
	typ := ""
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return v, false, false
		}
		name := tok.String()
		val, err := dec.ReadValue()
		if err != nil {
			return v, false, false
		}
		val = val.Clone()
		if name == "type" && val.Kind() == '"' {
			if b, err := jsontext.AppendUnquote(nil, val); err == nil {
				typ = string(b)
			}
		}
		members = append(members, member{name, val})
	}
	changed := false
	kept := members[:0]
	for _, m := range members {
		if o.Thinking && isThinkingType(typ) && m.name != "type" {
			// A thinking block met outside a list of blocks (a
			// content that is one object): only its type stays.
			changed = true
			continue
		}
		if o.ToolOutput {
			switch {
			case m.name == "toolUseResult":
				// Only what links a sub-agent stays.
				m.val = keepFacts(m.val)
				changed = true
				if m.val == nil {
					continue
				}
			case typ == "tool_result" && m.name == "content":
				m.val, _ = jsontext.AppendQuote(nil, Placeholder)
				changed = true
			case strings.HasSuffix(typ, "_progress") && typ != "agent_progress" &&
				(m.name == "output" || m.name == "fullOutput" || m.name == "stdout" || m.name == "stderr"):
				changed = true
				continue
			}
		}
		if k := m.val.Kind(); k == '{' || k == '[' {
			nv, c, ok := o.value(m.val)
			if !ok {
				return v, false, false
			}
			if c {
				m.val, changed = nv, true
			}
		}
		kept = append(kept, m)
	}
	if !changed {
		return v, false, true
	}
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	enc.WriteToken(jsontext.BeginObject)
	for _, m := range kept {
		if err := enc.WriteToken(jsontext.String(m.name)); err != nil {
			return v, false, false
		}
		if err := enc.WriteValue(m.val); err != nil {
			return v, false, false
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return v, false, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true, true
}

func (o Options) array(v jsontext.Value) (jsontext.Value, bool, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), decodeOpts...)
	if _, err := dec.ReadToken(); err != nil {
		return v, false, false
	}
	var elems []jsontext.Value
	changed := false
	for dec.PeekKind() != ']' {
		val, err := dec.ReadValue()
		if err != nil {
			return v, false, false
		}
		val = val.Clone()
		if k := val.Kind(); k == '{' || k == '[' {
			if o.Thinking && k == '{' && isThinking(val) {
				changed = true
				continue
			}
			nv, c, ok := o.value(val)
			if !ok {
				return v, false, false
			}
			if c {
				val, changed = nv, true
			}
		}
		elems = append(elems, val)
	}
	if !changed {
		return v, false, true
	}
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	enc.WriteToken(jsontext.BeginArray)
	for _, e := range elems {
		if err := enc.WriteValue(e); err != nil {
			return v, false, false
		}
	}
	if err := enc.WriteToken(jsontext.EndArray); err != nil {
		return v, false, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true, true
}

// isThinking tells whether an object is a thinking block: its type, the
// last one when it has several (as the parser reads it), says so.
func isThinking(v jsontext.Value) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(v), decodeOpts...)
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	typ := ""
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.String() != "type" {
			if err := dec.SkipValue(); err != nil {
				return false
			}
			continue
		}
		t, err := dec.ReadToken()
		if err != nil {
			return false
		}
		typ = ""
		if t.Kind() == '"' {
			typ = t.String()
		}
	}
	return isThinkingType(typ)
}

func isThinkingType(t string) bool { return t == "thinking" || t == "redacted_thinking" }

// facts are the toolUseResult members kept: the id that links a
// sub-agent to its call. Anything more would make the pages read the
// structured result (an empty terminal) instead of the placeholder.
var facts = map[string]bool{"agentId": true}

// keepFacts keeps an object's fact members that are not objects or arrays;
// nil when none is left.
func keepFacts(v jsontext.Value) jsontext.Value {
	if v.Kind() != '{' {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), decodeOpts...)
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf)
	enc.WriteToken(jsontext.BeginObject)
	n := 0
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		name := tok.String()
		val, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		if k := val.Kind(); !facts[name] || k == '{' || k == '[' {
			continue
		}
		if enc.WriteToken(jsontext.String(name)) != nil || enc.WriteValue(val) != nil {
			return nil
		}
		n++
	}
	if n == 0 || enc.WriteToken(jsontext.EndObject) != nil {
		return nil
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
