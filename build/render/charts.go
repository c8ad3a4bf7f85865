package render

import (
	"fmt"
	"html/template"

	"ccsite/build/markup"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// Charts are the pictures in a session page's header: drawn at build time
// (markup) from the same numbers the turn lines and the tool tally show,
// with those numbers in a table beside them.
type Charts struct {
	// Turns draws numbers per turn; TurnRows are its numbers, a row a
	// turn, a column a series (TurnCols names them).
	Turns    template.HTML
	TurnCols []ChartCol
	TurnRows []ChartRow
	// Tools draws tool calls by tool (the tool tally's numbers).
	Tools template.HTML
}

// ChartCol is a series of a chart: its name, and its class (the legend's
// key and the drawing's colour).
type ChartCol struct {
	Name  string
	Class string
}

// ChartRow is one turn's numbers in a chart's table, spelled.
type ChartRow struct {
	Label  string
	Anchor string
	Cells  []string
}

// turnSeries are the series of the per-turn chart. Another figure per
// turn (cost) is one more entry: a bar series beside output tokens or a
// line beside context size.
func turnSeries(s *session.Session, turns []TurnView) []markup.Series {
	out := markup.Series{Name: "output tokens", Class: "s-out", Format: numStr}
	ctx := markup.Series{Name: "context tokens after the turn", Class: "s-ctx", Line: true, Format: numStr}
	for _, tv := range turns {
		out.Values = append(out.Values, tv.OutTokens)
		ctx.Values = append(ctx.Values, tv.Context)
	}
	series := []markup.Series{out, ctx}
	cost := markup.Series{Name: "cost (USD)", Class: "s-cost", Format: func(v int64) string { return usd(float64(v) / 1e6) }}
	any := false
	for _, tv := range turns {
		cost.Values = append(cost.Values, tv.costMicros)
		any = any || tv.costMicros > 0
	}
	if any {
		series = append(series, cost)
	}
	return series
}

// charts builds the header's pictures; nil when the session has no turn.
func charts(s *session.Session, v *SessionView) *Charts {
	if len(v.Turns) == 0 {
		return nil
	}
	c := &Charts{}
	series := turnSeries(s, v.Turns)
	sc := markup.SeriesChart{Label: "Tokens per turn", Series: series}
	for _, se := range series {
		c.TurnCols = append(c.TurnCols, ChartCol{Name: se.Name, Class: se.Class})
	}
	for i, tv := range v.Turns {
		label := fmt.Sprintf("Turn %d", tv.Index)
		sc.Points = append(sc.Points, label)
		row := ChartRow{Label: label, Anchor: tv.Anchor}
		for _, se := range series {
			row.Cells = append(row.Cells, se.Spell(se.Values[i]))
		}
		c.TurnRows = append(c.TurnRows, row)
	}
	c.Turns = markup.SeriesSVG(sc)
	var bars []markup.Bar
	for _, t := range v.Tools {
		bars = append(bars, markup.Bar{Label: t.Name, Value: int64(t.Count)})
	}
	c.Tools = markup.BarsSVG("Tool calls by tool", bars)
	return c
}

// turnContext is the context size after turn t: input and cache read
// tokens of its last API response (0 when it has none).
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
	return last.InputTokens + last.CacheReadInputTokens
}

// numStr spells n as the num template function does.
func numStr(n int64) string { return thousands(n) }
