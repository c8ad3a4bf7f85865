package render

import (
	"fmt"
	"github.com/go-json-experiment/json"
	"html/template"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"github.com/go-json-experiment/json/jsontext"
)

// ToolView is a tool call's card; Kind selects the template "tool/"+Kind.
type ToolView struct {
	ID     string
	Anchor string
	Name   string
	// Server and Tool split an MCP tool name (mcp__server__tool).
	Server, Tool string
	Kind         string
	// Summary is the one-line description in the card's header.
	Summary      string
	Status       string // ok, error, interrupted, pending
	ResultAnchor string
	Orphan       bool
	Progress     int
	Data         any
	// Result is the generic result (text and images) when no richer view
	// of it exists; Error the error text.
	Result *Output
	Error  template.HTML
	// Fold is the card as one line (see fold.go).
	Fold FoldLine
}

// Output is text output, collapsed when long.
type Output struct {
	HTML  template.HTML
	Lines int
	Long  bool
	// Size labels the folded output: "135 KB · 1 line".
	Size   string
	Images []Image
	// JSON marks HTML as a highlighted JSON block rather than terminal text.
	JSON bool
	// Withheld names the images of the result that cannot be shown (their
	// data unreadable or withheld by the redactor).
	Withheld []string
	// Links are a server web search's results.
	Links []WebLink
}

func msDuration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func (c *viewCtx) tool(call *session.ToolCall) ToolView {
	t := ToolView{ID: call.ID, Anchor: c.pre + link.Tool(call.ID), Name: call.Name, Kind: "generic", Status: "ok", Progress: call.ProgressCount}
	// A tool_use id written twice (copied history) gets a second anchor.
	c.toolSeen[call.ID]++
	if n := c.toolSeen[call.ID]; n > 1 {
		t.Anchor = fmt.Sprintf("%s-%d", t.Anchor, n)
	}
	// The result's message anchor sits on the first card that shows it
	// (one user record may answer several parallel calls).
	if call.ResultUUID != "" && !c.anchored[call.ResultUUID] {
		c.anchored[call.ResultUUID] = true
		t.ResultAnchor = c.pre + link.Message(call.ResultUUID)
	}
	switch {
	case call.Result == nil:
		t.Status = "pending"
	case call.IsError:
		t.Status = "error"
	}
	if strings.HasPrefix(call.Name, "mcp__") {
		parts := strings.SplitN(strings.TrimPrefix(call.Name, "mcp__"), "__", 2)
		t.Server = parts[0]
		if len(parts) == 2 {
			t.Tool = parts[1]
		}
	}
	in := call.In()
	tur := call.ToolUseResult
	if t.Status == "error" {
		text := call.ResultText()
		// 2.x writes a call the person stopped as an error saying so.
		if strings.Contains(text, "[Request interrupted by user") {
			t.Status = "interrupted"
		}
		t.Error = c.b.MD.ANSI(text)
	}
	builder := toolBuilderFor(call.Name)
	if builder == nil {
		if t.Server != "" {
			builder = (*viewCtx).mcpTool
		} else {
			builder = (*viewCtx).genericTool
		}
	}
	builder(c, &t, call, in, tur)
	if t.Result == nil && t.Status != "error" && t.Kind == "generic" {
		t.Result = c.output(call)
		// MCP servers and other tools often answer in JSON: show it
		// indented and highlighted.
		if t.Result != nil && len(t.Result.Images) == 0 && len(t.Result.Withheld) == 0 && !t.Result.JSON {
			if html, pretty, ok := c.jsonBlock(call.ResultText()); ok {
				t.Result.HTML, t.Result.JSON = html, true
				t.Result.Lines = lineCount(pretty)
				t.Result.Long, t.Result.Size = folded(len(pretty), t.Result.Lines, collapseLines)
			}
		}
	}
	return t
}

// collapseBytes is the size above which a block starts folded, whatever
// its lines: a 135 KB result on one line wraps as tall as a long one.
const collapseBytes = 4 << 10

// folded says whether a block of n bytes and lines lines starts folded
// (more than collapseBytes or maxLines), and labels its size for the
// summary: "135 KB · 1 line", or "12 KB" when lines is 0.
func folded(n, lines, maxLines int) (long bool, size string) {
	size = byteSize(n)
	if lines > 0 {
		size += " · " + plural(lines, "line")
	}
	return n > collapseBytes || lines > maxLines, size
}

// byteSize writes a size as people read it: "812 bytes", "4 KB", "1.2 MB".
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return plural(n, "byte")
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// lineCount is the number of lines s shows, a final newline not counted.
func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// jsonText returns text as JSON when it is one JSON object or array of at
// most markup.MaxJSONBytes (larger stays plain text), else nil.
func jsonText(text string) jsontext.Value {
	t := strings.TrimSpace(text)
	if len(t) < 2 || len(t) > markup.MaxJSONBytes || (t[0] != '{' && t[0] != '[') {
		return nil
	}
	v := jsontext.Value(t)
	if !v.IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
		return nil
	}
	return v
}

// jsonBlock shows text that is JSON indented by two spaces and
// highlighted; pretty is the indented text (what folding measures). ok is
// false when text is not JSON, or too large to be worth it.
func (c *viewCtx) jsonBlock(text string) (html template.HTML, pretty string, ok bool) {
	v := jsonText(text)
	if v == nil {
		return "", "", false
	}
	p := append(jsontext.Value(nil), v...)
	if p.Indent(jsontext.WithIndent("  ")) != nil {
		return "", "", false
	}
	return c.b.MD.Highlighter().JSON(string(p)), string(p), true
}

// Shell is a terminal block as the terminal template shows it: Terminal
// with its size label, and stdout as highlighted JSON when it is JSON.
type Shell struct {
	Terminal
	// Size labels the folded output: "135 KB · 1 line".
	Size string
	// JSON marks Stdout as a highlighted JSON block.
	JSON bool
}

// Shell is a terminal block built elsewhere (local command output), folded
// by its lines only: its text's size is not known here.
func (t Terminal) Shell() Shell {
	return Shell{Terminal: t, Size: plural(t.Lines, "line")}
}

