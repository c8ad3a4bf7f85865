// Package perf measures built pages in headless Chromium: bytes, text and
// time to first paint. It runs only when CCSITE_PERF_SITE names a site.
package perf

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestLargestPages loads the largest session pages of $CCSITE_PERF_SITE
// ($CCSITE_PERF_N of them, default 3) from file:// with a cold cache and
// reports page bytes, text length (all text, and text shown without opening
// anything), the ratio of bytes to text, DOM elements, first contentful
// paint and load time; in each view of $CCSITE_PERF_VIEWS (comma-separated,
// e.g. "conversation,full"; default the page as it opens).
func TestLargestPages(t *testing.T) {
	site := os.Getenv("CCSITE_PERF_SITE")
	if site == "" {
		t.Skip("CCSITE_PERF_SITE not set")
	}
	n := 3
	if v, err := strconv.Atoi(os.Getenv("CCSITE_PERF_N")); err == nil && v > 0 {
		n = v
	}
	type page struct {
		path string
		size int64
	}
	var pages []page
	filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".html" && filepath.Base(p) != "index.html" {
			if info, err := d.Info(); err == nil {
				pages = append(pages, page{p, info.Size()})
			}
		}
		return nil
	})
	sort.Slice(pages, func(i, j int) bool { return pages[i].size > pages[j].size })
	// CCSITE_PERF_PAGES picks pages by name instead (comma-separated
	// substrings of their paths), e.g. the pages of the largest sources.
	if want := os.Getenv("CCSITE_PERF_PAGES"); want != "" {
		var picked []page
		for _, w := range strings.Split(want, ",") {
			for _, p := range pages {
				if strings.Contains(p.path, w) {
					picked = append(picked, p)
					break
				}
			}
		}
		pages, n = picked, len(picked)
	}
	if len(pages) > n {
		pages = pages[:n]
	}
	views := []string{""}
	if v := os.Getenv("CCSITE_PERF_VIEWS"); v != "" {
		views = strings.Split(v, ",")
	}
	for _, p := range pages {
		for _, view := range views {
			measure(t, p.path, p.size, view)
		}
	}
}

// measure loads one page in one view in a cold browser and logs its numbers.
func measure(t *testing.T, path string, size int64, view string) {
	{
		p := struct {
			path string
			size int64
		}{path, size}
		url := "file://" + p.path
		if view != "" {
			url += "?view=" + view
		}
		ctx, done := coldBrowser(t)
		start := time.Now()
		var fcp, load float64
		var all, shown, nodes int
		err := chromedp.Do(ctx, chromedp.Navigate(url))
		if err == nil {
			fcp, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`(performance.getEntriesByName('first-contentful-paint')[0]||{}).startTime||-1`))
		}
		if err == nil {
			load, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType('navigation')[0].loadEventEnd`))
		}
		if err == nil {
			all, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.body.textContent.length`))
		}
		if err == nil {
			shown, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.body.innerText.length`))
		}
		if err == nil {
			nodes, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementsByTagName("*").length`))
		}
		wall := time.Since(start)
		done()
		if err != nil {
			t.Errorf("%s: %v", url, err)
			return
		}
		t.Logf("%s\n\tbytes %.2f MB, text %.2f MB (shown without opening anything %.2f MB), bytes/text %.2f; %d DOM elements; first contentful paint %.0f ms, load %.0f ms, wall %s",
			url, mb(p.size), mb(int64(all)), mb(int64(shown)), float64(p.size)/float64(max(all, 1)), nodes, fcp, load, wall.Round(time.Millisecond))
	}
}

// coldBrowser starts a Chromium ($CHROME_PATH, else /usr/bin/chromium)
// with a new empty profile, so nothing is cached; done stops it.
func coldBrowser(t *testing.T) (ctx context.Context, done func()) {
	exec := os.Getenv("CHROME_PATH")
	if exec == "" {
		exec = "/usr/bin/chromium"
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exec), chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancel2 := chromedp.NewContext(actx)
	ctx, cancel3 := context.WithTimeout(bctx, 60*time.Second)
	return ctx, func() { cancel3(); cancel2(); cancel() }
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
