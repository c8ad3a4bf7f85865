package gemini_test

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ccsite/build/agents/gemini"
	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/redact"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"ccsite/templates"
)

// The fixtures in testdata/home/.gemini are written from the formats
// (chatRecordingTypes.ts, storage.ts, projectRegistry.ts):
//
//	tmp/shop/      a slug in projects.json; a .jsonl with a message
//	               replaced by id, $rewindTo, $set, info/warning/error,
//	               an unknown message type, two bad lines, every mapped
//	               tool; a sub-agent in chats/<parent id>/
//	tmp/notes/     a slug named by .project_root; a $set of messages
//	tmp/<sha256>/  the older .json form, named by a path in the session
//	tmp/<sha256>/  a .json nothing names
const home = "testdata/home/.gemini"

var (
	shopFile   = home + "/tmp/shop/chats/session-2026-05-01T10-00-a1b2c3d4.jsonl"
	notesFile  = home + "/tmp/notes/chats/session-2026-05-02T09-00-c0000000.jsonl"
	subFile    = home + "/tmp/shop/chats/a1b2c3d4-0000-4000-8000-000000000001/b0000000-0000-4000-8000-000000000002.jsonl"
	legacyDir  = home + "/tmp/7542a27b500a3fbe093358d093a035e71a027fbcede398ac18d18a8174935c2b"
	legacyFile = legacyDir + "/chats/session-2025-09-01T08-00-d0000000.json"
	nowhereDir = home + "/tmp/c3d4138e5e1e33efeaa73b443b0505e42f4873b28462b7f57197c6e94467a785"
)

func read(t *testing.T, path string) *transcript.File {
	t.Helper()
	f, err := gemini.Read(path, nil)
	if err != nil {
		t.Fatalf("Read %s: %v", path, err)
	}
	return f
}

func build(t *testing.T, path string) *session.Session {
	t.Helper()
	return session.Build(read(t, path), session.Options{})
}

// texts lists the text of the messages of one kind.
func texts(msgs []*session.Message, kind session.Kind) []string {
	var out []string
	for _, m := range msgs {
		if m.Kind != kind {
			continue
		}
		var b strings.Builder
		for _, blk := range m.Blocks {
			if blk.Type == "text" {
				b.WriteString(blk.Text)
			}
		}
		out = append(out, b.String())
	}
	return out
}

func TestDefault(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	home := t.TempDir()
	if got := gemini.Default(home, getenv); got != nil {
		t.Errorf("Default with no ~/.gemini/tmp = %v", got)
	}
	if err := os.MkdirAll(filepath.Join(home, ".gemini", "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := gemini.Default(home, getenv); !slices.Equal(got, []string{filepath.Join(home, ".gemini")}) {
		t.Errorf("Default = %v", got)
	}
	env["GEMINI_CLI_HOME"] = "testdata/home"
	if got := gemini.Default(home, getenv); !slices.Equal(got, []string{"testdata/home/.gemini"}) {
		t.Errorf("Default with GEMINI_CLI_HOME = %v", got)
	}
}

func TestFind(t *testing.T) {
	all, err := gemini.Find(home)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]gemini.Found{
		shopFile:   {ID: "a1b2c3d4-0000-4000-8000-000000000001", Project: "/home/kim/src/shop", Start: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)},
		subFile:    {ID: "b0000000-0000-4000-8000-000000000002", Project: "/home/kim/src/shop", Parent: "a1b2c3d4-0000-4000-8000-000000000001", SubAgent: true, Start: time.Date(2026, 5, 1, 10, 0, 40, 0, time.UTC)},
		notesFile:  {ID: "c0000000-0000-4000-8000-000000000003", Project: "/home/kim/notes", Start: time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)},
		legacyFile: {ID: "d0000000-0000-4000-8000-000000000004", Project: "/work/legacy", Start: time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)},
		nowhereDir + "/chats/session-2025-09-02T08-00-e0000000.json": {ID: "e0000000-0000-4000-8000-000000000005", Project: "", Start: time.Date(2025, 9, 2, 8, 0, 0, 0, time.UTC)},
	}
	if len(all) != len(want) {
		t.Fatalf("Find found %d sessions, want %d: %+v", len(all), len(want), all)
	}
	for _, f := range all {
		w, ok := want[f.Path]
		if !ok {
			t.Errorf("unexpected %s", f.Path)
			continue
		}
		w.Path = f.Path
		if !f.Start.Equal(w.Start) {
			t.Errorf("%s: Start %v, want %v", f.Path, f.Start, w.Start)
		}
		f.Start, w.Start = time.Time{}, time.Time{}
		if f != w {
			t.Errorf("Find:\n got %+v\nwant %+v", f, w)
		}
	}
	// Every root Find takes: tmp/, a project folder, its chats, one file.
	for root, n := range map[string]int{home + "/tmp": 5, home + "/tmp/shop": 2, home + "/tmp/shop/chats": 2, legacyFile: 1, notesFile: 1} {
		got, err := gemini.Find(root)
		if err != nil || len(got) != n {
			t.Errorf("Find(%s) = %d sessions (%v), want %d", root, len(got), err, n)
		}
	}
	one, _ := gemini.Find(notesFile)
	if len(one) == 1 && one[0].Project != "/home/kim/notes" {
		t.Errorf("Find(file) project = %q", one[0].Project)
	}
}

