// Package serve serves a built site over HTTP, with /api/search answered by
// the site's bleve index and, when watching, pages that reload themselves
// after each rebuild.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"ccsite/search"
)

// Site is a built site as it is served: its folder, its search index
// (closed and opened again around each Rebuild) and, with live reload on,
// the pages listening for the next build.
type Site struct {
	dir   string
	index string   // the bleve index's folder (in the site's state folder)
	live  *live    // nil without live reload
	allow []string // host names answered besides the loopback ones (AllowHosts)

	mu         sync.RWMutex
	idx        *search.Index // nil while rebuilding, or when the site has no index
	rebuilding bool
	opening    chan struct{} // closed once the index is opened (openIndex)
	openErr    error         // why it could not be
}

// errRebuilding answers searches while the index is closed for a rebuild.
var errRebuilding = errors.New("the site is being rebuilt; search again in a moment")

// errMaking answers searches while the bleve index is made (the first
// search after a build makes it: search.Sync).
var errMaking = errors.New("the search index is being made; search again in a moment")

// Open opens the built site in dir and its search index (the bleve index
// in folder index, kept in the site's state folder), if it has one: a site
// copied without its state is served with its static search.
// With live, served pages get a script that reloads them after each
// successful Rebuild (the files on disk never do).
func Open(dir, index string, live bool) (*Site, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, errors.New(dir + " is not a built site (run ccsite build first)")
	}
	s := &Site{dir: dir, index: index, opening: make(chan struct{})}
	if live {
		s.live = newLive()
	}
	// The bleve index is made of the last build's documents, or brought
	// up to them, while the pages are served (at 1 GB of transcripts,
	// making it takes a quarter of a minute): /api/search answers 503
	// until then.
	go s.openIndex()
	return s, nil
}

// openIndex opens the index (search.Open) and lets searches use it.
func (s *Site) openIndex() {
	idx, err := search.Open(s.index)
	if errors.Is(err, search.ErrNoIndex) {
		err = nil
	}
	s.mu.Lock()
	s.idx, s.openErr = idx, err
	s.mu.Unlock()
	close(s.opening)
}

// Ready waits until the index is open (or found missing) and says why
// it could not be opened, if it could not.
func (s *Site) Ready() error {
	s.wait()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.openErr
}

// Close ends the pages' event streams and closes the search index.
func (s *Site) Close() error {
	if s.live != nil {
		s.live.stop()
	}
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idx == nil {
		return nil
	}
	err := s.idx.Close()
	s.idx = nil
	return err
}

// Rebuild runs build, which writes the site again, with the search index
// closed: the build writes the index folder, which bleve locks. Pages are
// served meanwhile; /api/search answers 503. When build succeeds, every
// open page is told to reload; reloaded is how many were.
func (s *Site) Rebuild(build func() error) (reloaded int, err error) {
	s.wait()
	s.mu.Lock() // waits for the searches under way
	if s.idx != nil {
		_ = s.idx.Close() // opened read-only: nothing to lose
		s.idx = nil
	}
	s.rebuilding = true
	s.mu.Unlock()
	err = build()
	idx, oerr := search.Open(s.index)
	if errors.Is(oerr, search.ErrNoIndex) {
		oerr = nil
	}
	s.mu.Lock()
	s.idx, s.rebuilding, s.openErr = idx, false, oerr
	s.mu.Unlock()
	if err = errors.Join(err, oerr); err != nil || s.live == nil {
		return 0, err
	}
	return s.live.reload(), nil
}

// searchable reports whether the site has a search index (or will have
// one again once the rebuild under way ends). While the index is being
// made it has none yet: pages loaded meanwhile search the static index,
// with no request failing.
func (s *Site) searchable() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx != nil || s.rebuilding
}

// wait waits until the index is open (a Site of Handler never opens one).
func (s *Site) wait() {
	if s.opening != nil {
		<-s.opening
	}
}

// making tells whether the index is still being opened (s.mu held).
func (s *Site) making() bool {
	if s.opening == nil {
		return false
	}
	select {
	case <-s.opening:
		return false
	default:
		return true
	}
}

