package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"ccsite/build/link"
)

// whoPage is the demo session where background tasks report while Claude
// works, an agent hands back its report, a teammate writes and goes idle,
// the session is tagged and the model ends the conversation.
var whoPage = link.Session(link.ProjectSlug("/home/demo/webapp"), "5d1c0a77-9e42-5b6f-8c3d-2a4b6c8d0e1f")

type whoState struct {
	Text      string   `json:"text"`
	Turns     int      `json:"turns"`
	TaskLines []string `json:"taskLines"`
	Roles     []string `json:"roles"`
	Tag       string   `json:"tag"`
	Ended     int      `json:"ended"`
}

const whoJS = `(() => {
	const shown = el => el.offsetParent !== null;
	const lines = [...document.querySelectorAll(".task-note .note-head")].filter(shown).map(p => p.innerText.replace(/\s+/g, " ").trim());
	const roles = [...document.querySelectorAll(".teammate .note-head")].filter(shown).map(p => p.innerText.replace(/\s+/g, " ").trim());
	const tag = document.querySelector("#session-tag");
	return {text: document.querySelector(".conversation").innerText,
		turns: [...document.querySelectorAll(".conversation > .turn")].filter(shown).length,
		taskLines: lines, roles: roles, tag: tag ? tag.innerText : "",
		ended: [...document.querySelectorAll(".badge")].filter(b => shown(b) && b.innerText.toLowerCase() === "ended by claude").length};
})()`

// TestWhoSaidWhat: in the conversation view, each background task's
// completion is one line of the turn that was running (no turn of its
// own, no "You", no tags printed), the agent's report and the teammate's
// message are theirs, the idle notice one line, and the tag and the
// model's end of the conversation show.
func TestWhoSaidWhat(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.page("file", whoPage+"?view=conversation")
	s := eval[whoState](tb, whoJS)
	wantLines := []string{
		`✓ background task Background command "Run the test suite" completed · exit 0 · output file b7f3k2q.output`,
		`✓ background task Agent "Review checkout changes" completed · 48,210 tokens · 17 tool uses · 3m 04s · output file a4e1c9b27d05f3e68.output`,
	}
	if strings.Join(s.TaskLines, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("task lines = %q, want %q", s.TaskLines, wantLines)
	}
	wantRoles := []string{"agent a4e1c9b27d05f3e68 Review of src/checkout/", "teammate qa Checkout flows pass", "teammate qa idle since 09:19 AM (available)"}
	if strings.Join(s.Roles, "\n") != strings.Join(wantRoles, "\n") {
		t.Errorf("messages of others = %q, want %q", s.Roles, wantRoles)
	}
	if s.Turns != 3 {
		t.Errorf("%d turns shown, want 3 (the notifications open none)", s.Turns)
	}
	for _, bad := range []string{"<task-notification", "<note>", "<usage>", "idle_notification", "You (queued", "Prompt written by Claude Code"} {
		if strings.Contains(s.Text, bad) {
			t.Errorf("the conversation shows %q", bad)
		}
	}
	if s.Tag != "#checkout" || s.Ended != 2 {
		t.Errorf("tag %q, %d \"ended by Claude\" badges; want #checkout and 2 (header, turn)", s.Tag, s.Ended)
	}
	tb.assertClean(whoPage)
}

// TestTagFacet: the project page's tag button keeps the tagged sessions
// only; pressed again, every session is back. The index lists the tag.
func TestTagFacet(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.page("file", link.Project(link.ProjectSlug("/home/demo/webapp")))
	rows := `[...document.querySelectorAll("#sessions tbody tr")].filter(r => !r.hidden).length`
	all := eval[int](tb, rows)
	tb.click(`button.tag-facet[data-tag="checkout"]`)
	if n := eval[int](tb, rows); n != 1 || all < 2 {
		t.Errorf("%d of %d rows after the tag's button, want 1", n, all)
	}
	if p := eval[string](tb, `document.querySelector("button.tag-facet").getAttribute("aria-pressed")`); p != "true" {
		t.Errorf("aria-pressed = %q", p)
	}
	tb.click(`button.tag-facet[data-tag="checkout"]`)
	if n := eval[int](tb, rows); n != all {
		t.Errorf("%d rows after pressing again, want %d", n, all)
	}
	tb.page("file", link.Index())
	if got := eval[string](tb, `(document.querySelector(".tag-groups") || {innerText: ""}).innerText`); !strings.Contains(got, "#checkout") || !strings.Contains(got, "Tests, review and QA of the checkout") {
		t.Errorf("index tags = %q", got)
	}
	if got := eval[string](tb, `[...document.querySelectorAll("table.recent-sessions td")].map(td => td.innerText).join("|")`); !strings.Contains(got, "Tests, review and QA of the checkout #checkout") {
		t.Errorf("recent sessions = %q, want the tag beside the title", got)
	}
	tb.assertClean("tag facet")
}

// TestWhoScreenshots writes the who-said-what page and its project page,
// light and dark, 1280 and 375 px wide, into $CCSITE_SHOTS.
func TestWhoScreenshots(t *testing.T) {
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" {
		t.Skip("set CCSITE_SHOTS=DIR to write screenshots")
	}
	sharedEnv(t)
	t.Parallel()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t)
	for _, page := range []string{whoPage, link.Project(link.ProjectSlug("/home/demo/webapp")), link.Index()} {
		for _, width := range []int64{1280, 375} {
			tb.viewport(width, 800, width < 600)
			tb.page("http", page)
			for _, theme := range []string{"light", "dark"} {
				eval[int](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), 0)`)
				png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("screenshot %s: %v", page, err)
				}
				name := fmt.Sprintf("%s-%s-%d.png", strings.TrimSuffix(strings.ReplaceAll(page, "/", "_"), ".html"), theme, width)
				if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tb.assertClean("screenshots")
}
