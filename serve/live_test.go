package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"ccsite/build"
	"ccsite/serve"
)

// writeFiles writes files (slash paths relative to dir) and returns dir.
func writeFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const page = "<!DOCTYPE html>\n<html><head><title>t</title></head>\n<body><p>hello</p>\n</body>\n</html>\n"

// tinySite is a site's shape without a build: pages, assets, data.
func tinySite(t *testing.T) string {
	return writeFiles(t, t.TempDir(), map[string]string{
		"index.html":          page,
		"p/s.html":            page,
		"p/index.html":        page,
		"assets/app.js":       "document.body; // </body>\n",
		"assets/style.css":    "body{} /* </body> */\n",
		"p/s.json":            `{"text":"</body>"}`,
		"p/s.md":              "</body>\n",
		".ccsite/build.json":  `{"dir":"/x","args":[]}`,
		"search/index.js":     "// </body>\n",
		"media/0123abcd.html": "<p>no body</p>",
	})
}

// liveServer serves dir with live reload on until the test ends (after
// the streams it opened are closed).
func liveServer(t *testing.T, dir string) (*serve.Site, *httptest.Server) {
	t.Helper()
	site, err := serve.Open(dir, build.IndexPath(build.DefaultStateDir(dir, os.Getenv)), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := site.Ready(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(func() {
		site.Close() // ends the streams, which httptest's Close waits for
		srv.Close()
	})
	return site, srv
}

type response struct {
	code int
	body string
	h    http.Header
	n    int64 // Content-Length as sent
}

func do(t *testing.T, method, url string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, string(b), resp.Header, resp.ContentLength}
}

const liveTag = `<script src="/_ccsite/live.js" data-build="0"></script>`

// TestLiveInject checks which responses carry the live script: served
// HTML pages only, whole and with the right length, never the files.
func TestLiveInject(t *testing.T) {
	t.Parallel()
	dir := tinySite(t)
	_, srv := liveServer(t, dir)

	want := strings.Replace(page, "</body>", liveTag+"</body>", 1)
	for _, p := range []string{"/", "/p/s.html", "/p/"} {
		r := do(t, "GET", srv.URL+p)
		if r.code != 200 || r.body != want {
			t.Errorf("GET %s: %d\n%s\nwant the page with the script before </body>:\n%s", p, r.code, r.body, want)
		}
		if r.n != int64(len(r.body)) || r.h.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Errorf("GET %s: Content-Length %q for %d bytes", p, r.h.Get("Content-Length"), len(r.body))
		}
		if !strings.HasPrefix(r.h.Get("Content-Type"), "text/html") || r.h.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: headers %v", p, r.h)
		}
	}
	// HEAD says the length GET sends; a range or a cache check still gets
	// the whole page, with the script.
	if r := do(t, "HEAD", srv.URL+"/p/s.html"); r.code != 200 || r.h.Get("Content-Length") != strconv.Itoa(len(want)) {
		t.Errorf("HEAD: %d, Content-Length %q, want %d", r.code, r.h.Get("Content-Length"), len(want))
	}
	if r := do(t, "GET", srv.URL+"/p/s.html", "Range", "bytes=0-9"); r.code != 200 || r.body != want {
		t.Errorf("GET with Range: %d %q", r.code, r.body)
	}
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	if r := do(t, "GET", srv.URL+"/p/s.html", "If-Modified-Since", future); r.code != 200 || r.body != want {
		t.Errorf("GET with If-Modified-Since: %d %q", r.code, r.body)
	}
	// A page with no </body> gets it at the end.
	if r := do(t, "GET", srv.URL+"/media/0123abcd.html"); r.body != "<p>no body</p>"+liveTag {
		t.Errorf("a page without </body>: %q", r.body)
	}
	// Everything else is served as it is on disk, "</body>" in it or not.
	for _, p := range []string{"assets/app.js", "assets/style.css", "p/s.json", "p/s.md", "search/index.js"} {
		disk, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		r := do(t, "GET", srv.URL+"/"+p)
		if r.code != 200 || r.body != string(disk) || r.n != int64(len(disk)) {
			t.Errorf("GET /%s: %d %q (length %d), want the file as it is", p, r.code, r.body, r.n)
		}
	}
	if r := do(t, "GET", srv.URL+"/p/s.html", "Range", "bytes=0-9"); r.code != 200 {
		t.Errorf("range: %d", r.code)
	}
	for _, p := range []string{"/nothing.html", "/.ccsite/build.json", "/assets/"} {
		if r := do(t, "GET", srv.URL+p); r.code != 404 || strings.Contains(r.body, "_ccsite") {
			t.Errorf("GET %s: %d %q, want a plain 404", p, r.code, r.body)
		}
	}
	r := do(t, "GET", srv.URL+serve.LiveScript)
	if r.code != 200 || !strings.HasPrefix(r.h.Get("Content-Type"), "text/javascript") || !strings.Contains(r.body, "new EventSource(") {
		t.Errorf("GET %s: %d %v", serve.LiveScript, r.code, r.h)
	}
	// The files themselves never change.
	if disk, _ := os.ReadFile(filepath.Join(dir, "p", "s.html")); string(disk) != page {
		t.Errorf("the page on disk was changed: %q", disk)
	}

	// Without live reload, pages are served as they are and the live
	// paths are not there.
	plain := httptest.NewServer(serve.Handler(dir, nil))
	defer plain.Close()
	if r := do(t, "GET", plain.URL+"/p/s.html"); r.body != page {
		t.Errorf("without --watch, a page is served as %q", r.body)
	}
	for _, p := range []string{serve.LiveScript, serve.LivePath} {
		if r := do(t, "GET", plain.URL+p); r.code != 404 {
			t.Errorf("without --watch, GET %s: %d", p, r.code)
		}
	}
}

