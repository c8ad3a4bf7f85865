package build

import (
	"encoding/json"

	"ccsite/build/omit"
	"ccsite/build/transcript"
)

// omitRecords leaves out of another agent's records what --no-thinking and
// --no-tool-output leave out of Claude Code's raw lines. The omitter reads
// Claude Code's shapes, not the agent's own lines, so the records its
// reader made are rewritten instead: thinking blocks dropped, each tool
// result's content replaced by omit.Placeholder and its structured result
// dropped. Every record keeps, for its raw form, only its type and uuid:
// its source line is the agent's, whole (a Gemini answer's raw form holds
// its tool calls' results), and what it holds cannot be told apart here.
func omitRecords(f *transcript.File, o omit.Options) {
	if !o.Active() {
		return
	}
	for i := range f.Records {
		r := &f.Records[i]
		if m := r.Message; m != nil {
			kept, changed := m.Content.Blocks[:0], false
			for _, b := range m.Content.Blocks {
				switch {
				case o.Thinking && (b.Type == "thinking" || b.Type == "redacted_thinking"):
					changed = true
					continue
				case o.ToolOutput && b.Type == "tool_result":
					b.Content = transcript.Content{Blocks: []transcript.Block{{Type: "text", Text: omit.Placeholder}}, IsString: true}
					b.Extra, changed = nil, true
				}
				kept = append(kept, b)
			}
			m.Content.Blocks = kept
			if changed {
				m.Content.Raw = nil
			}
		}
		if o.ToolOutput {
			r.ToolUseResult = nil
		}
		r.Raw, _ = json.Marshal(map[string]string{"type": string(r.Type), "uuid": r.UUID, "leftOut": "by --no-thinking or --no-tool-output"})
	}
}
