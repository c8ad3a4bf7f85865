package browsertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"ccsite/build"
	"ccsite/build/link"
)

// The fork fixture (testdata/compare): a parent session and a session
// forked from it after its third turn (Claude Code's --fork-session copies
// the conversation so far into the new file), which then goes its own way
// for three turns, the last of them the parent's fourth prompt again.
const (
	forkParent = "5a1b2c3d-0000-4000-8000-00000000a001"
	forkChild  = "5a1b2c3d-0000-4000-8000-00000000b002"
	notesID    = "7e42ecb6-7c13-5256-b29f-8fd0d37313b4"
)

var forkProject = link.ProjectSlug("/home/demo/fork")

// compareSite is the demo archive with the fork fixture.
func compareSite(t *testing.T) *site {
	t.Helper()
	paths, err := demoPaths()
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := filepath.Abs(filepath.Join("testdata", "compare"))
	if err != nil {
		t.Fatal(err)
	}
	return extraSite(t, "compare", build.Config{Paths: append(paths, fixture)})
}

func compareURL(s *site, scheme, a, b string) string {
	return s.url(scheme, "compare.html?a="+url.QueryEscape(a)+"&b="+url.QueryEscape(b))
}

// factsOnPage reads what a session's page says of the figures the compare
// page shows beside it, by the facts list's labels.
const factsOnPage = `(() => {
  const out = {};
  document.querySelectorAll("dl.facts > div").forEach(d => {
    const k = d.querySelector("dt").textContent.trim(), v = d.querySelector("dd");
    out[k] = (k === "Cost" ? v.firstChild.textContent : v.textContent).trim();
  });
  return out;
})()`

// factsOnCompare reads the compare page's column (a or b) by row.
func factsOnCompare(col string) string {
	return `(() => {
  const out = {};
  document.querySelectorAll(".compare-facts tr[data-fact]").forEach(tr => {
    out[tr.getAttribute("data-fact")] = tr.querySelector(".cmp-` + col + ` .v").textContent.trim();
  });
  return out;
})()`
}

// TestCompare opens compare pages from file:// and over HTTP: a fork and
// its parent (the first three turns shared and folded, the divergence at
// turn 4, the parent's fourth prompt lined up with the fork's sixth, the
// fork's fourth and fifth and the parent's fifth alone), two
// unrelated sessions (no prompt shared: one under the other), and checks
// that each column's cost, tokens, active time, turns and tool calls are
// what the session's own page says.
func TestCompare(t *testing.T) {
	s := compareSite(t)
	t.Parallel()
	tb := newTab(t)
	s.openIn(tb)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			tb := tb.in(t)
			tb.open(compareURL(s, scheme, forkParent, forkChild))
			tb.waitFor(`document.querySelector(".cmp-diverge") !== null`)
			div := eval[string](tb, `document.querySelector(".cmp-diverge").textContent`)
			if div != "They diverge at turn 4." {
				t.Errorf("divergence: %q, want turn 4", div)
			}
			if got := eval[string](tb, `document.querySelector(".cmp-shared summary").textContent`); !strings.Contains(got, "first 3 turns") {
				t.Errorf("shared turns: %q", got)
			}
			if got := eval[bool](tb, `document.querySelector(".cmp-shared").open`); got {
				t.Error("the shared turns are not folded")
			}
			matched := eval[[]string](tb, `[...document.querySelectorAll(".cmp-rest .cmp-pair.matched")].map(p => [...p.querySelectorAll(".cmp-turn")].map(c => c.getAttribute("data-turn")).join("-"))`)
			if strings.Join(matched, ",") != "4-6" {
				t.Errorf("turns lined up after the divergence: %q, want 4-6 (the same prompt)", matched)
			}
			alone := eval[[]string](tb, `[...document.querySelectorAll(".cmp-rest .cmp-pair:not(.matched) .cmp-turn")].map(c => c.className.split(" ").pop() + c.getAttribute("data-turn"))`)
			if strings.Join(alone, ",") != "cmp-b4,cmp-b5,cmp-a5" {
				t.Errorf("turns of one side only: %q", alone)
			}
			if got := eval[string](tb, `document.querySelector("tr[data-fact=cost] .better").className`); got != "cmp-a better" {
				t.Errorf("the cheaper is marked on %q, want the parent (a)", got)
			}
			if got := eval[string](tb, `document.querySelector(".compare-verdict").textContent`); !strings.Contains(got, "A is cheaper") || !strings.Contains(got, "B touched more: 3 files") {
				t.Errorf("verdict: %q", got)
			}
			if strings.Contains(eval[string](tb, `document.body.innerHTML`), "<script>alert") {
				t.Error("markup from a transcript")
			}
			cmp := map[string]map[string]string{"a": eval[map[string]string](tb, factsOnCompare("a")), "b": eval[map[string]string](tb, factsOnCompare("b"))}
			for col, id := range map[string]string{"a": forkParent, "b": forkChild} {
				tb.open(s.url(scheme, link.Session(forkProject, id)))
				page := eval[map[string]string](tb, factsOnPage)
				for fact, label := range map[string]string{"cost": "Cost", "tokens": "Tokens", "active": "Active", "turns": "Turns", "toolCalls": "Tool calls", "messages": "Messages"} {
					if cmp[col][fact] != page[label] {
						t.Errorf("%s %s: compare page %q, session page %q", id, label, cmp[col][fact], page[label])
					}
				}
			}

			tb.open(compareURL(s, scheme, notesID, forkParent))
			tb.waitFor(`document.querySelector(".cmp-diverge") !== null`)
			if got := eval[string](tb, `document.querySelector(".cmp-diverge").textContent`); !strings.Contains(got, "No prompt is shared") {
				t.Errorf("unrelated sessions: %q", got)
			}
			if n := eval[int](tb, `document.querySelectorAll(".cmp-apart").length`); n != 2 {
				t.Errorf("unrelated sessions: %d columns of turns, want 2 one under the other", n)
			}
			if n := eval[int](tb, `document.querySelectorAll(".cmp-shared, .cmp-pair.matched").length`); n != 0 {
				t.Errorf("unrelated sessions: %d turns lined up", n)
			}
			tb.assertClean(scheme)
		})
	}
}

