package transcript

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ccsite/internal/corpustest"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// compareFast decodes line with decodeFast and with json.Unmarshal, each into
// a zero Record, and returns whether the fast path took it and, when it did,
// what differs from json's record ("" when nothing does, or json failed and
// should have been left alone).
func compareFast(line []byte) (fast bool, diff string) {
	var got Record
	if !decodeFast(&got, line) {
		return false, ""
	}
	var want Record
	if err := json.Unmarshal(line, &want, decodeOpts); err != nil {
		return true, "fast path accepted a line json rejects: " + err.Error()
	}
	return true, recordDiff(got, want)
}

// recordDiff names the first difference between two values of one type:
// nil against empty, a float's sign, a byte of a jsontext.Value. "" when
// they are identical.
func recordDiff(got, want any) string {
	d := firstDiff("", reflect.ValueOf(got), reflect.ValueOf(want))
	if d == "" && !reflect.DeepEqual(got, want) {
		d = "values differ (reflect.DeepEqual)"
	}
	return d
}

func firstDiff(path string, x, y reflect.Value) string {
	if x.Type() == reflect.TypeFor[time.Time]() {
		if tx, ty := x.Interface().(time.Time), y.Interface().(time.Time); !tx.Equal(ty) || tx.Location() != ty.Location() {
			return fmt.Sprintf("%s: %v, want %v", path, tx, ty)
		}
		return ""
	}
	switch x.Kind() {
	case reflect.Pointer:
		if x.IsNil() || y.IsNil() {
			if x.IsNil() != y.IsNil() {
				return fmt.Sprintf("%s: nil is %v, want %v", path, x.IsNil(), y.IsNil())
			}
			return ""
		}
		return firstDiff(path, x.Elem(), y.Elem())
	case reflect.Struct:
		for i := range x.NumField() {
			if d := firstDiff(path+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if x.IsNil() != y.IsNil() {
			return fmt.Sprintf("%s: nil is %v, want %v", path, x.IsNil(), y.IsNil())
		}
		if x.Type().Elem().Kind() == reflect.Uint8 {
			if !bytes.Equal(x.Bytes(), y.Bytes()) {
				return fmt.Sprintf("%s: %q, want %q", path, x.Bytes(), y.Bytes())
			}
			return ""
		}
		if x.Len() != y.Len() {
			return fmt.Sprintf("%s: len %d, want %d", path, x.Len(), y.Len())
		}
		for i := range x.Len() {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), x.Index(i), y.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Float32, reflect.Float64:
		// Bits, so that -0 differs from 0.
		if math.Float64bits(x.Float()) != math.Float64bits(y.Float()) {
			return fmt.Sprintf("%s: %v, want %v", path, x.Float(), y.Float())
		}
		return ""
	case reflect.String:
		if x.String() != y.String() {
			return fmt.Sprintf("%s: %q, want %q", path, x.String(), y.String())
		}
		return ""
	case reflect.Bool:
		if x.Bool() != y.Bool() {
			return fmt.Sprintf("%s: %v, want %v", path, x.Bool(), y.Bool())
		}
		return ""
	case reflect.Int, reflect.Int64:
		if x.Int() != y.Int() {
			return fmt.Sprintf("%s: %d, want %d", path, x.Int(), y.Int())
		}
		return ""
	}
	return fmt.Sprintf("%s: kind %v not compared", path, x.Kind())
}

// slowDecodeLine is DecodeLine as it was before the fast path: what
// DecodeLine must still give for every line.
func slowDecodeLine(line []byte, file string, lineNo int) (Record, *Problem) {
	var rec Record
	prob := decodeLineJSON(&rec, line, file, lineNo)
	return rec, prob
}

// compareDecodeLine checks that DecodeLine gives what slowDecodeLine does.
func compareDecodeLine(t testing.TB, line []byte) {
	t.Helper()
	got, gotProb := DecodeLine(line, "f.jsonl", 7)
	want, wantProb := slowDecodeLine(line, "f.jsonl", 7)
	if d := recordDiff(got, want); d != "" {
		t.Errorf("DecodeLine(%.200q): record%s", line, d)
	}
	if (gotProb == nil) != (wantProb == nil) || gotProb != nil && (gotProb.Reason != wantProb.Reason ||
		gotProb.Excerpt != wantProb.Excerpt || len(gotProb.Recovered) != len(wantProb.Recovered)) {
		t.Errorf("DecodeLine(%.200q): problem %+v, want %+v", line, gotProb, wantProb)
	}
}

// fastCases are lines for the fast path, each with whether it must take
// it (fast) or must leave it to json; either way the result must be json's.
var fastCases = []struct {
	line string
	fast bool
}{
	// Plain records.
	{`{}`, true},
	{`{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"timestamp":"2026-02-10T09:14:03.512Z"}`, true},
	{" \t\r\n{ \"type\" :\t\"user\" ,\n\"isMeta\" : true }\r\n\t ", true},
	{`{"type":""}`, true},
	{`{"type":"a"}` + "   ", true},

	// Escapes.
	{`{"type":"a\nb\tc\"d\\e\/f\bg\fh\ri"}`, true},
	{`{"type":"\u00e9\u00E9 caf\u00e9"}`, true},
	{`{"type":"\ud83d\ude00 and \uD83D\uDE00"}`, true},
	{`{"type":"nul\u0000byte"}`, true},
	{`{"type":"\u2028\u2029\ufeff\uffff"}`, true},
	{`{"message":{"content":[{"type":"text","text":"line1\nline2 \"q\" \\ \u00e9"}]}}`, true},
	{`{"toolUseResult":"\ud83d\ude00\n\u0000"}`, true},
	{`{"type":"` + strings.Repeat(`\"`, 40) + `"}`, true},
	// Non-ASCII text as UTF-8, a literal U+FFFD and U+10FFFF among it.
	{`{"type":"héllo wörld — 日本語 😀 ` + "\uFFFD\U0010FFFF" + `"}`, true},
	{`{"toolUseResult":"日本語 😀","zz":["ü"]}`, true},

	// What json replaces or refuses: invalid UTF-8, lone surrogates,
	// bad escapes, control bytes.
	{"{\"type\":\"a\xffb\"}", false},
	{"{\"type\":\"a\xed\xa0\x80b\"}", false},  // a surrogate in UTF-8
	{"{\"type\":\"\xc0\xaf\"}", false},        // overlong
	{"{\"type\":\"\xe6\x97\"}", false},        // cut rune
	{"{\"toolUseResult\":\"a\xffb\"}", false}, // kept raw by json, still refused
	{"{\"zz\":\"a\xffb\"}", false},            // skipped by json, still refused
	{"{\"t\xffype\":\"b\"}", false},           // in a name
	{`{"type":"a\ud800b"}`, false},            // lone high
	{`{"type":"a\udc00b"}`, false},            // lone low
	{`{"type":"\ud800\u0041"}`, false},        // high then not low
	{`{"type":"\ud800"}`, false},              // high at the end
	{`{"type":"\ud800\"}`, false},             // high then a quote
	{`{"zz":"\udc00\ud800"}`, false},          // reversed pair, skipped
	{`{"message":{"content":[{"type":"x","q":"\ud800"}]}}`, false},
	{`{"type":"\x41"}`, false},
	{`{"type":"\u12"}`, false},
	{`{"type":"\u12G4"}`, false},
	{`{"type":"\`, false},
	{"{\"type\":\"a\x01\"}", false},
	{"{\"type\":\"a\tb\"}", false},
	{"{\"type\":\"a\x7fb\"}", true}, // DEL is no control byte to JSON

	// null for every kind of field.
	{`{"type":null,"isMeta":null,"retryAttempt":null,"durationMs":null,"message":null,"toolUseResult":null,"content":null}`, true},
	{`{"compactMetadata":null,"microcompactMetadata":null,"data":null,"attachment":null}`, true},
	{`{"message":{"id":null,"content":null,"usage":null}}`, true},
	{`{"message":{"usage":{"input_tokens":null,"service_tier":null,"cache_creation":null,"server_tool_use":null}}}`, true},
	{`{"message":{"content":[{"type":"x","content":null,"source":null,"input":null,"is_error":null,"citations":null}]}}`, true},
	{`{"data":{"message":null,"type":null,"zz":null}}`, true},
	{`{"attachment":{"prompt":null,"content":null,"zz":null}}`, true},

	// Wrong types: json rejects the line.
	{`{"type":5}`, false},
	{`{"type":true}`, false},
	{`{"isMeta":"true"}`, false},
	{`{"isMeta":1}`, false},
	{`{"retryAttempt":"1"}`, false},
	{`{"message":"hi"}`, false},
	{`{"message":[]}`, false},
	{`{"message":{"usage":[]}}`, false},
	{`{"microcompactMetadata":{"compactedToolIds":"a"}}`, false},
	{`{"microcompactMetadata":{"compactedToolIds":[1]}}`, false},
	{`{"message":{"content":[5]}}`, false},
	{`{"message":{"content":["s"]}}`, false},
	{`{"message":{"content":[[]]}}`, false},
	{`{"message":{"content":[{"type":"image","source":"s"}]}}`, false},

	// Repeated names: replaced, or refused where json merges.
	{`{"type":"a","type":"b"}`, true},
	{`{"type":"a","type":null}`, true},
	{`{"isMeta":true,"isMeta":false}`, true},
	{`{"retryAttempt":3,"retryAttempt":null}`, true},
	{`{"toolUseResult":1,"toolUseResult":[2]}`, true},
	{`{"message":{"content":"x"},"message":{"id":"y"}}`, false},
	{`{"message":{"content":"x"},"message":null}`, false},
	{`{"message":null,"message":{"id":"y"}}`, true},
	{`{"message":{"content":"x","content":"y"}}`, false},
	{`{"message":{"content":"x","content":null}}`, false},
	{`{"message":{"content":"x","content":[]}}`, false},
	{`{"message":{"content":[{"type":"a"}],"content":[{"type":"b"}]}}`, false},
	{`{"message":{"content":[],"content":"x"}}`, true},
	{`{"message":{"content":null,"content":[{"type":"b"}]}}`, true},
	{`{"message":{"content":5,"content":[]}}`, false},
	{`{"message":{"usage":{"input_tokens":5,"input_tokens":null}}}`, true},
	{`{"message":{"usage":{"cache_creation":{},"cache_creation":{}}}}`, false},
	{`{"microcompactMetadata":{"compactedToolIds":["a","b"],"compactedToolIds":["c"]}}`, true},
	{`{"microcompactMetadata":{"compactedToolIds":["a"],"compactedToolIds":null}}`, true},
	{`{"microcompactMetadata":{"compactedToolIds":["a"],"compactedToolIds":[]}}`, true},
	{`{"data":{"zz":1},"data":{"yy":2}}`, false},
	{`{"message":{"content":[{"type":"x","zz":1,"zz":2,"type":"y"}]}}`, true},
	{`{"message":{"content":[{"source":{"type":"a"},"source":{"url":"b"}}]}}`, false},

	// Names: matched exactly, case and all; escaped names left to json.
	{`{"TYPE":"a","Type":"b","isMETA":true}`, true},
	{`{"Line":5,"Raw":"x","Time":"2026-01-01T00:00:00Z","line":1,"raw":2}`, true},
	{`{"t\u0079pe":"b"}`, false},
	{`{"zz\n":"b"}`, false},
	{`{"message":{"content":[{"type":"x","z\u007a":1}]}}`, false},
	{`{"message":{"content":[{"type":"x","TYPE":1,"Text":"t"}]}}`, true},
	{`{"toolUseResult":{"t\u0079pe":1,"\ud83d\ude00":2}}`, true}, // escaped names inside a kept value
	{`{"":1}`, true},

	// content as a string, array, null, number, object, boolean.
	{`{"message":{"content":"hello"}}`, true},
	{`{"message":{"content":""}}`, true},
	{`{"message":{"content":[]}}`, true},
	{`{"message":{"content":[ ]}}`, true},
	{`{"message":{"content":null}}`, true},
	{`{"message":{"content":42}}`, true},
	{`{"message":{"content":-1.5e3}}`, true},
	{`{"message":{"content":{}}}`, true},
	{`{"message":{"content":{ "a" : [ 1 , 2 ] }}}`, true},
	{`{"message":{"content":true}}`, true},
	{`{"message":{"content":[null]}}`, true},
	{`{"message":{"content":[{},null,{"type":"text"}]}}`, true},
	{`{"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}],"is_error":true}]}}`, true},
	{`{"message":{"content":[{"type":"tool_result","content":"plain"}]}}`, true},
	{`{"message":{"content":[{"type":"tool_result","content":{"x":1}}]}}`, true},
	{`{"message":{"content":[{"type":"tool_result","content":[{"type":"tool_result","content":[{"type":"text","text":"deep"}]}]}]}}`, true},
	{`{"content":"system text","content":{"a":1}}`, true},

	// Every member of every struct.
	{`{"type":"assistant","subtype":"s","uuid":"u","parentUuid":"p","logicalParentUuid":"l","sessionId":"s","timestamp":"2026-02-10T09:14:03Z","cwd":"/c","version":"2","gitBranch":"main","isSidechain":true,"userType":"external","slug":"sl","agentId":"a","entrypoint":"cli","isMeta":true,"permissionMode":"default","promptId":"pi","requestId":"r","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"isApiErrorMessage":true,"sourceToolAssistantUUID":"st","sourceToolUseID":"su","toolUseID":"tu","parentToolUseID":"ptu"}`, true},
	{`{"message":{"id":"m","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_read_input_tokens":4,"service_tier":"standard","cache_creation":{"ephemeral_5m_input_tokens":5,"ephemeral_1h_input_tokens":6,"zz":7},"server_tool_use":{"web_search_requests":8,"web_fetch_requests":9,"zz":[]},"inference_geo":"x","iterations":[{"a":1}]}},"toolUseResult":{"stdout":"x"},"planContent":"plan","todos":[],"error":{"type":"e"}}`, true},
	{`{"content":"c","level":"info","durationMs":12.5,"retryAttempt":1,"maxRetries":10,"retryInMs":500.25,"compactMetadata":{"trigger":"auto","preTokens":123,"zz":1},"microcompactMetadata":{"trigger":"t","preTokens":1,"tokensSaved":2,"compactedToolIds":["a","b",null],"zz":1},"hookCount":2,"hookInfos":[{"a":1}],"hookErrors":[],"preventedContinuation":true,"stopReason":"s"}`, true},
	{`{"promptSource":"typed","effort":"high","attributionAgent":"a","attributionSkill":"s","attributionMcpServer":"m","attributionMcpTool":"t","continuedInSessionId":"c","summary":"s","leafUuid":"l","operation":"enqueue","prNumber":42,"prUrl":"u","prRepository":"r","customTitle":"c","aiTitle":"a","agentName":"n","lastPrompt":"l","mode":"m","messageId":"m","isSnapshotUpdate":true}`, true},
	{`{"message":{"content":[{"type":"text","text":"t","citations":[{"a":1}]},{"type":"thinking","thinking":"th","signature":"sig"},{"type":"redacted_thinking","data":"d"},{"type":"tool_use","id":"i","name":"n","input":{"a":[1,{"b":null}]},"caller":{"type":"direct"}},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA","url":"u","zz":1}},{"type":"tool_reference","tool_name":"tn"}]}}`, true},
	{`{"type":"progress","data":{"type":"agent_progress","agentId":"a","prompt":"p","output":"o","hookName":"h","message":{"type":"user","message":{"content":[{"type":"text","text":"x"}]}},"zz":{"a":[1,2]},"yy":"s"}}`, true},
	{`{"type":"attachment","attachment":{"type":"queued_command","prompt":[{"type":"text","text":"x"}],"hookName":"h","content":"c","zz":1,"yy":{"b":[true,false,null]}}}`, true},

	// Unknown members: skipped, or kept in Extra byte for byte.
	{`{"zz":{"a":[1,{"b":[{}]}],"c":"d"},"yy":[[],{},"",0,-0.5e+10,true,false,null]}`, true},
	{`{"message":{"content":[{"type":"weird","zz":1,"text":"t","aa":{"b": [1, 2 ]},"cc" : "x" }]}}`, true},
	{`{"message":{"content":[{"type":"weird"}]}}`, true},
	{`{"message":{"content":[{"zz":"only"}]}}`, true},
	{`{"data":{"zz":  [ 1 ,2 ] , "type":"x"}}`, true},
	{`{"attachment":{"a":1,"b":2,"c":3}}`, true},

	// Numbers.
	{`{"retryAttempt":0,"maxRetries":-0,"hookCount":-1,"prNumber":123456789}`, true},
	{`{"retryAttempt":9223372036854775807}`, true},
	{`{"retryAttempt":-9223372036854775808}`, true},
	{`{"retryAttempt":9223372036854775808}`, false},
	{`{"retryAttempt":-9223372036854775809}`, false},
	{`{"retryAttempt":99999999999999999999}`, false},
	{`{"message":{"usage":{"input_tokens":9223372036854775807,"output_tokens":-9223372036854775808}}}`, true},
	{`{"retryAttempt":1.0}`, false},
	{`{"retryAttempt":1e3}`, false},
	{`{"retryAttempt":1E0}`, false},
	{`{"retryAttempt":01}`, false},
	{`{"retryAttempt":+1}`, false},
	{`{"retryAttempt":-}`, false},
	{`{"durationMs":-0}`, true},
	{`{"durationMs":0.1,"retryInMs":1e3}`, true},
	{`{"durationMs":1.5E+2,"retryInMs":2.5e-3}`, true},
	{`{"durationMs":4.9e-324}`, true},
	{`{"durationMs":1e-400}`, true},
	{`{"durationMs":123456789012345678901234567890}`, true},
	{`{"durationMs":1e400}`, false},
	{`{"durationMs":-1e400}`, false},
	{`{"durationMs":1.}`, false},
	{`{"durationMs":.5}`, false},
	{`{"durationMs":5e}`, false},
	{`{"durationMs":5e+}`, false},
	{`{"durationMs":00}`, false},
	{`{"durationMs":NaN}`, false},
	{`{"durationMs":"1"}`, false},
	{`{"zz":1e400,"yy":-0.0e-0}`, true},

	// Literals.
	{`{"isMeta":tru}`, false},
	{`{"isMeta":True}`, false},
	{`{"isMeta":nul}`, false},
	{`{"zz":nulll}`, false},
	{`{"zz":truefalse}`, false},

	// Structure: truncated lines, garbage, trailing data.
	{``, false},
	{` `, false},
	{`null`, false},
	{`[]`, false},
	{`"s"`, false},
	{`5`, false},
	{`{`, false},
	{`{"`, false},
	{`{"type"`, false},
	{`{"type":`, false},
	{`{"type":"a"`, false},
	{`{"type":"a",`, false},
	{`{"type":"a",}`, false},
	{`{,}`, false},
	{`{"a" 1}`, false},
	{`{"a":1 "b":2}`, false},
	{`{"a":[1,]}`, false},
	{`{"a":[,1]}`, false},
	{`{"a":[1 2]}`, false},
	{`{"a":{"b"}}`, false},
	{`{"a":{1:2}}`, false},
	{`{"a":}`, false},
	{`{"a":'x'}`, false},
	{`{"type":"a"}x`, false},
	{`{"type":"a"} x`, false},
	{`{"type":"a"}{}`, false},
	{`{"type":"a"}}`, false},
	{"{\"type\":\"a\"}\u00a0", false},
	{"{\"type\":\"a\"}\x00", false},
	{"\ufeff{\"type\":\"a\"}", false},
	{`// comment`, false},
	{`{"message":{"content":[{"type":"text","text":"cut`, false},
	{`{"toolUseResult":{"a":[1,2`, false},

	// Depth: within the fast path's limit, past it, past json's.
	{`{"zz":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`, true},
	{`{"zz":` + strings.Repeat(`{"a":`, 400) + "1" + strings.Repeat("}", 400) + `}`, true},
	{`{"zz":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false},
	{`{"zz":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, false},
	{`{"zz":` + strings.Repeat("[", 10001) + `}`, false},
	{`{"message":{"content":[{"type":"tool_result","content":` + strings.Repeat(`[{"content":`, 300) + `"x"` + strings.Repeat("}]", 300) + `}]}}`, false},
}

// TestFastDecodeCases checks the fast path against json on each case, and
// that it takes the lines it must take.
func TestFastDecodeCases(t *testing.T) {
	for _, tc := range fastCases {
		line := []byte(tc.line)
		fast, diff := compareFast(line)
		if diff != "" {
			t.Errorf("%.200q: %s", line, diff)
		}
		if fast != tc.fast {
			t.Errorf("%.200q: fast path taken = %v, want %v", line, fast, tc.fast)
		}
		compareDecodeLine(t, line)
	}
}

// TestFastDecodeStrings checks string decoding on every escape and on text
// of every UTF-8 length, at every offset against the eight-byte scan.
func TestFastDecodeStrings(t *testing.T) {
	pieces := []string{`a`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0000`, `\u001f`,
		`\u00e9`, `\u20AC`, `\ud83d\ude00`, `é`, `€`, `😀`, "\u007f", ` `, `~`}
	for _, p := range pieces {
		for pad := range 17 {
			for _, s := range []string{strings.Repeat("x", pad) + p, p + strings.Repeat("x", pad),
				strings.Repeat("x", pad) + p + strings.Repeat(p, pad%3)} {
				line := []byte(`{"type":"` + s + `","zz":"` + s + `","toolUseResult":"` + s + `"}`)
				fast, diff := compareFast(line)
				if diff != "" || !fast {
					t.Errorf("%q: fast %v, diff %s", line, fast, diff)
				}
			}
		}
	}
	// Each byte alone in a string: taken when json keeps it as is.
	for c := range 256 {
		line := []byte(`{"type":"abcdefgh` + string([]byte{byte(c)}) + `ijklmnop"}`)
		fast, diff := compareFast(line)
		if diff != "" {
			t.Errorf("byte %#x: %s", c, diff)
		}
		wantFast := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		if fast != wantFast {
			t.Errorf("byte %#x: fast path taken = %v, want %v", c, fast, wantFast)
		}
	}
}

// TestV2Behaviour pins down what json.Unmarshal does with decodeOpts on the
// inputs whose handling the fast path copies or refuses, so that a change of
// the json package shows here first.
func TestV2Behaviour(t *testing.T) {
	dec := func(line string) (Record, error) {
		var r Record
		err := json.Unmarshal([]byte(line), &r, decodeOpts)
		return r, err
	}
	ok := func(line string) Record {
		t.Helper()
		r, err := dec(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		return r
	}
	fails := func(line string) {
		t.Helper()
		if _, err := dec(line); err == nil {
			t.Errorf("%q: json accepts it", line)
		}
	}

	// Invalid UTF-8 and lone surrogates become U+FFFD in strings (so the
	// fast path refuses them) and stay as they are in kept values.
	eq(t, "invalid UTF-8", ok("{\"type\":\"a\xffb\"}").Type, "a\uFFFDb")
	eq(t, "lone surrogate", ok(`{"type":"a\ud800b"}`).Type, "a\uFFFDb")
	eq(t, "raw invalid UTF-8", string(ok("{\"toolUseResult\":\"a\xffb\"}").ToolUseResult), "\"a\xffb\"")
	eq(t, "escaped NUL", ok(`{"type":"\u0000"}`).Type, "\x00")
	fails("{\"type\":\"a\x01\"}")

	// null: zero for strings, numbers, bools; nil for pointers; "null"
	// for a jsontext.Value; nothing for a Content.
	r := ok(`{"type":"a","type":null,"retryAttempt":2,"retryAttempt":null,"isMeta":true,"isMeta":null,"message":{},"message":null,"toolUseResult":null}`)
	eq(t, "null string", r.Type, "")
	eq(t, "null int", r.RetryAttempt, 0)
	eq(t, "null bool", r.IsMeta, false)
	eq(t, "null pointer", r.Message == nil, true)
	eq(t, "null Value", string(r.ToolUseResult), "null")
	eq(t, "null Content", ok(`{"message":{"content":"x","content":null}}`).Message.Content.Text(), "x")

	// Repeated names: the last wins for a plain field; a struct and a
	// Content merge.
	eq(t, "repeated string", ok(`{"type":"a","type":"b"}`).Type, "b")
	r = ok(`{"message":{"id":"a","role":"r"},"message":{"id":"b"}}`)
	eq(t, "merged struct", r.Message.ID+r.Message.Role, "br")
	eq(t, "merged Content", len(ok(`{"message":{"content":[{}],"content":[{}]}}`).Message.Content.Blocks), 2)
	ids := ok(`{"microcompactMetadata":{"compactedToolIds":["a","b"],"compactedToolIds":["c"]}}`).MicrocompactMetadata.CompactedToolIDs
	eq(t, "repeated slice", fmt.Sprint(ids), "[c]")

	// Names match exactly: no case folding; escapes are decoded.
	eq(t, "TYPE", ok(`{"TYPE":"a","Type":"b"}`).Type, "")
	eq(t, "escaped name", ok(`{"t\u0079pe":"a"}`).Type, "a")

	// Numbers: an int takes only an integer in range; -0 is 0 for an
	// int and negative zero for a float.
	fails(`{"retryAttempt":1.0}`)
	fails(`{"retryAttempt":1e3}`)
	fails(`{"retryAttempt":9223372036854775808}`)
	eq(t, "max int", ok(`{"retryAttempt":9223372036854775807}`).RetryAttempt, math.MaxInt64)
	eq(t, "-0 int", ok(`{"retryAttempt":-0}`).RetryAttempt, 0)
	eq(t, "-0 float", math.Signbit(ok(`{"durationMs":-0}`).DurationMs), true)
	fails(`{"durationMs":1e400}`)
	eq(t, "tiny float", ok(`{"durationMs":1e-400}`).DurationMs, 0)

	// Trailing data fails; trailing whitespace does not.
	fails(`{"type":"a"}x`)
	fails(`{"type":"a"}{}`)
	ok("{\"type\":\"a\"} \t\r\n")

	// Extra: nil with no unknown member; else "{", each raw name, ":",
	// the value without surrounding whitespace, joined by ",", "}";
	// repeated unknown names are all kept.
	b := ok(`{"message":{"content":[{"type":"x"}]}}`).Message.Content.Blocks[0]
	eq(t, "no Extra", b.Extra == nil, true)
	b = ok(`{"message":{"content":[{"type":"x", "zz" : [ 1, 2 ] ,"z\u007a":"s","zz":null}]}}`).Message.Content.Blocks[0]
	eq(t, "Extra", string(b.Extra), `{"zz":[ 1, 2 ],"z\u007a":"s","zz":null}`)

	// compactedToolIds: [] is empty, not nil; null is nil; a null
	// element is "".
	eq(t, "[] slice", ok(`{"microcompactMetadata":{"compactedToolIds":[]}}`).MicrocompactMetadata.CompactedToolIDs != nil, true)
	eq(t, "null slice", ok(`{"microcompactMetadata":{"compactedToolIds":null}}`).MicrocompactMetadata.CompactedToolIDs == nil, true)
	ids = ok(`{"microcompactMetadata":{"compactedToolIds":["a",null]}}`).MicrocompactMetadata.CompactedToolIDs
	eq(t, "null element", fmt.Sprintf("%q", ids), `["a" ""]`)

	// Content: [] leaves Blocks nil, a null block is a zero Block.
	eq(t, "[] Content", ok(`{"message":{"content":[]}}`).Message.Content.Blocks == nil, true)
	eq(t, "null block", len(ok(`{"message":{"content":[null]}}`).Message.Content.Blocks), 1)
}

// fixtureLines returns the non-empty lines of testdata/records, trimmed as
// the decoder trims them.
func fixtureLines(tb testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "records", "*.jsonl"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fixtures: %v", err)
	}
	var lines [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if line = bytes.TrimSpace(line); len(line) > 0 {
				lines = append(lines, line)
			}
		}
	}
	return lines
}

// TestFastDecodeFixtures requires the fast path to take every fixture line
// and to decode it as json does.
func TestFastDecodeFixtures(t *testing.T) {
	for _, line := range fixtureLines(t) {
		fast, diff := compareFast(line)
		if diff != "" {
			t.Errorf("%.200s: %s", line, diff)
		}
		if !fast && json.Unmarshal(line, new(Record), decodeOpts) == nil {
			t.Errorf("fast path refused a fixture json reads: %.200s", line)
		}
		compareDecodeLine(t, line)
	}
}

// TestFastDecodeCorpus decodes every line of the corpus both ways, requires
// identical records and the fast path to take nearly all the lines json
// reads (the others, damaged, can only be json's).
func TestFastDecodeCorpus(t *testing.T) {
	var lines, valid, fast, bytesValid, bytesFast int
	refused := map[string]int{}
	corpustest.EachLine(t, func(file string, line []byte) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return
		}
		lines++
		took, diff := compareFast(line)
		if diff != "" {
			t.Errorf("%s: %.120s: %s", file, line, diff)
		}
		if took {
			fast++
			bytesFast += len(line)
		} else if json.Unmarshal(line, new(Record), decodeOpts) == nil {
			refused[refusal(line)]++
		} else {
			return // json rejects it too
		}
		valid++
		bytesValid += len(line)
	})
	share := float64(fast) / float64(max(valid, 1))
	t.Logf("fast path: %d of the %d lines json reads (%.2f%%; %d lines in all), %.1f of %.1f MB; refused: %v",
		fast, valid, 100*share, lines, float64(bytesFast)/1e6, float64(bytesValid)/1e6, refused)
	if share < 0.99 {
		t.Errorf("fast path took %.2f%% of the corpus lines json reads, want at least 99%%", 100*share)
	}
}

// refusal guesses why the fast path refused a line json reads, for the log.
func refusal(line []byte) string {
	switch {
	case !utf8.Valid(line):
		return "invalid UTF-8"
	case bytes.Contains(line, []byte(`\ud`)) || bytes.Contains(line, []byte(`\uD`)):
		return "surrogate escape"
	}
	return "other"
}

// FuzzFastDecode checks that whenever the fast path takes a line, json
// reads it too and to the same record, and that DecodeLine is unchanged.
func FuzzFastDecode(f *testing.F) {
	for _, line := range fixtureLines(f) {
		f.Add(line)
	}
	for _, tc := range fastCases {
		f.Add([]byte(tc.line))
	}
	g := recordGen{rand.New(rand.NewPCG(3, 4))}
	for range 300 {
		f.Add([]byte(g.object("record")))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if _, diff := compareFast(line); diff != "" {
			t.Fatalf("%q: %s", line, diff)
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			compareDecodeLine(t, line)
		}
	})
}

// BenchmarkDecodeCorpus measures decoding the corpus lines as DecodeLine did
// before the fast path (json) and as it does now (fast, json for what the
// fast path refuses).
func BenchmarkDecodeCorpus(b *testing.B) {
	var lines [][]byte
	size := 0
	corpustest.EachLine(b, func(_ string, line []byte) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			lines = append(lines, bytes.Clone(line))
			size += len(line)
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(size))
		var r Record
		for b.Loop() {
			for i, line := range lines {
				r = Record{}
				_ = decodeLineJSON(&r, line, "f", i+1)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(size))
		var r Record
		for b.Loop() {
			for i, line := range lines {
				r = Record{}
				_ = decodeLineInto(&r, line, "f", i+1)
			}
		}
	})
}

// TestFastDecodeGenerated compares the two paths on random records built
// from the schema: every known member of every struct with values mostly of
// the right type, sometimes of another, null, repeated, unknown members
// beside them, odd names, escapes, whitespace, edge numbers.
func TestFastDecodeGenerated(t *testing.T) {
	g := recordGen{rand.New(rand.NewPCG(1, 2))}
	n, valid, fast := 20000, 0, 0
	if testing.Short() {
		n = 2000
	}
	for range n {
		line := []byte(g.object("record"))
		took, diff := compareFast(line)
		if diff != "" {
			t.Fatalf("%s: %s", line, diff)
		}
		if took {
			fast++
		}
		if json.Unmarshal(line, new(Record), decodeOpts) == nil {
			valid++
		}
	}
	t.Logf("%d lines, %d read by json, %d by the fast path", n, valid, fast)
	if fast < valid/2 {
		t.Errorf("fast path took %d of the %d lines json reads, want at least half", fast, valid)
	}
}

// genSchema gives each struct's members and the kind of value each takes;
// a kind that is no struct is a leaf (str, bool, int, float, raw).
var genSchema = map[string]map[string]string{
	"record": {"type": "str", "subtype": "str", "uuid": "str", "parentUuid": "str", "sessionId": "str",
		"timestamp": "str", "isSidechain": "bool", "isMeta": "bool", "message": "message",
		"toolUseResult": "raw", "todos": "raw", "content": "raw", "durationMs": "float",
		"retryAttempt": "int", "retryInMs": "float", "compactMetadata": "compactMetadata",
		"microcompactMetadata": "microcompactMetadata", "hookCount": "int", "data": "data",
		"attachment": "attachment", "prNumber": "int", "isSnapshotUpdate": "bool", "summary": "str"},
	"message": {"id": "str", "type": "str", "role": "str", "model": "str", "content": "content",
		"stop_reason": "str", "usage": "usage"},
	"usage": {"input_tokens": "int", "output_tokens": "int", "cache_read_input_tokens": "int",
		"service_tier": "str", "cache_creation": "cacheCreation", "server_tool_use": "serverToolUse"},
	"cacheCreation": {"ephemeral_5m_input_tokens": "int", "ephemeral_1h_input_tokens": "int"},
	"serverToolUse": {"web_search_requests": "int", "web_fetch_requests": "int"},
	"block": {"type": "str", "text": "str", "citations": "raw", "thinking": "str", "signature": "str",
		"data": "str", "id": "str", "name": "str", "input": "raw", "caller": "raw", "tool_use_id": "str",
		"content": "content", "is_error": "bool", "source": "source", "tool_name": "str"},
	"source":               {"type": "str", "media_type": "str", "data": "str", "url": "str"},
	"compactMetadata":      {"trigger": "str", "preTokens": "int"},
	"microcompactMetadata": {"trigger": "str", "preTokens": "int", "tokensSaved": "int", "compactedToolIds": "strs"},
	"data":                 {"type": "str", "agentId": "str", "prompt": "str", "output": "str", "hookName": "str", "message": "raw"},
	"attachment":           {"type": "str", "prompt": "raw", "hookName": "str", "content": "raw"},
}

type recordGen struct{ r *rand.Rand }

func (g recordGen) chance(p float64) bool { return g.r.Float64() < p }

func (g recordGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// ws is whitespace, mostly none.
func (g recordGen) ws() string {
	if g.chance(0.9) {
		return ""
	}
	return g.pick(" ", "\t", "\n", "\r\n", "  ")
}

// object writes a struct of the schema: some of its members in random
// order, a few repeated, a few unknown or of odd names.
func (g recordGen) object(kind string) string {
	members := genSchema[kind]
	var names []string
	for _, name := range slices.Sorted(maps.Keys(members)) { // in an order of g's
		if g.chance(0.4) {
			names = append(names, name)
		}
	}
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var parts []string
	for _, name := range names {
		parts = append(parts, g.member(name, members[name]))
		if g.chance(0.03) {
			parts = append(parts, g.member(name, members[name]))
		}
	}
	for g.chance(0.15) {
		name := g.pick("zz", "extra", "Type", "TYPE", "", "line", "Raw", "caf\u00e9", `q\"q`, `t\u0079pe`)
		parts = append(parts, g.ws()+`"`+name+`"`+g.ws()+":"+g.ws()+g.value("raw", 0)+g.ws())
		g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	}
	return "{" + g.ws() + strings.Join(parts, ","+g.ws()) + g.ws() + "}"
}

func (g recordGen) member(name, kind string) string {
	return `"` + name + `"` + g.ws() + ":" + g.ws() + g.value(kind, 0)
}

// value writes a value of a kind: mostly of the right type, sometimes null
// or of another.
func (g recordGen) value(kind string, depth int) string {
	switch {
	case g.chance(0.04):
		return "null"
	case g.chance(0.03):
		kind = g.pick("str", "bool", "int", "float", "raw")
	}
	switch kind {
	case "str":
		return g.str()
	case "bool":
		return g.pick("true", "false")
	case "int":
		return g.pick("0", "-0", "1", "42", "-7", "123456789", "9223372036854775807", "-9223372036854775808",
			"9223372036854775808", "1.0", "1e3", "-1", "2.5")
	case "float":
		return g.pick("0", "-0", "0.5", "1e3", "2.5E-3", "-12.75", "1e400", "1e-400", "123456789012345678901234567890", "7")
	case "strs":
		var xs []string
		for g.chance(0.6) {
			if g.chance(0.1) {
				xs = append(xs, "null")
			} else {
				xs = append(xs, g.str())
			}
		}
		return "[" + strings.Join(xs, ",") + "]"
	case "content":
		switch g.r.IntN(4) {
		case 0:
			return g.str()
		case 1:
			return g.value("raw", depth)
		}
		var xs []string
		for g.chance(0.6) {
			if g.chance(0.05) || depth > 3 {
				xs = append(xs, "null")
			} else {
				xs = append(xs, g.object("block"))
			}
		}
		return "[" + g.ws() + strings.Join(xs, ","+g.ws()) + g.ws() + "]"
	case "raw":
		if depth > 4 {
			return g.str()
		}
		switch g.r.IntN(6) {
		case 0:
			return g.str()
		case 1:
			return g.pick("0", "-1.5e3", "true", "false", "null", "12")
		case 2:
			var xs []string
			for g.chance(0.6) {
				xs = append(xs, g.ws()+g.value("raw", depth+1)+g.ws())
			}
			return "[" + strings.Join(xs, ",") + "]"
		case 3:
			var xs []string
			for g.chance(0.6) {
				xs = append(xs, g.ws()+g.str()+g.ws()+":"+g.ws()+g.value("raw", depth+1))
			}
			return "{" + strings.Join(xs, ",") + "}"
		}
		return g.object(g.pick("block", "message", "usage"))
	}
	return g.object(kind)
}

// str writes a string of random pieces: plain text, every escape, UTF-8,
// and rarely what json would replace or reject.
func (g recordGen) str() string {
	var b strings.Builder
	b.WriteByte('"')
	for g.chance(0.8) {
		if g.chance(0.01) {
			b.WriteString(g.pick("\xff", `\ud800`, `\udc00x`, "\x01", `\x`, "\xe6\x97", "\xed\xa0\x80"))
			continue
		}
		b.WriteString(g.pick("text", "user", "a b c", "0123456789abcdef", `\n`, `\"`, `\\`, `\/`, `\b`,
			`\f`, `\r`, `\t`, `\u00e9`, `\u00E9`, `\ud83d\ude00`, `\u0000`, "é", "日本語", "😀", "\u007f", `{\"k\": 1}`))
	}
	b.WriteByte('"')
	return b.String()
}

// sameAsJSON fails when FastString or FastObject takes v and gives other
// than json.Unmarshal does, or takes what json refuses; it returns whether
// the fast one took v.
func sameAsJSON(t *testing.T, v []byte) bool {
	t.Helper()
	took := false
	if s, ok := FastString(v); ok {
		took = true
		var want string
		if err := json.Unmarshal(v, &want, decodeOpts); err != nil || s != want {
			t.Errorf("FastString(%.200q) = %.200q, json %.200q (%v)", v, s, want, err)
		}
	}
	if m, ok := FastObject(v); ok {
		took = true
		var want map[string]jsontext.Value
		if err := json.Unmarshal(v, &want, decodeOpts); err != nil || !reflect.DeepEqual(m, want) {
			t.Errorf("FastObject(%.200q) = %q, json %q (%v)", v, m, want, err)
		}
	}
	return took
}

// TestFastStringObject: FastString and FastObject, which tool inputs and
// results are read with, give what json does on hand cases (escapes,
// blanks, nesting, what they must refuse) and on every tool input of the
// corpus ($CCSITE_CORPUS) and its members, nearly all of which they take.
func TestFastStringObject(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`"plain"`, true}, {` "a\nb\t\"c\" \\ \/ \u00e9 \ud83d\ude00 \u0000" `, true}, {`""`, true},
		{`"\ud800"`, false}, {"\"\xff\"", false}, {`"a" x`, false}, {`"a`, false}, {`null`, false}, {`1`, false},
		{`{}`, true}, {`{"a":1,"b":[1,{"c":null}],"d":"x","e":{"f":true}}`, true}, {` { "a" : "b" } `, true},
		{`{"a":1,"a":2}`, false}, {`{"a\u0062":1}`, false}, {`{"a":1,}`, false}, {`{"a":[1,2}`, false},
		{`{"a":"\xff"}`, false}, {`{"a":1} {}`, false}, {`[]`, false},
	} {
		if took := sameAsJSON(t, []byte(c.in)); took != c.fast {
			t.Errorf("%q: taken %v, want %v", c.in, took, c.fast)
		}
	}
	var inputs, members, took int
	corpustest.EachLine(t, func(_ string, line []byte) {
		var rec Record
		if !decodeFast(&rec, bytes.TrimSpace(line)) || rec.Message == nil {
			return
		}
		for _, b := range rec.Message.Content.Blocks {
			if len(b.Input) == 0 {
				continue
			}
			inputs++
			if sameAsJSON(t, b.Input) {
				took++
			}
			m, _ := FastObject(b.Input)
			for _, v := range m {
				if len(v) > 0 && v[0] == '"' {
					members++
					if sameAsJSON(t, v) {
						took++
					}
				}
			}
		}
	})
	t.Logf("%d tool inputs, %d string members; %d taken", inputs, members, took)
	if inputs > 0 && took < (inputs+members)*99/100 {
		t.Errorf("only %d of %d taken", took, inputs+members)
	}
}

// TestFastStringEscapes: strings with escapes, runs of backslashes before a
// quote, multi-byte runes and surrogate pairs decode as json decodes them,
// in one pass (str, strRest), and the fast path takes every valid one; what
// json rejects it refuses. Random strings of those pieces too.
func TestFastStringEscapes(t *testing.T) {
	line := func(lit string) []byte {
		return []byte(`{"type":"user","uuid":` + lit + `,"cwd":"/x","sessionId":` + lit + `}`)
	}
	valid := []string{`""`, `"plain"`, `"\\"`, `"\\\\"`, `"a\\\"b"`, `"\"\""`, `"x\\\\\\\"y"`,
		`"\n\t\r\b\f\/"`, `"\u00e9\u0000"`, `"\ud83d\ude00 é 日本"`, `"é\"x"`, `"日本\\語"`,
		`"` + strings.Repeat(`ab\n`, 100) + `"`, `"` + strings.Repeat("é", 50) + `\"` + `"`}
	for _, lit := range valid {
		fast, diff := compareFast(line(lit))
		if diff != "" {
			t.Errorf("%s: %s", lit, diff)
		}
		if !fast {
			t.Errorf("%s: the fast path refused a valid string", lit)
		}
	}
	invalid := []string{`"\ud800"`, `"\udc00x"`, `"a\x"`, `"a` + "\x01" + `"`, `"\u12"`, `"ab\\`, `"a\"`,
		`"` + "\xff" + `\n"`, `"\n` + "\xc3" + `"`, `"\ud800\u0041"`}
	for _, lit := range invalid {
		if fast, diff := compareFast(line(lit)); fast || diff != "" {
			t.Errorf("%s: fast %v, %s", lit, fast, diff)
		}
	}
	pieces := []string{"a", "bc", `\\`, `\"`, `\n`, `\u00e9`, `\ud83d\ude00`, "é", "日", `\/`, " "}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 3000 {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
		if fast, diff := compareFast(line(b.String())); !fast || diff != "" {
			t.Fatalf("%s: fast %v, %s", b.String(), fast, diff)
		}
	}
}
