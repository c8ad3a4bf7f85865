package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSplitPromptRecords: 2.1.x sometimes writes one submitted prompt as
// several user records with one timestamp: a pasted image, then the text
// typed with it; the IDE's <ide_opened_file> context, then the text. A
// person typed one prompt each time, so each is one turn, titled by the
// text typed, and the session's title is the first typed text.
func TestSplitPromptRecords(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "split-prompts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "split-prompts.jsonl", Options{})
	checkInvariants(t, s)
	var excerpts []string
	for _, tr := range s.Turns {
		if tr.HasPrompt {
			excerpts = append(excerpts, tr.Excerpt)
		}
	}
	want := []string{"what's this an image of?", "what's the session id?", "and the slug?"}
	var problems []string
	if !slices.Equal(excerpts, want) {
		problems = append(problems, fmt.Sprintf("turn excerpts = %q, want %q", excerpts, want))
	}
	if s.Stats.Prompts != 3 || s.Stats.Turns != 3 {
		problems = append(problems, fmt.Sprintf("prompts/turns = %d/%d, want 3/3", s.Stats.Prompts, s.Stats.Turns))
	}
	if s.Title != want[0] {
		problems = append(problems, fmt.Sprintf("title = %q (%s), want %q", s.Title, s.TitleSource, want[0]))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestTeammateAndMemory: a message from another agent of a team is a
// notification, not a prompt; a "# note" saved to memory is typed by the
// person and opens a turn shown as "# note".
func TestTeammateAndMemory(t *testing.T) {
	t.Parallel()
	data := []byte(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":"<user-memory-input>always use conventional commits</user-memory-input>"}}
{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"2026-02-01T10:00:05.000Z","message":{"role":"user","content":"<teammate-message teammate_id=\"lead\">pick up the lint task</teammate-message>"}}
{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s","timestamp":"2026-02-01T10:00:09.000Z","message":{"role":"user","content":"<teammate-message>pick up the lint task</teammate-message>"}}
`)
	s := buildWithTimeout(t, data, "team.jsonl", Options{})
	var got []string
	for _, m := range s.Messages {
		got = append(got, fmt.Sprintf("%s/%t", m.Kind, m.Prompt))
	}
	if want := []string{"prompt/true", "notification/false", "notification/false"}; !slices.Equal(got, want) {
		t.Errorf("kinds = %v, want %v", got, want)
	}
	if c := s.Messages[1].Command; c == nil || c.Args != "lead" || c.Notice != "pick up the lint task" {
		t.Errorf("teammate command = %+v, want from lead", c)
	}
	if len(s.Turns) == 0 || s.Turns[0].Excerpt != "# always use conventional commits" {
		t.Errorf("first turn = %+v, want the memory note as its excerpt", s.Turns)
	}
}
