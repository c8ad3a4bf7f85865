package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/link"

	"github.com/chromedp/chromedp"
)

// codexPage is the demo's Codex CLI session, in the webapp project beside
// its Claude Code sessions.
var codexPage = link.Session(link.ProjectSlug("/home/demo/webapp"), "8b567bc7-1424-5620-96a0-16a7bbc56634")

// TestCodexSession: a Codex session's page says Codex where a Claude Code
// page says Claude, badges the agent, and shows its calls as the cards
// people know (a command with its output, a diff, a plan); the project
// page lists it with Claude Code's sessions of the same folder. With
// CCSITE_SHOTS it writes the page light and dark, 1280 and 375 px wide.
func TestCodexSession(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.viewport(1280, 800, false)
	tb.page("http", codexPage)
	got := eval[string](tb, `JSON.stringify({
		who: [...new Set([...document.querySelectorAll(".msg.assistant .who")].map(e => e.firstChild.textContent.trim()))],
		badge: document.querySelector(".session-head .badge.agent")?.textContent || "",
		cards: [...document.querySelectorAll(".tool summary")].map(e => e.textContent.replace(/\s+/g, " ").trim()),
		prompt: document.querySelector(".msg.user")?.textContent || "",
		final: [...document.querySelectorAll(".msg.assistant")].filter(e => e.textContent.includes("Search now ignores case")).length,
	})`)
	for _, want := range []string{`"who":["Codex"]`, `"badge":"Codex"`, `Bash rg -n`, `TodoWrite`, `MultiEdit src/search.ts`, `Write src/search.test.ts`, `Bash npx vitest run`, `The search box should ignore case`, `"final":1`} {
		if !strings.Contains(got, want) {
			t.Errorf("the Codex page lacks %s: %s", want, got)
		}
	}
	tb.page("http", link.Project(link.ProjectSlug("/home/demo/webapp")))
	rows := eval[string](tb, `[...document.querySelectorAll("tbody tr")].map(r => r.textContent.replace(/\s+/g, " ").trim()).join("\n")`)
	if !strings.Contains(rows, "Codex") || strings.Count(rows, "\n") < 2 {
		t.Errorf("the webapp project does not list the Codex session with the others:\n%s", rows)
	}
	tb.assertClean("codex")
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		tb.page("http", codexPage)
		for _, theme := range []string{"light", "dark"} {
			eval[int](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), 0)`)
			png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("codex-%s-%d.png", theme, width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
