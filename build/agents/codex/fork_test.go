package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
)

// TestForkOwnPart: a fork re-writes its parent's history with new
// timestamps; with the parent's rollout in the same home, the fork shows
// and counts only its own part, and says where the rest is.
func TestForkOwnPart(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "02")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	parentID, forkID := "0199dddd-0000-7000-8000-00000000000a", "0199dddd-0000-7000-8000-00000000000b"
	history := []string{
		`"type":"turn_context","payload":{"turn_id":"1","cwd":"/w","model":"gpt-5"}`,
		`"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"first question"}]}`,
		`"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"first answer"}]}`,
		`"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":10,"total_tokens":110},"last_token_usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":10,"total_tokens":110}}}`,
	}
	line := func(ts, rest string) string { return `{"timestamp":"2026-03-02T10:` + ts + `.000Z",` + rest + "}\n" }
	parent := line("00:00", `"type":"session_meta","payload":{"id":"`+parentID+`","cwd":"/w"}`)
	fork := line("05:00", `"type":"session_meta","payload":{"id":"`+forkID+`","cwd":"/w","forked_from_id":"`+parentID+`"}`)
	for _, h := range history {
		parent += line("00:01", h)
		fork += line("05:01", h)
	}
	fork += line("05:02", `"type":"turn_context","payload":{"turn_id":"2","cwd":"/w","model":"gpt-5"}`)
	fork += line("05:02", `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"second question"}]}`)
	fork += line("05:03", `"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"second answer"}]}`)
	fork += line("05:03", `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":300,"cached_input_tokens":100,"output_tokens":30,"total_tokens":330},"last_token_usage":{"input_tokens":200,"cached_input_tokens":100,"output_tokens":20,"total_tokens":220}}}`)
	for name, body := range map[string]string{"rollout-2026-03-02T10-00-00-" + parentID + ".jsonl": parent, "rollout-2026-03-02T10-05-00-" + forkID + ".jsonl": fork} {
		if err := os.WriteFile(filepath.Join(day, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Read(filepath.Join(day, "rollout-2026-03-02T10-05-00-"+forkID+".jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := session.Build(f, session.Options{})
	var texts []string
	for _, m := range s.Messages {
		texts = append(texts, m.Text())
	}
	for _, r := range f.Records {
		texts = append(texts, r.ContentString())
	}
	all := strings.Join(texts, "|")
	if strings.Contains(all, "first question") || !strings.Contains(all, "second question") || !strings.Contains(all, "repeat the history of session "+parentID) {
		t.Errorf("the fork's messages: %s", all)
	}
	if tk := s.Stats.Tokens; tk.Input != 100 || tk.CacheRead != 100 || tk.Output != 20 {
		t.Errorf("the fork's tokens %+v: want its own response only (100 in, 100 cached, 20 out)", tk)
	}
}
