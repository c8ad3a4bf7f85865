package render

import (
	"fmt"
	"html/template"
	"slices"

	"ccsite/build/markup"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// Charts are the pictures in a session page's header: drawn at build time
// (markup) from the same numbers the turn lines and the tool tally show.
type Charts struct {
	// Turns draws numbers per turn (output tokens, context size, cost),
	// with its table; Tools draws tool calls by tool (the tool tally's
	// numbers, listed under it).
	Turns *Chart
	Tools *Chart
}

// Chart is a picture with its numbers: the SVG, and a table of what it
// draws (a row a point, a column a series; none when the page lists
// the numbers elsewhere).
type Chart struct {
	Title string
	SVG   template.HTML
	// Cols head the table's columns, the first naming the rows.
	Cols []string
	Rows []ChartRow
}

// ChartRow is one point's numbers in a chart's table, spelled.
type ChartRow struct {
	Label  string
	Anchor string
	Cells  []string
}

// turnSeries are the panels of the per-turn chart: output tokens and the
// context size, each on its own token scale, and cost, each when there
// is some.
// The context size of a turn without a model call is the one before it
// (carried, and marked so); before the first call there is none.
func turnSeries(turns []TurnView) []markup.Panel {
	out := markup.Series{Name: "output tokens", Class: "s-out", Format: numStr}
	ctx := markup.Series{Name: "context tokens after the turn", Class: "s-ctx", Line: true, Format: numStr}
	last := int64(-1)
	partial := false
	for _, tv := range turns {
		// A partial count would draw a turn that wrote pages as a few
		// tokens: its estimate is drawn, and the title says so.
		out.Values = append(out.Values, max(tv.OutTokens, tv.OutEstimate))
		partial = partial || tv.outPartial
		carried := tv.Context <= 0 && last >= 0
		if tv.Context > 0 {
			last = tv.Context
		}
		ctx.Values = append(ctx.Values, last)
		ctx.Carried = append(ctx.Carried, carried)
	}
	var panels []markup.Panel
	if slices.ContainsFunc(out.Values, func(v int64) bool { return v > 0 }) {
		title := "Output tokens per turn"
		if partial {
			title += " (some estimated)"
		}
		panels = append(panels, markup.Panel{Title: title, Unit: markup.TokensUnit, Series: []markup.Series{out}})
	}
	if last >= 0 {
		panels = append(panels, markup.Panel{Title: "Context size after the turn (tokens)", Unit: markup.TokensUnit, Series: []markup.Series{ctx}})
	}
	cost := markup.Series{Name: "cost (USD)", Class: "s-cost", Format: func(v int64) string { return usd(float64(v) / 1e6) }}
	any := false
	for _, tv := range turns {
		cost.Values = append(cost.Values, tv.costMicros)
		any = any || tv.costMicros > 0
	}
	if any {
		panels = append(panels, markup.Panel{Title: "Cost per turn (USD)", Unit: markup.USDUnit, Series: []markup.Series{cost}})
	}
	return panels
}

// turnChart draws the numbers per turn over the turns' numbers; nil when
// there are none (no model call).
func turnChart(turns []TurnView) *Chart {
	panels := turnSeries(turns)
	if len(panels) == 0 {
		return nil
	}
	c := &Chart{Title: "Tokens and cost per turn", Cols: []string{"Turn"}}
	mc := markup.Chart{Label: "Tokens and cost per turn", XTitle: "Turn",
		Desc: "Output tokens, context size and cost of each turn, each on its own scale; the table under the chart gives the numbers."}
	for _, p := range panels {
		c.Cols = append(c.Cols, p.Title)
		mc.Panels = append(mc.Panels, p)
	}
	numbers := make([]int, len(turns))
	for i, tv := range turns {
		numbers[i] = tv.Index
		label := fmt.Sprintf("Turn %d", tv.Index)
		mc.Points = append(mc.Points, label)
		row := ChartRow{Label: label, Anchor: tv.Anchor}
		for _, p := range panels {
			se := p.Series[0]
			v := se.Values[i]
			cell := "–"
			switch {
			case se.Class == "s-cost":
				cell = tv.Cost
				if cell == "" {
					cell = "$0.00"
				}
			case v >= 0:
				cell = se.Spell(v)
				if i < len(se.Carried) && se.Carried[i] {
					cell += " (no model call)"
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		c.Rows = append(c.Rows, row)
	}
	mc.XTicks = markup.NumberTicks(numbers)
	c.SVG = markup.ChartSVG(mc)
	return c
}

// charts builds the header's pictures; nil when the session has no turn.
func charts(s *session.Session, v *SessionView) *Charts {
	if len(v.Turns) == 0 {
		return nil
	}
	c := &Charts{Turns: turnChart(v.Turns)}
	var bars []markup.Bar
	for _, t := range v.Tools {
		bars = append(bars, markup.Bar{Label: t.Name, Value: int64(t.Count)})
	}
	if svg := markup.BarsSVG("Tool calls by tool", markup.CountUnit("call", "calls"), bars); svg != "" {
		c.Tools = &Chart{Title: "Tool calls by tool", SVG: svg}
	}
	if c.Turns == nil && c.Tools == nil {
		return nil
	}
	return c
}

// turnContext is the context size after turn t: the input tokens of its
// last API response's last model call, cache reads and writes included
// (0 when it has none): a response that called the advisor sums each of
// its own calls, which reread the context, in its top-level counts.
func turnContext(s *session.Session, t session.Turn) int64 {
	if t.First < 0 || t.Last >= len(s.Messages) || t.First > t.Last {
		return 0
	}
	var last *transcript.Usage
	for _, m := range s.Messages[t.First : t.Last+1] {
		for _, r := range m.Records {
			if r.Type == transcript.TypeAssistant && r.Message != nil && r.Message.Usage != nil {
				last = r.Message.Usage
			}
		}
	}
	if last == nil {
		return 0
	}
	return last.Context()
}

// numStr spells n as the num template function does.
func numStr(n int64) string { return thousands(n) }
