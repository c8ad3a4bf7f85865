package redact

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// jsonString is one string value of a JSON text (never a member name):
// where its literal stands, the member it is the value of, and the
// object that holds it.
type jsonString struct {
	start, end int    // the literal, quotes included
	key        string // the member name it is (an element of) the value of
	obj        int    // the enclosing object in objects, or -1
	arr        int    // the array it is an element of (numbered), or -1
	escaped    bool   // the literal holds a backslash
	// isKey marks a member name long enough to be worth a look (names
	// are structure, but a tool's output parsed as JSON may use anything
	// as a name).
	isKey bool
}

// jsonObject is what an object says of its binary members: a content
// block's source ({"type":"base64","media_type":…,"data":…}) or a Read
// result's file ({"type":"image/png","base64":…}).
type jsonObject struct {
	typ, mediaType string
	// secretName is the value of a member that names a secret
	// ({"secret_name": "DB_PASSWORD", "value": …}, as a tool that sets
	// secrets or variables takes them).
	secretName string
}

// scanJSON lists the string values of a JSON text and what their objects
// say of their type. ok is false when the text is not well-formed JSON
// as far as strings and nesting go (the caller then scans it as text).
func scanJSON(b []byte) (strs []jsonString, objs []jsonObject, ok bool) {
	type frame struct {
		obj       int    // index in objs, or -1 for an array
		arr       int    // the array's number, or -1 for an object
		key       string // the current member's name (arrays: their own)
		expectKey bool
	}
	stack := make([]frame, 0, 16)
	arrays := 0
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[':
			key := ""
			if n := len(stack); n > 0 {
				key = stack[n-1].key
			}
			if c == '{' {
				objs = append(objs, jsonObject{})
				stack = append(stack, frame{obj: len(objs) - 1, arr: -1, key: key, expectKey: true})
			} else {
				stack = append(stack, frame{obj: -1, arr: arrays, key: key})
				arrays++
			}
			i++
		case '}', ']':
			if len(stack) == 0 {
				return nil, nil, false
			}
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if n := len(stack); n > 0 && stack[n-1].obj >= 0 {
				stack[n-1].expectKey = true
			}
			i++
		case '"':
			end, esc := stringEnd(b, i)
			if end < 0 {
				return nil, nil, false
			}
			n := len(stack)
			if n > 0 && stack[n-1].obj >= 0 && stack[n-1].expectKey {
				lit := b[i+1 : end-1]
				if esc {
					if u, err := jsontext.AppendUnquote(nil, b[i:end]); err == nil {
						lit = u
					}
				}
				stack[n-1].key = string(lit)
				stack[n-1].expectKey = false
				if end-i >= 18 {
					strs = append(strs, jsonString{start: i, end: end, obj: stack[n-1].obj, arr: -1, escaped: esc, isKey: true})
				}
			} else {
				s := jsonString{start: i, end: end, obj: -1, arr: -1, escaped: esc}
				if n > 0 {
					s.key, s.obj, s.arr = stack[n-1].key, stack[n-1].obj, stack[n-1].arr
				}
				if s.obj >= 0 && !esc && end-i < 64 {
					switch s.key {
					case "type":
						objs[s.obj].typ = string(b[i+1 : end-1])
					case "media_type":
						objs[s.obj].mediaType = string(b[i+1 : end-1])
					case "name", "secret_name", "secretName", "key", "variable", "variable_name", "env", "env_name", "envName":
						if v := string(b[i+1 : end-1]); sensitiveKey(v) {
							objs[s.obj].secretName = v
						}
					}
				}
				strs = append(strs, s)
			}
			i = end
		default:
			i++
		}
	}
	return strs, objs, len(stack) == 0
}

// stringEnd returns the index just past the string literal starting at
// b[i] (a quote), and whether it holds an escape; -1 when it never ends.
func stringEnd(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1, esc
		}
		q += j
		bs := bytes.IndexByte(b[j:q], '\\')
		if bs < 0 {
			return q + 1, esc
		}
		// An escape before the quote: step over it and look again.
		esc = true
		j += bs + 2
	}
	return -1, esc
}

// value decodes a string value's literal.
func (s jsonString) value(b []byte) (string, bool) {
	if !s.escaped {
		return string(b[s.start+1 : s.end-1]), true
	}
	u, err := jsontext.AppendUnquote(nil, b[s.start:s.end])
	if err != nil {
		return "", false
	}
	return string(u), true
}