// shell is a command's output, folded by size and lines, JSON on stdout
// shown indented and highlighted.
func (c *viewCtx) shell(stdout, stderr string) Shell {
	sh := Shell{}
	n, lines := 0, 0
	if html, pretty, ok := c.jsonBlock(stdout); ok {
		sh.Stdout, sh.JSON = html, true
		n, lines = len(pretty), lineCount(pretty)
	} else if stdout != "" {
		sh.Stdout = c.b.MD.ANSI(strings.TrimRight(stdout, "\n"))
		n, lines = len(stdout), lineCount(stdout)
	}
	if stderr != "" {
		sh.Stderr = c.b.MD.ANSI(strings.TrimRight(stderr, "\n"))
		n, lines = n+len(stderr), lines+lineCount(stderr)
	}
	sh.Lines = lines
	sh.Long, sh.Size = folded(n, lines, collapseLines)
	return sh
}

// output is the generic view of a result: its text (ANSI-aware) and images.
func (c *viewCtx) output(call *session.ToolCall) *Output {
	if call.ResultBlock == nil {
		return nil
	}
	if session.IsServerResult(call.ResultBlock.Type) {
		return c.serverOutput(call.ResultBlock)
	}
	o := &Output{}
	text := call.ResultText()
	for _, b := range call.ResultBlock.Content.Blocks {
		if b.Type == "image" {
			if img, ok := c.image(b.Source); ok {
				o.Images = append(o.Images, img)
			} else {
				// An image whose data cannot be read (the redactor
				// withholds those: their bytes could hold anything) is
				// said, not dropped silently.
				o.Withheld = append(o.Withheld, imageLabel(b.Source))
			}
		}
	}
	if text == "" && len(o.Images) == 0 && len(o.Withheld) == 0 {
		return nil
	}
	o.HTML = c.b.MD.ANSI(strings.TrimRight(text, "\n"))
	o.Lines = lineCount(text)
	o.Long, o.Size = folded(len(text), o.Lines, collapseLines)
	return o
}

type toolBuilder func(c *viewCtx, t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value)

// toolBuilderFor returns the card builder of a known tool, else nil.
func toolBuilderFor(name string) toolBuilder {
	switch name {
	case "Bash":
		return (*viewCtx).bashTool
	case "Read":
		return (*viewCtx).readTool
	case "Write":
		return (*viewCtx).writeTool
	case "Edit", "MultiEdit":
		return (*viewCtx).editTool
	case "Glob", "Grep", "LS":
		return (*viewCtx).searchTool
	case "TodoWrite":
		return (*viewCtx).todoTool
	case "Task", "Agent":
		return (*viewCtx).taskTool
	case "WebSearch", "WebFetch":
		return (*viewCtx).webTool
	case "ExitPlanMode", "exit_plan_mode":
		return (*viewCtx).planTool
	case "NotebookEdit":
		return (*viewCtx).notebookTool
	case "AskUserQuestion":
		return (*viewCtx).askTool
	case "TaskCreate", "TaskUpdate", "TaskList", "TaskOutput", "TaskGet", "TaskStop":
		return (*viewCtx).taskListTool
	case "SendMessage", "Brief", "SendUserMessage":
		return (*viewCtx).messageTool
	case "advisor":
		return (*viewCtx).advisorTool
	case "Skill", "EnterPlanMode", "ToolSearch", "ListAgents", "Monitor", "ScheduleWakeup", "Workflow", "Artifact":
		return (*viewCtx).fieldsTool
	}
	if strings.HasPrefix(name, "Cron") {
		return (*viewCtx).fieldsTool
	}
	return nil
}

// BashView is a Bash call.
type BashView struct {
	Command template.HTML
	// CommandLong folds a long command (a heredoc), CommandSize labels it.
	CommandLong bool
	CommandSize string
	Description string
	Background  bool
	Out         Shell
	Interrupted bool
	ExitNote    string
}

func (c *viewCtx) bashTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "bash"
	cmd := in.Str("command")
	t.Summary = in.Str("description")
	if t.Summary == "" {
		t.Summary = firstLine(cmd)
	}
	v := BashView{Command: c.b.MD.Highlighter().Block("bash", "", cmd), Description: in.Str("description"), Background: in.Bool("run_in_background")}
	v.CommandLong, v.CommandSize = folded(len(cmd), lineCount(cmd), collapseLines)
	var res struct {
		Stdout      string `json:"stdout"`
		Stderr      string `json:"stderr"`
		Interrupted bool   `json:"interrupted"`
		ReturnCode  string `json:"returnCodeInterpretation"`
	}
	if structured(tur, &res) {
		v.Out = c.shell(res.Stdout, res.Stderr)
		v.Interrupted, v.ExitNote = res.Interrupted, res.ReturnCode
		if res.Interrupted {
			t.Status = "interrupted"
		}
	} else if call.Result != nil && t.Status != "error" {
		v.Out = c.shell(call.ResultText(), "")
	}
	t.Data = v
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}

// FileView shows a file's content or a diff. Its path is the card's
// summary, shown once there.
type FileView struct {
	Path    string
	Range   string
	Code    template.HTML
	Diff    template.HTML
	Added   int
	Removed int
	Image   *Image
	Note    string
	Lines   int
	Long    bool
	// Size labels the folded code or diff: "12 KB · 300 lines".
	Size string
}

func (c *viewCtx) readTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "file"
	p := in.Str("file_path")
	t.Summary = p
	v := FileView{Path: p}
	var res struct {
		Type string `json:"type"`
		File struct {
			FilePath   string `json:"filePath"`
			Content    string `json:"content"`
			NumLines   int    `json:"numLines"`
			StartLine  int    `json:"startLine"`
			TotalLines int    `json:"totalLines"`
			Base64     string `json:"base64"`
			Type       string `json:"type"`
		} `json:"file"`
	}
	if structured(tur, &res) && (res.File.Content != "" || res.File.Base64 != "") {
		if res.Type == "image" || res.File.Base64 != "" {
			if img, ok := c.image(&transcript.Source{Type: "base64", MediaType: res.File.Type, Data: res.File.Base64}); ok {
				v.Image = &img
			}
		} else {
			start := max(res.File.StartLine, 1)
			v.Code = c.b.MD.Highlighter().Lines("", p, res.File.Content, start)
			end := start + max(res.File.NumLines, 1) - 1
			v.Lines = res.File.NumLines
			v.Long, v.Size = folded(len(res.File.Content), v.Lines, collapseLines)
			if res.File.TotalLines > 0 {
				v.Range = fmt.Sprintf("lines %d–%d of %d", start, end, res.File.TotalLines)
			}
		}
	} else if call.Result != nil && t.Status != "error" {
		// No structured result (older versions, sub-agents rebuilt from
		// progress): the numbered text as sent, highlighted when it is.
		if start, content, n, ok := catN(call.ResultText()); ok {
			v.Code = c.b.MD.Highlighter().Lines("", p, content, start)
			v.Lines = n
			v.Long, v.Size = folded(len(content), n, collapseLines)
			v.Range = fmt.Sprintf("lines %d–%d", start, start+n-1)
		} else if o := c.output(call); o != nil {
			t.Result = o
		}
		if off, lim := in.Num("offset"), in.Num("limit"); v.Range == "" && (off > 0 || lim > 0) {
			v.Range = fmt.Sprintf("from line %d, %d lines", max(off, 1), lim)
		}
	}
	t.Data = v
}

