package browsertest

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// themeState is the theme a page shows.
type themeState struct {
	Attr   string `json:"attr"`   // data-theme on <html>
	Stored string `json:"stored"` // localStorage's ccsite-theme
	BG     string `json:"bg"`     // the body's computed background
}

const themeJS = `({
	attr: document.documentElement.getAttribute("data-theme"),
	stored: localStorage.getItem("ccsite-theme") || "",
	bg: getComputedStyle(document.body).backgroundColor,
})`

// Body backgrounds of the two themes (--bg in style.css).
const (
	lightBG = "rgb(255, 255, 255)"
	darkBG  = "rgb(13, 17, 23)"
)

func systemScheme(tb *tab, scheme string) {
	tb.t.Helper()
	call(tb, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
}

// TestTheme clicks the theme toggle: data-theme on <html> switches between
// light and dark, the colours follow, and the choice survives a reload and
// holds on other pages of the site, from file:// and over HTTP. With no
// choice stored the page follows the system's scheme.
func TestTheme(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			tb := newTab(t, chromedp.WithNewBrowserContext()) // its own localStorage
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
			tb.page(scheme, notesPage)
			want("fresh, system light", themeState{"auto", "", lightBG})
			tb.click(".theme-toggle")
			want("after a click", themeState{"dark", "dark", darkBG})
			reload()
			want("after a reload", themeState{"dark", "dark", darkBG})
			tb.page(scheme, "index.html")
			want("on the index", themeState{"dark", "dark", darkBG})
			tb.page(scheme, pagingPage)
			want("on another session", themeState{"dark", "dark", darkBG})
			tb.click(".theme-toggle")
			want("after a second click", themeState{"light", "light", lightBG})
			tb.page(scheme, searchPage)
			want("light on another session", themeState{"light", "light", lightBG})

			eval[chromedp.Void](tb, `localStorage.removeItem("ccsite-theme")`)
			systemScheme(tb, "dark")
			reload()
			want("no choice, system dark", themeState{"auto", "", darkBG})
			tb.click(".theme-toggle")
			want("a click from system dark", themeState{"light", "light", lightBG})
			reload()
			want("after a reload", themeState{"light", "light", lightBG})
			tb.assertClean(scheme)
		})
	}
}
