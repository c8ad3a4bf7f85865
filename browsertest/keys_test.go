package browsertest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// itemsJS lists the ids of the conversation's messages shown, in order.
const itemsJS = `[...document.querySelectorAll(".conversation .item")]
	.filter(el => el.offsetParent !== null).map(el => el.id)`

// keyState is what the keys act on.
type keyState struct {
	Hash       string   `json:"hash"`
	Targets    []string `json:"targets"` // ids of items with class target
	Top        float64  `json:"top"`     // of the item the hash names
	HeadBottom float64  `json:"headBottom"`
	ScrollY    float64  `json:"scrollY"`
	Active     string   `json:"active"` // the focused element, as tag#id
	Dialog     bool     `json:"dialog"` // dialog#shortcuts is open
	Modal      bool     `json:"modal"`
	Thinking   []bool   `json:"thinking"` // open, of every details.thinking
	Filter     string   `json:"filter"`   // the filter box's value
	Tops       []int    `json:"tops"`     // of the first five messages shown
}

const keyStateJS = `(() => {
	const id = decodeURIComponent(location.hash.slice(1));
	const el = id && document.getElementById(id);
	const d = document.getElementById("shortcuts");
	const a = document.activeElement;
	const f = document.querySelector("input.filter");
	return {
		hash: location.hash,
		targets: [...document.querySelectorAll(".item.target")].map(e => e.id),
		top: el ? el.getBoundingClientRect().top : -1,
		headBottom: Math.max(0, document.querySelector(".site-head").getBoundingClientRect().bottom),
		scrollY: scrollY,
		active: a ? a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") : "",
		dialog: !!(d && d.open),
		modal: !!(d && d.matches(":modal")),
		thinking: [...document.querySelectorAll("details.thinking")].map(d => d.open),
		filter: f ? f.value : "",
		tops: [...document.querySelectorAll(".conversation .item")].filter(el => el.offsetParent !== null)
			.slice(0, 5).map(el => Math.round(el.getBoundingClientRect().top)),
	};
})()`

func keyStateOf(tb *tab) keyState {
	tb.t.Helper()
	return await[keyState](tb, `new Promise(done => requestAnimationFrame(() => done(`+keyStateJS+`)))`)
}

