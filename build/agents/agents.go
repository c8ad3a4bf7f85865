// Package agents is the seam between ccsite and the coding agents it
// reads. An agent is a package that finds its session files and reads
// each into Claude-Code-shaped records (transcript.File), which
// session.Build turns into the one model pages, exports, search, cost and
// time use. A new agent is one package and one line in All.
package agents

import (
	"time"

	"ccsite/build/agents/claude"
	"ccsite/build/agents/codex"
	"ccsite/build/agents/gemini"
	"ccsite/build/transcript"
)

// Agent is one coding agent's reader.
type Agent struct {
	// Key names it on the command line (--agent) and in search (agent:).
	Key string
	// Name labels it on pages.
	Name string
	// Default lists the folders it keeps sessions in that exist.
	Default func(home string, getenv func(string) string) []string
	// Find lists the sessions under a root (one of Default's, or a folder
	// or file given); nil for Claude Code, whose layouts build/archive walks.
	Find func(root string) ([]Found, error)
	// Read reads one session file, each raw line through filter.
	Read func(path string, filter transcript.Filter) (*transcript.File, error)
}

// Found is a session an agent's Find listed.
type Found struct {
	Path     string
	ID       string
	Project  string
	Start    time.Time
	Parent   string
	SubAgent bool
}

// All are the agents ccsite reads, Claude Code first.
var All = []Agent{
	{Key: "claude", Name: claude.Name, Default: claude.Default, Read: claude.Read},
	{Key: "codex", Name: codex.Name, Default: codex.Default, Find: finder(codex.Find), Read: codex.Read},
	{Key: "gemini", Name: gemini.Name, Default: gemini.Default, Find: finder(gemini.Find), Read: gemini.Read},
}

// ByKey returns the agent of key, nil when none.
func ByKey(key string) *Agent {
	for i := range All {
		if All[i].Key == key {
			return &All[i]
		}
	}
	return nil
}

// foundShape is the contract every agent package's Found follows.
type foundShape interface {
	~struct {
		Path     string
		ID       string
		Project  string
		Start    time.Time
		Parent   string
		SubAgent bool
	}
}

// finder adapts an agent package's Find to Found.
func finder[F foundShape](find func(string) ([]F, error)) func(string) ([]Found, error) {
	return func(root string) ([]Found, error) {
		fs, err := find(root)
		out := make([]Found, len(fs))
		for i, f := range fs {
			out[i] = Found(f)
		}
		return out, err
	}
}
