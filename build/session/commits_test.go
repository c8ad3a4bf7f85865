package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/transcript"
)

// commitTranscript is a session of two turns: the second runs git commit
// twice (one a root commit) and edits a file; an echo of a summary line in
// a command that is not git commit is no commit.
const commitTranscript = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-02T10:00:00Z","message":{"role":"user","content":"write it"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-02T10:00:05Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/r/a.go","content":"x"}}]}}
{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s1","timestamp":"2026-01-02T10:00:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}
{"type":"user","uuid":"u2","parentUuid":"r1","sessionId":"s1","timestamp":"2026-01-02T10:01:00Z","message":{"role":"user","content":"commit it"}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","timestamp":"2026-01-02T10:01:05Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"git init && git add -A && git commit -m 'first'"}}]}}
{"type":"user","uuid":"r2","parentUuid":"a2","sessionId":"s1","timestamp":"2026-01-02T10:01:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"[main (root-commit) 0a1b2c3] first\n 1 file changed, 1 insertion(+)"}]}}
{"type":"assistant","uuid":"a3","parentUuid":"r2","sessionId":"s1","timestamp":"2026-01-02T10:01:10Z","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"/r/a.go","old_string":"x","new_string":"y"}},{"type":"tool_use","id":"t4","name":"Bash","input":{"command":"git -C /r commit -am \"second <b>\""}},{"type":"tool_use","id":"t5","name":"Bash","input":{"command":"echo '[main 1111111] not a commit'"}}]}}
{"type":"user","uuid":"r3","parentUuid":"a3","sessionId":"s1","timestamp":"2026-01-02T10:01:11Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"ok"},{"type":"tool_result","tool_use_id":"t4","content":"[detached HEAD 4d5e6f7] second <b>\n 1 file changed"},{"type":"tool_result","tool_use_id":"t5","content":"[main 1111111] not a commit"}]}}
`

func buildString(t *testing.T, s string) *Session {
	t.Helper()
	f, err := transcript.Decode(bytes.NewReader([]byte(s)), "s1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return Build(f, Options{})
}

// TestCommitsFromTranscript: the commits a session made are read from its
// git commit calls' output, with their turn, branch and subject.
func TestCommitsFromTranscript(t *testing.T) {
	s := buildString(t, commitTranscript)
	got := s.Commits()
	if len(got) != 2 {
		t.Fatalf("commits = %+v, want 2", got)
	}
	if c := got[0]; c.Hash != "0a1b2c3" || c.Subject != "first" || c.Branch != "main" || c.Turn != 2 || c.Tool != "t2" {
		t.Errorf("first = %+v", c)
	}
	if c := got[1]; c.Hash != "4d5e6f7" || c.Subject != "second <b>" || c.Branch != "" || c.Turn != 2 {
		t.Errorf("second = %+v", c)
	}
	files := s.FilesTouched()
	if len(files) != 1 || files[0].Path != "/r/a.go" || len(files[0].Turns) != 2 || files[0].Turns[0] != 1 || files[0].Turns[1] != 2 {
		t.Errorf("files = %+v", files)
	}
}

// TestCommitsCorpus counts the commits the corpus's sessions show
// ($CCSITE_CORPUS): every git commit output's summary line is one.
func TestCommitsCorpus(t *testing.T) {
	root := os.Getenv("CCSITE_CORPUS")
	if root == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	commits, sessions := 0, 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte("commit")) {
			return nil
		}
		f, err := transcript.Decode(bytes.NewReader(data), filepath.Base(p))
		if err != nil {
			return nil
		}
		if n := len(Build(f, Options{}).Commits()); n > 0 {
			commits += n
			sessions++
		}
		return nil
	})
	t.Logf("%d commits in %d sessions", commits, sessions)
	if commits == 0 {
		t.Error("no commit found in the corpus")
	}
}
