package session

import (
	"os"
	"path/filepath"
	"testing"
)

// TestServerToolsPaired: a server_tool_use is answered by a *_tool_result
// block of the same assistant message (here split over streamed records),
// not by a user tool_result.
func TestServerToolsPaired(t *testing.T) {
	input, err := os.ReadFile(filepath.Join("testdata", "server-tools.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := buildWithTimeout(t, input, "server-tools.jsonl", Options{})
	if len(s.Unanswered) != 0 {
		t.Errorf("unanswered calls: %v", s.Unanswered)
	}
	for id, typ := range map[string]string{"srvtoolu_Advisor01": "advisor_tool_result", "srvtoolu_Search01": "web_search_tool_result"} {
		c := s.Tool(id)
		if c == nil {
			t.Fatalf("no call %s", id)
		}
		if c.Result == nil || c.ResultBlock == nil || c.ResultBlock.Type != typ {
			t.Errorf("%s: not paired with its %s", id, typ)
			continue
		}
		if c.Result != c.Use || c.ResultUUID != "" || c.IsError {
			t.Errorf("%s: result message %p (use %p), uuid %q, error %v", id, c.Result, c.Use, c.ResultUUID, c.IsError)
		}
	}
	if !IsServerResult("advisor_tool_result") || IsServerResult("tool_result") || IsServerResult("text") {
		t.Error("IsServerResult")
	}
}
