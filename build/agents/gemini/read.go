package gemini

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// metadata is a session's own description: the first line of a .jsonl
// (and what "$set" lines change), the top-level members of a .json.
type metadata struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	Summary     string `json:"summary"`
	Kind        string `json:"kind"`
}

// message is one MessageRecord (chatRecordingTypes.ts) and the log
// line it was read from.
type message struct {
	wire
	raw jsontext.Value // the message as written
}

// wire is a .jsonl line as decoded: a message, or a "$set" or
// "$rewindTo" operation. Its fields are of the kinds transcript.FastInto
// reads, so that a line is decoded in one pass.
type wire struct {
	ID             string         `json:"id"`
	Timestamp      string         `json:"timestamp"`
	Type           string         `json:"type"`
	Content        jsontext.Value `json:"content"`
	DisplayContent jsontext.Value `json:"displayContent"`
	Thoughts       []thought      `json:"thoughts"`
	Tokens         tokens         `json:"tokens"`
	Model          string         `json:"model"`
	ToolCalls      []toolCall     `json:"toolCalls"`

	Set      jsontext.Value `json:"$set"`
	RewindTo jsontext.Value `json:"$rewindTo"`
	Patch    jsontext.Value `json:"$patch"`
}

type thought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Timestamp   string `json:"timestamp"`
}

// tokens is TokensSummary: input includes cached; thoughts and tool are
// counted apart from output and input.
type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
	Total    int64 `json:"total"`
}

// toolCall is ToolCallRecord.
type toolCall struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Args          jsontext.Value `json:"args"`
	Result        jsontext.Value `json:"result"`
	Status        string         `json:"status"`
	Timestamp     string         `json:"timestamp"`
	DisplayName   string         `json:"displayName"`
	Description   string         `json:"description"`
	ResultDisplay jsontext.Value `json:"resultDisplay"`
}

// entry is a message in the log. The live conversation is a chain, each
// message after the one before it; a message dropped from it (by a
// rewind, a "$set" of messages, a patch's removeIds) keeps the one it
// followed then as its parent, so that what was dropped stays a branch.
type entry struct {
	msg    *message
	parent *entry // set when it is dropped
	live   bool
	first  string // its first record's uuid
	last   string // its last record's uuid
}

// chatLog replays a session file.
type chatLog struct {
	path     string
	meta     metadata
	entries  []*entry // in the order they were first written
	live     []*entry // the conversation as it stands
	byID     map[string]*entry
	problems []transcript.Problem
}

func newLog(path string) *chatLog { return &chatLog{path: path, byID: map[string]*entry{}} }

// add appends m, or replaces the live message with its id.
func (l *chatLog) add(m *message, replace bool) {
	if e, ok := l.byID[m.ID]; ok && replace && m.ID != "" {
		e.msg = m
		return
	}
	e := &entry{msg: m, live: true}
	l.entries = append(l.entries, e)
	l.live = append(l.live, e)
	if m.ID != "" {
		l.byID[m.ID] = e
	}
}

// keep replaces the live conversation by live; the entries it leaves out
// are dropped, each hanging from the one it followed.
func (l *chatLog) keep(live []*entry) {
	in := make(map[*entry]bool, len(live))
	for _, e := range live {
		in[e] = true
	}
	var prev *entry
	for _, e := range l.live {
		if !in[e] {
			e.live, e.parent = false, prev
			if l.byID[e.msg.ID] == e {
				delete(l.byID, e.msg.ID)
			}
		}
		prev = e
	}
	l.live = live
}

// rewind drops the message id and every one after it from the live
// conversation; they stay in entries, as an abandoned branch.
func (l *chatLog) rewind(id string, line int) {
	e, ok := l.byID[id]
	if !ok {
		// Gemini CLI empties the conversation then; what it held is
		// kept here, and said.
		l.problem(line, fmt.Sprintf("$rewindTo names message %q, which the session does not hold", id), nil)
		return
	}
	if i := slices.Index(l.live, e); i >= 0 {
		l.keep(slices.Clip(l.live[:i]))
	}
}

// setMessages replaces the conversation by ms: a message already there is
// the same message (moved, replaced); the others are dropped from the
// live conversation, never from the file.
func (l *chatLog) setMessages(ms []*message) {
	var live []*entry
	var fresh []*message
	seen := map[*entry]bool{}
	for _, m := range ms {
		if e, ok := l.byID[m.ID]; ok && m.ID != "" && !seen[e] {
			seen[e] = true
			e.msg = m
			live = append(live, e)
			continue
		}
		live = append(live, nil)
		fresh = append(fresh, m)
	}
	l.keep(slices.DeleteFunc(slices.Clone(live), func(e *entry) bool { return e == nil }))
	// The new messages take their places among the kept ones.
	var out []*entry
	for _, e := range live {
		if e == nil {
			l.add(fresh[0], true)
			fresh = fresh[1:]
			e = l.live[len(l.live)-1]
		}
		out = append(out, e)
	}
	l.live = out
}

