package browsertest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"ccsite/build"
)

// corpusSite is the real corpus built once; it skips without
// CCSITE_CORPUS.
func corpusSite(t *testing.T) *site {
	t.Helper()
	corpus := os.Getenv("CCSITE_CORPUS")
	if corpus == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	return extraSite(t, "corpus", build.Config{Paths: []string{corpus}})
}

// longestSessions are the n biggest session pages of a site (sub-agent
// pages aside).
func longestSessions(t *testing.T, s *site, n int) []string {
	t.Helper()
	type sized struct {
		page string
		size int64
	}
	var all []sized
	for _, p := range s.pages {
		if !strings.HasSuffix(p, ".html") || strings.Count(p, "/") != 1 || strings.HasSuffix(p, "/index.html") {
			continue
		}
		st, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, sized{p, st.Size()})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].size > all[j].size })
	var out []string
	for i := 0; i < n && i < len(all); i++ {
		out = append(out, all[i].page)
	}
	return out
}

type viewState struct {
	View     string `json:"view"`
	Height   int    `json:"height"`
	Prompts  int    `json:"prompts"`
	Answers  int    `json:"answers"`
	Hidden   int    `json:"hidden"` // prompts and answers not shown
	Tools    int    `json:"tools"`
	Open     int    `json:"open"` // tool cards open
	Overflow int    `json:"overflow"`
	Wide     string `json:"wide"` // a block wider than its column
}

const viewStateJS = `(() => {
	const shown = el => el.offsetParent !== null;
	const msgs = [...document.querySelectorAll(".conversation .kind-prompt .msg.user, .conversation .kind-answer .msg.assistant:not(.empty)")]
		.filter(el => !el.closest(".branch"));
	const tools = [...document.querySelectorAll(".conversation details.tool")];
	const conv = document.querySelector(".conversation").getBoundingClientRect();
	let wide = "";
	for (const el of document.querySelectorAll(".conversation .item, .conversation details.tool, .conversation .msg, .conversation .turn-mark")) {
		if (!shown(el)) continue;
		const r = el.getBoundingClientRect();
		if (r.right > conv.right + 1) { wide = el.className + " " + Math.round(r.right - conv.right) + "px"; break; }
	}
	return {
		view: document.documentElement.getAttribute("data-view"),
		height: document.documentElement.scrollHeight,
		prompts: msgs.filter(m => m.classList.contains("user")).length,
		answers: msgs.filter(m => m.classList.contains("assistant")).length,
		hidden: msgs.filter(m => !shown(m)).length,
		tools: tools.length,
		open: tools.filter(d => d.open).length,
		overflow: document.documentElement.scrollWidth - window.innerWidth,
		wide: wide,
	};
})()`

// TestConversationView: on the corpus's longest sessions, the view in the
// URL opens as asked; the conversation view is at least 60% shorter than
// the full view, shows every prompt and answer, and opens a tool line in
// place; nothing is wider than its column, at 1280 and 375 px.
func TestConversationView(t *testing.T) {
	s := corpusSite(t)
	pages := longestSessions(t, s, 3)
	if len(pages) < 3 {
		t.Fatalf("the corpus has %d session pages", len(pages))
	}
	for _, page := range pages {
		tb := newTab(t) // a tab a page: each has tabTimeout
		s.openIn(tb)
		tb.viewport(1280, 900, false)
		tb.open(s.fileURL + page + "?view=full")
		full := eval[viewState](tb, viewStateJS)
		tb.open(s.fileURL + page + "?view=conversation")
		conv := eval[viewState](tb, viewStateJS)
		t.Logf("%s: full %d px, conversation %d px (%.0f%% shorter), %d prompts, %d answers, %d tool calls",
			page, full.Height, conv.Height, 100*(1-float64(conv.Height)/float64(full.Height)), conv.Prompts, conv.Answers, conv.Tools)
		if full.View != "full" || conv.View != "conversation" {
			t.Errorf("%s: views %q and %q, want full and conversation", page, full.View, conv.View)
		}
		if full.Open != full.Tools || conv.Open != 0 {
			t.Errorf("%s: %d of %d tool cards open in the full view, %d in the conversation view", page, full.Open, full.Tools, conv.Open)
		}
		if float64(conv.Height) > 0.4*float64(full.Height) {
			t.Errorf("%s: the conversation view is %d px against %d for the full view: not 60%% shorter", page, conv.Height, full.Height)
		}
		if conv.Hidden > 0 || conv.Prompts == 0 || conv.Answers == 0 || conv.Prompts != full.Prompts || conv.Answers != full.Answers {
			t.Errorf("%s: conversation view shows %d prompts, %d answers (%d hidden); full %d and %d", page, conv.Prompts, conv.Answers, conv.Hidden, full.Prompts, full.Answers)
		}
		for _, v := range []viewState{full, conv} {
			if v.Overflow > 0 || v.Wide != "" {
				t.Errorf("%s (%s, 1280 px): page %d px too wide; block wider than its column: %s", page, v.View, v.Overflow, v.Wide)
			}
		}
		// A tool line opens in place: the line stays where it was.
		type opened struct {
			Before float64 `json:"before"`
			After  float64 `json:"after"`
			Open   bool    `json:"open"`
			Body   bool    `json:"body"`
		}
		tb.open(s.fileURL + page + "?view=conversation")
		eval[int](tb, `(() => { const d = document.querySelectorAll(".conversation details.tool")[3]; d.scrollIntoView({block: "center"}); d.setAttribute("data-probe", "1"); return 0; })()`)
		before := eval[float64](tb, `document.querySelector("[data-probe] > summary").getBoundingClientRect().top`)
		tb.click(`[data-probe] > summary .tool-name`)
		o := eval[opened](tb, `(() => { const d = document.querySelector("[data-probe]"); const b = d.querySelector(".tool-body");
			return {after: d.querySelector("summary").getBoundingClientRect().top, open: d.open, body: !!b && b.offsetParent !== null}; })()`)
		o.Before = before
		if !o.Open || !o.Body || o.After < o.Before-2 || o.After > o.Before+2 {
			t.Errorf("%s: a tool line did not open in place: %+v", page, o)
		}
		tb.viewport(375, 800, true)
		for _, v := range []string{"conversation", "full"} {
			tb.open(s.fileURL + page + "?view=" + v)
			st := eval[viewState](tb, viewStateJS)
			if st.Overflow > 0 || st.Wide != "" {
				t.Errorf("%s (%s, 375 px): page %d px too wide; block wider than its column: %s", page, v, st.Overflow, st.Wide)
			}
		}
	}
}

