package session

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestTurnTiming: a prompt, 5 s of model, a Bash call of 10 s, 5 s of
// model, an AskUserQuestion answered after 2 min, 10 s of model, a
// turn_duration record a second later saying 152 s; then a turn whose
// answer comes 10 min after its prompt with no record between (idle).
func TestTurnTiming(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "timing.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "timing.jsonl", Options{})
	checkInvariants(t, s)
	if len(s.Turns) != 2 {
		t.Fatalf("turns = %d, want 2", len(s.Turns))
	}
	FillTimings(s)
	want := Timing{WallMs: 152000, Recorded: true, ModelMs: 21000, WaitingMs: 120000, Tools: []ToolTime{{"Bash", 10000}}}
	if got := *s.Turns[0].Timing; !reflect.DeepEqual(got, want) {
		t.Errorf("turn 1 timing = %+v, want %+v", got, want)
	}
	want2 := Timing{WallMs: 600000, IdleMs: 600000}
	if got := TurnTiming(s, s.Turns[1]); !reflect.DeepEqual(got, want2) {
		t.Errorf("turn 2 timing = %+v, want %+v", got, want2)
	}
}
