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

// svgTexts returns the text of the <text> elements of an SVG within
// groups whose class has class, in order (hidden narrow or wide labels
// included).
func svgTexts(t *testing.T, svg, class string) []string {
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
			if n := len(stack); n == 0 || stack[n-1].Name.Local != "text" {
				continue
			}
			for _, s := range stack {
				for _, a := range s.Attr {
					if a.Name.Local == "class" && slices.Contains(strings.Fields(a.Value), class) {
						out = append(out, string(x))
						goto next
					}
				}
			}
		next:
		}
	}
	return out
}

// TestCharts: the per-turn chart is well-formed SVG drawing the very
// numbers of the turn lines (output tokens, context size, cost), each
// panel with a value axis whose ticks say their unit, the turns' numbers
// under them, and a table of the numbers; the tool chart draws the tool
// tally on an axis of calls; the turn lines split the time.
func TestCharts(t *testing.T) {
	s := loadSession(t, "testdata/sessions/turn-timing.jsonl")
	v := sharedBuilder.Session(s, "/home/dev/shop", render.Links{Page: sessionPage(s), Project: link.Project(testProject),
		Agent: func(*session.Session) string { return "" }})
	if v.Charts == nil || v.Charts.Turns == nil || v.Charts.Tools == nil {
		t.Fatal("no charts")
	}
	turns := v.Charts.Turns
	svg := string(turns.SVG)
	var outs, ctxs, rows, costs []string
	for _, tv := range v.Turns {
		outs = append(outs, fmt.Sprintf("Turn %d: %s output tokens", tv.Index, thousands(tv.OutTokens)))
		ctxs = append(ctxs, fmt.Sprintf("Turn %d: %s context tokens after the turn", tv.Index, thousands(tv.Context)))
		// The cost column spells what the turn line says.
		c := tv.Cost
		if c == "" {
			c = "$0.00"
		}
		costs = append(costs, fmt.Sprintf("Turn %d: %s cost (USD)", tv.Index, c))
		rows = append(rows, thousands(tv.OutTokens)+" "+thousands(tv.Context)+" "+c)
	}
	wantCols := []string{"Turn", "Output tokens per turn", "Context size after the turn (tokens)", "Cost per turn (USD)"}
	if !slices.Equal(turns.Cols, wantCols) || v.Cost == "" {
		t.Errorf("columns %q, want %q (session cost %q)", turns.Cols, wantCols, v.Cost)
	}
	if got := svgTitles(t, svg, "rect", "s-cost"); !slices.Equal(got, costs) {
		t.Errorf("cost bars = %q, want %q", got, costs)
	}
	if got := svgTitles(t, svg, "rect", "s-out"); !slices.Equal(got, outs) {
		t.Errorf("output bars = %q, want %q (one a turn)", got, outs)
	}
	if got := svgTitles(t, svg, "circle", "s-ctx"); !slices.Equal(got, ctxs) {
		t.Errorf("context points = %q, want %q", got, ctxs)
	}
	var gotRows []string
	for _, r := range turns.Rows {
		gotRows = append(gotRows, strings.Join(r.Cells, " "))
	}
	if !slices.Equal(gotRows, rows) {
		t.Errorf("table rows = %q, want %q", gotRows, rows)
	}
	// The context size counts the cache writes too: input 10, cache read
	// 1,000, cache write 50.
	if v.Turns[0].OutTokens != 90 || v.Turns[0].Context != 1060 {
		t.Errorf("turn 1 out/context = %d/%d, want 90/1060", v.Turns[0].OutTokens, v.Turns[0].Context)
	}
	// Each panel is titled with its unit and has a value axis from 0 to a
	// round number at or above its peak, the top tick with the unit.
	if got := svgTexts(t, svg, "panel-title"); !slices.Equal(got, wantCols[1:]) {
		t.Errorf("panel titles = %q, want %q", got, wantCols[1:])
	}
	ticks := svgTexts(t, svg, "yaxis")
	if len(ticks) < 3 || slices.Contains(ticks, "0") || !slices.ContainsFunc(ticks, func(s string) bool { return strings.HasSuffix(s, " tokens") }) ||
		!slices.ContainsFunc(ticks, func(s string) bool { return strings.HasPrefix(s, "$0.") }) {
		t.Errorf("value ticks = %q, want … N tokens and dollars (the baseline is 0, unlabelled)", ticks)
	}
	var xs []string
	for _, tv := range v.Turns {
		xs = append(xs, fmt.Sprint(tv.Index))
	}
	xs = append(xs, "Turn")
	if got := svgTexts(t, svg, "xaxis"); !slices.Equal(got, xs) {
		t.Errorf("x axis = %q, want %q", got, xs)
	}
	var tools []string
	sum := 0
	for _, c := range v.Tools {
		tools = append(tools, fmt.Sprintf("%s: %d", c.Name, c.Count))
		sum += c.Count
	}
	tsvg := string(v.Charts.Tools.SVG)
	if got := svgTitles(t, tsvg, "g", "bar"); !slices.Equal(got, tools) || sum != v.Stats.ToolCalls {
		t.Errorf("tool bars = %q, want %q (sum %d, tool calls %d)", got, tools, sum, v.Stats.ToolCalls)
	}
	if got := svgTexts(t, tsvg, "xaxis"); len(got) < 2 || got[0] != "0" || !strings.HasSuffix(got[len(got)-1], " call") && !strings.HasSuffix(got[len(got)-1], " calls") {
		t.Errorf("tool chart axis = %q, want 0 … N calls", got)
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
	svg := string(markup.BarsSVG(`Tools <"&">`, markup.CountUnit("<call>", "<calls>"), []markup.Bar{{Label: bad, Value: 3}, {Label: "Bash", Value: 1}}))
	if strings.Contains(svg, "<script>") || strings.Contains(svg, "<calls>") {
		t.Fatalf("label not escaped: %s", svg)
	}
	if got := svgTitles(t, svg, "g", "bar"); !slices.Equal(got, []string{bad + ": 3", "Bash: 1"}) {
		t.Errorf("titles = %q", got)
	}
	svg = string(markup.ChartSVG(markup.Chart{Label: "<x>", Desc: "<d>", XTitle: "<t>", Points: []string{"<p&>"},
		XTicks: []markup.XTick{{At: 0, Label: "<l>"}},
		Panels: []markup.Panel{{Title: "<panel>", Unit: markup.TokensUnit, Series: []markup.Series{{Name: `"n"`, Class: "s-out", Values: []int64{5}}}}}}))
	if got := svgTitles(t, svg, "rect", ""); !slices.Equal(got, []string{`<p&>: 5 "n"`}) {
		t.Errorf("titles = %q", got)
	}
	if markup.ChartSVG(markup.Chart{}) != "" || markup.BarsSVG("x", markup.USDUnit, nil) != "" {
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

// TestChartCarriesContext: a turn without a model call (a /model command
// between two prompts) keeps the context size of the turn before, marked
// so in the chart and the table, instead of falling to 0; the page shows
// each chart as a figure with an SVG image and its numbers in a table.
func TestChartCarriesContext(t *testing.T) {
	s := loadSession(t, "testdata/sessions/event-model-switch.jsonl")
	page := sessionPage(s)
	v := sharedBuilder.Session(s, "/home/dev/shop", render.Links{Page: page, Project: link.Project(testProject),
		Agent: func(*session.Session) string { return "" }})
	if len(v.Turns) < 2 || v.Turns[0].Context == 0 || v.Turns[1].Context != 0 {
		t.Fatalf("want a turn with a model call, then one without: %+v", v.Turns)
	}
	c := v.Charts.Turns
	first, carried := c.Rows[0].Cells[1], c.Rows[1].Cells[1]
	if carried != first+" (no model call)" {
		t.Errorf("turn 2's context cell = %q, want %q", carried, first+" (no model call)")
	}
	want := fmt.Sprintf("Turn %d: %s context tokens after the turn (no model call: as before)", v.Turns[1].Index, first)
	if got := svgTitles(t, string(c.SVG), "circle", "s-ctx"); len(got) < 2 || got[1] != want {
		t.Errorf("context points = %q, want the second %q", got, want)
	}
	var buf strings.Builder
	if err := templatesForTest(t).Page(&buf, &render.Page{Path: page, Title: s.Title, Kind: "session", Body: v}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{
		`<figure class="chart-fig"><figcaption>Tokens and cost per turn</figcaption><svg class="chart chart-panels" width="100%" height="`,
		`role="img" aria-label="Tokens and cost per turn"><title>Tokens and cost per turn</title>`,
		`<details class="chart-data"><summary>Numbers<span class="sr-only"> of the chart Tokens and cost per turn</span></summary><table><caption class="sr-only">Tokens and cost per turn</caption>`,
		`<th scope="col">Turn</th><th scope="col">Output tokens per turn</th>`,
		`<td>` + carried + `</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page has no %s", want)
		}
	}
}
