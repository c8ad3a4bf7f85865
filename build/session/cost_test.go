package session

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"ccsite/build/pricing"
)

// TestCost: a session's cost is the hand computation from the pricing
// table: each response once (its largest fragment), 1 h cache writes at
// their own rate, a model with no price unknown (tokens counted, not $0),
// each turn its own part, sub-agents apart and rolled in.
func TestCost(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "cost.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "cost.jsonl", Options{})
	// sonnet 4.5: 100 in ×3, 400 out ×15, 20000 read ×0.3, 1000 5m ×3.75, 2000 1h ×6
	turn1 := (100*3 + 400*15 + 20000*0.3 + 1000*3.75 + 2000*6.0) / 1e6
	// haiku 4.5: 50 in ×1, 60 out ×5, 700 write (no split: 5 min) ×1.25
	turn2 := (50*1 + 60*5 + 700*1.25) / 1e6
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

	c := s.Costs(nil)
	if len(c.Turns) != 3 {
		t.Fatalf("turns = %d, want 3", len(c.Turns))
	}
	if !near(c.Turns[0].USD, turn1) || c.Turns[0].Unknown || c.Turns[0].CacheWrite1h != 2000 || c.Turns[0].Tokens.Output != 400 {
		t.Errorf("turn 1 = %+v, want $%v", c.Turns[0], turn1)
	}
	if !near(c.Turns[1].USD, turn2) || c.Turns[1].Unknown {
		t.Errorf("turn 2 = %+v, want $%v", c.Turns[1], turn2)
	}
	if t3 := c.Turns[2]; !t3.Unknown || t3.USD != 0 || t3.UnknownTokens != 60 || !slices.Equal(t3.UnknownModels, []string{"claude-opus-5"}) {
		t.Errorf("turn 3 = %+v, want unknown with 60 tokens", t3)
	}
	if !near(c.Own.USD, turn1+turn2) || !c.Own.Unknown || c.Own.Tokens != s.Stats.Tokens {
		t.Errorf("own = %+v, want $%v, unknown, tokens %+v", c.Own, turn1+turn2, s.Stats.Tokens)
	}
	if c.Own.Responses != 4 {
		t.Errorf("responses = %d, want 4", c.Own.Responses)
	}
	o := s.Overview()
	if !near(o.Cost, turn1+turn2) || !o.CostUnknown || o.RecordedCost != 0 {
		t.Errorf("overview cost = %v unknown %v recorded %v", o.Cost, o.CostUnknown, o.RecordedCost)
	}

	// A table that prices the unknown model makes it known.
	path := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(path, []byte(`{"models":{"claude-opus-5":{"input":1000,"output":1000,"cacheRead":1000}}}`), 0o644)
	tb, err := pricing.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Pricing = tb
	if own := s.Cost(); own.Unknown || !near(own.USD, turn1+turn2+60*1000/1e6) {
		t.Errorf("with --pricing: %+v", own)
	}
	s.Pricing = nil

	// Sub-agents: apart, and rolled into the parent.
	ag := buildWithTimeout(t, data, "cost.jsonl", Options{})
	s.Agents = []*Session{ag}
	c = s.Costs(nil)
	if !near(c.Agents.USD, turn1+turn2) || !near(c.WithAgents.USD, 2*(turn1+turn2)) || !near(c.Own.USD, turn1+turn2) {
		t.Errorf("agents %v, with agents %v, own %v", c.Agents.USD, c.WithAgents.USD, c.Own.USD)
	}
	if !near(s.CostWithAgents().USD, 2*(turn1+turn2)) || !near(s.Overview().Cost, 2*(turn1+turn2)) {
		t.Error("CostWithAgents / Overview do not roll agents in")
	}
}

// TestAdvisorAndPartialOutput: the advisor tool's model calls (advisor_message
// iterations, not in the response's own usage) are counted and priced at the
// advisor's model, in the session's tokens, its turn and its cost by model;
// an output count far below what the answer wrote is marked partial, with an
// estimate.
func TestAdvisorAndPartialOutput(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "advisor.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "advisor.jsonl", Options{})
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	// The response: 3 in, 212 out, 80300 read, 1500 write at sonnet 4.5;
	// its advisor call: 41250 in, 1630 out at opus 4.7 (5, 25).
	main := (3*3 + 212*15 + 80300*0.3 + 1500*3.75) / 1e6
	advisor := (41250*5 + 1630*25.0) / 1e6
	partial := (2*3 + 4*15 + 81000*0.3) / 1e6

	st := s.Stats.Tokens
	if st.Output != 212+1630+4 || st.Input != 3+41250+2 || st.Partial != 1 || st.OutputMissing != 200-4 {
		t.Errorf("tokens = %+v, want 1846 out (1630 the advisor's), 41255 in, 1 partial missing 196", st)
	}
	c := s.Costs(nil)
	if !near(c.Own.USD, main+advisor+partial) {
		t.Errorf("cost = %v, want %v", c.Own.USD, main+advisor+partial)
	}
	if !near(c.ByModel["claude-opus-4-7"], advisor) || !near(c.ByModel["claude-sonnet-4-5-20250929"], main+partial) {
		t.Errorf("by model = %v, want opus 4.7 %v", c.ByModel, advisor)
	}
	if c.Own.Responses != 2 {
		t.Errorf("responses = %d, want 2 (an advisor call is within one)", c.Own.Responses)
	}
	if c.Own.Tokens != st {
		t.Errorf("cost tokens %+v != stats tokens %+v", c.Own.Tokens, st)
	}
	tt := TurnTokens(s)
	if len(tt) != 2 || tt[0].Output != 1842 || tt[0].Partial != 0 || tt[1].Output != 4 || tt[1].Partial != 1 || tt[1].OutputEstimate() != 200 {
		t.Errorf("turn tokens = %+v", tt)
	}
	var adv []Response
	for _, r := range s.Responses(nil) {
		if r.Advisor {
			adv = append(adv, r)
		}
	}
	if len(adv) != 1 || adv[0].Model != "claude-opus-4-7" || adv[0].Turn != 1 || adv[0].ID != "msg_adv/advisor/1" {
		t.Errorf("advisor responses = %+v", adv)
	}
}

// TestCostStateTimes: cost-state's newer fields (API and tool time, lines
// added and removed) are read.
func TestCostStateTimes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "advisor.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "advisor.jsonl", Options{})
	rc := s.RecordedCost
	if rc == nil || rc.TotalAPIDurationMs != 41000 || rc.TotalToolDurationMs != 9000 || rc.TotalLinesAdded != 120 || rc.TotalLinesRemoved != 35 {
		t.Errorf("recorded cost = %+v", rc)
	}
}
