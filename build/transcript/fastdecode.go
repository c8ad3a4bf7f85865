package transcript

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeFast decodes line into *rec, which must be zero, and reports whether
// it did. When it returns true, *rec is exactly what json.Unmarshal(line,
// rec, decodeOpts) gives; when it returns false, *rec holds garbage and the
// caller must reset it and use that path instead.
//
// json.Unmarshal finds its way through reflection and was the biggest cost of
// a warm rebuild; this scanner knows the record's shape and reads the line
// once, over twice as fast (BenchmarkDecodeCorpus). It only takes what it is sure to decode
// as json does and refuses the rest: invalid UTF-8 and lone surrogates (which
// json replaces by U+FFFD), escaped member names, numbers an int field would
// reject, nesting deeper than maxFastDepth, and a second member of a name
// that json merges into the first (a struct or a Content). A repeated member
// of any other known name simply replaces the first, as it does in json.
// Invalid JSON anywhere in the line, even in a member it skips, is refused,
// since json rejects the whole line for it.
//
// These rules were checked against the json package by the tests of
// fastdecode_test.go, and FuzzFastDecode keeps checking them.
func decodeFast(rec *Record, line []byte) bool {
	s := fastScanner{b: line}
	s.space()
	if !s.record(rec) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

// maxFastDepth is the deepest nesting of arrays and objects decodeFast reads,
// far below the 10000 json allows; deeper lines take the slow path.
const maxFastDepth = 500

// fastScanner reads JSON from b, at i.
type fastScanner struct {
	b     []byte
	i     int
	depth int
	// valid marks b as JSON this package's decoding already accepted:
	// a string skip passes is only looked through for its closing quote
	// (skipString), at IndexByte's speed, not checked again.
	valid bool
}

// Every reader of a value below starts at the value's first byte (the
// whitespace before it skipped) and stops right after its last.

// record reads the line's object into r.
func (s *fastScanner) record(r *Record) bool {
	return s.object(func(name []byte) bool { return s.envelope(r, name) })
}

// envelope reads a member of the envelope records share (Record's fields
// from Type to ParentToolUseID), most of the members of a line, and hands
// any other to recordBody.
func (s *fastScanner) envelope(r *Record, name []byte) bool {
	switch string(name) {
	case "type":
		return s.str(&r.Type)
	case "subtype":
		return s.str(&r.Subtype)
	case "uuid":
		return s.str(&r.UUID)
	case "parentUuid":
		return s.str(&r.ParentUUID)
	case "logicalParentUuid":
		return s.str(&r.LogicalParentUUID)
	case "sessionId":
		return s.str(&r.SessionID)
	case "timestamp":
		return s.str(&r.Timestamp)
	case "cwd":
		return s.str(&r.CWD)
	case "version":
		return s.str(&r.Version)
	case "gitBranch":
		return s.str(&r.GitBranch)
	case "isSidechain":
		return s.boolean(&r.IsSidechain)
	case "userType":
		return s.str(&r.UserType)
	case "slug":
		return s.str(&r.Slug)
	case "agentId":
		return s.str(&r.AgentID)
	case "entrypoint":
		return s.str(&r.Entrypoint)
	case "isMeta":
		return s.boolean(&r.IsMeta)
	case "permissionMode":
		return s.str(&r.PermissionMode)
	case "promptId":
		return s.str(&r.PromptID)
	case "requestId":
		return s.str(&r.RequestID)
	case "isCompactSummary":
		return s.boolean(&r.IsCompactSummary)
	case "isVisibleInTranscriptOnly":
		return s.boolean(&r.IsVisibleInTranscriptOnly)
	case "isApiErrorMessage":
		return s.boolean(&r.IsAPIErrorMessage)
	case "sourceToolAssistantUUID":
		return s.str(&r.SourceToolAssistantUUID)
	case "sourceToolUseID":
		return s.str(&r.SourceToolUseID)
	case "toolUseID":
		return s.str(&r.ToolUseID)
	case "parentToolUseID":
		return s.str(&r.ParentToolUseID)
	}
	return s.recordBody(r, name)
}

// recordBody reads a member of the fields of a record's type, or skips
// an unknown one.
func (s *fastScanner) recordBody(r *Record, name []byte) bool {
	switch string(name) {
	case "message":
		return pointer(s, &r.Message, (*fastScanner).message)
	case "toolUseResult":
		return s.raw(&r.ToolUseResult)
	case "planContent":
		return s.str(&r.PlanContent)
	case "todos":
		return s.raw(&r.Todos)
	case "error":
		return s.raw(&r.Error)
	case "content":
		return s.raw(&r.Content)
	case "level":
		return s.str(&r.Level)
	case "durationMs":
		return s.float(&r.DurationMs)
	case "retryAttempt":
		return integer(s, &r.RetryAttempt)
	case "maxRetries":
		return integer(s, &r.MaxRetries)
	case "retryInMs":
		return s.float(&r.RetryInMs)
	case "compactMetadata":
		return pointer(s, &r.CompactMetadata, (*fastScanner).compactMetadata)
	case "microcompactMetadata":
		return pointer(s, &r.MicrocompactMetadata, (*fastScanner).microcompactMetadata)
	case "hookCount":
		return integer(s, &r.HookCount)
	case "hookInfos":
		return s.raw(&r.HookInfos)
	case "hookErrors":
		return s.raw(&r.HookErrors)
	case "preventedContinuation":
		return s.boolean(&r.PreventedContinue)
	case "stopReason":
		return s.str(&r.StopReason)
	case "promptSource":
		return s.str(&r.PromptSource)
	case "effort":
		return s.str(&r.Effort)
	case "attributionAgent":
		return s.str(&r.AttributionAgent)
	case "attributionSkill":
		return s.str(&r.AttributionSkill)
	case "attributionMcpServer":
		return s.str(&r.AttributionMCPServer)
	case "attributionMcpTool":
		return s.str(&r.AttributionMCPTool)
	case "advisorModel":
		return s.str(&r.AdvisorModel)
	case "continuedInSessionId":
		return s.str(&r.ContinuedInSessionID)
	case "summary":
		return s.str(&r.Summary)
	case "leafUuid":
		return s.str(&r.LeafUUID)
	case "data":
		return pointer(s, &r.Data, (*fastScanner).progressData)
	case "attachment":
		return pointer(s, &r.Attachment, (*fastScanner).attachment)
	case "operation":
		return s.str(&r.Operation)
	case "prNumber":
		return integer(s, &r.PRNumber)
	case "prUrl":
		return s.str(&r.PRURL)
	case "prRepository":
		return s.str(&r.PRRepository)
	case "customTitle":
		return s.str(&r.CustomTitle)
	case "aiTitle":
		return s.str(&r.AITitle)
	case "agentName":
		return s.str(&r.AgentName)
	case "lastPrompt":
		return s.str(&r.LastPrompt)
	case "mode":
		return s.str(&r.Mode)
	case "messageId":
		return s.str(&r.MessageID)
	case "isSnapshotUpdate":
		return s.boolean(&r.IsSnapshotUpdate)
	}
	// Line, Raw and Time are not JSON members ("-"): their names are
	// unknown ones like any other, skipped.
	return s.skip()
}

// The pointer members above and below follow one pattern: a repeated member
// is refused (json would merge the second object into the first), null
// leaves the pointer nil, and an object gets a new struct.

func (s *fastScanner) message(m *Message) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return s.str(&m.ID)
		case "type":
			return s.str(&m.Type)
		case "role":
			return s.str(&m.Role)
		case "model":
			return s.str(&m.Model)
		case "content":
			return s.content(&m.Content)
		case "stop_reason":
			return s.str(&m.StopReason)
		case "usage":
			return pointer(s, &m.Usage, (*fastScanner).usage)
		}
		return s.skip()
	})
}

