package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"ccsite/build"
	"ccsite/build/link"
)

// listSession is a session of the lists fixture (testdata/lists, whose
// README tables the same).
type listSession struct {
	title string
	start time.Time // of the session's first message
	turns int
}

func fixtureTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.Add(20 * time.Second) // the first message comes 20 s after the nominal start
}

var listsFixture = []listSession{
	{"Add CSV export to the reports page", fixtureTime("2026-01-05T10:00:00Z"), 3},
	{"benchmark the JSONL parser", fixtureTime("2026-01-07T09:00:00Z"), 12},
	{"Cache-bust the static assets", fixtureTime("2026-01-07T15:30:00Z"), 1},
	{"Debug the flaky login test", fixtureTime("2026-01-12T08:00:00Z"), 2},
	{"Explain the deploy script", fixtureTime("2026-01-20T18:00:00Z"), 4},
	{"Zebra stripes for the session tables", fixtureTime("2025-12-30T12:00:00Z"), 10},
}

var (
	listsProject  = link.Project(link.ProjectSlug("/home/test/lists"))
	webappProject = link.Project(link.ProjectSlug("/home/demo/webapp"))
)

// listsSite is the demo archive and the lists fixture, in the default theme.
func listsSite(t *testing.T) *site {
	t.Helper()
	paths, err := demoPaths()
	if err != nil {
		t.Fatal(err)
	}
	lists, err := filepath.Abs(filepath.Join("testdata", "lists"))
	if err != nil {
		t.Fatal(err)
	}
	return extraSite(t, "lists", build.Config{Paths: append(paths, lists)})
}

// listState is a sortable list (table.list) as the reader sees it.
type listState struct {
	Names []string `json:"names"` // the first cell's link text of every row, in order
	Shown []string `json:"shown"` // of the rows shown
	Heads []string `json:"heads"` // the column headers' text
	Sort  []string `json:"sort"`  // their aria-sort, "" when none
	Empty string   `json:"empty"` // the "no match" note when shown
}

func listJS(id string) string {
	return fmt.Sprintf(`(() => {
		const table = document.getElementById(%s);
		const rows = [...table.tBodies[0].rows];
		const name = r => r.cells[0].querySelector("a").textContent;
		const heads = [...table.tHead.rows[0].cells];
		const empty = table.parentNode.querySelector(".empty-filter");
		return {
			names: rows.map(name),
			shown: rows.filter(r => r.checkVisibility()).map(name),
			heads: heads.map(th => th.textContent),
			sort: heads.map(th => th.getAttribute("aria-sort") || ""),
			empty: empty && empty.checkVisibility() ? empty.textContent : "",
		};
	})()`, strconv.Quote(id))
}

// wantSort says what aria-sort each header should have: dir on column
// col, none on the others.
func wantSort(heads []string, col, dir string) []string {
	w := make([]string, len(heads))
	for i, h := range heads {
		if h == col {
			w[i] = dir
		}
	}
	return w
}

// sortBy clicks the sort button of the column headed col.
func sortBy(tb *tab, table, col string) {
	tb.t.Helper()
	tb.clickJS(fmt.Sprintf(`[...document.querySelectorAll("#%s thead th")].find(th => th.textContent === %s).querySelector("button.sort")`,
		table, strconv.Quote(col)))
}

func titles(ss []listSession) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.title)
	}
	return out
}

