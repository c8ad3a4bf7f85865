package browsertest

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
)

// timeElem is a <time datetime> after the page script ran.
type timeElem struct {
	ISO   string `json:"iso"`
	Text  string `json:"text"`
	Title string `json:"title"`
	Short bool   `json:"short"`
}

const timesJS = `[...document.querySelectorAll("time[datetime]")].map(t => ({
	iso: t.getAttribute("datetime"),
	text: t.textContent,
	title: t.title,
	short: t.classList.contains("short"),
}))`

// TestLocalTimes reads pages in Tokyo (UTC+9, no daylight saving) with a
// British locale: every <time> shows the local time, and keeps the UTC
// time the page was written with in its title.
func TestLocalTimes(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tokyo := time.FixedZone("JST", 9*60*60)
	tb := newTab(t)
	call(tb, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"})
	call(tb, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en_GB"})
	for _, scheme := range []string{"file", "http"} {
		for _, page := range []string{notesPage, hostilePage, "index.html"} {
			tb.page(scheme, page)
			times := eval[[]timeElem](tb, timesJS)
			if len(times) == 0 {
				t.Fatalf("%s: no <time> elements", page)
			}
			for _, te := range times {
				at, err := time.Parse(time.RFC3339, te.ISO)
				if err != nil {
					t.Errorf("%s: datetime %q: %v", page, te.ISO, err)
					continue
				}
				utc := at.UTC().Format("2006-01-02 15:04") + " UTC"
				local := at.In(tokyo)
				if te.Title != utc {
					t.Errorf("%s: <time datetime=%s> title %q, want %q", page, te.ISO, te.Title, utc)
				}
				if te.Short {
					if want := local.Format("15:04"); te.Text != want {
						t.Errorf("%s: <time class=short datetime=%s> shows %q, want %q", page, te.ISO, te.Text, want)
					}
					continue
				}
				for _, want := range []string{local.Format("15:04"), local.Format("2006"), local.Format("Jan"), "GMT+9"} {
					if !strings.Contains(te.Text, want) {
						t.Errorf("%s: <time datetime=%s> shows %q, want it to hold %q", page, te.ISO, te.Text, want)
					}
				}
				if strings.Contains(te.Text, "UTC") {
					t.Errorf("%s: <time datetime=%s> still shows UTC: %q", page, te.ISO, te.Text)
				}
			}
			tb.assertClean(scheme + " " + page)
		}
	}
}
