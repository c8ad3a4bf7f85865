package browsertest

import (
	"fmt"
	"strconv"
	"testing"
)

// targetState describes the element an anchor names, or the tool call
// around it when it is the (empty) anchor of a tool's result.
type targetState struct {
	Found      bool     `json:"found"`
	Target     bool     `json:"target"` // has the class "target"
	Closed     []string `json:"closed"` // classes of closed <details> around it
	Top        float64  `json:"top"`
	Bottom     float64  `json:"bottom"`
	HeadBottom float64  `json:"headBottom"` // bottom of the sticky site header
	Height     float64  `json:"height"`     // of the viewport
	Hash       string   `json:"hash"`
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
			top: r.top, bottom: r.bottom,
			headBottom: document.querySelector(".site-head").getBoundingClientRect().bottom,
			height: innerHeight,
			hash: location.hash,
		});
	})))`, strconv.Quote(id))
}

// checkTarget fails unless the element id names is marked as the target, has
// no closed <details> around it, and its top is on screen below the sticky
// header.
func checkTarget(tb *tab, id string) {
	tb.t.Helper()
	s := await[targetState](tb, targetJS(id))
	switch {
	case !s.Found:
		tb.t.Fatalf("no element #%s", id)
	case len(s.Closed) > 0:
		tb.t.Errorf("#%s is inside closed details: %v", id, s.Closed)
	}
	if !s.Target {
		tb.t.Errorf("#%s: no class target", id)
	}
	if s.Top < s.HeadBottom-1 || s.Top >= s.Height {
		tb.t.Errorf("#%s: top at %.0f px, want in the viewport below the header (%.0f to %.0f px)",
			id, s.Top, s.HeadBottom, s.Height)
	}
}

// TestAnchors opens pages at an anchor (a message, a tool call, a tool's
// result; some inside collapsed branches): the element is revealed,
// scrolled to and marked. A later change of the hash does the same, and a
// click on a "#" link copies the full URL.
func TestAnchors(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	cases := []struct {
		name, page, id string
	}{
		{"message-in-collapsed-branch", notesPage, "m-98ab21f4-63ad-5556-855d-c861fa9a44ed"},
		{"last-message-in-collapsed-branch", notesPage, "m-3b7d7311-9b8d-523d-b600-14288b8e7bf6"},
		{"tool-in-collapsed-branch", hostilePage, "tool-toolu_hostile_branch"},
		{"tool-result-in-collapsed-branch", hostilePage, "m-0badc0de-0000-4000-8000-000000000202"},
		{"tool", notesPage, "tool-toolu_01DemoNTask1"},
		{"tool-result", notesPage, "m-54331f0a-7533-5ce7-8994-3ac638510a29"},
		{"tool-result-long-output", hostilePage, "m-0badc0de-0000-4000-8000-000000000105"},
		{"turn", searchPage, "t-2"},
		{"first-message", searchPage, "m-e2033845-308d-5b44-8daf-272cfd39d7a0"},
		{"branch", notesPage, "branch-1"},
	}
	parent := newTab(t)
	for _, scheme := range []string{"file", "http"} {
		for _, c := range cases {
			t.Run(scheme+"/"+c.name, func(t *testing.T) {
				tb := parent.in(t)
				tb.open("about:blank")
				tb.open(tb.env.url(scheme, c.page) + "#" + c.id)
				checkTarget(tb, c.id)
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
		checkTarget(tb, id)
		tb.assertClean(notesPage)
	})

	t.Run("fork-note-link", func(t *testing.T) {
		tb := parent.in(t)
		tb.page("http", notesPage)
		tb.click(`.fork-note a[href="#branch-1"]`)
		tb.waitFor(`document.getElementById("branch-1").classList.contains("target")`)
		checkTarget(tb, "branch-1")
		tb.assertClean(notesPage)
	})

	t.Run("anchor-click-copies-url", func(t *testing.T) {
		tb := parent.in(t)
		grantClipboard(tb)
		id := "m-e30e5123-2dd2-5c60-bf76-fa86dcc15c96"
		u := tb.page("http", notesPage)
		clipboardMu.Lock()
		defer clipboardMu.Unlock()
		setClipboard(tb, "clipboard before the click")
		link := `a.anchor[href="#` + id + `"]`
		tb.click(link)
		tb.waitFor(`document.querySelector('` + link + `').getAttribute("data-copied") === "1"`)
		if got, want := clipboard(tb), u+"#"+id; got != want {
			t.Errorf("clipboard after a click on the # link = %q, want %q", got, want)
		}
		checkTarget(tb, id)
		tb.assertClean(notesPage)
	})

	t.Run("malformed-hash", func(t *testing.T) {
		tb := parent.in(t)
		tb.open("about:blank")
		tb.open(tb.env.url("http", notesPage) + "#%E0%A4%A")
		if !eval[bool](tb, `document.documentElement.classList.contains("js")`) {
			t.Error("the page script stopped before its end (no js class on <html>)")
		}
		tb.assertClean(notesPage + "#%E0%A4%A")
	})
}
