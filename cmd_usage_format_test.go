package main

import (
	"bufio"
	"strings"
	"testing"
)

// TestUsageTextGroupsDigits: on a terminal the token counts are grouped by
// thousands ("1,234,567"); written to a pipe or a file they stay plain
// digits, as scripts read them.
func TestUsageTextGroupsDigits(t *testing.T) {
	doc := usageDoc{By: "day"}
	doc.Pricing.Date = "2026-01-01"
	row := usageRow{Key: "2026-02-02", Input: 1234567, Output: 8900, CacheWrite: 120, CacheRead: 98765432,
		Total: 1234567 + 8900 + 120 + 98765432, Cost: 12345.5, CostUnknown: true, UnknownTokens: 4321,
		UnknownModels: []string{"m"}}
	doc.Rows = []usageRow{row}
	doc.Total = row
	doc.Total.Key = "total"
	text := func(group bool) string {
		var b strings.Builder
		w := bufio.NewWriter(&b)
		writeUsageText(w, doc, group)
		w.Flush()
		return b.String()
	}
	term := text(true)
	for _, want := range []string{"  1,234,567", "  8,900", "  120", "  98,765,432", "  100,009,019", "$12,345.50+?", "+? : 4,321 tokens"} {
		if !strings.Contains(term, want) {
			t.Errorf("on a terminal:\n%s\nlacks %q", term, want)
		}
	}
	pipe := text(false)
	for _, want := range []string{"  1234567", "  8900", "  98765432", "  100009019", "$12345.50+?", "+? : 4321 tokens"} {
		if !strings.Contains(pipe, want) {
			t.Errorf("to a pipe:\n%s\nlacks %q", pipe, want)
		}
	}
	if strings.Contains(pipe, ",") {
		t.Errorf("to a pipe, digits grouped:\n%s", pipe)
	}
}
