package markup

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"unicode/utf8"
)

// Charts are drawn as inline SVG in CSS pixels (no viewBox): the width is
// the column's (width 100%), x positions are percentages of it and the
// heights are fixed, so text keeps its size on a phone and on a wide
// screen and nothing is stretched. Labels that need room come in two
// sets, one for narrow figures and one for wide ones ("narrow"/"wide"
// classes); the style sheet shows one through a container query.

// Series is one row of numbers drawn along a chart's points: as bars, or
// as a line. Class names it for the style sheet (its colour); Name says
// it in titles. A value below 0 is no value: nothing is drawn there.
type Series struct {
	Name   string
	Class  string
	Values []int64
	// Line draws the series as a line with a marker a point.
	Line bool
	// Format spells a value (tokens, dollars); nil spells a plain integer.
	Format func(int64) string
	// Carried marks values carried over from the point before (a point
	// with nothing new): a hollow marker, and its title says so.
	Carried []bool
	// Sparse draws no bar for a zero.
	Sparse bool
}

// title is the <title> of the series' value v at point.
func (s Series) title(point string, v int64) string {
	t := point + ": " + s.Spell(v)
	if s.Name != "" {
		t += " " + s.Name
	}
	return html.EscapeString(t)
}

// Spell spells v as the series does.
func (s Series) Spell(v int64) string {
	if s.Format == nil {
		return fmt.Sprintf("%d", v)
	}
	return s.Format(v)
}

// Unit spells the ticks of a value scale.
type Unit struct {
	// Spell spells tick v of a scale whose ticks are step apart.
	Spell func(v, step int64) string
	// Suffix follows the top tick's number (" tokens"); One when it is 1.
	Suffix, One string
}

// top spells the top tick v, with the unit.
func (u Unit) top(v, step int64) string {
	if v == 1 && u.One != "" {
		return u.Spell(v, step) + u.One
	}
	return u.Spell(v, step) + u.Suffix
}

// TokensUnit spells token counts: 0, 500, 1.5k, 20k tokens, 1.2M tokens.
var TokensUnit = Unit{Spell: compactTick, Suffix: " tokens", One: " token"}

// USDUnit spells micro-dollars as dollars: $0, $0.40, $0.005, $1,200.
var USDUnit = Unit{Spell: usdTick}

// CountUnit spells counts of things: 0, 5, 10 calls; 1 call.
func CountUnit(one, many string) Unit {
	return Unit{Spell: compactTick, Suffix: " " + many, One: " " + one}
}

// Panel is one value scale of a chart, with the series drawn on it; the
// chart's panels are stacked over one x axis. Title names what is drawn
// (with its unit) beside the series' key: it is the panel's legend.
type Panel struct {
	Title  string
	Unit   Unit
	Series []Series
	// Height is the plot's height in pixels (0: 60).
	Height int
}

func (p Panel) height() int {
	if p.Height > 0 {
		return p.Height
	}
	return 60
}

// XTick labels point At on the x axis. Narrow or Wide keep it to that
// width of figure (a tick in both sets has neither).
type XTick struct {
	At     int
	Label  string
	Narrow bool
	Wide   bool
}

// Chart is numbers per point (a turn, a day) in panels over one x axis.
type Chart struct {
	// Label titles the chart (its <title> and aria-label); Desc says
	// where its numbers are. Class is added to the SVG's.
	Label string
	Desc  string
	Class string
	// Points names each point ("Turn 3", "2026-03-02") in titles; every
	// series has a value a point.
	Points []string
	// XTitle names the x axis ("Turn", "Day (UTC)"), XTicks its labels.
	XTitle string
	XTicks []XTick
	Panels []Panel
}

// The vertical layout of a chart, in pixels.
const (
	panelHead = 30 // the title's row and the top tick's label
	panelGap  = 10
	xAxisH    = 36 // tick labels and the axis title
)

