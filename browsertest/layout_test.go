package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// overflowState says whether a page scrolls sideways, and what sticks out.
type overflowState struct {
	ScrollWidth int      `json:"scrollWidth"`
	Width       int      `json:"width"`
	Offenders   []string `json:"offenders"`
}

// overflowJS measures the page; offenders are the elements that reach past
// the right edge with no ancestor that scrolls or clips them.
const overflowJS = `(() => {
	const width = document.documentElement.clientWidth;
	const offenders = [];
	for (const el of document.body.querySelectorAll("*")) {
		const r = el.getBoundingClientRect();
		if (r.right <= width + 0.5 || r.width === 0) continue;
		let clipped = false;
		for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
			if (getComputedStyle(p).overflowX !== "visible") { clipped = true; break; }
		}
		if (clipped) continue;
		const name = el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
		offenders.push(name + " (right edge " + Math.round(r.right) + " px)");
		if (offenders.length >= 8) break;
	}
	return {scrollWidth: document.documentElement.scrollWidth, width: width, offenders: offenders};
})()`

const openAllDetailsJS = `(document.querySelectorAll("details").forEach(d => d.open = true), 0)`

// TestNarrow opens every page 375 px wide, as a phone shows it, with its
// <details> closed and then all open: the page never scrolls sideways.
func TestNarrow(t *testing.T) {
	e := sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	tb.viewport(375, 740, true)
	for _, page := range e.pages {
		tb.page("file", page)
		for _, when := range []string{"closed", "all details open"} {
			if when != "closed" {
				eval[int](tb, openAllDetailsJS)
			}
			s := eval[overflowState](tb, overflowJS)
			if s.Width != 375 {
				t.Fatalf("%s: viewport %d px wide, want 375", page, s.Width)
			}
			if s.ScrollWidth > 375 {
				t.Errorf("%s (%s): scrollWidth %d px > 375 px: the page scrolls sideways; sticking out: %s",
					page, when, s.ScrollWidth, strings.Join(s.Offenders, ", "))
			}
		}
		tb.assertClean(page)
	}
}

// TestScreenshots writes full-page PNGs of the demo session pages, light
// and dark, 1280 and 375 px wide, into $CCSITE_SHOTS for a person to look
// at. It skips when the variable is not set.
func TestScreenshots(t *testing.T) {
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
	for _, page := range []string{notesPage, pagingPage, searchPage, hostilePage} {
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
