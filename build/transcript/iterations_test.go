package transcript

import (
	"strings"
	"testing"
)

// TestIterationsLenient: usage.iterations of a shape other than the one
// known (a newer Claude Code's) leaves the answer readable, its usage
// counted; Steps reads the elements of the known shape and leaves the
// others out.
func TestIterationsLenient(t *testing.T) {
	for its, want := range map[string]int{
		`[]`:                 0,
		`5`:                  0,
		`{"type":"message"}`: 0,
		`[{"type":"message","output_tokens":2},{"type":3},{"type":"advisor_message","model":"m","output_tokens":9}]`: 2,
		`[1,{"type":"advisor_message","output_tokens":1.5},null]`:                                                    1,
	} {
		line := `{"type":"assistant","uuid":"u","message":{"id":"m","model":"x","content":[{"type":"text","text":"hi"}],"usage":{"output_tokens":7,"iterations":` + its + `}}}`
		f, err := Decode(strings.NewReader(line+"\n"), "x.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Records) != 1 || f.Records[0].Type != TypeAssistant || f.Records[0].Message == nil || f.Records[0].Message.Usage == nil {
			t.Errorf("iterations %s: the answer is not read (%+v)", its, f.Records)
			continue
		}
		u := f.Records[0].Message.Usage
		if u.OutputTokens != 7 || len(u.Steps()) != want {
			t.Errorf("iterations %s: output %d, %d steps %+v, want 7 and %d", its, u.OutputTokens, len(u.Steps()), u.Steps(), want)
		}
	}
}