// search runs q on the index, holding it open until the search ends.
func (s *Site) search(ctx context.Context, q search.Query) (search.Results, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch {
	case s.idx != nil:
		return s.idx.Search(ctx, q)
	case s.rebuilding:
		return search.Results{}, errRebuilding
	case s.making():
		return search.Results{}, errMaking
	case s.openErr != nil:
		return search.Results{}, s.openErr
	}
	return search.Results{}, search.ErrNoIndex
}

// Handler serves the site in dir and /api/search. idx may be nil (a site
// built without an index): the API then answers 503. The caller keeps
// idx and closes it.
func Handler(dir string, idx *search.Index) http.Handler {
	return (&Site{dir: dir, idx: idx}).Handler()
}

// AllowHosts adds names (host names, a port or a trailing dot ignored)
// to those requests may call the server by (their Host header); see
// Handler. Call it before Handler or Serve.
func (s *Site) AllowHosts(names ...string) error {
	for _, n := range names {
		if hostName(n) == "" {
			return fmt.Errorf("%q is not a host name", n)
		}
	}
	s.allow = append(s.allow, names...)
	return nil
}

// Handler serves the site's files, /api/search and, with live reload on,
// the pages' event stream and script, to requests for localhost, a
// loopback address or a name given to AllowHosts; the others (a page of
// another site whose name now points at this machine: DNS rebinding) are
// answered 421 Misdirected Request.
func (s *Site) Handler() http.Handler { return s.handler("") }

// handler is Handler for a server listening on addr, whose host is
// answered too ("" for none; a wildcard address: any IP address).
func (s *Site) handler(addr string) http.Handler {
	limitClauses()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/search", s.apiSearch)
	fileServer := http.FileServer(noDirs{http.Dir(s.dir)})
	var files http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The search database and the build's records are not the site's.
		clean := path.Clean("/" + r.URL.Path)
		if strings.HasPrefix(clean, "/.ccsite") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fileServer.ServeHTTP(w, r)
	})
	if s.live != nil {
		mux.HandleFunc("GET "+LivePath, s.live.serveEvents)
		mux.HandleFunc("GET "+LiveScript, serveLiveScript)
		files = s.live.inject(files)
	}
	mux.HandleFunc("GET /"+search.APIPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store") // its answer changes (searchable)
		if !s.searchable() {
			files.ServeHTTP(w, r) // the build's copy, which says no API answers
			return
		}
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write([]byte(search.APIScript()))
	})
	mux.Handle("GET /", files)
	return newHostCheck(addr, s.allow).wrap(mux)
}

// noDirs hides folder listings: a folder without index.html is not found.
type noDirs struct{ fs http.FileSystem }

func (n noDirs) Open(name string) (http.File, error) {
	f, err := n.fs.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		idx, err := n.fs.Open(strings.TrimSuffix(name, "/") + "/index.html")
		if err != nil {
			f.Close()
			return nil, os.ErrNotExist
		}
		idx.Close()
	}
	return f, nil
}

// maxQuery is the most bytes of a query's text, or of a filter.
const maxQuery = 1000

