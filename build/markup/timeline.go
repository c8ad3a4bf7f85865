package markup

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// Timeline draws sessions per day as an inline SVG bar chart, from the first
// day to the last (at most the last 366 days), with a title per bar for the
// date and count. It returns "" when there is nothing to draw.
func Timeline(days map[time.Time]int) template.HTML {
	if len(days) == 0 {
		return ""
	}
	var first, last time.Time
	peak := 0
	for d, n := range days {
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
		peak = max(peak, n)
	}
	if last.Sub(first) > 365*24*time.Hour {
		first = last.AddDate(0, 0, -365)
	}
	span := int(last.Sub(first).Hours()/24) + 1
	const h, barMax = 48, 40
	w := max(span*6, 60)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="Sessions per day, %s to %s">`,
		w, h, w, h, first.Format("2006-01-02"), last.Format("2006-01-02"))
	fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" class="axis"/>`, h-4, w, h-4)
	for i := 0; i < span; i++ {
		d := first.AddDate(0, 0, i)
		n := days[d]
		if n == 0 {
			continue
		}
		bh := max(barMax*n/peak, 3)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="4" height="%d" rx="1"><title>%s: %d session%s</title></rect>`,
			i*6+1, h-4-bh, bh, d.Format("Mon 2 Jan 2006"), n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
