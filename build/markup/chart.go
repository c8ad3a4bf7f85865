package markup

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"unicode/utf8"
)

// Series is one row of numbers drawn along a chart's points: as bars, or
// as a line. Class names it for the style sheet (colour through
// currentColor); Name says it in titles and the legend.
type Series struct {
	Name   string
	Class  string
	Values []int64
	// Line draws the series as a polyline over the bars.
	Line bool
	// Format spells a value (tokens, dollars); nil spells a plain integer.
	Format func(int64) string
}

// Spell spells v as the series does.
func (s Series) Spell(v int64) string {
	if s.Format == nil {
		return fmt.Sprintf("%d", v)
	}
	return s.Format(v)
}

// SeriesChart is numbers per point of a session (one point a turn).
// Each series is scaled to its own peak: a chart of output tokens and
// context size, or of cost, reads as shapes; the table beside it gives
// the numbers. More series add more bars per point (side by side) or
// more lines.
type SeriesChart struct {
	// Label titles the chart (its <title> and aria-label).
	Label string
	// Points names each point ("Turn 3"), one per value of every series.
	Points []string
	Series []Series
}

// chartW and chartH are a series chart's viewBox: it scales to its
// column's width (style: width 100%).
const chartW, chartH = 600, 120

// SeriesSVG draws c as an inline SVG: bars per point for the bar series,
// polylines for the line series, each bar and point with a <title>. It
// returns "" when there is nothing to draw.
func SeriesSVG(c SeriesChart) template.HTML {
	n := len(c.Points)
	if n == 0 || len(c.Series) == 0 {
		return ""
	}
	var bars, lines []Series
	for _, s := range c.Series {
		if s.Line {
			lines = append(lines, s)
		} else {
			bars = append(bars, s)
		}
	}
	var b strings.Builder
	label := html.EscapeString(c.Label)
	fmt.Fprintf(&b, `<svg class="chart chart-series" viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="%s"><title>%s</title>`, chartW, chartH, label, label)
	var desc []string
	for _, s := range c.Series {
		desc = append(desc, s.Name)
	}
	fmt.Fprintf(&b, `<desc>%s, per point, each scaled to its own peak; the table gives the numbers.</desc>`, html.EscapeString(strings.Join(desc, "; ")))
	const base = chartH - 2
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%d" x2="%d" y2="%d"/>`, base, chartW, base)
	slot := float64(chartW) / float64(n)
	for k, s := range bars {
		peak := peakOf(s.Values)
		bw := slot * 0.8 / float64(len(bars))
		fmt.Fprintf(&b, `<g class="bars %s">`, html.EscapeString(s.Class))
		for i := 0; i < n; i++ {
			v := at(s.Values, i)
			h := 0.0
			if peak > 0 && v > 0 {
				h = max(float64(base-4)*float64(v)/float64(peak), 1)
			}
			x := slot*float64(i) + slot*0.1 + bw*float64(k)
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s"><title>%s: %s %s</title></rect>`,
				f1(x), f1(float64(base)-h), f1(bw), f1(h), html.EscapeString(c.Points[i]), html.EscapeString(s.Spell(v)), html.EscapeString(s.Name))
		}
		b.WriteString(`</g>`)
	}
	for _, s := range lines {
		peak := peakOf(s.Values)
		var pts []string
		for i := 0; i < n; i++ {
			v := at(s.Values, i)
			y := float64(base)
			if peak > 0 {
				y -= float64(base-4) * float64(v) / float64(peak)
			}
			pts = append(pts, f1(slot*(float64(i)+0.5))+","+f1(y))
		}
		fmt.Fprintf(&b, `<g class="line %s"><polyline points="%s" vector-effect="non-scaling-stroke"/>`, html.EscapeString(s.Class), strings.Join(pts, " "))
		for i, p := range pts {
			xy := strings.SplitN(p, ",", 2)
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2"><title>%s: %s %s</title></circle>`, xy[0], xy[1],
				html.EscapeString(c.Points[i]), html.EscapeString(s.Spell(at(s.Values, i))), html.EscapeString(s.Name))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// Bar is a labelled value of a horizontal bar chart.
type Bar struct {
	Label string
	Value int64
	// Text spells Value ("$12.34"); "" spells the integer.
	Text string
}

// BarsSVG draws labelled values as horizontal bars, largest scale to the
// first's peak, each with its label and value as text and a <title>. It
// returns "" when there is nothing to draw.
func BarsSVG(label string, bars []Bar) template.HTML {
	if len(bars) == 0 {
		return ""
	}
	const w, row, labelW = 400, 20, 140
	h := row * len(bars)
	var peak int64
	valueW := 50 // room for the value's text, 7 units a character
	for _, x := range bars {
		peak = max(peak, x.Value)
		valueW = max(valueW, 7*utf8.RuneCountInString(x.Text)+8)
	}
	var b strings.Builder
	l := html.EscapeString(label)
	fmt.Fprintf(&b, `<svg class="chart chart-bars" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title>`, w, h, l, l)
	for i, x := range bars {
		y := i * row
		bw := 0.0
		if peak > 0 && x.Value > 0 {
			bw = max(float64(w-labelW-valueW)*float64(x.Value)/float64(peak), 1)
		}
		name := x.Label
		if utf8.RuneCountInString(name) > 20 {
			name = string([]rune(name)[:19]) + "…"
		}
		val := x.Text
		if val == "" {
			val = fmt.Sprintf("%d", x.Value)
		}
		val = html.EscapeString(val)
		fmt.Fprintf(&b, `<g class="bar"><title>%s: %s</title><text class="label" x="%d" y="%d">%s</text><rect x="%d" y="%d" width="%s" height="%d"/><text class="value" x="%s" y="%d">%s</text></g>`,
			html.EscapeString(x.Label), val, labelW-6, y+14, html.EscapeString(name), labelW, y+3, f1(bw), row-6, f1(float64(labelW)+bw+4), y+14, val)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func peakOf(vs []int64) int64 {
	var p int64
	for _, v := range vs {
		p = max(p, v)
	}
	return p
}

func at(vs []int64, i int) int64 {
	if i < len(vs) {
		return vs[i]
	}
	return 0
}

// f1 spells a coordinate with one decimal, always the same way.
func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
