package serve

import (
	"bytes"
	_ "embed"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// LivePath is the event stream served pages listen on when live reload is
// on, and LiveScript the script that listens. No page of a site starts
// with "_" (project slugs are [a-z0-9-]), so neither can hide one.
const (
	LivePath   = "/_ccsite/live"
	LiveScript = "/_ccsite/live.js"
)

// liveJS is LiveScript's content: an external file rather than inline
// script, so a theme's Content-Security-Policy with script-src 'self'
// still lets it run.
//
//go:embed live.js
var liveJS []byte

// live tells the pages served since a build that the next one is done.
type live struct {
	mu      sync.Mutex
	build   int                   // successful rebuilds so far
	clients map[chan int]struct{} // one per open event stream
	done    chan struct{}         // closed by stop
	once    sync.Once
}

func newLive() *live {
	return &live{clients: map[chan int]struct{}{}, done: make(chan struct{})}
}

// reload counts a build and sends a reload to every open page; it returns
// how many there were.
func (l *live) reload() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.build++
	for c := range l.clients {
		select {
		case c <- l.build:
		default: // a reload is already on its way to that page
		}
	}
	return len(l.clients)
}

// stop ends every event stream, now and to come.
func (l *live) stop() { l.once.Do(func() { close(l.done) }) }

func (l *live) current() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.build
}

// serveEvents is the event stream of one page (text/event-stream): an
// event "reload" after each successful build. A page whose ?since= (the
// build it was served at) is older than the current build is told at once,
// so a build that ends while the page loads is not missed.
func (l *live) serveEvents(w http.ResponseWriter, r *http.Request) {
	c := make(chan int, 1)
	l.mu.Lock()
	l.clients[c] = struct{}{}
	if since := r.URL.Query().Get("since"); since != "" && since != strconv.Itoa(l.build) {
		c <- l.build
	}
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.clients, c)
		l.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	rc := http.NewResponseController(w)
	// A comment sends the headers, so the page's EventSource opens now.
	if _, err := fmt.Fprint(w, ": ccsite serve --watch\nretry: 1000\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	for {
		select {
		case n := <-c:
			if _, err := fmt.Fprintf(w, "event: reload\ndata: %d\n\n", n); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-l.done:
			return
		}
	}
}

func serveLiveScript(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(liveJS)
}

// inject serves next, with the live script added to each HTML page just
// before </body>. A page is served whole: ranges and conditional requests
// are answered with the full page, so no cached copy without the script
// (or with an old build number) is reused.
func (l *live) inject(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isPagePath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		// Pages are small, so one is read whole into memory, as GET even
		// for HEAD (whose body the server then drops), to count its length.
		req := r.Clone(r.Context())
		req.Method = http.MethodGet
		for _, k := range []string{"Range", "If-Range", "If-Modified-Since", "If-None-Match", "If-Match", "If-Unmodified-Since"} {
			req.Header.Del(k)
		}
		// The build number is read before the page: a build that ends
		// after it makes the page reload at once, whichever copy it read.
		build := l.current()
		buf := &pageBuffer{header: w.Header()}
		next.ServeHTTP(buf, req)
		body := buf.body.Bytes()
		h := w.Header()
		if buf.code == http.StatusOK && strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			tag := fmt.Sprintf(`<script src="%s" data-build="%d"></script>`, LiveScript, build)
			body = insertBefore(body, "</body>", tag)
			h.Set("Content-Length", strconv.Itoa(len(body)))
			h.Set("Cache-Control", "no-cache")
			h.Del("Last-Modified")
			h.Del("ETag")
			h.Del("Accept-Ranges")
		}
		if buf.code == 0 {
			buf.code = http.StatusOK
		}
		w.WriteHeader(buf.code)
		_, _ = w.Write(body)
	})
}

// isPagePath reports whether a URL path names an HTML page: a folder
// (served as its index.html) or an .html file.
func isPagePath(p string) bool {
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm")
}

// insertBefore puts s before the last occurrence of mark in page, or at the
// end when there is none.
func insertBefore(page []byte, mark, s string) []byte {
	i := bytes.LastIndex(page, []byte(mark))
	if i < 0 {
		i = len(page)
	}
	out := make([]byte, 0, len(page)+len(s))
	out = append(out, page[:i]...)
	out = append(out, s...)
	return append(out, page[i:]...)
}

// pageBuffer holds a response until it can be rewritten. Headers go
// straight to the real writer's map; only the status and body wait.
type pageBuffer struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *pageBuffer) Header() http.Header { return b.header }

func (b *pageBuffer) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *pageBuffer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}
