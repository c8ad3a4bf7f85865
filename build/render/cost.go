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
// "unknown"), never $0; one priced on partial output counts is a lower
// bound ("≥ $0.42").
func SpellCost(c session.Cost) string {
	if c.Unknown && c.USD == 0 {
		return "unknown"
	}
	s := usd(c.USD)
	if c.Tokens.Partial > 0 {
		s = "≥ " + s
	}
	if c.Unknown {
		s += " + unknown"
	}
	return s
}

// LowerBound marks a spelled cost as a lower bound ("≥ $1.20") when it is
// priced on partial output counts.
func LowerBound(cost string, partial bool) string {
	if partial && cost != "unknown" {
		return "≥ " + cost
	}
	return cost
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
	v.TokensOut = spellOut(s.Stats.Tokens)
	v.Advisor = advisorLines(s)
	v.Measured = measured(s.RecordedCost)
	advisorOut := map[int]int64{}
	for _, r := range s.Responses(s.Pricing) {
		if r.Advisor {
			advisorOut[r.Turn] += r.Cost.Tokens.Output
		}
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
		if n := advisorOut[v.Turns[i].Index]; n > 0 && v.Turns[i].Out != "" {
			v.Turns[i].Out += " (" + thousands(n) + " by the advisor)"
		}
		tc := c.Turns[k]
		if tc.USD > 0 || tc.Unknown {
			v.Turns[i].Cost = SpellCost(tc)
			v.Turns[i].costMicros = int64(tc.USD*1e6 + 0.5)
		}
	}
}

// spellOut writes a session's output tokens: "1,846 out", or when some
// counts are partial records a lower bound with the estimate, "≥ 1,846
// out (~2,042 est., 1 partial record)".
func spellOut(t session.Tokens) string {
	if t.Partial == 0 {
		return thousands(t.Output) + " out"
	}
	return fmt.Sprintf("≥ %s out (~%s est., %s)", thousands(t.Output), thousands(t.OutputEstimate()), plural(t.Partial, "partial record"))
}

// spellTurnOut writes a turn's output tokens for its line: "250 tokens
// out", or when a count is a partial record its estimate, labelled, with
// what the records say: "~250 tokens out (est.; ≥ 4 recorded, partial)".
func spellTurnOut(t session.Tokens) string {
	switch {
	case t.Partial > 0:
		return fmt.Sprintf("~%s tokens out (est.; ≥ %s recorded, partial)", thousands(t.OutputEstimate()), thousands(t.Output))
	case t.Output > 0:
		return thousands(t.Output) + " tokens out"
	}
	return ""
}

// shortTurnOut is spellTurnOut for the turn outline: "250 tok", "~250
// tok (est.)".
func shortTurnOut(t session.Tokens) string {
	switch {
	case t.Partial > 0:
		return "~" + thousands(t.OutputEstimate()) + " tok (est.)"
	case t.Output > 0:
		return thousands(t.Output) + " tok"
	}
	return ""
}

// advisorLines spells the advisor tool's calls of s by model: "claude-opus-4-7
// · 2 calls · 80,100 in · 3,020 out · $0.48".
func advisorLines(s *session.Session) []string {
	type acc struct {
		n int
		c session.Cost
	}
	by := map[string]*acc{}
	var models []string
	for _, r := range s.Responses(s.Pricing) {
		if !r.Advisor {
			continue
		}
		a := by[r.Model]
		if a == nil {
			a = &acc{}
			by[r.Model] = a
			models = append(models, r.Model)
		}
		a.n++
		a.c.Add(r.Cost)
	}
	sort.Strings(models)
	var out []string
	for _, m := range models {
		line := plural(by[m].n, "call")
		if u := advisorUsage(by[m].c); u != "" {
			line += " · " + u
		}
		out = append(out, orDefault(m, "(model not recorded)")+" · "+line)
	}
	return out
}

// measured spells what Claude Code measured itself (cost-state's newer
// fields): "API 41 s · tools 9 s of 1 min 4 s · 120 lines added, 35 removed";
// "" when it wrote none of them. Shown as recorded, beside ccsite's own
// split, never added to it.
func measured(rc *session.CostState) string {
	if rc == nil {
		return ""
	}
	var parts []string
	if rc.TotalAPIDurationMs > 0 || rc.TotalToolDurationMs > 0 {
		p := "API " + span(int64(rc.TotalAPIDurationMs)) + " · tools " + span(int64(rc.TotalToolDurationMs))
		if rc.TotalDurationMs > 0 {
			p += " of " + span(int64(rc.TotalDurationMs))
		}
		parts = append(parts, p)
	}
	if rc.TotalLinesAdded > 0 || rc.TotalLinesRemoved > 0 {
		added := thousands(rc.TotalLinesAdded) + " lines added"
		if rc.TotalLinesAdded == 1 {
			added = "1 line added"
		}
		parts = append(parts, added+", "+thousands(rc.TotalLinesRemoved)+" removed")
	}
	return strings.Join(parts, " · ")
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
