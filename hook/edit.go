package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// The hook is added to a settings file by inserting its text at one place:
// every byte outside the insertion stays as it was, the other settings'
// spacing, order, escapes and numbers as written. The inserted text follows
// the file's own layout: indented like its neighbours in a file written
// one member a line (tabs or spaces, as many as the file uses), on the
// same line in a container written on one line.

// span is where a JSON value is in the file: data[start:end].
type span struct{ start, end int }

// memberSpan is the span of the value of the last member named key of the
// object at s in data (the member encoding/json reads), ok false when
// there is none.
func memberSpan(data []byte, s span, key string) (span, bool, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data[s.start:s.end]),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return span{}, false, errors.New("not an object")
	}
	var found span
	ok := false
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return span{}, false, err
		}
		name := tok.String() // before the next read
		v, err := dec.ReadValue()
		if err != nil {
			return span{}, false, err
		}
		if name == key {
			end := s.start + int(dec.InputOffset())
			found, ok = span{end - len(v), end}, true
		}
	}
	return found, ok, nil
}

// valueSpan is the span of the one value in data, without the space
// around it.
func valueSpan(data []byte) span {
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	end := len(bytes.TrimRight(data, " \t\r\n"))
	return span{start, end}
}

// layout is how a container is written: on one line (inline) or one
// member a line, and then each member's indentation and one level's.
type layout struct {
	inline bool
	member string // a member's indentation
	unit   string // one level of indentation
	spaced bool   // inline with a space after each : and ,
}

// layoutOf reads the layout of the container at s; unit is the file's
// level of indentation, used in an empty container.
func layoutOf(data []byte, s span, unit string) layout {
	inner := data[s.start+1 : s.end-1]
	first := bytes.TrimLeft(inner, " \t\r\n")
	if len(first) == 0 { // empty: a member a line, one level in
		return layout{member: lineIndent(data, s.start) + unit, unit: unit}
	}
	lead := inner[:len(inner)-len(first)]
	nl := bytes.LastIndexByte(lead, '\n')
	if nl < 0 {
		return layout{inline: true, spaced: bytes.Contains(inner, []byte(", ")) || bytes.Contains(inner, []byte(": ")), unit: unit}
	}
	return layout{member: string(bytes.TrimRight(lead[nl+1:], "\r")), unit: unit}
}

