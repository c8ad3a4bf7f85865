package session

import (
	"slices"
	"sync"
	"testing"

	"ccsite/build/transcript"
	"ccsite/internal/corpustest"

	"github.com/go-json-experiment/json/jsontext"
)

func TestInput(t *testing.T) {
	c := &ToolCall{Name: "Edit", Input: jsontext.Value(`{"file_path":"/a.go","old_string":"x","new_string":"y",` +
		`"limit":12.7,"replace_all":true,"n":null,"opts":{"b":"B","a":["A1",2,"A2"]},"empty":""}`)}
	in := c.In()
	if got := in.Str("file_path"); got != "/a.go" {
		t.Errorf("Str = %q", got)
	}
	if in.Str("limit") != "" || in.Num("limit") != 12 || in.Num("file_path") != 0 || !in.Bool("replace_all") || in.Bool("missing") {
		t.Errorf("Num/Bool/Str of other types wrong")
	}
	if !in.Has("n") || in.Has("missing") || in.Raw("missing") != nil || string(in.Raw("n")) != "null" {
		t.Errorf("Has/Raw wrong")
	}
	if got, want := in.Keys(), []string{"empty", "file_path", "limit", "n", "new_string", "old_string", "opts", "replace_all"}; !slices.Equal(got, want) {
		t.Errorf("Keys = %q", got)
	}
	if got := in.Edits("Edit"); len(got) != 1 || got[0] != (Edit{"x", "y"}) {
		t.Errorf("Edits = %v", got)
	}
	if got, want := in.Strings("new_string", "missing", "file_path"), []string{"y", "/a.go", "x", "A1", "A2", "B"}; !slices.Equal(got, want) {
		t.Errorf("Strings = %q, want %q", got, want)
	}
	if in.FilePath() != "/a.go" {
		t.Errorf("FilePath = %q", in.FilePath())
	}
	me := DecodeInput(jsontext.Value(`{"edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`))
	if got := me.Edits("MultiEdit"); !slices.Equal(got, []Edit{{"a", "b"}, {"c", "d"}}) {
		t.Errorf("MultiEdit Edits = %v", got)
	}
	if DecodeInput(jsontext.Value(`"not an object"`)) != nil || DecodeInput(nil) != nil {
		t.Errorf("a non-object input decodes to something")
	}
}

// In decodes once, whichever goroutine asks first.
func TestInputConcurrent(t *testing.T) {
	c := &ToolCall{Input: jsontext.Value(`{"command":"ls"}`)}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if c.In().Str("command") != "ls" {
				t.Error("command lost")
			}
		})
	}
	wg.Wait()
}

