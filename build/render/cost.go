package render

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"ccsite/build/markup"
	"ccsite/build/session"
)

// SpellCost writes a cost as people read it: "$12.34", "$0.42", "<$0.01";
// a cost with a part on unpriced models says so ("$1.20 + unknown",
// "unknown"), never $0.
func SpellCost(c session.Cost) string {
	if c.Unknown && c.USD == 0 {
		return "unknown"
	}
	s := usd(c.USD)
	if c.Unknown {
		s += " + unknown"
	}
	return s
}

// SpellUSD is SpellCost of a sum in dollars.
func SpellUSD(v float64, unknown bool) string {
	return SpellCost(session.Cost{USD: v, Unknown: unknown})
}

func usd(v float64) string {
	switch {
	case v == 0:
		return "$0.00"
	case v < 0.01:
		return "<$0.01"
	}
	return fmt.Sprintf("$%.2f", v)
}

// costs fills the session's and each turn's cost (priced with s.Pricing,
// the embedded table when nil), and Claude Code's own recorded figure.
func costs(s *session.Session, v *SessionView) {
	c := s.Costs(s.Pricing)
	v.Cost = SpellCost(c.Own)
	if len(s.Agents) > 0 && (c.Agents.USD > 0 || c.Agents.Unknown) {
		v.CostAgents, v.CostWithAgents = SpellCost(c.Agents), SpellCost(c.WithAgents)
	}
	if rc := s.RecordedCost; rc != nil && rc.TotalCostUSD > 0 {
		v.RecordedCost = usd(rc.TotalCostUSD)
	}
	byIndex := map[int]int{}
	for i, t := range s.Turns {
		byIndex[t.Index] = i
	}
	for i := range v.Turns {
		k, ok := byIndex[v.Turns[i].Index]
		if !ok || k >= len(c.Turns) {
			continue
		}
		tc := c.Turns[k]
		if tc.USD > 0 || tc.Unknown {
			v.Turns[i].Cost = SpellCost(tc)
			v.Turns[i].costMicros = int64(tc.USD*1e6 + 0.5)
		}
	}
}

// CostTally sums sessions' costs by day (of their start, UTC) and by
// model, for the cost charts of a project and of the archive.
type CostTally struct {
	days   map[time.Time]float64
	models map[string]float64
	// unknown are the days with a session partly of unpriced models.
	unknown map[time.Time]bool
}

// Add counts a session's overview.
func (t *CostTally) Add(o session.Overview) {
	if t.days == nil {
		t.days, t.models, t.unknown = map[time.Time]float64{}, map[string]float64{}, map[time.Time]bool{}
	}
	if (o.Cost > 0 || o.CostUnknown) && !o.Start.IsZero() {
		y, m, d := o.Start.UTC().Date()
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		t.days[day] += o.Cost
		t.unknown[day] = t.unknown[day] || o.CostUnknown
	}
	for model, v := range o.CostByModel {
		t.models[model] += v
	}
}

// Charts draws cost per day (every calendar day from the first session's
// to the last's, days without one as zero) and cost by model (largest
// first), each with its table; each nil when nothing was paid.
func (t *CostTally) Charts() (perDay, byModel *Chart) {
	if len(t.days) > 0 {
		perDay = t.dayChart()
	}
	if len(t.models) > 0 {
		byModel = t.modelChart()
	}
	return perDay, byModel
}

// dayChart draws the cost of the sessions started each day (UTC).
func (t *CostTally) dayChart() *Chart {
	var first, last time.Time
	for d := range t.days {
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	spell := func(v int64) string { return usd(float64(v) / 1e6) }
	// Days without cost draw no bar (the axis keeps their place; the
	// table lists them).
	se := markup.Series{Name: "cost (USD)", Class: "s-cost", Format: spell, Sparse: true}
	label := "Cost per day (USD), " + first.Format(markup.DayFormat) + " to " + last.Format(markup.DayFormat)
	c := &Chart{Title: "Cost per day", Cols: []string{"Day (UTC)", "Cost (USD)"}}
	mc := markup.Chart{Label: label, XTitle: "Day (UTC)",
		Desc: "Cost of the sessions started each day, days without one as zero; the table under the chart gives the numbers."}
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		v := int64(t.days[d]*1e6 + 0.5)
		day := d.Format(markup.DayFormat)
		point := day
		if t.unknown[d] {
			point += " (models without a price not counted)"
		}
		mc.Points = append(mc.Points, point)
		se.Values = append(se.Values, v)
		c.Rows = append(c.Rows, ChartRow{Label: day, Cells: []string{SpellUSD(float64(v)/1e6, t.unknown[d])}})
	}
	mc.XTicks = markup.DayTicks(first, len(mc.Points))
	mc.Panels = []markup.Panel{{Title: "Cost of the sessions started that day (USD)", Unit: markup.USDUnit, Series: []markup.Series{se}, Height: 100}}
	c.SVG = markup.ChartSVG(mc)
	return c
}

// modelChart draws the cost by model, largest first.
func (t *CostTally) modelChart() *Chart {
	type mv struct {
		m string
		v float64
	}
	var list []mv
	for m, v := range t.models {
		list = append(list, mv{m, v})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].v != list[j].v {
			return list[i].v > list[j].v
		}
		return list[i].m < list[j].m
	})
	c := &Chart{Title: "Cost by model", Cols: []string{"Model", "Cost (USD)"}}
	var bars []markup.Bar
	for _, x := range list {
		name := x.m
		if name == "" {
			name = "(no model)"
		}
		bars = append(bars, markup.Bar{Label: strings.TrimPrefix(name, "claude-"), Value: int64(x.v*1e6 + 0.5), Text: usd(x.v)})
		c.Rows = append(c.Rows, ChartRow{Label: name, Cells: []string{usd(x.v)}})
	}
	c.SVG = markup.BarsSVG("Cost by model (USD)", markup.USDUnit, bars)
	return c
}