// TestLog replays the .jsonl: g1 written twice is one answer, the
// rewound prompt and its answer are an abandoned branch, $set gives the
// title, info/warning/error are system events, an unknown type is shown
// raw, bad lines are problems with their file and line.
func TestLog(t *testing.T) {
	f := read(t, shopFile)
	var probs []string
	for _, p := range f.Problems {
		probs = append(probs, filepath.Base(p.File)+":"+strconv.Itoa(p.Line))
	}
	if want := []string{"session-2026-05-01T10-00-a1b2c3d4.jsonl:14", "session-2026-05-01T10-00-a1b2c3d4.jsonl:16"}; !slices.Equal(probs, want) {
		t.Errorf("problems %v, want %v", probs, want)
	}
	s := session.Build(f, session.Options{})
	if got, want := texts(s.Messages, session.KindPrompt), []string{"Add a total to the cart page @cart.js", "Make the total green instead"}; !slices.Equal(got, want) {
		t.Errorf("live prompts %q, want %q", got, want)
	}
	if got, want := texts(s.Messages, session.KindAnswer), []string{"I'll sum the prices and show the total.", "The total is green now."}; !slices.Equal(got, want) {
		t.Errorf("live answers %q, want %q", got, want)
	}
	if len(s.Branches) != 1 {
		t.Fatalf("%d branches, want the rewound one", len(s.Branches))
	}
	br := s.Branches[0]
	if got := texts(br.Messages, session.KindPrompt); !slices.Equal(got, []string{"Now make the total blue"}) {
		t.Errorf("branch prompts %q", got)
	}
	if got := texts(br.Messages, session.KindAnswer); !slices.Equal(got, []string{"The total is blue now."}) {
		t.Errorf("branch answers %q", got)
	}
	// What was sent (the referenced file read in) follows the prompt, as
	// Claude Code's meta messages do.
	if got := texts(s.Messages, session.KindMeta); len(got) != 1 || !strings.Contains(got[0], "Content from @cart.js") {
		t.Errorf("meta messages %q, want what was sent", got)
	}
	if s.Title != "Cart total and its colour" {
		t.Errorf("title %q, want the $set summary", s.Title)
	}
	if s.CWD != "/home/kim/src/shop" || s.ID != "a1b2c3d4-0000-4000-8000-000000000001" {
		t.Errorf("cwd %q id %q", s.CWD, s.ID)
	}
	var levels []string
	for _, m := range s.Messages {
		if m.Kind == session.KindSystem {
			levels = append(levels, m.Records[0].Level+":"+m.Records[0].ContentString())
		}
	}
	if want := []string{"info:Switched to model gemini-2.5-flash", "warning:Approaching the context limit", "error:Quota exceeded"}; !slices.Equal(levels, want) {
		t.Errorf("system events %q, want %q", levels, want)
	}
	if s.Unknown["gemini-compression"] != 1 {
		t.Errorf("unknown %v, want the compression message counted", s.Unknown)
	}
	if len(s.Tools) != 11 || len(s.Unanswered) != 0 || len(s.OrphanResults) != 0 {
		t.Errorf("%d tools, %d unanswered, %d orphans; want 11 paired", len(s.Tools), len(s.Unanswered), len(s.OrphanResults))
	}
}

