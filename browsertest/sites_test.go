package browsertest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"ccsite/build"
)

// site is a site built for some tests beside the shared one (another
// theme, another archive), with its own test server.
type site struct {
	dir     string   // folder of the built site
	pages   []string // every page, relative to dir, slash-separated, sorted
	fileURL string   // file:// URL of dir, with a final slash
	httpURL string   // URL of its test server, with a final slash
}

// url returns the address of page by scheme "file" or "http".
func (s *site) url(scheme, page string) string {
	if scheme == "file" {
		return s.fileURL + page
	}
	return s.httpURL + page
}

// openIn lets tb load the site without a complaint about requests off the
// shared site.
func (s *site) openIn(tb *tab) { tb.allow(s.fileURL, s.httpURL) }

// builtSite is one extra site, built on first use.
type builtSite struct {
	once sync.Once
	s    *site
	err  error
}

var (
	sitesMu    sync.Mutex
	sites      = map[string]*builtSite{}
	teardownMu sync.Mutex // guards teardown after setup (which runs before any extra site)
)

// demoPaths is the demo archive (as the site sees it, absolute).
func demoPaths() ([]string, error) {
	demo, err := filepath.Abs(filepath.Join("..", "demo", "projects"))
	return []string{demo}, err
}

// extraSite builds the site called name from cfg (its Out is set here)
// once for the whole test binary, and serves it.
func extraSite(t *testing.T, name string, cfg build.Config) *site {
	t.Helper()
	sharedEnv(t) // skips or fails as the other tests do; the browser starts
	sitesMu.Lock()
	b := sites[name]
	if b == nil {
		b = &builtSite{}
		sites[name] = b
	}
	sitesMu.Unlock()
	b.once.Do(func() { b.s, b.err = buildExtra(name, cfg) })
	if b.err != nil {
		t.Fatalf("build the %s site: %v", name, b.err)
	}
	return b.s
}

func buildExtra(name string, cfg build.Config) (*site, error) {
	dir, err := os.MkdirTemp("", "ccsite-browsertest-"+name+"-")
	if err != nil {
		return nil, err
	}
	teardownMu.Lock()
	teardown = append(teardown, func() { os.RemoveAll(dir) })
	teardownMu.Unlock()
	s := &site{dir: filepath.Join(dir, "site")}
	cfg.Out = s.dir
	if _, err := build.Run(context.Background(), cfg); err != nil {
		return nil, fmt.Errorf("build %s: %w", name, err)
	}
	if s.pages, err = sitePages(s.dir); err != nil {
		return nil, err
	}
	s.fileURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.dir) + "/"}).String()
	srv := httptest.NewServer(staticHandler(s.dir))
	teardownMu.Lock()
	teardown = append(teardown, srv.Close)
	teardownMu.Unlock()
	s.httpURL = srv.URL + "/"
	return s, nil
}

// demoSite is the demo archive alone, as ccsite build makes it when there
// are no transcripts (its pages say it is the demo), in the default theme
// or a built-in one.
func demoSite(t *testing.T, theme string) *site {
	t.Helper()
	paths, err := demoPaths()
	if err != nil {
		t.Fatal(err)
	}
	name := theme
	if name == "" {
		name = "default"
	}
	return extraSite(t, "demo-"+name, build.Config{Paths: paths, Theme: theme, Demo: true})
}