// ChartSVG draws c: each panel its title with the series' key, gridlines
// at round values labelled with their unit, bars and lines; one x axis
// under them. Every bar and marker has a <title>. It returns "" when
// there is nothing to draw.
func ChartSVG(c Chart) template.HTML {
	n := len(c.Points)
	if n == 0 || len(c.Panels) == 0 {
		return ""
	}
	h := -panelGap + xAxisH
	for _, p := range c.Panels {
		h += panelHead + p.height() + panelGap
	}
	var b strings.Builder
	b.Grow(256 * n * len(c.Panels))
	label := html.EscapeString(c.Label)
	class := "chart chart-panels"
	if c.Class != "" {
		class += " " + html.EscapeString(c.Class)
	}
	fmt.Fprintf(&b, `<svg class="%s" width="100%%" height="%d" role="img" aria-label="%s"><title>%s</title>`, class, h, label, label)
	if c.Desc != "" {
		fmt.Fprintf(&b, `<desc>%s</desc>`, html.EscapeString(c.Desc))
	}
	top := panelHead
	bottom := h - xAxisH
	xGrid(&b, c, n, top, bottom)
	y0 := 0
	for _, p := range c.Panels {
		drawPanel(&b, c, p, n, y0)
		y0 += panelHead + p.height() + panelGap
	}
	xAxis(&b, c, n, bottom)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// center is the x of point i's middle, in percent.
func center(i, n int) float64 { return (float64(i) + 0.5) * 100 / float64(n) }

// xGrid draws faint vertical lines at the x ticks across the panels.
func xGrid(b *strings.Builder, c Chart, n, top, bottom int) {
	b.WriteString(`<g class="xgrid">`)
	for _, t := range c.XTicks {
		fmt.Fprintf(b, `<line%s x1="%s" x2="%s" y1="%d" y2="%d"/>`, tickClass(t), pct(center(t.At, n)), pct(center(t.At, n)), top, bottom)
	}
	b.WriteString(`</g>`)
}

// xAxis draws the tick labels under the last panel, and the axis title.
func xAxis(b *strings.Builder, c Chart, n, y int) {
	fmt.Fprintf(b, `<g class="xaxis"><line class="base" x1="0" x2="100%%" y1="%d" y2="%d"/>`, y, y)
	for _, t := range c.XTicks {
		// Labels near an edge begin (or end) at their tick, so that they
		// stay whole in a narrow figure.
		x := center(t.At, n)
		anchor := "middle"
		switch {
		case x < 10:
			anchor = "start"
			x = max(x-0.5, 0)
		case x > 90:
			anchor = "end"
			x = min(x+0.5, 100)
		}
		fmt.Fprintf(b, `<line%s x1="%s" x2="%s" y1="%d" y2="%d"/>`, tickClass(t), pct(center(t.At, n)), pct(center(t.At, n)), y, y+4)
		fmt.Fprintf(b, `<text%s x="%s" y="%d" text-anchor="%s">%s</text>`, tickClass(t), pct(x), y+16, anchor, html.EscapeString(t.Label))
	}
	fmt.Fprintf(b, `<text class="axis-title" x="50%%" y="%d" text-anchor="middle">%s</text></g>`, y+32, html.EscapeString(c.XTitle))
}

func tickClass(t XTick) string {
	switch {
	case t.Narrow && !t.Wide:
		return ` class="narrow"`
	case t.Wide && !t.Narrow:
		return ` class="wide"`
	}
	return ""
}

// drawPanel draws panel p at y0: its title and key, its value scale,
// then its bar series side by side and its line series over them.
func drawPanel(b *strings.Builder, c Chart, p Panel, n, y0 int) {
	var peak int64
	var bars, lines []Series
	for _, s := range p.Series {
		peak = max(peak, peakOf(s.Values))
		if s.Line {
			lines = append(lines, s)
		} else {
			bars = append(bars, s)
		}
	}
	plotH := p.height()
	step, top := niceScale(peak, int64(max(plotH/20, 2)))
	base := y0 + panelHead + plotH
	b.WriteString(`<g class="panel">`)
	panelTitle(b, p, y0)
	yAxis(b, p.Unit, base, plotH, step, top, false)
	slot := 100 / float64(n)
	pad := slot * 0.15
	if n > 60 {
		pad = slot * 0.05
	}
	// Bars are at most 6% of the width each, centred in their slot.
	bw := min((slot-2*pad)/float64(max(len(bars), 1)), 6)
	pad = (slot - bw*float64(len(bars))) / 2
	for k, s := range bars {
		fmt.Fprintf(b, `<g class="bars %s">`, html.EscapeString(s.Class))
		for i := 0; i < n; i++ {
			v := at(s.Values, i)
			if v < 0 || v == 0 && s.Sparse {
				continue
			}
			bh := 0.0
			if v > 0 {
				bh = max(float64(plotH)*float64(v)/float64(top), 1)
			}
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
				pct(slot*float64(i)+pad+bw*float64(k)), f1(float64(base)-bh), pct(bw), f1(bh), s.title(c.Points[i], v))
		}
		b.WriteString(`</g>`)
	}
	for _, s := range lines {
		drawLine(b, c, s, n, base, plotH, top)
	}
	yAxis(b, p.Unit, base, plotH, step, top, true)
	b.WriteString(`</g>`)
}

