package browsertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"ccsite/build/markup"
)

// chartsState is what a page's charts show: per chart, its name and the
// problems of its visible labels.
type chartsState struct {
	Charts   int      `json:"charts"`
	Problems []string `json:"problems"`
}

// chartsJS reads every svg.chart: an image with a name and a title, with
// value and x labels, whose visible labels are at least 11 px, inside the
// picture and apart from each other.
const chartsJS = `(() => {
	const problems = [];
	const svgs = [...document.querySelectorAll("svg.chart")];
	for (const svg of svgs) {
		const name = svg.getAttribute("aria-label") || "";
		const box = svg.getBoundingClientRect();
		if (svg.getAttribute("role") !== "img" || !name || !svg.querySelector(":scope > title")) {
			problems.push(name + ": not an image with a name and a title");
		}
		if (box.width === 0) continue; // in a closed part of the page
		const texts = [...svg.querySelectorAll("text")].filter(t => getComputedStyle(t).display !== "none" && t.getBBox().width > 0);
		if (!texts.some(t => t.closest(".xaxis")) || !(texts.some(t => t.closest(".yaxis")) || svg.classList.contains("chart-bars"))) {
			problems.push(name + ": no axis labels");
		}
		const rects = texts.map(t => ({t: t.textContent, r: t.getBoundingClientRect(), size: parseFloat(getComputedStyle(t).fontSize)}));
		for (const a of rects) {
			if (a.size < 11) problems.push(name + ": label " + a.t + " is " + a.size + " px");
			if (a.r.left < box.left - 1 || a.r.right > box.right + 1) problems.push(name + ": label " + a.t + " sticks out of the picture");
		}
		for (let i = 0; i < rects.length; i++) {
			for (let j = i + 1; j < rects.length; j++) {
				const a = rects[i].r, b = rects[j].r;
				const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
				if (w > 1 && h > 1) problems.push(name + ": labels " + JSON.stringify(rects[i].t) + " and " + JSON.stringify(rects[j].t) + " overlap");
			}
		}
	}
	return {charts: svgs.length, problems};
})()`

// TestChartLabels reads the charts of every page of the demo site (the
// per-turn and tool charts of sessions, sessions and cost per day and
// cost by model of projects and the index) at 1280 and 375 px: each is an
// image with a name, has axis labels, and its visible labels are legible,
// inside the picture and apart (the x labels a narrow figure shows are
// fewer).
func TestChartLabels(t *testing.T) {
	e := sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	seen := 0
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		for _, page := range e.pages {
			if !strings.HasSuffix(page, ".html") || strings.HasPrefix(page, "search") {
				continue
			}
			tb.page("file", page)
			st := eval[chartsState](tb, chartsJS)
			seen += st.Charts
			for _, p := range st.Problems {
				t.Errorf("%s at %d px: %s", page, width, p)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no chart on any page")
	}
	// Crowded axes the demo lacks: 400 turns, and a year of days from
	// mid-June, put on the index at both widths.
	page := crowdedCharts()
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		tb.page("file", "index.html")
		eval[int](tb, `(document.querySelector("main").insertAdjacentHTML("afterbegin", `+page+`), 0)`)
		st := eval[chartsState](tb, chartsJS)
		for _, p := range st.Problems {
			t.Errorf("crowded charts at %d px: %s", width, p)
		}
	}
	tb.assertClean(fmt.Sprintf("%d charts", seen))
}

// crowdedCharts is a JavaScript string of two figures: a chart of 400
// turns in the session header's column, and one of 369 days in a cost
// chart's.
func crowdedCharts() string {
	turns := markup.Chart{Label: "crowded turns", XTitle: "Turn"}
	out := markup.Series{Name: "output tokens", Class: "s-out"}
	var numbers []int
	for i := 1; i <= 400; i++ {
		numbers = append(numbers, i)
		turns.Points = append(turns.Points, fmt.Sprint(i))
		out.Values = append(out.Values, int64(i*7919%3000))
	}
	turns.XTicks = markup.NumberTicks(numbers)
	turns.Panels = []markup.Panel{{Title: "Output tokens per turn", Unit: markup.TokensUnit, Series: []markup.Series{out}}}
	first := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	days := markup.Chart{Label: "crowded days", XTitle: "Day (UTC)"}
	cost := markup.Series{Name: "cost (USD)", Class: "s-cost", Sparse: true}
	for i := 0; i < 369; i++ {
		days.Points = append(days.Points, first.AddDate(0, 0, i).Format(markup.DayFormat))
		cost.Values = append(cost.Values, int64(i*104729%40)*1_000_000)
	}
	days.XTicks = markup.DayTicks(first, 369)
	days.Panels = []markup.Panel{{Title: "Cost (USD)", Unit: markup.USDUnit, Series: []markup.Series{cost}, Height: 100}}
	html := `<div class="charts"><figure class="chart-fig">` + string(markup.ChartSVG(turns)) + `</figure></div>` +
		`<div class="cost-charts"><figure class="chart-fig">` + string(markup.ChartSVG(days)) + `</figure><figure class="chart-fig"></figure></div>`
	js, _ := json.Marshal(html)
	return string(js)
}