// TestTokens: input counts cached in Gemini and not in Claude Code;
// thoughts are output; all-zero counts are no usage.
func TestTokens(t *testing.T) {
	s := build(t, shopFile)
	var g1 *transcript.Usage
	for _, m := range s.Messages {
		if m.MessageID == "g1" {
			g1 = m.Records[0].Message.Usage
		}
	}
	if g1 == nil {
		t.Fatal("g1 has no usage")
	}
	// tokens {input 1200, output 80, cached 200, thoughts 40, tool 10, total 1330}
	if g1.InputTokens != 1010 || g1.CacheReadInputTokens != 200 || g1.OutputTokens != 120 {
		t.Errorf("usage %+v", *g1)
	}
	if sum := g1.InputTokens + g1.CacheReadInputTokens + g1.OutputTokens; sum != 1330 {
		t.Errorf("usage sums to %d, want Gemini's total 1330", sum)
	}
	for _, r := range read(t, legacyFile).Records {
		if r.Message != nil && r.Message.Usage != nil {
			t.Errorf("all-zero tokens gave usage %+v", *r.Message.Usage)
		}
	}
}

// TestSetMessages: a $set of messages replaces the conversation; what it
// left out stays as an abandoned branch, a message it kept is replaced.
func TestSetMessages(t *testing.T) {
	s := build(t, notesFile)
	if got, want := texts(s.Messages, session.KindPrompt), []string{"Write a haiku about tea", "One about water"}; !slices.Equal(got, want) {
		t.Errorf("prompts %q, want %q", got, want)
	}
	if got, want := texts(s.Messages, session.KindAnswer), []string{"Steam curls from the cup", "Clear stream over stones"}; !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
	if len(s.Branches) != 1 || !slices.Equal(texts(s.Branches[0].Messages, session.KindPrompt), []string{"Now one about coffee"}) {
		t.Errorf("branches %d, want the dropped coffee turn", len(s.Branches))
	}
}

func TestLegacyJSON(t *testing.T) {
	s := build(t, legacyFile)
	if s.CWD != "/work/legacy" {
		t.Errorf("cwd %q, want the path whose sha256 names the folder", s.CWD)
	}
	if got := texts(s.Messages, session.KindPrompt); !slices.Equal(got, []string{"Create main.go that prints hello", "Thanks"}) {
		t.Errorf("prompts %q", got)
	}
	if len(s.Tools) != 1 || s.Tools[0].Name != "Write" || s.Tools[0].Result == nil {
		t.Fatalf("tools %+v", s.Tools)
	}
	var thinking string
	for _, m := range s.Messages {
		for _, b := range m.Blocks {
			if b.Type == "thinking" {
				thinking = b.Thinking
			}
		}
	}
	if thinking != "**Writing the file**\n\nA one-line program." {
		t.Errorf("thinking %q", thinking)
	}
	if s2 := build(t, nowhereDir+"/chats/session-2025-09-02T08-00-e0000000.json"); s2.CWD != "" {
		t.Errorf("a hash nothing names gave cwd %q", s2.CWD)
	}

	// A file cut short: what was read is kept, the rest is a problem at
	// its line.
	f := read(t, "testdata/broken.json")
	if len(f.Problems) != 1 || f.Problems[0].Line != 5 || f.Problems[0].File != "testdata/broken.json" {
		t.Errorf("problems %+v, want one at line 5", f.Problems)
	}
	if got := texts(session.Build(f, session.Options{}).Messages, session.KindPrompt); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("prompts %q", got)
	}
}

