package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"ccsite/build/internal/readall"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MaxLineBytes is the longest line decoded. Real lines reach tens of MB (base64
// images, huge command output); a longer line becomes a problem and is skipped
// without being held in memory.
//
// 128 MB is twice the 64 MB the format guide asks for at least; it keeps a
// single pathological line (hundreds of MB) from costing seconds and GBs.
const MaxLineBytes = 128 << 20

// decodeOpts accepts what real transcripts contain: invalid UTF-8 and lone
// surrogate escapes (replaced by U+FFFD) and repeated member names.
var decodeOpts = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

// File is a decoded transcript: every non-empty line is either one Record or
// one Problem, so len(Records)+len(Problems) == Lines.
type File struct {
	Path     string
	Bytes    int64
	Lines    int // non-empty lines
	Records  []Record
	Problems []Problem
	// Agent names the coding agent that wrote the file when it is not
	// Claude Code ("Codex", "Gemini"): its reader (build/agents) made the
	// records in Claude Code's shape.
	Agent string
}

// Problem is a line that could not be read as a record.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
	// Excerpt is the start of the line, for the report.
	Excerpt string `json:"excerpt,omitempty"`
	// Recovered holds the records found when a line holds several JSON objects
	// (an append to a file that lacked its final newline): data is not lost,
	// but the line is still reported.
	Recovered []Record `json:"-"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Reason)
}

// ReadFile decodes the transcript at path. The error is non-nil only when the
// file cannot be opened or read; bad lines are Problems.
func ReadFile(path string) (*File, error) { return ReadFileFiltered(path, nil) }

// Filter rewrites a raw line before it is decoded (redaction); it returns
// the line itself when it has nothing to change.
type Filter func(file string, line []byte) []byte

// ReadFileFiltered is ReadFile with every line passed through filter first.
func ReadFileFiltered(path string, filter Filter) (*File, error) {
	return readFile(path, Lines(filter), MaxLineBytes)
}

// A FileFilter rewrites the lines of files before they are decoded, as a
// Filter does, knowing each file whole: Lines gives the filter of one file
// from its bytes when the file was read whole (nil when it was streamed,
// too large for that). A line's number counts the file's lines from 1,
// blank ones included: line n is the one the n-th "\n" ends.
type FileFilter interface {
	Lines(name string, data []byte) LineFilter
}

// A LineFilter rewrites one file's lines, each given with its number, and
// is told when the file has been read to its end (Done; not called when
// reading failed).
type LineFilter interface {
	Line(lineNo int, line []byte) []byte
	Done()
}

// Lines is the FileFilter that passes each line through filter (nil:
// none).
func Lines(filter Filter) FileFilter {
	if filter == nil {
		return nil
	}
	return plainFilter(filter)
}

type plainFilter Filter

func (f plainFilter) Lines(name string, _ []byte) LineFilter { return plainLines{f, name} }

type plainLines struct {
	f    plainFilter
	name string
}

func (p plainLines) Line(_ int, line []byte) []byte { return p.f(p.name, line) }
func (plainLines) Done()                            {}

// ReadFileWith is ReadFile with every line passed through the filter ff
// gives for the file first.
func ReadFileWith(path string, ff FileFilter) (*File, error) {
	return readFile(path, ff, MaxLineBytes)
}

// readFile is ReadFileFiltered with the longest line decoded as a parameter
// (MaxLineBytes, lowered by tests).
func readFile(path string, filter FileFilter, maxLine int) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err == nil && st.Mode().IsRegular() && st.Size() <= keptMax {
		// A file of up to keptMax is read whole into a buffer kept from
		// one file to the next, and its lines copied out of it: read
		// once, not twice (the first pass below), into memory that is
		// already the process's (a new buffer per file is faulted in page
		// by page, and that cost more than the second read).
		bp := wholeBuffer()
		defer keepBuffer(bp)
		data, err := readall.File(f, st.Size(), *bp)
		*bp = data[:0]
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		return decodeData(data, path, filter, maxLine, true), nil
	}
	if err == nil && st.Mode().IsRegular() && st.Size() <= int64(maxLine) {
		// A larger file no longer than the longest line is read whole
		// too, its lines left in that buffer.
		data, err := readall.File(f, st.Size(), nil)
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		return decodeData(data, path, filter, maxLine, false), nil
	}
	// A first pass counts the lines and finds those over the limit, so the
	// records are stored without regrowing a slice of large structs (a
	// million-record file would otherwise copy GBs and hold up to twice its
	// records at once), and a line over the limit is skipped without being
	// buffered at all.
	// Only a regular file can be read twice (not a pipe).
	var plan *linePlan
	if err == nil && st.Mode().IsRegular() {
		if plan, err = scanLines(f, maxLine); err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
	}
	return decode(f, path, filter, plan, maxLine)
}

// keptMax is the largest file read through a kept buffer.
const keptMax = 16 << 20

// wholeBuffers are the kept buffers (two per worker at most), outside a
// sync.Pool, which drops them at every collection.
var wholeBuffers struct {
	sync.Mutex
	free []*[]byte
}

func wholeBuffer() *[]byte {
	wholeBuffers.Lock()
	defer wholeBuffers.Unlock()
	if n := len(wholeBuffers.free); n > 0 {
		bp := wholeBuffers.free[n-1]
		wholeBuffers.free = wholeBuffers.free[:n-1]
		return bp
	}
	return new([]byte)
}

// DropBuffers lets the kept buffers go, when no more files are to be read
// soon (the static index's phases of a build).
func DropBuffers() {
	wholeBuffers.Lock()
	defer wholeBuffers.Unlock()
	wholeBuffers.free = nil
}

func keepBuffer(bp *[]byte) {
	if cap(*bp) > 2*keptMax {
		return // a file that grew while read
	}
	wholeBuffers.Lock()
	defer wholeBuffers.Unlock()
	if len(wholeBuffers.free) < 2*runtime.GOMAXPROCS(0) {
		wholeBuffers.free = append(wholeBuffers.free, bp)
	}
}

// decodeData is decode of a file read whole: its lines are copies when
// copyLines (data is reused), else slices of data (capped at their end, so
// an append to one copies it).
func decodeData(data []byte, name string, filter FileFilter, maxLine int, copyLines bool) *File {
	d := lineDecoder{out: &File{Path: name, Records: make([]Record, 0, bytes.Count(data, []byte{'\n'})+1)},
		name: name, maxLine: maxLine, copyLines: copyLines}
	if filter != nil {
		d.filter = filter.Lines(name, data)
	}
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		seg := data[:n:n]
		data = data[n:]
		if n > maxLine {
			d.line(bytes.TrimSuffix(seg[:min(n, excerptBytes)], []byte{'\n'}), n, true)
		} else {
			d.line(bytes.TrimSuffix(seg, []byte{'\n'}), n, false)
		}
	}
	if d.filter != nil {
		d.filter.Done()
	}
	return d.out
}

// lineDecoder decodes a file's lines one after the other into out.
type lineDecoder struct {
	out     *File
	name    string
	filter  LineFilter
	maxLine int
	lineNo  int
	// copyLines copies each line it keeps out of the caller's buffer.
	copyLines bool
}

// line takes the next line (without its "\n"), of n bytes in the file
// (0: the end of the file after a final "\n"); a line too long is only
// its head, for the report.
func (d *lineDecoder) line(line []byte, n int, tooLong bool) {
	out := d.out
	out.Bytes += int64(n)
	if n == 0 {
		return
	}
	d.lineNo++
	lineNo, name := d.lineNo, d.name
	if tooLong {
		out.Lines++
		out.Problems = append(out.Problems, Problem{File: name, Line: lineNo,
			Reason:  fmt.Sprintf("line of %d bytes is longer than the %d MB limit; skipped", n, d.maxLine>>20),
			Excerpt: excerpt(bytes.TrimSpace(line))})
	} else if line = bytes.TrimSpace(line); len(line) > 0 {
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark
		}
		if d.copyLines {
			line = bytes.Clone(line)
		}
		out.Lines++
		if d.filter != nil {
			line = d.filter.Line(lineNo, line)
		}
		// Decoded in place: a Record is large, and one built
		// apart and then copied in doubled the allocation.
		out.Records = append(out.Records, Record{})
		if prob := decodeLineInto(&out.Records[len(out.Records)-1], line, name, lineNo); prob != nil {
			out.Records = out.Records[:len(out.Records)-1]
			out.Problems = append(out.Problems, *prob)
		}
	}
}

// Buffers of a MB, for the first pass and the reader of each file, are
// reused: made anew for every file, they were a third of what reading a
// corpus allocated, each page of it new memory to zero and fault in.
var (
	scanBuffers = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}
	readers     = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<20) }}
)

// linePlan is what a first pass over a file learned: how many lines it has
// and which ones (0-based, counting blank ones) exceed the line limit.
type linePlan struct {
	lines int
	long  map[int]bool
}

// scanLines reads r to the end to fill a linePlan, in O(1) memory; a line
// is long when it exceeds maxLine bytes.
func scanLines(r io.Reader, maxLine int) (*linePlan, error) {
	plan := &linePlan{}
	bp := scanBuffers.Get().(*[]byte)
	defer scanBuffers.Put(bp)
	buf := *bp
	cur := 0 // bytes of the current line so far, its "\n" included
	for {
		k, err := r.Read(buf)
		b := buf[:k]
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				cur += len(b)
				break
			}
			cur += i + 1
			if cur > maxLine {
				if plan.long == nil {
					plan.long = map[int]bool{}
				}
				plan.long[plan.lines] = true
			}
			plan.lines++
			cur = 0
			b = b[i+1:]
		}
		if err == io.EOF {
			if cur > 0 {
				if cur > maxLine {
					if plan.long == nil {
						plan.long = map[int]bool{}
					}
					plan.long[plan.lines] = true
				}
				plan.lines++
			}
			return plan, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Decode reads JSONL from r. name labels problems. Lines end at "\n"; a
// trailing "\r", surrounding blanks and blank lines are ignored, and a final
// line without newline is read like any other.
func Decode(r io.Reader, name string) (*File, error) { return DecodeFiltered(r, name, nil) }

// DecodeFiltered is Decode with every line passed through filter first.
func DecodeFiltered(r io.Reader, name string, filter Filter) (*File, error) {
	return decode(r, name, Lines(filter), nil, MaxLineBytes)
}

// decode is DecodeFiltered, with what a first pass learned when there was one
// and the longest line decoded (MaxLineBytes, lowered by tests).
func decode(r io.Reader, name string, filter FileFilter, plan *linePlan, maxLine int) (*File, error) {
	out := &File{Path: name}
	if plan != nil {
		out.Records = make([]Record, 0, plan.lines)
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	d := lineDecoder{out: out, name: name, maxLine: maxLine}
	if filter != nil {
		d.filter = filter.Lines(name, nil)
	}
	for seg := 0; ; seg++ {
		skip := plan != nil && plan.long[seg]
		line, n, tooLong, err := readLine(br, skip, maxLine)
		d.line(line, n, tooLong)
		if err == io.EOF {
			if d.filter != nil {
				d.filter.Done()
			}
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("read transcript %s line %d: %w", name, d.lineNo+1, err)
		}
	}
}

// readLine returns the next line without its "\n" as a fresh slice, the bytes
// consumed, and whether it exceeded maxLine bytes (then line is only its first
// excerptBytes, for the report). With skip, the line is known to be too long
// and no more than that is kept.
func readLine(br *bufio.Reader, skip bool, maxLine int) (line []byte, n int, tooLong bool, err error) {
	tooLong = skip
	var head []byte
	for {
		frag, e := br.ReadSlice('\n')
		n += len(frag)
		// The head, for the excerpt of a line too long: kept from the
		// first fragment of a line that may be one (the common line,
		// whole in the buffer and short enough, needs none).
		if (tooLong || n > maxLine || e == bufio.ErrBufferFull) && len(head) < excerptBytes {
			head = append(head, frag[:min(len(frag), excerptBytes-len(head))]...)
		}
		if tooLong {
			line = head
		} else {
			if n > maxLine {
				tooLong, line = true, head
			} else if line == nil && e == nil {
				// Common case: the whole line fits the buffer.
				line = bytes.Clone(frag)
			} else {
				line = append(line, frag...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		return line, n, tooLong, e
	}
}

// DecodeLine decodes one trimmed, non-empty line. It never panics: every input
// gives either a record or a problem.
func DecodeLine(line []byte, file string, lineNo int) (Record, *Problem) {
	var rec Record
	prob := decodeLineInto(&rec, line, file, lineNo)
	return rec, prob
}

// decodeLineInto is DecodeLine into *rec, which must be zero; on a problem,
// *rec is left zero.
func decodeLineInto(rec *Record, line []byte, file string, lineNo int) *Problem {
	// The hand-written decoder takes nearly every line, over twice as
	// fast; what it is not sure of goes to json below.
	if decodeFast(rec, line) {
		rec.Line, rec.Raw = lineNo, line
		rec.Time = parseTime(rec.Timestamp)
		return nil
	}
	*rec = Record{}
	return decodeLineJSON(rec, line, file, lineNo)
}

// decodeLineJSON is decodeLineInto by json alone (the path of what the
// hand-written decoder refuses).
func decodeLineJSON(rec *Record, line []byte, file string, lineNo int) *Problem {
	rec.Line, rec.Raw = lineNo, line
	if err := json.Unmarshal(line, rec, decodeOpts); err == nil {
		rec.Line, rec.Raw = lineNo, line
		rec.Time = parseTime(rec.Timestamp)
		return nil
	}
	r, prob := slowLine(line, file, lineNo)
	*rec = r
	return prob
}

// slowLine explains a line the fast path refused.
func slowLine(line []byte, file string, lineNo int) (Record, *Problem) {
	prob := func(reason string) (Record, *Problem) {
		return Record{}, &Problem{File: file, Line: lineNo, Reason: reason, Excerpt: excerpt(line)}
	}
	if bytes.HasPrefix(line, []byte("//")) {
		return prob("comment line (// ...), not JSON")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(line), decodeOpts)
	first, err := dec.ReadValue()
	if err != nil {
		return prob("invalid JSON: " + jsonReason(err, line))
	}
	// The decoder reuses its buffer: keep a copy before reading on.
	first = first.Clone()
	if len(bytes.TrimSpace(line[dec.InputOffset():])) > 0 {
		// More after the value: other values (an append to a file that
		// lacked its final newline) or garbage. Recover what can be read,
		// and report the line.
		p := &Problem{File: file, Line: lineNo, Excerpt: excerpt(line)}
		values := []jsontext.Value{first}
		for dec.PeekKind() != 0 {
			v, err := dec.ReadValue()
			if err != nil {
				break
			}
			values = append(values, v.Clone())
		}
		garbage := len(bytes.TrimSpace(line[dec.InputOffset():])) > 0
		for _, v := range values {
			if v.Kind() != '{' {
				continue
			}
			if r, sub := DecodeLine(v, file, lineNo); sub == nil {
				p.Recovered = append(p.Recovered, r)
			}
		}
		if len(values) > 1 {
			p.Reason = fmt.Sprintf("%d JSON values on one line (a missing newline?); %d record(s) recovered",
				len(values), len(p.Recovered))
		} else {
			p.Reason = fmt.Sprintf("text after the JSON value; %d record(s) recovered", len(p.Recovered))
		}
		if garbage {
			p.Reason += ", the rest unreadable"
		}
		return Record{}, p
	}
	// One valid JSON value that does not fit a record: keep it whole as an
	// unknown record rather than lose it.
	rec := Record{Line: lineNo, Raw: line}
	if first.Kind() == '{' {
		lenientFields(line, &rec)
	}
	return rec, nil
}

// lenientFields fills the fields a record of unexpected shape still offers,
// taking only those of the right JSON type. Its Type gets a "?" prefix
// when the record's known fields had the wrong shape, so it counts as unknown.
func lenientFields(line []byte, rec *Record) {
	var m map[string]jsontext.Value
	if json.Unmarshal(line, &m, decodeOpts) != nil {
		return
	}
	str := func(k string) string { return rawString(m[k]) }
	rec.Type = str("type")
	if rec.Type != "" {
		rec.Type = "?" + rec.Type
	}
	rec.UUID, rec.ParentUUID = str("uuid"), str("parentUuid")
	rec.SessionID, rec.Timestamp = str("sessionId"), str("timestamp")
	rec.CWD, rec.Version = str("cwd"), str("version")
	rec.Time = parseTime(rec.Timestamp)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func jsonReason(err error, line []byte) string {
	var se *jsontext.SyntacticError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Err.Error()
		if se.ByteOffset > 0 {
			msg += fmt.Sprintf(" at byte %d", se.ByteOffset)
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "unexpected EOF") {
		return fmt.Sprintf("line cut off after %d bytes (truncated JSON)", len(line))
	}
	return msg
}

// excerptBytes is the length of a problem's excerpt.
const excerptBytes = 120

func excerpt(b []byte) string {
	s := b
	if len(s) > excerptBytes {
		s = s[:excerptBytes]
	}
	return strings.ToValidUTF8(string(s), "\uFFFD")
}