// event is one server-sent event; a comment-only block has no name.
type event struct{ name, data string }

// stream opens the event stream and returns its events as they come.
func stream(t *testing.T, url string) <-chan event {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c := make(chan event, 10)
	go func() {
		defer close(c)
		sc := bufio.NewScanner(resp.Body)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				c <- ev
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return c
}

// next waits up to d for the next event; ok is false when none came.
func next(c <-chan event, d time.Duration) (ev event, ok bool) {
	select {
	case ev, ok = <-c:
		return ev, ok
	case <-time.After(d):
		return event{}, false
	}
}

// TestLiveEvents checks the event stream: a reload after each successful
// rebuild, none after a failed one, and one at once for a page served
// before the last build.
func TestLiveEvents(t *testing.T) {
	t.Parallel()
	site, srv := liveServer(t, tinySite(t))
	page0 := stream(t, srv.URL+serve.LivePath+"?since=0")
	if ev, ok := next(page0, 5*time.Second); !ok || ev.name != "" {
		t.Fatalf("the stream starts with %+v (%v), want a comment", ev, ok)
	}
	if n, err := site.Rebuild(func() error { return errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "boom") || n != 0 {
		t.Errorf("a failed build: Rebuild says %d, %v", n, err)
	}
	if r := do(t, "GET", srv.URL+"/p/s.html"); !strings.Contains(r.body, `data-build="0"`) {
		t.Errorf("after a failed build, a page is served as %q", r.body)
	}
	if n, err := site.Rebuild(func() error { return nil }); err != nil || n != 1 {
		t.Errorf("a build: Rebuild says %d, %v; want 1 page reloading", n, err)
	}
	// The failed build sent nothing: the first event is the good build's.
	if ev, ok := next(page0, 5*time.Second); !ok || ev != (event{"reload", "1"}) {
		t.Errorf("after a failed build and a good one, the page got %+v (%v), want reload 1", ev, ok)
	}
	if r := do(t, "GET", srv.URL+"/p/s.html"); !strings.Contains(r.body, `data-build="1"`) {
		t.Errorf("after a build, a page is served as %q", r.body)
	}
	// A page served before the build, whose stream opens after it, is
	// told at once; a page of this build is not.
	late := stream(t, srv.URL+serve.LivePath+"?since=0")
	next(late, 5*time.Second)
	if ev, ok := next(late, 5*time.Second); !ok || ev != (event{"reload", "1"}) {
		t.Errorf("a page of build 0 connecting after build 1 got %+v (%v), want reload 1", ev, ok)
	}
	current := stream(t, srv.URL+serve.LivePath+"?since=1")
	next(current, 5*time.Second)
	if ev, ok := next(current, 300*time.Millisecond); ok {
		t.Errorf("a page of the current build got %+v", ev)
	}
}

// TestServeEndsStreams checks that stopping the server ends the pages'
// streams, rather than waiting on them until the shutdown times out.
func TestServeEndsStreams(t *testing.T) {
	t.Parallel()
	site, err := serve.Open(tinySite(t), "", true)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- site.Serve(ctx, "127.0.0.1:0", func(a string) { addr <- a }) }()
	events := stream(t, "http://"+<-addr+serve.LivePath)
	next(events, 5*time.Second)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil || time.Since(start) > 2*time.Second {
			t.Errorf("Serve stopped after %s: %v", time.Since(start), err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
	if _, ok := next(events, 5*time.Second); ok {
		t.Error("the stream did not end")
	}
}

// session writes a one-prompt transcript of its own project.
func session(t *testing.T, dir, id, prompt string) {
	t.Helper()
	rec := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/test/live",
		"sessionId": id, "version": "2.1.20", "type": "user", "message": map[string]any{"role": "user", "content": prompt},
		"uuid": id[:8] + "-0000-4000-8000-000000000001", "timestamp": "2026-01-10T10:00:00.000Z"}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"-home-test-live/" + id + ".jsonl": string(b) + "\n"})
}

