package markup

import (
	"fmt"
	"html/template"
	"time"
)

// Timeline draws sessions per day as an inline SVG bar chart, from the first
// day to the last (at most the last 366 days) on a calendar axis (days
// without a session empty), with a value axis of sessions and a title per
// bar for the date and count. It returns "" when there is nothing to draw.
func Timeline(days map[time.Time]int) template.HTML {
	if len(days) == 0 {
		return ""
	}
	var first, last time.Time
	for d := range days {
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	if last.Sub(first) > 365*24*time.Hour {
		first = last.AddDate(0, 0, -365)
	}
	se := Series{Class: "s-sessions", Sparse: true, Format: func(n int64) string {
		if n == 1 {
			return "1 session"
		}
		return fmt.Sprintf("%d sessions", n)
	}}
	c := Chart{Label: fmt.Sprintf("Sessions per day, %s to %s", first.Format(DayFormat), last.Format(DayFormat)),
		Class: "timeline", XTitle: "Day (UTC)"}
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		c.Points = append(c.Points, d.Format("Mon 2 Jan 2006"))
		se.Values = append(se.Values, int64(days[d]))
	}
	c.XTicks = DayTicks(first, len(c.Points))
	c.Panels = []Panel{{Title: "Sessions started that day", Unit: CountUnit("session", "sessions"), Series: []Series{se}}}
	return ChartSVG(c)
}
