package browsertest

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
)

// zoneState is what a session page's chrome says of times: every <time>
// in it (after the script), and its text without them.
type zoneState struct {
	Times []timeElem `json:"times"`
	Rest  []string   `json:"rest"`
	Found []string   `json:"found"` // the parts that were on the page
}

// zoneParts are the parts of a session page that show times: the outline,
// the links to the previous and next sessions, the branch labels, the turn
// marks, the facts and each message's clock.
const zoneStateJS = `(() => {
	const parts = [".outline", ".prev-next", ".branch > summary", ".turn-mark", ".facts", ".item-meta"];
	const times = [], rest = [], found = [];
	for (const css of parts) {
		const els = document.querySelectorAll(css);
		if (els.length) found.push(css);
		for (const el of els) {
			for (const t of el.querySelectorAll("time[datetime]")) {
				times.push({iso: t.getAttribute("datetime"), text: t.textContent, title: t.title, short: t.classList.contains("short")});
			}
			const copy = el.cloneNode(true);
			copy.querySelectorAll("time").forEach(t => t.remove());
			rest.push(css + ": " + copy.textContent);
		}
	}
	return {times, rest, found};
})()`

var clockRE = regexp.MustCompile(`\b\d{1,2}:\d{2}\b|UTC`)

// TestOneZone reads session pages in Paris (UTC+1 in winter) with an
// American locale: every time the page's chrome shows (outline, previous
// and next links, branch labels, turn marks, facts, message clocks) is a
// <time> shown in Paris time, and none is written outside one, in UTC.
func TestOneZone(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	tb := newTab(t)
	call(tb, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Paris"})
	call(tb, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en_US"})
	found := map[string]bool{}
	for _, scheme := range []string{"file", "http"} {
		for _, page := range []string{notesPage, pagingPage, searchPage} {
			tb.page(scheme, page)
			st := eval[zoneState](tb, zoneStateJS)
			for _, f := range st.Found {
				found[f] = true
			}
			for _, r := range st.Rest {
				if m := clockRE.FindString(r); m != "" {
					t.Errorf("%s: a time outside a <time>, not in the reader's zone: %q in %q", page, m, r)
				}
			}
			for _, te := range st.Times {
				at, err := time.Parse(time.RFC3339, te.ISO)
				if err != nil {
					t.Fatalf("%s: datetime %q: %v", page, te.ISO, err)
				}
				local := at.In(paris)
				want := local.Format("03:04 PM") // en-US, 2-digit hours
				if !strings.Contains(te.Text, want) {
					t.Errorf("%s: <time datetime=%s> shows %q, want Paris time %q", page, te.ISO, te.Text, want)
				}
			}
		}
	}
	for _, part := range []string{".outline", ".prev-next", ".branch > summary", ".turn-mark", ".item-meta"} {
		if !found[part] {
			t.Errorf("no page has %s: the test no longer sees its times", part)
		}
	}
	tb.assertClean("one zone")

	// Without the script every time is UTC, as written.
	noJS := newTab(t)
	call(noJS, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Paris"})
	call(noJS, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	for _, page := range []string{notesPage, pagingPage} {
		noJS.page("file", page)
		st := eval[zoneState](noJS, zoneStateJS)
		if len(st.Times) == 0 || eval[bool](noJS, `document.documentElement.classList.contains("js")`) {
			t.Fatalf("%s without script: %d <time>s, the script ran: %v", page, len(st.Times), eval[bool](noJS, `document.documentElement.classList.contains("js")`))
		}
		for _, r := range st.Rest {
			if m := clockRE.FindString(r); m != "" {
				t.Errorf("%s without script: a time outside a <time>: %q in %q", page, m, r)
			}
		}
		for _, te := range st.Times {
			at, err := time.Parse(time.RFC3339, te.ISO)
			if err != nil {
				t.Fatalf("%s: datetime %q: %v", page, te.ISO, err)
			}
			want := at.UTC().Format("2006-01-02 15:04 UTC")
			if te.Short {
				want = at.UTC().Format("15:04")
			}
			if te.Text != want {
				t.Errorf("%s without script: <time datetime=%s> shows %q, want %q", page, te.ISO, te.Text, want)
			}
		}
	}
}
