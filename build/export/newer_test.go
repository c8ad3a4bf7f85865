package export

import (
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
	"ccsite/build/transcript"
)

func loadCase(t *testing.T, name string) *session.Session {
	t.Helper()
	f, err := transcript.ReadFile(filepath.Join("..", "render", "testdata", "sessions", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return session.Build(f, session.Options{})
}

// TestMarkdownNewerShapes: the newer record kinds read in the Markdown
// export as they do on the page: events as notes, every teammate's message,
// effort and attribution, prompts a program wrote.
func TestMarkdownNewerShapes(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]string{
		"event-new-continued-in":    {"> _Continued in another session: 9c2d4e6f-1a3b-4c5d-8e7f-0a1b2c3d4e5f_"},
		"event-new-file":            {"> _File attached: export.go_"},
		"event-new-agents-killed":   {"> _Background agents stopped: 2 background agents stopped_"},
		"event-new-teammates":       {"### Teammate researcher — Found the slow query", "The orders query scans", "### Teammate tester — Tests pass", "All 48 export tests pass"},
		"event-new-effort":          {"_Effort: high_", "_Attributed to agent release-bot · skill release-notes · MCP github/create_pr_"},
		"event-new-prompt-source":   {"### You (queued)", "### Prompt (system)", "### Prompt (sdk)", "Summarize the export"},
		"event-new-cost-state":      {"### Claude"},
		"event-new-artifact-ledger": {"### Claude"},
		"who-said-what": {"### Agent a4e1c9b27d05f3e68\n\n## Review of src/checkout/", "### Teammate qa — Checkout flows pass",
			"> _Teammate qa: idle_", `> _Background task: Background command "Run the test suite" completed (exit code 0)_`,
			"> _Tagged checkout_", "> _Claude ended the conversation (EndConversation)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := Markdown(&b, loadCase(t, name), "shop"); err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("Markdown lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "cost-state") || strings.Contains(b.String(), "artifact-ledger") ||
				strings.Contains(b.String(), "Attribution snapshot") || strings.Contains(b.String(), "<task-notification>") {
				t.Errorf("bookkeeping shown:\n%s", b.String())
			}
		})
	}
}
