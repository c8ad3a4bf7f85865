package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ccsite/build/session"
)

// TestTurnChartCarriesContext: a turn without a model call keeps the
// context size of the turn before (a hollow marker, "(no model call)" in
// the table) instead of falling to 0; before the first call there is no
// point at all.
func TestTurnChartCarriesContext(t *testing.T) {
	turns := []TurnView{
		{Index: 1, Anchor: "t1"},
		{Index: 2, Anchor: "t2", OutTokens: 300, Context: 20_000},
		{Index: 3, Anchor: "t3"},
		{Index: 4, Anchor: "t4", OutTokens: 50, Context: 25_000},
	}
	c := turnChart(turns)
	var ctx []string
	for _, r := range c.Rows {
		ctx = append(ctx, r.Cells[1])
	}
	if want := []string{"–", "20,000", "20,000 (no model call)", "25,000"}; !slices.Equal(ctx, want) {
		t.Errorf("context column = %q, want %q", ctx, want)
	}
	svg := string(c.SVG)
	if strings.Count(svg, "<circle") != 3+1 { // three points and the key's marker
		t.Errorf("%d circles, want 3 points and a key:\n%s", strings.Count(svg, "<circle"), svg)
	}
	if !strings.Contains(svg, `<circle class="carried"`) || !strings.Contains(svg, "Turn 3: 20,000 context tokens after the turn (no model call: as before)") {
		t.Errorf("turn 3's context is not carried:\n%s", svg)
	}
	if strings.Contains(svg, "Turn 1: 0 context") {
		t.Errorf("turn 1 has a context point at 0:\n%s", svg)
	}
}

// TestCostPerDay: cost per day is a timeline of calendar days, the days
// without a session drawn and listed as $0.00, with its dates on the x
// axis and dollars on the value axis; cost by model has its table.
func TestCostPerDay(t *testing.T) {
	var tally CostTally
	day := func(d int) time.Time { return time.Date(2026, 3, d, 15, 0, 0, 0, time.UTC) }
	tally.Add(session.Overview{Start: day(2), Cost: 1.25, CostByModel: map[string]float64{"claude-opus-4-6": 1.25}})
	tally.Add(session.Overview{Start: day(5), Cost: 0.5, CostByModel: map[string]float64{"claude-sonnet-4-5": 0.5}})
	tally.Add(session.Overview{Start: day(7), CostUnknown: true})
	perDay, byModel := tally.Charts()
	if perDay == nil || byModel == nil {
		t.Fatal("no charts")
	}
	var rows []string
	for _, r := range perDay.Rows {
		rows = append(rows, r.Label+" "+strings.Join(r.Cells, " "))
	}
	// A day whose only session is of a model with no price says so.
	if want := []string{"2026-03-02 $1.25", "2026-03-03 $0.00", "2026-03-04 $0.00", "2026-03-05 $0.50", "2026-03-06 $0.00", "2026-03-07 unknown"}; !slices.Equal(rows, want) {
		t.Errorf("per day rows = %q, want %q", rows, want)
	}
	svg := string(perDay.SVG)
	for _, want := range []string{
		`aria-label="Cost per day (USD), 2026-03-02 to 2026-03-07"`,
		`>2026-03-04</text>`, `>Day (UTC)</text>`, `>$0.50</text>`, `>$1.50</text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("cost per day has no %s:\n%s", want, svg)
		}
	}
	// Days without cost keep their place on the axis (the bars are at
	// the 1st and 4th of 6 places) but draw no bar.
	if got := strings.Count(svg, "<rect"); got != 2 || !strings.Contains(svg, `<rect x="`+pctOf(0, 6)) || !strings.Contains(svg, `<rect x="`+pctOf(3, 6)) {
		t.Errorf("%d rects, want a bar at places 1 and 4 of 6:\n%s", got, svg)
	}
	rows = nil
	for _, r := range byModel.Rows {
		rows = append(rows, r.Label+" "+strings.Join(r.Cells, " "))
	}
	if want := []string{"claude-opus-4-6 $1.25", "claude-sonnet-4-5 $0.50"}; !slices.Equal(rows, want) || !slices.Equal(byModel.Cols, []string{"Model", "Cost (USD)"}) {
		t.Errorf("by model rows = %q (columns %q), want %q", rows, byModel.Cols, want)
	}
	if !strings.Contains(string(byModel.SVG), `>$1.00</text>`) {
		t.Errorf("cost by model has no dollar axis:\n%s", byModel.SVG)
	}
}

// TestTurnChartOnlyWhatWasDrawn: a panel is drawn only when its series has
// something: turns without any model call draw no empty axes.
func TestTurnChartOnlyWhatWasDrawn(t *testing.T) {
	if c := turnChart([]TurnView{{Index: 1}, {Index: 2}}); c != nil {
		t.Errorf("turns without a model call draw a chart:\n%s", c.SVG)
	}
	c := turnChart([]TurnView{{Index: 1, Context: 1200}})
	if c == nil || !slices.Equal(c.Cols, []string{"Turn", "Context size after the turn (tokens)"}) {
		t.Fatalf("a call with no output and no cost: chart %+v, want the context alone", c)
	}
}

// pctOf is where the bar of place i of n begins (centred in its slot, 6%
// wide at most), as the chart spells it.
func pctOf(i, n int) string {
	slot := 100 / float64(n)
	bw := min(slot*0.7, 6)
	return fmt.Sprintf("%.2f%%", slot*float64(i)+(slot-bw)/2)
}

// TestTurnChartEstimatesPartial: a turn whose output count Claude Code
// recorded only in part is drawn at its estimate, and the panel says so.
func TestTurnChartEstimatesPartial(t *testing.T) {
	turns := []TurnView{
		{Index: 1, Anchor: "t1", OutTokens: 4, OutEstimate: 250, outPartial: true, Context: 1000},
		{Index: 2, Anchor: "t2", OutTokens: 100, OutEstimate: 100, Context: 1200},
	}
	c := turnChart(turns)
	if got := c.Rows[0].Cells[0]; got != "250" {
		t.Errorf("turn 1's output = %q, want its estimate 250", got)
	}
	if svg := string(c.SVG); !strings.Contains(svg, "Output tokens per turn (some estimated)") {
		t.Errorf("the panel does not say its counts are estimated:\n%s", svg)
	}
}
