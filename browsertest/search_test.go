package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"ccsite/build"
	"ccsite/build/link"
	"ccsite/search"
	"ccsite/serve"
)

// staticResult is what the page's static reader answers.
type staticResult struct {
	Total int `json:"total"`
	Hits  []struct {
		ID      string  `json:"id"`
		Score   float64 `json:"score"`
		Project string  `json:"project"`
		Session string  `json:"session"`
		Title   string  `json:"title"`
		Role    string  `json:"role"`
		Tool    string  `json:"tool"`
		Model   string  `json:"model"`
	} `json:"hits"`
	Error string `json:"error"`
}

type probe struct {
	text   string
	prefix bool
}

// staticQuery runs q through ccsiteSearch.query in the tab (which must show
// a page that loads assets/search.js).
func staticQuery(tb *tab, p probe, size int) staticResult {
	tb.t.Helper()
	q, _ := json.Marshal(p.text)
	return await[staticResult](tb, fmt.Sprintf(`ccsiteSearch.query(%s, {prefix: %v, size: %d}).then(
		r => ({total: r.total, hits: r.hits.map(h => ({id: h.id, score: h.score, project: h.project,
			session: h.session, title: h.title, role: h.role, tool: h.tool, model: h.model}))}),
		e => ({error: String(e.message || e)}))`, q, p.prefix, size))
}

// probes makes queries from the index itself: terms found in one, a few,
// many and most documents; pairs of them; prefixes; phrases from the
// documents' text; and filters.
func probes(t *testing.T, idx *search.Index, site string) []probe {
	t.Helper()
	type term struct {
		t  string
		df uint64
	}
	var terms []term
	if err := idx.Terms(func(s string, df uint64) bool { terms = append(terms, term{s, df}); return true }); err != nil {
		t.Fatal(err)
	}
	if len(terms) == 0 {
		t.Fatal("the index has no terms")
	}
	byDF := append([]term(nil), terms...)
	sort.SliceStable(byDF, func(i, j int) bool { return byDF[i].df < byDF[j].df })
	var out []probe
	pick := func(frac float64) term { return byDF[min(len(byDF)-1, int(frac*float64(len(byDF))))] }
	fracs := []float64{0, 0.2, 0.5, 0.7, 0.85, 0.93, 0.97, 0.99, 0.995, 0.999, 1}
	for _, f := range fracs {
		out = append(out, probe{text: pick(f).t})
	}
	for i := 0; i+1 < len(fracs); i += 2 {
		out = append(out, probe{text: pick(fracs[i+1]).t + " " + pick(fracs[len(fracs)-1-i]).t})
	}
	// Prefixes: the first letters of terms spread over the dictionary.
	for i := 1; i <= 8; i++ {
		s := terms[i*len(terms)/9].t
		r := []rune(s)
		if len(r) >= 3 {
			out = append(out, probe{text: string(r[:3]), prefix: true})
			out = append(out, probe{text: pick(0.97).t + " " + string(r[:2]), prefix: true})
		}
	}
	// Phrases: consecutive words from the documents' excerpts.
	files, _ := filepath.Glob(filepath.Join(site, "search", "d-*.js"))
	sort.Strings(files)
	phrases := 0
	for i := 0; i < len(files) && phrases < 8; i += max(1, len(files)/8) {
		data, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		s = s[strings.Index(s, ",")+1 : strings.LastIndex(s, ")")]
		var shard []json.RawMessage
		if err := json.Unmarshal([]byte(s), &shard); err != nil {
			t.Fatalf("%s: %v", files[i], err)
		}
		var rows [][]any
		_ = json.Unmarshal(shard[2], &rows)
		for _, row := range rows {
			ex, _ := row[4].(string)
			toks := search.Tokens(ex)
			if len(toks) >= 5 {
				out = append(out, probe{text: `"` + strings.Join(toks[2:4], " ") + `"`})
				out = append(out, probe{text: `"` + strings.Join(toks[1:4], " ") + `" ` + toks[0]})
				phrases++
				break
			}
		}
	}
	// Filters, with and without words.
	common := pick(0.99).t
	out = append(out,
		probe{text: common + " tool:Bash"},
		probe{text: common + " role:prompt"},
		probe{text: common + " role:tool"},
		probe{text: common + " after:2025-06-01"},
		probe{text: common + " before:2025-06-01"},
		probe{text: "tool:Read"},
		probe{text: "role:thinking before:2025-09-01"},
		probe{text: pick(0.9).t + " project:webapp"},
		probe{text: "nosuchwordanywhere"},
		probe{text: common + " nosuchwordanywhere"},
		// Mistakes: both say so, with the same message.
		probe{text: common + " role:bogus"},
		probe{text: common + " after:notadate"},
		probe{text: "before:2025-02-30"},
	)
	// A session, a model and a whole project path of the common word's
	// results, as filters (the session scope of a session page's box),
	// with and without words, and two filters together.
	res, err := idx.Search(context.Background(), search.Query{Text: common, Size: 50})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("%q: %v, %d hits", common, err, len(res.Hits))
	}
	h, model := res.Hits[len(res.Hits)/2], ""
	for _, x := range res.Hits {
		if x.Model != "" {
			model = x.Model
			break
		}
	}
	out = append(out,
		probe{text: common + " session:" + h.Session},
		probe{text: "session:" + h.Session},
		probe{text: common + ` project:"` + h.Project + `"`},
		probe{text: "role:" + h.Role + " session:" + h.Session},
		probe{text: common + " session:" + h.Session + " after:2025-06-01"},
	)
	if model != "" {
		out = append(out, probe{text: common + " model:" + model}, probe{text: "model:" + model + " tool:Bash"})
	}
	return out
}