// lineIndent is the space at the start of the line holding data[i].
func lineIndent(data []byte, i int) string {
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// fileUnit is one level of indentation in the file whose top object is at
// s: its first member's indentation when the object is written a member a
// line, else two spaces (as Claude Code writes).
func fileUnit(data []byte, s span) string {
	if l := layoutOf(data, s, ""); !l.inline && l.member != "" {
		return l.member
	}
	return "  "
}

// render writes the JSON value v (compact, from marshal) for a place with
// layout l: indented from the member's indentation, or on one line.
func (l layout) render(v []byte) []byte {
	if l.inline {
		if !l.spaced {
			return v
		}
		return spaceOut(v)
	}
	var b bytes.Buffer
	json.Indent(&b, v, l.member, l.unit)
	return b.Bytes()
}

// insert adds text (a member "key": value, or an element) as the last
// member of the container at s.
func insert(data []byte, s span, l layout, text []byte) []byte {
	body := bytes.TrimRight(data[:s.end-1], " \t\r\n") // up to the last member
	empty := len(body) == s.start+1
	var add []byte
	switch {
	case l.inline && empty:
		add = text
	case l.inline && l.spaced:
		add = append([]byte(", "), text...)
	case l.inline:
		add = append([]byte(","), text...)
	default:
		nl := newline(data)
		text = bytes.ReplaceAll(text, []byte("\n"), nl)
		if !empty {
			add = append(add, ',')
		}
		add = append(add, nl...)
		add = append(add, l.member...)
		add = append(add, text...)
		if empty { // the closing bracket on a line of its own
			add = append(add, nl...)
			add = append(add, lineIndent(data, s.start)...)
		}
	}
	at := len(body)
	if empty && !l.inline {
		at = s.start + 1
		// What was between the brackets (space) goes: the bracket is on
		// its own line now.
		out := append([]byte{}, data[:at]...)
		out = append(out, add...)
		return append(out, data[s.end-1:]...)
	}
	out := append([]byte{}, data[:at]...)
	out = append(out, add...)
	return append(out, data[at:]...)
}

// replace puts text in place of the value at s.
func replace(data []byte, s span, text []byte) []byte {
	out := append([]byte{}, data[:s.start]...)
	out = append(out, text...)
	return append(out, data[s.end:]...)
}

// newline is the file's line ending.
func newline(data []byte) []byte {
	if bytes.Contains(data, []byte("\r\n")) {
		return []byte("\r\n")
	}
	return []byte("\n")
}

// spaceOut puts a space after each : and , outside strings of compact
// JSON.
func spaceOut(v []byte) []byte {
	var b bytes.Buffer
	in, esc := false, false
	for _, c := range v {
		b.WriteByte(c)
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.Bytes()
}

// member is the text of a member "key": value, value written for l.
func member(key string, v []byte, l layout) ([]byte, error) {
	k, err := marshal(key, false)
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", key, err)
	}
	out := append(bytes.TrimSpace(k), ':')
	if !l.inline || l.spaced {
		out = append(out, ' ')
	}
	return append(out, l.render(v)...), nil
}

// insertHook adds the matcher group (compact JSON) at the end of the
// SessionEnd list of settings, making the list and the "hooks" object
// when missing (or null), and changes no other byte.
func insertHook(settings, group []byte) ([]byte, error) {
	list := append(append([]byte("["), group...), ']')
	if len(bytes.TrimSpace(settings)) == 0 {
		return marshal(map[string]any{"hooks": map[string]json.RawMessage{Event: list}}, true)
	}
	hooksValue := append(append([]byte(`{"`+Event+`":`), list...), '}')
	top := valueSpan(settings)
	unit := fileUnit(settings, top)
	topLayout := layoutOf(settings, top, unit)
	hooks, ok, err := memberSpan(settings, top, "hooks")
	switch {
	case err != nil:
		return nil, err
	case !ok:
		m, err := member("hooks", hooksValue, topLayout)
		if err != nil {
			return nil, err
		}
		return insert(settings, top, topLayout, m), nil
	case isNull(settings, hooks):
		return replace(settings, hooks, topLayout.render(hooksValue)), nil
	}
	hooksLayout := layoutOf(settings, hooks, unit)
	end, ok, err := memberSpan(settings, hooks, Event)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		m, err := member(Event, list, hooksLayout)
		if err != nil {
			return nil, err
		}
		return insert(settings, hooks, hooksLayout, m), nil
	case isNull(settings, end):
		return replace(settings, end, hooksLayout.render(list)), nil
	}
	endLayout := layoutOf(settings, end, unit)
	return insert(settings, end, endLayout, endLayout.render(group)), nil
}

func isNull(data []byte, s span) bool { return string(data[s.start:s.end]) == "null" }

// elementSpans are the spans of the elements of the list at s.
func elementSpans(data []byte, s span) ([]span, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data[s.start:s.end]),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, errors.New("not a list")
	}
	var out []span
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		end := s.start + int(dec.InputOffset())
		out = append(out, span{end - len(v), end})
	}
	return out, nil
}

// replaceCommand puts command in place of the first SessionEnd command
// hook whose command is old, and tells whether there was one. Only that
// string changes.
func replaceCommand(settings []byte, old, command string) ([]byte, bool) {
	top := valueSpan(settings)
	hooks, ok, err := memberSpan(settings, top, "hooks")
	if err != nil || !ok || isNull(settings, hooks) {
		return settings, false
	}
	end, ok, err := memberSpan(settings, hooks, Event)
	if err != nil || !ok || isNull(settings, end) {
		return settings, false
	}
	groups, err := elementSpans(settings, end)
	if err != nil {
		return settings, false
	}
	for _, g := range groups {
		list, ok, err := memberSpan(settings, g, "hooks")
		if err != nil || !ok || settings[list.start] != '[' {
			continue
		}
		handlers, err := elementSpans(settings, list)
		if err != nil {
			continue
		}
		for _, h := range handlers {
			var hd handler
			if settings[h.start] != '{' || json.Unmarshal(settings[h.start:h.end], &hd) != nil || hd.Type != "command" || hd.Command != old {
				continue
			}
			c, ok, err := memberSpan(settings, h, "command")
			if err != nil || !ok {
				continue
			}
			text, err := marshal(command, false)
			if err != nil {
				return settings, false
			}
			return replace(settings, c, bytes.TrimSpace(text)), true
		}
	}
	return settings, false
}
