package render

import (
	"fmt"

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
