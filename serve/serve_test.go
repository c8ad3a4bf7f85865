package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"ccsite/build"
	"ccsite/search"
	"ccsite/serve"
)

func TestServe(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if _, err := build.Run(context.Background(), build.Config{Paths: []string{"../demo/projects"}, Out: out}); err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(out, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	srv := httptest.NewServer(serve.Handler(out, idx))
	defer srv.Close()
	get := func(path string) (int, string, http.Header) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	if code, body, _ := get("/"); code != 200 || !strings.Contains(body, "Claude Code sessions") {
		t.Errorf("/: %d", code)
	}
	if code, body, _ := get("/home-demo-webapp/"); code != 200 || !strings.Contains(body, "<h1>webapp</h1>") {
		t.Errorf("/home-demo-webapp/: %d", code)
	}
	if code, _, _ := get("/.ccsite/bleve/index_meta.json"); code != 404 {
		t.Errorf("the search database is served: %d", code)
	}
	if code, _, _ := get("/media/"); code != 404 {
		t.Errorf("a folder is listed: %d", code)
	}
	code, body, h := get("/api/search?q=accents")
	var res search.Results
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal([]byte(body), &res) != nil {
		t.Fatalf("/api/search?q=accents: %d %s", code, body)
	}
	if res.Total != 4 || !strings.Contains(res.Hits[0].Page, "8f6c56cd") {
		t.Errorf("accents: %+v", res)
	}
	// Scopes: a session (its sub-agents too) and a project.
	sess := res.Hits[0].Session
	code, body, _ = get("/api/search?q=the&n=200&session=" + sess)
	var scoped search.Results
	if code != 200 || json.Unmarshal([]byte(body), &scoped) != nil || scoped.Total == 0 {
		t.Fatalf("session scope: %d %s", code, body)
	}
	for _, h := range scoped.Hits {
		if h.Session != sess {
			t.Errorf("session=%s: a hit of %s", sess, h.Session)
		}
	}
	code, body, _ = get("/api/search?q=the&n=200&project=" + res.Hits[0].Project)
	scoped = search.Results{}
	if code != 200 || json.Unmarshal([]byte(body), &scoped) != nil || scoped.Total == 0 {
		t.Fatalf("project scope: %d %s", code, body)
	}
	for _, h := range scoped.Hits {
		if h.Project != res.Hits[0].Project {
			t.Errorf("project=%s: a hit of %s", res.Hits[0].Project, h.Project)
		}
	}
	code, body, _ = get("/api/search?q=pagepa&prefix=1&tool=MultiEdit")
	if code != 200 || !strings.Contains(body, "MultiEdit") {
		t.Errorf("prefix and tool filter: %d %s", code, body)
	}
	for _, bad := range []string{"/api/search?q=", "/api/search?q=%22%22", "/api/search?q=x&n=0", "/api/search?q=x&n=abc", "/api/search?q=x+role:bogus", "/api/search?q=x+after:notadate"} {
		code, body, _ := get(bad)
		var e struct{ Error string }
		if code != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
			t.Errorf("%s: %d %s, want 400 with a message", bad, code, body)
		}
	}
	code, body, _ = get("/api/search?q=" + strings.Repeat("a", 1200))
	if code != 400 {
		t.Errorf("an overlong query: %d %s", code, body)
	}
}

// TestRun starts and stops the server as the command does.
func TestRun(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if _, err := build.Run(context.Background(), build.Config{Paths: []string{"../demo/projects"}, Out: out}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, out, build.IndexPath(build.DefaultStateDir(out, os.Getenv)), "127.0.0.1:0", nil, func(a string) { addr <- a })
	}()
	a := <-addr
	// The pages are served at once; the API answers 503, to be asked
	// again, while the bleve index is made of the build's documents.
	resp, err := http.Get("http://" + a + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("index.html: status %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get("http://" + a + "/api/search?q=status")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "being made") || time.Now().After(deadline) {
			t.Fatalf("status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
	if err := serve.Run(context.Background(), t.TempDir()+"/missing", "", "127.0.0.1:0", nil, nil); err == nil {
		t.Error("serving a missing folder: no error")
	}
}
