package archive

import (
	"path/filepath"
	"strings"
	"testing"
)

// Names taken from a transcript become path elements only when plain.
func TestPlainName(t *testing.T) {
	for _, s := range []string{sid1, "a5bdbc1", "edge_cases", "hook-fix-001", "3f2a9c@v2", "x.txt", "toolu_01ABC.txt",
		"11110000-0000-4000-8000-000000000001#agent-ag000001", "s1"} {
		if !PlainName(s) {
			t.Errorf("PlainName(%q) = false", s)
		}
	}
	for _, s := range []string{"", ".", "..", "../x", "x/..", "/etc", `..\x`, `C:\x`, "a/b", "x\x00", "x\ny", "\xff",
		strings.Repeat("a", 256)} {
		if PlainName(s) {
			t.Errorf("PlainName(%q) = true", s)
		}
	}
}

// A session whose records name it by a sessionId that is not a plain name
// keeps its file's name.
func TestSessionIDNotAPath(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"..", "../x", "/etc", ".", "a/b"} {
		top := tree(t, map[string]string{"projects/-home-u-app/notes.jsonl": sessionLines(id, "/home/u/app")})
		a, err := discoverIn(t, filepath.Join(top, "projects"))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Projects[0].Sessions[0].ID; got != "notes" {
			t.Errorf("sessionId %q: ID %q, want the file's name", id, got)
		}
	}
	top := tree(t, map[string]string{"projects/-home-u-app/notes.jsonl": sessionLines("edge_cases", "/home/u/app")})
	a, err := discoverIn(t, filepath.Join(top, "projects"))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Projects[0].Sessions[0].ID; got != "edge_cases" {
		t.Errorf("a plain sessionId: ID %q", got)
	}
}
