package browsertest

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
)

// outlineState is what a session page shows of its turn outline and the
// button that opens it.
type outlineState struct {
	Button   bool    `json:"button"`   // the button is displayed, inside the window
	Name     string  `json:"name"`     // its accessible name (its text)
	Expanded string  `json:"expanded"` // its aria-expanded
	X        float64 `json:"x"`        // its centre
	Y        float64 `json:"y"`
	Shown    bool    `json:"shown"` // the outline is displayed, inside the window
	Links    int     `json:"links"` // turn links in it
	Focus    string  `json:"focus"` // where the focus is: "outline", "button" or another tag
}

const outlineStateJS = `(() => {
	const b = document.querySelector("button.outline-toggle"), o = document.getElementById("outline");
	const inside = el => {
		if (!el || el.hidden || getComputedStyle(el).display === "none" || getComputedStyle(el).visibility === "hidden") return false;
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
	};
	const r = b ? b.getBoundingClientRect() : {left: 0, top: 0, width: 0, height: 0};
	const a = document.activeElement;
	return {
		button: inside(b), name: b ? b.textContent.trim() : "", expanded: b ? b.getAttribute("aria-expanded") : "",
		x: r.left + r.width / 2, y: r.top + r.height / 2,
		shown: !!o && getComputedStyle(o).display !== "none" && o.getBoundingClientRect().width > 0 && o.getBoundingClientRect().right <= innerWidth,
		links: o ? o.querySelectorAll("a[data-turn]").length : 0,
		focus: o && o.contains(a) ? "outline" : a === b ? "button" : a ? a.tagName.toLowerCase() : "",
	};
})()`

// tap touches the page at x, y as a finger does.
func tap(tb *tab, x, y float64) {
	tb.t.Helper()
	pt := []*input.TouchPoint{{X: x, Y: y}}
	call(tb, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: pt})
	call(tb, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}})
}

// TestOutlineButton opens a session page on a phone (375 px, touch): a
// button named "Turns" sits in the window; a tap on it shows the turn
// outline (focus in it), a tap on a turn closes it; from the keyboard,
// Enter opens it and Escape closes it, the focus back on the button. On a
// wide window, where the outline is beside the page, there is no button.
func TestOutlineButton(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.viewport(375, 740, true)
	call(tb, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 1})
	for _, scheme := range []string{"file", "http"} {
		tb.page(scheme, pagingPage+"?view=conversation")
		st := eval[outlineState](tb, outlineStateJS)
		if !st.Button || st.Name != "Turns" || st.Expanded != "false" || st.Shown {
			t.Fatalf("%s at 375 px: %+v; want a button named Turns in the window, the outline hidden", scheme, st)
		}
		tap(tb, st.X, st.Y)
		tb.waitFor(`getComputedStyle(document.getElementById("outline")).display !== "none"`)
		st = eval[outlineState](tb, outlineStateJS)
		if !st.Shown || st.Links == 0 || st.Expanded != "true" || st.Focus != "outline" {
			t.Errorf("%s: after a tap on the button: %+v; want the outline shown, its links there, the focus in it", scheme, st)
		}
		// A tap on the last turn goes there and closes the outline.
		pos := eval[[]float64](tb, `(() => { const as = document.querySelectorAll("#outline a[data-turn]"), a = as[as.length - 1], r = a.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
		tap(tb, pos[0], pos[1])
		tb.waitFor(`getComputedStyle(document.getElementById("outline")).display === "none" && location.hash !== ""`)
		st = eval[outlineState](tb, outlineStateJS)
		if st.Expanded != "false" || !st.Button {
			t.Errorf("%s: after a tap on a turn: %+v; want the outline closed, the button there", scheme, st)
		}
		// The keyboard: the button takes Enter; Escape closes.
		eval[bool](tb, `(document.querySelector("button.outline-toggle").focus(), true)`)
		tb.press("\r")
		tb.waitFor(`document.querySelector("button.outline-toggle").getAttribute("aria-expanded") === "true"`)
		if st = eval[outlineState](tb, outlineStateJS); !st.Shown || st.Focus != "outline" {
			t.Errorf("%s: after Enter on the button: %+v", scheme, st)
		}
		tb.press("\x1b")
		tb.waitFor(`getComputedStyle(document.getElementById("outline")).display === "none"`)
		if st = eval[outlineState](tb, outlineStateJS); st.Focus != "button" || st.Expanded != "false" {
			t.Errorf("%s: after Escape: %+v; want the focus back on the button", scheme, st)
		}
		tb.assertClean(scheme + " outline button")
	}
	wide := newTab(t)
	wide.viewport(1280, 800, false)
	wide.page("file", pagingPage)
	if st := eval[outlineState](wide, outlineStateJS); st.Button || !st.Shown {
		t.Errorf("at 1280 px: %+v; want the outline beside the page, no button", st)
	}
}

// selectFit is where a search scope select is, and how wide its words
// need it.
type selectFit struct {
	Found   bool    `json:"found"`
	Left    float64 `json:"left"`
	Right   float64 `json:"right"`
	Width   float64 `json:"width"`
	Natural float64 `json:"natural"` // its width with nothing narrowing it
	Window  float64 `json:"window"`
}

const selectFitJS = `(() => {
	const s = document.getElementById("search-scope");
	if (!s || s.hidden) return {found: false};
	const r = s.getBoundingClientRect();
	const c = s.cloneNode(true);
	c.removeAttribute("id");
	c.style.cssText = "position:absolute;left:0;top:0;max-width:none;width:auto;flex:none;visibility:hidden";
	s.parentNode.appendChild(c);
	const natural = c.getBoundingClientRect().width;
	c.remove();
	return {found: true, left: r.left, right: r.right, width: r.width, natural, window: document.documentElement.clientWidth};
})()`

// TestScopeSelectFits opens, 375 px wide, the pages with a search scope
// select (a session page's header, a project page's, the search page
// scoped to a session or a project): the select is inside the window and
// as wide as its words.
func TestScopeSelectFits(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.viewport(375, 740, true)
	for _, page := range []string{
		pagingPage,
		"home-demo-webapp/index.html",
		"search.html?q=page&scope=session&session=2f17df70-2c36-56b8-95ef-251e65ace575&project=%2Fhome%2Fdemo%2Fwebapp",
		"search.html?q=page&scope=project&project=%2Fhome%2Fdemo%2Fwebapp",
	} {
		tb.page("file", page)
		f := eval[selectFit](tb, selectFitJS)
		if !f.Found {
			t.Errorf("%s: no scope select", page)
			continue
		}
		if f.Left < 0 || f.Right > f.Window+0.5 || f.Width+0.5 < f.Natural {
			t.Errorf("%s at 375 px: the scope select spans %.0f–%.0f px, %.0f px wide, of a %.0f px window; its words need %.0f px",
				page, f.Left, f.Right, f.Width, f.Window, f.Natural)
		}
	}
	tb.assertClean("scope select")
}
