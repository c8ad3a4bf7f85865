// Package browsertest drives a real Chromium over a site that ccsite builds
// from the demo archive, a hostile fixture and one of what axe-core
// checks (testdata/a11y): pages opened from file:// and
// over HTTP, the page script (details, copy buttons, anchors, theme, local
// times), hostile transcript text staying text, and phone-wide layout.
//
// The tests skip when no Chromium is found ($CHROME_PATH, else chromium on
// PATH, else /usr/bin/chromium), except under CI=true, where they fail.
// Set CCSITE_SHOTS=DIR to also write full-page screenshots of the demo
// session pages there.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ccsite/build"
	"ccsite/build/link"
)

// Pages of the site the tests know by heart, named through package link so
// they follow its URL scheme.
var (
	notesPage   = link.Session(link.ProjectSlug("/home/demo/notes"), "7e42ecb6-7c13-5256-b29f-8fd0d37313b4")
	pagingPage  = link.Session(link.ProjectSlug("/home/demo/webapp"), "2f17df70-2c36-56b8-95ef-251e65ace575")
	searchPage  = link.Session(link.ProjectSlug("/home/demo/webapp"), "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2")
	hostilePage = link.Session(link.ProjectSlug("/home/test/hostile"), "0badc0de-0000-4000-8000-000000000001")
)

// The pieces of hostile text the fixture puts in prompts, answers, thinking,
// tool inputs and tool outputs.
const (
	hostileScript  = `<script>window.__pwned=1</script>`
	hostileImg     = `<img src=x onerror="window.__pwned=2">`
	hostileLink    = `[x](javascript:window.__pwned=3)`
	hostileDetails = `</details>`
	hostileAll     = hostileScript + " " + hostileImg + " " + hostileLink + " " + hostileDetails
)

// env is what all tests share: one built site, one HTTP server over it and
// one browser.
type env struct {
	site    string          // folder of the built site
	pages   []string        // every page, relative to site, slash-separated
	fileURL string          // file:// URL of the site folder, with a final slash
	httpURL string          // URL of the test server, with a final slash
	browser context.Context // chromedp context whose browser has started
}

// url returns the address of page (relative to the site root) by scheme
// "file" or "http".
func (e *env) url(scheme, page string) string {
	if scheme == "file" {
		return e.fileURL + page
	}
	return e.httpURL + page
}

var (
	setupOnce sync.Once
	shared    *env
	skipWhy   string
	setupErr  error
	teardown  []func() // run in reverse by TestMain
)

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(teardown) - 1; i >= 0; i-- {
		teardown[i]()
	}
	os.Exit(code)
}

// sharedEnv starts the site, the server and the browser on first use.
func sharedEnv(t *testing.T) *env {
	t.Helper()
	setupOnce.Do(func() {
		start := time.Now()
		shared, skipWhy, setupErr = setup()
		if setupErr == nil && skipWhy == "" {
			t.Logf("setup (build, server, browser) took %s", time.Since(start).Round(time.Millisecond))
		}
	})
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return shared
}

// chromePath finds the browser: $CHROME_PATH, else chromium on PATH, else
// Debian's /usr/bin/chromium.
func chromePath() (string, error) {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHROME_PATH=%s: %w", p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		return "", errors.New("no chromium: set CHROME_PATH or install chromium")
	}
	return "/usr/bin/chromium", nil
}

func setup() (e *env, skip string, err error) {
	chrome, err := chromePath()
	if err != nil {
		if os.Getenv("CI") == "true" {
			return nil, "", fmt.Errorf("%w (CI=true: .ci/run installs chromium from apt_packages)", err)
		}
		return nil, err.Error(), nil
	}
	dir, err := os.MkdirTemp("", "ccsite-browsertest-")
	if err != nil {
		return nil, "", err
	}
	teardown = append(teardown, func() { os.RemoveAll(dir) })

	e = &env{site: filepath.Join(dir, "site")}
	demo, err := filepath.Abs(filepath.Join("..", "demo", "projects"))
	if err != nil {
		return nil, "", err
	}
	hostile, err := filepath.Abs(filepath.Join("testdata", "hostile"))
	if err != nil {
		return nil, "", err
	}
	a11y, err := filepath.Abs(filepath.Join("testdata", "a11y"))
	if err != nil {
		return nil, "", err
	}
	if _, err := build.Run(context.Background(), build.Config{Paths: []string{demo, hostile, a11y}, Out: e.site}); err != nil {
		return nil, "", fmt.Errorf("build site: %w", err)
	}
	if e.pages, err = sitePages(e.site); err != nil {
		return nil, "", err
	}
	e.fileURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(e.site) + "/"}).String()

	srv := httptest.NewServer(staticHandler(e.site)) // listens on 127.0.0.1
	teardown = append(teardown, srv.Close)
	e.httpURL = srv.URL + "/"

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chrome),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests may run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1280, 800),
	)
	teardown = append(teardown, cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	teardown = append(teardown, cancelBrowser)
	if err := chromedp.Do(browserCtx); err != nil {
		return nil, "", fmt.Errorf("start %s: %w", chrome, err)
	}
	e.browser = browserCtx
	return e, "", nil
}

// sitePages lists the site's HTML pages, sorted.
func sitePages(site string) ([]string, error) {
	var pages []string
	err := filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, err := filepath.Rel(site, p)
		pages = append(pages, filepath.ToSlash(rel))
		return err
	})
	sort.Strings(pages)
	return pages, err
}

// staticHandler serves the site's files as a static host does: a folder's
// URL serves its index.html, and a page's URL is never redirected (unlike
// http.FileServer, which moves /x/index.html to /x/).
func staticHandler(root string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			p = path.Join(p, "index.html")
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.IsDir() {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, fi.Name(), fi.ModTime(), f)
	})
}
