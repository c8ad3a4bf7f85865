package browsertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ccsite/build/link"
)

// The session TestServeWatch writes, reads and appends to.
const (
	watchCwd     = "/home/test/watch"
	watchSession = "77777777-0000-4000-8000-000000000001"
	watchTurns   = 8 // few enough that the table of contents grows with one more
)

// watchRecord is one transcript line of the watch fixture, in the shape of
// testdata/headings.
func watchRecord(n int, typ string, at time.Time, message map[string]any) map[string]any {
	r := map[string]any{
		"isSidechain": false, "userType": "external", "cwd": watchCwd, "sessionId": watchSession,
		"version": "2.0.76", "gitBranch": "main", "type": typ, "message": message,
		"uuid": fmt.Sprintf("88888888-0000-4000-8000-%012d", n), "timestamp": at.Format("2006-01-02T15:04:05.000Z"),
		"parentUuid": nil,
	}
	if n > 1 {
		r["parentUuid"] = fmt.Sprintf("88888888-0000-4000-8000-%012d", n-1)
	}
	if typ == "assistant" {
		r["requestId"] = fmt.Sprintf("req_watch_%d", n)
	}
	return r
}

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// watchFixture is a session long enough to scroll: prompts, thinking and
// answers of several paragraphs. It returns the lines and the number of
// the last record.
func watchFixture(t *testing.T, start time.Time) (string, int) {
	var b strings.Builder
	n := 0
	for i := 1; i <= watchTurns; i++ {
		n++
		at := start.Add(time.Duration(n) * time.Minute)
		b.WriteString(jsonLine(t, watchRecord(n, "user", at, map[string]any{
			"role": "user", "content": fmt.Sprintf("Question %d: how does part %d of the billing system work?", i, i)})))
		n++
		para := fmt.Sprintf("Part %d reads the invoices, checks each total against the ledger and writes a report. ", i)
		b.WriteString(jsonLine(t, watchRecord(n, "assistant", at.Add(20*time.Second), map[string]any{
			"model": "claude-sonnet-4-5-20250929", "id": fmt.Sprintf("msg_watch_%d", n), "type": "message", "role": "assistant",
			"content": []any{
				map[string]any{"type": "thinking", "thinking": strings.Repeat("Let me look at the code first. ", 20), "signature": "c2ln"},
				map[string]any{"type": "text", "text": strings.Repeat(para, 4) + "\n\n" + strings.Repeat(para, 3) + "\n\n" + strings.Repeat(para, 2)},
			},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 40, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
		})))
	}
	return b.String(), n
}

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// ccsiteBinary builds the ccsite command once, with the build tags of this
// test binary: serve --watch runs the build again as a child process of
// itself, which a test binary cannot be.
func ccsiteBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			binaryErr = err
			return
		}
		dir, err := os.MkdirTemp("", "ccsite-browsertest-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		teardownMu.Lock()
		teardown = append(teardown, func() { os.RemoveAll(dir) })
		teardownMu.Unlock()
		args := []string{"build", "-o", filepath.Join(dir, "ccsite")}
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "-tags" && s.Value != "" {
					args = append(args, "-tags", s.Value)
				}
			}
		}
		cmd := exec.Command(goTool, append(args, ".")...)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			return
		}
		binaryPath = filepath.Join(dir, "ccsite")
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// lines collects a process's output lines as they come.
type lines struct {
	mu   sync.Mutex
	all  []string
	addr chan string // the address serve says it listens on
}

var listening = regexp.MustCompile(`on http://([^/ ]+)/`)

