package build

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCostCharts: the index and the project pages show cost (the table's
// column, the totals) and draw it per day and by model; the charts' sums
// agree with the totals they sit beside.
func TestCostCharts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{"../demo/projects"}, Out: out}); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(index)
	total := regexp.MustCompile(`<dt>Cost</dt><dd>(?:≥ )?\$([0-9.]+)`).FindStringSubmatch(page)
	if total == nil {
		t.Fatalf("no archive cost on the index")
	}
	want, _ := strconv.ParseFloat(total[1], 64)
	sum := func(chart string) float64 {
		var s float64
		for _, m := range regexp.MustCompile(`<title>[^<]*?: \$([0-9.]+)[^<]*</title>`).FindAllStringSubmatch(chart, -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			s += v
		}
		return s
	}
	charts := regexp.MustCompile(`(?s)<figcaption>Cost per day</figcaption>(.*?)</figure>.*?<figcaption>Cost by model</figcaption>(.*?)</figure>`).FindStringSubmatch(page)
	if charts == nil {
		t.Fatalf("no cost charts on the index")
	}
	for i, name := range []string{"per day", "by model"} {
		// Each value is rounded to cents: the sum is within a cent a bar.
		bars := strings.Count(charts[i+1], "<title>") - 1
		if got := sum(charts[i+1]); got < want-0.01*float64(bars)-0.001 || got > want+0.01*float64(bars)+0.001 {
			t.Errorf("cost %s sums to %.2f, the index says %.2f", name, got, want)
		}
	}
	if !strings.Contains(page, `<th scope="col" data-sort="num" class="num">Cost</th>`) {
		t.Error("the projects table has no cost column")
	}
}
