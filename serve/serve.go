// Package serve serves a built site over HTTP, with /api/search answered by
// the site's bleve index.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"ccsite/search"
)

// Handler serves the site in dir and /api/search. idx may be nil (a site
// built without an index): the API then answers 503.
func Handler(dir string, idx *search.Index) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/search", func(w http.ResponseWriter, r *http.Request) { apiSearch(w, r, idx) })
	if idx != nil {
		mux.HandleFunc("GET /"+search.APIPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			_, _ = w.Write([]byte(search.APIScript()))
		})
	}
	files := http.FileServer(noDirs{http.Dir(dir)})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		// The search database and the build's marker are not the site's.
		clean := path.Clean("/" + r.URL.Path)
		if strings.HasPrefix(clean, "/.ccsite") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
	return mux
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

// apiSearch answers GET /api/search?q=…&project=…&tool=…&role=…&n=…
// &prefix=1 with search.Results as JSON; a bad query is a 400 with a
// message, never a crash.
func apiSearch(w http.ResponseWriter, r *http.Request, idx *search.Index) {
	if idx == nil {
		writeJSON(w, http.StatusServiceUnavailable, apiError{"this site has no search index; build it with ccsite build"})
		return
	}
	v := r.URL.Query()
	q := search.Query{Text: v.Get("q"), Project: v.Get("project"), Tool: v.Get("tool"), Role: v.Get("role"),
		Model: v.Get("model"), Prefix: v.Get("prefix") == "1", Size: 20}
	if n := v.Get("n"); n != "" {
		size, err := strconv.Atoi(n)
		if err != nil || size < 1 || size > 200 {
			writeJSON(w, http.StatusBadRequest, apiError{"n must be a number from 1 to 200"})
			return
		}
		q.Size = size
	}
	if len(q.Text) > 1000 {
		writeJSON(w, http.StatusBadRequest, apiError{"query longer than 1000 characters"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	res, err := idx.Search(ctx, q)
	switch {
	case errors.Is(err, search.ErrEmpty):
		writeJSON(w, http.StatusBadRequest, apiError{err.Error()})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, apiError{err.Error()})
	default:
		if res.Hits == nil {
			res.Hits = []search.Hit{}
		}
		writeJSON(w, http.StatusOK, res)
	}
}

// Run serves dir on addr until ctx ends. ready, when set, receives the
// address actually listened on (useful with port 0).
func Run(ctx context.Context, dir, addr string, ready func(addr string)) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return errors.New(dir + " is not a built site (run ccsite build first)")
	}
	idx, err := search.Open(dir)
	if err != nil && !errors.Is(err, search.ErrNoIndex) {
		return err
	}
	if idx != nil {
		defer idx.Close()
	}
	srv := &http.Server{Addr: addr, Handler: Handler(dir, idx), ReadHeaderTimeout: 10 * time.Second}
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
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		return err
	}
}
