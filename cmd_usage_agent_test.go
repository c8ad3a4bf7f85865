package main

import (
	"context"
	"testing"

	"ccsite/build/pricing"
)

// TestUsageByAgent: --by agent gives the demo archive a row for Claude
// Code and one for Codex, each named, whose sums are the total, the Codex
// row the figures of the Codex folder alone.
func TestUsageByAgent(t *testing.T) {
	doc, err := collectUsage(context.Background(), []string{"demo/projects"}, "agent", pricing.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 2 || doc.Rows[0].Key != "claude" || doc.Rows[0].Title != "Claude Code" ||
		doc.Rows[1].Key != "codex" || doc.Rows[1].Title != "Codex" {
		t.Fatalf("rows %+v, want claude and codex", doc.Rows)
	}
	if sum := doc.Rows[0].Total + doc.Rows[1].Total; sum != doc.Total.Total || sum == 0 {
		t.Errorf("rows sum to %d tokens, total %d", sum, doc.Total.Total)
	}
	codex, err := collectUsage(context.Background(), []string{"demo/projects/codex"}, "model", pricing.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := doc.Rows[1]; r.Total != codex.Total.Total || r.Input != codex.Total.Input || r.Responses != codex.Total.Responses || r.Total == 0 {
		t.Errorf("codex row %+v, the Codex folder's total %+v", r, codex.Total)
	}
}