// compareStatic checks that the static reader and bleve give the same
// documents in the same order, with the same scores, for every probe.
func compareStatic(t *testing.T, tb *tab, idx *search.Index, ps []probe) {
	const size = 30
	mismatches := 0
	for _, p := range ps {
		want, err := idx.Search(context.Background(), search.Query{Text: p.text, Prefix: p.prefix, Size: size})
		got := staticQuery(tb, p, size)
		if err != nil {
			if got.Error == "" {
				t.Errorf("%q: bleve says %v, the static reader found %d", p.text, err, got.Total)
			} else if search.IsUsage(err) && got.Error != err.Error() {
				t.Errorf("%q: bleve says %q, the static reader %q", p.text, err, got.Error)
			}
			continue
		}
		if got.Error != "" {
			t.Errorf("%q (prefix %v): static reader: %s", p.text, p.prefix, got.Error)
			continue
		}
		bad := int(want.Total) != got.Total || len(want.Hits) != len(got.Hits)
		for i := 0; !bad && i < len(want.Hits); i++ {
			w, g := want.Hits[i], got.Hits[i]
			if w.ID != g.ID || math.Abs(w.Score-g.Score) > 1e-9*math.Max(1, math.Abs(w.Score)) {
				bad = true
			} else if w.Project != g.Project || w.Session != g.Session || w.Title != g.Title ||
				w.Role != g.Role || w.Tool != g.Tool || w.Model != g.Model {
				// what a result shows, from its display shard
				t.Errorf("%q: hit %s shows %q %q %q %s/%s/%s, bleve %q %q %q %s/%s/%s", p.text, w.ID,
					g.Project, g.Session, g.Title, g.Role, g.Tool, g.Model,
					w.Project, w.Session, w.Title, w.Role, w.Tool, w.Model)
			}
		}
		if bad {
			mismatches++
			var lines []string
			for i := 0; i < max(len(want.Hits), len(got.Hits)) && i < 8; i++ {
				var w, g string
				if i < len(want.Hits) {
					w = fmt.Sprintf("%s %.12g", want.Hits[i].ID, want.Hits[i].Score)
				}
				if i < len(got.Hits) {
					g = fmt.Sprintf("%s %.12g", got.Hits[i].ID, got.Hits[i].Score)
				}
				lines = append(lines, fmt.Sprintf("  %d. bleve %s\n     static %s", i+1, w, g))
			}
			t.Errorf("%q (prefix %v): bleve %d results, static %d:\n%s", p.text, p.prefix, want.Total, got.Total, strings.Join(lines, "\n"))
		}
	}
	t.Logf("%d probes, %d differ", len(ps), mismatches)
	if os.Getenv("CCSITE_PROBES") != "" {
		t.Logf("probes: %v", ps)
	}
}

