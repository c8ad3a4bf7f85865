package browsertest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"ccsite/build/link"
)

// targetState describes the element an anchor names, or the tool call
// around it when it is the (empty) anchor of a tool's result.
type targetState struct {
	Found      bool     `json:"found"`
	Target     bool     `json:"target"` // has the class "target"
	Closed     []string `json:"closed"` // classes of closed <details> around it
	Top        float64  `json:"top"`
	HeadBottom float64  `json:"headBottom"` // bottom of the site header, 0 once it has scrolled away
	Height     float64  `json:"height"`     // of the viewport
}

func targetJS(id string) string {
	return fmt.Sprintf(`new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
		const el = document.getElementById(%s);
		if (!el) return done({found: false});
		const box = el.classList.contains("result-anchor") ? el.closest(".tool") : el;
		const closed = [];
		for (let p = el.parentElement; p; p = p.parentElement) {
			if (p.tagName === "DETAILS" && !p.open) closed.push(p.className || "details");
		}
		const r = box.getBoundingClientRect();
		done({
			found: true,
			target: box.classList.contains("target"),
			closed: closed,
			top: r.top,
			headBottom: Math.max(0, document.querySelector(".site-head").getBoundingClientRect().bottom),
			height: innerHeight,
		});
	})))`, strconv.Quote(id))
}

// targetProblems says what is wrong with the element id names: it should
// be marked as the target, have no closed <details> around it, and have its
// top on screen below the sticky header.
func targetProblems(tb *tab, id string) []string {
	tb.t.Helper()
	s := await[targetState](tb, targetJS(id))
	if !s.Found {
		tb.t.Fatalf("no element #%s", id)
	}
	var p []string
	if len(s.Closed) > 0 {
		p = append(p, fmt.Sprintf("#%s is inside closed details: %v", id, s.Closed))
	}
	if !s.Target {
		p = append(p, fmt.Sprintf("#%s: no class target", id))
	}
	if s.Top < s.HeadBottom-1 || s.Top >= s.Height {
		p = append(p, fmt.Sprintf("#%s: top at %.0f px, want in the viewport below the header (%.0f to %.0f px)",
			id, s.Top, s.HeadBottom, s.Height))
	}
	return p
}

// checkTarget fails the test with each of targetProblems; when bug names
// a known bug it skips instead (and says when the bug seems fixed).
func checkTarget(tb *tab, id, bug string) {
	tb.t.Helper()
	p := targetProblems(tb, id)
	knownBug(tb.t, bug, p)
	for _, s := range p {
		tb.t.Error(s)
	}
}

// knownBug skips the test when bug is set and the test found problems; it
// logs when bug is set and there are none (remove the note).
func knownBug(t *testing.T, bug string, problems []string) {
	t.Helper()
	switch {
	case bug == "":
	case len(problems) > 0:
		t.Skipf("BUG: %s\nfound: %s", bug, strings.Join(problems, "; "))
	default:
		t.Logf("known bug no longer shows; remove its note: %s", bug)
	}
}