// patchOp is a "$patch" (chatRecordingTypes.ts MessagePatchRecord): one
// message's new content or tool results, or several (updates), messages
// removed (removeIds), messages put last in this order (orderIds).
type patchOp struct {
	ID        string           `json:"id"`
	Content   jsontext.Value   `json:"content"`
	ToolCalls []toolPatch      `json:"toolCalls"`
	Updates   []jsontext.Value `json:"updates"`
	RemoveIDs []string         `json:"removeIds"`
	OrderIDs  []string         `json:"orderIds"`
}

type toolPatch struct {
	ID     string         `json:"id"`
	Result jsontext.Value `json:"result"`
}

func (l *chatLog) patch(raw jsontext.Value, n int) {
	var p patchOp
	if raw.Kind() != '{' || !into(raw, &p) {
		l.problem(n, "$patch is not a message patch", raw)
		return
	}
	if p.ID != "" {
		l.patchOne(p)
	}
	for _, u := range p.Updates {
		var one patchOp
		if into(u, &one) && one.ID != "" {
			l.patchOne(one)
		}
	}
	if len(p.RemoveIDs) > 0 {
		gone := map[string]bool{}
		for _, id := range p.RemoveIDs {
			gone[id] = true
		}
		l.keep(slices.DeleteFunc(slices.Clone(l.live), func(e *entry) bool { return gone[e.msg.ID] }))
	}
	if len(p.OrderIDs) > 0 {
		var ordered []*entry
		put := map[*entry]bool{}
		for _, id := range p.OrderIDs {
			if e := l.byID[id]; e != nil && !put[e] {
				put[e] = true
				ordered = append(ordered, e)
			}
		}
		rest := slices.DeleteFunc(slices.Clone(l.live), func(e *entry) bool { return put[e] })
		l.live = append(rest, ordered...)
	}
}

// patchOne applies one message's patch: its content, its calls' results.
func (l *chatLog) patchOne(p patchOp) {
	e := l.byID[p.ID]
	if e == nil {
		return // as Gemini CLI does: a patch of a message it does not hold
	}
	m := *e.msg
	if len(p.Content) > 0 {
		m.Content = p.Content
	}
	if len(p.ToolCalls) > 0 && m.Type == "gemini" {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		for _, tp := range p.ToolCalls {
			for i := range m.ToolCalls {
				if m.ToolCalls[i].ID == tp.ID && len(tp.Result) > 0 {
					m.ToolCalls[i].Result = tp.Result
					break
				}
			}
		}
	}
	e.msg = &m
}

func (l *chatLog) problem(line int, reason string, raw []byte) {
	l.problems = append(l.problems, transcript.Problem{File: l.path, Line: line, Reason: reason, Excerpt: excerpt(raw)})
}

func excerpt(b []byte) string {
	const n = 120
	if len(b) > n {
		return strings.ToValidUTF8(string(b[:n]), "") + "…"
	}
	return strings.ToValidUTF8(string(b), "")
}

// Read reads a session file as Claude-Code-shaped records. filter (the
// redaction) sees each raw line of a .jsonl, or the whole of a .json,
// before it is decoded. Lines it cannot read are Problems with their file
// and line; the error is for a file that cannot be read at all.
func Read(path string, filter transcript.Filter) (*transcript.File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := newLog(path)
	if strings.HasSuffix(path, ".jsonl") || looksJSONL(data) {
		l.readJSONL(data, filter)
	} else if filter != nil {
		l.readJSON(filter(path, data))
	} else {
		l.readJSON(data)
	}
	out := &transcript.File{Path: path, Bytes: int64(len(data))}
	// The project's path is found in what was written (a path hashes to
	// the folder's name only as written), then filtered as the lines are:
	// anonymised, redacted.
	cwd := newNamer(geminiHome(path)).projectOf(path, l.meta.ProjectHash, data)
	l.emit(out, filterString(filter, path, cwd))
	out.Problems = append(out.Problems, l.problems...)
	out.Lines = len(out.Records) + len(out.Problems)
	return out, nil
}

// filterString passes s through filter as a JSON line's string does.
func filterString(filter transcript.Filter, path, s string) string {
	if filter == nil || s == "" {
		return s
	}
	var v struct {
		CWD string `json:"cwd"`
	}
	line, err := json.Marshal(struct {
		CWD string `json:"cwd"`
	}{s})
	if err != nil || transcript.Unmarshal(filter(path, line), &v) != nil {
		return ""
	}
	return v.CWD
}