func (s *fastScanner) usage(u *Usage) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "input_tokens":
			return integer(s, &u.InputTokens)
		case "output_tokens":
			return integer(s, &u.OutputTokens)
		case "cache_creation_input_tokens":
			return integer(s, &u.CacheCreationInputTokens)
		case "cache_read_input_tokens":
			return integer(s, &u.CacheReadInputTokens)
		case "service_tier":
			return s.str(&u.ServiceTier)
		case "cache_creation":
			return pointer(s, &u.CacheCreation, func(s *fastScanner, c *CacheCreation) bool {
				return s.object(func(name []byte) bool {
					switch string(name) {
					case "ephemeral_5m_input_tokens":
						return integer(s, &c.Ephemeral5m)
					case "ephemeral_1h_input_tokens":
						return integer(s, &c.Ephemeral1h)
					}
					return s.skip()
				})
			})
		case "iterations":
			return s.raw(&u.Iterations)
		case "server_tool_use":
			return pointer(s, &u.ServerToolUse, func(s *fastScanner, t *ServerToolUse) bool {
				return s.object(func(name []byte) bool {
					switch string(name) {
					case "web_search_requests":
						return integer(s, &t.WebSearchRequests)
					case "web_fetch_requests":
						return integer(s, &t.WebFetchRequests)
					}
					return s.skip()
				})
			})
		}
		return s.skip()
	})
}