// catN reads Read's text result, numbered like `cat -n` ("    12\tcode"),
// back into its first line number and content. A trailing system reminder
// is left out. ok is false unless every line is numbered in sequence.
func catN(text string) (start int, content string, lines int, ok bool) {
	if strings.Contains(text, "<system-reminder>") { // what every match starts with
		text = reReminder.ReplaceAllString(text, "")
	}
	text = strings.TrimRight(text, "\n ")
	if text == "" {
		return 0, "", 0, false
	}
	var b strings.Builder
	want := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		num, rest, found := strings.Cut(strings.TrimLeft(line, " "), "\t")
		if !found {
			// 1.x wrote "12→code".
			num, rest, found = strings.Cut(strings.TrimLeft(line, " "), "→")
		}
		n, err := strconv.Atoi(num)
		if !found || err != nil || (want > 0 && n != want) {
			return 0, "", 0, false
		}
		if want == 0 {
			start = n
		}
		want = n + 1
		b.WriteString(rest)
		b.WriteByte('\n')
		lines++
	}
	return start, b.String(), lines, true
}

// structured reads a toolUseResult object into res. It is false when there
// is none, when it is a string (how failures are written) or malformed.
// transcript.FastInto reads nearly all of them; what it is not sure of is
// json's.
func structured(tur jsontext.Value, res any) bool {
	if structuredHook != nil {
		structuredHook(tur, res)
	}
	// tur is a Record's ToolUseResult: JSON its decoding accepted.
	return len(tur) > 0 && tur[0] == '{' && (transcript.FastIntoValid(tur, res) || transcript.Unmarshal(tur, res) == nil)
}

// structuredHook, when set (by tests), sees every value structured is
// given and the pointer it is to be decoded into, before it is.
var structuredHook func(tur jsontext.Value, res any)

// hunksOf reads a structuredPatch.
func hunksOf(tur jsontext.Value) []markup.Hunk {
	var res struct {
		StructuredPatch []markup.Hunk `json:"structuredPatch"`
	}
	if !structured(tur, &res) {
		return nil
	}
	return res.StructuredPatch
}

func (c *viewCtx) writeTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "file"
	p := in.Str("file_path")
	t.Summary = p
	v := FileView{Path: p}
	var res struct {
		Type            string        `json:"type"`
		OriginalFile    string        `json:"originalFile"`
		StructuredPatch []markup.Hunk `json:"structuredPatch"`
	}
	var hunks []markup.Hunk
	if structured(tur, &res) {
		hunks = res.StructuredPatch
	} else {
		// A member of the wrong type fails the whole decode: read the
		// two parts apart, as a failure of one leaves the other.
		var part struct {
			Type         string `json:"type"`
			OriginalFile string `json:"originalFile"`
		}
		_ = structured(tur, &part)
		res.Type, res.OriginalFile = part.Type, part.OriginalFile
		hunks = hunksOf(tur)
	}
	content := in.Str("content")
	switch {
	case res.Type == "update" && len(hunks) > 0:
		v.Note = "updated"
		c.setDiff(&v, hunks)
	case res.Type == "update" && res.OriginalFile != "":
		v.Note = "updated"
		c.setDiff(&v, markup.DiffStrings(res.OriginalFile, content, 1))
	default:
		if res.Type == "create" {
			v.Note = "new file"
		}
		v.Code = c.b.MD.Highlighter().Lines("", p, content, 1)
		v.Lines = max(lineCount(content), 1)
		v.Long, v.Size = folded(len(content), v.Lines, collapseLines)
	}
	t.Data = v
}

func (c *viewCtx) setDiff(v *FileView, hunks []markup.Hunk) {
	v.Diff = c.b.MD.Highlighter().Diff(hunks)
	st := markup.Stats(hunks)
	v.Added, v.Removed = st.Added, st.Removed
	n := 0
	for _, h := range hunks {
		v.Lines += len(h.Lines)
		for _, l := range h.Lines {
			n += len(l) + 1
		}
	}
	v.Long, v.Size = folded(n, v.Lines, 2*collapseLines)
}

func (c *viewCtx) editTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "file"
	p := in.Str("file_path")
	t.Summary = p
	v := FileView{Path: p}
	if hunks := hunksOf(tur); len(hunks) > 0 {
		c.setDiff(&v, hunks)
	} else {
		// No patch: compute one from the strings, placed in the original
		// file when the result carries it.
		var res struct {
			OriginalFile string `json:"originalFile"`
		}
		_ = structured(tur, &res)
		var hunks []markup.Hunk
		for _, e := range in.Edits(call.Name) {
			start := 1
			if i := strings.Index(res.OriginalFile, e.Old); i >= 0 && e.Old != "" {
				start = strings.Count(res.OriginalFile[:i], "\n") + 1
			}
			hunks = append(hunks, markup.DiffStrings(e.Old, e.New, start)...)
		}
		if len(hunks) > 0 {
			c.setDiff(&v, hunks)
		}
	}
	if in.Bool("replace_all") {
		v.Note = "all occurrences"
	}
	t.Data = v
}

// SearchView is a Glob, Grep or LS call.
type SearchView struct {
	Pattern   string
	Path      string
	Options   []string
	Count     string
	Truncated bool
	Files     []string
	Content   template.HTML
	Lines     int
	Long      bool
	// Size labels the folded results: "6 KB · 120 lines".
	Size string
	// None is a search that found nothing: said, not an empty box.
	None bool
}

