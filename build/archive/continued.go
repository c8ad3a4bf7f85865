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
// file's last line is no such record.
func continuedIn(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	// The last line is nearly always found in the last few KB; only a
	// longer one needs the whole tail.
	var small [4 << 10]byte
	buf, ok := lastLine(f, st.Size(), small[:])
	if !ok {
		buf, ok = lastLine(f, st.Size(), make([]byte, tailSize))
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
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, false
	}
	buf = bytes.TrimRight(buf, "\r\n\t ")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		return buf[i+1:], true
	}
	return buf, off == 0
}

// isToolResultsDir reports a session's folder of large tool outputs
// (<session>/tool-results/, since 2.1.51).
func isToolResultsDir(dir string) bool { return filepath.Base(dir) == "tool-results" }
