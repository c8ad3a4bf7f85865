package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ccsite/search"
	"ccsite/serve"
)

// word is the n-th of the words "zq" + four letters.
func word(n int) string {
	b := []byte("zqaaaa")
	for i := len(b) - 1; i >= 2; i-- {
		b[i] = 'a' + byte(n%26)
		n /= 26
	}
	return string(b)
}

// prefixIndex is an index whose text holds n distinct words starting with
// "zq", so the prefix "zq" expands to every one of them.
func prefixIndex(t *testing.T, n int) *search.Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bleve")
	w, err := search.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const perDoc = 100
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var docs []search.Doc
	for d := 0; d*perDoc < n; d++ {
		var text strings.Builder
		for i := d * perDoc; i < min(n, (d+1)*perDoc); i++ {
			text.WriteString(word(i) + " ")
		}
		id := fmt.Sprintf("p/s.html#m-%06d", d)
		docs = append(docs, search.Doc{ID: id, Project: "/p", Session: "s", Title: "s", Role: "prompt",
			Time: t0.Add(time.Duration(d) * time.Second), Text: text.String()})
	}
	if _, err := w.Add(docs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx
}

// TestSearchCancelled: a search whose client has gone (its request's
// context ended) stops at once, however many words its prefix expands
// to: the handler returns promptly, so nothing keeps searching.
func TestSearchCancelled(t *testing.T) {
	idx := prefixIndex(t, 300_000)
	h := serve.Handler(t.TempDir(), idx)
	ask := func(ctx context.Context, q string) (int, time.Duration) {
		req := httptest.NewRequestWithContext(ctx, "GET", "/api/search?prefix=1&q="+q, nil)
		req.Host = "127.0.0.1:8080"
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		return rec.Code, time.Since(start)
	}
	// Left before it started.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, took := ask(ctx, "zq"); took > 250*time.Millisecond {
		t.Errorf("a search whose client had left took %v", took)
	}
	// Left while it ran.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, took := ask(ctx, "zq"); took > 250*time.Millisecond {
		t.Errorf("a search whose client left after 20ms took %v", took)
	}
	// A client that stays gets an answer.
	code, took := ask(context.Background(), "zq")
	t.Logf("prefix zq with a client that waits: %d in %v", code, took)
}

// TestSearchPrefixBounded: a prefix expanding to more words than a search
// may make searchers for is searched as the word itself; a narrower one
// as a prefix still.
func TestSearchPrefixBounded(t *testing.T) {
	idx := prefixIndex(t, 30_000)
	srv := httptest.NewServer(serve.Handler(t.TempDir(), idx))
	defer srv.Close()
	// Words 676 to 1351 start with zqab, in documents 6 to 13 (100 words
	// each); zqabc's 26 in document 7. No document holds the word zq.
	for q, want := range map[string]uint64{"zq": 0, "zqab": 8, "zqabc": 1} {
		r := hostGet(t, srv.URL+"/api/search?prefix=1&n=1&q="+q, "")
		var res search.Results
		if r.code != 200 || json.Unmarshal([]byte(r.body), &res) != nil || res.Total != want {
			t.Errorf("prefix %s: %d %.200s; want %d hits", q, r.code, r.body, want)
		}
	}
	if r := hostGet(t, srv.URL+"/api/search?q=zq&project="+strings.Repeat("a", 1200), ""); r.code != 400 {
		t.Errorf("an overlong filter: %d %s", r.code, r.body)
	}
}