func (c *viewCtx) searchTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "search"
	v := SearchView{Pattern: in.Str("pattern"), Path: in.Str("path")}
	for _, k := range []string{"glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C", "multiline", "head_limit", "ignore"} {
		if !in.Has(k) {
			continue
		}
		raw := in.Raw(k)
		val := string(raw)
		if s := session.RawString(raw); s != "" || val == `""` {
			val = s
		}
		v.Options = append(v.Options, k+"="+val)
	}
	t.Summary = strings.TrimSpace(v.Pattern + " " + v.Path)
	var res struct {
		Filenames []string `json:"filenames"`
		NumFiles  int      `json:"numFiles"`
		Truncated bool     `json:"truncated"`
		Content   string   `json:"content"`
		NumLines  int      `json:"numLines"`
		Mode      string   `json:"mode"`
	}
	if structured(tur, &res) && (res.Filenames != nil || res.Content != "" || res.NumFiles > 0) {
		v.Files, v.Truncated = res.Filenames, res.Truncated
		v.Count = fmt.Sprintf("%d files", res.NumFiles)
		if res.Mode == "content" {
			v.Count = fmt.Sprintf("%d lines in %d files", res.NumLines, res.NumFiles)
			if res.NumFiles == 0 {
				v.Count = fmt.Sprintf("%d lines", res.NumLines)
			}
		}
		n := 0
		if res.Content != "" {
			v.Content = c.b.MD.ANSI(strings.TrimRight(res.Content, "\n"))
			v.Lines, n = lineCount(res.Content), len(res.Content)
		}
		for _, f := range v.Files {
			n += len(f) + 1
		}
		v.Lines += len(v.Files)
		v.Long, v.Size = folded(n, v.Lines, collapseLines)
		if len(v.Files) == 0 && strings.TrimSpace(res.Content) == "" {
			v.None, v.Count = true, ""
		}
	} else if call.Result != nil && t.Status != "error" {
		t.Result = c.output(call)
	}
	t.Data = v
}

// TodoView is a TodoWrite checklist.
type TodoView struct {
	Items []Todo
}

// Todo is one checklist entry.
type Todo struct {
	Content string
	Status  string
	Active  string
}

func (c *viewCtx) todoTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "todo"
	var todos []struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	}
	_ = in.Decode("todos", &todos)
	v := TodoView{}
	done := 0
	for _, td := range todos {
		v.Items = append(v.Items, Todo{Content: td.Content, Status: td.Status, Active: td.ActiveForm})
		if td.Status == "completed" {
			done++
		}
	}
	t.Summary = fmt.Sprintf("%d of %d done", done, len(todos))
	t.Data = v
}

// TaskView is a Task/Agent call's card.
type TaskView struct {
	Description string
	Type        string
	Prompt      template.HTML
	Result      template.HTML
	AgentURL    string
	AgentID     string
	Status      string
	Duration    string
	Tokens      string
	ToolCount   int
	// ResultLong folds a long result (over 4 KB or 30 lines), with its
	// size in ResultSize.
	ResultLong bool
	ResultSize string
	// Async marks an agent launched in the background: the call's result
	// only says it started; Result and the figures come from the agent's
	// own file when it is attached.
	Async bool
}

func (c *viewCtx) taskTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "task"
	v := TaskView{Description: in.Str("description"), Type: in.Str("subagent_type"), Prompt: c.b.MD.Markdown(in.Str("prompt")), AgentID: call.AgentID}
	t.Summary = v.Description
	if call.AgentID != "" {
		v.AgentURL = c.agentURL[call.AgentID]
	}
	var res struct {
		Status            string             `json:"status"`
		Content           transcript.Content `json:"content"`
		TotalDurationMs   float64            `json:"totalDurationMs"`
		TotalTokens       int64              `json:"totalTokens"`
		TotalToolUseCount int                `json:"totalToolUseCount"`
		IsAsync           bool               `json:"isAsync"`
	}
	text := ""
	if ok := structured(tur, &res); ok && (res.IsAsync || res.Status == "async_launched") {
		text = c.asyncTask(t, &v, call)
	} else if ok {
		v.Status = res.Status
		if res.TotalDurationMs > 0 {
			v.Duration = ms(res.TotalDurationMs)
		}
		if res.TotalTokens > 0 {
			v.Tokens = thousands(res.TotalTokens)
		}
		v.ToolCount = res.TotalToolUseCount
		text = res.Content.Text()
	}
	if text == "" && call.Result != nil && t.Status != "error" && !v.Async {
		text = call.ResultText()
	}
	if text != "" {
		v.Result = c.b.MD.Markdown(text)
		v.ResultLong, v.ResultSize = folded(len(text), lineCount(text), collapseLines)
	}
	t.Data = v
}

// WebView is a WebSearch or WebFetch call.
type WebView struct {
	Query  string
	URL    string
	Status string
	Links  []WebLink
	Result template.HTML
	Chars  int
	// JSON marks Result as a highlighted JSON block (a fetched API).
	JSON bool
	// Size labels the result, always folded: "12 KB · 80 lines".
	Size string
}

// WebLink is a search result.
type WebLink struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

func (c *viewCtx) webTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "web"
	v := WebView{Query: in.Str("query"), URL: in.Str("url")}
	t.Summary = v.Query + v.URL
	var res struct {
		Code       int              `json:"code"`
		CodeText   string           `json:"codeText"`
		Bytes      int              `json:"bytes"`
		Result     string           `json:"result"`
		Results    []jsontext.Value `json:"results"`
		DurationMs float64          `json:"durationMs"`
	}
	text := ""
	if structured(tur, &res) {
		if res.Code != 0 {
			v.Status = strings.TrimSpace(fmt.Sprintf("%d %s", res.Code, res.CodeText))
		}
		text = res.Result
		for _, r := range res.Results {
			var hit struct {
				Content []WebLink `json:"content"`
			}
			if transcript.Unmarshal(r, &hit) == nil {
				for _, l := range hit.Content {
					if l.URL != "" {
						v.Links = append(v.Links, WebLink{Title: orDefault(l.Title, l.URL), URL: safeURL(l.URL)})
					}
				}
			} else if s := session.RawString(r); s != "" && text == "" {
				text = s
			}
		}
	}
	if text == "" && call.Result != nil && t.Status != "error" {
		text = call.ResultText()
	}
	if text != "" {
		n, lines := len(text), lineCount(text)
		if html, pretty, ok := c.jsonBlock(text); ok {
			v.Result, v.JSON = html, true
			n, lines = len(pretty), lineCount(pretty)
		} else {
			v.Result = c.b.MD.Markdown(text)
		}
		v.Chars = runes(text)
		_, v.Size = folded(n, lines, collapseLines)
	}
	v.URL = safeURL(v.URL)
	t.Data = v
}

