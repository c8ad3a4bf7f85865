package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestBuildFlags checks that serve --watch reads a recorded build's
// arguments as build does: buildFlags has every flag of the build command,
// each taking a value or not alike, and the same one-letter forms.
func TestBuildFlags(t *testing.T) {
	var cmd *cobra.Command
	for _, c := range newRoot(&env{}).Commands() {
		if c.Name() == "build" {
			cmd = c
		}
	}
	if cmd == nil {
		t.Fatal("no build command")
	}
	type shape struct {
		value     bool
		shorthand string
	}
	flags := func(fs *pflag.FlagSet) map[string]shape {
		m := map[string]shape{}
		fs.VisitAll(func(f *pflag.Flag) {
			m[f.Name] = shape{f.NoOptDefVal == "", f.Shorthand}
		})
		return m
	}
	want, got := flags(cmd.Flags()), flags(buildFlags())
	if len(want) < 10 {
		t.Fatalf("build has %d flags", len(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("build has --%s; buildFlags does not", name)
		} else if g != w {
			t.Errorf("--%s in build: %+v, in buildFlags: %+v", name, w, g)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("buildFlags has --%s; build does not", name)
		}
	}
}

func TestBuildRecordInputs(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude", "projects"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	for _, c := range []struct {
		args       []string
		roots      []string
		out        string
		wantErrMsg string
	}{
		{args: []string{"projects"}, roots: []string{"/w/projects"}, out: "/w/site"},
		{args: []string{"-o", "/pub", "--theme", "paper", "a", "--json", "--redact", "b", "c.jsonl", "--no-redact", "--since=2026-01-01"},
			roots: []string{"/w/a", "/w/c.jsonl"}, out: "/pub"},
		{args: []string{"--workers", "2", "--", "-odd", "x"}, roots: []string{"/w/-odd", "/w/x"}, out: "/w/site"},
		{args: []string{"--quiet", "-o", "out"}, roots: []string{filepath.Join(home, ".claude", "projects")}, out: "/w/out"},
		{args: []string{"--bogus"}, wantErrMsg: "--bogus"},
		// Older records: Go's single-dash long flags.
		{args: []string{"-o", "pub", "-theme", "paper", "-force", "-json", "a", "-since=2026-01-01"},
			roots: []string{"/w/a"}, out: "/w/pub"},
		{args: []string{"--out=pub", "-q", "-j", "a"}, roots: []string{"/w/a"}, out: "/w/pub"},
	} {
		roots, out, err := BuildRecord{Dir: "/w", Args: c.args}.inputs(env)
		switch {
		case c.wantErrMsg != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErrMsg) {
				t.Errorf("%q: error %v, want one naming %s", c.args, err, c.wantErrMsg)
			}
		case err != nil:
			t.Errorf("%q: %v", c.args, err)
		case !slices.Equal(roots, c.roots) || out != c.out:
			t.Errorf("%q: reads %q, writes %s; want %q, %s", c.args, roots, out, c.roots, c.out)
		}
	}
}

// TestServeWatchErrors: what --watch needs, said plainly, before serving.
func TestServeWatchErrors(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	copied := filepath.Join(dir, "copy")
	for _, d := range []string{site, copied, filepath.Join(dir, "bare")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, siteMarker), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CCSITE_CACHE_DIR", filepath.Join(dir, "cache"))
	rec := `{"dir": "` + dir + `", "args": ["-o", "site", "projects"]}`
	for _, d := range []string{site, copied} {
		p, err := recordPath(d, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare, _ := recordPath(filepath.Join(dir, "bare"), os.Getenv)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"serve", "--watch", filepath.Join(dir, "bare")}, exitFail, "has no build record (" + bare + "): build the site with ccsite build first"},
		{[]string{"serve", "--watch", copied}, exitFail, copied + " was built into " + site + "; serve that folder"},
		{[]string{"serve", "--watch", "--interval", "0s", site}, exitUsage, "--interval must be more than 0"},
		{[]string{"serve", "--watch", "--interval", "soon", site}, exitUsage, `invalid argument "soon" for "--interval" flag`},
		{[]string{"serve", filepath.Join(dir, "empty")}, exitFail, "is not a site built by ccsite (no .ccsite-site in it); build one with: ccsite build -o " + filepath.Join(dir, "empty")},
		{[]string{"serve", filepath.Join(dir, "missing")}, exitFail, "does not exist; build a site there first with: ccsite build -o"},
		{[]string{"serve", "a", "b"}, exitUsage, "name at most one site folder"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), c.args, io.Discard, &stderr, os.Getenv)
		if code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%q: status %d, %q; want %d and %q", c.args, code, stderr.String(), c.code, c.msg)
		}
	}
}

