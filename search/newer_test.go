package search

import (
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
	"ccsite/build/transcript"
)

// TestDocsNewerShapes: every teammate's message is a document of its own,
// the newer events are found by what they say, prompts a program wrote are
// found as prompts.
func TestDocsNewerShapes(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]string{
		"event-new-teammates":     {"teammate|researcher Found the slow query", "teammate|tester Tests pass"},
		"event-new-file":          {"event|File attached: export.go"},
		"event-new-continued-in":  {"event|Continued in another session: 9c2d4e6f"},
		"event-new-prompt-source": {"prompt|Run the nightly check", "prompt|Summarize the export"},
		// A session's tag; background tasks' completions; an agent's report.
		"who-said-what": {"event|#checkout tag checkout", `event|Background command "Run the test suite" completed (exit code 0)`,
			`event|Agent "Review checkout changes" completed`, "teammate|a4e1c9b27d05f3e68\n## Review of src/checkout/",
			"teammate|qa Checkout flows pass"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, err := transcript.ReadFile(filepath.Join("..", "build", "render", "testdata", "sessions", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			docs := Docs(session.Build(f, session.Options{}), "p/s.html", "shop")
			ids := map[string]bool{}
			var got []string
			for _, d := range docs {
				if ids[d.ID] {
					t.Errorf("two documents with id %s", d.ID)
				}
				ids[d.ID] = true
				got = append(got, d.Role+"|"+d.Text)
			}
			for _, w := range want {
				found := false
				for _, g := range got {
					found = found || strings.HasPrefix(g, w)
				}
				if !found {
					t.Errorf("no document %q in %q", w, got)
				}
			}
		})
	}
}