// safeURL keeps http(s) URLs for links; anything else is not linked.
func safeURL(u string) string {
	l := strings.ToLower(strings.TrimSpace(u))
	if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return strings.TrimSpace(u)
	}
	return ""
}

// PlanView is an ExitPlanMode call.
type PlanView struct {
	Plan template.HTML
}

func (c *viewCtx) planTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "plan"
	plan := in.Str("plan")
	if plan == "" && call.Use != nil {
		plan = call.Use.Record().PlanContent
	}
	t.Summary = "Plan"
	t.Data = PlanView{Plan: c.b.MD.Markdown(plan)}
	if t.Status == "error" {
		// Rejecting a plan is reported as an error with the reason.
		t.Status = "rejected"
	}
}

// NotebookView is a NotebookEdit call.
type NotebookView struct {
	Path   string
	Cell   string
	Mode   string
	Type   string
	Source template.HTML
}

func (c *viewCtx) notebookTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "notebook"
	v := NotebookView{Path: in.Str("notebook_path"), Cell: in.Str("cell_id"), Mode: orDefault(in.Str("edit_mode"), "replace"), Type: in.Str("cell_type")}
	lang := "python"
	if v.Type == "markdown" {
		lang = "markdown"
	}
	v.Source = c.b.MD.Highlighter().Block(lang, "", in.Str("new_source"))
	t.Summary = path.Base(v.Path)
	t.Data = v
}

// AskView is an AskUserQuestion call with the answers given.
type AskView struct {
	Questions []Question
}

// Question is one question, its options and the answer.
type Question struct {
	Header   string
	Text     string
	Options  []string
	Answer   string
	Multiple bool
}

func (c *viewCtx) askTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "ask"
	var qs []struct {
		Question    string `json:"question"`
		Header      string `json:"header"`
		MultiSelect bool   `json:"multiSelect"`
		Options     []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
	}
	_ = in.Decode("questions", &qs)
	var res struct {
		Answers map[string]string `json:"answers"`
	}
	_ = structured(tur, &res)
	v := AskView{}
	for _, q := range qs {
		qq := Question{Header: q.Header, Text: q.Question, Multiple: q.MultiSelect, Answer: res.Answers[q.Question]}
		for _, o := range q.Options {
			s := o.Label
			if o.Description != "" {
				s += " — " + o.Description
			}
			qq.Options = append(qq.Options, s)
		}
		v.Questions = append(v.Questions, qq)
	}
	if len(qs) > 0 {
		t.Summary = qs[0].Question
	}
	if len(res.Answers) == 0 && call.Result != nil && t.Status != "error" {
		t.Result = c.output(call)
	}
	t.Data = v
}

// GenericView shows a tool's input as JSON, folded when long.
type GenericView struct {
	Input template.HTML
	Long  bool
	// Size labels the folded input: "12 KB".
	Size string
}

func (c *viewCtx) genericTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "generic"
	for _, k := range []string{"description", "command", "file_path", "path", "url", "query", "pattern", "skill", "prompt", "subject"} {
		if s := in.Str(k); s != "" {
			t.Summary = firstLine(s)
			break
		}
	}
	if len(call.Input) > 0 && string(call.Input) != "{}" {
		g := GenericView{}
		pretty := append(jsontext.Value(nil), call.Input...)
		if pretty.Indent(jsontext.WithIndent("  ")) != nil {
			pretty = call.Input
		}
		g.Input = c.rawJSON(call.Input)
		g.Long, _ = folded(len(pretty), lineCount(string(pretty)), collapseLines)
		g.Size = byteSize(len(pretty))
		t.Data = g
	} else {
		t.Data = GenericView{}
	}
}

func (c *viewCtx) mcpTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	c.genericTool(t, call, in, tur)
	t.Kind = "generic"
}

// ---- Async sub-agents (Task/Agent launched in the background) ----

// asyncTask fills the card of an agent launched in the background: its
// toolUseResult ({isAsync, status: "async_launched", agentId}) was written
// at launch, so the run is completed from the agent's own transcript (its
// last answer, duration, tool calls); without one the call stays
// "launched in the background", not completed. It returns the result text.
func (c *viewCtx) asyncTask(t *ToolView, v *TaskView, call *session.ToolCall) string {
	v.Async = true
	v.Status = "launched in the background"
	a := agentSessionOf(c.s, call.AgentID)
	if a == nil {
		if t.Status == "ok" {
			t.Status = "background"
		}
		return ""
	}
	o := session.Outcome(a)
	if o.Duration > 0 {
		v.Duration = duration(o.Duration)
	}
	if o.Tokens > 0 {
		v.Tokens = thousands(o.Tokens)
	}
	v.ToolCount = o.ToolCalls
	if !o.Finished {
		v.Status += " · no final answer in its transcript"
		if t.Status == "ok" {
			t.Status = "background"
		}
		return ""
	}
	v.Status += " · finished"
	return o.Result
}

// agentSessionOf finds the attached sub-agent session of id in s.
func agentSessionOf(s *session.Session, id string) *session.Session {
	if s == nil || id == "" {
		return nil
	}
	for _, a := range s.Agents {
		if a.Agent != nil && a.Agent.AgentID == id {
			return a
		}
	}
	return nil
}

// imageLabel names an image that cannot be shown: its media type.
func imageLabel(src *transcript.Source) string {
	if src == nil || src.MediaType == "" {
		return "image"
	}
	return src.MediaType
}

// serverOutput is a server tool's result block (advisor_tool_result,
// web_search_tool_result…): its text, the links of a web search, else its
// content as JSON.
func (c *viewCtx) serverOutput(b *transcript.Block) *Output {
	o := &Output{}
	text := b.Content.Text()
	for _, x := range b.Content.Blocks {
		switch x.Type {
		case "image":
			if img, ok := c.image(x.Source); ok {
				o.Images = append(o.Images, img)
			}
		case "text":
		default:
			var l WebLink
			if len(x.Extra) > 0 && transcript.Unmarshal(x.Extra, &l) == nil && safeURL(l.URL) != "" {
				o.Links = append(o.Links, WebLink{Title: orDefault(l.Title, l.URL), URL: safeURL(l.URL)})
			}
		}
	}
	var raw jsontext.Value
	switch {
	case len(b.Content.Raw) > 0:
		raw = b.Content.Raw
		if s := session.RawString(raw); s != "" {
			text, raw = s, nil
		}
	case text == "" && len(o.Links) == 0 && len(o.Images) == 0 && len(b.Content.Blocks) > 0:
		raw, _ = jsonMarshal(b.Content)
	case text == "" && len(b.Content.Blocks) == 0 && len(b.Extra) > 0:
		raw = b.Extra
	}
	if text == "" && len(raw) > 0 {
		text = string(raw)
	}
	if text == "" && len(o.Links) == 0 && len(o.Images) == 0 {
		return nil
	}
	if html, pretty, ok := c.jsonBlock(text); ok {
		o.HTML, o.JSON = html, true
		o.Lines = lineCount(pretty)
		o.Long, o.Size = folded(len(pretty), o.Lines, collapseLines)
		return o
	}
	if text != "" {
		o.HTML = c.b.MD.ANSI(strings.TrimRight(text, "\n"))
		o.Lines = lineCount(text)
		o.Long, o.Size = folded(len(text), o.Lines, collapseLines)
	}
	return o
}