// TestRebuildSearch rebuilds a site while it is served: the build can
// write the index (serve has closed it), searches meanwhile are a 503 with
// a message, and afterwards they find what the build added.
func TestRebuildSearch(t *testing.T) {
	t.Parallel()
	in, out := t.TempDir(), t.TempDir()
	session(t, in, "11111111-0000-4000-8000-000000000001", "Count the apples in the basket.")
	cfg := build.Config{Paths: []string{in}, Out: out}
	if _, err := build.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	site, srv := liveServer(t, out)
	total := func(q string) int {
		t.Helper()
		r := do(t, "GET", srv.URL+"/api/search?q="+q)
		var res struct{ Total int }
		if r.code != 200 || json.Unmarshal([]byte(r.body), &res) != nil {
			t.Fatalf("search %s: %d %s", q, r.code, r.body)
		}
		return res.Total
	}
	if total("apples") != 1 || total("zebracorn") != 0 {
		t.Fatal("the first build's index is not searched")
	}
	session(t, in, "22222222-0000-4000-8000-000000000002", "Feed the zebracorn.")
	_, err := site.Rebuild(func() error {
		r := do(t, "GET", srv.URL+"/api/search?q=apples")
		var e struct{ Error string }
		if r.code != 503 || json.Unmarshal([]byte(r.body), &e) != nil || !strings.Contains(e.Error, "rebuilt") {
			t.Errorf("a search during the build: %d %s, want a 503 saying why", r.code, r.body)
		}
		if r := do(t, "GET", srv.URL+"/search/api.js"); !strings.Contains(r.body, "served = true") {
			t.Errorf("during the build, search/api.js says %q", r.body)
		}
		// A build that cannot take the index's lock would wait forever.
		done := make(chan error, 1)
		go func() {
			_, err := build.Run(context.Background(), cfg)
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("the build did not end in 30s (is the index still open?)")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if total("zebracorn") != 1 || total("apples") != 1 {
		t.Error("after the rebuild, searches do not see the new index")
	}
}