// TestStaticIndexMatchesBleve runs queries through the browser's reader of
// the static index and through bleve: same results, same order (ties by
// id), same scores. On the demo site always, on the real corpus when
// CCSITE_CORPUS is set.
func TestStaticIndexMatchesBleve(t *testing.T) {
	e := sharedEnv(t)
	run := func(t *testing.T, site string, open func(tb *tab)) {
		idx, err := search.Open(build.IndexPath(build.DefaultStateDir(site, os.Getenv)))
		if err != nil {
			t.Fatal(err)
		}
		defer idx.Close()
		tb := newTab(t)
		open(tb)
		tb.waitFor(`!!window.ccsiteSearch`)
		compareStatic(t, tb, idx, probes(t, idx, site))
	}
	t.Run("demo", func(t *testing.T) {
		run(t, e.site, func(tb *tab) { tb.page("file", "search.html") })
	})
	t.Run("corpus", func(t *testing.T) {
		corpus := os.Getenv("CCSITE_CORPUS")
		if corpus == "" {
			t.Skip("CCSITE_CORPUS not set")
		}
		site := filepath.Join(t.TempDir(), "site")
		if _, err := build.Run(context.Background(), build.Config{Paths: []string{corpus}, Out: site}); err != nil {
			t.Fatal(err)
		}
		url := "file://" + filepath.ToSlash(site) + "/"
		run(t, site, func(tb *tab) {
			tb.allow(url)
			tb.open(url + "search.html")
		})
		t.Run("one-session-word", func(t *testing.T) { oneSessionWord(t, site, url) })
	})
}

// oneSessionWord takes a word that only one session of the corpus holds
// (in several messages) and searches for it on the search page: that
// session comes first, under its title.
func oneSessionWord(t *testing.T, site, url string) {
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var word string
	var want search.Hit
	err = idx.Terms(func(term string, df uint64) bool {
		if df < 4 || df > 30 || len(term) < 6 || strings.ContainsAny(term, "0123456789_") {
			return true
		}
		res, err := idx.Search(context.Background(), search.Query{Text: term, Size: 50})
		if err != nil || len(res.Hits) == 0 {
			return true
		}
		for _, h := range res.Hits {
			if h.Session != res.Hits[0].Session || h.Title == "" {
				return true
			}
		}
		word, want = term, res.Hits[0]
		return false
	})
	if err != nil || word == "" {
		t.Fatalf("no word of one session found: %v", err)
	}
	t.Logf("%q: only in session %s (%q)", word, want.Session, want.Title)
	tb := newTab(t)
	tb.allow(url)
	tb.open(url + "search.html?q=" + word)
	tb.waitFor(`document.querySelectorAll("#search-results li").length > 0`)
	st := eval[searchState](tb, searchStateJS)
	if len(st.Titles) != 1 {
		t.Errorf("hits of one session under %d headings: %q", len(st.Titles), st.Titles)
	}
	if st.Titles[0] != want.Title && !strings.Contains(want.Page, "/agent-") || !strings.HasPrefix(st.Hrefs[0], want.Page+"?") {
		t.Errorf("first result %q → %s, want the session %q (%s)", st.Titles[0], st.Hrefs[0], want.Title, want.Page)
	}
}

// searchState is what the search page shows.
type searchState struct {
	Status string   `json:"status"`
	Titles []string `json:"titles"` // the sessions' headings
	Hits   int      `json:"hits"`
	Hrefs  []string `json:"hrefs"` // the hits' links, in the order shown
	Marks  []string `json:"marks"` // the words marked in the first snippet
	// Groups are the hits' links under each session heading.
	Groups [][]string `json:"groups"`
	// Snippets are every hit's snippet text, and Marked whether it marks
	// a word.
	Snippets []string `json:"snippets"`
	Marked   []bool   `json:"marked"`
	Whats    []string `json:"whats"`
	URL      string   `json:"url"`
}

const searchStateJS = `(() => ({
	status: document.getElementById("search-status").textContent,
	titles: [...document.querySelectorAll("#search-results .hit-title")].map(e => e.textContent),
	hits: document.querySelectorAll("#search-results .hit").length,
	hrefs: [...document.querySelectorAll("#search-results a.hit-link")].map(e => e.getAttribute("href")),
	marks: [...(document.querySelector("#search-results .hit .hit-snippet")?.querySelectorAll("mark") || [])].map(e => e.textContent),
	groups: [...document.querySelectorAll("#search-results > li.hit-group")].map(g => [...g.querySelectorAll("a.hit-link")].map(e => e.getAttribute("href"))),
	snippets: [...document.querySelectorAll("#search-results .hit-snippet")].map(e => e.textContent),
	marked: [...document.querySelectorAll("#search-results .hit-snippet")].map(e => !!e.querySelector("mark")),
	whats: [...document.querySelectorAll("#search-results .hit-what")].map(e => e.textContent),
	url: location.href,
}))()`