// jsonMarshal writes v as JSON.
func jsonMarshal(v any) (jsontext.Value, error) {
	b, err := json.Marshal(v)
	return jsontext.Value(b), err
}

// TaskItem is one task of the task tools (TaskCreate, TaskList…).
type TaskItem struct {
	ID, Subject, Description, Owner string
	// Status is the task's state (pending, in_progress, completed, or
	// anything newer), State the same for people; From the state before
	// an update.
	Status, State, From string
	BlockedBy           []string
}

// TaskColumn is one state of the task board.
type TaskColumn struct {
	Status, State string
	Tasks         []TaskItem
}

// TasksView is a task tool's card: a board of the list's states (TaskList)
// or one task and its new state (TaskCreate, TaskUpdate, TaskGet,
// TaskOutput, TaskStop).
type TasksView struct {
	Board []TaskColumn
	Task  *TaskItem
	// Changed lists the fields an update changed besides the state.
	Changed []string
	Note    string
	Out     *Shell
}

// stateLabel writes a task state as people read it.
func stateLabel(s string) string {
	switch s {
	case "":
		return ""
	case "in_progress":
		return "in progress"
	}
	return strings.ReplaceAll(s, "_", " ")
}

// taskJSON is a task as the task tools write it.
type taskJSON struct {
	ID          string   `json:"id"`
	TaskID      string   `json:"task_id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Owner       string   `json:"owner"`
	BlockedBy   []string `json:"blockedBy"`
	TaskType    string   `json:"task_type"`
	Output      string   `json:"output"`
	Command     string   `json:"command"`
}

func (j taskJSON) item() TaskItem {
	return TaskItem{ID: orDefault(j.ID, j.TaskID), Subject: j.Subject, Description: orDefault(j.Description, j.Command),
		Owner: j.Owner, Status: j.Status, State: stateLabel(j.Status), BlockedBy: j.BlockedBy}
}

// reTaskLine is a line of TaskList's text result: "#3 [pending] Subject (owner)".
var reTaskLine = regexp.MustCompile(`^#(\S+) \[([a-z_]+)\] (.*)$`)

// reTaskID finds a task's number in a result text ("Task #3 created").
var reTaskID = regexp.MustCompile(`#(\d+)`)

// taskSubject finds the subject of task id as created earlier in the
// session (TaskUpdate names only the id).
func (c *viewCtx) taskSubject(id string, before *session.ToolCall) string {
	subject := ""
	for _, t := range c.s.Tools {
		if t == before {
			break
		}
		if t.Name != "TaskCreate" {
			continue
		}
		var res struct {
			Task taskJSON `json:"task"`
		}
		tid := ""
		if structured(t.ToolUseResult, &res) {
			tid = res.Task.ID
		}
		if tid == "" {
			if m := reTaskID.FindStringSubmatch(t.ResultText()); m != nil {
				tid = m[1]
			}
		}
		if tid == id {
			subject = t.In().Str("subject")
		}
	}
	return subject
}

var boardOrder = []string{"pending", "in_progress", "completed"}

func (c *viewCtx) taskListTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "tasks"
	v := TasksView{}
	text := ""
	if call.Result != nil && t.Status != "error" {
		text = call.ResultText()
	}
	id := orDefault(in.Str("taskId"), in.Str("task_id"))
	switch call.Name {
	case "TaskList":
		c.taskBoard(t, call, in, tur, text, id, &v)
	case "TaskCreate":
		c.taskCreate(t, call, in, tur, text, id, &v)
	case "TaskUpdate":
		c.taskUpdate(t, call, in, tur, text, id, &v)
	default: // TaskGet, TaskOutput, TaskStop
		c.taskShow(t, call, in, tur, text, id, &v)
	}
	if v.Task != nil && v.Task.ID == "" && v.Task.Subject == "" && v.Task.Description == "" && v.Task.Status == "" {
		v.Task = nil
	}
	t.Data = v
}

// taskBoard is TaskList: the tasks as a board of states.
func (c *viewCtx) taskBoard(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value, text, id string, v *TasksView) {
	var res struct {
		Tasks []taskJSON `json:"tasks"`
	}
	var tasks []TaskItem
	if structured(tur, &res) {
		for _, j := range res.Tasks {
			tasks = append(tasks, j.item())
		}
	} else {
		for line := range strings.Lines(text) {
			if m := reTaskLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				tasks = append(tasks, TaskItem{ID: m[1], Status: m[2], State: stateLabel(m[2]), Subject: m[3]})
			}
		}
	}
	cols := map[string]int{}
	for _, s := range boardOrder {
		cols[s] = len(v.Board)
		v.Board = append(v.Board, TaskColumn{Status: s, State: stateLabel(s)})
	}
	done := 0
	for _, tk := range tasks {
		i, ok := cols[tk.Status]
		if !ok {
			i = len(v.Board)
			cols[tk.Status] = i
			v.Board = append(v.Board, TaskColumn{Status: tk.Status, State: orDefault(tk.State, "no state")})
		}
		v.Board[i].Tasks = append(v.Board[i].Tasks, tk)
		if tk.Status == "completed" {
			done++
		}
	}
	if len(tasks) == 0 {
		v.Board = nil
		if call.Result != nil && t.Status != "error" {
			v.Note = "No tasks"
			if len(res.Tasks) == 0 && strings.TrimSpace(text) != "" && !structured(tur, &res) {
				t.Result = c.output(call)
				v.Note = ""
			}
		}
	} else {
		t.Summary = fmt.Sprintf("%d of %s done", done, plural(len(tasks), "task"))
	}
}

