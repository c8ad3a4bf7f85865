package browsertest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"ccsite/build"
	"ccsite/build/link"
)

// embedPage is the nine-turn session of testdata/embed.
var embedPage = link.Session(link.ProjectSlug("/home/test/embed"), "e5bed000-0000-4000-8000-000000000009")

// embedSite builds testdata/embed into a folder of its own and serves it:
// the folder's file:// URL and the server's, each with a final slash.
func embedSite(t *testing.T) (dir, fileURL, httpURL string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "site")
	src, err := filepath.Abs(filepath.Join("testdata", "embed"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build.Run(context.Background(), build.Config{Paths: []string{src}, Out: dir, State: filepath.Join(t.TempDir(), "state")}); err != nil {
		t.Fatalf("build: %v", err)
	}
	srv := httptest.NewServer(staticHandler(dir))
	t.Cleanup(srv.Close)
	return dir, (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/"}).String(), srv.URL + "/"
}

// TestEmbed: a link to turns 3–7 (#t-3..t-7) marks exactly them and
// scrolls to them; shift-click in the outline selects turns 3–7 and the
// dialog gives that link and an <iframe> snippet; the snippet pasted in a
// page shows exactly turns 3–7 in the frame, sized to them, from file://
// and over HTTP.
func TestEmbed(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	dir, fileURL, httpURL := embedSite(t)
	for _, scheme := range []string{"file", "http"} {
		t.Run(scheme, func(t *testing.T) {
			base := fileURL
			if scheme == "http" {
				base = httpURL
			}
			tb := newTab(t)
			tb.allow(base)
			pageURL := base + embedPage

			// The link to a range.
			tb.open(pageURL + "#t-3..t-7")
			tb.waitFor(`document.querySelectorAll(".turn.in-range").length > 0`)
			if got := eval[string](tb, `[...document.querySelectorAll(".conversation > .turn.in-range")].map(t => t.id).join(" ")`); got != "t-3 t-4 t-5 t-6 t-7" {
				t.Errorf("#t-3..t-7 marks %q, want t-3 … t-7", got)
			}
			tb.waitFor(`!!(document.querySelector("[role=status]#range-status") || {}).textContent`)
			if got := eval[string](tb, `document.getElementById("range-status").textContent`); got != "Turns 3–7 of 9 marked." {
				t.Errorf("the status line says %q", got)
			}
			if top := eval[float64](tb, `document.getElementById("t-3").getBoundingClientRect().top`); top < 0 || top > 120 {
				t.Errorf("turn 3 is at %.0f px from the top of the window, want it scrolled to", top)
			}
			if got := eval[string](tb, `[...document.querySelectorAll("#outline a.in-range")].map(a => a.dataset.turn).join(" ")`); got != "t-3 t-4 t-5 t-6 t-7" {
				t.Errorf("the outline marks %q", got)
			}
			shot(t, tb, "embed-range-"+scheme, false)
			axeEmbed(t, tb, scheme, "the marked range")
			// Out of range: nothing marked, said so.
			tb.open(pageURL + "#t-20..t-30")
			tb.waitFor(`/not in/.test((document.getElementById("range-status") || {}).textContent)`)
			if got := eval[string](tb, `document.getElementById("range-status").textContent + " / " + document.querySelectorAll(".turn.in-range").length`); got != "Turns 20–30 are not in this session: it has turns 1–9. / 0" {
				t.Errorf("#t-20..t-30: %q", got)
			}

			// Shift-click in the outline, the dialog.
			tb.open(pageURL + "?view=conversation")
			tb.waitFor(`!document.querySelector(".embed-turns").hidden`)
			tb.click(`#outline a[data-turn="t-3"]`)
			nodes, err := chromedp.Run(tb.ctx, chromedp.Nodes(chromedp.CSS(`#outline a[data-turn="t-7"]`)))
			if err != nil {
				t.Fatalf("find turn 7 in the outline: %v", err)
			}
			if _, err := chromedp.Run(tb.ctx, chromedp.MouseClickNode(nodes[0], chromedp.ButtonModifiers(kb.ModifierShift))); err != nil {
				t.Fatalf("shift-click: %v", err)
			}
			tb.waitFor(`!!(document.getElementById("embed-dialog") || {}).open`)
			if got := eval[string](tb, `[...document.querySelectorAll(".conversation > .turn.in-range")].map(t => t.id).join(" ")`); got != "t-3 t-4 t-5 t-6 t-7" {
				t.Errorf("shift-click marks %q", got)
			}
			if got := eval[string](tb, `document.querySelector("#embed-dialog .link").value`); got != pageURL+"#t-3..t-7" {
				t.Errorf("the dialog's link is %q, want %q", got, pageURL+"#t-3..t-7")
			}
			shot(t, tb, "embed-dialog-"+scheme, false)
			axeEmbed(t, tb, scheme, "the dialog")
			snippet := eval[string](tb, `document.querySelector("#embed-dialog .snippet").value`)
			if want := `<iframe src="` + pageURL + `?embed=t-3..t-7"`; !strings.HasPrefix(snippet, want) {
				t.Errorf("the snippet %q does not start with %q", snippet, want)
			}
			if got := eval[string](tb, `document.querySelector("#embed-dialog .snippet").nextElementSibling.dataset.copy`); got != snippet {
				t.Errorf("the snippet's Copy button copies %q", got)
			}

			// The snippet in a page of its own.
			host := "host-" + scheme + ".html"
			doc := "<!DOCTYPE html><title>Host</title><h1>A blog post</h1>\n" + snippet +
				"\n<script>window.got = null; addEventListener(\"message\", function (e) { window.got = e.data; });</script><p>After the frame.</p>"
			if err := os.WriteFile(filepath.Join(dir, host), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			tb.open(base + host)
			tb.waitFor(`window.got && window.got.turns && document.querySelector("iframe").style.height !== ""`)
			if got := eval[string](tb, `window.got.turns.join(" ")`); got != "t-3 t-4 t-5 t-6 t-7" {
				t.Errorf("the frame shows turns %q, want t-3 … t-7", got)
			}
			if got := eval[string](tb, `document.querySelector("iframe").style.height + " " + window.got.height`); !strings.HasPrefix(got, fmt.Sprint(eval[int](tb, `window.got.height`))+"px") {
				t.Errorf("the frame's height is not the page's: %q", got)
			}
			if eval[bool](tb, `window.__pwned !== undefined`) {
				t.Errorf("a script from the transcript ran")
			}
			shot(t, tb, "embed-host-"+scheme, false)
			tb.open(pageURL + "?embed=t-3..t-7")
			tb.waitFor(`!!document.querySelector(".embed-bar")`)
			if got := eval[string](tb, `[...document.querySelectorAll(".conversation > .turn")].filter(t => t.offsetParent).map(t => t.id).join(" ")`); got != "t-3 t-4 t-5 t-6 t-7" {
				t.Errorf("the embedded page shows turns %q", got)
			}
			if got := eval[string](tb, `document.querySelector(".embed-bar a").href`); got != pageURL+"#t-3..t-7" {
				t.Errorf("the embedded page links back to %q", got)
			}
			axeEmbed(t, tb, scheme, "the embedded page")
			shots(t, tb, base+embedPage+"?embed=t-3..t-7", scheme)
		})
	}
}

// shots writes the embedded page, 375 and 1280 px wide, light and dark,
// and a print of it (PDF, as a PNG when pdftoppm is there), into
// $CCSITE_SHOTS.
func shots(t *testing.T, tb *tab, u, scheme string) {
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" || scheme != "http" {
		return
	}
	tb.viewport(375, 800, true)
	tb.open(strings.Split(u, "?")[0] + "?view=conversation")
	tb.waitFor(`!document.querySelector(".embed-turns").hidden`)
	eval[bool](tb, `(document.querySelector(".embed-turns").scrollIntoView({block: "center"}), true)`)
	shot(t, tb, "embed-head-375", false)
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 800, width < 600)
		tb.open(u)
		tb.waitFor(`!!document.querySelector(".embed-bar")`)
		for _, theme := range []string{"light", "dark"} {
			eval[int](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), 0)`)
			shot(t, tb, fmt.Sprintf("embed-%s-%d", theme, width), true)
		}
	}
	eval[int](tb, `(document.documentElement.setAttribute("data-theme", "light"), 0)`)
	pdf := call(tb, page.PrintToPDF, page.PrintToPDFParams{}).Data
	out := filepath.Join(dir, "embed-print.pdf")
	if err := os.WriteFile(out, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := exec.LookPath("pdftoppm"); err == nil {
		if b, err := exec.Command(p, "-png", "-r", "60", "-f", "1", "-l", "1", out, strings.TrimSuffix(out, ".pdf")).CombinedOutput(); err != nil {
			t.Errorf("pdftoppm: %v %s", err, b)
		}
	}
}

// shot writes what the tab shows (the whole page when full) as NAME.png
// into $CCSITE_SHOTS.
func shot(t *testing.T, tb *tab, name string, full bool) {
	dir := os.Getenv("CCSITE_SHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var png []byte
	var err error
	if full {
		png, err = chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	} else {
		png, err = chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	}
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// longSession writes a session of nine turns of 50 Bash calls each: past
// the 400 calls at which a page keeps its later turns packed, made as they
// are reached.
func longSession(t *testing.T) (projects string) {
	t.Helper()
	projects = filepath.Join(t.TempDir(), "projects")
	dir := filepath.Join(projects, "-home-test-long")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const sid = "10a90000-0000-4000-8000-000000000001"
	var b strings.Builder
	n, parent := 0, "null"
	add := func(typ, msg, extra string) {
		n++
		id := fmt.Sprintf(`"10a90000-0000-4000-8000-%012d"`, n)
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/home/test/long","sessionId":"%s","version":"2.0.14","type":"%s","message":%s,"uuid":%s,"timestamp":"2026-03-02T%02d:%02d:%02d.000Z"%s}`+"\n",
			parent, sid, typ, msg, id, 10+n/3600, n/60%60, n%60, extra)
		parent = id
	}
	const usage = `"usage":{"input_tokens":10,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`
	for turn := 1; turn <= 9; turn++ {
		add("user", fmt.Sprintf(`{"role":"user","content":"Long step %d"}`, turn), "")
		for c := 0; c < 50; c++ {
			id := fmt.Sprintf("toolu_long%02d%02d", turn, c)
			add("assistant", fmt.Sprintf(`{"model":"claude-sonnet-4-5-20250929","id":"msg_%s","type":"message","role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"echo %d %d"}}],"stop_reason":"tool_use",%s}`, id, id, turn, c, usage), "")
			add("user", fmt.Sprintf(`{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"out %d %d\n%s","is_error":false}]}`, id, turn, c, strings.Repeat("line\\n", 20)), "")
		}
		add("assistant", fmt.Sprintf(`{"model":"claude-sonnet-4-5-20250929","id":"msg_longend%d","type":"message","role":"assistant","content":[{"type":"text","text":"Long answer %d."}],"stop_reason":"end_turn",%s}`, turn, turn, usage), "")
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return projects
}

