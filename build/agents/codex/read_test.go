package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
	"ccsite/build/transcript"

	"github.com/klauspost/compress/zstd"
)

// readGarden reads testdata/garden.jsonl, a rollout written by hand from
// codex-rs/protocol: every record and tool kind this reader maps.
func readGarden(t *testing.T) (*transcript.File, *session.Session) {
	t.Helper()
	f, err := Read("testdata/garden.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	return f, session.Build(f, session.Options{})
}

func TestReadEnvelope(t *testing.T) {
	f, s := readGarden(t)
	if f.Agent != "Codex" || s.AgentName != "Codex" {
		t.Errorf("agent %q / %q, want Codex", f.Agent, s.AgentName)
	}
	if s.CWD != "/home/ana/garden" || strings.Join(s.GitBranches, ",") != "feature/beds" || strings.Join(s.Versions, ",") != "0.60.0" {
		t.Errorf("cwd %q branches %v versions %v", s.CWD, s.GitBranches, s.Versions)
	}
	if strings.Join(s.Models, ",") != "gpt-5-codex" {
		t.Errorf("models %v", s.Models)
	}
	// The truncated line is a problem with its line number, not dropped.
	if len(f.Problems) != 1 || f.Problems[0].Line != 34 {
		t.Errorf("problems %v, want line 34", f.Problems)
	}
	// Kinds this reader does not know are shown raw and counted.
	if s.Unknown["codex/event_msg/garden_gnome_event"] != 1 || s.Unknown["codex/response_item/hologram"] != 1 {
		t.Errorf("unknown %v", s.Unknown)
	}
}

func TestReadPromptsAndContext(t *testing.T) {
	_, s := readGarden(t)
	var prompts, meta, answers, compact []*session.Message
	for _, m := range s.Messages {
		switch {
		case m.Prompt:
			prompts = append(prompts, m)
		case m.Kind == session.KindMeta:
			meta = append(meta, m)
		case m.Kind == session.KindCompactSummary:
			compact = append(compact, m)
		case m.Role == "assistant":
			answers = append(answers, m)
		}
	}
	if len(prompts) != 1 || !strings.Contains(prompts[0].Blocks[0].Text, "raised beds") {
		t.Fatalf("prompts %v", prompts)
	}
	if b := prompts[0].Blocks; len(b) != 2 || b[1].Type != "image" || b[1].Source.MediaType != "image/png" {
		t.Errorf("the prompt's image: %+v", b)
	}
	// The developer instructions and the environment context: shown
	// folded, never as prompts.
	if len(meta) != 2 || !strings.Contains(meta[1].Blocks[0].Text, "<environment_context>") {
		t.Errorf("meta %d", len(meta))
	}
	if len(compact) != 1 {
		t.Errorf("compacted: %d summaries", len(compact))
	}
	var thinking, final bool
	for _, m := range answers {
		for _, b := range m.Blocks {
			thinking = thinking || b.Type == "thinking" && b.Thinking == "**Counting the beds**"
			final = final || b.Type == "text" && strings.Contains(b.Text, "tomatoes watered")
		}
	}
	if !thinking || !final {
		t.Errorf("reasoning summary shown %v, final answer %v", thinking, final)
	}
}

func TestReadTools(t *testing.T) {
	_, s := readGarden(t)
	type want struct{ name, in, out string }
	wants := []want{
		{"Bash", "ls beds", "No such file"},
		{"TodoWrite", "Sketch the beds", ""},
		{"Write", "beds/plan.md", "Success."},
		{"MultiEdit", "Raised beds: see beds/plan.md.", "Success."},
		{"Delete", "old.txt", "Success."},
		{"Bash", "echo watered", "watered"},
		{"Bash", "make check", "No rule to make target"},
		{"Read", "bed.png", ""},
		{"mcp__weather__forecast", "Lisbon", "Sunny, 24 C"},
		{"WebSearch", "tomato watering schedule", "completed"},
		{"Bash", "git status --short", "M README.md"},
	}
	if len(s.Tools) != len(wants) {
		t.Fatalf("%d tool calls, want %d", len(s.Tools), len(wants))
	}
	for i, w := range wants {
		c := s.Tools[i]
		if c.Name != w.name || !strings.Contains(string(c.Input), w.in) || c.Result == nil || !strings.Contains(c.ResultText(), w.out) {
			t.Errorf("call %d: %s %s → %q; want %s with %q → %q", i, c.Name, c.Input, c.ResultText(), w.name, w.in, w.out)
		}
	}
	// Exit codes: a failed command is an error with its code.
	for i, code := range map[int]string{0: "exit code 1", 6: "exit code 2"} {
		if c := s.Tools[i]; !c.IsError || !strings.Contains(string(c.ToolUseResult), code) {
			t.Errorf("call %d: error %v, result %s; want %s", i, c.IsError, c.ToolUseResult, code)
		}
	}
	if c := s.Tools[5]; c.IsError || c.ResultText() != "watered\n" {
		t.Errorf("shell_command output %q error %v: want the text after Output:", c.ResultText(), c.IsError)
	}
}

func TestReadTokens(t *testing.T) {
	_, s := readGarden(t)
	// Two responses (the second token_count repeats the first): input
	// without the cached part, cached as cache reads.
	tk := s.Stats.Tokens
	if tk.Input != 1800 || tk.CacheRead != 1200 || tk.Output != 150 || tk.CacheWrite != 0 {
		t.Errorf("tokens %+v, want 1800 in, 1200 cache read, 150 out", tk)
	}
	c := s.Costs(nil).Own
	if c.Unknown {
		t.Error("gpt-5-codex has no price")
	}
	if want := (1800*1.25 + 1200*0.125 + 150*10) / 1e6; c.USD < want-1e-9 || c.USD > want+1e-9 {
		t.Errorf("cost %v, want %v", c.USD, want)
	}
}

// TestReadFilter: the filter (redaction) sees every raw line before it is
// decoded.
func TestReadFilter(t *testing.T) {
	f, err := Read("testdata/garden.jsonl", func(_ string, line []byte) []byte {
		return bytes.ReplaceAll(line, []byte("tomatoes"), []byte("[REDACTED]"))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Records {
		if bytes.Contains(r.Raw, []byte("tomatoes")) || r.Message != nil && strings.Contains(r.Message.Content.Text(), "tomatoes") {
			t.Errorf("line %d still holds the word", r.Line)
		}
	}
}

// TestFindZst: a .jsonl.zst rollout is found and read; beside its plain
// form, the plain one wins; a truncated .zst is a problem, not an error.
func TestFindZst(t *testing.T) {
	plain, err := os.ReadFile("testdata/garden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	packed := enc.EncodeAll(plain, nil)
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "02")
	arch := filepath.Join(home, "archived_sessions")
	for _, d := range []string{day, arch} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(day, "rollout-a.jsonl"), plain)
	write(filepath.Join(day, "rollout-a.jsonl.zst"), packed)
	write(filepath.Join(arch, "rollout-b.jsonl.zst"), packed)
	write(filepath.Join(home, "history.jsonl"), []byte(`{"session_id":"x","ts":1,"text":"hi"}`+"\n"))
	found, err := Find(home)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range found {
		names = append(names, filepath.Base(f.Path))
	}
	if strings.Join(names, ",") != "rollout-b.jsonl.zst,rollout-a.jsonl" {
		t.Errorf("found %v", names)
	}
	if fd := found[0]; fd.ID != "0199aaaa-1111-7222-8333-444455556666" || fd.Project != "/home/ana/garden" || fd.Start.IsZero() {
		t.Errorf("found %+v", fd)
	}
	f, err := Read(found[0].Path, nil)
	if err != nil || len(f.Records) == 0 {
		t.Fatalf("read .zst: %v, %d records", err, len(f.Records))
	}
	cut := filepath.Join(home, "cut.jsonl.zst")
	write(cut, packed[:len(packed)/2])
	f, err = Read(cut, nil)
	if err != nil || len(f.Problems) == 0 {
		t.Errorf("truncated .zst: error %v, problems %v", err, f.Problems)
	}
	if got := Default("/nowhere", func(k string) string { return map[string]string{"CODEX_HOME": home}[k] }); len(got) != 1 || got[0] != home {
		t.Errorf("Default with CODEX_HOME: %v", got)
	}
}

func TestParentOf(t *testing.T) {
	for _, c := range []struct {
		fork, parent, source string
		want                 string
		sub                  bool
	}{
		{"", "", `"cli"`, "", false},
		{"p1", "", `"cli"`, "p1", false},
		{"", "", `{"subagent":{"thread_spawn":{"parent_thread_id":"p2","depth":1}}}`, "p2", true},
		{"", "p3", `"subagent"`, "p3", true},
	} {
		got, sub := parentOf(c.fork, c.parent, []byte(c.source))
		if got != c.want || sub != c.sub {
			t.Errorf("parentOf(%q, %q, %s) = %q, %v; want %q, %v", c.fork, c.parent, c.source, got, sub, c.want, c.sub)
		}
	}
}

// TestReadLegacy: a rollout of the older form (a first line with the id
// and start, bare response items, state lines) is found and read, its
// cwd from the environment context.
func TestReadLegacy(t *testing.T) {
	found, err := Find("testdata/legacy.jsonl")
	if err != nil || len(found) != 1 || found[0].ID != "5973b6c0-94b8-487b-a530-2aeb6098ae0e" || found[0].Project != "/home/ana/orchard" {
		t.Fatalf("Find: %v %+v", err, found)
	}
	f, err := Read("testdata/legacy.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := session.Build(f, session.Options{})
	if len(f.Problems) > 0 || len(s.Unknown) > 0 || s.CWD != "/home/ana/orchard" {
		t.Errorf("problems %v, unknown %v, cwd %q", f.Problems, s.Unknown, s.CWD)
	}
	if s.Stats.Prompts != 1 || len(s.Tools) != 1 || s.Tools[0].Name != "Bash" || !strings.Contains(s.Tools[0].ResultText(), "42 trees.txt") {
		t.Errorf("%d prompts, tools %+v", s.Stats.Prompts, s.Tools)
	}
	if s.Start.IsZero() {
		t.Error("no start time")
	}
}

// TestReadEventsOnly: prompts and answers written only as events are
// still shown.
func TestReadEventsOnly(t *testing.T) {
	f, err := Read("testdata/events.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := session.Build(f, session.Options{})
	if s.Stats.Prompts != 1 || s.Stats.Answers != 1 {
		t.Errorf("%d prompts, %d answers; want 1 and 1", s.Stats.Prompts, s.Stats.Answers)
	}
}

// TestReadIDEPrompt: the IDE extension sends the request inside context
// it adds; the user_message event holds the request alone. The message is
// the prompt, once.
func TestReadIDEPrompt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ide.jsonl")
	body := `{"timestamp":"2026-04-02T08:00:00.000Z","type":"session_meta","payload":{"id":"0199ffff-0000-7000-8000-000000000001","cwd":"/w"}}
{"timestamp":"2026-04-02T08:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"rename foo to bar"}}
{"timestamp":"2026-04-02T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nrename foo to bar\n"}]}}
{"timestamp":"2026-04-02T08:00:03.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Renamed."}}
{"timestamp":"2026-04-02T08:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed foo to bar."}]}}
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := session.Build(f, session.Options{})
	if s.Stats.Prompts != 1 || s.Stats.Answers != 1 {
		t.Errorf("%d prompts, %d answers; want 1 and 1", s.Stats.Prompts, s.Stats.Answers)
	}
}

func TestScriptCommands(t *testing.T) {
	got := scriptCommands(`const r = await tools.exec_command({cmd:"sed -n '1,20p' \"a b.md\"",workdir:"/w"});
const s = await tools.exec_command({ cmd: "git diff --cached" });`)
	if want := `sed -n '1,20p' "a b.md" ; git diff --cached`; got != want {
		t.Errorf("scriptCommands = %q, want %q", got, want)
	}
}

// TestFindDamagedZst: a compressed rollout whose head cannot be read is
// still listed (by its name), and reading it is a problem, not an error.
func TestFindDamagedZst(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rollout-2026-03-02T10-00-00-0199aaaa-1111-7222-8333-444455556677.jsonl.zst")
	if err := os.WriteFile(p, []byte("\x28\xb5\x2f\xfd garbage, not a frame"), 0o644); err != nil {
		t.Fatal(err)
	}
	found, err := Find(dir)
	if err != nil || len(found) != 1 || found[0].ID != "0199aaaa-1111-7222-8333-444455556677" {
		t.Fatalf("Find: %v %+v", err, found)
	}
	f, err := Read(p, nil)
	if err != nil || len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Reason, "zstd") {
		t.Errorf("Read: %v, problems %v", err, f.Problems)
	}
}

// TestResponseIDsUnique: two sessions never share a response's message
// id (usage counts each id once across the archive: shared ids dropped
// one session's tokens).
func TestResponseIDsUnique(t *testing.T) {
	seen := map[string]string{}
	for _, p := range []string{"testdata/garden.jsonl", "testdata/events.jsonl", "testdata/legacy.jsonl"} {
		f, err := Read(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.Records {
			if r.Message == nil || r.Message.ID == "" {
				continue
			}
			if q, ok := seen[r.Message.ID]; ok && q != p {
				t.Errorf("%s and %s share message id %s", q, p, r.Message.ID)
			}
			seen[r.Message.ID] = p
		}
	}
}
