package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestSearchSlots: a search waits for a slot while every one is taken,
// and stops waiting when its request ends.
func TestSearchSlots(t *testing.T) {
	for range cap(searchSlots) {
		searchSlots <- struct{}{}
	}
	freed := false
	defer func() {
		if !freed {
			for range cap(searchSlots) {
				<-searchSlots
			}
		}
	}()
	h := (&Site{dir: t.TempDir()}).Handler()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req := httptest.NewRequestWithContext(ctx, "GET", "/api/search?q=x", nil)
	req.Host = "localhost"
	start := time.Now()
	h.ServeHTTP(httptest.NewRecorder(), req)
	if took := time.Since(start); took < 40*time.Millisecond || took > 2*time.Second {
		t.Errorf("a search waiting for a slot returned after %v; want when its request ended, 50ms", took)
	}
	// A slot freed: the next search runs (and finds no index).
	for range cap(searchSlots) {
		<-searchSlots
	}
	freed = true
	req = httptest.NewRequest("GET", "/api/search?q=x", nil)
	req.Host = "localhost"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("with slots free: %d %s", rec.Code, rec.Body)
	}
	if len(searchSlots) != 0 {
		t.Errorf("%d slots still taken", len(searchSlots))
	}
}
