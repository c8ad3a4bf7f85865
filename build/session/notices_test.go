package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// whoSaidWhat builds testdata/who-said-what.jsonl (the demo archive's
// session of the same id): background tasks that report while Claude
// works, an agent's report, a teammate's message and idle notice framed
// by Claude Code's text, a tag, the model ending the conversation and the
// bookkeeping kinds newer than 2.1.237.
func whoSaidWhat(t *testing.T) *Session {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "who-said-what.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, data, "who-said-what.jsonl", Options{})
	checkInvariants(t, s)
	return s
}

// TestQueuedTaskNotificationsOpenNoTurn: a background task's completion
// delivered as a queued command (commandMode "task-notification") or as a
// queued user record is a notification of the running turn: it opens no
// turn and is not "You".
func TestQueuedTaskNotificationsOpenNoTurn(t *testing.T) {
	t.Parallel()
	s := whoSaidWhat(t)
	var prompts []string
	for _, m := range s.Messages {
		if m.Prompt {
			prompts = append(prompts, PromptText(m))
		}
	}
	want := []string{"Run the whole test suite in the background, and have a reviewer look at the checkout changes while it runs.", "/tag checkout", "That's all for today, thanks."}
	if !slices.Equal(prompts, want) {
		t.Errorf("prompts = %q, want %q", prompts, want)
	}
	if s.Stats.Turns != 3 {
		t.Errorf("turns = %d, want 3", s.Stats.Turns)
	}
	var notes []*Message
	for _, m := range s.Messages {
		if m.Kind == KindQueued {
			t.Errorf("line %d is a queued prompt: %q", m.Line, m.Text())
		}
		if m.Kind == KindNotification && len(m.Notices) > 0 {
			notes = append(notes, m)
		}
	}
	if len(notes) != 2 {
		t.Fatalf("%d task notifications, want 2", len(notes))
	}
	var first *Message
	for _, m := range s.Messages {
		if m.Prompt {
			first = m
			break
		}
	}
	if notes[0].Turn != first.Turn || notes[1].Turn != first.Turn {
		t.Errorf("notifications in turns %d and %d, want the running turn %d", notes[0].Turn, notes[1].Turn, first.Turn)
	}
	if notes[0].Framing != "Read the output file to retrieve the result: /tmp/claude-1000/-home-demo-webapp/tasks/b7f3k2q.output" {
		t.Errorf("framing = %q", notes[0].Framing)
	}
	f := ParseNotice(notes[0].Notices[0])
	if f.Status != "completed" || f.ExitCode != "0" || f.OutputFile != "/tmp/claude-1000/-home-demo-webapp/tasks/b7f3k2q.output" ||
		f.Summary != `Background command "Run the test suite" completed (exit code 0)` || f.ToolUseID != "toolu_01WhoBash" || f.Rest != "" {
		t.Errorf("first notice = %+v", f)
	}
	g := ParseNotice(notes[1].Notices[0])
	wantUsage := []NameValue{{"subagent_tokens", "48210"}, {"tool_uses", "17"}, {"duration_ms", "184530"}}
	if !slices.Equal(g.Usage, wantUsage) || !strings.HasPrefix(g.Note, "A task-notification fires each time") || g.Rest != "" {
		t.Errorf("second notice = %+v", g)
	}
}

// TestParseNoticeShapes: <usage> as "name: value" lines (2.1.3x) or nested
// tags, several notifications in one record, and text outside the tags
// kept.
func TestParseNoticeShapes(t *testing.T) {
	t.Parallel()
	f := ParseNotice("<task-id>cccc333</task-id>\n<status>completed</status>\n<summary>Agent \"Coverage\" completed</summary>\n<result>Done.</result>\n<usage>total_tokens: 23099\ntool_uses: 2\nduration_ms: 15506</usage>\n<odd>x</odd> tail")
	want := []NameValue{{"total_tokens", "23099"}, {"tool_uses", "2"}, {"duration_ms", "15506"}}
	if !slices.Equal(f.Usage, want) || f.Result != "Done." || f.ExitCode != "" || len(f.Other) != 1 || f.Rest != "tail" {
		t.Errorf("ParseNotice = %+v", f)
	}
	if f := ParseNotice(`<summary>Background command "SSH" failed with exit code 255</summary>`); f.ExitCode != "255" {
		t.Errorf("exit code = %q, want 255", f.ExitCode)
	}
	peer := &Message{}
	if !classifyNotice(peer, "Another Claude session sent a message:\n<cross-session-message from=\"uds:/x\" from-name=\"bay-3d\">give an ETA</cross-session-message>", true) ||
		len(peer.Teammates) != 1 || peer.Teammates[0] != (Teammate{ID: "uds:/x", Name: "bay-3d", Via: TagCrossSession, Body: "give an ETA"}) ||
		peer.Framing != "Another Claude session sent a message:" {
		t.Errorf("cross-session message: %+v", peer)
	}
	m := &Message{}
	two := "<task-notification>\n<task-id>a</task-id>\n</task-notification>\nRead a\n<task-notification>\n<task-id>b</task-id>\n</task-notification>\nRead b"
	if !classifyNotice(m, two, false) || len(m.Notices) != 2 || m.Framing != "Read a\n\nRead b" {
		t.Errorf("two notifications: %+v", m)
	}
}