// TestCompareWith uses a session page's "Compare with…" control: its list
// holds this project's other sessions (the whole archive's when ticked),
// and a title typed leads to compare.html?a=this&b=that; the fork's page
// (it continues its parent) links to the two compared at once.
func TestCompareWith(t *testing.T) {
	s := compareSite(t)
	t.Parallel()
	tb := newTab(t)
	s.openIn(tb)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			tb := tb.in(t)
			tb.open(s.url(scheme, link.Session(forkProject, forkChild)))
			tb.click("#compare-b")
			tb.waitFor(`document.querySelectorAll("#compare-b-list option").length > 0`)
			opts := eval[[]string](tb, `[...document.querySelectorAll("#compare-b-list option")].map(o => o.value)`)
			if strings.Join(opts, ",") != forkParent {
				t.Errorf("this project's other sessions: %q, want the parent alone", opts)
			}
			direct := eval[string](tb, `document.querySelector("a.compare-continued").search`)
			if want := "?a=" + url.QueryEscape(link.Session(forkProject, forkParent)) + "&b=" + url.QueryEscape(link.Session(forkProject, forkChild)); direct != want {
				t.Errorf("the link to compare with the session it continues: %q, want %q", direct, want)
			}
			tb.click(".compare-scope input")
			if n := eval[int](tb, `document.querySelectorAll("#compare-b-list option").length`); n < 5 {
				t.Errorf("the whole archive lists %d sessions", n)
			}
			eval[bool](tb, `(document.querySelector("#compare-b").value = "Add a --verbose flag to the CLI in cli.py", true)`)
			tb.click(".compare-with button")
			tb.waitAcross(`location.pathname.endsWith("/compare.html") && document.querySelector(".cmp-diverge") !== null`)
			q := eval[string](tb, `location.search`)
			if q != "?a="+forkChild+"&b="+forkParent {
				t.Errorf("the control led to %q", q)
			}
			tb.open(s.url(scheme, link.Session(forkProject, forkChild)))
			tb.click("a.compare-continued")
			tb.waitAcross(`location.pathname.endsWith("/compare.html") && document.querySelector(".cmp-diverge") !== null`)
			if got := eval[string](tb, `document.querySelector(".cmp-diverge").textContent`); got != "They diverge at turn 4." {
				t.Errorf("compared with the session it continues: %q", got)
			}
			tb.assertClean(scheme)
		})
	}
}