// TestShortcutKeys presses the page's keyboard shortcuts, from file:// and
// over HTTP: j and k move to the next and previous message (marked target,
// scrolled to just below the sticky header, named in the URL's hash), t
// opens every thinking block and closes them again, / focuses a list's
// filter box (or, where there is none, the header's search box), ? opens the help
// dialog that Escape or its Close button closes; keys typed into the filter
// box are text, not shortcuts.
func TestShortcutKeys(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	parent := newTab(t)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/j", func(t *testing.T) {
			tb := parent.in(t)
			u := tb.page(scheme, pagingPage)
			items := eval[[]string](tb, itemsJS)
			for _, p := range stepProblems(tb, items, []keyStep{{"j", 0}, {"j", 1}, {"j", 2}, {"j", 3}}) {
				t.Error(p)
			}
			if got := eval[string](tb, "location.href"); got != u+"#"+items[3] {
				t.Errorf("URL %s, want %s", got, u+"#"+items[3])
			}
			tb.assertClean(pagingPage)
		})
		t.Run(scheme+"/k", func(t *testing.T) {
			tb := parent.in(t)
			tb.page(scheme, pagingPage)
			items := eval[[]string](tb, itemsJS)
			p := stepProblems(tb, items, []keyStep{{"j", 0}, {"j", 1}, {"j", 2}, {"j", 3}, {"k", 2}, {"k", 1}, {"j", 2}})
			for _, s := range p {
				t.Error(s)
			}
			tb.assertClean(pagingPage)
		})
	}

	t.Run("t", func(t *testing.T) {
		tb := parent.in(t)
		tb.page("http", searchPage)
		st := keyStateOf(tb)
		if len(st.Thinking) == 0 {
			t.Fatalf("no details.thinking on %s", searchPage)
		}
		for _, want := range []bool{true, false, true} {
			tb.press("t")
			st = keyStateOf(tb)
			for i, open := range st.Thinking {
				if open != want {
					t.Errorf("after t: thinking block %d open=%v, want %v", i, open, want)
				}
			}
		}
		// Some opened by hand: t opens the rest rather than closing them.
		if len(st.Thinking) > 1 {
			eval[bool](tb, `(document.querySelectorAll("details.thinking").forEach(d => d.open = false), document.querySelector("details.thinking").open = true)`)
			tb.press("t")
			if st = keyStateOf(tb); contains(boolStrings(st.Thinking), "false") {
				t.Errorf("t with some thinking open: %v, want all open", st.Thinking)
			}
		}
		tb.assertClean(searchPage)
	})

	t.Run("slash-without-filter", func(t *testing.T) {
		// Where there is no list to filter, / goes to the header's search
		// box, and types nothing into it.
		tb := parent.in(t)
		tb.page("http", searchPage)
		before := keyStateOf(tb)
		tb.press("/")
		after := keyStateOf(tb)
		if after.Active != "input#search" || after.Hash != before.Hash || after.Dialog {
			t.Errorf("/ on a page without a filter box: before %+v, after %+v; want the focus on input#search and nothing else", before, after)
		}
		if v := eval[string](tb, `document.getElementById("search").value`); v != "" {
			t.Errorf("/ went into the search box: %q", v)
		}
		tb.assertClean(searchPage)
	})

	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme+"/slash-focuses-filter", func(t *testing.T) {
			tb := parent.in(t)
			tb.page(scheme, webappProject)
			tb.press("/")
			st := keyStateOf(tb)
			if st.Active != "input#filter" {
				t.Fatalf("after / the focus is on %q, want input#filter", st.Active)
			}
			if st.Filter != "" {
				t.Errorf("/ went into the filter box: %q", st.Filter)
			}
			// Shortcut keys typed into the box are text.
			tb.press("jkt?/")
			st = keyStateOf(tb)
			if st.Filter != "jkt?/" || st.Dialog || st.Hash != "" || st.Active != "input#filter" {
				t.Errorf("typing jkt?/ in the filter box: value %q, dialog %v, hash %q, focus %q; want the text typed and nothing else",
					st.Filter, st.Dialog, st.Hash, st.Active)
			}
			tb.press("\x1b")
			if st = keyStateOf(tb); st.Active == "input#filter" {
				t.Errorf("Escape left the focus in the filter box")
			}
			tb.assertClean(webappProject)
		})
	}

	t.Run("help", func(t *testing.T) {
		tb := parent.in(t)
		tb.page("file", searchPage)
		tb.press("?")
		st := keyStateOf(tb)
		if !st.Dialog || !st.Modal {
			t.Fatalf("after ? dialog#shortcuts open=%v modal=%v, want a modal dialog", st.Dialog, st.Modal)
		}
		type helpState struct {
			Keys  []string `json:"keys"`
			Label string   `json:"label"`
			Text  []string `json:"text"`
		}
		h := eval[helpState](tb, `(() => {
			const d = document.getElementById("shortcuts");
			return {
				keys: [...d.querySelectorAll("dt kbd")].map(k => k.textContent),
				label: d.getAttribute("aria-label") || (d.querySelector("h2") || {}).textContent || "",
				text: [...d.querySelectorAll("dd")].map(e => e.textContent),
			};
		})()`)
		if want := []string{"j", "k", "t", "n", "p", "v", "o", "/", "?", "Esc"}; !reflect.DeepEqual(h.Keys, want) {
			t.Errorf("help lists keys %q, want %q", h.Keys, want)
		}
		for i, s := range h.Text {
			if s == "" {
				t.Errorf("help: key %d has no description", i)
			}
		}
		if h.Label == "" {
			t.Error("help dialog has no accessible name")
		}
		tb.press("\x1b")
		if st = keyStateOf(tb); st.Dialog {
			t.Error("Escape did not close the help")
		}
		tb.press("?")
		if st = keyStateOf(tb); !st.Dialog {
			t.Fatal("? did not open the help a second time")
		}
		tb.click("dialog#shortcuts button")
		if st = keyStateOf(tb); st.Dialog {
			t.Error("Close did not close the help")
		}
		tb.press("?")
		tb.press("?")
		if st = keyStateOf(tb); st.Dialog {
			t.Error("? with the help open did not close it")
		}
		if n := eval[int](tb, `document.querySelectorAll("dialog#shortcuts").length`); n != 1 {
			t.Errorf("%d help dialogs in the page after opening it three times, want 1", n)
		}
		tb.assertClean(searchPage)
	})
}

// keyStep is a key press and the message it should lead to.
type keyStep struct {
	key  string
	want int // index in the page's messages
}

// stepProblems presses each step's key and says how the page differs from
// what the step wants: the message named in the hash, marked target, its
// top just below the sticky header.
func stepProblems(tb *tab, items []string, steps []keyStep) []string {
	tb.t.Helper()
	if len(items) < 4 {
		tb.t.Fatalf("%d messages on the page, want 4 or more", len(items))
	}
	var p []string
	for i, step := range steps {
		tb.press(step.key)
		st := keyStateOf(tb)
		id := items[step.want]
		if st.Hash != "#"+id {
			p = append(p, fmt.Sprintf("step %d (%s): hash names message %d, want message %d (%s); message tops: %v",
				i+1, step.key, indexOf(items, strings.TrimPrefix(st.Hash, "#")), step.want, id, st.Tops))
			continue
		}
		if !contains(st.Targets, id) {
			p = append(p, fmt.Sprintf("step %d (%s): #%s has no class target", i+1, step.key, id))
		}
		if st.Top < st.HeadBottom-1 || st.Top > st.HeadBottom+40 {
			p = append(p, fmt.Sprintf("step %d (%s): #%s top at %.0f px, want just below the header (%.0f px)", i+1, step.key, id, st.Top, st.HeadBottom))
		}
	}
	return p
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func boolStrings(bs []bool) []string {
	var out []string
	for _, b := range bs {
		if b {
			out = append(out, "true")
		} else {
			out = append(out, "false")
		}
	}
	return out
}
