package build

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/archive"
	"ccsite/build/keep"
)

// TestFileHistoryNotAPath: a session's file-history folder is named by the
// sessionId its records carry; one that is not a plain name ("..", "."
// and the like) archives nothing else of ~/.claude (.credentials.json,
// other sessions' backups), while a plain one archives its backups.
func TestFileHistoryNotAPath(t *testing.T) {
	const good = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"
	for _, id := range []string{"..", ".", "../x", "/etc", "x/../..", `..\..`, "", good} {
		home := t.TempDir()
		claude := filepath.Join(home, ".claude")
		root := filepath.Join(claude, "projects")
		writeFile(t, filepath.Join(claude, ".credentials.json"), `{"token":"CREDENTIAL"}`)
		writeFile(t, filepath.Join(claude, "file-history", "other-session", "f@v1"), "OTHER SESSION'S BACKUP")
		writeFile(t, filepath.Join(claude, "file-history", good, "main.go@v1"), "package main // backup")
		f := &nsFile{sid: id, prefix: "aaaaaaaa"}
		f.prompt("hello")
		f.answer("hi")
		f.write(t, filepath.Join(root, "-home-u-app", "notes.jsonl"))

		a, err := archive.Discover(context.Background(), []string{root})
		if err != nil {
			t.Fatal(err)
		}
		var backups []string
		for _, e := range keepList([]string{root}, a) {
			if e.Kind == keep.KindFileHistory {
				backups = append(backups, e.Rel)
			}
			if !strings.HasPrefix(e.Path, root+string(filepath.Separator)) && !strings.HasPrefix(e.Path, filepath.Join(claude, "file-history", good)+string(filepath.Separator)) {
				t.Errorf("sessionId %q: %s (%s) kept", id, e.Path, e.Kind)
			}
		}
		want := ""
		if id == good {
			want = "file-history/" + good + "/main.go@v1"
		}
		if got := strings.Join(backups, " "); got != want {
			t.Errorf("sessionId %q: backups kept %q, want %q", id, got, want)
		}
	}
}

// TestStoredNameNotAPath: the file name a persisted-output preview gives
// is a plain name or nothing.
func TestStoredNameNotAPath(t *testing.T) {
	preview := func(path string) string {
		return "<persisted-output>\nOutput too large (60.2KB). Full output saved to: " + path + "\n\nPreview (first 2KB):\nx\n</persisted-output>"
	}
	for path, want := range map[string]string{
		"/home/u/.claude/projects/p/s/tool-results/toolu_1.txt": "toolu_1.txt",
		`C:\Users\u\.claude\projects\p\s\tool-results\t.txt`:    "t.txt",
		"/x/..":  "",
		"/x/.":   "",
		"/x/":    "",
		"a\x00b": "",
	} {
		got, ok := storedName(preview(path))
		if got != want || ok != (want != "") {
			t.Errorf("storedName(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}
