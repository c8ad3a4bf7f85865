package browsertest

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"ccsite/build"
)

// shareSession is the demo session TestShare writes as one file: it ran a
// sub-agent (a7c31de) through a Task call, and has code blocks.
const shareSession = "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2"

// requestLog records every URL a tab asks for.
type requestLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *requestLog) listen(tb *tab) {
	tb.t.Helper()
	err := chromedp.Listen(tb.ctx, func(ev any) {
		if ev, ok := ev.(*network.EventRequestWillBeSent); ok {
			l.mu.Lock()
			l.urls = append(l.urls, ev.Request.URL)
			l.mu.Unlock()
		}
	})
	if err != nil {
		tb.t.Fatalf("listen: %v", err)
	}
}

func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.urls
	l.urls = nil
	return u
}

// TestShare opens the single file that `ccsite share` writes of a demo
// session, from file:// in a browser that could reach nothing else: the
// page asks for no URL but its own and data: URLs (every <details> opened
// and the page scrolled to its end, so lazy images would load), logs no
// error, runs its inlined script; the sub-agent is a section of the page
// that the Task call's link jumps to (and whose link leads back to the
// call); copy buttons and the theme toggle work.
func TestShare(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	out := filepath.Join(t.TempDir(), "shared session.html") // a space, escaped in the URL
	src := filepath.Join("..", "demo", "projects", "-home-demo-webapp", shareSession+".jsonl")
	n, err := build.Share(context.Background(), build.ShareConfig{File: src, Out: out})
	if err != nil {
		t.Fatalf("share %s: %v", src, err)
	}
	if n != 1 {
		t.Errorf("share included %d sub-agents, want 1", n)
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(out)}).String()

	t.Run("offline", func(t *testing.T) {
		tb := newTab(t, chromedp.WithNewBrowserContext())
		tb.allow(page)
		var log requestLog
		log.listen(tb)
		tb.open(page)
		eval[bool](tb, `(document.querySelectorAll("details").forEach(d => d.open = true), scrollTo(0, document.body.scrollHeight), true)`)
		await[bool](tb, `new Promise(done => setTimeout(() => done(true), 300))`) // for anything lazy
		urls := log.take()
		if !contains(urls, page) {
			t.Errorf("the request log lacks the page itself (%s): %q", page, urls)
		}
		for _, u := range urls {
			if u != page && !strings.HasPrefix(u, "data:") {
				t.Errorf("the shared file asked for %s; want nothing but itself (%s) and data: URLs", u, page)
			}
		}
		type shareState struct {
			Script, Styled bool
			Links, Scripts int
			Agents         []string
		}
		s := eval[shareState](tb, `({
			Script: document.documentElement.classList.contains("js"),
			Styled: getComputedStyle(document.querySelector(".site-head")).display === "flex",
			Links: document.querySelectorAll("link[rel=stylesheet]").length,
			Scripts: document.querySelectorAll("script[src]").length,
			Agents: [...document.querySelectorAll("section.embedded-agent")].map(s => s.id),
		})`)
		if !s.Script || !s.Styled {
			t.Errorf("inlined script ran: %v, inlined style applied: %v; want both", s.Script, s.Styled)
		}
		if s.Links != 0 || s.Scripts != 0 {
			t.Errorf("%d stylesheet links and %d script files, want none", s.Links, s.Scripts)
		}
		if len(s.Agents) != 1 || s.Agents[0] != "agent-a7c31de" {
			t.Errorf("sub-agent sections %q, want [agent-a7c31de]", s.Agents)
		}
		tb.assertClean("shared file")
	})

	t.Run("sub-agent-link", func(t *testing.T) {
		tb := newTab(t)
		tb.allow(page)
		tb.open(page)
		tb.click(`.task-card a.agent-link`)
		tb.waitFor(`location.hash === "#agent-a7c31de"`)
		checkTarget(tb, "agent-a7c31de", "")
		tb.assertClean("shared file")
	})

	t.Run("sub-agent-back-to-call", func(t *testing.T) {
		tb := newTab(t)
		tb.allow(page)
		tb.open(page)
		back := `#agent-a7c31de .kicker a[href="#tool-toolu_01DemoTask0001"]`
		eval[bool](tb, `(document.querySelector('`+back+`').scrollIntoView({block: "center"}), true)`)
		tb.click(back)
		tb.waitFor(`location.hash === "#tool-toolu_01DemoTask0001"`)
		checkTarget(tb, "tool-toolu_01DemoTask0001", "")
		tb.assertClean("shared file")
	})

	t.Run("copy", func(t *testing.T) {
		tb, clip := newTab(t), clipboardTab(t)
		tb.allow(page)
		tb.open(page)
		button := copyButtonJS("bash")
		clipboardMu.Lock()
		defer clipboardMu.Unlock()
		setClipboard(clip, "clipboard before the click")
		tb.clickJS(button)
		tb.waitFor(button + `.textContent === "Copied"`)
		if got, want := clipboard(clip), "npm test -- search"; got != want {
			t.Errorf("clipboard after Copy = %q, want %q", got, want)
		}
		tb.assertClean("shared file")
	})

	t.Run("theme", func(t *testing.T) {
		tb := newTab(t, chromedp.WithNewBrowserContext())
		tb.allow(page)
		systemScheme(tb, "light")
		tb.open(page)
		want := func(step string, w themeState) {
			t.Helper()
			if got := eval[themeState](tb, themeJS); got != w {
				t.Errorf("%s: theme %+v, want %+v", step, got, w)
			}
		}
		want("fresh", themeState{"auto", "", lightBG})
		tb.click(".theme-toggle")
		want("after a click", themeState{"dark", "dark", darkBG})
		if err := chromedp.Do(tb.ctx, chromedp.Reload()); err != nil {
			t.Fatalf("reload: %v", err)
		}
		want("after a reload", themeState{"dark", "dark", darkBG})
		tb.click(".theme-toggle")
		want("after a second click", themeState{"light", "light", lightBG})
		tb.assertClean("shared file")
	})
}
