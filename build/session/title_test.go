package session

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTitles: the title comes from the strongest source there is, a
// greeting or boilerplate command only when nothing else says more, and
// never the session's bare id.
func TestTitles(t *testing.T) {
	t.Parallel()
	const head = `"sessionId":"0f3d2c1b-0000-4000-8000-000000000001"`
	user := func(uuid, parent, at, content string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + p + `,` + head + `,"timestamp":"2026-02-01T10:00:` + at + `.000Z","message":{"role":"user","content":` + content + `}}` + "\n"
	}
	answer := func(uuid, parent, at, content string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `",` + head + `,"timestamp":"2026-02-01T10:00:` + at + `.000Z","message":{"id":"msg_` + uuid + `","role":"assistant","model":"claude-opus-4-5","content":` + content + `}}` + "\n"
	}
	clear := `"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"`
	cases := []struct {
		name, jsonl, title, source string
		empty                      bool
	}{
		{"greeting skipped", user("u1", "", "00", `"hi"`) + answer("a1", "u1", "01", `[{"type":"text","text":"Hello! How can I help?"}]`) +
			user("u2", "a1", "02", `"fix the flaky login test"`), "fix the flaky login test", "first-prompt", false},
		{"greeting and continue skipped", user("u1", "", "00", `"Hello!"`) + user("u2", "u1", "01", `"continue"`) +
			user("u3", "u2", "02", `"  resume last session "`) + user("u4", "u3", "03", `"add a --json flag"`), "add a --json flag", "first-prompt", false},
		{"boilerplate command skipped", user("u1", "", "00", clear) + user("u2", "u1", "01", `"rename the package"`), "rename the package", "first-prompt", false},
		{"answer when only a greeting", user("u1", "", "00", `"hey"`) +
			answer("a1", "u1", "01", `[{"type":"text","text":"## Hello!\nI'll refactor the parser first. Then the tests."}]`), "I'll refactor the parser first.", "first-answer", false},
		{"greeting when nothing else", user("u1", "", "00", `"hi"`) + answer("a1", "u1", "01", `[{"type":"text","text":"Hi! How can I help you today?"}]`), "hi", "first-prompt", false},
		{"command with arguments", user("u1", "", "00", `"<command-name>/review</command-name>\n<command-args>PR 12</command-args>"`), "/review PR 12", "command", false},
		{"plan by its heading", user("u1", "", "00", `"Implement the following plan:\n\n# Fix: empty repo error (#242)\n\n## Context\nIn a new repo…"`), "Fix: empty repo error (#242)", "first-prompt", false},
		{"boilerplate command alone", user("u1", "", "00", clear), "/clear", "command", true},
		{"tool call only", answer("a1", "u0", "00", `[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./...","description":"Run the tests"}}]`), "Bash: Run the tests", "first-tool", false},
		{"nothing said", user("u1", "", "00", `[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]`), "No conversation · 2026-02-01 10:00 UTC", "none", true},
		{"nothing at all", "", "No conversation", "none", true},
	}
	for _, c := range cases {
		s := buildWithTimeout(t, []byte(c.jsonl), "0f3d2c1b-0000-4000-8000-000000000001.jsonl", Options{})
		if s.Title != c.title || s.TitleSource != c.source {
			t.Errorf("%s: title = %q (%s), want %q (%s)", c.name, s.Title, s.TitleSource, c.title, c.source)
		}
		if got := s.Overview().NoConversation(); got != c.empty {
			t.Errorf("%s: NoConversation = %v, want %v", c.name, got, c.empty)
		}
	}
}

// TestCorpusTitles counts, over the real transcripts of CCSITE_CORPUS,
// the sessions titled by nothing but a date ("none") and those titled by
// a generic prompt ("hi", "/clear"), and checks that a session with a
// prompt or an answer is never titled "No conversation" nor by its id.
//
//	CCSITE_CORPUS=/work/shared/corpus go test -tags gore2regex -run CorpusTitles -v ./build/session/
func TestCorpusTitles(t *testing.T) {
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	idLike := regexp.MustCompile(`(?i)^(untitled session )?[0-9a-f]{8}(-[0-9a-f]{4}){0,4}`)
	var total, none, generic, empty int
	sources := map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.HasPrefix(d.Name(), "agent-") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := buildWithTimeout(t, data, p, Options{})
		total++
		sources[s.TitleSource]++
		o := s.Overview()
		switch {
		case s.TitleSource == TitleNone:
			none++
		case Generic(s.Title) || strings.HasPrefix(s.Title, "/") && boilerplateCommand(&Command{Name: s.Title}):
			generic++
		}
		if o.NoConversation() {
			empty++
		}
		if s.Stats.Prompts+s.Stats.Answers > 0 && s.TitleSource == TitleNone || idLike.MatchString(s.Title) {
			t.Errorf("%s: titled %q (%s) with %d prompts and %d answers", p, s.Title, s.TitleSource, s.Stats.Prompts, s.Stats.Answers)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sessions: %d titled by no source (%.0f%%), %d by a generic prompt; %d with no conversation; by source %v",
		total, none, 100*float64(none)/float64(max(total, 1)), generic, empty, sources)
}

// TestAgentTitlePlain: a sub-agent's prompt, Markdown Claude wrote, titles
// its page as the words a reader sees, not the syntax; markup in it stays
// the text it is.
func TestAgentTitlePlain(t *testing.T) {
	t.Parallel()
	line := func(content string) string {
		return `{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":true,"agentId":"b0b","sessionId":"0f3d2c1b-0000-4000-8000-000000000001","timestamp":"2026-02-01T10:00:00.000Z","message":{"role":"user","content":` + content + `}}` + "\n"
	}
	for _, c := range []struct{ content, want string }{
		{`"You are **bob**, a _code reviewer_. Read ` + "`main.go`" + ` and [the docs](https://example.org/docs).\n\n## Steps\n- one"`,
			"You are bob, a code reviewer. Read main.go and the docs. Steps one"},
		{`"# Task\nFind <b>bold</b> tags"`, "Task Find <b>bold</b> tags"},
	} {
		s := buildWithTimeout(t, []byte(line(c.content)), "agent-b0b.jsonl", Options{AgentFile: true})
		if s.Agent == nil || s.Title != c.want || s.TitleSource != TitlePrompt {
			t.Errorf("agent titled %q (%s), want %q", s.Title, s.TitleSource, c.want)
		}
	}
}
