package browsertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"ccsite/build"
	"ccsite/build/link"
)

// axeScript is axe-core, vendored from the npm package (testdata/axe).
const axeScript = "testdata/axe/axe.min.js"

// axeRunJS runs axe-core with its default rules on the whole document and
// returns its violations, each node named by its target selectors. It
// does not preload the stylesheets (from file:// the browser refuses to
// fetch them, and logs an error): the rules read computed styles.
const axeRunJS = `axe.run(document, {resultTypes: ["violations"], preload: false}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help,
	nodes: v.nodes.map(n => ({target: n.target.map(String).join(" "), html: n.html.slice(0, 160), summary: (n.failureSummary || "").slice(0, 400)})),
})))`

// axeViolation is one rule axe-core found broken on a page.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  string `json:"target"`
		HTML    string `json:"html"`
		Summary string `json:"summary"`
	} `json:"nodes"`
}

// axePage is one page kind the axe check opens.
type axePage struct {
	kind  string
	url   string
	views bool   // a session's page: audited in both views
	ready string // a JavaScript expression true once the page shows what it should
	shows string // a JavaScript expression true when the page has the shapes the check is for
}

// axeCheck injects axe-core into the page open in tb (once) and returns
// what it reports, one line per violated rule: its id, impact, how many
// nodes and the first targets.
func axeCheck(tb *tab, src, where string) []string {
	tb.t.Helper()
	if !eval[bool](tb, `typeof axe === "object"`) {
		eval[bool](tb, src+"\n;true")
	}
	var out []string
	for _, v := range await[[]axeViolation](tb, axeRunJS) {
		var targets []string
		for i, n := range v.Nodes {
			if i == 4 {
				targets = append(targets, fmt.Sprintf("… %d more", len(v.Nodes)-i))
				break
			}
			targets = append(targets, n.Target)
		}
		first := ""
		if len(v.Nodes) > 0 {
			first = "\n      e.g. " + v.Nodes[0].HTML + "\n      " + strings.ReplaceAll(v.Nodes[0].Summary, "\n", "\n      ")
		}
		out = append(out, fmt.Sprintf("%s: %s (%s) × %d: %s; targets %s%s", where, v.ID, v.Impact, len(v.Nodes), v.Help, strings.Join(targets, " | "), first))
	}
	return out
}

