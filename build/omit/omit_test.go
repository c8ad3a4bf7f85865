package omit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	assistant := `{"type":"assistant","uuid":"u1","message":{"id":"msg_1","role":"assistant","content":[` +
		`{"type":"thinking","thinking":"SECRET-THOUGHT","signature":"sig"},` +
		`{"type":"redacted_thinking","data":"SECRET-REDACTED"},` +
		`{"type":"text","text":"visible answer"},` +
		`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la"}}]}}`
	result := `{"type":"user","uuid":"u2","message":{"role":"user","content":[` +
		`{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"SECRET-OUTPUT"}]}]},` +
		`"toolUseResult":{"stdout":"SECRET-OUTPUT","stderr":"","interrupted":false,"agentId":"a1b2c3"}}`
	stringResult := `{"type":"user","uuid":"u3","message":{"role":"user","content":[` +
		`{"type":"tool_result","tool_use_id":"toolu_2","content":"SECRET-OUTPUT","is_error":true}]},"toolUseResult":"Error: SECRET-OUTPUT"}`
	progress := `{"type":"progress","uuid":"u4","toolUseID":"toolu_1","data":{"type":"bash_progress","output":"SECRET-OUTPUT","fullOutput":"SECRET-OUTPUT","elapsedTimeSeconds":2}}`
	agentProgress := `{"type":"progress","uuid":"u5","data":{"type":"agent_progress","agentId":"a1","message":{"type":"assistant","message":{"content":[` +
		`{"type":"thinking","thinking":"SECRET-THOUGHT"},{"type":"tool_result","tool_use_id":"t","content":"SECRET-OUTPUT"},{"type":"text","text":"agent says"}]}}}}`
	prompt := `{"type":"user","uuid":"u6","message":{"role":"user","content":"I am thinking\" about tool_result"}}`

	both := Options{Thinking: true, ToolOutput: true}
	for _, line := range []string{assistant, result, stringResult, progress, agentProgress} {
		out := string(both.Line("f", []byte(line)))
		if strings.Contains(out, "SECRET") {
			t.Errorf("left in:\n%s", out)
		}
		if !json.Valid([]byte(out)) {
			t.Errorf("not JSON:\n%s", out)
		}
	}
	// What stays: the answer, the call and its input, the agent link,
	// the plain facts of progress.
	out := string(both.Line("f", []byte(assistant)))
	for _, want := range []string{`"visible answer"`, `"ls -la"`, `"toolu_1"`} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lost from %s", want, out)
		}
	}
	out = string(both.Line("f", []byte(result)))
	for _, want := range []string{`"toolUseResult":{"agentId":"a1b2c3"}`, Placeholder, `"tool_use_id":"toolu_1"`} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lost from %s", want, out)
		}
	}
	if out := string(both.Line("f", []byte(stringResult))); strings.Contains(out, "toolUseResult") || !strings.Contains(out, `"is_error":true`) {
		t.Errorf("string toolUseResult: %s", out)
	}
	if out := string(both.Line("f", []byte(progress))); !strings.Contains(out, `"elapsedTimeSeconds":2`) {
		t.Errorf("progress facts lost: %s", out)
	}
	if out := string(both.Line("f", []byte(agentProgress))); !strings.Contains(out, "agent says") {
		t.Errorf("agent text lost: %s", out)
	}
	// A line with nothing to leave out comes back byte for byte.
	if out := string(both.Line("f", []byte(prompt))); out != prompt {
		t.Errorf("prompt changed: %s", out)
	}

	// Each option alone touches only its own part.
	th := Options{Thinking: true}
	if out := string(th.Line("f", []byte(result))); out != result {
		t.Errorf("--no-thinking changed a tool result: %s", out)
	}
	if out := string(th.Line("f", []byte(assistant))); strings.Contains(out, "SECRET") || !strings.Contains(out, "tool_use") {
		t.Errorf("--no-thinking: %s", out)
	}
	to := Options{ToolOutput: true}
	if out := string(to.Line("f", []byte(assistant))); out != assistant {
		t.Errorf("--no-tool-output changed thinking: %s", out)
	}
	// Not JSON: left alone (the parser reports it).
	if out := string(both.Line("f", []byte(`{"type":"tool_result",`))); out != `{"type":"tool_result",` {
		t.Errorf("broken line changed: %s", out)
	}
	if (Options{}).Active() {
		t.Error("empty options active")
	}
}