// content reads a Content as its UnmarshalJSONFrom does: a string becomes
// one text block, an array its blocks (null ones zero), null nothing, and
// any other value is kept in Raw.
func (s *fastScanner) content(c *Content) bool {
	// UnmarshalJSONFrom adds to what a first member of the name left (a
	// second array appends its blocks), so a second one is refused unless
	// the first left nothing.
	if c.Blocks != nil || c.Raw != nil || c.IsString {
		return false
	}
	switch s.peek() {
	case '"':
		var text string
		if !s.str(&text) {
			return false
		}
		c.IsString = true
		c.Blocks = []Block{{Type: "text", Text: text}}
		return true
	case '[':
		return s.array(func() bool {
			c.Blocks = append(c.Blocks, Block{})
			if s.null() {
				return true
			}
			return s.block(&c.Blocks[len(c.Blocks)-1])
		})
	case 'n':
		return s.null()
	}
	return s.raw(&c.Raw)
}

func (s *fastScanner) block(b *Block) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "type":
			return s.str(&b.Type)
		case "text":
			return s.str(&b.Text)
		case "citations":
			return s.raw(&b.Citations)
		case "thinking":
			return s.str(&b.Thinking)
		case "signature":
			return s.str(&b.Signature)
		case "data":
			return s.str(&b.Data)
		case "id":
			return s.str(&b.ID)
		case "name":
			return s.str(&b.Name)
		case "input":
			return s.raw(&b.Input)
		case "caller":
			return s.raw(&b.Caller)
		case "tool_use_id":
			return s.str(&b.ToolUseID)
		case "content":
			return s.content(&b.Content)
		case "is_error":
			return s.boolean(&b.IsError)
		case "source":
			return pointer(s, &b.Source, func(s *fastScanner, src *Source) bool {
				return s.object(func(name []byte) bool {
					switch string(name) {
					case "type":
						return s.str(&src.Type)
					case "media_type":
						return s.str(&src.MediaType)
					case "data":
						return s.str(&src.Data)
					case "url":
						return s.str(&src.URL)
					}
					return s.skip()
				})
			})
		case "tool_name":
			return s.str(&b.ToolName)
		}
		return s.extra(&b.Extra, name)
	})
}

func (s *fastScanner) compactMetadata(m *CompactMetadata) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "trigger":
			return s.str(&m.Trigger)
		case "preTokens":
			return integer(s, &m.PreTokens)
		}
		return s.skip()
	})
}

