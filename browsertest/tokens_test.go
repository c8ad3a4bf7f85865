package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"ccsite/build/link"
)

// advisorPage is the demo session that asks the advisor tool and holds a
// partial output count.
var advisorPage = link.Session(link.ProjectSlug("/home/demo/infra"), "4decec74-5579-512c-9c10-022f83482f79")

// TestTokensShown: at 1280 and 375 px the session header and (wide) the
// turn lines say what the records hold about tokens: the advisor's calls
// counted at its model, a partial output count as a labelled estimate,
// Claude Code's own time split; the advisor's card says its advice is
// encrypted instead of printing it. With $CCSITE_SHOTS set it writes the
// page's screenshots, light and dark.
func TestTokensShown(t *testing.T) {
	sharedEnv(t)
	t.Parallel()
	tb := newTab(t)
	dir := os.Getenv("CCSITE_SHOTS")
	for _, width := range []int64{1280, 375} {
		tb.viewport(width, 900, width < 600)
		tb.page("http", advisorPage)
		eval[int](tb, `(document.querySelectorAll("details.tool-advisor").forEach(d => d.open = true), 0)`)
		text := strings.Join(strings.Fields(eval[string](tb, `document.body.innerText`)), " ")
		wants := []string{
			"≥ 2,378 out (~2,555 est., 1 partial record)",
			"claude-opus-4-7 · 2 calls · 49,160 in · 1,882 out · $0.29",
			"API 1 min 1 s · tools 500 ms of 1 min 10 s · 1 line added, 0 removed",
			"The advice (132 bytes) is encrypted",
			"The plan holds.",
		}
		if width > 600 { // a phone hides the turn lines' facts
			wants = append(wants, "1,882 tokens out (1,480 by the advisor)", "~183 tokens out (est.; ≥ 6 recorded, partial)")
		}
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("%d px: the page does not say %q", width, want)
			}
		}
		if strings.Contains(text, "advisor_redacted_result") || strings.Contains(text, "EpcKCkYI") {
			t.Errorf("%d px: the encrypted advice is printed", width)
		}
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, theme := range []string{"light", "dark"} {
			eval[int](tb, `(document.documentElement.setAttribute("data-theme", "`+theme+`"), 0)`)
			png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			name := fmt.Sprintf("advisor-%s-%d.png", theme, width)
			if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tb.assertClean("tokens")
}