func (l *lines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.all = append(l.all, sc.Text())
		l.mu.Unlock()
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			select {
			case l.addr <- m[1]:
			default:
			}
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

// TestServeWatch builds a site with the ccsite command, serves it with
// ccsite serve --watch and opens a session page: a line appended to the
// transcript shows up on the open page, which reloads itself and keeps
// the reader where they were. The site's files, opened from file://, hold
// no live-reload script.
func TestServeWatch(t *testing.T) {
	sharedEnv(t) // skips without a browser
	bin := ccsiteBinary(t)
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "CLAUDE_CONFIG_DIR=")
	start := time.Date(2026, 1, 10, 10, 0, 0, 0, time.UTC)
	fixture, last := watchFixture(t, start)
	transcript := filepath.Join(dir, "projects", "-home-test-watch", watchSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(bin, "build", "-o", "site", "projects")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("ccsite build: %v\n%s", err, out)
	}

	serve := exec.Command(bin, "serve", "--watch", "--addr", "127.0.0.1:0", "site")
	serve.Dir, serve.Env = dir, env
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &lines{addr: make(chan string, 1)}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() {
		out.read(stderr)
		waitErr = serve.Wait()
		close(exited)
	}()
	t.Cleanup(func() { // after the tab's checks, which run first
		select {
		case <-exited:
		default:
			serve.Process.Kill()
			<-exited
		}
		t.Logf("ccsite serve said:\n%s", out)
	})
	var base string
	select {
	case a := <-out.addr:
		base = "http://" + a + "/"
	case <-exited:
		t.Fatalf("ccsite serve ended: %v", waitErr)
	case <-time.After(20 * time.Second):
		t.Fatal("ccsite serve did not start")
	}
	watching := "watching 1 input file(s) under " + filepath.Join(dir, "projects") + "; pages reload on change"
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), watching); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not say %q", watching)
		}
	}

	page := link.Session(link.ProjectSlug(watchCwd), watchSession)
	tb := newTab(t)
	tb.allow(base)
	// The reader came by a link to a turn (the page script scrolls to it
	// on load), opened the table of contents (which the new turn makes a
	// line longer) and a thinking block, then read on further down.
	tb.open(base + page)
	turn := eval[string](tb, `document.querySelectorAll("section.turn")[2].id`)
	tb.open(base + page + "#" + turn)
	const readerJS = `(() => {
		const at = document.elementFromPoint(640, 200).closest("[id]");
		return {
			y: Math.round(window.scrollY),
			id: at.id,
			top: Math.round(at.getBoundingClientRect().top),
			open: [...document.querySelectorAll("details")].map((d, i) => d.open ? i : -1).filter(i => i >= 0),
			reloaded: performance.getEntriesByType("navigation")[0].type === "reload",
		};
	})()`
	type reader struct {
		Y        int    `json:"y"`
		ID       string `json:"id"`
		Top      int    `json:"top"`
		Open     []int  `json:"open"`
		Reloaded bool   `json:"reloaded"`
	}
	eval[bool](tb, `(() => {
		document.querySelectorAll("details.thinking")[1].open = true;
		document.querySelectorAll("details.thinking")[3].open = true;
		document.querySelectorAll("section.turn")[5].scrollIntoView();
		window.scrollBy(0, 150);
		return true;
	})()`)
	before := eval[reader](tb, readerJS)
	if before.Y < 1000 || before.Reloaded {
		t.Fatalf("the reader is at %+v, want well down a page they did not reload", before)
	}

	// A new prompt, as Claude Code appends it.
	const word = "zebracorn"
	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	appended := time.Now()
	_, err = f.WriteString(jsonLine(t, watchRecord(last+1, "user", start.Add(time.Hour), map[string]any{
		"role": "user", "content": "Now rename the " + word + " module."})))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	// The open page shows it, by itself (evaluations fail while it
	// reloads), within 15 s.
	shows := `document.body.innerText.includes(` + jsQuote(word) + `) &&
		performance.getEntriesByType("navigation")[0].loadEventEnd > 0`
	var shown bool
	for deadline := time.Now().Add(15 * time.Second); !shown && time.Now().Before(deadline); {
		ok, err := evalOK(tb, shows)
		shown = err == nil && ok
		if !shown {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !shown {
		t.Fatalf("the page does not show %q 15s after it was appended", word)
	}
	t.Logf("append to reload: %s", time.Since(appended).Round(time.Millisecond))
	time.Sleep(200 * time.Millisecond) // anything that would still move the page
	after := eval[reader](tb, readerJS)
	t.Logf("the reader before the reload: %+v; after: %+v", before, after)
	if !after.Reloaded {
		t.Error("the page shows the new prompt, but was not reloaded")
	}
	if after.ID != before.ID || abs(after.Top-before.Top) > 2 || fmt.Sprint(after.Open) != fmt.Sprint(before.Open) {
		t.Errorf("after the reload the reader sees %+v, want what they saw before: %+v", after, before)
	}
	if !strings.Contains(out.String(), "1 open page(s) reloading") {
		t.Errorf("serve did not say it reloaded the page")
	}

	// The site's own files carry no live-reload script.
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "site")) + "/"}).String()
	tb.allow(fileURL)
	tb.open(fileURL + page)
	if got := eval[map[string]any](tb, `({
		shows: document.body.innerText.includes(`+jsQuote(word)+`),
		live: document.documentElement.outerHTML.includes("_ccsite"),
	})`); got["shows"] != true || got["live"] != false {
		t.Errorf("the page from file://: %v, want the new prompt and no live script", got)
	}
	err = filepath.WalkDir(filepath.Join(dir, "site"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), "_ccsite/live") {
			t.Errorf("%s holds the live-reload script", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// Ctrl-C stops serve at once, though a page's event stream is open.
	tb.open("about:blank")
	resp, err := http.Get(base + "_ccsite/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := serve.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("ccsite serve after Ctrl-C: %v", waitErr)
		}
	case <-time.After(4 * time.Second):
		t.Errorf("ccsite serve still runs 4s after Ctrl-C")
	}
}

// evalOK evaluates a boolean expression, returning the error rather than
// failing (the page may be reloading).
func evalOK(tb *tab, expr string) (bool, error) {
	return chromedp.Run(tb.ctx, chromedp.Evaluate[bool](expr))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