// taskCreate is TaskCreate: the new task.
func (c *viewCtx) taskCreate(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value, text, id string, v *TasksView) {
	tk := TaskItem{Subject: in.Str("subject"), Description: in.Str("description"), Owner: in.Str("owner"), Status: "pending", State: "new"}
	var res struct {
		Task taskJSON `json:"task"`
	}
	if structured(tur, &res) {
		tk.ID = res.Task.ID
	} else if m := reTaskID.FindStringSubmatch(text); m != nil {
		tk.ID = m[1]
	}
	v.Task = &tk
	t.Summary = tk.Subject
}

// taskUpdate is TaskUpdate: the task and its change of state.
func (c *viewCtx) taskUpdate(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value, text, id string, v *TasksView) {
	tk := TaskItem{ID: id, Subject: in.Str("subject"), Description: in.Str("description"), Owner: in.Str("owner"), Status: in.Str("status")}
	var res struct {
		Success       bool     `json:"success"`
		UpdatedFields []string `json:"updatedFields"`
		Error         string   `json:"error"`
		StatusChange  struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"statusChange"`
	}
	if structured(tur, &res) {
		if res.StatusChange.To != "" {
			tk.Status, tk.From = res.StatusChange.To, res.StatusChange.From
		}
		for _, f := range res.UpdatedFields {
			if f != "status" {
				v.Changed = append(v.Changed, f)
			}
		}
		if res.Error != "" {
			v.Note = res.Error
		}
	}
	for _, k := range []string{"addBlockedBy", "addBlocks"} {
		var ids []string
		if in.Decode(k, &ids) && len(ids) > 0 {
			label := "blocked by"
			if k == "addBlocks" {
				label = "blocks"
			}
			v.Changed = append(v.Changed, label+" #"+strings.Join(ids, ", #"))
			if k == "addBlockedBy" {
				tk.BlockedBy = ids
			}
		}
	}
	tk.State = stateLabel(tk.Status)
	if tk.Subject == "" && id != "" {
		tk.Subject = c.taskSubject(id, call)
	}
	v.Task = &tk
	t.Summary = strings.TrimSpace("#" + id + " " + tk.Subject)
	if tk.State != "" {
		t.Summary += " → " + tk.State
	}
	if id == "" {
		t.Summary = tk.Subject
	}
}

// taskShow is TaskGet, TaskOutput, TaskStop: a task and its output.
func (c *viewCtx) taskShow(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value, text, id string, v *TasksView) {
	var res struct {
		Task            taskJSON `json:"task"`
		RetrievalStatus string   `json:"retrieval_status"`
		Message         string   `json:"message"`
		TaskID          string   `json:"task_id"`
		Command         string   `json:"command"`
	}
	tk := TaskItem{ID: id}
	if structured(tur, &res) {
		if j := res.Task; j.ID != "" || j.TaskID != "" || j.Subject != "" || j.Status != "" || j.Description != "" {
			tk = j.item()
			if tk.ID == "" {
				tk.ID = id
			}
			if j.Output != "" {
				sh := c.shell(j.Output, "")
				v.Out = &sh
			}
		}
		if tk.Description == "" {
			tk.Description = res.Command
		}
		if res.RetrievalStatus != "" {
			v.Note = "retrieval: " + stateLabel(res.RetrievalStatus)
		}
		if res.Message != "" {
			v.Note = res.Message
		}
	} else if call.Result != nil && t.Status != "error" {
		t.Result = c.output(call)
	}
	if tk.Subject == "" && call.Name == "TaskGet" && id != "" {
		tk.Subject = c.taskSubject(id, call)
	}
	v.Task = &tk
	t.Summary = strings.TrimSpace(orDefault(tk.Subject, tk.Description))
	if t.Summary == "" && tk.ID != "" {
		t.Summary = "task " + tk.ID
	}
	t.Summary = firstLine(t.Summary)
}

// MessageView is a message between agents (SendMessage) or to the user
// (Brief, SendUserMessage).
type MessageView struct {
	From, To, Type, Summary string
	Body                    template.HTML
	// Status is what the tool said back ("Message sent to alice's inbox").
	Status string
}

func (c *viewCtx) messageTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "message"
	v := MessageView{To: orDefault(in.Str("to"), in.Str("recipient")), Type: in.Str("type"), Summary: in.Str("summary")}
	body := ""
	for _, k := range []string{"message", "content", "text", "body"} {
		if s := in.Str(k); s != "" {
			body = s
			break
		}
	}
	var res struct {
		Message string `json:"message"`
		Routing struct {
			Sender string `json:"sender"`
			Target string `json:"target"`
		} `json:"routing"`
	}
	ok := structured(tur, &res)
	if !ok && call.Result != nil && t.Status != "error" {
		// Some versions write the answer as JSON text only.
		ok = structured(jsontext.Value(strings.TrimSpace(call.ResultText())), &res)
	}
	if ok {
		v.From, v.Status = res.Routing.Sender, res.Message
		if v.To == "" {
			v.To = strings.TrimPrefix(res.Routing.Target, "@")
		}
	}
	if call.Name != "SendMessage" {
		v.To = orDefault(v.To, "user")
	}
	if v.Type == "message" {
		v.Type = ""
	}
	v.Type = stateLabel(v.Type)
	v.Body = c.b.MD.Markdown(body)
	if v.Status == "" && call.Result != nil && t.Status != "error" && call.Name == "SendMessage" {
		if text := strings.TrimSpace(call.ResultText()); text != "" && len(text) < 300 && jsonText(text) == nil {
			v.Status = text
		}
	}
	switch {
	case v.To != "" && v.Summary != "":
		t.Summary = "to " + v.To + ": " + v.Summary
	case v.To != "":
		t.Summary = "to " + v.To + ": " + firstLine(body)
	default:
		t.Summary = firstLine(orDefault(v.Summary, body))
	}
	if call.Name != "SendMessage" && t.Status != "error" {
		// The user sees the message itself; the tool's echo adds nothing.
		t.Result = nil
	} else if !ok && v.Status == "" && call.Result != nil && t.Status != "error" {
		t.Result = c.output(call)
	}
	t.Data = v
}

// Field is one labelled value of a FieldsView.
type Field struct {
	Label string
	Value string
	// Code marks the value as code (a schedule, an id); List lists values.
	Code bool
	List []string
}

// FieldsView is the card of a small tool (Skill, ToolSearch, Monitor,
// ScheduleWakeup, Cron*, EnterPlanMode, ListAgents, Workflow, Artifact):
// its few inputs by name, a command, a prompt in Markdown.
type FieldsView struct {
	Fields  []Field
	Command template.HTML
	Prompt  template.HTML
	// PromptLabel names the prompt ("Prompt", "Arguments", "Reason").
	PromptLabel string
	Note        string
}

func (c *viewCtx) fieldsTool(t *ToolView, call *session.ToolCall, in session.Input, tur jsontext.Value) {
	t.Kind = "fields"
	v := FieldsView{}
	add := func(label, value string, code bool) {
		if value != "" {
			v.Fields = append(v.Fields, Field{Label: label, Value: value, Code: code})
		}
	}
	prompt := func(label, text string) {
		if strings.TrimSpace(text) != "" && v.Prompt == "" {
			v.PromptLabel, v.Prompt = label, c.b.MD.Markdown(text)
		}
	}
	var res struct {
		Message string   `json:"message"`
		Matches []string `json:"matches"`
		Total   int      `json:"total_deferred_tools"`
	}
	hasRes := structured(tur, &res)
	showResult := true
	switch name := call.Name; {
	case name == "Skill":
		skill := orDefault(in.Str("skill"), in.Str("name"))
		add("Skill", skill, true)
		args := in.Str("args")
		if args == "" {
			args = in.Str("arguments")
		}
		prompt("Arguments", args)
		t.Summary = strings.TrimSpace(skill + " " + firstLine(args))
		if len(t.Summary) > 120 {
			t.Summary = firstLine(t.Summary)
		}
	case name == "EnterPlanMode":
		t.Summary = "Plan mode"
		if hasRes && res.Message != "" {
			v.Note = res.Message
			showResult = false
		} else if text := call.ResultText(); text != "" && t.Status != "error" {
			v.Note = firstLine(text)
			showResult = false
		}
	case name == "ToolSearch":
		q := in.Str("query")
		add("Query", q, true)
		matches := res.Matches
		if len(matches) == 0 && call.ResultBlock != nil {
			for _, b := range call.ResultBlock.Content.Blocks {
				if b.Type == "tool_reference" && b.ToolName != "" {
					matches = append(matches, b.ToolName)
				}
			}
		}
		if len(matches) > 0 {
			v.Fields = append(v.Fields, Field{Label: "Found", List: matches})
			showResult = false
		} else if call.Result != nil && t.Status != "error" && (hasRes || call.ResultText() == "") {
			v.Note = "No tools found"
			showResult = false
		}
		t.Summary = q
		if len(matches) > 0 {
			t.Summary += " · " + plural(len(matches), "tool")
		}
	case name == "Monitor":
		add("Description", in.Str("description"), false)
		if ms := in.Num("timeout_ms"); ms > 0 {
			add("Timeout", duration(msDuration(float64(ms))), false)
		}
		if in.Bool("persistent") {
			add("Persistent", "yes", false)
		}
		if cmd := in.Str("command"); cmd != "" {
			v.Command = c.b.MD.Highlighter().Block("bash", "", cmd)
		}
		t.Summary = orDefault(in.Str("description"), firstLine(in.Str("command")))
	case name == "ScheduleWakeup":
		delay := ""
		if n := in.Num("delaySeconds"); n > 0 {
			delay = duration(time.Duration(n) * time.Second)
		}
		add("In", delay, false)
		add("Reason", in.Str("reason"), false)
		prompt("Prompt", in.Str("prompt"))
		t.Summary = strings.TrimSpace(orDefault(in.Str("reason"), firstLine(in.Str("prompt"))))
		if delay != "" {
			t.Summary = "in " + delay + " · " + t.Summary
		}
		t.Summary = firstLine(strings.TrimSuffix(t.Summary, " · "))
	case strings.HasPrefix(name, "Cron"):
		fieldsCron(t, call, in, add, prompt)
	default: // ListAgents, Workflow, Artifact and what comes: every input
		fieldsAny(t, in, add, prompt)
	}
	if showResult && call.Result != nil && t.Status != "error" {
		t.Result = c.output(call)
	}
	t.Data = v
}

// fieldsCron shows a Cron* tool: its schedule, whether it repeats, its job
// and prompt.
func fieldsCron(t *ToolView, call *session.ToolCall, in session.Input, add func(label, value string, code bool), prompt func(label, text string)) {
	num := func(k string) string {
		if n := in.Num(k); n != 0 {
			return strconv.Itoa(n)
		}
		return in.Str(k)
	}
	sched := orDefault(in.Str("cron"), orDefault(in.Str("schedule"), in.Str("expression")))
	add("Schedule", sched, true)
	if in.Has("recurring") {
		if in.Bool("recurring") {
			add("Repeats", "yes", false)
		} else {
			add("Repeats", "once", false)
		}
	}
	add("Job", orDefault(in.Str("id"), num("job_id")), true)
	prompt("Prompt", in.Str("prompt"))
	t.Summary = strings.TrimSpace(sched + " " + firstLine(in.Str("prompt")))
	if t.Summary == "" && in.Str("id") != "" {
		t.Summary = "job " + in.Str("id")
	}
	if t.Summary == "" && call.Result != nil && t.Status != "error" {
		t.Summary = firstLine(call.ResultText())
	}
	t.Summary = firstLine(t.Summary)
}

// fieldsAny shows a tool met no other way: every input by name, its long
// text (prompt, content…) as Markdown, a summary from a name or title.
func fieldsAny(t *ToolView, in session.Input, add func(label, value string, code bool), prompt func(label, text string)) {
	for _, k := range in.Keys() {
		switch k {
		case "prompt", "content", "description", "instructions", "body", "script":
			continue
		}
		if s := in.Str(k); s != "" {
			add(k, s, false)
		} else if raw := in.Raw(k); len(raw) > 0 && len(raw) < 200 && raw[0] != '{' && raw[0] != '[' {
			add(k, string(raw), true)
		} else if len(raw) > 0 {
			add(k, string(raw), true)
		}
	}
	for _, k := range []string{"prompt", "content", "description", "instructions", "body", "script"} {
		if s := in.Str(k); s != "" {
			prompt(strings.ToUpper(k[:1])+k[1:], s)
			if t.Summary == "" {
				t.Summary = firstLine(s)
			}
		}
	}
	for _, k := range []string{"name", "title", "workflow", "id"} {
		if s := in.Str(k); s != "" {
			t.Summary = firstLine(s)
			break
		}
	}
}
