package gemini

import (
	"testing"

	"ccsite/build/markup"
)

func TestShellResult(t *testing.T) {
	for _, c := range []struct {
		in        string
		cancelled bool
		want      shell
	}{
		{"Output: ok\nExit Code: 0\nProcess Group PGID: 1", false, shell{Stdout: "ok"}},
		{"Command: make\nDirectory: (root)\nOutput: a\nb\nError: boom\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 9", false,
			shell{Stdout: "a\nb", Stderr: "boom", ReturnCode: "Exit code 2"}},
		{"Output: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15", true, shell{Interrupted: true, ReturnCode: "Signal 15"}},
		{"plain text, no sections", false, shell{Stdout: "plain text, no sections"}},
	} {
		if got := shellResult(c.in, c.cancelled); got != c.want {
			t.Errorf("shellResult(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestParseHunks(t *testing.T) {
	diff := "Index: a.go\n===\n--- a.go\tOriginal\n+++ a.go\tWritten\n@@ -1,2 +1,2 @@\n package a\n-var x = 1\n+var x = 2\n\\ No newline at end of file\n@@ -10 +10,2 @@\n+// more\n y\n"
	got := parseHunks(diff)
	want := []markup.Hunk{
		{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []string{" package a", "-var x = 1", "+var x = 2"}},
		{OldStart: 10, OldLines: 1, NewStart: 10, NewLines: 2, Lines: []string{"+// more", " y"}},
	}
	if len(got) != len(want) {
		t.Fatalf("hunks %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.OldStart != w.OldStart || g.OldLines != w.OldLines || g.NewStart != w.NewStart || g.NewLines != w.NewLines || len(g.Lines) != len(w.Lines) {
			t.Errorf("hunk %d = %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.Lines {
			if g.Lines[j] != w.Lines[j] {
				t.Errorf("hunk %d line %d = %q, want %q", i, j, g.Lines[j], w.Lines[j])
			}
		}
	}
}

func TestMapToolNames(t *testing.T) {
	for in, want := range map[string]string{
		"run_shell_command": "Bash", "replace": "Edit", "github__create_issue": "mcp__github__create_issue",
		"mcp__db__query": "mcp__db__query", "save_memory": "save_memory", "": "unknown",
	} {
		if got, _ := mapTool(toolCall{Name: in, Args: []byte(`{}`)}); got != want {
			t.Errorf("mapTool(%q) = %q, want %q", in, got, want)
		}
	}
	name, input := mapTool(toolCall{Name: "read_file", Args: []byte(`{"absolute_path":"/a/b.go","offset":10}`)})
	if name != "Read" || string(input) != `{"file_path":"/a/b.go","offset":10}` {
		t.Errorf("read_file → %s %s", name, input)
	}
}
