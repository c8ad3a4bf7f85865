package codex

import (
	"os"
	"path/filepath"
	"testing"

	"ccsite/build/session"
)

// TestRealSessions reads the real Codex sessions of $CCSITE_AGENTS: every
// prompt, answer and tool call reaches the session model, no record is of
// an unknown kind, and the tokens are the token_count events' total.
func TestRealSessions(t *testing.T) {
	dir := os.Getenv("CCSITE_AGENTS")
	if dir == "" {
		t.Skip("CCSITE_AGENTS not set")
	}
	found, err := Find(filepath.Join(dir, "codex"))
	if err != nil || len(found) == 0 {
		t.Fatalf("Find: %v, %d sessions", err, len(found))
	}
	for _, fd := range found {
		f, err := Read(fd.Path, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := session.Build(f, session.Options{})
		t.Logf("%s: %d records, %d problems, %d turns, %d tools, usage %+v", filepath.Base(fd.Path), len(f.Records), len(f.Problems), len(s.Turns), len(s.Tools), s.Stats)
		for _, r := range f.Records {
			if !r.Known() {
				t.Errorf("%s:%d: unknown %s", fd.Path, r.Line, r.KindLabel())
			}
		}
		if len(f.Problems) > 0 {
			t.Errorf("problems: %v", f.Problems)
		}
	}
}