// TestEmbedLong: on a very long page, whose later turns wait packed,
// a link to turns 5–7 makes and marks them, and their embed shows them.
func TestEmbedLong(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	site := filepath.Join(t.TempDir(), "site")
	if _, err := build.Run(context.Background(), build.Config{Paths: []string{longSession(t)}, Out: site, State: filepath.Join(t.TempDir(), "state")}); err != nil {
		t.Fatalf("build: %v", err)
	}
	srv := httptest.NewServer(staticHandler(site))
	t.Cleanup(srv.Close)
	u := srv.URL + "/" + link.Session(link.ProjectSlug("/home/test/long"), "10a90000-0000-4000-8000-000000000001")
	tb := newTab(t)
	tb.allow(srv.URL + "/")
	tb.open(u + "?view=conversation")
	if !eval[bool](tb, `!!document.querySelector(".conversation > .turn.later")`) {
		t.Fatal("the page is not a long one: no turn waits to be made")
	}
	tb.open(u + "?view=conversation#t-5..t-7")
	tb.waitFor(`document.querySelectorAll(".turn.in-range:not(.later)").length === 3`)
	if got := eval[string](tb, `[...document.querySelectorAll(".turn.in-range")].map(t => t.id + ":" + /Long answer \d/.exec(t.textContent)).join(" ")`); got != "t-5:Long answer 5 t-6:Long answer 6 t-7:Long answer 7" {
		t.Errorf("#t-5..t-7 marks %q", got)
	}
	tb.waitFor(`window.ccsiteSettled()`)
	if top := eval[float64](tb, `document.getElementById("t-5").getBoundingClientRect().top`); top < 0 || top > 120 {
		t.Errorf("turn 5 is at %.0f px from the top of the window, want it scrolled to", top)
	}
	tb.open(u + "?embed=t-5..t-7")
	tb.waitFor(`[...document.querySelectorAll(".turn.embed-shown")].every(t => !t.classList.contains("later"))`)
	if got := eval[string](tb, `[...document.querySelectorAll(".conversation > .turn")].filter(t => t.offsetParent).map(t => t.id + ":" + /Long answer \d/.exec(t.textContent)).join(" ")`); got != "t-5:Long answer 5 t-6:Long answer 6 t-7:Long answer 7" {
		t.Errorf("?embed=t-5..t-7 shows %q", got)
	}
}

// axeEmbed runs axe-core on what the tab shows (over HTTP only: the same
// page from file:// adds nothing).
func axeEmbed(t *testing.T, tb *tab, scheme, what string) {
	t.Helper()
	if scheme != "http" {
		return
	}
	src, err := os.ReadFile(axeScript)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range axeCheck(tb, string(src), what) {
		t.Error(p)
	}
}
