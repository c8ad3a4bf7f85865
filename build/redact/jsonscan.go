package redact

import (
	"bytes"
	"unsafe"

	"ccsite/build/transcript"

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

// frame is an object or array scanJSON is in.
type frame struct {
	obj       int    // index in objs, or -1 for an array
	arr       int    // the array's number, or -1 for an object
	key       string // the current member's name (arrays: their own)
	expectKey bool
}

// scratch holds the slices one line's redaction needs, kept by the
// Redactor for the next line (a build redacts millions).
type scratch struct {
	strs   []jsonString
	objs   []jsonObject
	stack  []frame
	vals   []string
	keys   []string
	groups []int
	at     []int
	raws   [][2]uint64
	// arena holds the line's unquoted values (value), end to end: they
	// live as long as one call of Redactor.line, which keeps none of them
	// (what it writes back is quoted anew), so the next line's overwrite
	// them. A value's own allocation was a sixteenth of all a cold 1 GB
	// build allocated, each a cost to the collector.
	arena []byte
	// deepest is how deep the stack went in this line.
	deepest int
}

// arenaMax is the largest arena a scratch keeps for the next line.
const arenaMax = 1 << 20

// reset drops what the slices point to (the line's bytes): what this
// line used of them, not all they ever held (a line with many strings
// once made every later line clear its room: 0.6 CPU-s of a cold 1 GB
// build).
func (sc *scratch) reset() {
	clear(sc.strs)
	clear(sc.objs)
	clear(sc.stack[:sc.deepest])
	clear(sc.vals)
	clear(sc.keys)
	sc.deepest = 0
	if cap(sc.arena) > arenaMax {
		sc.arena = nil
	}
	sc.arena = sc.arena[:0]
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
func scanJSON(b []byte, sc *scratch) (strs []jsonString, objs []jsonObject, ok bool) {
	strs, objs = sc.strs[:0], sc.objs[:0]
	stack := sc.stack[:0]
	deepest := 0
	defer func() { sc.strs, sc.objs, sc.stack, sc.deepest = strs, objs, stack, max(sc.deepest, deepest) }()
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
				deepest = max(deepest, len(stack))
			} else {
				stack = append(stack, frame{obj: -1, arr: arrays, key: key})
				deepest = max(deepest, len(stack))
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
				stack[n-1].key = view(lit)
				stack[n-1].expectKey = false
				if end-i >= 18 {
					strs = append(strs, jsonString{start: i, end: end, obj: stack[n-1].obj, arr: -1, escaped: esc, isKey: true})
				}
			} else {
				s := jsonString{start: i, end: end, obj: -1, arr: -1, escaped: esc}
				if n > 0 {
					s.key, s.obj, s.arr = stack[n-1].key, stack[n-1].obj, stack[n-1].arr
				}
				if s.obj >= 0 && end-i < 64*6 {
					// Decided on the decoded value: "image\/jpeg" and
					// "bas\u0065" are the same words.
					lit := func() string {
						if !esc {
							return view(b[i+1 : end-1])
						}
						u, err := jsontext.AppendUnquote(nil, b[i:end])
						if err != nil {
							return ""
						}
						return string(u)
					}
					switch s.key {
					case "type":
						objs[s.obj].typ = lit()
					case "media_type":
						objs[s.obj].mediaType = lit()
					case "name", "secret_name", "secretName", "key", "variable", "variable_name", "env", "env_name", "envName":
						if v := lit(); sensitiveKey(v) {
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
// It reads each byte once however many escapes the string holds.
func stringEnd(b []byte, i int) (int, bool) {
	esc := false
	j := i + 1
	q := bytes.IndexByte(b[j:], '"')
	if q < 0 {
		return -1, false
	}
	q += j
	for {
		bs := bytes.IndexByte(b[j:q], '\\')
		if bs < 0 {
			return q + 1, esc
		}
		esc = true
		j += bs + 2 // past the escaped character
		if j > q {
			// The quote itself was escaped: the string goes on.
			if j >= len(b) {
				return -1, esc
			}
			n := bytes.IndexByte(b[j:], '"')
			if n < 0 {
				return -1, esc
			}
			q = j + n
		}
	}
}

// view is b as a string without a copy. The strings scanJSON and value
// give share the line's bytes: they live as long as one call of
// Redactor.line, which never changes the line nor keeps them.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// value decodes a string value's literal, into sc's arena when it has
// escapes: the string is good until sc is reset.
func (s jsonString) value(b []byte, sc *scratch) (string, bool) {
	if !s.escaped {
		return view(b[s.start+1 : s.end-1]), true
	}
	lit := b[s.start:s.end]
	n := len(sc.arena)
	u, ok := transcript.AppendString(sc.arena, lit)
	if !ok {
		var err error
		if u, err = jsontext.AppendUnquote(u[:n], lit); err != nil {
			sc.arena = u[:n]
			return "", false
		}
	}
	// An arena grown anew leaves the values before in the old one, which
	// they keep alive; none is written over until the reset.
	sc.arena = u
	return view(u[n:]), true
}