// TestSessionListSort clicks the sort buttons of a project's session list,
// from file:// and over HTTP: a click sorts the rows ascending by the
// column (text without regard to case, numbers and times as such) and
// marks it aria-sort="ascending", a second click descending; the other
// headers lose their aria-sort. A sort button works from the keyboard too.
func TestSessionListSort(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	s := listsSite(t)
	cols := []struct {
		name string
		less func(a, b listSession) bool
	}{
		{"Session", func(a, b listSession) bool { return strings.ToLower(a.title) < strings.ToLower(b.title) }},
		{"Started", func(a, b listSession) bool { return a.start.Before(b.start) }},
		{"Turns", func(a, b listSession) bool { return a.turns < b.turns }},
	}
	sorted := func(less func(a, b listSession) bool, desc bool) []string {
		ss := append([]listSession(nil), listsFixture...)
		sort.SliceStable(ss, func(i, j int) bool {
			if desc {
				return less(ss[j], ss[i])
			}
			return less(ss[i], ss[j])
		})
		return titles(ss)
	}
	parent := newTab(t)
	s.openIn(parent)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/fixture", func(t *testing.T) {
			tb := parent.in(t)
			tb.open(s.url(scheme, listsProject))
			st := eval[listState](tb, listJS("sessions"))
			if want := sorted(cols[1].less, true); !reflect.DeepEqual(st.Names, want) {
				t.Errorf("rows at load:\n got %q\nwant %q (newest first)", st.Names, want)
			}
			if want := wantSort(st.Heads, "Started", "descending"); !reflect.DeepEqual(st.Sort, want) {
				t.Errorf("aria-sort at load: got %q, want %q", st.Sort, want)
			}
			for _, c := range cols {
				for _, dir := range []string{"ascending", "descending"} {
					sortBy(tb, "sessions", c.name)
					st := eval[listState](tb, listJS("sessions"))
					if want := sorted(c.less, dir == "descending"); !reflect.DeepEqual(st.Names, want) {
						t.Errorf("sorted by %s, %s:\n got %q\nwant %q", c.name, dir, st.Names, want)
					}
					if want := wantSort(st.Heads, c.name, dir); !reflect.DeepEqual(st.Sort, want) {
						t.Errorf("sorted by %s, %s: aria-sort %q, want %q", c.name, dir, st.Sort, want)
					}
				}
			}

			// From the keyboard: focus the Turns button, press Enter.
			eval[bool](tb, `[...document.querySelectorAll("#sessions thead th")].find(th => th.textContent === "Turns").querySelector("button.sort").focus() || true`)
			tb.press("\r")
			st = eval[listState](tb, listJS("sessions"))
			if want := sorted(cols[2].less, false); !reflect.DeepEqual(st.Names, want) {
				t.Errorf("Enter on the Turns button:\n got %q\nwant %q", st.Names, want)
			}
			tb.assertClean(listsProject)
		})
	}

	// By start; the third is the Codex session (codexPage).
	demo := []string{sessionTitles[searchPage], sessionTitles[pagingPage], "The search box should ignore case. Fix it and add a test.", sessionTitles[whoPage], "parseDate drops the last day of the month. Fix it and commit."}
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/demo-webapp", func(t *testing.T) {
			tb := parent.in(t)
			tb.page(scheme, webappProject)
			steps := []struct {
				col, dir string
				want     []string
			}{
				{"", "", []string{demo[4], demo[3], demo[2], demo[1], demo[0]}},
				{"Session", "ascending", []string{demo[0], demo[1], demo[4], demo[3], demo[2]}},
				{"Session", "descending", []string{demo[2], demo[3], demo[4], demo[1], demo[0]}},
				{"Started", "ascending", []string{demo[0], demo[1], demo[2], demo[3], demo[4]}},
				{"Started", "descending", []string{demo[4], demo[3], demo[2], demo[1], demo[0]}},
			}
			for _, step := range steps {
				if step.col != "" {
					sortBy(tb, "sessions", step.col)
				}
				st := eval[listState](tb, listJS("sessions"))
				if !reflect.DeepEqual(st.Names, step.want) {
					t.Errorf("after sorting by %q %s: rows %q, want %q", step.col, step.dir, st.Names, step.want)
				}
				col, dir := step.col, step.dir
				if col == "" {
					col, dir = "Started", "descending"
				}
				if want := wantSort(st.Heads, col, dir); !reflect.DeepEqual(st.Sort, want) {
					t.Errorf("after sorting by %q %s: aria-sort %q, want %q", step.col, step.dir, st.Sort, want)
				}
			}
			tb.assertClean(webappProject)
		})
	}
}

// filterStep types a query into a list's filter box and says what should
// show.
type filterStep struct {
	query string
	want  []string // names shown, in order
	empty string   // the note shown when no row matches
}

