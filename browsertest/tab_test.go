package browsertest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tab is one browser tab of the shared browser, seen from one test. It
// records console errors, uncaught exceptions, browser-log errors and
// requests to anything but the site; at the end of the test that opened it,
// it fails on any it still holds.
type tab struct {
	t   *testing.T
	ctx context.Context // the tab's, limited to tabTimeout from when this test took it
	*tabState
}

type tabState struct {
	env  *env
	base context.Context // the tab's, unlimited

	mu       sync.Mutex
	problems []string
	allowed  []string // more URL prefixes that count as the site (see allow)
}

// in returns the same tab, reporting to t (a subtest), with a time limit
// of its own: a tab shared by many subtests does not run out of time
// because the ones before took long (a loaded machine).
func (tb *tab) in(t *testing.T) *tab {
	ctx, cancel := context.WithTimeout(tb.base, tabTimeout)
	t.Cleanup(cancel)
	return &tab{t: t, ctx: ctx, tabState: tb.tabState}
}

const tabTimeout = 45 * time.Second

// waitTimeout is how long waitFor and waitAcross wait. It was 5 s, and
// the full suite (go test ./..., the corpus's build tests beside these on
// two cores) once took longer for a scroll's outline mark on the longest
// corpus page; a wait that holds returns as soon as it does.
const waitTimeout = 15 * time.Second

// newTab opens a tab at 1280×800 with focus emulated (so the clipboard
// works headless). opts may give it its own browser context (own storage).
func newTab(t *testing.T, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	e := sharedEnv(t)
	ctx, cancel := chromedp.NewContext(e.browser, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatalf("open tab: %v", err)
	}
	tb := &tab{t: t, tabState: &tabState{env: e, base: ctx}}
	if err := chromedp.Listen(ctx, tb.record); err != nil {
		t.Fatalf("listen: %v", err)
	}
	tctx, tcancel := context.WithTimeout(ctx, tabTimeout)
	t.Cleanup(tcancel)
	tb.ctx = tctx
	t.Cleanup(func() { tb.assertClean("before the tab closed") }) // runs before the cancels
	call(tb, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	tb.viewport(1280, 800, false)
	return tb
}

// record runs in chromedp's event loop: it only appends under the lock.
func (tb *tabState) record(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range ev.Args {
				if len(a.Value) > 0 {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			p = "console.error: " + strings.Join(args, " ")
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		p = "uncaught exception: " + d.Text
		if d.Exception != nil {
			p += " " + d.Exception.Description
		}
		p += fmt.Sprintf(" (%s:%d)", d.URL, d.LineNumber+1)
	case *log.EventEntryAdded:
		// Browsers ask every site for /favicon.ico; the site has none.
		if ev.Entry.Level == log.EntryLevelError && !strings.HasSuffix(ev.Entry.URL, "/favicon.ico") {
			p = fmt.Sprintf("browser log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; !tb.onSite(u) {
			p = "request to something other than the site: " + u
		}
	}
	if p == "" {
		return
	}
	tb.mu.Lock()
	tb.problems = append(tb.problems, p)
	tb.mu.Unlock()
}

// onSite reports whether u is the site itself (its file:// folder or the
// test server), inline data, or under a prefix the test allowed.
func (tb *tabState) onSite(u string) bool {
	if strings.HasPrefix(u, tb.env.fileURL) || strings.HasPrefix(u, tb.env.httpURL) ||
		strings.HasPrefix(u, "data:") || u == "about:blank" {
		return true
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, p := range tb.allowed {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// allow makes requests to URLs under the prefixes count as the site's: a
// test opens pages of another build or a shared file in the tab.
func (tb *tabState) allow(prefixes ...string) {
	tb.mu.Lock()
	tb.allowed = append(tb.allowed, prefixes...)
	tb.mu.Unlock()
}

// takeProblems returns and forgets what was recorded so far.
func (tb *tabState) takeProblems() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	p := tb.problems
	tb.problems = nil
	return p
}

// assertClean fails the test for each recorded problem.
func (tb *tab) assertClean(where string) {
	tb.t.Helper()
	for _, p := range tb.takeProblems() {
		tb.t.Errorf("%s: %s", where, p)
	}
}

// open navigates to url and waits for the load event.
func (tb *tab) open(url string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(url)); err != nil {
		tb.t.Fatalf("open %s: %v", url, err)
	}
}

// page opens a page of the site by scheme ("file" or "http"), a session
// page in the full view (every tool call open: what most tests look
// inside; the view tests open ?view=conversation themselves).
func (tb *tab) page(scheme, page string) string {
	tb.t.Helper()
	u := tb.env.url(scheme, page)
	if !strings.Contains(page, "?") && !strings.Contains(page, "#") && page != "index.html" && !strings.HasSuffix(page, "/index.html") && !strings.HasPrefix(page, "search.html") {
		u += "?view=full"
	}
	tb.open(u)
	return u
}

// click sends a real mouse click to the first element matching css.
func (tb *tab) click(css string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(css))); err != nil {
		tb.t.Fatalf("click %s: %v", css, err)
	}
}

// clickJS sends a real mouse click to the element a JavaScript expression
// gives.
func (tb *tab) clickJS(expr string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.JSPath(expr))); err != nil {
		tb.t.Fatalf("click %s: %v", expr, err)
	}
}

