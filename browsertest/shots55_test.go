package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPhoneAndSearchShots writes, into $CCSITE_SHOTS, screenshots of the
// demo site's pages this test file's neighbours check: its index (with
// the demo banner), the search page with results (a session's hits
// gathered, more to load), and a session page with its turn outline
// opened by its button at 375 px; light and dark, 1280 and 375 px wide.
// It skips when the variable is not set.
func TestPhoneAndSearchShots(t *testing.T) {
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" {
		t.Skip("set CCSITE_SHOTS=DIR to write screenshots")
	}
	s := demoSite(t, "")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t)
	s.openIn(tb)
	shot := func(name string, full bool) {
		var png []byte
		var err error
		if full {
			png, err = chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
		} else {
			png, err = chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		}
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
			tb.open(s.url("http", "index.html"))
			eval[bool](tb, setTheme)
			shot(fmt.Sprintf("demo-index-%s-%d", theme, width), true)
			tb.open(s.url("http", "search.html?q=the"))
			tb.waitFor(`ccsiteSearch.lastShown === "the"`)
			eval[bool](tb, setTheme)
			shot(fmt.Sprintf("search-%s-%d", theme, width), true)
			tb.open(s.url("http", pagingPage+"?view=conversation"))
			eval[bool](tb, setTheme)
			if width < 600 {
				tb.click("button.outline-toggle")
				tb.waitFor(`document.querySelector(".outline.shown") !== null`)
			}
			shot(fmt.Sprintf("session-outline-%s-%d", theme, width), false)
		}
	}
	tb.assertClean("shots")
}
