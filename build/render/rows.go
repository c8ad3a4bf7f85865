package render

import (
	"strings"

	"ccsite/build/session"
)

// RowOf is a session's row on its project page, from its overview.
func RowOf(o session.Overview, url string) SessionRow {
	models := make([]string, len(o.Models))
	for i, m := range o.Models {
		models[i] = strings.TrimPrefix(m, "claude-")
	}
	row := SessionRow{Title: o.Title, URL: url, Excerpt: o.Excerpt, Start: mkTime(o.Start), Active: duration(o.Active),
		ActiveSec: int64(o.Active.Seconds()), Turns: o.Turns, ToolCalls: o.ToolCalls, Agents: o.Agents,
		Problems: o.Problems, Models: strings.Join(models, ", "), Tokens: o.Tokens.Total()}
	if !o.Start.IsZero() {
		row.StartUnix = o.Start.Unix()
	}
	row.Cost, row.CostMicros = LowerBound(SpellUSD(o.Cost, o.CostUnknown), o.CostPartial), int64(o.Cost*1e6+0.5)
	return row
}
