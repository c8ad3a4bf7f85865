package browsertest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// clipboardMu serialises tests that use the clipboard: the browser has one.
var clipboardMu sync.Mutex

// clipboardTab opens a tab on the test server that may read and write the
// clipboard, the browser's one: a test reads back through it what a page,
// from file:// or over HTTP, copied.
func clipboardTab(t *testing.T) *tab {
	t.Helper()
	tb := newTab(t)
	grantClipboard(tb)
	tb.page("http", "index.html")
	return tb
}

// grantClipboard lets pages of the test server read and write the clipboard.
func grantClipboard(tb *tab) {
	tb.t.Helper()
	origin := strings.TrimSuffix(tb.env.httpURL, "/")
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		callBrowser(tb, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name},
			Setting:    browser.PermissionSettingGranted,
			Origin:     origin,
		})
	}
}

// setClipboard puts text on the clipboard, as a user gesture.
func setClipboard(tb *tab, text string) {
	tb.t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Evaluate[chromedp.Void](
		"navigator.clipboard.writeText("+strconv.Quote(text)+")",
		chromedp.EvalAwaitPromise, func(p *runtime.EvaluateParams) { p.UserGesture = new(true) }))
	if err != nil {
		tb.t.Fatalf("write the clipboard: %v", err)
	}
}

// clipboard reads the clipboard's text.
func clipboard(tb *tab) string {
	tb.t.Helper()
	return await[string](tb, "navigator.clipboard.readText()")
}

// copyButtonJS is the copy button of the first code block labelled lang.
func copyButtonJS(lang string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(".code-block")]
		.find(b => b.querySelector(".code-lang")?.textContent === %s)?.querySelector(".copy")`, strconv.Quote(lang))
}

// TestCopyCode clicks a code block's Copy button, from file:// and over
// HTTP, and reads the browser's clipboard back: it holds the code exactly,
// without line numbers or markup, and the button says "Copied", then "Copy"
// again.
func TestCopyCode(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	cases := []struct {
		name, page, lang, want string
	}{
		{name: "read-with-line-numbers", page: searchPage, lang: "search.ts",
			want: "export function matches(item: Product, query: string): boolean {\n" +
				"  return item.name.toLowerCase().includes(query.toLowerCase());\n" +
				"}"},
		{name: "write-with-lexer-errors", page: searchPage, lang: "fold.ts",
			want: "export const fold = (s: string) =>\n" +
				"  s.normalize('NFD').replace(/\\p{M}/gu, '').toLowerCase();"},
		{name: "bash-command", page: searchPage, lang: "bash", want: "npm test -- search"},
		{name: "hostile-fence", page: hostilePage, lang: "html", want: hostileAll},
	}
	clip := clipboardTab(t)
	pages := newTab(t)
	for _, scheme := range []string{"file", "http"} {
		for i, c := range cases {
			t.Run(scheme+"/"+c.name, func(t *testing.T) {
				tb, clip := pages.in(t), clip.in(t)
				tb.page(scheme, c.page)
				button := copyButtonJS(c.lang)
				if !eval[bool](tb, "!!("+button+")") {
					t.Fatalf("no code block labelled %q on %s", c.lang, c.page)
				}
				clipboardMu.Lock()
				defer clipboardMu.Unlock()
				setClipboard(clip, "clipboard before the click")
				tb.clickJS(button)
				tb.waitFor(button + `.textContent === "Copied" && ` + button + `.classList.contains("done")`)
				if got := clipboard(clip); got != c.want {
					t.Errorf("clipboard after Copy:\n got %q\nwant %q", got, c.want)
				}
				if i == 0 {
					tb.waitFor(button + `.textContent === "Copy" && !` + button + `.classList.contains("done")`)
				}
				tb.assertClean(c.page)
			})
		}
	}
}
