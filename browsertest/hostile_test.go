package browsertest

import (
	"path"
	"strconv"
	"strings"
	"testing"
)

// hostileState is what a page made from hostile text holds.
type hostileState struct {
	Pwned    string   `json:"pwned"`    // typeof window.__pwned
	Scripts  []string `json:"scripts"`  // src of every <script>, "inline" when none
	Handlers []string `json:"handlers"` // on* attributes, as "tag attr=value"
	JSURLs   []string `json:"jsURLs"`   // URL attributes holding a javascript: URL
	Text     string   `json:"text"`     // the body's rendered text
	H1       string   `json:"h1"`
	Title    string   `json:"title"`
}

const hostileJS = `(() => {
	const handlers = [], jsURLs = [];
	const urlAttrs = new Set(["href", "src", "action", "formaction", "xlink:href", "poster", "data", "srcset", "srcdoc"]);
	for (const el of document.querySelectorAll("*")) {
		for (const a of el.attributes) {
			const v = a.value.replace(/[\u0000-\u0020]/g, "").toLowerCase();
			if (a.name.startsWith("on")) handlers.push(el.tagName + " " + a.name + "=" + a.value);
			if (urlAttrs.has(a.name) && (v.startsWith("javascript:") || v.startsWith("vbscript:"))) jsURLs.push(el.tagName + " " + a.name + "=" + a.value);
		}
	}
	const h1 = document.querySelector("h1");
	return {
		pwned: typeof window.__pwned,
		scripts: [...document.scripts].map(s => s.getAttribute("src") || "inline"),
		handlers: handlers,
		jsURLs: jsURLs,
		text: document.body.innerText,
		h1: h1 ? h1.textContent : "",
		title: document.title,
	};
})()`

// TestHostile opens the pages made from the hostile fixture, whose prompts,
// answers, thinking, tool inputs, tool outputs and title hold script tags,
// event handlers, javascript: links and </details>: no script runs (window.__pwned
// stays undefined, also after every <details> is opened and every neutered
// link clicked), the page holds no handler attribute, no javascript: URL and
// no script but its own, and the hostile strings show as text.
func TestHostile(t *testing.T) {
	e := sharedEnv(t)
	t.Parallel()
	project := path.Dir(hostilePage) + "/index.html"
	title := sessionTitles[hostilePage]
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			tb := newTab(t)
			for _, page := range []string{hostilePage, project, "index.html"} {
				tb.page(scheme, page)
				s := eval[hostileState](tb, hostileJS)
				checkHostile(t, page, "after load", s, "../assets/app.js")

				if page == hostilePage {
					if s.H1 != title || s.Title != title+" · ccsite" {
						t.Errorf("%s: h1 %q and title %q, want %q", page, s.H1, s.Title, title)
					}
					n := eval[int](tb, `document.querySelectorAll(".md a:not([href])").length`)
					if n == 0 {
						t.Errorf("%s: no neutered link (the javascript: link of the fixture)", page)
					}
					for i := 0; i < n; i++ {
						tb.clickJS(`document.querySelectorAll(".md a:not([href])")[` + strconv.Itoa(i) + `]`)
					}
					eval[int](tb, `(document.querySelectorAll("details").forEach(d => d.open = true), 0)`)
					s = eval[hostileState](tb, hostileJS)
					checkHostile(t, page, "after opening every details and clicking every neutered link", s, "../assets/app.js")
					for _, want := range []string{hostileScript, hostileImg, hostileLink, hostileDetails, hostileAll,
						"LAST LINE OF LONG OUTPUT " + hostileDetails + " " + hostileScript} {
						if !strings.Contains(s.Text, want) {
							t.Errorf("%s: the page does not show %q as text", page, want)
						}
					}
				}
				if page == project && !strings.Contains(s.Text, title) {
					t.Errorf("%s: the session list does not show the hostile title %q as text", page, title)
				}
				if u := eval[string](tb, "location.href"); strings.TrimSuffix(u, "?view=full") != e.url(scheme, page) {
					t.Errorf("%s: the page moved to %s", page, u)
				}
				tb.assertClean(scheme + " " + page)
			}
		})
	}
}

func checkHostile(t *testing.T, page, when string, s hostileState, script string) {
	t.Helper()
	if s.Pwned != "undefined" {
		t.Errorf("%s %s: window.__pwned is %s: hostile text ran as script", page, when, s.Pwned)
	}
	if page == "index.html" {
		script = "assets/app.js"
	}
	if len(s.Scripts) != 1 || s.Scripts[0] != script {
		t.Errorf("%s %s: scripts %q, want only %q", page, when, s.Scripts, script)
	}
	for _, h := range s.Handlers {
		t.Errorf("%s %s: event handler attribute %s", page, when, h)
	}
	for _, u := range s.JSURLs {
		t.Errorf("%s %s: javascript: URL in %s", page, when, u)
	}
}
