package archive

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"ccsite/build/transcript"
)

// tailSize is how much of a session file's end continuedIn reads.
const tailSize = 64 << 10

// continuedIn reads the continued-in record a session sent to the
// background ends with ({type: "continued-in", sessionId,
// continuedInSessionId}) and returns the session id it names, "" when the
// last line of the file's first size bytes is no such record.
func continuedIn(f *os.File, size int64) string {
	if size <= 0 {
		return ""
	}
	// The last line is nearly always found in the last few KB; only a
	// longer one needs the whole tail.
	var small [4 << 10]byte
	buf, ok := lastLine(f, size, small[:])
	if !ok {
		buf, ok = lastLine(f, size, make([]byte, tailSize))
	}
	if !ok {
		return ""
	}
	if !bytes.Contains(buf, []byte("continued-in")) {
		return ""
	}
	var rec struct {
		Type                 string `json:"type"`
		ContinuedInSessionID string `json:"continuedInSessionId"`
	}
	if transcript.Unmarshal(buf, &rec) != nil || rec.Type != "continued-in" {
		return ""
	}
	return rec.ContinuedInSessionID
}

// lastLine reads the end of a file of the given size into buf and returns
// its last line (trailing white space trimmed); ok is false when the
// line may begin before what buf holds.
func lastLine(f *os.File, size int64, buf []byte) (line []byte, ok bool) {
	off := max(size-int64(len(buf)), 0)
	buf = buf[:size-off]
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, false
	}
	buf = buf[:n] // shorter when the file shrank since it was walked
	buf = bytes.TrimRight(buf, "\r\n\t ")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		return buf[i+1:], true
	}
	return buf, off == 0
}

// isToolResultsDir reports a session's folder of large tool outputs
// (<session>/tool-results/, since 2.1.51).
func isToolResultsDir(dir string) bool { return filepath.Base(dir) == "tool-results" }
