package render_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/render"
	"ccsite/build/session"
)

// svgTitles parses an SVG with an XML parser (it must be well-formed) and
// returns the <title> texts of the elements named el, in order, within
// groups whose class has class ("" for any).
func svgTitles(t *testing.T, svg, el, class string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var stack []xml.StartElement
	var out []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG not well-formed: %v\n%s", err, svg)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			stack = append(stack, x)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			n := len(stack)
			if n < 2 || stack[n-1].Name.Local != "title" || stack[n-2].Name.Local != el {
				continue
			}
			if class != "" {
				ok := false
				for _, s := range stack {
					for _, a := range s.Attr {
						if a.Name.Local == "class" && slices.Contains(strings.Fields(a.Value), class) {
							ok = true
						}
					}
				}
				if !ok {
					continue
				}
			}
			out = append(out, string(x))
		}
	}
	return out
}

// TestCharts: the header's pictures are well-formed SVG drawing the very
// numbers of the turn lines and the tool tally, and the turn lines split
// the time.
func TestCharts(t *testing.T) {
	s := loadSession(t, "testdata/sessions/turn-timing.jsonl")
	v := sharedBuilder.Session(s, "/home/dev/shop", render.Links{Page: sessionPage(s), Project: link.Project(testProject),
		Agent: func(*session.Session) string { return "" }})
	if v.Charts == nil {
		t.Fatal("no charts")
	}
	var outs, ctxs, rows, costs []string
	withCost := len(v.Charts.TurnCols) == 3
	for _, tv := range v.Turns {
		outs = append(outs, fmt.Sprintf("Turn %d: %s output tokens", tv.Index, thousands(tv.OutTokens)))
		ctxs = append(ctxs, fmt.Sprintf("Turn %d: %s context tokens after the turn", tv.Index, thousands(tv.Context)))
		row := thousands(tv.OutTokens) + " " + thousands(tv.Context)
		if withCost {
			// The cost column spells what the turn line says.
			c := tv.Cost
			if c == "" {
				c = "$0.00"
			}
			row += " " + c
			costs = append(costs, fmt.Sprintf("Turn %d: %s cost (USD)", tv.Index, c))
		}
		rows = append(rows, row)
	}
	if !withCost || v.Cost == "" {
		t.Errorf("no cost series (columns %v, session cost %q)", v.Charts.TurnCols, v.Cost)
	}
	if got := svgTitles(t, string(v.Charts.Turns), "rect", "s-cost"); !slices.Equal(got, costs) {
		t.Errorf("cost bars = %q, want %q", got, costs)
	}
	if got := svgTitles(t, string(v.Charts.Turns), "rect", "s-out"); !slices.Equal(got, outs) {
		t.Errorf("output bars = %q, want %q (one a turn)", got, outs)
	}
	if got := svgTitles(t, string(v.Charts.Turns), "circle", "s-ctx"); !slices.Equal(got, ctxs) {
		t.Errorf("context points = %q, want %q", got, ctxs)
	}
	var gotRows []string
	for _, r := range v.Charts.TurnRows {
		gotRows = append(gotRows, strings.Join(r.Cells, " "))
	}
	if !slices.Equal(gotRows, rows) {
		t.Errorf("table rows = %q, want %q", gotRows, rows)
	}
	if v.Turns[0].OutTokens != 90 || v.Turns[0].Context != 1010 {
		t.Errorf("turn 1 out/context = %d/%d, want 90/1010", v.Turns[0].OutTokens, v.Turns[0].Context)
	}
	var tools []string
	sum := 0
	for _, c := range v.Tools {
		tools = append(tools, fmt.Sprintf("%s: %d", c.Name, c.Count))
		sum += c.Count
	}
	if got := svgTitles(t, string(v.Charts.Tools), "g", "bar"); !slices.Equal(got, tools) || sum != v.Stats.ToolCalls {
		t.Errorf("tool bars = %q, want %q (sum %d, tool calls %d)", got, tools, sum, v.Stats.ToolCalls)
	}
	tv := v.Turns[0]
	if tv.Took != "2 min 32 s" || tv.TimeParts != "model 21 s · Bash 10 s · waiting 2 min 0 s" || tv.TimeTop != "waiting 2 min 0 s" {
		t.Errorf("turn 1 took %q, parts %q, top %q", tv.Took, tv.TimeParts, tv.TimeTop)
	}
	if tv := v.Turns[1]; tv.Took != "10 min 0 s" || tv.TimeTop != "idle 10 min 0 s" {
		t.Errorf("turn 2 took %q, top %q", tv.Took, tv.TimeTop)
	}
}

// TestChartEscapes: labels are escaped in titles and text, and the SVG
// stays well-formed.
func TestChartEscapes(t *testing.T) {
	bad := `mcp__x__<script>alert("1")</script>&amp;`
	svg := string(markup.BarsSVG(`Tools <"&">`, []markup.Bar{{Label: bad, Value: 3}, {Label: "Bash", Value: 1}}))
	if strings.Contains(svg, "<script>") {
		t.Fatalf("label not escaped: %s", svg)
	}
	if got := svgTitles(t, svg, "g", "bar"); !slices.Equal(got, []string{bad + ": 3", "Bash: 1"}) {
		t.Errorf("titles = %q", got)
	}
	svg = string(markup.SeriesSVG(markup.SeriesChart{Label: "<x>", Points: []string{"<p&>"}, Series: []markup.Series{{Name: `"n"`, Class: "s-out", Values: []int64{5}}}}))
	if got := svgTitles(t, svg, "rect", ""); !slices.Equal(got, []string{`<p&>: 5 "n"`}) {
		t.Errorf("titles = %q", got)
	}
	if markup.SeriesSVG(markup.SeriesChart{}) != "" || markup.BarsSVG("x", nil) != "" {
		t.Error("an empty chart draws something")
	}
}

// thousands spells n as the num template function.
func thousands(n int64) string {
	s := fmt.Sprintf("%d", n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