// TestSearchPage types into the search page, from file:// (static shards),
// over HTTP from a plain static server (static shards) and from ccsite
// serve (its /api/search): results appear with the matched words marked,
// and a click lands on the message, highlighted, with the words marked.
func TestSearchPage(t *testing.T) {
	e := sharedEnv(t)
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(e.site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	srv := httptest.NewServer(serve.Handler(e.site, idx))
	defer srv.Close()
	// A word of one demo prompt.
	const word = "healthz"
	want, err := idx.Search(context.Background(), search.Query{Text: word, Prefix: true})
	if err != nil || len(want.Hits) == 0 {
		t.Fatalf("bleve finds no %q: %v", word, err)
	}
	for _, c := range []struct{ name, base, source string }{
		{"file", e.fileURL, "static"},
		{"http-static", e.httpURL, "static"},
		{"serve", srv.URL + "/", "api"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := newTab(t)
			tb.allow(c.base)
			tb.open(c.base + "search.html")
			tb.click("#search")
			tb.press(word[:5])
			tb.waitFor(`document.querySelectorAll("#search-results li").length > 0`)
			tb.press(word[5:])
			tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(word))
			st := eval[searchState](tb, searchStateJS)
			if st.Hits != len(want.Hits) || len(st.Titles) == 0 || st.Titles[0] != want.Hits[0].Title {
				t.Fatalf("results %v, %d hits (%s), want %d starting with %q", st.Titles, st.Hits, st.Status, len(want.Hits), want.Hits[0].Title)
			}
			if src := eval[string](tb, `ccsiteSearch.lastSource`); src != c.source {
				t.Errorf("results came from %q, want %q", src, c.source)
			}
			if len(st.Marks) == 0 || !strings.EqualFold(st.Marks[0], word) {
				t.Errorf("first snippet marks %v, want %q", st.Marks, word)
			}
			// Enter keeps the query in the URL, and searches again: the
			// results are shown anew (a click before that may land on a
			// list being replaced).
			eval[bool](tb, `(() => { window.ccsiteTestResults = 0; document.addEventListener("ccsite:results", () => window.ccsiteTestResults++); return true; })()`)
			tb.press("\r")
			tb.waitFor(`location.search === "?q=` + word + `" && window.ccsiteTestResults > 0`)
			// Click the first result: the message is the target, and
			// highlighted, with the word marked inside it.
			tb.click("#search-results li:first-child a.hit-link")
			anchor := want.Hits[0].Anchor
			tb.waitAcross(`location.hash === "#` + anchor + `" && document.readyState === "complete"`)
			tb.waitFor(`document.querySelectorAll("mark.hl").length > 0`)
			got := eval[map[string]any](tb, `(() => {
				const el = document.getElementById(location.hash.slice(1));
				const box = el.classList.contains("result-anchor") ? el.closest(".tool") : el;
				const m = document.querySelector("mark.hl");
				return {target: box.classList.contains("target"), inside: box.contains(m), mark: m.textContent,
					visible: m.getClientRects().length > 0, page: location.pathname};
			})()`)
			if got["target"] != true || got["inside"] != true || got["visible"] != true ||
				!strings.EqualFold(fmt.Sprint(got["mark"]), word) || !strings.HasSuffix(fmt.Sprint(got["page"]), want.Hits[0].Page) {
				t.Errorf("after the click: %v; want %s#%s, the message the target, %q marked and visible inside it", got, want.Hits[0].Page, anchor, word)
			}
		})
	}

	t.Run("shared-url", func(t *testing.T) {
		tb := newTab(t)
		tb.page("file", `search.html?q=`+word+`%20role:answer`)
		tb.waitFor(`document.querySelectorAll("#search-results li").length > 0`)
		if v := eval[string](tb, `document.getElementById("search").value`); v != word+" role:answer" {
			t.Errorf("the box shows %q", v)
		}
	})

	t.Run("header-box", func(t *testing.T) {
		// Every page's header box leads to the search page with the query.
		tb := newTab(t)
		tb.page("file", searchPage)
		tb.click("#search")
		tb.press(word + "\r")
		tb.waitAcross(`location.pathname.endsWith("/search.html") && document.querySelectorAll("#search-results li").length > 0`)
	})

	t.Run("bad-query", func(t *testing.T) {
		for _, base := range []string{e.fileURL, srv.URL + "/"} {
			tb := newTab(t)
			tb.allow(base)
			tb.open(base + "search.html?q=%22%22")
			tb.waitFor(`document.getElementById("search-status").classList.contains("error")`)
			if n := eval[int](tb, `document.querySelectorAll("#search-results li").length`); n != 0 {
				t.Errorf("%s: an empty query shows %d results", base, n)
			}
			// A filter with a value it cannot have: what is valid, as
			// ccsite search says it.
			tb.open(base + "search.html?q=" + word + "+role%3Abogus")
			tb.waitFor(`document.getElementById("search-status").classList.contains("error")`)
			msg := eval[string](tb, `document.getElementById("search-status").textContent`)
			if want := "role must be one of prompt, answer, thinking, tool, agent, teammate, commit, not \"bogus\""; msg != want {
				t.Errorf("%s: role:bogus says %q, want %q", base, msg, want)
			}
		}
	})

	t.Run("hostile", func(t *testing.T) {
		// Transcript text in results stays text.
		tb := newTab(t)
		tb.page("file", "search.html?q=script")
		tb.waitFor(`document.querySelectorAll("#search-results li").length > 0`)
		if n := eval[int](tb, `document.querySelectorAll("#search-results script, #search-results img, #search-results iframe").length`); n != 0 {
			t.Errorf("results hold %d elements from transcript text", n)
		}
		if eval[bool](tb, `!!window.pwned`) {
			t.Error("transcript text ran as script")
		}
	})
}

