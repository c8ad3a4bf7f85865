// Package codex reads OpenAI Codex CLI sessions ("rollouts"): it finds them
// under $CODEX_HOME (sessions/YYYY/MM/DD/rollout-*.jsonl, their .jsonl.zst
// form, archived_sessions/) and turns each into the Claude-Code-shaped
// records session.Build reads. The format is openai/codex's
// codex-rs/protocol/src/protocol.rs (RolloutLine, RolloutItem).
package codex

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"
)

// Name is the agent's label on pages.
const Name = "Codex"

// Found is one session found on disk.
type Found struct {
	Path     string    // the session file
	ID       string    // its session (thread) id
	Project  string    // the project's path (cwd), "" when unknown
	Start    time.Time // when it began
	Parent   string    // a sub-agent's or fork's parent session id, else ""
	SubAgent bool      // a sub-agent of Parent (else a fork when Parent is set)
}

// Default returns the Codex home ($CODEX_HOME, else ~/.codex) when it
// holds sessions.
func Default(home string, getenv func(string) string) []string {
	dir := getenv("CODEX_HOME")
	if dir == "" {
		if home == "" {
			return nil
		}
		dir = filepath.Join(home, ".codex")
	}
	for _, sub := range []string{"sessions", "archived_sessions"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err == nil && st.IsDir() {
			return []string{dir}
		}
	}
	return nil
}

// Find lists the Codex sessions under root: a Codex home, a sessions
// folder, any folder holding rollouts, or one rollout file. A file is a
// rollout when its first line is a session_meta envelope, whatever its
// name; of x.jsonl and x.jsonl.zst the plain file wins.
func Find(root string) ([]Found, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return nil, nil
		}
		if f, ok := peek(root); ok {
			return []Found{f}, nil
		}
		return nil, nil
	}
	var paths []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		n := d.Name()
		if !strings.HasSuffix(n, ".jsonl") && !strings.HasSuffix(n, ".jsonl.zst") {
			return nil
		}
		// Only regular files, links to them included: never a named pipe.
		if !d.Type().IsRegular() {
			if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
				return nil
			}
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	plain := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, ".jsonl") {
			plain[p] = true
		}
	}
	sort.Strings(paths)
	var out []Found
	for _, p := range paths {
		if strings.HasSuffix(p, ".zst") && plain[strings.TrimSuffix(p, ".zst")] {
			continue
		}
		if f, ok := peek(p); ok {
			out = append(out, f)
		} else if f, ok := damaged(p); ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// reRolloutName is how Codex names a rollout: its local start time and
// its thread id.
var reRolloutName = regexp.MustCompile(`^rollout-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl\.zst$`)

// damaged lists a compressed rollout whose head cannot be decompressed
// by its name, so that reading it reports the damage (a problem with its
// file) instead of leaving it out unsaid.
func damaged(path string) (Found, bool) {
	m := reRolloutName.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return Found{}, false
	}
	start, _ := time.Parse("2006-01-02T15-04-05", m[1])
	return Found{Path: path, ID: m[2], Start: start.UTC()}, true
}

// metaLine is the first line of a rollout.
type metaLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		ID             string         `json:"id"`
		Timestamp      string         `json:"timestamp"`
		CWD            string         `json:"cwd"`
		Source         jsontext.Value `json:"source"`
		ForkedFromID   string         `json:"forked_from_id"`
		ParentThreadID string         `json:"parent_thread_id"`
	} `json:"payload"`
}

// peek reads a file's first line and tells whether it is a rollout.
func peek(path string) (Found, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Found{}, false
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".zst") {
		d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return Found{}, false
		}
		defer d.Close()
		r = d
	}
	br := bufio.NewReaderSize(r, 64<<10)
	// Codex writes the envelope's members in order (timestamp, type,
	// payload): a rollout says session_meta in its first bytes (an older
	// one starts with its id), so other files (Claude Code's) cost one
	// small read.
	head, _ := br.Peek(512)
	old := bytes.HasPrefix(head, []byte(`{"id":`))
	if !old && !bytes.Contains(head, []byte(`"session_meta"`)) {
		return Found{}, false
	}
	line := readLine(br)
	var m metaLine
	if transcript.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return Found{}, false
	}
	if old {
		// {"id", "timestamp", "instructions"}, the cwd in the first
		// environment context.
		var o struct {
			ID        string `json:"id"`
			Timestamp string `json:"timestamp"`
			Type      string `json:"type"`
		}
		if transcript.Unmarshal(bytes.TrimSpace(line), &o) != nil || o.Type != "" || o.ID == "" || o.Timestamp == "" {
			return Found{}, false
		}
		m.Type, m.Payload.ID, m.Payload.Timestamp = "session_meta", o.ID, o.Timestamp
		for i := 0; i < 20 && m.Payload.CWD == ""; i++ {
			l := readLine(br)
			if len(l) == 0 {
				break
			}
			m.Payload.CWD = envCWD(string(l))
		}
	}
	if m.Type != "session_meta" || m.Payload.ID == "" {
		return Found{}, false
	}
	fd := Found{Path: path, ID: m.Payload.ID, Project: m.Payload.CWD}
	fd.Start = parseTime(m.Payload.Timestamp)
	if fd.Start.IsZero() {
		fd.Start = parseTime(m.Timestamp)
	}
	fd.Parent, fd.SubAgent = parentOf(m.Payload.ForkedFromID, m.Payload.ParentThreadID, m.Payload.Source)
	return fd, true
}

// readLine reads a line of up to 8 MB.
func readLine(br *bufio.Reader) []byte {
	var line []byte
	for len(line) < 8<<20 {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			break
		}
	}
	return line
}

var reEnvCWD = regexp.MustCompile(`<cwd>([^<]*)</cwd>`)

// envCWD is the folder an <environment_context> names, "" for none. The
// text may be inside a JSON string: an escaped path is left as it is.
func envCWD(text string) string {
	if m := reEnvCWD.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// parentOf reads a session's parent: a sub-agent names its parent thread
// (source {"subagent": {"thread_spawn": {"parent_thread_id": …}}}, or
// parent_thread_id beside it); a fork its source (forked_from_id).
func parentOf(forkedFrom, parentThread string, source jsontext.Value) (string, bool) {
	if p := findKey(source, "parent_thread_id"); p != "" {
		return p, true
	}
	if parentThread != "" {
		return parentThread, true
	}
	return forkedFrom, false
}

// findKey finds the first string member named key in a JSON value, at any
// depth.
func findKey(v jsontext.Value, key string) string {
	if len(v) == 0 || v[0] != '{' {
		return ""
	}
	var m map[string]jsontext.Value
	if transcript.Unmarshal(v, &m) != nil {
		return ""
	}
	if s, ok := m[key]; ok {
		var str string
		if transcript.Unmarshal(s, &str) == nil && str != "" {
			return str
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s := findKey(m[k], key); s != "" {
			return s
		}
	}
	return ""
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
