package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/omit"
)

// TestOmitOtherAgents: --no-tool-output and --no-thinking leave a Codex
// session's tool outputs and reasoning out of every file of the site, as
// they do Claude Code's.
func TestOmitOtherAgents(t *testing.T) {
	const output = "src/search.ts:14:" // rg's answer, in no call's input
	const reasoning = "Finding where the query is compared"
	for name, o := range map[string]omit.Options{"none": {}, "both": {Thinking: true, ToolOutput: true}} {
		out := t.TempDir()
		if _, err := Run(context.Background(), Config{Paths: []string{"../demo/projects"}, Out: out, State: t.TempDir(), Agents: []string{"codex"}, Omit: o}); err != nil {
			t.Fatal(err)
		}
		var hasOutput, hasReasoning, hasPlaceholder bool
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			s := string(data)
			hasOutput = hasOutput || strings.Contains(s, output)
			hasReasoning = hasReasoning || strings.Contains(s, reasoning)
			hasPlaceholder = hasPlaceholder || strings.Contains(s, "output left out of this site")
			return nil
		})
		if o.Active() && (hasOutput || hasReasoning || !hasPlaceholder) {
			t.Errorf("%s: output %v, reasoning %v, placeholder %v: want neither, and the placeholder", name, hasOutput, hasReasoning, hasPlaceholder)
		}
		if !o.Active() && (!hasOutput || !hasReasoning) {
			t.Errorf("%s: the demo's Codex session lacks its output (%v) or reasoning (%v): the test looks for nothing", name, hasOutput, hasReasoning)
		}
	}
}