// press types keys as a keyboard does: for each rune a keyDown that
// carries its text, then a keyUp ("\t" is Tab, "\r" Enter, "\x1b"
// Escape). Unlike chromedp.KeyEvent, which sends the text as a separate
// char event, a handler that calls preventDefault on keydown keeps the
// text from being typed, as in a real browser.
func (tb *tab) press(keys string) {
	tb.t.Helper()
	for _, r := range keys {
		var events []input.DispatchKeyEventParams
		for _, k := range kb.Encode(r) {
			if k.Type == kb.KeyChar && len(events) > 0 {
				events[0].Text, events[0].UnmodifiedText = k.Text, k.UnmodifiedText
				continue
			}
			events = append(events, *k)
		}
		for _, ev := range events {
			call(tb, input.DispatchKeyEvent, ev)
		}
	}
}

// waitFor polls the expression until it is truthy, for up to waitTimeout.
func (tb *tab) waitFor(expr string) {
	tb.t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](expr,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(waitTimeout)))
	if err != nil {
		tb.t.Fatalf("wait for %s: %v", expr, err)
	}
}

// waitAcross is waitFor for an expression that holds after a navigation
// the page itself starts (a click on a link, a form sent): evaluations
// that fail while the old page goes are retried.
func (tb *tab) waitAcross(expr string) {
	tb.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	tb.t.Fatalf("wait for %s: not true after %v (last error: %v)", expr, waitTimeout, last)
}

// viewport sets the window's size; mobile honours the viewport meta tag.
func (tb *tab) viewport(width, height int64, mobile bool) {
	tb.t.Helper()
	call(tb, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: width, Height: height, DeviceScaleFactor: 1, Mobile: mobile})
}

// eval evaluates a JavaScript expression and decodes its value into T.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// await evaluates an expression that returns a promise and decodes what it
// resolves to.
func await[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// call sends a protocol command to the tab.
func call[P, R any](tb *tab, cmd cdp.Command[P, R], params P) R {
	tb.t.Helper()
	r, err := chromedp.Call(tb.ctx, cmd, params)
	if err != nil {
		tb.t.Fatalf("%s: %v", cmd.Method, err)
	}
	return r
}

// callBrowser sends a protocol command to the browser.
func callBrowser[P, R any](tb *tab, cmd cdp.Command[P, R], params P) R {
	tb.t.Helper()
	r, err := chromedp.CallBrowser(tb.ctx, cmd, params)
	if err != nil {
		tb.t.Fatalf("%s: %v", cmd.Method, err)
	}
	return r
}
