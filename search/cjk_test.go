package search_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"ccsite/search"
)

// TestCJK: words of Japanese, Chinese and Korean text, written with no
// spaces between them, are found: a two-character word, a whole sentence,
// a mixed query, one character, a Hangul word with a particle attached;
// accents and widths folded.
func TestCJK(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	w, err := search.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	docs := []search.Doc{
		{ID: "ja.html#m-1", Project: "/p", Session: "ja", Title: "ja", Role: "prompt", Time: t0, Text: "アップデートの技術スタックを最新にしました"},
		{ID: "ja.html#m-2", Project: "/p", Session: "ja", Title: "ja", Role: "answer", Time: t0, Text: "Dockerの設定を変更しました。"},
		{ID: "zh.html#m-1", Project: "/p", Session: "zh", Title: "zh", Role: "prompt", Time: t0, Text: "我们需要更新数据库的配置"},
		{ID: "ko.html#m-1", Project: "/p", Session: "ko", Title: "ko", Role: "prompt", Time: t0, Text: "데이터를 저장하는 방법을 알려주세요"},
		{ID: "fr.html#m-1", Project: "/p", Session: "fr", Title: "fr", Role: "prompt", Time: t0, Text: "Le café était crème, ＡＢＣ ｶﾀｶﾅ"},
	}
	if _, err := w.Add(docs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, c := range []struct{ q, want string }{
		{"アップデート", "ja.html#m-1"},
		{"技術スタック", "ja.html#m-1"},
		{"最新", "ja.html#m-1"},
		{"アップデートの技術スタックを最新にしました", "ja.html#m-1"},
		{"Docker の設定", "ja.html#m-2"},
		{"設定", "ja.html#m-2"},
		{"数据库", "zh.html#m-1"},
		{"配置", "zh.html#m-1"},
		{"库", "zh.html#m-1"},
		{"데이터", "ko.html#m-1"},
		{"데이터를", "ko.html#m-1"},
		{"cafe creme", "fr.html#m-1"},
		{"abc", "fr.html#m-1"},
		{"カタカナ", "fr.html#m-1"},
	} {
		res, err := idx.Search(context.Background(), search.Query{Text: c.q, Size: 5})
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		if len(res.Hits) == 0 || res.Hits[0].Page+"#"+res.Hits[0].Anchor != c.want {
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.Page+"#"+h.Anchor)
			}
			t.Errorf("%q: hits %v, want %s first", c.q, got, c.want)
		}
	}
	// A word in no document finds nothing (bigrams are not loose).
	if res, _ := idx.Search(context.Background(), search.Query{Text: "技術最新", Size: 5}); len(res.Hits) != 0 {
		t.Errorf("技術最新 (not in any text as such) found %d", len(res.Hits))
	}
}