// runFilter types each query (real key presses, into an emptied box) and
// checks the rows and the note shown.
func runFilter(tb *tab, table string, steps []filterStep) {
	tb.t.Helper()
	for _, step := range steps {
		eval[bool](tb, `(() => { const f = document.querySelector("input.filter"); f.value = ""; f.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
		if step.query != "" {
			tb.click("input.filter")
			tb.press(step.query)
		}
		if got := eval[string](tb, `document.querySelector("input.filter").value`); got != step.query {
			tb.t.Errorf("filter box holds %q after typing %q", got, step.query)
		}
		st := eval[listState](tb, listJS(table))
		if !reflect.DeepEqual(st.Shown, step.want) && !(len(st.Shown) == 0 && len(step.want) == 0) {
			tb.t.Errorf("filter %q shows %q, want %q", step.query, st.Shown, step.want)
		}
		if st.Empty != step.empty {
			tb.t.Errorf("filter %q: note %q, want %q", step.query, st.Empty, step.empty)
		}
	}
}

// TestListFilter types into the filter box of a project's session list and
// of the index's project list, from file:// and over HTTP: only the rows
// holding every word of the query (in any column, without regard to case)
// show, in their order, and the list says so when none does.
func TestListFilter(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	s := listsSite(t)
	byStart := []string{ // newest first, as the page lists them
		"Explain the deploy script", "Debug the flaky login test", "Cache-bust the static assets",
		"benchmark the JSONL parser", "Add CSV export to the reports page", "Zebra stripes for the session tables"}
	sessionSteps := []filterStep{
		{"opus", []string{"Cache-bust the static assets", "Add CSV export to the reports page"}, ""},
		{"sonnet", []string{"Debug the flaky login test", "benchmark the JSONL parser", "Zebra stripes for the session tables"}, ""},
		{"flaky sonnet", []string{"Debug the flaky login test"}, ""},      // every word, from two columns
		{"  SONNET   Flaky ", []string{"Debug the flaky login test"}, ""}, // case and spaces
		{"buffer", []string{"benchmark the JSONL parser"}, ""},            // the excerpt of a later prompt
		{"flaky opus", nil, "No session matches."},                        // each word matches some row, both none
		{"", byStart, ""},
	}

	// The demo projects are the index's rows with a path under /home/demo.
	all, err := os.ReadDir(filepath.Join("..", "demo", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	// Claude Code's project folders (codex/ is a Codex home whose session
	// is in the webapp project).
	var entries []os.DirEntry
	for _, e := range all {
		if strings.HasPrefix(e.Name(), "-") {
			entries = append(entries, e)
		}
	}
	parent := newTab(t)
	s.openIn(parent)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/sessions", func(t *testing.T) {
			tb := parent.in(t)
			tb.open(s.url(scheme, listsProject))
			runFilter(tb, "sessions", sessionSteps)
			tb.assertClean(listsProject)
		})
		t.Run(scheme+"/projects", func(t *testing.T) {
			tb := parent.in(t)
			tb.open(s.url(scheme, "index.html"))
			all := eval[listState](tb, listJS("projects")).Names
			demo := eval[[]string](tb, `[...document.querySelectorAll("#projects tbody tr")]
				.filter(r => r.querySelector(".path").textContent.startsWith("/home/demo/"))
				.map(r => r.cells[0].querySelector("a").textContent)`)
			if len(demo) != len(entries) {
				t.Errorf("the index lists %d demo projects %q, want %d (the folders of demo/projects)", len(demo), demo, len(entries))
			}
			runFilter(tb, "projects", []filterStep{
				{"lists", []string{"lists"}, ""},
				{"DEMO", demo, ""},
				{"demo webapp", []string{"webapp"}, ""},
				{"webapp lists", nil, "No project matches."},
				{"", all, ""},
			})
			tb.assertClean("index.html")
		})
	}
}

// timelineState is a project's activity timeline.
type timelineState struct {
	Found  bool      `json:"found"`
	Label  string    `json:"label"` // the svg's aria-label
	Role   string    `json:"role"`
	Rects  int       `json:"rects"`
	Titles []string  `json:"titles"` // each rect's <title>, in order ("" when it has none)
	Xs     []float64 `json:"xs"`
	Hs     []float64 `json:"hs"`
}

const timelineJS = `(() => {
	const svg = document.querySelector("figure.activity svg.timeline");
	if (!svg) return {found: false};
	const rects = [...svg.querySelectorAll("rect")];
	return {
		found: true,
		label: svg.getAttribute("aria-label") || "",
		role: svg.getAttribute("role") || "",
		rects: rects.length,
		titles: rects.map(r => { const t = r.querySelector(":scope > title"); return t ? t.textContent : ""; }),
		xs: rects.map(r => r.x.baseVal.value),
		hs: rects.map(r => r.getBoundingClientRect().height),
	};
})()`

// TestTimeline reads the activity timeline of project pages: one bar per
// day a session started on, in date order, each titled with its date and
// count, the busiest day the tallest; the figure is an image with a label.
func TestTimeline(t *testing.T) {
	e := sharedEnv(t)
	t.Parallel()
	s := listsSite(t)
	perDay := map[time.Time]int{}
	for _, ls := range listsFixture {
		y, m, d := ls.start.UTC().Date()
		perDay[time.Date(y, m, d, 0, 0, 0, 0, time.UTC)]++
	}
	var days []time.Time
	for d := range perDay {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Before(days[j]) })
	var listsTitles []string
	for _, d := range days {
		n := perDay[d]
		plural := "s"
		if n == 1 {
			plural = ""
		}
		listsTitles = append(listsTitles, fmt.Sprintf("%s: %d session%s", d.Format("Mon 2 Jan 2006"), n, plural))
	}
	cases := []struct {
		name, url string
		titles    []string
		label     string
	}{
		{"lists", s.url("file", listsProject), listsTitles, "Sessions per day, 2025-12-30 to 2026-01-20"},
		{"demo-webapp", e.url("file", webappProject),
			[]string{"Mon 2 Mar 2026: 1 session", "Tue 3 Mar 2026: 1 session", "Wed 4 Mar 2026: 1 session", "Tue 10 Mar 2026: 1 session", "Thu 12 Mar 2026: 1 session"}, "Sessions per day, 2026-03-02 to 2026-03-12"},
	}
	tb := newTab(t)
	s.openIn(tb)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := tb.in(t)
			tb.open(c.url)
			st := eval[timelineState](tb, timelineJS)
			if !st.Found {
				t.Fatal("no svg.timeline in figure.activity")
			}
			if st.Role != "img" || st.Label != c.label {
				t.Errorf("svg role %q aria-label %q, want img and %q", st.Role, st.Label, c.label)
			}
			if st.Rects != len(c.titles) {
				t.Errorf("%d rects, want %d (one per day with a session)", st.Rects, len(c.titles))
			}
			if !reflect.DeepEqual(st.Titles, c.titles) {
				t.Errorf("rect titles:\n got %q\nwant %q", st.Titles, c.titles)
			}
			for i := 1; i < len(st.Xs); i++ {
				if st.Xs[i] <= st.Xs[i-1] {
					t.Errorf("rect %d at x=%v is not right of rect %d at x=%v", i, st.Xs[i], i-1, st.Xs[i-1])
				}
			}
			// The busiest day's bar is the tallest, and only it.
			peak := 0
			for _, ti := range c.titles {
				n, _ := strconv.Atoi(strings.Fields(strings.SplitN(ti, ": ", 2)[1])[0])
				peak = max(peak, n)
			}
			for i, ti := range c.titles {
				if i >= len(st.Hs) {
					break
				}
				busiest := strings.Contains(ti, fmt.Sprintf(": %d session", peak))
				tallest := true
				for _, h := range st.Hs {
					if h > st.Hs[i] {
						tallest = false
					}
				}
				if busiest != tallest {
					t.Errorf("bar %q is %v px tall (all: %v); busiest day %v, tallest %v", ti, st.Hs[i], st.Hs, busiest, tallest)
				}
			}
			tb.assertClean(c.name)
		})
	}
}
