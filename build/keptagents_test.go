package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentSessionsKept: Codex and Gemini CLI sessions are kept in the
// archive as Claude Code's are: when their files are gone (Gemini CLI
// deletes sessions after 30 days, as Claude Code does), a build into a
// new site, from the same state, still makes their pages, with their
// prompts and their agent's badge, from the archive's copies.
func TestAgentSessionsKept(t *testing.T) {
	in := t.TempDir()
	codexHome := filepath.Join(in, "codex")
	geminiHome := filepath.Join(in, "gemini")
	copyTree(t, "../demo/projects/codex", codexHome)
	copyTree(t, "agents/gemini/testdata/home/.gemini", geminiHome)
	state := filepath.Join(t.TempDir(), "state")
	cfg := Config{Paths: []string{codexHome, geminiHome}, Out: filepath.Join(t.TempDir(), "site"), State: state}
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Archive.Files < 2 || first.Archived != 0 {
		t.Fatalf("first build: archive %+v, %d sessions from it", first.Archive, first.Archived)
	}
	codexFile := filepath.Join(codexHome, "sessions", "2026", "03", "04", "rollout-2026-03-04T14-14-05-8b567bc7-1424-5620-96a0-16a7bbc56634.jsonl")
	geminiFiles, _ := filepath.Glob(filepath.Join(geminiHome, "tmp", "7542*", "chats", "session-*.json"))
	if len(geminiFiles) != 1 {
		t.Fatalf("gemini fixture: %v", geminiFiles)
	}
	for _, p := range []string{codexFile, geminiFiles[0]} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Out = filepath.Join(t.TempDir(), "site2")
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != first.Sessions || sum.Archived != 2 || sum.Docs != first.Docs {
		t.Errorf("after the files went: %d sessions (%d before), %d from the archive (want 2), %d documents (%d before)",
			sum.Sessions, first.Sessions, sum.Archived, sum.Docs, first.Docs)
	}
	files := siteFiles(t, cfg.Out)
	for _, want := range []struct{ page, badge, text string }{
		{"8b567bc7-1424-5620-96a0-16a7bbc56634.html", "Codex", "The search box should ignore case"},
		{"d0000000-0000-4000-8000-000000000004.html", "Gemini CLI", "Create main.go that prints hello"},
	} {
		found := false
		for name, body := range files {
			if strings.HasSuffix(name, "/"+want.page) {
				found = true
				if !strings.Contains(body, `title="Agent">`+want.badge+`<`) || !strings.Contains(body, want.text) {
					t.Errorf("%s, built from the archive, lacks its badge %q or its prompt %q", name, want.badge, want.text)
				}
			}
		}
		if !found {
			t.Errorf("no page %s after its file went", want.page)
		}
	}
}