// TestAgentMessageIsTheAgents: an agent's report (<agent-message>, marked
// isMeta) is credited to the agent, without the hand-back frame and its
// indent; a teammate's idle notice and Claude Code's framing text are
// kept.
func TestAgentMessageIsTheAgents(t *testing.T) {
	t.Parallel()
	s := whoSaidWhat(t)
	var people []*Message
	for _, m := range s.Messages {
		if len(m.Teammates) > 0 {
			people = append(people, m)
		}
	}
	if len(people) != 2 {
		t.Fatalf("%d messages of other agents, want 2", len(people))
	}
	a := people[0]
	if a.Kind != KindNotification || len(a.Teammates) != 1 {
		t.Fatalf("agent message: kind %s, %d blocks", a.Kind, len(a.Teammates))
	}
	r := a.Teammates[0]
	if r.ID != "a4e1c9b27d05f3e68" || r.Via != TagAgentMessage || !strings.HasPrefix(r.Body, "## Review of src/checkout/\n\n**High**\n- `applyCoupon`") {
		t.Errorf("agent message = %+v", r)
	}
	if !strings.HasPrefix(a.Framing, "[Subagent hand-back] The text below is the final report") {
		t.Errorf("framing = %q", a.Framing)
	}
	tm := people[1]
	if len(tm.Teammates) != 2 || tm.Teammates[0].Summary != "Checkout flows pass" {
		t.Fatalf("teammates = %+v", tm.Teammates)
	}
	e, ok := TeamEventOf(tm.Teammates[1].Body)
	if !ok || e.Type != "idle_notification" || e.From != "qa" || e.IdleReason != "available" {
		t.Errorf("idle notice = %+v, %t", e, ok)
	}
	if tm.Framing != "Another Claude session sent a message:\n\nThis came from another Claude session — not typed by the user." {
		t.Errorf("framing = %q", tm.Framing)
	}
	// A skill's text that quotes the tags further in stays Claude Code's.
	m := &Message{}
	if classifyNotice(m, strings.Repeat("Skill text. ", 30)+"<agent-message from=\"x\">y</agent-message>", true) {
		t.Error("a quoted tag deep in a meta record made it a notification")
	}
}

// TestNewerRecordKinds: the kinds newer than 2.1.237 are known, the tag is
// the session's, the model ending the conversation is marked, and each
// shows as an event where it occurred.
func TestNewerRecordKinds(t *testing.T) {
	t.Parallel()
	s := whoSaidWhat(t)
	if len(s.Unknown) != 0 {
		t.Errorf("unknown records: %v", s.Unknown)
	}
	if s.Tag != "checkout" || !s.EndedByModel {
		t.Errorf("tag %q, ended by model %t", s.Tag, s.EndedByModel)
	}
	got := map[string]string{}
	for _, m := range s.Messages {
		if m.Kind == KindSystem || m.Kind == KindAttachment {
			if text, ok := EventText(m.Record()); ok {
				got[m.Type] = text
			}
		}
	}
	want := map[string]string{
		"memory-mode":             "Memory mode: auto (setting)",
		"attachment":              "Companion introduced: Pip the axolotl",
		"isolation-latch":         "Isolation latched: worktree",
		"attribution-snapshot":    "Attribution snapshot: ",
		"marble-origami-snapshot": "Context collapse state saved: 1 span staged",
		"marble-origami-commit":   "Older messages collapsed in context: Started the test suite and a reviewer in the background; the suite passed.",
		"tag":                     "Tagged checkout",
		"observer-ref":            "Observer attached",
		"ended-by-model":          "Claude ended the conversation (EndConversation): no later prompt is answered in this session",
		"history-suppression":     "History kept out of later sessions (ended-by-model)",
		"marble-origami-reset":    "Context collapses reset (session-end)",
	}
	for k, v := range want {
		if !strings.HasPrefix(got[k], v) {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	last := s.Turns[len(s.Turns)-1]
	ended := false
	for _, m := range s.Messages[last.First : last.Last+1] {
		ended = ended || m.Type == "ended-by-model"
	}
	if !ended {
		t.Error("the ended-by-model record is not in the last turn")
	}
}
