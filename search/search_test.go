package search_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"ccsite/build"
	"ccsite/search"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	// Accents folded, CJK runs as bigrams (see search/tokenizer.go).
	got := search.Tokens("Crème brûlée, foo_bar-baz 42 ½ «x» 日本語 ÉTÉ ＡＢＣ ｶﾀｶﾅ")
	want := []string{"creme", "brulee", "foo_bar", "baz", "42", "½", "x", "日本", "本語", "ete", "abc", "カタ", "タカ", "カナ"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
}

// demoIndex builds the demo site once per test and opens its index.
func demoIndex(t *testing.T) *search.Index {
	t.Helper()
	out := t.TempDir()
	sum, err := build.Run(context.Background(), build.Config{Paths: []string{"../demo/projects"}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Docs < 40 {
		t.Fatalf("the demo gave %d search documents, want dozens", sum.Docs)
	}
	idx, err := search.Open(build.IndexPath(build.DefaultStateDir(out, os.Getenv)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx
}

func TestSearchDemo(t *testing.T) {
	t.Parallel()
	idx := demoIndex(t)
	ctx := context.Background()
	run := func(q search.Query) search.Results {
		t.Helper()
		res, err := idx.Search(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return res
	}
	t.Run("word", func(t *testing.T) {
		res := run(search.Query{Text: "accents"})
		if res.Total != 4 || len(res.Hits) != 4 {
			t.Fatalf("accents: %d hits, want the prompt, the answer, the test and the test run", res.Total)
		}
		for _, h := range res.Hits {
			if !strings.Contains(h.Page, "8f6c56cd") || !strings.Contains(h.Snippet, "<mark>accents</mark>") {
				t.Errorf("hit %s: snippet %q", h.ID, h.Snippet)
			}
		}
	})
	t.Run("all words", func(t *testing.T) {
		res := run(search.Query{Text: "status tile blank"})
		for _, h := range res.Hits {
			low := strings.ToLower(h.Snippet)
			for _, w := range []string{"status", "tile", "blank"} {
				if !strings.Contains(low, "<mark>"+w) {
					t.Errorf("hit %s lacks %q: %q", h.ID, w, h.Snippet)
				}
			}
		}
		if res.Total == 0 {
			t.Error("no hit")
		}
	})
	t.Run("phrase", func(t *testing.T) {
		res := run(search.Query{Text: `"status tile"`})
		if res.Total == 0 {
			t.Fatal("no hit")
		}
		// "tile" and "status" apart do not make the phrase.
		if n := run(search.Query{Text: `"tile status"`}).Total; n != 0 {
			t.Errorf(`"tile status": %d hits, want none`, n)
		}
	})
	t.Run("prefix", func(t *testing.T) {
		if n := run(search.Query{Text: "pagin"}).Total; n != 0 {
			t.Errorf("pagin as a word: %d hits, want none", n)
		}
		res := run(search.Query{Text: "pagin", Prefix: true})
		if res.Total == 0 || !strings.Contains(res.Hits[0].Snippet, "<mark>pagin") && !strings.Contains(strings.ToLower(res.Hits[0].Snippet), "<mark>pagin") {
			t.Errorf("pagin…: %d hits, first %+v", res.Total, res.Hits)
		}
	})
	t.Run("filters", func(t *testing.T) {
		res := run(search.Query{Text: "npm tool:Bash"})
		if res.Total != 1 || res.Hits[0].Tool != "Bash" || res.Hits[0].Role != "tool" || !strings.HasPrefix(res.Hits[0].Anchor, "tool-") {
			t.Errorf("npm tool:Bash: %+v", res.Hits)
		}
		for _, h := range run(search.Query{Text: "the", Project: "infra", Size: 50}).Hits {
			if !strings.HasSuffix(h.Project, "/infra") {
				t.Errorf("project infra: hit in %s", h.Project)
			}
		}
		for _, h := range run(search.Query{Text: "role:thinking the", Size: 50}).Hits {
			if h.Role != "thinking" {
				t.Errorf("role:thinking: a %s hit", h.Role)
			}
		}
		// Filters alone: bleve runs them unscored, as one term searcher
		// of field "*" (which the BM25 stats must name).
		only := run(search.Query{Text: "role:thinking tool:Bash", Size: 50})
		if only.Total != 0 {
			t.Errorf("role:thinking tool:Bash: %d hits, want none", only.Total)
		}
		only = run(search.Query{Text: "role:tool tool:Bash", Size: 50})
		if only.Total == 0 {
			t.Error("role:tool tool:Bash: no hit")
		}
		for _, h := range only.Hits {
			if h.Role != "tool" || h.Tool != "Bash" {
				t.Errorf("role:tool tool:Bash: a %s %s hit", h.Role, h.Tool)
			}
		}
		after := run(search.Query{Text: "the after:2026-03-05", Size: 100})
		before := run(search.Query{Text: "the before:2026-03-04", Size: 100})
		if after.Total == 0 || before.Total == 0 {
			t.Fatalf("date filters: %d after, %d before", after.Total, before.Total)
		}
		cut := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
		for _, h := range after.Hits {
			if h.Time.Before(cut) {
				t.Errorf("after:2026-03-05 gave a hit of %s", h.Time)
			}
		}
		for _, h := range before.Hits {
			if !h.Time.Before(cut) {
				t.Errorf("before:2026-03-04 gave a hit of %s", h.Time)
			}
		}
	})
	t.Run("session", func(t *testing.T) {
		all := run(search.Query{Text: "the", Size: 200})
		sessions := map[string]int{}
		for _, h := range all.Hits {
			sessions[h.Session]++
		}
		if len(sessions) < 2 {
			t.Fatalf("the: hits in %d sessions, want several", len(sessions))
		}
		one := all.Hits[0].Session
		for _, q := range []search.Query{{Text: "the", Session: one, Size: 200}, {Text: "the session:" + one, Size: 200}} {
			res := run(q)
			if res.Total == 0 || len(all.Hits) == int(all.Total) && int(res.Total) != sessions[one] {
				t.Errorf("%+v: %d hits, the session has %d", q, res.Total, sessions[one])
			}
			for _, h := range res.Hits {
				if h.Session != one {
					t.Errorf("%+v: a hit of session %s", q, h.Session)
				}
			}
		}
		if _, err := idx.Search(ctx, search.Query{Session: one}); err != nil {
			t.Errorf("a session alone is a query: %v", err)
		}
	})
	t.Run("escaped snippet", func(t *testing.T) {
		res := run(search.Query{Text: "alert"})
		if res.Total == 0 {
			t.Fatal("no hit for alert")
		}
		if s := res.Hits[0].Snippet; strings.Contains(s, "<script>") || !strings.Contains(s, "&lt;script&gt;") {
			t.Errorf("snippet not escaped: %q", s)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if _, err := idx.Search(ctx, search.Query{Text: "  ,,  "}); !errors.Is(err, search.ErrEmpty) {
			t.Errorf("empty query: %v, want ErrEmpty", err)
		}
	})
	t.Run("stable order", func(t *testing.T) {
		a, b := run(search.Query{Text: "the", Size: 30}), run(search.Query{Text: "the", Size: 30})
		for i := range a.Hits {
			if a.Hits[i].ID != b.Hits[i].ID {
				t.Fatalf("two runs differ at %d: %s, %s", i, a.Hits[i].ID, b.Hits[i].ID)
			}
		}
	})
}

func TestDisplayText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ role, tool, in, want string }{
		{"answer", "", "## Plan\n\n**Bold** and __strong words__ and `code **kept**`.\n- item one\n  * nested\n1. first\n> quoted",
			"Plan Bold and strong words and code **kept**. item one nested first quoted"},
		{"answer", "", "See [the docs](https://example.com/x?a=1) and ![a chart](img.png).", "See the docs and a chart."},
		{"answer", "", "Call __init__ and foo__bar; ~~old~~ new\n---\n```go\n# not a heading\nx := 1\n```", "Call __init__ and foo__bar; old new # not a heading x := 1"},
		{"prompt", "", "- [x] done\n- [ ] todo\n###### six", "done todo six"},
		{"tool", "Bash", "## raw **output**\n- kept", "## raw **output** - kept"},
		{"tool", "ExitPlanMode", "## Plan\n1. **Do** it", "Plan Do it"},
		{"answer", "", "<script>alert(1)</script> `<b>`", "<script>alert(1)</script> <b>"},
	} {
		if got := search.DisplayText(c.role, c.tool, c.in); got != c.want {
			t.Errorf("DisplayText(%s, %q)\n = %q\nwant %q", c.role, c.in, got, c.want)
		}
	}
}