// TestViewChoice: the view switch changes the view in place, puts it in
// the URL and remembers it; a URL's view wins over the remembered one;
// with no choice at all, a page opens in the conversation view.
func TestViewChoice(t *testing.T) {
	e := sharedEnv(t)
	tb := newTab(t)
	page := pagingPage
	// viewAfter opens url until the page shows view, for up to 3 s: a
	// file: page's next document may read storage before a write lands.
	viewAfter := func(url, want string) string {
		var got string
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			tb.open(url)
			got = eval[string](tb, `document.documentElement.getAttribute("data-view")`)
			if got == want || time.Now().After(deadline) {
				return got
			}
		}
	}
	for _, scheme := range []string{"file", "http"} {
		tb.open(e.url(scheme, page))
		// No choice made (a value that is no view: the tab's start-up
		// script leaves it alone).
		eval[int](tb, `(localStorage.setItem("ccsite-view", "none"), 0)`)
		if v := viewAfter(e.url(scheme, page), "conversation"); v != "conversation" {
			t.Errorf("%s: a first visit opens the %q view, want conversation", scheme, v)
		}
		tb.click(`.view-switch button[data-view="full"]`)
		st := eval[viewState](tb, viewStateJS)
		if st.View != "full" || st.Open != st.Tools || st.Tools == 0 {
			t.Errorf("%s: after choosing Full: %+v", scheme, st)
		}
		if q := eval[string](tb, `location.search`); q != "?view=full" {
			t.Errorf("%s: the URL says %q after choosing Full", scheme, q)
		}
		if v := viewAfter(e.url(scheme, page), "full"); v != "full" {
			t.Errorf("%s: the choice was not remembered: %q", scheme, v)
		}
		tb.open(e.url(scheme, page) + "?view=conversation")
		if v := eval[string](tb, `document.documentElement.getAttribute("data-view")`); v != "conversation" {
			t.Errorf("%s: the URL's view lost to the remembered one: %q", scheme, v)
		}
		tb.press("v")
		if v := eval[string](tb, `document.documentElement.getAttribute("data-view")`); v != "full" {
			t.Errorf("%s: v did not switch the view: %q", scheme, v)
		}
	}
}

// TestTurnOutline: n and p move by turn (prompt); the outline marks the
// turn being read; on a narrow screen o shows the outline and a click in
// it goes to the turn and hides it.
func TestTurnOutline(t *testing.T) {
	s := corpusSite(t)
	page := longestSessions(t, s, 1)[0]
	tb := newTab(t)
	s.openIn(tb)
	tb.viewport(1280, 900, false)
	tb.open(s.fileURL + page + "?view=conversation")
	type at struct {
		Top     string `json:"top"`     // the turn at the top of the window
		Current string `json:"current"` // the outline's current turn
		Shown   bool   `json:"shown"`
	}
	where := func() at {
		return eval[at](tb, `(() => {
			const turns = [...document.querySelectorAll(".conversation > .turn")].filter(t => t.offsetParent !== null);
			let top = "";
			for (const t of turns) if (t.getBoundingClientRect().top <= 20) top = t.id;
			const cur = document.querySelector(".outline a[aria-current='true']");
			const o = document.getElementById("outline");
			return {top, current: cur ? cur.getAttribute("data-turn") : "", shown: !!o && getComputedStyle(o).display !== "none"};
		})()`)
	}
	if w := where(); !w.Shown {
		t.Fatal("no outline beside the conversation at 1280 px")
	}
	ids := eval[[]string](tb, `[...document.querySelectorAll(".conversation > .turn")].filter(t => t.offsetParent !== null).map(t => t.id)`)
	if len(ids) < 4 {
		t.Fatalf("%s shows %d turns", page, len(ids))
	}
	for i, k := range []string{"n", "n", "n", "p"} {
		tb.press(k)
		want := ids[min(i, 2)]
		if i == 3 {
			want = ids[1]
		}
		// The outline is marked on the next frame after the scroll.
		tb.waitFor(`(() => { const a = document.querySelector(".outline a[aria-current='true']"); return !!a && a.getAttribute("data-turn") === "` + want + `"; })()`)
		if w := where(); w.Top != want || w.Current != want {
			t.Errorf("key %d (%s): turn at the top %q, outline marks %q; want %s", i+1, k, w.Top, w.Current, want)
		}
	}
	tb.viewport(375, 800, true)
	tb.open(s.fileURL + page + "?view=conversation")
	if w := where(); w.Shown {
		t.Error("the outline covers the page at 375 px before it is asked for")
	}
	tb.press("o")
	if w := where(); !w.Shown {
		t.Error("o did not show the outline at 375 px")
	}
	tb.clickJS(`document.querySelectorAll("#outline a[data-turn]")[2]`)
	tb.waitFor(`location.hash === "#t-3"`)
	if w := where(); w.Shown {
		t.Error("the outline stayed over the page after a turn was chosen")
	}
}
