package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"ccsite/build"
	"ccsite/search"
)

// TestSearchCJK: Japanese, Chinese and Korean words are found by the
// static index from file:// with the same results and scores as bleve (a
// two-character word, a whole sentence, a mixed query, one character, a
// Hangul word with a particle), and the search page marks them in the
// snippets.
func TestSearchCJK(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "-home-aki-app")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(uuid, sid, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"` + sid + `","cwd":"/home/aki/app","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	files := map[string]string{
		"c1a00000-0000-4000-8000-000000000001": line("c1a00000-0000-4000-8000-0000000000a1", "c1a00000-0000-4000-8000-000000000001", "アップデートの技術スタックを最新にしました。Dockerの設定も変更します。"),
		"c1a00000-0000-4000-8000-000000000002": line("c1a00000-0000-4000-8000-0000000000a2", "c1a00000-0000-4000-8000-000000000002", "我们需要更新数据库的配置"),
		"c1a00000-0000-4000-8000-000000000003": line("c1a00000-0000-4000-8000-0000000000a3", "c1a00000-0000-4000-8000-000000000003", "데이터를 저장하는 방법을 알려주세요"),
	}
	for id, data := range files {
		if err := os.WriteFile(filepath.Join(proj, id+".jsonl"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := extraSite(t, "cjk", build.Config{Paths: []string{dir}})
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(s.dir, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	tb := newTab(t)
	s.openIn(tb)
	tb.open(s.fileURL + "search.html")
	tb.waitFor(`!!window.ccsiteSearch`)
	var ps []probe
	for _, q := range []string{"アップデート", "技術スタック", "最新", "アップデートの技術スタックを最新にしました", "Docker の設定", "数据库", "配置", "库", "데이터", "데이터를"} {
		ps = append(ps, probe{text: q})
		got := staticQuery(tb, probe{text: q}, 5)
		if got.Error != "" || got.Total == 0 {
			t.Errorf("%q: the static index found %d (%s)", q, got.Total, got.Error)
		}
	}
	compareStatic(t, tb, idx, ps)
	// The page shows the hit with the words marked.
	tb.open(s.fileURL + "search.html?q=" + "技術スタック")
	tb.waitFor(`document.querySelectorAll(".search-results mark").length > 0`)
	marks := eval[[]string](tb, `[...document.querySelectorAll(".search-results mark")].map(m => m.textContent)`)
	joined := ""
	for _, m := range marks {
		joined += m
	}
	if joined == "" || !containsAll(joined, "技術", "スタック") {
		t.Errorf("marks %q, want 技術スタック marked", marks)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		found := false
		for i := 0; i+len(x) <= len(s); i++ {
			if s[i:i+len(x)] == x {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
