package omit

import (
	"encoding/json"
	"strings"
	"testing"

	"ccsite/internal/corpustest"
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

// The filters decide on what the parser reads: names and type values
// spelled with JSON escapes, repeated names (the last one counts), invalid
// UTF-8 and several values on one line (each recovered) hide nothing.
func TestLineDecoded(t *testing.T) {
	msg := func(blocks string) string {
		return `{"type":"assistant","uuid":"u1","message":{"role":"assistant","content":[` + blocks + `]}}`
	}
	user := func(blocks string) string {
		return `{"type":"user","uuid":"u2","message":{"role":"user","content":[` + blocks + `]}}`
	}
	thinking := []string{
		msg(`{"type":"thinkin\u0067","thinking":"SECRET-1"}`),
		msg(`{"type":"\u0074hinking","thinking":"SECRET-2"}`),
		msg(`{"type":"redacted_thinkin\u0067","data":"SECRET-3"}`),
		msg(`{"typ\u0065":"thinking","thinking":"SECRET-4"}`),
		msg(`{"\u0074\u0079\u0070\u0065":"\u0074\u0068\u0069\u006e\u006b\u0069\u006e\u0067","thinking":"SECRET-5"}`),
		msg(`{"type":"text","type":"thinking","thinking":"SECRET-6"}`),
		msg(`{"type":"thinking","thinking":"SECRET-7 ` + "\xff" + `"}`),
		`{"type":"assistant","uuid":"u1","uuid":"u1","message":{"content":[{"type":"thinking","thinking":"SECRET-8"}]}}`,
		msg(`{"type":"text","text":"a"}`) + msg(`{"type":"thinking","thinking":"SECRET-9"}`),
		msg(`{"type":"text","text":"a"}`) + " " + msg(`{"type":"thinkin\u0067","thinking":"SECRET-10"}`),
		`{"type":"assistant","uuid":"u1","message":{"content":{"type":"thinking","thinking":"SECRET-11","signature":"SECRET-11"}}}`,
	}
	toolOutput := []string{
		user(`{"type":"tool_resul\u0074","tool_use_id":"t","content":"SECRET-1"}`),
		user(`{"type":"tool_result","tool_use_id":"t","conten\u0074":"SECRET-2"}`),
		user(`{"typ\u0065":"tool_result","tool_use_id":"t","content":"SECRET-3"}`),
		user(`{"type":"text","type":"tool_result","tool_use_id":"t","content":"SECRET-4"}`),
		`{"type":"user","uuid":"u3","toolUseResul\u0074":{"stdout":"SECRET-5"}}`,
		`{"type":"user","uuid":"u3","\u0074oolUseResult":"SECRET-6"}`,
		`{"type":"progress","uuid":"u4","data":{"type":"bash_progres\u0073","output":"SECRET-7"}}`,
		`{"type":"progress","uuid":"u4","data":{"type":"bash_progress","outpu\u0074":"SECRET-8","fullOutpu\u0074":"SECRET-8"}}`,
		`{"type":"progress","uuid":"u4","data":{"type":"bash_progress","std\u006fut":"SECRET-9","stder\u0072":"SECRET-9"}}`,
		user(`{"type":"tool_result","tool_use_id":"t","content":"SECRET-10 ` + "\xff" + `"}`),
		`{"type":"user","uuid":"u3","uuid":"u3","toolUseResult":{"stdout":"SECRET-11"}}`,
		user(`{"type":"text","text":"a"}`) + user(`{"type":"tool_resul\u0074","tool_use_id":"t","content":"SECRET-12"}`),
	}
	check := func(o Options, what string, lines []string) {
		t.Helper()
		for _, line := range lines {
			out := o.Line("f", []byte(line))
			if strings.Contains(string(out), "SECRET") {
				t.Errorf("%s: left in:\n%s", what, out)
			}
		}
	}
	check(Options{Thinking: true}, "--no-thinking", thinking)
	check(Options{ToolOutput: true}, "--no-tool-output", toolOutput)
	check(Options{Thinking: true, ToolOutput: true}, "both", append(append([]string(nil), thinking...), toolOutput...))

	// Escapes that spell nothing the filters look for still skip the
	// decoding: the line comes back as it was.
	plain := msg(`{"type":"text","text":"\u001b[1mbold\u001b[0m \u003cb\u003e"}`)
	if out := (Options{Thinking: true, ToolOutput: true}).Line("f", []byte(plain)); string(out) != plain {
		t.Errorf("plain line changed: %s", out)
	}
}

// On every line of the corpus, both filters leave nothing of what they
// drop in what the parser reads.
func TestLineCorpus(t *testing.T) {
	both := Options{Thinking: true, ToolOutput: true}
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			typ, _ := v["type"].(string)
			if (typ == "thinking" || typ == "redacted_thinking") && len(v) > 1 {
				t.Errorf("%s: a thinking block left: %v", where, v)
			}
			if c, ok := v["content"]; ok && typ == "tool_result" && c != Placeholder {
				t.Errorf("%s: a tool result left: %v", where, c)
			}
			if r, ok := v["toolUseResult"].(map[string]any); ok {
				for k := range r {
					if !facts[k] {
						t.Errorf("%s: toolUseResult.%s left", where, k)
					}
				}
			} else if v["toolUseResult"] != nil {
				t.Errorf("%s: toolUseResult left", where)
			}
			if strings.HasSuffix(typ, "_progress") && typ != "agent_progress" {
				for _, k := range []string{"output", "fullOutput", "stdout", "stderr"} {
					if _, ok := v[k]; ok {
						t.Errorf("%s: %s of %s left", where, k, typ)
					}
				}
			}
			for _, x := range v {
				walk(where, x)
			}
		case []any:
			for _, x := range v {
				walk(where, x)
			}
		}
	}
	corpustest.EachLine(t, func(file string, line []byte) {
		out := both.Line(file, line)
		var v any
		if json.Unmarshal(out, &v) == nil {
			walk(file, v)
		}
	})
}