// apiError is the JSON body of a failed request.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiSearch answers GET /api/search?q=…&project=…&session=…&tool=…&role=…&n=…
// &prefix=1 with search.Results as JSON; a bad query is a 400 with a
// message, never a crash; no index (none built, or one being rebuilt) a
// 503.
func (s *Site) apiSearch(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := search.Query{Text: v.Get("q"), Project: v.Get("project"), Tool: v.Get("tool"), Role: v.Get("role"),
		Model: v.Get("model"), Agent: v.Get("agent"), Session: v.Get("session"), Prefix: v.Get("prefix") == "1", Size: 20}
	if n := v.Get("n"); n != "" {
		size, err := strconv.Atoi(n)
		if err != nil || size < 1 || size > 200 {
			writeJSON(w, http.StatusBadRequest, apiError{"n must be a number from 1 to 200"})
			return
		}
		q.Size = size
	}
	if len(q.Text) > maxQuery {
		writeJSON(w, http.StatusBadRequest, apiError{fmt.Sprintf("query longer than %d characters", maxQuery)})
		return
	}
	for _, f := range []string{q.Project, q.Tool, q.Role, q.Model, q.Session} {
		if len(f) > maxQuery {
			writeJSON(w, http.StatusBadRequest, apiError{fmt.Sprintf("a filter longer than %d characters", maxQuery)})
			return
		}
	}
	// The search ends with its request: a client that leaves stops it.
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	res, err := s.boundedSearch(ctx, q)
	if r.Context().Err() != nil {
		return // the client has gone: nobody reads an answer
	}
	switch {
	case errors.Is(err, search.ErrNoIndex):
		writeJSON(w, http.StatusServiceUnavailable, apiError{"this site has no search index; build it with ccsite build"})
	case errors.Is(err, errRebuilding), errors.Is(err, errMaking):
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, apiError{err.Error()})
	case errors.Is(err, errBusy):
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, apiError{errBusy.Error()})
	case search.IsUsage(err): // no words, or a filter it cannot have
		writeJSON(w, http.StatusBadRequest, apiError{err.Error()})
	case isTooManyClauses(err):
		writeJSON(w, http.StatusBadRequest, apiError{fmt.Sprintf("the query matches more than %d words of one field; make it narrower", maxClauses)})
	case errors.Is(err, context.DeadlineExceeded):
		writeJSON(w, http.StatusServiceUnavailable, apiError{"the search took too long; make it narrower"})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, apiError{err.Error()})
	default:
		if res.Hits == nil {
			res.Hits = []search.Hit{}
		}
		writeJSON(w, http.StatusOK, res)
	}
}

// errBusy answers a search that waited its whole time for a slot.
var errBusy = errors.New("too many searches at once; search again in a moment")

// boundedSearch is search, run in one of the searchSlots, and with the
// last word as a prefix searched as the word itself when it expands to
// too many words (maxClauses).
func (s *Site) boundedSearch(ctx context.Context, q search.Query) (search.Results, error) {
	if err := acquire(ctx); err != nil {
		return search.Results{}, errors.Join(errBusy, err)
	}
	defer release()
	res, err := s.search(ctx, q)
	if isTooManyClauses(err) && q.Prefix && ctx.Err() == nil {
		// Typing more of the word narrows it down again.
		q.Prefix = false
		res, err = s.search(ctx, q)
	}
	return res, err
}

// Run serves dir on addr until ctx ends, to requests for the host of
// addr, a loopback name or address, or one of allow (see Handler). ready,
// when set, receives the address actually listened on (useful with port
// 0).
func Run(ctx context.Context, dir, index, addr string, allow []string, ready func(addr string)) error {
	s, err := Open(dir, index, false)
	if err != nil {
		return err
	}
	if err := s.AllowHosts(allow...); err != nil {
		return errors.Join(err, s.Close())
	}
	go func() {
		if err := s.Ready(); err != nil {
			fmt.Fprintf(os.Stderr, "ccsite serve: search index: %v (/api/search answers 500; the pages are served)\n", err)
		}
	}()
	err = s.Serve(ctx, addr, ready)
	return errors.Join(err, s.Close())
}

// Serve serves the site on addr until ctx ends; see Run. Open event
// streams end when it stops.
func (s *Site) Serve(ctx context.Context, addr string, ready func(addr string)) error {
	srv := &http.Server{Addr: addr, Handler: s.handler(addr), ReadHeaderTimeout: 10 * time.Second}
	if s.live != nil {
		// Shutdown waits for idle connections; a page's stream never is.
		srv.RegisterOnShutdown(s.live.stop)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		// A second for requests in flight. Shutdown also waits for
		// connections a browser opened ahead and sent nothing on yet
		// (up to 5s): those are closed, not waited for.
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			return srv.Close()
		}
		return err
	case err := <-errc:
		return err
	}
}