func (s *fastScanner) microcompactMetadata(m *MicrocompactMetadata) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "trigger":
			return s.str(&m.Trigger)
		case "preTokens":
			return integer(s, &m.PreTokens)
		case "tokensSaved":
			return integer(s, &m.TokensSaved)
		case "compactedToolIds":
			// json empties the slice before filling it (a repeated
			// member replaces the first); null leaves it nil, []
			// makes it empty but not nil, a null element is "".
			if s.null() {
				m.CompactedToolIDs = nil
				return true
			}
			m.CompactedToolIDs = []string{}
			return s.array(func() bool {
				m.CompactedToolIDs = append(m.CompactedToolIDs, "")
				return s.str(&m.CompactedToolIDs[len(m.CompactedToolIDs)-1])
			})
		}
		return s.skip()
	})
}

func (s *fastScanner) progressData(d *ProgressData) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "type":
			return s.str(&d.Type)
		case "agentId":
			return s.str(&d.AgentID)
		case "prompt":
			return s.str(&d.Prompt)
		case "output":
			return s.str(&d.Output)
		case "hookName":
			return s.str(&d.HookName)
		case "message":
			return s.raw(&d.Message)
		}
		return s.extra(&d.Extra, name)
	})
}

func (s *fastScanner) attachment(a *Attachment) bool {
	return s.object(func(name []byte) bool {
		switch string(name) {
		case "type":
			return s.str(&a.Type)
		case "prompt":
			return s.raw(&a.Prompt)
		case "hookName":
			return s.str(&a.HookName)
		case "content":
			return s.raw(&a.Content)
		}
		return s.extra(&a.Extra, name)
	})
}

// pointer reads an object into *p, a new T, with read; null leaves *p nil.
// A second object for *p is refused: json would merge it into the first.
func pointer[T any](s *fastScanner, p **T, read func(*fastScanner, *T) bool) bool {
	if *p != nil {
		return false
	}
	if s.null() {
		return true
	}
	*p = new(T)
	return read(s, *p)
}

// object reads an object whose member names have no escapes, calling member
// with each name (its bytes between the quotes) to read the value.
func (s *fastScanner) object(member func(name []byte) bool) bool {
	if s.peek() != '{' || !s.enter() {
		return false
	}
	s.space()
	if s.peek() == '}' {
		return s.leave()
	}
	for {
		start, end, escaped, ok := s.scanString()
		// An escaped name would have to be unescaped to be matched,
		// and json keeps it escaped in an Extra.
		if !ok || escaped {
			return false
		}
		s.space()
		if s.peek() != ':' {
			return false
		}
		s.i++
		s.space()
		if !member(s.b[start:end]) {
			return false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case '}':
			return s.leave()
		default:
			return false
		}
	}
}

// array reads an array, calling elem to read each element.
func (s *fastScanner) array(elem func() bool) bool {
	if s.peek() != '[' || !s.enter() {
		return false
	}
	s.space()
	if s.peek() == ']' {
		return s.leave()
	}
	for {
		if !elem() {
			return false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case ']':
			return s.leave()
		default:
			return false
		}
	}
}

// enter steps into an object or array, refusing one too deep.
func (s *fastScanner) enter() bool {
	s.i++
	s.depth++
	return s.depth <= maxFastDepth
}

// leave steps out of an object or array, past its closing byte.
func (s *fastScanner) leave() bool {
	s.i++
	s.depth--
	return true
}