// yAxis draws a panel's gridlines (under the series) or their labels
// (over them, haloed), at round values up to top; the top one says the
// unit. The baseline is zero and unlabelled: no label over the first bars.
func yAxis(b *strings.Builder, u Unit, base, plotH int, step, top int64, labels bool) {
	b.WriteString(`<g class="yaxis">`)
	for v := int64(0); v <= top; v += step {
		y := float64(base) - float64(plotH)*float64(v)/float64(top)
		switch {
		case !labels && v == 0:
			fmt.Fprintf(b, `<line class="zero" x1="0" x2="100%%" y1="%s" y2="%s"/>`, f1(y), f1(y))
		case !labels:
			fmt.Fprintf(b, `<line class="grid" x1="0" x2="100%%" y1="%s" y2="%s"/>`, f1(y), f1(y))
		case v > 0:
			tick := u.Spell(v, step)
			if v+step > top {
				tick = u.top(v, step)
			}
			// A box of the page's colour keeps the label whole over bars.
			w := utf8.RuneCountInString(tick)*13/2 + 4
			fmt.Fprintf(b, `<line class="label-bg" x1="0" x2="%d" y1="%s" y2="%s"/><text x="0" y="%s">%s</text>`, w, f1(y-7.5), f1(y-7.5), f1(y-3), html.EscapeString(tick))
		}
	}
	b.WriteString(`</g>`)
}

// panelTitle writes the panel's key (a swatch of each series: a bar, or a
// line with its marker) and title.
func panelTitle(b *strings.Builder, p Panel, y0 int) {
	x := 0
	for _, s := range p.Series {
		cls := html.EscapeString(s.Class)
		if s.Line {
			fmt.Fprintf(b, `<g class="key line %s"><line x1="%d" x2="%d" y1="%d" y2="%d"/><circle cx="%d" cy="%d" r="3"/></g>`, cls, x, x+14, y0+8, y0+8, x+7, y0+8)
		} else {
			fmt.Fprintf(b, `<g class="key bars %s"><line x1="%d" x2="%d" y1="%d" y2="%d"/></g>`, cls, x+2, x+12, y0+8, y0+8)
		}
		x += 18
	}
	fmt.Fprintf(b, `<text class="panel-title" x="%d" y="%d">%s</text>`, x, y0+12, html.EscapeString(p.Title))
}

