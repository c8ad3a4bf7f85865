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
// the session, at the line of its result; so is each file of the session's
// folder discovery left out (sf.Skipped: a link out of the folder).
func storedOutputs(s *session.Session, sf *archive.SessionFile, opts LoadOptions) {
	skippedFiles(s, sf)
	storedIn(s, append([]*session.Session{s}, s.Agents...), sf, opts)
}

// skippedFiles makes each file of the session's folder discovery left out
// a problem of the session: "skipped tool-results/x.txt: a link out of the
// session's folder".
func skippedFiles(s *session.Session, sf *archive.SessionFile) {
	dir := strings.TrimSuffix(sf.Path, ".jsonl")
	for _, sk := range sf.Skipped {
		name := sk.Path
		if rel, err := filepath.Rel(dir, sk.Path); err == nil && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		}
		s.Problems = append(s.Problems, session.Problem{File: sk.Path, Kind: "skipped",
			Reason: fmt.Sprintf("skipped %s: %s", name, sk.Reason)})
	}
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
	// Files left out (skippedFiles said why): their previews stay.
	skipped := map[string]bool{}
	for _, sk := range sf.Skipped {
		if filepath.Base(filepath.Dir(sk.Path)) == "tool-results" {
			skipped[filepath.Base(sk.Path)] = true
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
			if !ok || skipped[name] && byName[name] == "" {
				continue
			}
			line := 0
			if c.Result != nil {
				line = c.Result.Line
			}
			p := byName[name]
			data, err := readStored(p, strings.TrimSuffix(sf.Path, ".jsonl"))
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
	if !archive.PlainName(path) {
		return "", false
	}
	return path, true
}

// readStored reads the stored output p, a file of the session's folder
// dir: not when it has become a link out of it since it was found.
func readStored(p, dir string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("missing")
	}
	if _, err := os.Lstat(p); err == nil && !archive.Within(p, dir) {
		return "", fmt.Errorf("skipped (%s)", archive.WhyLinkOut)
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
