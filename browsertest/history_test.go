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

// historyPage is the demo webapp's history page; commitPage the demo
// session that commits twice (3f9a2c1 on main in turn 1, 7b41e0d on
// fix/month-end in turn 2).
var (
	historyPage = link.ProjectSlug("/home/demo/webapp") + "/history/index.html"
	commitPage  = link.Session(link.ProjectSlug("/home/demo/webapp"), "c3a1e5f0-4b2d-5e6f-9a7b-1c2d3e4f5a6b")
)

// shownJS lists the history's lines shown: commits by short hash,
// sessions by title.
const shownJS = `[...document.querySelectorAll("#history li[data-b]")].filter(li => li.offsetParent !== null).map(li => li.classList.contains("h-commit") ? li.querySelector(".hash").innerText : "S:" + li.querySelector(".h-title").innerText)`

// choose picks a value of one of the history's filters, as a person does.
func choose(tb *tab, id, label string) {
	tb.t.Helper()
	eval[int](tb, fmt.Sprintf(`(() => { const s = document.getElementById(%q); const o = [...s.options].find(o => o.text === %q); s.value = o ? o.value : ""; s.dispatchEvent(new Event("change", {bubbles: true})); return 0; })()`, id, label))
}

// TestHistoryPage: from file:// and over HTTP, the history page shows
// commits and sessions newest first; the branch filter keeps a branch's
// commits and sessions, the file filter those that touched the file
// (and the Files section only its line); a commit's link leads to the
// turn that made it, which shows the commit.
func TestHistoryPage(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	for _, scheme := range []string{"file", "http"} {
		tb.page(scheme, historyPage)
		all := eval[[]string](tb, shownJS)
		if len(all) < 6 || all[0] != "7b41e0d" || all[1] != "3f9a2c1" {
			t.Fatalf("%s: lines %q, want the two commits first (newest first), then the sessions", scheme, all)
		}
		if hidden := eval[bool](tb, `document.querySelector(".history-filter").hidden`); hidden {
			t.Errorf("%s: the filters stay hidden", scheme)
		}
		choose(tb, "history-branch", "fix/month-end")
		if got := strings.Join(eval[[]string](tb, shownJS), "|"); got != "7b41e0d|S:parseDate drops the last day of the month. Fix it and commit." {
			t.Errorf("%s: branch fix/month-end shows %q", scheme, got)
		}
		choose(tb, "history-branch", "all branches")
		choose(tb, "history-file", "web/date.js")
		if got := strings.Join(eval[[]string](tb, shownJS), "|"); got != "3f9a2c1|S:parseDate drops the last day of the month. Fix it and commit." {
			t.Errorf("%s: file web/date.js shows %q", scheme, got)
		}
		files := eval[[]string](tb, `[...document.querySelectorAll(".h-files li")].filter(li => li.offsetParent !== null).map(li => li.innerText)`)
		if len(files) != 1 || !strings.HasPrefix(files[0], "web/date.js") || !strings.Contains(files[0], "turn 1") {
			t.Errorf("%s: files shown %q, want web/date.js with its turn", scheme, files)
		}
		choose(tb, "history-file", "all files")
		if n := len(eval[[]string](tb, shownJS)); n != len(all) {
			t.Errorf("%s: %d lines after clearing the filters, want %d", scheme, n, len(all))
		}
		tb.click(`#c-3f9a2c1 a.h-turn`)
		tb.waitAcross(`location.pathname.endsWith("` + filepath.Base(commitPage) + `") && location.hash === "#t-1" && document.readyState === "complete"`)
		got := eval[string](tb, `(document.querySelector("#t-1 .turn-commits") || {innerText: ""}).innerText`)
		if !strings.Contains(got, "3f9a2c1") || !strings.Contains(got, "Fix off-by-one in parseDate at month end") {
			t.Errorf("%s: turn 1's commits = %q", scheme, got)
		}
		head := eval[string](tb, `(document.querySelector(".session-head .commits") || {innerText: ""}).innerText`)
		if !strings.Contains(head, "3f9a2c1") || !strings.Contains(head, "7b41e0d") {
			t.Errorf("%s: header commits = %q", scheme, head)
		}
		tb.assertClean(scheme + " history")
	}
	// A commit's subject is found by search, and leads to its turn.
	for _, scheme := range []string{"file", "http"} {
		tb.open(tb.env.url(scheme, "search.html?q=off-by-one+role:commit"))
		tb.waitFor(`ccsiteSearch.lastShown === "off-by-one role:commit"`)
		hrefs := eval[[]string](tb, `[...document.querySelectorAll("#search-results a.hit-link")].map(e => e.getAttribute("href"))`)
		if len(hrefs) != 1 || !strings.Contains(hrefs[0], filepath.Base(commitPage)) || !strings.Contains(hrefs[0], "#t-1") {
			t.Errorf("%s: search for the commit's subject gives %q, want its turn", scheme, hrefs)
		}
		tb.assertClean(scheme + " commit search")
	}
	tb.page("file", link.Index())
	tb.click(`a.history-link[href$="home-demo-webapp/history/index.html"]`)
	tb.waitAcross(`location.pathname.endsWith("/history/index.html")`)
	tb.assertClean("index to history")
}

// TestHistoryScreenshots writes the history page and the session that
// commits, light and dark, 1280 and 375 px wide, into $CCSITE_SHOTS.
func TestHistoryScreenshots(t *testing.T) {
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
	for _, page := range []string{historyPage, commitPage + "?view=conversation"} {
		for _, width := range []int64{1280, 375} {
			tb.viewport(width, 800, width < 600)
			tb.page("http", page)
			for _, theme := range []string{"light", "dark"} {
				eval[int](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), 0)`)
				png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("screenshot %s: %v", page, err)
				}
				name := fmt.Sprintf("%s-%s-%d.png", strings.NewReplacer("/", "_", ".html", "", "?view=conversation", "").Replace(page), theme, width)
				if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tb.assertClean("screenshots")
}