// TestServeAllowHost: ccsite serve answers requests for the names it
// listens on and those --allow-host names, and refuses any other name
// (DNS rebinding), saying which flag lets it in.
func TestServeAllowHost(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(site, siteMarker), nil, 0o644)
	os.WriteFile(filepath.Join(site, "index.html"), []byte("<p>hello</p>"), 0o644)
	for _, bad := range []string{"", "*", "*.lan", "http://box.lan/", "a b"} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve", "--allow-host", bad, site}, io.Discard, &stderr, os.Getenv)
		if code != exitUsage || !strings.Contains(stderr.String(), "--allow-host wants a host name") {
			t.Errorf("--allow-host %q: status %d, %s", bad, code, stderr.String())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--state", filepath.Join(dir, "state"),
			"--allow-host", "MyBox.lan", "--allow-host=box:8080", site}, io.Discard, &stderr, os.Getenv)
	}()
	defer func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve: status %d\n%s", code, stderr.String())
		}
	}()
	addr := regexp.MustCompile(`on http://(\S+)/ `)
	for deadline := time.Now().Add(10 * time.Second); !addr.MatchString(stderr.String()); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", stderr.String())
		}
	}
	a := addr.FindStringSubmatch(stderr.String())[1]
	get := func(host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+a+"/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, h := range []string{a, "localhost", "mybox.lan", "MYBOX.LAN.:1", "box", "[::1]:8080"} {
		if code, body := get(h); code != 200 || body != "<p>hello</p>" {
			t.Errorf("Host %s: %d %s", h, code, body)
		}
	}
	for _, h := range []string{"evil.example", "box.evil.example", "mybox"} {
		code, body := get(h)
		if code != http.StatusMisdirectedRequest || !strings.Contains(body, "--allow-host "+h) {
			t.Errorf("Host %s: %d %s; want 421 saying --allow-host %s", h, code, body, h)
		}
	}
}

// TestServeWatchRebuilds runs ccsite serve --watch as the scripts run
// ccsite: this test binary under that name, on PATH (see TestMain). The
// build it starts is that same command again, and a transcript's new
// line reaches the served page.
func TestServeWatchRebuilds(t *testing.T) {
	if _, err := exec.LookPath("ccsite"); err != nil {
		t.Skip("no ccsite on PATH:", err)
	}
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "CLAUDE_CONFIG_DIR=")
	const id = "6c1e2d3f-4a5b-4c6d-8e7f-809112233445"
	line := func(n int, text string) string {
		return `{"parentUuid":` + map[bool]string{true: "null", false: `"88888888-8888-4888-8888-00000000000` + strconv.Itoa(n-1) + `"`}[n == 1] +
			`,"isSidechain":false,"userType":"external","cwd":"/tmp/x","sessionId":"` + id + `","version":"2.1.3","type":"user",` +
			`"message":{"role":"user","content":"` + text + `"},"uuid":"88888888-8888-4888-8888-00000000000` + strconv.Itoa(n) +
			`","timestamp":"2026-01-07T12:0` + strconv.Itoa(n) + `:00.000Z"}` + "\n"
	}
	transcript := filepath.Join(dir, "projects", "-tmp-x", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, []byte(line(1, "hello")), 0o644); err != nil {
		t.Fatal(err)
	}
	ccsite := func(args ...string) *exec.Cmd {
		cmd := exec.Command("ccsite", args...)
		cmd.Dir, cmd.Env = dir, env
		return cmd
	}
	if out, err := ccsite("build", "-o", "site", "projects").CombinedOutput(); err != nil {
		t.Fatalf("ccsite build: %v\n%s", err, out)
	}
	serveCmd := ccsite("serve", "--watch", "--interval", "50ms", "--addr", "127.0.0.1:0", "site")
	var stderr syncBuffer
	serveCmd.Stderr = &stderr
	if err := serveCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serveCmd.Process.Kill()
		serveCmd.Wait()
		t.Logf("ccsite serve said:\n%s", stderr.String())
	}()
	addr := regexp.MustCompile(`on http://(\S+)/ `)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s after 20s", what)
			}
		}
	}
	waitFor("watching line", func() bool { return strings.Contains(stderr.String(), "; pages reload on change") })
	page := "http://" + addr.FindStringSubmatch(stderr.String())[1] + "/tmp-x/" + id + ".html"

	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line(2, "zebracorn")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	waitFor("build", func() bool { return strings.Contains(stderr.String(), "ccsite serve: built in ") })
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "zebracorn") || !strings.Contains(string(body), `<script src="/_ccsite/live.js" data-build="1"></script>`) {
		t.Errorf("the page served after the build is not the new one, with the live script of build 1:\n%s", body)
	}
	if want := "watching 1 input file(s) under " + filepath.Join(dir, "projects") + "; pages reload on change"; !strings.Contains(stderr.String(), want) {
		t.Errorf("serve did not say %q", want)
	}
}

// syncBuffer is a bytes.Buffer a child process's output may be written
// to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