func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// scopeForm is what a page's header search form offers.
type scopeForm struct {
	Session string   `json:"session"`
	Project string   `json:"project"`
	Options []string `json:"options"`
	Value   string   `json:"value"`
}

const scopeFormJS = `(() => {
	const f = document.querySelector("form.site-search"), s = document.getElementById("search-scope");
	return {session: f.dataset.session || "", project: f.dataset.project || "",
		options: s ? [...s.options].map(o => o.value + "=" + o.textContent) : [], value: s ? s.value : ""};
})()`

// TestSearchScope limits the header box's search to the page's session,
// then its project, from file:// and a static server (static index) and
// from ccsite serve (its API): the hits are bleve's for the same scope,
// and the choice is made with the keyboard.
func TestSearchScope(t *testing.T) {
	e := sharedEnv(t)
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(e.site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	srv := httptest.NewServer(serve.Handler(e.site, idx))
	defer srv.Close()
	const word = "the"
	projectPage := link.Project(link.ProjectSlug("/home/demo/webapp"))
	pages := func(hits []search.Hit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Page+"#"+h.Anchor)
		}
		sort.Strings(out)
		return out
	}
	shown := func(st searchState) []string {
		var out []string
		for _, h := range st.Hrefs {
			page, rest, _ := strings.Cut(h, "?")
			_, anchor, _ := strings.Cut(rest, "#")
			out = append(out, page+"#"+anchor)
		}
		sort.Strings(out)
		return out
	}
	for _, c := range []struct{ name, base, source string }{
		{"file", e.fileURL, "static"},
		{"http-static", e.httpURL, "static"},
		{"serve", srv.URL + "/", "api"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := newTab(t)
			tb.allow(c.base)
			tb.open(c.base + searchPage)
			f := eval[scopeForm](tb, scopeFormJS)
			if f.Session == "" || f.Project != "/home/demo/webapp" || f.Value != "" ||
				strings.Join(f.Options, "|") != "=everywhere|session=this session|project=this project" {
				t.Fatalf("the session page's form: %+v", f)
			}
			all, err := idx.Search(context.Background(), search.Query{Text: word, Prefix: true, Size: 20})
			if err != nil {
				t.Fatal(err)
			}
			want, err := idx.Search(context.Background(), search.Query{Text: word, Session: f.Session, Prefix: true, Size: 20})
			if err != nil || want.Total == 0 || want.Total >= all.Total {
				t.Fatalf("bleve: %d hits in the session, %d in all (%v)", want.Total, all.Total, err)
			}
			// The keyboard: Tab from the box reaches the choice, a letter
			// picks "this session", Enter in the box searches.
			tb.click("#search")
			tb.press(word)
			tb.press("\t")
			if id := eval[string](tb, `document.activeElement.id`); id != "search-scope" {
				t.Fatalf("Tab from the box went to %q", id)
			}
			tb.press("t")
			if v := eval[string](tb, `document.getElementById("search-scope").value`); v != "session" {
				t.Fatalf("typing t on the choice gave %q", v)
			}
			tb.click("#search")
			tb.press("\r")
			tb.waitAcross(`location.pathname.endsWith("/search.html") && !!window.ccsiteSearch && ccsiteSearch.lastShown === ` + jsQuote(word))
			st := eval[searchState](tb, searchStateJS)
			if src := eval[string](tb, `ccsiteSearch.lastSource`); src != c.source {
				t.Errorf("results came from %q, want %q", src, c.source)
			}
			if got, w := shown(st), pages(want.Hits); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("scoped to the session: shown %v\nwant %v", got, w)
			}
			if len(st.Titles) != 1 || !strings.Contains(st.Status, "in this session") {
				t.Errorf("scoped to the session: headings %q, status %q", st.Titles, st.Status)
			}
			if v := eval[string](tb, `document.getElementById("search-scope").value`); v != "session" {
				t.Errorf("the search page's choice shows %q", v)
			}
			// Widen to the project on the search page.
			wantP, err := idx.Search(context.Background(), search.Query{Text: word, Project: f.Project, Prefix: true, Size: 20})
			if err != nil {
				t.Fatal(err)
			}
			eval[int](tb, `(() => { const s = document.getElementById("search-scope"); s.value = "project"; s.dispatchEvent(new Event("change")); return 0; })()`)
			tb.waitFor(`!!(ccsiteSearch.lastScope && ccsiteSearch.lastScope.project)`)
			st = eval[searchState](tb, searchStateJS)
			if got, w := shown(st), pages(wantP.Hits); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("scoped to the project: shown %v\nwant %v", got, w)
			}
			if !strings.Contains(st.URL, "scope=project") {
				t.Errorf("the URL does not keep the scope: %s", st.URL)
			}
			// And everywhere.
			eval[int](tb, `(() => { const s = document.getElementById("search-scope"); s.value = ""; s.dispatchEvent(new Event("change")); return 0; })()`)
			tb.waitFor(`ccsiteSearch.lastScope === null`)
			st = eval[searchState](tb, searchStateJS)
			if got, w := shown(st), pages(all.Hits); strings.Join(got, " ") != strings.Join(w, " ") {
				t.Errorf("everywhere: shown %v\nwant %v", got, w)
			}

			// A project page offers the project, not a session.
			tb.open(c.base + projectPage)
			f = eval[scopeForm](tb, scopeFormJS)
			if f.Session != "" || f.Project != "/home/demo/webapp" || strings.Join(f.Options, "|") != "=everywhere|project=this project" {
				t.Errorf("the project page's form: %+v", f)
			}
			// The site's index offers no choice.
			tb.open(c.base + "index.html")
			if f = eval[scopeForm](tb, scopeFormJS); len(f.Options) != 0 || f.Project != "" {
				t.Errorf("the index page's form: %+v", f)
			}
		})
	}
	t.Run("url", func(t *testing.T) {
		// search.html?q=…&session=ID alone scopes to the session.
		f := scopeForm{}
		tb := newTab(t)
		tb.page("file", searchPage)
		f = eval[scopeForm](tb, scopeFormJS)
		tb.page("file", "search.html?q="+word+"&session="+f.Session)
		tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(word))
		want, _ := idx.Search(context.Background(), search.Query{Text: word, Session: f.Session, Prefix: true, Size: 20})
		if st := eval[searchState](tb, searchStateJS); strings.Join(shown(st), " ") != strings.Join(pages(want.Hits), " ") {
			t.Errorf("session= in the URL: shown %v, want %v", shown(st), pages(want.Hits))
		}
	})
}