// TestCompareFile opens what ccsite compare writes from file:// with
// nothing else reachable: the same view, the facts inlined.
func TestCompareFile(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	dir := filepath.Join("testdata", "compare", "-home-demo-fork")
	out := filepath.Join(t.TempDir(), "fork vs parent.html")
	err := build.Compare(context.Background(), build.CompareConfig{A: filepath.Join(dir, forkParent+".jsonl"), B: filepath.Join(dir, forkChild+".jsonl"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(out)}).String()
	tb := newTab(t, chromedp.WithNewBrowserContext())
	tb.allow(page)
	var log requestLog
	log.listen(tb)
	tb.open(page)
	tb.waitFor(`document.querySelector(".cmp-diverge") !== null`)
	if got := eval[string](tb, `document.querySelector(".cmp-diverge").textContent`); got != "They diverge at turn 4." {
		t.Errorf("divergence: %q", got)
	}
	if got := eval[string](tb, `document.querySelector("tr[data-fact=turns] .cmp-b .v").textContent`); got != "6" {
		t.Errorf("B's turns: %q", got)
	}
	for _, u := range log.take() {
		if u != page && !strings.HasPrefix(u, "data:") {
			t.Errorf("the single file asked for %s", u)
		}
	}
	tb.assertClean("compare file")
}

// TestCompareShots writes, into $CCSITE_SHOTS, the compare page of the
// fork and its parent (shared turns opened) and a session page's control,
// light and dark, 1280 and 375 px wide.
func TestCompareShots(t *testing.T) {
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" {
		t.Skip("set CCSITE_SHOTS=DIR to write screenshots")
	}
	s := compareSite(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t)
	s.openIn(tb)
	shot := func(name string) {
		png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		for _, theme := range []string{"light", "dark"} {
			setTheme := `(localStorage.setItem("ccsite-theme", "` + theme + `"), document.documentElement.setAttribute("data-theme", "` + theme + `"), true)`
			tb.open(compareURL(s, "http", forkParent, forkChild))
			tb.waitFor(`document.querySelector(".cmp-diverge") !== null`)
			eval[bool](tb, setTheme+` && (document.querySelector(".cmp-shared").open = true)`)
			shot(fmt.Sprintf("compare-%s-%d", theme, width))
			tb.open(s.url("http", link.Session(forkProject, forkChild)))
			eval[bool](tb, setTheme)
			tb.click("#compare-b")
			tb.waitFor(`document.querySelectorAll("#compare-b-list option").length > 0`)
			png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("compare-with-%s-%d.png", theme, width)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tb.assertClean("shots")
}

// TestCompareAxe audits the compare page (the fork and its parent, the
// shared turns opened) and a session page with its "Compare with…"
// control with axe-core, light and dark, 1280 and 375 px.
func TestCompareAxe(t *testing.T) {
	s := compareSite(t)
	t.Parallel()
	src, err := os.ReadFile(axeScript)
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t)
	s.openIn(tb)
	axeMatrix(t, tb, string(src), []axePage{
		{kind: "compare", url: compareURL(s, "file", forkParent, forkChild),
			ready: `document.querySelector(".cmp-diverge") !== null && (document.querySelector(".cmp-shared").open = true)`},
		{kind: "compare-unrelated", url: compareURL(s, "file", notesID, forkParent), ready: `document.querySelector(".cmp-apart") !== null`},
		{kind: "session-compare-with", url: s.url("file", link.Session(forkProject, forkChild)), shows: `!!document.querySelector("form.compare-with")`},
	}, tabTimeout)
}

// TestCompareAgents: a Codex session of the demo beside a Claude Code one:
// each column names its agent, and each column's figures are what the
// session's own page says.
func TestCompareAgents(t *testing.T) {
	s := compareSite(t)
	t.Parallel()
	tb := newTab(t)
	s.openIn(tb)
	const codexID = "8b567bc7-1424-5620-96a0-16a7bbc56634"
	tb.open(compareURL(s, "file", codexID, notesID))
	tb.waitFor(`document.querySelector(".cmp-diverge") !== null`)
	cmp := map[string]map[string]string{"a": eval[map[string]string](tb, factsOnCompare("a")), "b": eval[map[string]string](tb, factsOnCompare("b"))}
	if a, b := cmp["a"]["agent"], cmp["b"]["agent"]; !strings.HasPrefix(a, "Codex") || !strings.HasPrefix(b, "Claude Code") {
		t.Errorf("agents: %q beside %q, want Codex beside Claude Code", a, b)
	}
	for col, page := range map[string]string{"a": codexPage, "b": link.Session(link.ProjectSlug("/home/demo/notes"), notesID)} {
		tb.open(s.url("file", page))
		got := eval[map[string]string](tb, factsOnPage)
		// The compare page's cost has the sub-agents' in it, as the
		// page's cost line ends ("$0.08 + $0.05 sub-agents = $0.13").
		costLine := eval[string](tb, `[...document.querySelectorAll("dl.facts > div")].find(d => d.querySelector("dt").textContent.trim() === "Cost").querySelector("dd").textContent`)
		if c := cmp[col]["cost"]; !strings.HasSuffix(strings.TrimSpace(costLine), c) {
			t.Errorf("%s cost: compare page %q, session page %q", page, c, costLine)
		}
		for fact, label := range map[string]string{"tokens": "Tokens", "turns": "Turns", "toolCalls": "Tool calls"} {
			if cmp[col][fact] != got[label] {
				t.Errorf("%s %s: compare page %q, session page %q", page, label, cmp[col][fact], got[label])
			}
		}
	}
}
