package build

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"ccsite/build/archive"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// Large tool outputs (over ~50K characters, since Claude Code 2.1.51) are
// stored beside the session, in <session>/tool-results/<tool_use_id>.txt;
// the tool_result holds only a preview:
//
//	<persisted-output>
//	Output too large (178.2KB). Full output saved to: <path>
//
//	Preview (first 2KB):
//	…
//	</persisted-output>
const (
	persistedOpen = "<persisted-output>"
	persistedPath = "Full output saved to: "
	// storedMax bounds the bytes read of one stored output.
	storedMax = 64 << 20
)

// storedOutputs replaces the preview of each stored large output of s and
// its sub-agents by the stored file, read from the session's tool-results
// folder (sf.Extras). A stored output whose file is missing is a problem of
// the session, at the line of its result.
func storedOutputs(s *session.Session, sf *archive.SessionFile, opts LoadOptions) {
	storedIn(s, append([]*session.Session{s}, s.Agents...), sf, opts)
}

// storedIn resolves the stored outputs of the sessions all (s or its
// sub-agents), counting missing ones as problems of s.
func storedIn(s *session.Session, all []*session.Session, sf *archive.SessionFile, opts LoadOptions) {
	if opts.Omit.ToolOutput {
		return
	}
	byName := map[string]string{}
	for _, e := range sf.Extras {
		if filepath.Base(filepath.Dir(e)) == "tool-results" {
			if n := filepath.Base(e); byName[n] == "" {
				byName[n] = e
			}
		}
	}
	for _, a := range all {
		for _, c := range a.Tools {
			b := c.ResultBlock
			if b == nil {
				continue
			}
			text := b.Content.Text()
			name, ok := storedName(text)
			if !ok {
				continue
			}
			line := 0
			if c.Result != nil {
				line = c.Result.Line
			}
			p := byName[name]
			data, err := readStored(p)
			if err != nil {
				s.Problems = append(s.Problems, session.Problem{File: a.Path, Line: line, Kind: "tool-result",
					Reason: fmt.Sprintf("the large output stored as tool-results/%s is %s; only its preview is shown", name, err)})
				continue
			}
			b.Content = transcript.Content{Blocks: []transcript.Block{{Type: "text", Text: opts.Redact.String(a.Path, data)}}, IsString: true}
		}
	}
}

// storedName is the file name a persisted-output preview names.
func storedName(text string) (string, bool) {
	if !strings.HasPrefix(strings.TrimSpace(text), persistedOpen) {
		return "", false
	}
	_, rest, ok := strings.Cut(text, persistedPath)
	if !ok {
		return "", false
	}
	path, _, _ := strings.Cut(rest, "\n")
	path = strings.TrimSpace(path)
	// The path is the writer's: Windows or POSIX, whatever this host is.
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	if path == "" || path == "." || path == ".." {
		return "", false
	}
	return path, true
}

func readStored(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("missing")
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("unreadable (%s)", reasonOf(err))
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("not a regular file")
	}
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("unreadable (%s)", reasonOf(err))
	}
	defer f.Close()
	buf := make([]byte, min(st.Size(), storedMax))
	n, _ := f.ReadAt(buf, 0)
	out := strings.ToValidUTF8(string(buf[:n]), "\uFFFD")
	if st.Size() > storedMax {
		out += fmt.Sprintf("\n[… %d more bytes not shown]", st.Size()-storedMax)
	}
	return out, nil
}

func reasonOf(err error) string {
	if os.IsNotExist(err) {
		return "missing"
	}
	if os.IsPermission(err) {
		return "permission denied"
	}
	return "unreadable"
}

// workflowOf is the workflow id of a sub-agent, "" for none.
func workflowOf(a *session.Session) string {
	if a.Agent == nil {
		return ""
	}
	return a.Agent.WorkflowID
}
