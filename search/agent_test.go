package search

import (
	"context"
	"path/filepath"
	"testing"
)

// TestSearchAgent: agent:KEY (in the text or as Query.Agent) finds only
// the documents of that agent's sessions, and each hit says its agent.
func TestSearchAgent(t *testing.T) {
	docs := testDocs(t, 600, 9)
	want := map[string]int{}
	for _, d := range docs {
		want[d.Agent]++
	}
	dir := filepath.Join(t.TempDir(), "idx")
	buildIndex(t, dir, docs)
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, key := range []string{"claude", "codex", "gemini"} {
		for _, q := range []Query{{Text: "agent:" + key, Size: 1000}, {Text: "AGENT:" + key, Size: 1000}, {Agent: key, Size: 1000}} {
			res, err := idx.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if int(res.Total) != want[key] || want[key] == 0 {
				t.Errorf("%+v: %d hits, want %d", q, res.Total, want[key])
			}
			for _, h := range res.Hits {
				if h.Agent != key {
					t.Errorf("%+v: hit %s of agent %q", q, h.ID, h.Agent)
				}
			}
		}
	}
	// With words: the words' hits of that agent only.
	res, err := idx.Search(context.Background(), Query{Text: "build agent:gemini", Size: 1000})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := idx.Search(context.Background(), Query{Text: "build", Size: 1000})
	n := 0
	for _, h := range all.Hits {
		if h.Agent == "gemini" {
			n++
		}
	}
	if len(res.Hits) != n || n == 0 || n == len(all.Hits) {
		t.Errorf("build agent:gemini: %d hits, want %d of %d", len(res.Hits), n, len(all.Hits))
	}
}

func TestAgentKey(t *testing.T) {
	for name, want := range map[string]string{"": "claude", "Claude Code": "claude", "Codex": "codex", "Gemini CLI": "gemini"} {
		if got := AgentKey(name); got != want {
			t.Errorf("AgentKey(%q) = %q, want %q", name, got, want)
		}
	}
}
