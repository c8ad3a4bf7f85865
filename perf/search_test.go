package perf

import (
	"ccsite/build"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"ccsite/search"
)

// TestSearchCold runs queries on $CCSITE_PERF_SITE's search page from
// file://, each in a fresh browser (cold cache), and reports the time from
// sending the query to the results shown, and the bytes of index files the
// query loaded (manifest included). The queries are terms from the index at
// spread document frequencies, pairs of them, and prefixes; or
// $CCSITE_PERF_QUERIES (comma-separated).
func TestSearchCold(t *testing.T) {
	site := os.Getenv("CCSITE_PERF_SITE")
	if site == "" {
		t.Skip("CCSITE_PERF_SITE not set")
	}
	var queries []string
	if v := os.Getenv("CCSITE_PERF_QUERIES"); v != "" {
		queries = strings.Split(v, ",")
	} else {
		idx, err := search.Open(build.IndexPath(build.DefaultStateDir(site, os.Getenv)))
		if err != nil {
			t.Fatal(err)
		}
		type term struct {
			t  string
			df uint64
		}
		var terms []term
		idx.Terms(func(s string, df uint64) bool {
			if len(s) >= 4 && !strings.ContainsAny(s, "0123456789_") {
				terms = append(terms, term{s, df})
			}
			return true
		})
		idx.Close()
		sort.SliceStable(terms, func(i, j int) bool { return terms[i].df < terms[j].df })
		at := func(f float64) string { return terms[min(len(terms)-1, int(f*float64(len(terms))))].t }
		for _, f := range []float64{0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999} {
			queries = append(queries, at(f))
		}
		queries = append(queries, at(0.9)+" "+at(0.99), at(0.95)+" "+at(0.999), at(0.8)[:3], at(0.98)[:4])
	}
	type result struct {
		MS     float64  `json:"ms"`
		Total  int      `json:"total"`
		Loaded []string `json:"loaded"`
		Error  string   `json:"error"`
	}
	var times []float64
	var sizes []int64
	for _, q := range queries {
		ctx, done := coldBrowser(t)
		qj, _ := json.Marshal(q)
		err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(site, "search.html")))
		var r result
		if err == nil {
			r, err = chromedp.Run(ctx, chromedp.Evaluate[result](fmt.Sprintf(`new Promise(done => {
				const box = document.getElementById("search");
				document.addEventListener("ccsite:results", e => done({ms: performance.now() - t0,
					total: e.detail.total || 0, error: e.detail.error || "", loaded: ccsiteSearch.loaded.slice()}), {once: true});
				box.value = %s;
				const t0 = performance.now();
				box.form.requestSubmit();
			})`, qj), chromedp.EvalAwaitPromise))
		}
		done()
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var bytes int64
		for _, name := range append(r.Loaded, "index") {
			if st, err := os.Stat(filepath.Join(site, "search", name+".js")); err == nil {
				bytes += st.Size()
			}
		}
		times = append(times, r.MS)
		sizes = append(sizes, bytes)
		t.Logf("%-30q %6d results  %6.1f ms  %4d files  %7.1f KB %s", q, r.Total, r.MS, len(r.Loaded)+1, float64(bytes)/1024, r.Error)
	}
	sort.Float64s(times)
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	t.Logf("%d queries: median %.1f ms, max %.1f ms; median %.1f KB, max %.1f KB loaded",
		len(times), times[len(times)/2], times[len(times)-1], float64(sizes[len(sizes)/2])/1024, float64(sizes[len(sizes)-1])/1024)
}
