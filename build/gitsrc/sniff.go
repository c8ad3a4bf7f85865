package gitsrc

import (
	"bytes"
	"encoding/json"
)

// linePrefix is how much of each line the sniffer looks at: the envelope
// fields (cwd, sessionId, type) come before a record's message.
const linePrefix = 64 << 10

// sniffer reads JSONL as it streams past: the first cwd, the last
// sessionId, and how many lines look like records.
type sniffer struct {
	line    []byte
	cwd     string
	sid     string
	records int
	claude  int // lines with a sessionId and a uuid: Claude Code's records

	// uuids keeps the last few whole lines that hold a "uuid" key, for
	// lastUUID.
	uuids bool
	full  []byte
	cands [][]byte
}

// uuidKey is what a line with a uuid holds; with parentKey and leafKey,
// what tells Claude Code's records (with a sessionId) from other agents'
// (Gemini CLI's session, one JSON object, has a sessionId too).
var (
	uuidKey   = []byte(`"uuid"`)
	parentKey = []byte(`"parentUuid"`)
	leafKey   = []byte(`"leafUuid"`)
)

// keptLines is how many lines with a "uuid" key lastUUID may look back
// over: a key inside a record's message is not its own.
const keptLines = 4

func (s *sniffer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if s.uuids {
			s.full = append(s.full, chunk...)
		}
		if room := linePrefix - len(s.line); room > 0 {
			if len(chunk) > room {
				chunk = chunk[:room]
			}
			s.line = append(s.line, chunk...)
		}
		if i < 0 {
			break
		}
		s.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// finish takes a last line with no newline.
func (s *sniffer) finish() {
	if len(s.line) > 0 || len(s.full) > 0 {
		s.endLine()
	}
}

// keepLine keeps the whole line just ended when it holds a "uuid" key.
func (s *sniffer) keepLine() {
	if !bytes.Contains(s.full, uuidKey) {
		s.full = s.full[:0]
		return
	}
	var spare []byte
	if len(s.cands) == keptLines {
		spare = s.cands[0][:0]
		s.cands = append(s.cands[:0], s.cands[1:]...)
	}
	s.cands = append(s.cands, s.full)
	s.full = spare
}

// lastUUID is the uuid of the last record that has one (its own, at the
// top level of the line), "" when none of the last lines with the key
// has one.
func (s *sniffer) lastUUID() string {
	for i := len(s.cands) - 1; i >= 0; i-- {
		var rec struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal(s.cands[i], &rec) == nil && rec.UUID != "" {
			return rec.UUID
		}
	}
	return ""
}

func (s *sniffer) endLine() {
	if s.uuids {
		s.keepLine()
	}
	line := bytes.TrimSpace(s.line)
	s.line = s.line[:0]
	if len(line) == 0 || line[0] != '{' {
		return
	}
	sid, hasSID := field(line, "sessionId")
	_, hasType := field(line, "type")
	if !hasSID && !hasType {
		return
	}
	s.records++
	if hasSID && (bytes.Contains(line, parentKey) || bytes.Contains(line, leafKey) || bytes.Contains(line, uuidKey)) {
		s.claude++
	}
	if sid != "" {
		s.sid = sid
	}
	if s.cwd == "" {
		s.cwd, _ = field(line, "cwd")
	}
}

// field finds the first "key": "string" in a line and decodes the string;
// ok says whether the key was there at all. Quotes inside JSON strings are
// escaped, so the first match is a real key: in a record, the envelope's.
func field(line []byte, key string) (value string, ok bool) {
	pat := []byte(`"` + key + `"`)
	for from := 0; ; {
		i := bytes.Index(line[from:], pat)
		if i < 0 {
			return "", false
		}
		j := from + i + len(pat)
		from = j
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j >= len(line) || line[j] != ':' {
			continue
		}
		j++
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j >= len(line) || line[j] != '"' {
			return "", true
		}
		end := j + 1
		for end < len(line) && line[end] != '"' {
			if line[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(line) {
			return "", true
		}
		var v string
		if json.Unmarshal(line[j:end+1], &v) != nil {
			return "", true
		}
		return v, true
	}
}
