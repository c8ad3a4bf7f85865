package browsertest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// detailsState describes the first <details> a selector finds.
type detailsState struct {
	Found   bool   `json:"found"`
	Open    bool   `json:"open"`
	Shown   bool   `json:"shown"` // its body is laid out (has boxes)
	Text    string `json:"text"`  // the body's textContent, shown or not
	Summary string `json:"summary"`
}

func detailsJS(css string) string {
	return fmt.Sprintf(`(() => {
		const d = document.querySelector(%s);
		if (!d) return {found: false};
		const body = [...d.children].filter(c => c.tagName !== "SUMMARY");
		return {
			found: true,
			open: d.open,
			shown: body.length > 0 && body.every(c => c.checkVisibility()),
			text: body.map(c => c.textContent).join(""),
			summary: d.querySelector("summary").textContent,
		};
	})()`, strconv.Quote(css))
}

// TestDetailsToggle checks that thinking blocks and long outputs start
// closed, open and close on a click of their summary, and hold their whole
// content in the page from the start.
func TestDetailsToggle(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	cases := []struct {
		name, page, css string
		want            []string // in the body, in order, before any click
		lines           int      // lines in the body, 0: not checked
	}{
		{name: "thinking", page: searchPage, css: "details.thinking",
			want: []string{"The user wants accent-insensitive search. Let me look at how the search filter works first."}},
		{name: "thinking-hostile", page: hostilePage, css: "details.thinking",
			want: []string{"Hostile thinking: " + hostileScript + " " + hostileImg, hostileDetails}},
		{name: "long-output", page: hostilePage, css: "details.out",
			want:  []string{"line 01 " + hostileAll, "line 39 " + hostileAll, "LAST LINE OF LONG OUTPUT " + hostileDetails + " " + hostileScript},
			lines: 40},
	}
	parent := newTab(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb := parent.in(t)
			tb.page("http", c.page)
			s := eval[detailsState](tb, detailsJS(c.css))
			if !s.Found {
				t.Fatalf("no %s on %s", c.css, c.page)
			}
			if s.Open || s.Shown {
				t.Errorf("%s starts open=%v shown=%v, want closed", c.css, s.Open, s.Shown)
			}
			at := 0
			for _, w := range c.want {
				i := strings.Index(s.Text[at:], w)
				if i < 0 {
					t.Errorf("%s body lacks %q (after offset %d); body:\n%s", c.css, w, at, s.Text)
					break
				}
				at += i + len(w)
			}
			if c.lines > 0 {
				if n := strings.Count(strings.TrimRight(s.Text, "\n"), "\n") + 1; n != c.lines {
					t.Errorf("%s body has %d lines, want %d", c.css, n, c.lines)
				}
				if !strings.Contains(s.Summary, strconv.Itoa(c.lines)+" lines") {
					t.Errorf("%s summary %q does not count %d lines", c.css, s.Summary, c.lines)
				}
			}

			tb.click(c.css + " > summary")
			if s = eval[detailsState](tb, detailsJS(c.css)); !s.Open || !s.Shown {
				t.Errorf("after a click %s is open=%v shown=%v, want open and shown", c.css, s.Open, s.Shown)
			}
			tb.click(c.css + " > summary")
			if s = eval[detailsState](tb, detailsJS(c.css)); s.Open || s.Shown {
				t.Errorf("after a second click %s is open=%v shown=%v, want closed", c.css, s.Open, s.Shown)
			}
			tb.assertClean(c.page)
		})
	}
}