// axeMatrix audits pages with axe-core in one tab: each page at 1280 and
// 375 px, in the light and the dark theme, a session's page in both
// views (the full view with every <details> opened but huge outputs, see
// axeOpenJS). A page is opened once per view; theme and width change in
// place.
func axeMatrix(t *testing.T, tb *tab, src string, pages []axePage, timeout time.Duration) {
	for _, p := range pages {
		views := []string{""}
		if p.views {
			views = []string{"conversation", "full"}
		}
		for _, view := range views {
			name := p.kind
			if view != "" {
				name += "/" + view
			}
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(tb.base, timeout)
				defer cancel()
				tb := &tab{t: t, ctx: ctx, tabState: tb.tabState}
				u := p.url
				if view != "" {
					sep := "?"
					if strings.Contains(u, "?") {
						sep = "&"
					}
					u += sep + "view=" + view
				}
				tb.viewport(1280, 800, false)
				tb.open(u)
				if p.ready != "" {
					tb.waitFor(p.ready)
				}
				if view == "full" {
					eval[bool](tb, axeOpenJS)
				}
				await[bool](tb, axeSettleJS)
				if p.shows != "" && !eval[bool](tb, p.shows) {
					t.Errorf("%s lacks what the check is for: %s", u, p.shows)
				}
				var problems []string
				for _, width := range []int64{1280, 375} {
					tb.viewport(width, 800, width < 600)
					await[bool](tb, axeSettleJS)
					for _, theme := range []string{"light", "dark"} {
						eval[bool](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), true)`)
						problems = append(problems, axeCheck(tb, src, fmt.Sprintf("%s %s %dpx", name, theme, width))...)
					}
				}
				tb.viewport(1280, 800, false)
				for _, p := range problems {
					t.Error(p)
				}
				tb.assertClean(u)
			})
		}
	}
}

// longestSession is the largest session page of a site (pages relative
// to it, a session's page named by its UUID).
func longestSession(t *testing.T, dir string, pages []string) string {
	t.Helper()
	best, size := "", int64(-1)
	for _, p := range pages {
		if strings.Count(p, "/") != 1 || len(filepath.Base(p)) != len("00000000-0000-0000-0000-000000000000.html") {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > size {
			best, size = p, fi.Size()
		}
	}
	if best == "" {
		t.Fatal("no session page")
	}
	return best
}

// TestAxe runs axe-core (its default rules, WCAG A and AA and best
// practice) on every kind of page the demo site has: the index, a
// project, the longest session, the session with error cards in ANSI
// colours, a sub-agent, the search page showing results, and the single
// file of `ccsite share`; both views of a session, light and dark, at
// 1280 and 375 px, from file://. Any violation fails, listed by rule,
// impact, count and targets.
func TestAxe(t *testing.T) {
	e := sharedEnv(t)
	t.Parallel()
	start := time.Now()
	src, err := os.ReadFile(axeScript)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "share.html")
	in := filepath.Join("..", "demo", "projects", "-home-demo-webapp", shareSession+".jsonl")
	if _, err := build.Share(context.Background(), build.ShareConfig{File: in, Out: out}); err != nil {
		t.Fatalf("share %s: %v", in, err)
	}
	shared := (&url.URL{Scheme: "file", Path: filepath.ToSlash(out)}).String()
	webapp := link.ProjectSlug("/home/demo/webapp")
	pages := []axePage{
		{kind: "index", url: e.url("file", "index.html")},
		{kind: "project", url: e.url("file", webappProject)},
		{kind: "session", url: e.url("file", longestSession(t, e.site, e.pages)), views: true,
			shows: `!!document.querySelector("a.anchor[aria-label='Link to this tool call']")`},
		{kind: "session-ansi", url: e.url("file", ansiPage), views: true,
			shows: `!!document.querySelector(".tool-error .term-fg31") && !!document.querySelector(".tool.status-error .fold .added") &&
				[...document.querySelectorAll("pre")].some(p => p.scrollWidth > p.clientWidth + 1) &&
				!!document.querySelector(".task-board") && /Before the first prompt/.test(document.querySelector(".turn-mark").textContent)`},
		{kind: "session-branch", url: e.url("file", notesPage), views: true, shows: `!!document.querySelector("details.branch")`},
		{kind: "agent", url: e.url("file", link.Agent(webapp, shareSession, "a7c31de")), views: true},
		{kind: "search", url: e.url("file", "search.html?q=test"), ready: `document.querySelectorAll("#search-results li").length > 0`},
		{kind: "share", url: shared, views: true},
	}
	tb := newTab(t)
	tb.allow(shared)
	axeMatrix(t, tb, string(src), pages, tabTimeout)
	t.Logf("axe-core on %d page kinds took %s", len(pages), time.Since(start).Round(time.Millisecond))
}

// axeAllTurns makes every turn of a very long page (a link to an id the
// page lacks makes the page script make them all, to look for it) and
// holds once they are made.
const axeAllTurns = `(location.hash || (location.hash = "#axe-all-turns"), !document.querySelector(".conversation > .turn.later"))`

// TestAxeSite runs the same check on the pages of another built site,
// named by CCSITE_AXE_SITE (its folder) and CCSITE_AXE_PAGES (pages
// relative to it, comma-separated; session pages get both views): how
// the real corpus's longest sessions are checked by hand.
func TestAxeSite(t *testing.T) {
	dir := os.Getenv("CCSITE_AXE_SITE")
	if dir == "" {
		t.Skip("CCSITE_AXE_SITE not set")
	}
	sharedEnv(t)
	src, err := os.ReadFile(axeScript)
	if err != nil {
		t.Fatal(err)
	}
	base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/"}).String()
	var pages []axePage
	for _, p := range strings.Split(os.Getenv("CCSITE_AXE_PAGES"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			pages = append(pages, axePage{kind: p, url: base + p, views: strings.Count(p, "/") > 0 && !strings.HasSuffix(p, "index.html"),
				ready: axeAllTurns})
		}
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].kind < pages[j].kind })
	tb := newTab(t)
	tb.allow(base)
	axeMatrix(t, tb, string(src), pages, 20*time.Minute)
}

// ansiPage is the session of testdata/a11y: error cards in ANSI colours,
// a failed edit's line counts on an error card, lines too long for their
// boxes, a task board and a turn before the first prompt.
var ansiPage = link.Session(link.ProjectSlug("/home/test/a11y"), "a11ce5e5-0c01-5e55-9a7e-c0105ca1e000")

// axeOpenJS opens every <details> of the page but those holding more
// than 1,500 elements (a folded long output: axe's colour check takes
// some 4 ms an element, and the same kinds of text are checked in the
// shorter outputs).
const axeOpenJS = `(document.querySelectorAll("details").forEach(d => { if (d.querySelectorAll("*").length <= 1500) d.open = true; }), true)`

// axeSettleJS waits two frames: the page script marks the regions that
// scroll (to take the focus) once a frame after the width changes or a
// <details> opens.
const axeSettleJS = `new Promise(done => {
	const frames = then => requestAnimationFrame(() => requestAnimationFrame(then));
	const wait = () => !window.ccsiteSettled || window.ccsiteSettled() ? frames(() => done(true)) : setTimeout(wait, 50);
	frames(wait); // a resize is told a frame or two after the viewport changed
})`
