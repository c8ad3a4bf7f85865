package render

import (
	"sort"
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
		Problems: o.Problems, Models: strings.Join(models, ", "), Tokens: o.Tokens.Total(), Tag: o.Tag, AgentName: o.AgentName}
	if !o.Start.IsZero() {
		row.StartUnix = o.Start.Unix()
	}
	row.Cost, row.CostMicros = LowerBound(SpellUSD(o.Cost, o.CostUnknown), o.CostPartial), int64(o.Cost*1e6+0.5)
	return row
}

// TagCount is a tag with the number of sessions that carry it.
type TagCount struct {
	Name  string
	Count int
}

// TagGroup is a tag with the sessions that carry it, for the index.
type TagGroup struct {
	Name     string
	Sessions []TagSession
}

// TagSession is a tagged session listed under its tag on the index.
type TagSession struct {
	Title, URL, Project string
}

// Tags counts the tags of rows, most used first, then by name.
func Tags(rows []SessionRow) []TagCount {
	n := map[string]int{}
	for _, r := range rows {
		if r.Tag != "" {
			n[r.Tag]++
		}
	}
	out := make([]TagCount, 0, len(n))
	for k, v := range n {
		out = append(out, TagCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}