// looksJSONL tells a .jsonl given another name by its first line: a whole
// object on a line of its own, followed by more.
func looksJSONL(data []byte) bool {
	first, rest, ok := bytes.Cut(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"))
	first = bytes.TrimSpace(first)
	return ok && len(bytes.TrimSpace(rest)) > 0 && len(first) > 1 && first[0] == '{' && first[len(first)-1] == '}' && jsontext.Value(first).IsValid()
}

// readJSONL replays the log: a metadata line, messages (a known id
// replaces its message), {"$set": …} and {"$rewindTo": id}.
func (l *chatLog) readJSONL(data []byte, filter transcript.Filter) {
	n := 0
	for len(data) > 0 {
		n++
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if filter != nil {
			line = filter(l.path, line)
		}
		l.line(line, n)
	}
}

func (l *chatLog) line(line []byte, n int) {
	if line[0] != '{' {
		l.problem(n, "not a JSON object", line)
		return
	}
	m, ok := l.message(line, n)
	if !ok {
		return
	}
	switch {
	case m.RewindTo.Kind() == '"':
		l.rewind(strOf(m.RewindTo), n)
	case len(m.Patch) > 0:
		l.patch(m.Patch, n)
	case m.ID != "" || m.Type != "":
		l.add(m, true)
	case len(m.Set) > 0:
		l.metadata(m.Set, n)
	case bytes.Contains(line, []byte(`"$`)) && hasDollarKey(line):
		// A log operation newer than this reader: kept and shown raw.
		l.add(&message{wire: wire{Type: "operation"}, raw: line}, false)
	default:
		l.metadata(line, n)
	}
}

// hasDollarKey reports a top-level member named "$…".
func hasDollarKey(line []byte) bool {
	obj, ok := transcript.FastObject(line)
	if !ok {
		var m map[string]jsontext.Value
		if transcript.Unmarshal(line, &m) != nil {
			return false
		}
		obj = m
	}
	for k := range obj {
		if strings.HasPrefix(k, "$") {
			return true
		}
	}
	return false
}

// metadata merges a metadata object; its messages, when it has them,
// replace the conversation.
func (l *chatLog) metadata(obj jsontext.Value, n int) {
	var m metadata
	if err := transcript.Unmarshal(obj, &m); err != nil {
		l.problem(n, "metadata: "+err.Error(), obj)
		return
	}
	l.meta.merge(m)
	var ms struct {
		Messages []jsontext.Value `json:"messages"`
	}
	if transcript.Unmarshal(obj, &ms) != nil || ms.Messages == nil {
		return
	}
	var list []*message
	for _, raw := range ms.Messages {
		if m, ok := l.message(raw, n); ok {
			list = append(list, m)
		}
	}
	l.setMessages(list)
}

func (m *metadata) merge(o metadata) {
	for _, f := range []struct{ dst, src *string }{
		{&m.SessionID, &o.SessionID}, {&m.ProjectHash, &o.ProjectHash}, {&m.StartTime, &o.StartTime},
		{&m.LastUpdated, &o.LastUpdated}, {&m.Summary, &o.Summary}, {&m.Kind, &o.Kind},
	} {
		if *f.src != "" {
			*f.dst = *f.src
		}
	}
}

// message decodes one message (or log line); one it cannot is a problem
// at line n.
func (l *chatLog) message(raw []byte, n int) (*message, bool) {
	m := &message{raw: raw}
	if !transcript.FastInto(raw, &m.wire) {
		if err := transcript.Unmarshal(raw, &m.wire); err != nil {
			reason := "invalid JSON"
			if jsontext.Value(raw).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
				reason = "message: " + err.Error()
			}
			l.problem(n, reason, raw)
			return nil, false
		}
	}
	return m, true
}

// readJSON reads the older form: one ConversationRecord object. A message
// that cannot be read is a problem at its line; the others are kept.
func (l *chatLog) readJSON(data []byte) {
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		for off < int64(len(data)) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\r' || data[off] == '\n' || data[off] == ',') {
			off++
		}
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	fail := func(err error) { l.problem(lineAt(dec.InputOffset()), "invalid JSON: "+err.Error(), nil) }
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		if err == nil {
			err = fmt.Errorf("a session file is a JSON object, not %v", tok.Kind())
		}
		fail(err)
		return
	}
	var head bytes.Buffer
	head.WriteByte('{')
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			fail(err)
			break
		}
		name := tok.String() // before the next read voids tok
		if name == "messages" && dec.PeekKind() == '[' {
			if !l.jsonMessages(dec, lineAt, fail) {
				break
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			fail(err)
			break
		}
		if head.Len() > 1 {
			head.WriteByte(',')
		}
		nm, _ := jsontext.AppendQuote(nil, name)
		head.Write(nm)
		head.WriteByte(':')
		head.Write(v)
	}
	head.WriteByte('}')
	_ = transcript.Unmarshal(head.Bytes(), &l.meta)
}

// jsonMessages reads the messages array; false when the file ends badly.
func (l *chatLog) jsonMessages(dec *jsontext.Decoder, lineAt func(int64) int, fail func(error)) bool {
	if _, err := dec.ReadToken(); err != nil {
		fail(err)
		return false
	}
	for dec.PeekKind() != ']' {
		line := lineAt(dec.InputOffset())
		v, err := dec.ReadValue()
		if err != nil {
			fail(err)
			return false
		}
		if m, ok := l.message(v.Clone(), line); ok {
			l.add(m, false)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		fail(err)
		return false
	}
	return true
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
