package build

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ccsite/build/archive"
	"ccsite/build/session"
)

// TestCorpus runs discovery and loading over the real transcripts named by
// CCSITE_CORPUS (a folder; skipped when unset):
//
//	CCSITE_CORPUS=/work/shared/corpus go test ./build/...
//
// Nothing may panic; every agent-*.jsonl file is attached to exactly one
// session or loaded as an orphan; every tool call and tool result is paired
// or listed; two runs agree.
func TestCorpus(t *testing.T) {
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, a := corpusRun(t, dir, 2)

	// Every agent file on disk, each accounted for exactly once.
	var agentFiles []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "agent-") && strings.HasSuffix(d.Name(), ".jsonl") && d.Type().IsRegular() {
			agentFiles = append(agentFiles, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{}
	for _, l := range first.loaded {
		if l.File == nil {
			seen[l.Session.Path] = append(seen[l.Session.Path], "orphan")
			continue
		}
		for _, ag := range l.Session.Agents {
			// Inline agents and agents rebuilt from agent_progress live in
			// their parent's file.
			if ag.Agent.Layout == archive.LayoutInline || ag.Agent.Layout == "progress" {
				if ag.Path != l.Session.Path {
					t.Errorf("%s agent %s of %s has path %s", ag.Agent.Layout, ag.Agent.AgentID, l.Session.ID, ag.Path)
				}
				if ag.Agent.Layout == "progress" {
					first.progress++
				}
				continue
			}
			seen[ag.Path] = append(seen[ag.Path], "attached to "+l.Session.ID)
		}
	}
	attached, orphans := 0, 0
	for _, f := range agentFiles {
		switch got := seen[f]; {
		case len(got) == 0:
			t.Errorf("agent file %s: neither attached nor loaded as an orphan", f)
		case len(got) > 1:
			t.Errorf("agent file %s: loaded %d times: %v", f, len(got), got)
		case got[0] == "orphan":
			orphans++
		default:
			attached++
		}
		delete(seen, f)
	}
	for p, how := range seen {
		t.Errorf("loaded agent %s (%v) is not an agent-*.jsonl file of the corpus", p, how)
	}
	if len(agentFiles) == 0 {
		t.Error("no agent-*.jsonl file in the corpus")
	}
	t.Logf("%d files, %d sessions, %d agent files: %d attached, %d orphans; %d inline agents, %d rebuilt from agent_progress",
		a.Files, first.sessions, len(agentFiles), attached, orphans, first.inline, first.progress)

	// Sessions and agents files: every discovered transcript was loaded.
	if n := first.sessions + attached + orphans; n != a.Files {
		t.Errorf("Discover found %d transcripts, Load gave %d sessions + %d agents = %d", a.Files, first.sessions, attached+orphans, n)
	}

	// Deterministic, whatever the number of workers.
	second, _ := corpusRun(t, dir, 1)
	if !slices.Equal(first.summary, second.summary) {
		for i := range min(len(first.summary), len(second.summary)) {
			if first.summary[i] != second.summary[i] {
				t.Errorf("runs differ at %d:\n  %s\n  %s", i, first.summary[i], second.summary[i])
				break
			}
		}
		if len(first.summary) != len(second.summary) {
			t.Errorf("runs gave %d and %d sessions", len(first.summary), len(second.summary))
		}
	}
}

type corpusResult struct {
	loaded   []Loaded
	summary  []string
	sessions int
	inline   int
	progress int
}

// corpusRun discovers and loads dir and checks each session as it comes.
func corpusRun(t *testing.T, dir string, workers int) (corpusResult, *archive.Archive) {
	t.Helper()
	ctx := context.Background()
	a, err := archive.Discover(ctx, []string{dir})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	var r corpusResult
	err = Load(ctx, a, LoadOptions{Workers: workers}, func(l Loaded) error {
		if l.Err != nil {
			t.Errorf("load: %v", l.Err)
			return nil
		}
		r.loaded = append(r.loaded, l)
		if l.File != nil {
			r.sessions++
		}
		checkPairs(t, l.Session)
		r.summary = append(r.summary, summarize(l.Session))
		for _, ag := range l.Session.Agents {
			checkPairs(t, ag)
			r.summary = append(r.summary, "  "+summarize(ag))
			if ag.Agent.Layout == archive.LayoutInline {
				r.inline++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r, a
}

func summarize(s *session.Session) string {
	st := s.Stats
	agent := ""
	if s.Agent != nil {
		agent = fmt.Sprintf(" agent=%s parent=%s tool=%s orphan=%v", s.Agent.AgentID, s.Agent.ParentID, s.Agent.ToolUseID, s.Agent.Orphan)
	}
	return fmt.Sprintf("%s %q (%s) msgs=%d branches=%d turns=%d tools=%d unanswered=%d orphanResults=%d tokens=%+v problems=%d agents=%d%s",
		s.ID, s.Title, s.TitleSource, st.Messages, len(s.Branches), st.Turns, st.ToolCalls, len(s.Unanswered), len(s.OrphanResults),
		st.Tokens, len(s.Problems), len(s.Agents), agent)
}

// checkPairs asserts that every tool_use is paired or unanswered and every
// tool_result paired or an orphan result.
func checkPairs(t *testing.T, s *session.Session) {
	t.Helper()
	unanswered := map[string]bool{}
	for _, id := range s.Unanswered {
		unanswered[id] = true
	}
	orphan := map[string]bool{}
	for _, o := range s.OrphanResults {
		orphan[o.ToolUseID] = true
	}
	for _, m := range s.AllMessages() {
		for _, r := range m.Records {
			if r.Message == nil {
				continue
			}
			for _, b := range r.Message.Content.Blocks {
				switch b.Type {
				case "tool_use", "server_tool_use":
					if b.ID == "" {
						continue
					}
					c := s.Tool(b.ID)
					switch {
					case c == nil:
						t.Errorf("%s line %d: tool_use %s not in Tools", s.Path, r.Line, b.ID)
					case (c.Result == nil) != unanswered[b.ID]:
						t.Errorf("%s line %d: tool_use %s: result=%v, unanswered=%v", s.Path, r.Line, b.ID, c.Result != nil, unanswered[b.ID])
					}
				case "tool_result":
					if s.Tool(b.ToolUseID) == nil && !orphan[b.ToolUseID] {
						t.Errorf("%s line %d: tool_result for %s neither paired nor an orphan result", s.Path, r.Line, b.ToolUseID)
					}
				}
			}
		}
	}
}