// TestSearchSnippets checks the static results: each snippet is cut
// around the first match (so it shows a word of the query, even one deep
// in a long text), without Markdown syntax, and hits are grouped by
// session, the groups in the order of their best hits.
func TestSearchSnippets(t *testing.T) {
	e := sharedEnv(t)
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(e.site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	// Words whose first match lies past the start of a long document:
	// bleve's snippet of it starts with "…".
	var deep []string
	err = idx.Terms(func(term string, df uint64) bool {
		if df > 6 || len(term) < 5 || strings.ContainsAny(term, "0123456789_") {
			return true
		}
		res, err := idx.Search(context.Background(), search.Query{Text: term, Size: 20})
		if err == nil && len(res.Hits) > 0 && strings.HasPrefix(res.Hits[0].Snippet, "…") {
			deep = append(deep, term)
		}
		return len(deep) < 4
	})
	if err != nil || len(deep) == 0 {
		t.Fatalf("no word found deep in a document: %v", err)
	}
	tb := newTab(t)
	for _, q := range append(deep, "down", "the", "status tile") {
		tb.page("file", "search.html?q="+url.QueryEscape(q))
		tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(q))
		st := eval[searchState](tb, searchStateJS)
		if st.Hits == 0 {
			t.Errorf("%q: no results", q)
			continue
		}
		for i, sn := range st.Snippets {
			if !st.Marked[i] {
				t.Errorf("%q: hit %d (%s) shows no word of the query: %q", q, i, st.Hrefs[i], sn)
			}
			if strings.Contains(sn, "**") || strings.HasPrefix(sn, "# ") || strings.HasPrefix(sn, "##") || strings.Contains(sn, "](") {
				if st.Whats[i] != "Bash" && !strings.Contains(st.Whats[i], "Read") && !strings.Contains(st.Whats[i], "Write") {
					t.Errorf("%q: hit %d (%s) shows Markdown: %q", q, i, st.Whats[i], sn)
				}
			}
		}
		// Groups: one per session page, in the order of their best hits.
		want, err := idx.Search(context.Background(), search.Query{Text: q, Prefix: true, Size: 20})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		seen := map[string]bool{}
		for _, h := range want.Hits {
			if !seen[h.Session] {
				seen[h.Session] = true
				order = append(order, h.Session)
			}
		}
		if len(st.Groups) != len(order) {
			t.Errorf("%q: %d groups, bleve's hits are in %d sessions", q, len(st.Groups), len(order))
			continue
		}
		for gi, g := range st.Groups {
			for _, href := range g {
				page, rest, _ := strings.Cut(href, "?")
				_, anchor, _ := strings.Cut(rest, "#")
				var h *search.Hit
				for k := range want.Hits {
					if want.Hits[k].Page == page && want.Hits[k].Anchor == anchor {
						h = &want.Hits[k]
					}
				}
				if h == nil || h.Session != order[gi] {
					t.Errorf("%q: group %d holds %s, not a hit of session %s", q, gi, href, order[gi])
				}
			}
		}
	}
	// "**Down**" in an answer shows as "Down".
	tb.page("file", "search.html?q=down")
	tb.waitFor(`ccsiteSearch.lastShown === "down"`)
	st := eval[searchState](tb, searchStateJS)
	found := false
	for _, sn := range st.Snippets {
		found = found || strings.Contains(sn, "Down")
	}
	if !found {
		t.Errorf("down: no snippet shows Down: %q", st.Snippets)
	}
}