// TestAnchors opens pages at an anchor (a message, a tool call, a tool's
// result, a turn, a branch; some inside collapsed branches), from file://
// and over HTTP: the element is revealed (every <details> around it open),
// scrolled to below the sticky header and marked "target". A later change
// of the hash, a fork note's link and a sub-agent's link to the call that
// ran it do the same; a click on a "#" link copies the page's full URL.
func TestAnchors(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	cases := []struct {
		name, page, id string
		bug            string // a known bug: the subtest skips while it shows
	}{
		{"message-in-collapsed-branch", notesPage, "m-98ab21f4-63ad-5556-855d-c861fa9a44ed", ""},
		{"last-message-in-collapsed-branch", notesPage, "m-3b7d7311-9b8d-523d-b600-14288b8e7bf6", ""},
		{"tool-in-collapsed-branch", hostilePage, "tool-toolu_hostile_branch", ""},
		{"tool-result-in-collapsed-branch", hostilePage, "m-0badc0de-0000-4000-8000-000000000202", ""},
		{"tool", notesPage, "tool-toolu_01DemoNTask1", ""},
		{"tool-result", notesPage, "m-54331f0a-7533-5ce7-8994-3ac638510a29", ""},
		{"tool-result-mid-page", hostilePage, "m-0badc0de-0000-4000-8000-000000000105", ""},
		{"turn", searchPage, "t-2", ""},
		{"first-message", searchPage, "m-e2033845-308d-5b44-8daf-272cfd39d7a0", ""},
		{"branch", notesPage, "branch-1", ""},
	}
	parent := newTab(t)
	for _, scheme := range []string{"file", "http"} {
		for _, c := range cases {
			t.Run(scheme+"/"+c.name, func(t *testing.T) {
				tb := parent.in(t)
				tb.open("about:blank")
				tb.open(tb.env.url(scheme, c.page) + "#" + c.id)
				checkTarget(tb, c.id, c.bug)
				tb.assertClean(c.page)
			})
		}
	}

	t.Run("hashchange", func(t *testing.T) {
		tb := parent.in(t)
		tb.page("http", notesPage)
		id := "m-3b7d7311-9b8d-523d-b600-14288b8e7bf6"
		if eval[bool](tb, `document.getElementById("branch-1").open`) {
			t.Fatal("branch-1 starts open")
		}
		eval[string](tb, `location.hash = "#`+id+`"`)
		tb.waitFor(`document.getElementById("` + id + `").classList.contains("target")`)
		checkTarget(tb, id, "")
		tb.assertClean(notesPage)
	})

	t.Run("fork-note-link", func(t *testing.T) {
		// An abandoned branch sits at its fork: a link to it opens it.
		tb := parent.in(t)
		tb.page("http", notesPage)
		eval[string](tb, `location.hash = "#branch-1"`)
		tb.waitFor(`document.getElementById("branch-1").classList.contains("target")`)
		checkTarget(tb, "branch-1", "")
		tb.assertClean(notesPage)
	})

	agentPage := link.Agent(link.ProjectSlug("/home/demo/webapp"), "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2", "a7c31de")
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/sub-agent-to-its-call", func(t *testing.T) {
			tb := parent.in(t)
			tb.page(scheme, agentPage)
			_, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(page.LoadEventFired, nil,
				chromedp.Click(chromedp.CSS(`.kicker a[href*="#tool-"]`))))
			if err != nil {
				t.Fatalf("follow the link to the call that ran the sub-agent: %v", err)
			}
			if u := eval[string](tb, "location.href"); u != tb.env.url(scheme, searchPage)+"#tool-toolu_01DemoTask0001" {
				t.Errorf("the link led to %s", u)
			}
			checkTarget(tb, "tool-toolu_01DemoTask0001", "")
			tb.assertClean(agentPage)
		})
	}

	clip := clipboardTab(t)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/anchor-click-copies-url", func(t *testing.T) {
			tb, clip := parent.in(t), clip.in(t)
			id := "m-e30e5123-2dd2-5c60-bf76-fa86dcc15c96"
			u := tb.page(scheme, notesPage)
			clipboardMu.Lock()
			defer clipboardMu.Unlock()
			setClipboard(clip, "clipboard before the click")
			anchor := `a.anchor[href="#` + id + `"]`
			tb.click(anchor)
			tb.waitFor(`document.querySelector('` + anchor + `').getAttribute("data-copied") === "1"`)
			if got, want := clipboard(clip), u+"#"+id; got != want {
				t.Errorf("clipboard after a click on the # link = %q, want %q", got, want)
			}
			checkTarget(tb, id, "")
			tb.assertClean(notesPage)
		})
	}

	t.Run("malformed-hash", func(t *testing.T) {
		tb := parent.in(t)
		tb.open("about:blank")
		tb.open(tb.env.url("http", notesPage) + "#%E0%A4%A")
		p := tb.takeProblems()
		if !eval[bool](tb, `document.documentElement.classList.contains("js")`) {
			p = append(p, "the page script stopped before its end (no js class on <html>)")
		}
		for _, s := range p {
			t.Error(s)
		}
	})
}
