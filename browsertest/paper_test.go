package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Body backgrounds of the paper theme (--bg in its theme.css).
const (
	paperLightBG = "rgb(251, 248, 241)"
	paperDarkBG  = "rgb(29, 26, 22)"
)

// TestThemePaper clicks the theme toggle of a demo site built with the
// paper theme, from file:// and over HTTP: the paper colours switch
// between light and dark, and the choice survives a reload and holds on the
// index, a project page and another session; with no choice stored the
// page follows the system.
func TestThemePaper(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	s := demoSite(t, "paper")
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			tb := newTab(t, chromedp.WithNewBrowserContext()) // its own localStorage
			s.openIn(tb)
			want := func(step string, w themeState) {
				t.Helper()
				if got := eval[themeState](tb, themeJS); got != w {
					t.Errorf("%s: theme %+v, want %+v", step, got, w)
				}
			}
			reload := func() {
				t.Helper()
				if err := chromedp.Do(tb.ctx, chromedp.Reload()); err != nil {
					t.Fatalf("reload: %v", err)
				}
			}

			systemScheme(tb, "light")
			tb.open(s.url(scheme, notesPage))
			if font := eval[string](tb, `getComputedStyle(document.body).fontFamily`); !strings.Contains(font, "Charter") {
				t.Errorf("body font %q: the paper theme.css is not applied", font)
			}
			want("fresh, system light", themeState{"auto", "", paperLightBG})
			tb.click(".theme-toggle")
			want("after a click", themeState{"dark", "dark", paperDarkBG})
			reload()
			want("after a reload", themeState{"dark", "dark", paperDarkBG})
			tb.open(s.url(scheme, "index.html"))
			want("on the index", themeState{"dark", "dark", paperDarkBG})
			tb.open(s.url(scheme, webappProject))
			want("on a project page", themeState{"dark", "dark", paperDarkBG})
			tb.open(s.url(scheme, pagingPage))
			want("on another session", themeState{"dark", "dark", paperDarkBG})
			tb.click(".theme-toggle")
			want("after a second click", themeState{"light", "light", paperLightBG})
			tb.open(s.url(scheme, searchPage))
			want("light on another session", themeState{"light", "light", paperLightBG})

			eval[chromedp.Void](tb, `localStorage.removeItem("ccsite-theme")`)
			systemScheme(tb, "dark")
			reload()
			want("no choice, system dark", themeState{"auto", "", paperDarkBG})
			tb.click(".theme-toggle")
			want("a click from system dark", themeState{"light", "light", paperLightBG})
			tb.assertClean(scheme)
		})
	}
}