func TestResultText(t *testing.T) {
	c := &ToolCall{ToolUseResult: jsontext.Value(`"Error: no such file"`)}
	if got := c.ResultText(); got != "Error: no such file" {
		t.Errorf("ResultText without a block = %q", got)
	}
	c.ResultBlock = &transcript.Block{Type: "tool_result", Content: transcript.Content{Blocks: []transcript.Block{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}}}
	if got := c.ResultText(); got != "a\n\nb" {
		t.Errorf("ResultText = %q", got)
	}
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1;31mred\x1b[0m":                       "red",
		"\x1b]8;;https://x.test\x07link\x1b]8;;\x07": "link",
		"\x1b]0;title\x1b\\text":                     "text",
		"a\x1bMb\x1b_c":                              "abc",
		"plain [1m text":                             "plain [1m text",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResultAgent: the agentId read from a toolUseResult by the scanner is
// json's, on results the scanner takes and on those it leaves to json.
func TestResultAgent(t *testing.T) {
	for _, tur := range []string{
		`{"agentId":"a1","status":"completed"}`, `{"status":"x","agentId":"a\u00e92"}`, `{"agentId":null}`, `{"agentId":7}`,
		`{"agentId":{"x":1}}`, `{"other":1}`, `{"agentId":"a","agentId":"b"}`, `{"agent\u0049d":"c"}`, "{\"agentId\":\"\xff\"}",
		`{"agentId":"a",}`, `"text"`, ``, `[1]`, ` {"agentId":"sp"} `,
		`{"stdout":"the agentId is a1"}`, `{"stdout":"\u001b[1m"}`, `{"stdout":"x"`, `{"x":{"agentId":"nested"}}`,
		`{"s":"q\"agentId\":\"no\"","agentId":"yes"}`, `{"s":"q\\","agentId":"after"}`, `{"s":"\\\"","agentId" : "sp"}`,
		`{"a":[{"agentId":"deep"}],"agentId":"top"}`, `{"a":["agentId"],"b":{"c":"agentId"}}`, `{"agentId"`, `{"agentId":"x"`,
		`{"s":"\"","agentId":"x"}`, `{"s":"\"","agentId":"x","t":"u"}`, `{"s":"\\\"","agentId":"x","t":"u","v":"w"}`,
		`{"s":"a\\","agentId":"x","t":"u"}`, `{"s":"\"","agentId":"x","t":"\""}`, `{"s":"a\\","agentId":"x","t":"b\\"}`,
		`{"s":"\\\"","agentId":"x","t":"\\\""}`, `{"s":"\\\\","agentId":"x","t":"\\\\"}`, `{"s":"a\\\\","agentId":"x","t":"u","v":"w"}`, `{"x":"a\"b","agent\u0049d":"esc"}`, `{"agentId":"a","agent\u0049d":"b"}`,
	} {
		checkResultAgent(t, []byte(tur))
	}
	// Every toolUseResult of the corpus ($CCSITE_CORPUS).
	n, ids := 0, 0
	corpustest.EachLine(t, func(_ string, line []byte) {
		rec, prob := transcript.DecodeLine(line, "f", 1)
		if prob != nil || len(rec.ToolUseResult) == 0 {
			return
		}
		n++
		if checkResultAgent(t, rec.ToolUseResult) != "" {
			ids++
		}
	})
	t.Logf("%d corpus results, %d with an agentId", n, ids)
}

// checkResultAgent checks resultAgent(tur) is json's answer, and returns it.
func checkResultAgent(t *testing.T, tur []byte) string {
	t.Helper()
	var ar agentResult
	want := ""
	if len(tur) > 0 && tur[0] == '{' && transcript.Unmarshal(jsontext.Value(tur), &ar) == nil {
		want = ar.AgentID
	}
	if got := resultAgent(jsontext.Value(tur)); got != want {
		t.Errorf("%.300q: %q, json %q", tur, got, want)
	}
	return want
}

// TestStringsAsJSON: Input.Strings reads what json decoding every member
// into any reads, on hand cases and every tool input of the corpus
// ($CCSITE_CORPUS).
func TestStringsAsJSON(t *testing.T) {
	ref := func(in Input) []string {
		var out []string
		for _, k := range in.Keys() {
			var x any
			if transcript.Unmarshal(in[k], &x) == nil {
				strsOf(x, &out)
			}
		}
		return out
	}
	check := func(raw string) {
		in := DecodeInput(jsontext.Value(raw))
		if got, want := in.Strings(), ref(in); !slices.Equal(got, want) {
			t.Errorf("%.200q: %q, json %q", raw, got, want)
		}
	}
	for _, raw := range []string{
		`{"a":"x","b":"","c":1,"d":true,"e":null,"f":["y",{"g":"z","a":"w"}],"h":{"z":"1","a":"2"}}`,
		`{"s":"a\nb\u00e9\ud83d\ude00"}`, "{\"s\":\"\xff\"}", `{"s":"\ud800x"}`, `{"n":-1.5e3,"t":tru}`, `{}`,
	} {
		check(raw)
	}
	n := 0
	corpustest.EachLine(t, func(_ string, line []byte) {
		rec, prob := transcript.DecodeLine(line, "f", 1)
		if prob != nil || rec.Message == nil {
			return
		}
		for _, b := range rec.Message.Content.Blocks {
			if len(b.Input) > 0 {
				check(string(b.Input))
				n++
			}
		}
	})
	t.Logf("%d corpus inputs", n)
}
