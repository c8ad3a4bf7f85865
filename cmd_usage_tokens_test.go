package main

import (
	"bufio"
	"context"
	"math"
	"strings"
	"testing"

	"ccsite/build/pricing"
)

// TestUsageAdvisorAndPartial: ccsite usage counts the advisor tool's calls
// under the advisor's model, at its price, and says the output is a lower
// bound when a count is a partial record (the demo's advisor session).
func TestUsageAdvisorAndPartial(t *testing.T) {
	doc, err := collectUsage(context.Background(), []string{"demo/projects/-home-demo-infra"}, "model", pricing.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var opus *usageRow
	for i := range doc.Rows {
		if doc.Rows[i].Key == "claude-opus-4-7" {
			opus = &doc.Rows[i]
		}
	}
	if opus == nil {
		t.Fatalf("no row for the advisor's model: %+v", doc.Rows)
	}
	if want := (49160*5 + 1882*25.0) / 1e6; opus.Input != 49160 || opus.Output != 1882 || math.Abs(opus.Cost-want) > 1e-6 || opus.Responses != 0 {
		t.Errorf("advisor row = %+v, want 49160 in, 1882 out, $%.6f, no responses of its own", *opus, want)
	}
	if doc.Total.PartialOutputs != 1 || doc.Total.OutputEstimate != doc.Total.Output+183-6 {
		t.Errorf("total partial = %d, estimate %d (output %d)", doc.Total.PartialOutputs, doc.Total.OutputEstimate, doc.Total.Output)
	}
	var b strings.Builder
	w := bufio.NewWriter(&b)
	writeUsageText(w, doc, false)
	w.Flush()
	if !strings.Contains(b.String(), "output is a lower bound: 1 response recorded part of its count") {
		t.Errorf("the table does not say the output is a lower bound:\n%s", b.String())
	}
}