// TestSnippetShare measures, on the real corpus (CCSITE_CORPUS), the share
// of the results the search page shows whose snippet holds a word of the
// query, over 30 queries: words of 5 letters or more held by 5 to 2000
// documents, evenly spaced in the index's dictionary. CCSITE_SNIPPET_SITES=SITE:STATE,… measures sites already
// built instead (e.g. one built before a change).
func TestSnippetShare(t *testing.T) {
	sharedEnv(t)
	type built struct{ site, state string }
	var sites []built
	if v := os.Getenv("CCSITE_SNIPPET_SITES"); v != "" {
		for _, s := range strings.Split(v, ",") {
			site, state, _ := strings.Cut(s, ":")
			sites = append(sites, built{site, state})
		}
	} else {
		corpus := os.Getenv("CCSITE_CORPUS")
		if corpus == "" {
			t.Skip("CCSITE_CORPUS not set")
		}
		site := filepath.Join(t.TempDir(), "site")
		if _, err := build.Run(context.Background(), build.Config{Paths: []string{corpus}, Out: site}); err != nil {
			t.Fatal(err)
		}
		sites = append(sites, built{site, build.DefaultStateDir(site, os.Getenv)})
	}
	// The queries come from the last site's index.
	idx, err := search.Open(build.IndexPath(sites[len(sites)-1].state))
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	err = idx.Terms(func(term string, df uint64) bool {
		if df >= 5 && df <= 2000 && len(term) >= 5 && strings.Trim(term, "abcdefghijklmnopqrstuvwxyz") == "" {
			words = append(words, term)
		}
		return true
	})
	idx.Close()
	if err != nil || len(words) < 30 {
		t.Fatalf("%d words (%v)", len(words), err)
	}
	var queries []string
	for i := 0; i < 30; i++ {
		queries = append(queries, words[(2*i+1)*len(words)/60])
	}
	t.Logf("queries: %q", queries)
	for _, s := range sites {
		tb := newTab(t)
		base := "file://" + filepath.ToSlash(s.site) + "/"
		tb.allow(base)
		shown, with := 0, 0
		for _, q := range queries {
			tb.open(base + "search.html?q=" + url.QueryEscape(q))
			tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(q))
			st := eval[searchState](tb, searchStateJS)
			for _, m := range st.Marked {
				shown++
				if m {
					with++
				}
			}
		}
		t.Logf("%s: %d of %d shown results (%.1f%%) have a query word in their snippet", s.site, with, shown,
			100*float64(with)/float64(max(1, shown)))
	}
}

