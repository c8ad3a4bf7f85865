package serve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ccsite/serve"
)

// hostGet gets url naming host in its Host header ("" for url's own).
func hostGet(t *testing.T, url, host string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for { // an event stream's first event, or the whole body
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") && strings.Contains(b.String(), "\n\n") {
			break
		}
	}
	return response{resp.StatusCode, b.String(), resp.Header, resp.ContentLength}
}

// TestHostCheck: the server answers requests naming it as localhost, a
// loopback address or a name it was told to allow, on every route; a
// request naming another host (a page whose name was rebound to
// 127.0.0.1) is refused with how to allow it.
func TestHostCheck(t *testing.T) {
	t.Parallel()
	dir := tinySite(t)
	site, err := serve.Open(dir, filepath.Join(t.TempDir(), "none"), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := site.AllowHosts("MyBox.lan", "other.lan:9000"); err != nil {
		t.Fatal(err)
	}
	if site.AllowHosts("") == nil || site.AllowHosts(":80") == nil {
		t.Error("AllowHosts takes no name")
	}
	if err := site.Ready(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(site.Handler())
	t.Cleanup(func() {
		site.Close()
		srv.Close()
	})
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	routes := []string{"/", "/p/s.html", "/assets/app.js", "/api/search?q=x", "/search/api.js", serve.LivePath, serve.LiveScript, "/missing"}
	for _, host := range []string{"evil.example", "evil.example" + port, "attacker.localhost", "localhost.evil.example", "127.0.0.1.nip.io" + port, "mybox.lan.evil.example"} {
		for _, p := range routes {
			r := hostGet(t, srv.URL+p, host)
			if r.code != http.StatusMisdirectedRequest || !strings.Contains(r.body, "--allow-host") || strings.Contains(r.body, "hello") {
				t.Errorf("Host %s, GET %s: %d %q; want 421 saying --allow-host", host, p, r.code, r.body)
			}
		}
	}
	for _, host := range []string{"", "localhost", "localhost" + port, "LocalHost.", "127.0.0.1", "127.0.0.1" + port, "[::1]" + port, "[::1]", "127.0.0.2:80",
		"mybox.lan", "MYBOX.LAN." + port, "other.lan", "other.lan:1"} {
		for _, p := range []string{"/", serve.LivePath, serve.LiveScript} {
			if r := hostGet(t, srv.URL+p, host); r.code != 200 {
				t.Errorf("Host %q, GET %s: %d %s; want 200", host, p, r.code, r.body)
			}
		}
	}
	// A search comes through to the index (the site has none).
	if r := hostGet(t, srv.URL+"/api/search?q=x", "localhost"+port); r.code != http.StatusServiceUnavailable || !strings.Contains(r.body, "no search index") {
		t.Errorf("a search for localhost: %d %s", r.code, r.body)
	}
}

// TestServeHostCheck: served on an address, the server answers its host
// too, and on a wildcard address any IP address, never a name.
func TestServeHostCheck(t *testing.T) {
	t.Parallel()
	dir := tinySite(t)
	for _, c := range []struct {
		addr     string
		yes, not []string
	}{
		{"127.0.0.1:0", []string{"127.0.0.1", "localhost", "[::1]", "box.lan"}, []string{"10.1.2.3", "[2001:db8::1]", "evil.example"}},
		{"localhost:0", []string{"127.0.0.1", "localhost", "box.lan"}, []string{"192.168.1.9:80", "evil.example"}},
		{"0.0.0.0:0", []string{"127.0.0.1", "localhost", "192.168.1.9:80", "[2001:db8::1]:80", "box.lan"}, []string{"evil.example", "0.0.0.0.evil.example"}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		addr := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			done <- serve.Run(ctx, dir, filepath.Join(t.TempDir(), "none"), c.addr, []string{"box.lan"}, func(a string) { addr <- a })
		}()
		var a string
		select {
		case a = <-addr:
		case err := <-done:
			cancel()
			t.Logf("%s: %v (not tested)", c.addr, err)
			continue
		}
		_, port, _ := strings.Cut(a[strings.LastIndexByte(a, ']')+1:], ":")
		url := "http://127.0.0.1:" + port + "/"
		for _, h := range c.yes {
			if r := hostGet(t, url, h); r.code != 200 {
				t.Errorf("--addr %s, Host %s: %d %s", c.addr, h, r.code, r.body)
			}
		}
		for _, h := range c.not {
			if r := hostGet(t, url, h); r.code != http.StatusMisdirectedRequest {
				t.Errorf("--addr %s, Host %s: %d %s; want 421", c.addr, h, r.code, r.body)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}