// drawLine draws series s as segments between points with values, and a
// marker a point (with its title) when there are few enough to tell
// apart.
func drawLine(b *strings.Builder, c Chart, s Series, n, base, plotH int, top int64) {
	y := func(v int64) string { return f1(float64(base) - float64(plotH)*float64(v)/float64(top)) }
	fmt.Fprintf(b, `<g class="line %s">`, html.EscapeString(s.Class))
	for i := 0; i+1 < n; i++ {
		v, w := at(s.Values, i), at(s.Values, i+1)
		if v < 0 || w < 0 {
			continue
		}
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`, pct(center(i, n)), y(v), pct(center(i+1, n)), y(w))
	}
	for i := 0; i < n && n <= maxMarkers; i++ {
		v := at(s.Values, i)
		if v < 0 {
			continue
		}
		cls, note := "", ""
		if i < len(s.Carried) && s.Carried[i] {
			cls, note = ` class="carried"`, " (no model call: as before)"
		}
		fmt.Fprintf(b, `<circle%s cx="%s" cy="%s" r="%s"><title>%s%s</title></circle>`, cls, pct(center(i, n)), y(v), markerR(n), s.title(c.Points[i], v), note)
	}
	b.WriteString(`</g>`)
}

// maxMarkers is the most points a line has markers for: more would
// hide it.
const maxMarkers = 120

// markerR is the radius of a line's markers: smaller as points crowd.
func markerR(n int) string {
	if n <= 60 {
		return "3"
	}
	return "2"
}

// niceScale is a value scale over 0…peak: ticks step apart, step a round
// number (1, 2 or 5 times a power of ten), at most maxTicks steps up to
// top, the first tick at or above peak.
func niceScale(peak int64, maxTicks int64) (step, top int64) {
	if peak <= 0 {
		return 1, 1
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			step = m * p
			if (peak+step-1)/step <= maxTicks {
				return step, (peak + step - 1) / step * step
			}
		}
	}
}

// compactTick spells v with k and M, with as many decimals as step needs.
func compactTick(v, step int64) string {
	if v == 0 {
		return "0"
	}
	div, suffix := int64(1), ""
	switch {
	case v >= 1_000_000_000:
		div, suffix = 1_000_000_000, "G"
	case v >= 1_000_000:
		div, suffix = 1_000_000, "M"
	case v >= 1000:
		div, suffix = 1000, "k"
	}
	return decimal(v, div, step) + suffix
}

// usdTick spells micro-dollars v: cents shown below $10 steps, more
// decimals for steps under a cent.
func usdTick(v, step int64) string {
	if v == 0 {
		return "$0"
	}
	if step >= 1_000_000 {
		return "$" + commas(v/1_000_000)
	}
	d := 2
	for s := int64(10_000); step%s != 0 && d < 6; s /= 10 {
		d++
	}
	return fmt.Sprintf("$%.*f", d, float64(v)/1e6)
}

// decimal spells v/div with the decimals that step/div needs (trailing
// zeros dropped).
func decimal(v, div, step int64) string {
	if v%div == 0 {
		return commas(v / div)
	}
	d := 0
	for s := div; step%s != 0 && d < 3; s /= 10 {
		d++
	}
	out := fmt.Sprintf("%.*f", max(d, 1), float64(v)/float64(div))
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// commas spells n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprintf("%d", n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Bar is a labelled value of a horizontal bar chart.
type Bar struct {
	Label string
	Value int64
	// Text spells Value ("$12.34"); "" spells the integer.
	Text string
}

// Horizontal bar layout, in pixels: a row a bar, the value axis under
// them.
const (
	barRow   = 22
	barAxisH = 34
)

// BarsSVG draws labelled values as horizontal bars: the label left of
// each bar, its value after it, the longest bar the peak, gridlines at
// round values of unit up to it with their labels under the bars. It returns "" when there is nothing to
// draw.
func BarsSVG(label string, unit Unit, bars []Bar) template.HTML {
	if len(bars) == 0 {
		return ""
	}
	var peak int64
	labelChars, valueChars := 4, 4
	for _, x := range bars {
		peak = max(peak, x.Value)
		labelChars = max(labelChars, min(utf8.RuneCountInString(x.Label), 20))
		valueChars = max(valueChars, utf8.RuneCountInString(barText(x)))
	}
	// The label column fits the longest label (cut at 20 characters); the
	// longest bar takes what is left of a 320 px figure after the value.
	lw := 8 + labelChars*13/2
	room := 320 - lw - (10 + valueChars*7)
	frac := min(max(float64(room)/320, 0.2), 0.7)
	step, _ := niceScale(peak, 3)
	top := max(peak, 1)
	rows := len(bars) * barRow
	h := rows + barAxisH
	var b strings.Builder
	l := html.EscapeString(label)
	fmt.Fprintf(&b, `<svg class="chart chart-bars" width="100%%" height="%d" role="img" aria-label="%s"><title>%s</title>`, h, l, l)
	fmt.Fprintf(&b, `<g transform="translate(%d 0)"><g class="xaxis">`, lw)
	x := func(v int64) string { return pct(100 * frac * float64(v) / float64(top)) }
	for v := int64(0); v <= top; v += step {
		tick := unit.Spell(v, step)
		if v+step > top && v > 0 {
			tick = unit.top(v, step)
		}
		cls := "grid"
		if v == 0 {
			cls = "zero"
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%s" x2="%s" y1="0" y2="%d"/><text x="%s" y="%d" text-anchor="middle">%s</text>`,
			cls, x(v), x(v), rows+4, x(v), rows+17, html.EscapeString(tick))
	}
	b.WriteString(`</g>`)
	for i, bar := range bars {
		y := i * barRow
		name := bar.Label
		if utf8.RuneCountInString(name) > 20 {
			name = string([]rune(name)[:19]) + "…"
		}
		val := html.EscapeString(barText(bar))
		w := 0.0
		if bar.Value > 0 {
			w = 100 * frac * float64(bar.Value) / float64(top)
		}
		fmt.Fprintf(&b, `<g class="bar"><title>%s: %s</title><text class="label" x="-6" y="%d">%s</text><rect x="0" y="%d" width="%s" height="%d"/><text class="value" x="%s" dx="4" y="%d">%s</text></g>`,
			html.EscapeString(bar.Label), val, y+15, html.EscapeString(name), y+4, pct(w), barRow-8, pct(w), y+15, val)
	}
	b.WriteString(`</g></svg>`)
	return template.HTML(b.String())
}

func barText(x Bar) string {
	if x.Text != "" {
		return x.Text
	}
	return commas(x.Value)
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
	return -1
}

// f1 spells a coordinate with one decimal, always the same way.
func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

// pct spells a percentage of the figure's width, always the same way.
func pct(v float64) string { return fmt.Sprintf("%.2f%%", v) }
