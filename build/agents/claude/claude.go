// Package claude is Claude Code behind the agent seam (build/agents): its
// folders and its reader. Its sessions are found by build/archive, which
// knows its three layouts of sub-agent files.
package claude

import (
	"os"
	"path/filepath"
	"strings"

	"ccsite/build/transcript"
)

// Name is the agent's label on pages.
const Name = "Claude Code"

// Default returns $CLAUDE_CONFIG_DIR/projects for each entry of that
// comma-separated variable, else ~/.claude/projects and
// ~/.config/claude/projects; only those that exist.
func Default(home string, getenv func(string) string) []string {
	var cands []string
	if v := getenv("CLAUDE_CONFIG_DIR"); v != "" {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				cands = append(cands, filepath.Join(d, "projects"))
			}
		}
	} else if home != "" {
		cands = append(cands, filepath.Join(home, ".claude", "projects"),
			filepath.Join(home, ".config", "claude", "projects"))
	}
	var out []string
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			out = append(out, c)
		}
	}
	return out
}

// Read decodes a Claude Code transcript with the fast decoder, each line
// through filter first.
func Read(path string, filter transcript.Filter) (*transcript.File, error) {
	return transcript.ReadFileFiltered(path, filter)
}
