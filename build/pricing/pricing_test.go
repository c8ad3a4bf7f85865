package pricing

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-4-5-20251101":                   "claude-opus-4-5",
		"claude-sonnet-4-5[1m]":                      "claude-sonnet-4-5",
		"Claude-Sonnet-4-20250514":                   "claude-sonnet-4",
		"us.anthropic.claude-opus-4-1-20250805-v1:0": "claude-opus-4-1",
		"anthropic/claude-haiku-4-5":                 "claude-haiku-4-5",
		"claude-sonnet-4-5@20250929":                 "claude-sonnet-4-5",
		"claude-3-5-sonnet-latest":                   "claude-3-5-sonnet",
		"claude-opus-4-6":                            "claude-opus-4-6",
	} {
		// Twice: worked out, then as kept.
		for range 2 {
			if got := Normalize(in); got != want {
				t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
			}
		}
	}
	// Past the kept names, each is still worked out.
	for i := range 600 {
		in := fmt.Sprintf("claude-x-%d-20250101", i)
		if got, want := Normalize(in), fmt.Sprintf("claude-x-%d", i); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefault(t *testing.T) {
	d := Default()
	if d.Date == "" {
		t.Error("embedded table has no date")
	}
	for _, m := range []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001",
		"claude-sonnet-4-20250514", "claude-opus-4-20250514", "claude-opus-4-1-20250805", "claude-3-7-sonnet-20250219",
		"claude-3-5-haiku-20241022", "claude-opus-4-6", "claude-sonnet-4-5[1m]"} {
		if _, ok := d.Lookup(m); !ok {
			t.Errorf("no price for %s", m)
		}
	}
	// No prefix guessing: a model the table does not name is unknown.
	for _, m := range []string{"claude-opus-5", "claude-opus-4-9", "sonnet", "", "<synthetic>", "gpt-4"} {
		if _, ok := d.Lookup(m); ok {
			t.Errorf("%q has a price", m)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestCost(t *testing.T) {
	p, _ := Default().Lookup("claude-sonnet-4-5-20250929")
	// 1000 in ×3 + 2000 out ×15 + 10000 read ×0.3 + 4000 5m ×3.75 + 1000 1h ×6, per million.
	u := Usage{Input: 1000, Output: 2000, CacheRead: 10000, CacheWrite: 5000, CacheWrite1h: 1000}
	want := (1000*3 + 2000*15 + 10000*0.3 + 4000*3.75 + 1000*6.0) / 1e6
	if got := p.Cost(u); !near(got, want) {
		t.Errorf("cost = %v, want %v", got, want)
	}
	// Above 200k input tokens, the whole request at the long-context rates.
	u = Usage{Input: 10, Output: 100, CacheRead: 250000}
	want = (10*6 + 100*22.5 + 250000*0.6) / 1e6
	if got := p.Cost(u); !near(got, want) {
		t.Errorf("long-context cost = %v, want %v", got, want)
	}
	// Haiku has no tier: the same request at its own rates.
	h, _ := Default().Lookup("claude-haiku-4-5")
	if got, want := h.Cost(u), (10*1+100*5+250000*0.1)/1e6; !near(got, want) {
		t.Errorf("haiku cost = %v, want %v", got, want)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(path, []byte(`{"date":"2030-01-01","models":{
		"claude-opus-5-20300101":{"input":1,"output":2,"cacheWrite5m":3,"cacheWrite1h":4,"cacheRead":5},
		"claude-haiku-4-5":{"input":9,"output":9,"cacheWrite5m":9,"cacheWrite1h":9,"cacheRead":9}}}`), 0o644)
	tb, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Date != "2030-01-01" {
		t.Errorf("date = %q", tb.Date)
	}
	if p, ok := tb.Lookup("claude-opus-5"); !ok || p.CacheWrite1h != 4 {
		t.Errorf("added model: %+v %v", p, ok)
	}
	if p, _ := tb.Lookup("claude-haiku-4-5-20251001"); p.Input != 9 {
		t.Errorf("override: %+v", p)
	}
	if _, ok := tb.Lookup("claude-sonnet-4-5"); !ok {
		t.Error("embedded model lost")
	}
	if p, _ := Default().Lookup("claude-haiku-4-5"); p.Input != 1 {
		t.Error("Load changed the embedded table")
	}
	if tb, err := Load(""); err != nil || tb != Default() {
		t.Error(`Load("") is not the embedded table`)
	}
	os.WriteFile(path, []byte(`{"models":{"x":{"longContext":{"above":0}}}}`), 0o644)
	if _, err := Load(path); err == nil {
		t.Error("bad tier accepted")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

// TestOpenAIModels: the models Codex CLI sessions name are priced, their
// dated ids too; one the table does not name stays unknown.
func TestOpenAIModels(t *testing.T) {
	tab := Default()
	for model, want := range map[string]float64{
		// 1M input, 1M cached, 1M output.
		"gpt-5-codex":          1.25 + 0.125 + 10,
		"gpt-5-2025-08-07":     1.25 + 0.125 + 10,
		"openai/gpt-5.1-codex": 1.25 + 0.125 + 10,
		"o4-mini":              1.1 + 0.275 + 4.4,
		"codex-mini-latest":    1.5 + 0.375 + 6,
		"gpt-5.2":              1.75 + 0.175 + 14,
	} {
		p, ok := tab.Lookup(model)
		if !ok {
			t.Errorf("%s: no price", model)
			continue
		}
		if got := p.Cost(Usage{Input: 1e6, CacheRead: 1e6, Output: 1e6}); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s: cost %v, want %v", model, got, want)
		}
	}
	if _, ok := tab.Lookup("gpt-5.6-sol"); ok {
		t.Error("gpt-5.6-sol is priced; no price was published for it")
	}
}
