package browsertest

import (
	"strings"
	"testing"
)

// bannerState is what the top of a page says.
type bannerState struct {
	Banner  string   `json:"banner"`  // the demo banner's text, "" without one
	Visible bool     `json:"visible"` // it is displayed, inside the window's width, above the fold
	Recent  []string `json:"recent"`  // the index's recent sessions
}

const bannerStateJS = `(() => {
	const b = document.querySelector(".demo-banner");
	let visible = false;
	if (b) {
		const r = b.getBoundingClientRect();
		visible = getComputedStyle(b).display !== "none" && r.height > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth && r.top < innerHeight;
	}
	return {banner: b ? b.textContent : "", visible,
		recent: [...document.querySelectorAll("main table a, main li a")].slice(0, 8).map(a => a.textContent)};
})()`

// TestDemoBanner opens every page of the demo site, 1280 and 375 px wide:
// each says at its top that it is the demo archive and how to build one's
// own; the index's first sessions have ordinary titles (the demo's markup
// is further down, shown as text). A site of other transcripts has no
// banner.
func TestDemoBanner(t *testing.T) {
	s := demoSite(t, "")
	tb := newTab(t)
	s.openIn(tb)
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		for _, page := range s.pages {
			tb.open(s.url("file", page))
			st := eval[bannerState](tb, bannerStateJS)
			if !strings.HasPrefix(st.Banner, "Demo archive:") || !strings.Contains(st.Banner, "ccsite build") || !st.Visible {
				t.Errorf("%s at %d px: banner %q (shown at the top: %v); want the demo archive named, and ccsite build", page, width, st.Banner, st.Visible)
			}
			if page == "index.html" {
				for _, title := range st.Recent {
					if strings.Contains(title, "<") {
						t.Errorf("index at %d px: %q near its top", width, title)
					}
				}
			}
		}
	}
	tb.assertClean("demo banner")
	sharedEnv(t)
	for _, page := range []string{"index.html", notesPage, "search.html"} {
		tb.page("file", page)
		if st := eval[bannerState](tb, bannerStateJS); st.Banner != "" {
			t.Errorf("%s of a site not built as the demo shows %q", page, st.Banner)
		}
	}
}
