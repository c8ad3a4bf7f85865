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

// TestAgentFacet: on the front page (its recent sessions) and the webapp
// project page, where Claude Code and Codex worked, the agent buttons
// show one agent's sessions, with the filter box's words on the project
// page, and all of them again when pressed twice; a project of one agent
// has no agent buttons. With CCSITE_SHOTS it writes the project page
// with Codex pressed, light and dark, 1280 and 375 px wide.
func TestAgentFacet(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.viewport(1280, 800, false)
	shown := func(table string) string {
		return eval[string](tb, `[...document.querySelectorAll("`+table+` tbody tr")].filter(r => !r.hidden).map(r => (r.querySelector(".badge.agent")?.textContent || "Claude Code")).join(",")`)
	}
	webapp := link.Project(link.ProjectSlug("/home/demo/webapp"))
	for _, c := range []struct{ page, table string }{{"index.html", "table.recent-sessions"}, {webapp, "#sessions"}} {
		tb.page("http", c.page)
		all := shown(c.table)
		buttons := eval[string](tb, `[...document.querySelectorAll("button.agent-facet")].map(b => b.textContent.replace(/\s+/g, " ").trim()).join(",")`)
		if !strings.HasPrefix(buttons, "Claude Code ") || !strings.Contains(buttons, ",Codex 1") {
			t.Fatalf("%s: agent buttons %q, want Claude Code's and Codex's", c.page, buttons)
		}
		tb.click(`button.agent-facet[data-agent="codex"]`)
		if got := shown(c.table); got != "Codex" {
			t.Errorf("%s: with Codex pressed, rows of %q", c.page, got)
		}
		if p := eval[string](tb, `document.querySelector('button.agent-facet[data-agent="codex"]').getAttribute("aria-pressed")`); p != "true" {
			t.Errorf("%s: the pressed button says aria-pressed=%s", c.page, p)
		}
		tb.click(`button.agent-facet[data-agent="claude"]`)
		if got := shown(c.table); strings.Contains(got, "Codex") || got == "" {
			t.Errorf("%s: with Claude Code pressed, rows of %q", c.page, got)
		}
		tb.click(`button.agent-facet[data-agent="claude"]`)
		if got := shown(c.table); got != all {
			t.Errorf("%s: pressed twice, rows of %q, want all %q", c.page, got, all)
		}
	}
	// #agent=KEY in the address presses that agent's button.
	tb.page("http", "index.html#agent=codex")
	if got := shown("table.recent-sessions"); got != "Codex" {
		t.Errorf("index.html#agent=codex: rows of %q", got)
	}
	// With words in the filter box: both must match.
	tb.page("http", webapp)
	tb.click(`button.agent-facet[data-agent="codex"]`)
	tb.click("#filter")
	tb.press("zzznothing")
	if got := shown("#sessions"); got != "" {
		t.Errorf("Codex pressed and a word no row holds: rows of %q", got)
	}
	tb.page("http", link.Project(link.ProjectSlug("/home/demo/notes")))
	if n := eval[int](tb, `document.querySelectorAll("button.agent-facet").length`); n != 0 {
		t.Errorf("a project of one agent has %d agent buttons", n)
	}
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		tb.page("http", webapp)
		tb.click(`button.agent-facet[data-agent="codex"]`)
		for _, theme := range []string{"light", "dark"} {
			eval[int](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), 0)`)
			png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("agentfacet-%s-%d.png", theme, width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