// TestSearchMissingShard: a static index with a term shard gone (an upload
// cut short) makes a query that needs it say so on the search page, from
// file://, with no uncaught error; once the shard is back, the same page
// answers the query.
func TestSearchMissingShard(t *testing.T) {
	e := sharedEnv(t)
	site := filepath.Join(t.TempDir(), "site")
	if err := os.CopyFS(site, os.DirFS(e.site)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(site, search.ManifestPath))
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Layers []struct {
			File string `json:"file"`
		} `json:"layers"`
	}
	body := strings.TrimSuffix(strings.TrimPrefix(string(data), "ccsiteSearch.manifest("), ");\n")
	if err := json.Unmarshal([]byte(body), &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Layers) == 0 {
		t.Fatal("the static index has no layer")
	}
	// The first layer's entry, from its layer file.
	data, err = os.ReadFile(filepath.Join(site, search.StaticDir, man.Layers[0].File+".js"))
	if err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Terms [][2]string `json:"terms"`
	}
	body = strings.TrimSuffix(strings.TrimPrefix(string(data), "ccsiteSearch.put("+strconv.Quote(man.Layers[0].File)+","), ");\n")
	if err := json.Unmarshal([]byte(body), &entry); err != nil {
		t.Fatal(err)
	}
	// The first layer's first term shard, and a word it holds.
	if len(entry.Terms) == 0 {
		t.Fatal("the static index has no term shard")
	}
	gone := entry.Terms[0][1]
	path := filepath.Join(site, search.StaticDir, gone+".js")
	shard, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var term string
	if m := regexp.MustCompile(`"([a-z]{5,})"`).FindSubmatch(shard); m != nil {
		term = string(m[1])
	} else {
		t.Fatalf("no word in %s", gone)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(site) + "/"
	tb := newTab(t)
	tb.allow(url)
	tb.open(url + "search.html?q=" + term)
	tb.waitFor(`document.getElementById("search-status").classList.contains("error")`)
	if st := eval[searchState](tb, searchStateJS); !strings.Contains(st.Status, "did not load") {
		t.Errorf("%q with %s gone: the page says %q", term, gone, st.Status)
	}
	for _, p := range tb.takeProblems() {
		if !strings.Contains(p, gone) || strings.Contains(p, "uncaught") {
			t.Errorf("%q with %s gone: %s", term, gone, p)
		}
	}
	// The shard back (the upload finished): asked again, it loads.
	if err := os.WriteFile(path, shard, 0o644); err != nil {
		t.Fatal(err)
	}
	eval[bool](tb, `(() => { const box = document.getElementById("search"); box.value = `+strconv.Quote(term+" ")+`; box.form.requestSubmit(); return true })()`)
	tb.waitFor(`document.querySelectorAll("#search-results .hit").length > 0`)
	tb.assertClean("shard back")
}

// TestSearchWhileIndexMade: `ccsite serve` serves the pages at once and
// makes the bleve index of the build's documents meanwhile (the first
// search after a build does). Until it is made, /api/search answers 503,
// and the search page answers from the static index instead, with no
// error shown; once made, a page searches through the API.
func TestSearchWhileIndexMade(t *testing.T) {
	sharedEnv(t) // skips or fails as the other tests do; the browser starts
	dir := t.TempDir()
	site, state := filepath.Join(dir, "site"), filepath.Join(dir, "state")
	demo, err := filepath.Abs(filepath.Join("..", "demo", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build.Run(context.Background(), build.Config{Paths: []string{demo}, Out: site, State: state}); err != nil {
		t.Fatal(err)
	}
	index := build.IndexPath(state)
	// A build holding the index's lock keeps the index from being made
	// (its Writer is what a build opens).
	w, err := search.OpenWriter(index, false)
	if err != nil || w.Fresh() {
		t.Fatalf("open the build's index: %v", err)
	}
	s, err := serve.Open(site, index, false)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer s.Close()
	const word = "healthz"
	search := func(want string) {
		t.Helper()
		tb := newTab(t)
		tb.allow(srv.URL + "/")
		tb.open(srv.URL + "/search.html")
		tb.click("#search")
		tb.press(word)
		tb.waitFor(`ccsiteSearch.lastShown === ` + jsQuote(word))
		st := eval[searchState](tb, searchStateJS)
		if st.Hits == 0 || strings.Contains(st.Status, "rror") {
			t.Fatalf("%s: %d hits, status %q", want, st.Hits, st.Status)
		}
		if src := eval[string](tb, `ccsiteSearch.lastSource`); src != want {
			t.Errorf("results came from %q, want %q", src, want)
		}
	}
	search("static")
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(); err != nil {
		t.Fatal(err)
	}
	search("api")
}
