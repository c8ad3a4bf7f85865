package browsertest

import (
	"context"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"ccsite/build"
	"ccsite/search"
	"ccsite/serve"
)

// TestSearchAgent: agent:codex on the search page, from file:// (static
// shards) and from ccsite serve (/api/search), lists only the demo's
// Codex session, each group saying Codex, as many hits as bleve finds;
// agent:claude lists none of it and names no agent.
func TestSearchAgent(t *testing.T) {
	e := sharedEnv(t)
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(e.site, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	srv := httptest.NewServer(serve.Handler(e.site, idx))
	defer srv.Close()
	for _, c := range []struct{ name, base string }{{"file", e.fileURL}, {"serve", srv.URL + "/"}} {
		for _, key := range []string{"codex", "claude"} {
			t.Run(c.name+"/"+key, func(t *testing.T) {
				want, err := idx.Search(context.Background(), search.Query{Text: "agent:" + key, Size: 20})
				if err != nil || want.Total == 0 {
					t.Fatalf("bleve finds nothing of agent:%s: %v", key, err)
				}
				tb := newTab(t)
				tb.allow(c.base)
				tb.open(c.base + "search.html?q=agent:" + key)
				tb.waitFor(`document.querySelectorAll("#search-results li.hit").length > 0`)
				st := eval[struct {
					Status string   `json:"status"`
					Hrefs  []string `json:"hrefs"`
					Metas  []string `json:"metas"`
				}](tb, `(() => ({
					status: document.getElementById("search-status").textContent,
					hrefs: [...document.querySelectorAll("#search-results a.hit-link")].map(e => e.getAttribute("href")),
					metas: [...document.querySelectorAll("#search-results .hit-meta")].map(e => e.textContent),
				}))()`)
				if !strings.HasPrefix(st.Status, strconv.Itoa(int(want.Total))+" result") {
					t.Errorf("status %q, want %d results", st.Status, want.Total)
				}
				for _, h := range st.Hrefs {
					if strings.Contains(h, strings.TrimSuffix(codexPage, ".html")) != (key == "codex") {
						t.Errorf("agent:%s lists %s", key, h)
					}
				}
				for _, m := range st.Metas {
					if strings.Contains(m, "Codex") != (key == "codex") {
						t.Errorf("agent:%s: a group says %q", key, m)
					}
				}
				if len(st.Hrefs) == 0 || len(st.Metas) == 0 {
					t.Errorf("agent:%s: no hits shown: %+v", key, st)
				}
			})
		}
	}
}