// peek returns the byte at i, or 0 at the end.
func (s *fastScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// space skips JSON whitespace.
func (s *fastScanner) space() {
	// Transcripts are written compact: mostly there is none.
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// null reads a null if one is next.
func (s *fastScanner) null() bool { return s.literal("null") }

// literal reads lit if it is next.
func (s *fastScanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// str reads a string, or null as "" (json sets a field to its zero value on
// null).
func (s *fastScanner) str(p *string) bool {
	if s.peek() != '"' {
		if s.null() {
			*p = ""
			return true
		}
		return false
	}
	b := s.b
	start := s.i + 1
	// A run of plain ASCII to the closing quote (most strings) is
	// copied as it is.
	i := plainEnd(b, start)
	if i < len(b) && b[i] == '"' {
		*p = string(b[start:i])
		s.i = i + 1
		return true
	}
	return s.strRest(p, start, i)
}

// strRest reads the rest of the string str began at start, whose bytes
// are plain up to i: escapes are unescaped (appendEscape), and runs of
// bytes of 0x80 or more checked (runesEnd), as the string is read, once.
// What json refuses (as scanString) is refused.
func (s *fastScanner) strRest(p *string, start, i int) bool {
	b := s.b
	var dst []byte // nil until the first escape: then the string so far
	from := start  // b[from:i] is not copied to dst yet
	for {
		i = plainEnd(b, i)
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '"':
			if dst == nil {
				*p = string(b[start:i])
			} else {
				dst = append(dst, b[from:i]...)
				*p = unsafe.String(unsafe.SliceData(dst), len(dst))
			}
			s.i = i + 1
			return true
		case c == '\\':
			if dst == nil {
				// The string's raw length bounds its value's: found
				// by its closing quote (the first one after an even
				// run of backslashes), at IndexByte's speed.
				end := rawEnd(b, i)
				if end < 0 {
					return false
				}
				dst = make([]byte, 0, end-start)
			}
			dst = append(dst, b[from:i]...)
			// A one-byte escape (\n, \"), most of them, here: a call
			// each made a corpus's decoding 5-8% slower.
			if i+1 < len(b) && unescaped[b[i+1]] != 0 {
				dst = append(dst, unescaped[b[i+1]])
				i += 2
				from = i
				continue
			}
			var n int
			if dst, n = appendEscape(dst, b, i); n == 0 {
				return false
			}
			i += n
			from = i
		case c < 0x20:
			return false
		default:
			if i = runesEnd(b, i); i < 0 {
				return false
			}
		}
	}
}

// skipString passes the string at s.i: checked as scanString checks it,
// or, in JSON already accepted (s.valid), only to its closing quote.
func (s *fastScanner) skipString() bool {
	if !s.valid {
		_, _, _, ok := s.scanString()
		return ok
	}
	if s.peek() != '"' {
		return false
	}
	end := rawEnd(s.b, s.i+1)
	if end < 0 {
		return false
	}
	s.i = end + 1
	return true
}

// rawEnd is where the string whose escape begins at i ends: its closing
// quote's index, or -1.
func rawEnd(b []byte, i int) int {
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return -1
		}
		q := i + k
		n := 0
		for q-1-n >= 0 && b[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// boolean reads true, false, or null as false.
func (s *fastScanner) boolean(p *bool) bool {
	switch {
	case s.literal("true"):
		*p = true
	case s.literal("false"), s.null():
		*p = false
	default:
		return false
	}
	return true
}

// integer reads an integer, or null as 0. json refuses a fraction or an
// exponent (even "1.0") and a number out of range, and reads "-0" as 0.
func integer[T int | int64](s *fastScanner, p *T) bool {
	if s.null() {
		*p = 0
		return true
	}
	start := s.i
	if !s.number() {
		return false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	if err != nil {
		return false // a fraction, an exponent, out of range
	}
	*p = T(n)
	return true
}

// float reads a number as strconv.ParseFloat does (as json does), or null as
// 0; a number out of range is refused.
func (s *fastScanner) float(p *float64) bool {
	if s.null() {
		*p = 0
		return true
	}
	start := s.i
	if !s.number() {
		return false
	}
	f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil {
		return false
	}
	*p = f
	return true
}

// raw reads any value into a jsontext.Value, which then holds its bytes as
// written: json does the same, null included (stored as "null", not nil).
func (s *fastScanner) raw(p *jsontext.Value) bool {
	start := s.i
	if !s.skip() {
		return false
	}
	*p = s.b[start:s.i:s.i]
	return true
}

// extra adds an unknown member to an embedded Extra as json does: the members
// in their order, joined by commas in one object, each name and value as
// written (the value without the whitespace around it).
func (s *fastScanner) extra(x *jsontext.Value, name []byte) bool {
	start := s.i
	if !s.skip() {
		return false
	}
	v := s.b[start:s.i]
	if len(*x) == 0 {
		*x = append(make(jsontext.Value, 0, len(name)+len(v)+8), '{')
	} else {
		(*x)[len(*x)-1] = ','
	}
	*x = append(*x, '"')
	*x = append(*x, name...)
	*x = append(*x, '"', ':')
	*x = append(*x, v...)
	*x = append(*x, '}')
	return true
}

// skip reads and checks any value, keeping nothing.
func (s *fastScanner) skip() bool {
	switch c := s.peek(); {
	case c == '"':
		return s.skipString()
	case c == '{':
		if !s.enter() {
			return false
		}
		s.space()
		if s.peek() == '}' {
			return s.leave()
		}
		for {
			// Names here may be escaped: they are only checked.
			if !s.skipString() {
				return false
			}
			s.space()
			if s.peek() != ':' {
				return false
			}
			s.i++
			s.space()
			if !s.skip() {
				return false
			}
			s.space()
			switch s.peek() {
			case ',':
				s.i++
				s.space()
			case '}':
				return s.leave()
			default:
				return false
			}
		}
	case c == '[':
		return s.array(s.skip)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.null()
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

// number reads a number of JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *fastScanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	s.i = i
	return true
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// plainByte marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Word-at-a-time constants: a byte of each value repeated eight times.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
	slashs = '\\' * ones
	spaces = 0x20 * ones
)

// specialBytes returns w (eight bytes read little-endian) with the high bit
// set in each byte that is not plain, and perhaps in bytes above one that is
// not, so that the lowest one set is exact. (x - ones) &^ x sets the high bit
// of a zero byte of x (a borrow only travels up from a zero byte), which
// finds the quotes and backslashes; (w - spaces) &^ w likewise finds a byte
// below 0x20, and w itself one of 0x80 or more.
func specialBytes(w uint64) uint64 {
	q, bs := w^quotes, w^slashs
	return ((q-ones)&^q | (bs-ones)&^bs | (w-spaces)&^w | w) & highs
}

// scanString reads a string starting at i, returning where its contents
// start and end and whether it has escapes. It refuses what json would
// change or reject: a control byte, an invalid escape, a lone surrogate
// escape, invalid UTF-8.
func (s *fastScanner) scanString() (start, end int, escaped, ok bool) {
	b := s.b
	if s.i >= len(b) || b[s.i] != '"' {
		return 0, 0, false, false
	}
	i := s.i + 1
	start = i
	for {
		i = plainEnd(b, i)
		if i >= len(b) {
			return 0, 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return start, i, escaped, true
		case c == '\\':
			escaped = true
			// The escapes of one character (\n, \") are most of
			// them, and are checked here.
			if i+1 < len(b) && unescaped[b[i+1]] != 0 {
				i += 2
				continue
			}
			n := escapeLen(b[i:])
			if n == 0 {
				return 0, 0, false, false
			}
			i += n
		case c < 0x20:
			return 0, 0, false, false
		default:
			if i = runesEnd(b, i); i < 0 {
				return 0, 0, false, false
			}
		}
	}
}

// plainEnd is the index of the first byte of b from i on that a string
// does not hold as it is (specialBytes), or len(b): runs of plain ASCII
// are passed eight bytes at a time.
func plainEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// runesEnd passes the run of bytes of 0x80 or more at i, which must be
// whole runes (no rune's encoding holds an ASCII byte): checked at once,
// which is much faster than rune by rune. -1: it is not valid UTF-8.
func runesEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] >= 0x80 {
		j++
	}
	if !utf8.Valid(b[i:j]) {
		return -1
	}
	return j
}

// appendEscape appends the value of the escape at b[i] (a backslash) to
// dst, and returns it with the escape's length: 0 when the escape is
// invalid or a lone surrogate (escapeLen).
func appendEscape(dst, b []byte, i int) ([]byte, int) {
	// The escapes of one character (\n, \") are most of them.
	if i+1 < len(b) {
		if u := unescaped[b[i+1]]; u != 0 {
			return append(dst, u), 2
		}
	}
	n := escapeLen(b[i:])
	if n == 0 {
		return dst, 0
	}
	r, _ := hex4(b[i+2:])
	if n == 12 {
		lo, _ := hex4(b[i+8:])
		r = utf16.DecodeRune(r, lo)
	}
	return utf8.AppendRune(dst, r), n
}

// unescaped maps the byte after a backslash in an escape of two bytes to
// the byte it stands for, and every other byte to 0.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escapeLen returns the length of the escape at the start of b, a
// surrogate pair's two counting as one, or 0 when it is invalid or a lone
// surrogate.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		r, ok := hex4(b[2:])
		switch {
		case !ok || r >= 0xdc00 && r <= 0xdfff:
			return 0
		case r < 0xd800 || r > 0xdbff:
			return 6
		}
		if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
			return 0
		}
		if lo, ok := hex4(b[8:]); !ok || lo < 0xdc00 || lo > 0xdfff {
			return 0
		}
		return 12
	}
	return 0
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// AppendString appends the value of lit, a JSON string literal (its quotes
// and nothing around them), to dst, as jsontext.AppendUnquote does; false
// when it meets what it leaves to jsontext: a control byte, invalid UTF-8,
// an invalid escape, a lone surrogate, a quote before the last byte. It
// reads the literal once, eight bytes at a time to the next byte that is
// not plain (plainEnd), unescaping as it goes (appendEscape, as str does):
// redaction unquotes every string of every line so, 2.6x faster
// than jsontext's byte at a time on a tool's output (BenchmarkUnquote).
func AppendString(dst, lit []byte) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return dst, false
	}
	src := lit[1 : len(lit)-1]
	start, i := 0, 0 // src[start:i] is plain, not copied yet
	for {
		if i = plainEnd(src, i); i >= len(src) {
			break
		}
		switch c := src[i]; {
		case c == '\\':
			dst = append(dst, src[start:i]...)
			if i+1 < len(src) && unescaped[src[i+1]] != 0 { // as in strRest
				dst = append(dst, unescaped[src[i+1]])
				i += 2
				start = i
				continue
			}
			var n int
			if dst, n = appendEscape(dst, src, i); n == 0 {
				return dst, false
			}
			i += n
			start = i
		case c == '"' || c < 0x20:
			return dst, false
		default:
			if i = runesEnd(src, i); i < 0 {
				return dst, false
			}
		}
	}
	return append(dst, src[start:]...), true
}

// FastString is json.Unmarshal of v, a JSON string (blanks around it
// allowed), into a string, by the scanner above; false when the scanner
// is not sure (v is then for json.Unmarshal). Tool inputs and results
// are decoded a member at a time, long after the line.
func FastString(v []byte) (string, bool) {
	s := fastScanner{b: v}
	s.space()
	var out string
	if s.peek() != '"' || !s.str(&out) {
		return "", false
	}
	s.space()
	return out, s.i == len(s.b)
}

// FastObject is json.Unmarshal of v, a JSON object, into a map of its
// members' raw values, by the scanner above (the values alias v); false
// when the scanner is not sure, or a name comes twice.
func FastObject(v []byte) (map[string]jsontext.Value, bool) {
	s := fastScanner{b: v}
	s.space()
	m := map[string]jsontext.Value{}
	ok := s.object(func(name []byte) bool {
		if _, dup := m[string(name)]; dup {
			return false
		}
		var r jsontext.Value
		if !s.raw(&r) {
			return false
		}
		m[string(name)] = r
		return true
	})
	if !ok {
		return nil, false
	}
	s.space()
	return m, s.i == len(s.b)
}
