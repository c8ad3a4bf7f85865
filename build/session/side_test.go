package session

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNewerShapes: the record kinds of Claude Code 2.1.2xx are all known.
// The last cost-state is the recorded cost, continued-in names the session
// the conversation goes on in (and shows as an event at the end), the
// bookkeeping kinds are side records only, a message of an agent team keeps
// every teammate's block, and promptSource decides which prompts open turns.
func TestNewerShapes(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "newer-shapes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "newer-shapes.jsonl", Options{})
	checkInvariants(t, s)
	if len(s.Unknown) != 0 {
		t.Errorf("unknown records: %v", s.Unknown)
	}
	c := s.RecordedCost
	if c == nil || c.TotalCostUSD != 1.8421 || c.TotalDurationMs != 734210 || c.ModelUsage["claude-opus-5[1m]"].OutputTokens != 8812 {
		t.Errorf("RecordedCost = %+v, want the last cost-state", c)
	}
	if s.ContinuedIn != "9c2d4e6f-1a3b-4c5d-8e7f-0a1b2c3d4e5f" {
		t.Errorf("ContinuedIn = %q", s.ContinuedIn)
	}
	var kinds []Kind
	for _, m := range s.Messages {
		kinds = append(kinds, m.Kind)
	}
	want := []Kind{KindPrompt, KindAnswer, KindMeta, KindQueued, KindNotification, KindSystem}
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds = %q, want %q", kinds, want)
	}
	if last := s.Messages[len(s.Messages)-1]; last.Type != "continued-in" {
		t.Errorf("last message is %s, want the continued-in event", last.Type)
	}
	if s.Stats.Turns != 2 || s.Stats.Prompts != 2 {
		t.Errorf("turns/prompts = %d/%d, want 2/2 (typed and queued; not system)", s.Stats.Turns, s.Stats.Prompts)
	}
	a := s.Messages[1]
	if a.Effort != "high" || a.Attribution.String() != "skill release-notes" {
		t.Errorf("answer effort %q, attribution %q", a.Effort, a.Attribution.String())
	}
	if src := s.Messages[2].PromptSource; src != PromptSourceSystem {
		t.Errorf("PromptSource = %q", src)
	}
	tm := s.Messages[4].Teammates
	wantTM := []Teammate{
		{ID: "researcher", Color: "blue", Summary: "Slow query", Body: "Index created_at."},
		{ID: "tester", Color: "green", Summary: "Tests pass", Body: "48 pass."},
	}
	if !slices.Equal(tm, wantTM) {
		t.Errorf("Teammates = %+v, want %+v", tm, wantTM)
	}
	// Every record outside the tree is a side record, counted by kind.
	side := map[string]int{}
	for _, sd := range s.Side {
		side[sd.Kind]++
	}
	for _, k := range []string{"cost-state", "continued-in", "worktree-state", "agent-color", "frame-link",
		"relocated", "fork-context-ref", "dev-mods", "started", "result", "task-summary",
		"content-replacement", "artifact-ledger", "agent-name", "file-history-delta", "atis-latch"} {
		if side[k] == 0 {
			t.Errorf("no side record of kind %s (side: %v)", k, side)
		}
	}
	if side["cost-state"] != 2 {
		t.Errorf("cost-state side records = %d, want 2", side["cost-state"])
	}
}

// TestLenientCostState: a cost-state of another shape is still known and
// never fails the build.
func TestLenientCostState(t *testing.T) {
	t.Parallel()
	s := buildWithTimeout(t, []byte(`{"type":"cost-state","totalCostUSD":"n/a","modelUsage":[1]}`+"\n"+
		`{"type":"continued-in"}`+"\n"), "odd.jsonl", Options{})
	checkInvariants(t, s)
	if s.RecordedCost == nil {
		t.Error("RecordedCost is nil")
	}
	if len(s.Messages) != 1 || s.Messages[0].Kind != KindSystem {
		t.Errorf("continued-in without a session id: messages %v", s.Messages)
	}
}