// TestSubAgent: a sub-agent's file (chats/<parent id>/<id>.jsonl) is a
// session of its own, as the seam builds every agent's sessions; Find
// links it to its parent.
func TestSubAgent(t *testing.T) {
	f := read(t, subFile)
	for _, r := range f.Records {
		if r.IsSidechain || r.SessionID != "b0000000-0000-4000-8000-000000000002" {
			t.Fatalf("record %s: sidechain %v session %q", r.Raw, r.IsSidechain, r.SessionID)
		}
	}
	s := session.Build(f, session.Options{})
	if s.ID != "b0000000-0000-4000-8000-000000000002" || len(s.Agents) != 0 {
		t.Errorf("id %q, %d inline agents", s.ID, len(s.Agents))
	}
	if got := texts(s.Messages, session.KindPrompt); !slices.Equal(got, []string{"Find where prices are formatted"}) {
		t.Errorf("prompts %q", got)
	}
	if got := texts(s.Messages, session.KindAnswer); !slices.Equal(got, []string{"Prices are formatted in money.js."}) {
		t.Errorf("answers %q", got)
	}
}

func TestToolMapping(t *testing.T) {
	s := build(t, shopFile)
	byID := map[string]*session.ToolCall{}
	for _, c := range s.Tools {
		byID[c.ID] = c
	}
	for id, want := range map[string]string{
		"sh-1": "Bash", "wr-1": "Write", "ed-1": "Edit", "rd-1": "Read", "gr-1": "Grep", "gl-1": "Glob",
		"ls-1": "LS", "ws-1": "WebSearch", "wf-1": "WebFetch", "td-1": "TodoWrite", "mem-1": "save_memory",
	} {
		c := byID[id]
		if c == nil || c.Name != want || c.Result == nil {
			t.Errorf("%s: %+v, want a %s call with its result", id, c, want)
		}
	}
	in := func(id, key string) string { return byID[id].In().Str(key) }
	checks := [][3]string{
		{"sh-1", "command", "npm test"}, {"wr-1", "file_path", "/home/kim/src/shop/cart.js"},
		{"ed-1", "old_string", "<p>Total: ?</p>"}, {"rd-1", "file_path", "/home/kim/src/shop/README.md"},
		{"gr-1", "path", "src"}, {"gr-1", "glob", "*.js"}, {"ls-1", "path", "/home/kim/src/shop"},
		{"ws-1", "query", "Array reduce sum"}, {"wf-1", "url", "https://example.com/reduce"},
		{"mem-1", "fact", "The shop uses cents."},
	}
	for _, c := range checks {
		if got := in(c[0], c[1]); got != c[2] {
			t.Errorf("%s %s = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	if !byID["mem-1"].IsError {
		t.Error("the failed save_memory call is not an error")
	}

	page := renderPage(t, s)
	writePage(t, "fixture-shop", page)
	for _, want := range []string{
		"npm test", "expected 30, got 0", "Exit code 1", // the Bash card: command, output, exit code
		`<p>Total: <span id="total"></span></p>`, // the Edit diff, from fileDiff
		"s + i.price, 0);",                       // the Write diff
		"Sum the prices", "Show the total",       // the checklist
		"Memory is read-only here.", "The shop uses cents.", // a tool with no card: args and result
		"Planning the total", "Switched to model gemini-2.5-flash", "Quota exceeded",
		"Abandoned branch", "Now make the total blue", "The total is blue now.",
		"Content from @cart.js", // what was sent with the prompt
	} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, kind := range []string{"bash", "file", "search", "todo", "web"} {
		if !strings.Contains(page, `class="tool tool-`+kind+" ") {
			t.Errorf("page has no %s card", kind)
		}
	}
	if !strings.Contains(page, `class="diff`) {
		t.Error("no diff rendered for the Write and Edit calls")
	}
}

var (
	tsOnce sync.Once
	ts     *render.Templates
	tsErr  error
)

// renderPage renders a session's page as the site builder does.
func renderPage(t *testing.T, s *session.Session) string {
	t.Helper()
	tsOnce.Do(func() { ts, tsErr = render.Load(templates.FS) })
	if tsErr != nil {
		t.Fatal(tsErr)
	}
	b := &render.Builder{MD: markup.New(markup.NewHighlighter())}
	page := link.Session("gemini", s.ID)
	body := b.Session(s, "gemini", render.Links{Page: page, Project: link.Project("gemini"),
		Agent: func(*session.Session) string { return "" }})
	var buf bytes.Buffer
	if err := ts.Page(&buf, &render.Page{Path: page, Title: s.Title, Kind: "session",
		Crumbs: []render.Crumb{{Label: "gemini", URL: link.Rel(page, link.Project("gemini"))}, {Label: s.Title}}, Body: body}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// writePage keeps a page in $GEMINI57_PAGES, for a look in a browser.
func writePage(t *testing.T, name, page string) {
	dir := os.Getenv("GEMINI57_PAGES")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRedaction: a secret in a prompt or a tool's output never reaches
// Read's records when the filter redacts, in either file form.
func TestRedaction(t *testing.T) {
	red, err := redact.New(redact.Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	secret := "ghp_" + strings.Repeat("x7Kq", 9)
	dir := t.TempDir()
	lines := []string{
		`{"sessionId":"f1000000-0000-4000-8000-000000000007","projectHash":"p","startTime":"2026-05-03T10:00:00.000Z"}`,
		`{"id":"r1","timestamp":"2026-05-03T10:00:01.000Z","type":"user","content":"Push with GITHUB_TOKEN=` + secret + ` please"}`,
		`{"id":"r2","timestamp":"2026-05-03T10:00:02.000Z","type":"gemini","content":"Done.","toolCalls":[{"id":"s1","name":"run_shell_command","args":{"command":"env | grep TOKEN"},"result":[{"functionResponse":{"id":"s1","name":"run_shell_command","response":{"output":"Output: GITHUB_TOKEN=` + secret + `\nExit Code: 0"}}}],"status":"success","timestamp":"2026-05-03T10:00:02.000Z","resultDisplay":"GITHUB_TOKEN=` + secret + `"}]}`,
	}
	jsonl := filepath.Join(dir, "session-2026-05-03T10-00-f1000000.jsonl")
	if err := os.WriteFile(jsonl, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	whole := `{"sessionId":"f2000000-0000-4000-8000-000000000008","projectHash":"p","startTime":"2026-05-03T10:00:00.000Z","messages":[` +
		strings.Join(lines[1:], ",\n") + "]}"
	js := filepath.Join(dir, "session-2026-05-03T10-00-f2000000.json")
	if err := os.WriteFile(js, []byte(whole), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{jsonl, js} {
		plain, err := gemini.Read(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !leaks(plain, secret) {
			t.Fatalf("%s: the secret is not in the unredacted records: the test sees nothing", path)
		}
		f, err := gemini.Read(path, red.Line)
		if err != nil {
			t.Fatal(err)
		}
		if leaks(f, secret) {
			t.Errorf("%s: the secret survives redaction", filepath.Base(path))
		}
		s := session.Build(f, session.Options{})
		if len(texts(s.Messages, session.KindPrompt)) != 1 || len(s.Tools) != 1 {
			t.Errorf("%s: redaction lost the prompt or the call", filepath.Base(path))
		}
		if strings.Contains(renderPage(t, s), secret[4:20]) {
			t.Errorf("%s: the secret is on the page", filepath.Base(path))
		}
	}
}

func leaks(f *transcript.File, secret string) bool {
	for _, r := range f.Records {
		if bytes.Contains(r.Raw, []byte(secret)) {
			return true
		}
	}
	for _, p := range f.Problems {
		if strings.Contains(p.Excerpt, secret) {
			return true
		}
	}
	return false
}

var words = regexp.MustCompile(`[\p{L}\p{N}]+`)

// wordsOf is a text's words, one space apart: what a page shows of it
// whatever the Markdown made of it.
func wordsOf(s string) string { return strings.Join(words.FindAllString(s, -1), " ") }

var tags = regexp.MustCompile(`(?s)<[^>]*>`)

// TestRealSessions reads the real Gemini CLI sessions in
// $CCSITE_AGENTS/gemini: no problems, every prompt, answer and tool
// call in the model and on the page.
func TestRealSessions(t *testing.T) {
	root := os.Getenv("CCSITE_AGENTS")
	if root == "" {
		t.Skip("CCSITE_AGENTS is not set")
	}
	found, err := gemini.Find(filepath.Join(root, "gemini"))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 2 {
		t.Fatalf("found %d sessions", len(found))
	}
	for _, fd := range found {
		t.Run(filepath.Base(fd.Path), func(t *testing.T) {
			if fd.Project == "" || fd.ID == "" || fd.Start.IsZero() {
				t.Errorf("Found %+v: no project, id or start", fd)
			}
			f := read(t, fd.Path)
			if len(f.Problems) > 0 {
				t.Errorf("problems: %v", f.Problems)
			}
			s := session.Build(f, session.Options{})
			if len(s.Problems) > 0 || len(s.Unknown) > 0 || len(s.Unanswered) > 0 || len(s.OrphanResults) > 0 {
				t.Errorf("session problems %v, unknown %v, unanswered %v, orphans %v", s.Problems, s.Unknown, s.Unanswered, s.OrphanResults)
			}
			if s.CWD != fd.Project {
				t.Errorf("cwd %q, Find's project %q", s.CWD, fd.Project)
			}
			page := renderPage(t, s)
			writePage(t, strings.TrimSuffix(filepath.Base(fd.Path), ".json"), page)
			pageWords := wordsOf(html.UnescapeString(tags.ReplaceAllString(page, " ")))
			checkReal(t, fd.Path, s, pageWords)
		})
	}
}

// checkReal compares a session with its file read independently.
func checkReal(t *testing.T, path string, s *session.Session, pageWords string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var conv struct {
		Messages []struct {
			Type      string          `json:"type"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"toolCalls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(data, &conv); err != nil {
		t.Fatal(err)
	}
	prompts := wordsOf(strings.Join(texts(s.Messages, session.KindPrompt), "\n"))
	answers := wordsOf(strings.Join(texts(s.Messages, session.KindAnswer), "\n"))
	tools := map[string]*session.ToolCall{}
	for _, c := range s.Tools {
		tools[c.ID] = c
	}
	var nPrompts, nAnswers, nCalls int
	for _, m := range conv.Messages {
		text := contentText(m.Content)
		w := wordsOf(text)
		switch m.Type {
		case "user":
			nPrompts++
			if !strings.Contains(prompts, w) {
				t.Errorf("prompt %.60q is not a prompt", text)
			}
		case "gemini":
			if w != "" {
				nAnswers++
			}
			if !strings.Contains(answers, w) {
				t.Errorf("answer %.60q is not an answer", text)
			}
		}
		head := w
		if len(head) > 80 {
			head = head[:strings.LastIndex(head[:80], " ")]
		}
		if !strings.Contains(pageWords, head) {
			t.Errorf("%s %.60q is not on the page", m.Type, text)
		}
		for _, tc := range m.ToolCalls {
			nCalls++
			if c := tools[tc.ID]; c == nil || c.Result == nil {
				t.Errorf("tool call %s %s missing or unanswered", tc.Name, tc.ID)
			}
		}
	}
	t.Logf("%d prompts, %d answers with text, %d tool calls; %d tools in the model", nPrompts, nAnswers, nCalls, len(s.Tools))
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text + "\n")
	}
	return b.String()
}

// TestAnonymize: the project's path, found in projects.json or by its
// hash, is anonymised as the lines are.
func TestAnonymize(t *testing.T) {
	red, err := redact.New(redact.Options{Anonymize: true, Home: "/home/kim", User: "kim"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gemini.Read(shopFile, red.Line)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Records {
		if r.UUID != "" && r.CWD != "~/src/shop" || bytes.Contains(r.Raw, []byte("/home/kim")) {
			t.Fatalf("record cwd %q raw %s: the home folder shows", r.CWD, r.Raw)
		}
	}
	// A hash folder is still named (from the file as written), then
	// anonymised.
	red2, _ := redact.New(redact.Options{Anonymize: true, Home: "/work", User: "nobody"})
	if s := session.Build(mustRead(t, legacyFile, red2.Line), session.Options{}); s.CWD != "~/legacy" {
		t.Errorf("cwd %q, want ~/legacy", s.CWD)
	}
}

func mustRead(t *testing.T, path string, filter transcript.Filter) *transcript.File {
	t.Helper()
	f, err := gemini.Read(path, filter)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPatch: a "$patch" gives a message its content and its calls their
// results; removeIds drops messages (kept as a branch); updates patch
// several.
func TestPatch(t *testing.T) {
	s := build(t, "testdata/patch.jsonl")
	if got, want := texts(s.Messages, session.KindPrompt), []string{"List the files", "Thanks a lot"}; !slices.Equal(got, want) {
		t.Errorf("prompts %q, want %q", got, want)
	}
	if got, want := texts(s.Messages, session.KindAnswer), []string{"Here they are.", "You are welcome."}; !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
	if len(s.Tools) != 1 || s.Tools[0].Result == nil || !strings.Contains(s.Tools[0].ResultText(), "a.txt") {
		t.Errorf("the patched result is not the call's")
	}
	if len(s.Branches) != 1 || !slices.Equal(texts(s.Branches[0].Messages, session.KindAnswer), []string{"Forgotten."}) {
		t.Errorf("the removed messages are not a branch: %d branches", len(s.Branches))
	}
}

// TestRewindFirst: a rewind to the first prompt leaves two beginnings;
// the later one is the conversation, the earlier an abandoned branch.
func TestRewindFirst(t *testing.T) {
	s := build(t, "testdata/rewind-first.jsonl")
	if got := texts(s.Messages, session.KindPrompt); !slices.Equal(got, []string{"Write a limerick"}) {
		t.Errorf("prompts %q", got)
	}
	if len(s.Branches) != 1 || !slices.Equal(texts(s.Branches[0].Messages, session.KindPrompt), []string{"Write a poem"}) {
		t.Errorf("%d branches, want the first poem", len(s.Branches))
	}
}

// TestFindMigrated: a resumed .json session is moved to .jsonl beside it
// (the same name + "l"): only the .jsonl is the session.
func TestFindMigrated(t *testing.T) {
	chats := filepath.Join(t.TempDir(), ".gemini", "tmp", "p", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"session-2026-05-06T10-00-a4000000.json", "session-2026-05-06T10-00-a4000000.jsonl", "session-2026-05-06T10-00-a4000000.jsonl.tmp-42", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(chats, name), []byte(`{"sessionId":"a4000000-0000-4000-8000-00000000000b","projectHash":"p"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, err := gemini.Find(filepath.Dir(filepath.Dir(chats)))
	if err != nil || len(found) != 1 || !strings.HasSuffix(found[0].Path, ".jsonl") {
		t.Fatalf("Find = %+v, %v; want the .jsonl alone", found, err)
	}
	// No startTime in it: the minute its name gives.
	if want := time.Date(2026, 5, 6, 10, 0, 0, 0, time.UTC); !found[0].Start.Equal(want) {
		t.Errorf("Start %v, want %v", found[0].Start, want)
	}
}

// TestFindByContent: a file given alone, out of Gemini CLI's folders, is
// its session when its content says so, whatever its name; a Claude Code
// transcript is not.
func TestFindByContent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gem := write("chat.jsonl", `{"sessionId":"a5000000-0000-4000-8000-00000000000c","projectHash":"p","startTime":"2026-05-07T10:00:00.000Z"}`+"\n"+`{"id":"m1","timestamp":"2026-05-07T10:00:01.000Z","type":"user","content":"hi"}`+"\n")
	claude := write("b6000000-0000-4000-8000-00000000000d.jsonl", `{"type":"user","uuid":"u","sessionId":"b6000000-0000-4000-8000-00000000000d","message":{"role":"user","content":"hi"}}`+"\n")
	if got, err := gemini.Find(gem); err != nil || len(got) != 1 || got[0].ID != "a5000000-0000-4000-8000-00000000000c" {
		t.Errorf("Find(gemini file) = %+v, %v", got, err)
	}
	if got, _ := gemini.Find(claude); len(got) != 0 {
		t.Errorf("Find(claude file) = %+v, want nothing", got)
	}
	if got, _ := gemini.Find(home + "/projects.json"); len(got) != 0 {
		t.Errorf("Find(projects.json) = %+v, want nothing", got)
	}
}
