package browsertest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"ccsite/build"
	"ccsite/search"
	"ccsite/serve"
)

// groupState is one session's results as the search page shows them.
type groupState struct {
	Hrefs   []string `json:"hrefs"`   // its hits' links, in order
	Visible int      `json:"visible"` // those displayed
	More    string   `json:"more"`    // its "N more" button's text, "" when hidden
	Exp     string   `json:"exp"`     // the button's aria-expanded
}

type pagedState struct {
	Status string       `json:"status"`
	Groups []groupState `json:"groups"`
	More   string       `json:"more"` // the "More results" button's text, "" when hidden
}

const pagedStateJS = `(() => {
	const shown = el => !!el && el.getClientRects().length > 0;
	const more = document.getElementById("search-more");
	return {
		status: document.getElementById("search-status").textContent,
		groups: [...document.querySelectorAll("#search-results > li.hit-group")].map(g => {
			const b = g.querySelector("button.hit-more");
			return {
				hrefs: [...g.querySelectorAll("a.hit-link")].map(a => a.getAttribute("href")),
				visible: [...g.querySelectorAll("li.hit")].filter(shown).length,
				more: shown(b) ? b.textContent : "", exp: b ? b.getAttribute("aria-expanded") : "",
			};
		}),
		more: shown(more) ? more.textContent : "",
	};
})()`

// wantGroups is bleve's hits gathered as the page gathers them: a group
// per session in the order of its best hit, each hit's link page?hl=#anchor.
func wantGroups(hits []search.Hit, q string) [][]string {
	var out [][]string
	at := map[string]int{}
	for _, h := range hits {
		k, ok := at[h.Session]
		if !ok {
			k = len(out)
			at[h.Session] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], h.Page+"?hl="+q+"#"+h.Anchor)
	}
	return out
}

// TestSearchMore pages through every result of a query with more than a
// page of them, one session holding many, from file:// and a static
// server (the static index) and from ccsite serve (its API): the first
// page shows 20 hits and offers the rest; each session shows its first 3
// hits and "N more in this session", which opens the others; "More
// results" adds pages until all are shown, gathered by session as bleve
// ranks them. A search sent while a page loads drops that page.
func TestSearchMore(t *testing.T) {
	e := sharedEnv(t)
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(e.site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	srv := httptest.NewServer(serve.Handler(e.site, idx))
	defer srv.Close()
	// A word with more than two pages of hits, one session holding more
	// than 3 of the first page.
	var word string
	var all search.Results
	for _, w := range []string{"the", "to", "a", "and", "of", "is", "in"} {
		res, err := idx.Search(context.Background(), search.Query{Text: w, Prefix: true, Size: 200})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total <= 40 || int(res.Total) != len(res.Hits) {
			continue
		}
		first := wantGroups(res.Hits[:20], w)
		for _, g := range first {
			if len(g) > 3 {
				word, all = w, res
			}
		}
		if word != "" {
			break
		}
	}
	if word == "" {
		t.Fatal("no word of the demo has 41 to 200 hits with a session holding 4 of the first 20")
	}
	want := wantGroups(all.Hits, word)
	for _, c := range []struct{ name, base string }{
		{"file", e.fileURL},
		{"http-static", e.httpURL},
		{"serve", srv.URL + "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := newTab(t)
			tb.allow(c.base)
			tb.open(c.base + "search.html?q=" + word)
			tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(word))
			st := eval[pagedState](tb, pagedStateJS)
			first := wantGroups(all.Hits[:20], word)
			if got, w := groupHrefs(st), first; fmt.Sprint(got) != fmt.Sprint(w) {
				t.Fatalf("first page: %v\nwant %v", got, w)
			}
			if wantStatus := fmt.Sprintf("%d results, the best 20 shown", all.Total); !strings.HasPrefix(st.Status, wantStatus) {
				t.Errorf("status %q, want %q…", st.Status, wantStatus)
			}
			if wantMore := fmt.Sprintf("More results (%d left)", int(all.Total)-20); st.More != wantMore {
				t.Errorf("more button %q, want %q", st.More, wantMore)
			}
			big := -1
			for i, g := range st.Groups {
				n := len(g.Hrefs)
				if g.Visible != min(n, 3) {
					t.Errorf("group %d: %d of %d hits shown, want %d", i, g.Visible, n, min(n, 3))
				}
				wantBtn := ""
				if n > 3 {
					wantBtn = fmt.Sprintf("%d more in this session", n-3)
					if n == 4 {
						wantBtn = "1 more in this session"
					}
					if big < 0 {
						big = i
					}
				}
				if g.More != wantBtn {
					t.Errorf("group %d (%d hits): button %q, want %q", i, n, g.More, wantBtn)
				}
			}
			// Open a session's other hits, from the keyboard.
			eval[bool](tb, fmt.Sprintf(`(document.querySelectorAll("#search-results > li.hit-group")[%d].querySelector("button.hit-more").focus(), true)`, big))
			tb.press("\r")
			st = eval[pagedState](tb, pagedStateJS)
			if g := st.Groups[big]; g.Visible != len(g.Hrefs) || g.Exp != "true" || g.More != "Show fewer" {
				t.Errorf("after opening group %d: %+v; want all its hits shown", big, g)
			}
			// Page on to the end.
			for i := 0; st.More != "" && i < 20; i++ {
				shown := eval[int](tb, `document.querySelectorAll("#search-results .hit").length`)
				tb.click("#search-more")
				tb.waitFor(fmt.Sprintf(`document.querySelectorAll("#search-results .hit").length > %d && !document.getElementById("search-more").disabled`, shown))
				st = eval[pagedState](tb, pagedStateJS)
			}
			if got := groupHrefs(st); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("all pages: %v\nwant %v", got, want)
			}
			if wantStatus := fmt.Sprintf("%d results (", all.Total); !strings.HasPrefix(st.Status, wantStatus) || st.More != "" {
				t.Errorf("at the end: status %q, more %q; want %q…, no more button", st.Status, st.More, wantStatus)
			}
			// A search sent while a page loads: that page is dropped.
			tb.open(c.base + "search.html?q=" + word)
			tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(word))
			eval[bool](tb, `(() => {
				document.getElementById("search-more").click();
				const box = document.getElementById("search");
				box.value = "healthz";
				box.form.requestSubmit();
				return true;
			})()`)
			tb.waitFor(`ccsiteSearch.lastShown === "healthz"`)
			other, err := idx.Search(context.Background(), search.Query{Text: "healthz", Prefix: true})
			if err != nil {
				t.Fatal(err)
			}
			// Let a late page land, were it not dropped.
			time.Sleep(300 * time.Millisecond)
			st = eval[pagedState](tb, pagedStateJS)
			if got, w := groupHrefs(st), wantGroups(other.Hits, "healthz"); fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("after a new search while a page loaded: %v\nwant %v", got, w)
			}
			tb.assertClean(c.name)
		})
	}
}

func groupHrefs(st pagedState) [][]string {
	var out [][]string
	for _, g := range st.Groups {
		out = append(out, g.Hrefs)
	}
	return out
}
