package browsertest

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessionTitles are the h1 of the session pages, as the transcripts give
// them (the hostile one must show as text).
var sessionTitles = map[string]string{
	notesPage:   `What's in notes/?`,
	pagingPage:  "Let's add pagination to the products API: 20 items per page, `?page=` parameter.",
	searchPage:  "Accent-insensitive product search",
	whoPage:     "Tests, review and QA of the checkout",
	hostilePage: `Hostile title ` + hostileImg + ` ` + hostileDetails,
}

// pageState is what a freshly opened page says about itself.
type pageState struct {
	H1          string   `json:"h1"`
	Title       string   `json:"title"`
	Script      bool     `json:"script"` // app.js ran to the end of DOMContentLoaded
	Styled      bool     `json:"styled"` // style.css applied
	Theme       string   `json:"theme"`
	Links       []string `json:"links"` // resolved hrefs of every <a>
	BrokenIDs   []string `json:"brokenIDs"`
	OpenAtStart []string `json:"openAtStart"` // thinking blocks and long outputs shown open
}

const pageStateJS = `(() => {
	const h1 = document.querySelector("h1");
	const links = [...document.querySelectorAll("a[href]")].map(a => a.href);
	const broken = [...document.querySelectorAll("a[href^='#']")]
		.map(a => a.getAttribute("href").slice(1))
		.filter(id => id && !document.getElementById(id));
	return {
		h1: h1 ? h1.textContent : "",
		title: document.title,
		script: document.documentElement.classList.contains("js"),
		styled: getComputedStyle(document.querySelector(".site-head")).display === "flex",
		theme: document.documentElement.getAttribute("data-theme"),
		links: links,
		brokenIDs: broken,
		openAtStart: [...document.querySelectorAll("details.thinking, details.out")].filter(d => d.open).map(d => d.className),
	};
})()`

// TestPagesOpen opens every page of the site from file:// and over HTTP:
// each has its h1, runs its script, loads its stylesheet, shows thinking
// and long outputs closed, logs no error, throws nothing, asks nothing of
// any other origin, and links only to pages and anchors that exist.
func TestPagesOpen(t *testing.T) {
	e := sharedEnv(t)
	t.Parallel()
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			tb := newTab(t)
			for _, page := range e.pages {
				tb.page(scheme, page)
				s := eval[pageState](tb, pageStateJS)
				if s.H1 == "" {
					t.Errorf("%s: no h1", page)
				}
				if want, ok := sessionTitles[page]; ok && s.H1 != want {
					t.Errorf("%s: h1 = %q, want %q", page, s.H1, want)
				}
				if !s.Script {
					t.Errorf("%s: the page script did not finish (no js class on <html>)", page)
				}
				if !s.Styled {
					t.Errorf("%s: style.css not applied", page)
				}
				if s.Theme != "auto" {
					t.Errorf("%s: data-theme = %q on a fresh profile, want auto", page, s.Theme)
				}
				for _, d := range s.OpenAtStart {
					t.Errorf("%s: details.%s starts open", page, d)
				}
				for _, id := range s.BrokenIDs {
					t.Errorf("%s: link to #%s, which no element has", page, id)
				}
				for _, l := range s.Links {
					checkLink(t, e, page, l)
				}
				tb.assertClean(page)
			}
		})
	}
}

// checkLink fails when a link that stays on the site names no file of it,
// or an anchor that its page lacks.
func checkLink(t *testing.T, e *env, page, link string) {
	t.Helper()
	var base string
	switch {
	case strings.HasPrefix(link, e.fileURL):
		base = e.fileURL
	case strings.HasPrefix(link, e.httpURL):
		base = e.httpURL
	default:
		return // off the site (PR links, web results): not followed
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Errorf("%s: bad link %q: %v", page, link, err)
		return
	}
	b, _ := url.Parse(base)
	rel := strings.TrimPrefix(u.Path, b.Path)
	data, err := os.ReadFile(filepath.Join(e.site, filepath.FromSlash(rel)))
	if err != nil {
		t.Errorf("%s: link %s names no file of the site (%v)", page, link, err)
		return
	}
	if u.Fragment != "" && !strings.Contains(string(data), ` id="`+u.Fragment+`"`) {
		t.Errorf("%s: link %s names an anchor that %s lacks", page, link, rel)
	}
}
