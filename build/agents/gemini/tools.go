package gemini

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"ccsite/build/markup"
	"ccsite/build/transcript"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// cards maps Gemini CLI's built-in tools (packages/core/src/tools) to the
// Claude Code tools whose cards show the same thing.
var cards = map[string]string{
	"run_shell_command":   "Bash",
	"write_file":          "Write",
	"replace":             "Edit",
	"read_file":           "Read",
	"grep_search":         "Grep",
	"search_file_content": "Grep", // its older name
	"glob":                "Glob",
	"list_directory":      "LS",
	"google_web_search":   "WebSearch",
	"web_fetch":           "WebFetch",
	"write_todos":         "TodoWrite",
}

// renames gives an argument the name the card reads; every other
// argument is kept as it is.
var renames = map[string]map[string]string{
	"Bash":  {"is_background": "run_in_background"},
	"Read":  {"absolute_path": "file_path"},
	"Write": {"absolute_path": "file_path"},
	"Edit":  {"absolute_path": "file_path"},
	"Grep":  {"dir_path": "path", "include": "glob"},
	"Glob":  {"dir_path": "path"},
	"LS":    {"dir_path": "path"},
}

type member struct {
	name  string
	value jsontext.Value
}

// members reads an object's members in order; nil when it is not one.
// The values are v's own bytes, not copies.
func members(v jsontext.Value) []member {
	if v.Kind() != '{' {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var out []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return out
		}
		name := tok.String() // before the next read voids tok
		start := dec.InputOffset()
		if err := dec.SkipValue(); err != nil {
			return out
		}
		val := bytes.TrimLeft(v[start:dec.InputOffset()], " \t\r\n:")
		out = append(out, member{name, val})
	}
	return out
}

func encode(ms []member) jsontext.Value {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := jsontext.AppendQuote(nil, m.name)
		b.Write(q)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func get(ms []member, name string) (jsontext.Value, bool) {
	for _, m := range ms {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

func str(ms []member, name string) string {
	v, _ := get(ms, name)
	return strOf(v)
}

func jsonOf(v any) jsontext.Value {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil
	}
	return b
}

var urlRe = regexp.MustCompile(`https?://[^\s"'<>)\]]+`)

// mapTool names a call's card and gives it the input it reads.
func mapTool(tc toolCall) (string, jsontext.Value) {
	name := cards[tc.Name]
	if name == "" {
		name = tc.Name
		// An MCP tool Gemini CLI names by its server ("server__tool",
		// mcp-tool.ts) gets Claude Code's name of one, and its card.
		if strings.Contains(name, "__") && !strings.HasPrefix(name, "mcp__") {
			name = "mcp__" + name
		}
	}
	if name == "" {
		name = "unknown"
	}
	if tc.Args.Kind() == '{' && asWritten(name, tc.Args) {
		return name, tc.Args
	}
	ms := members(tc.Args)
	if ms == nil {
		if len(tc.Args) > 0 && tc.Args.Kind() != 'n' {
			return name, encode([]member{{"args", tc.Args}})
		}
		return name, jsontext.Value("{}")
	}
	for i, m := range ms {
		if to := renames[name][m.name]; to != "" {
			if _, taken := get(ms, to); !taken {
				ms[i].name = to
			}
		}
	}
	switch name {
	case "Edit":
		var n float64
		v, _ := get(ms, "expected_replacements")
		_ = transcript.Unmarshal(v, &n)
		if all, _ := get(ms, "allow_multiple"); n > 1 || string(all) == "true" {
			ms = append(ms, member{"replace_all", jsontext.Value("true")})
		}
	case "WebFetch":
		if _, ok := get(ms, "url"); !ok {
			if u := urlRe.FindString(str(ms, "prompt")); u != "" {
				ms = append(ms, member{"url", jsonOf(u)})
			}
		}
	case "TodoWrite":
		ms = todos(ms)
	}
	return name, encode(ms)
}

// asWritten reports args the card reads as they are: no member to rename
// or to add (most calls: the bytes are not decoded again).
func asWritten(name string, args jsontext.Value) bool {
	switch name {
	case "WebFetch", "TodoWrite":
		return false
	case "Edit":
		if bytes.Contains(args, []byte(`"expected_replacements"`)) || bytes.Contains(args, []byte(`"allow_multiple"`)) {
			return false
		}
	}
	for from := range renames[name] {
		if bytes.Contains(args, []byte(`"`+from+`"`)) {
			return false
		}
	}
	return true
}

// fileArgs are the arguments of read_file, write_file and replace a
// result needs.
type fileArgs struct {
	FilePath     string  `json:"file_path"`
	AbsolutePath string  `json:"absolute_path"`
	Offset       float64 `json:"offset"`
}

func fileArgsOf(tc toolCall) fileArgs {
	var a fileArgs
	if tc.Args.Kind() == '{' {
		_ = into(tc.Args, &a)
	}
	if a.FilePath == "" {
		a.FilePath = a.AbsolutePath
	}
	return a
}

// todos renames write_todos' description to the checklist's content.
func todos(ms []member) []member {
	v, _ := get(ms, "todos")
	var list []map[string]jsontext.Value
	if transcript.Unmarshal(v, &list) != nil {
		return ms
	}
	type todo struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm,omitzero"`
	}
	var out []todo
	for _, t := range list {
		var td todo
		_ = transcript.Unmarshal(t["description"], &td.Content)
		_ = transcript.Unmarshal(t["status"], &td.Status)
		out = append(out, td)
	}
	for i := range ms {
		if ms[i].name == "todos" {
			ms[i].value = jsonOf(out)
		}
	}
	return ms
}

// resultBlocks is a call's result as tool_result content: the output (or
// error) of each functionResponse, text and images; what the display
// showed when the result holds nothing. isErr for a failed or cancelled
// call.
func resultBlocks(tc toolCall) (blocks []transcript.Block, isErr bool) {
	isErr = tc.Status == "error" || tc.Status == "cancelled"
	for _, raw := range parts(tc.Result) {
		var p part
		if raw.Kind() == '{' && into(raw, &p) && (p.FunctionResponse.Name != "" || len(p.FunctionResponse.Response) > 0) {
			text, failed := responseText(p.FunctionResponse.Response)
			isErr = isErr || failed
			if text != "" {
				blocks = append(blocks, transcript.Block{Type: "text", Text: text})
			}
			continue
		}
		blocks = append(blocks, partBlocks(raw)...)
	}
	if len(blocks) == 0 {
		text := strOf(tc.ResultDisplay)
		if text == "" && tc.Status == "cancelled" {
			text = "Cancelled"
		}
		if text != "" {
			blocks = append(blocks, transcript.Block{Type: "text", Text: text})
		}
	}
	return blocks, isErr
}

// responseText reads a functionResponse's response: {output} or
// {error}, else its JSON.
func responseText(v jsontext.Value) (string, bool) {
	var r struct {
		Output jsontext.Value `json:"output"`
		Error  jsontext.Value `json:"error"`
	}
	if v.Kind() == '{' && into(v, &r) {
		switch {
		case r.Error.Kind() == '"':
			return strOf(r.Error), true
		case r.Output.Kind() == '"':
			return strOf(r.Output), false
		}
	}
	if len(v) == 0 || v.Kind() == 'n' {
		return "", false
	}
	if v.Kind() == '"' {
		return strOf(v), false
	}
	return string(v), false
}

func blocksText(blocks []transcript.Block) string {
	var b strings.Builder
	for _, blk := range blocks {
		if blk.Type == "text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}

// fileDiff is ToolResultDisplay's FileDiff (tools.ts).
type fileDiff struct {
	FileDiff        jsontext.Value `json:"fileDiff"`
	FileName        string         `json:"fileName"`
	FilePath        string         `json:"filePath"`
	OriginalContent jsontext.Value `json:"originalContent"` // null for a new file
	NewContent      string         `json:"newContent"`
	IsNewFile       bool           `json:"isNewFile"`
}

// toolUseResult is the structured result the call's card reads, as
// Claude Code writes it in the record's toolUseResult; nil when the card
// needs none.
func toolUseResult(tc toolCall, content []transcript.Block) jsontext.Value {
	text := blocksText(content)
	switch cards[tc.Name] {
	case "Bash":
		return jsonOf(shellResult(text, tc.Status == "cancelled"))
	case "Write", "Edit":
		return fileResult(tc)
	case "Read":
		return readResult(tc, text, content)
	case "Grep":
		if tc.Status == "success" && text != "" {
			return jsonOf(map[string]any{"mode": "content", "content": text, "numLines": strings.Count(strings.TrimRight(text, "\n"), "\n") + 1})
		}
	}
	return nil
}

// shellLabels are the sections of run_shell_command's output
// (shell.ts): "Output: …\nError: …\nExit Code: 1\nProcess Group PGID: …".
var shellLabels = []string{"Command", "Directory", "Output", "Error", "Exit Code", "Signal", "Background PIDs", "Process Group PGID"}

// shellLabel is the label a line of the output starts, "" for none.
func shellLabel(line string) (label, rest string) {
	for _, l := range shellLabels {
		if r, ok := strings.CutPrefix(line, l+":"); ok {
			return l, strings.TrimPrefix(r, " ")
		}
	}
	return "", line
}

type shell struct {
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	Interrupted bool   `json:"interrupted"`
	ReturnCode  string `json:"returnCodeInterpretation,omitzero"`
}

// shellResult splits the output into the terminal's stdout, stderr and
// exit note. Output that has no sections is all stdout.
func shellResult(text string, cancelled bool) shell {
	res := shell{Interrupted: cancelled}
	if !strings.HasPrefix(text, "Output:") && !strings.Contains(text, "\nOutput:") {
		res.Stdout = text
		return res
	}
	sections := map[string]*strings.Builder{}
	var cur *strings.Builder
	for line := range strings.Lines(text) {
		if label, rest := shellLabel(line); label != "" {
			cur = &strings.Builder{}
			sections[label] = cur
			line = rest
		}
		if cur != nil {
			cur.WriteString(line)
		}
	}
	get := func(l string) string {
		if b := sections[l]; b != nil {
			return strings.TrimSuffix(b.String(), "\n")
		}
		return ""
	}
	if v := get("Output"); v != "(empty)" {
		res.Stdout = v
	}
	if v := get("Error"); v != "(none)" {
		res.Stderr = v
	}
	if n, err := strconv.Atoi(strings.TrimSpace(get("Exit Code"))); err == nil && n != 0 {
		res.ReturnCode = "Exit code " + strconv.Itoa(n)
	}
	if v := strings.TrimSpace(get("Signal")); v != "" && v != "(none)" {
		res.ReturnCode = strings.TrimSpace(res.ReturnCode + " Signal " + v)
	}
	return res
}

// fileResult gives Write and Edit cards the file before and the patch
// Gemini CLI showed (resultDisplay.fileDiff), so the diff renders.
func fileResult(tc toolCall) jsontext.Value {
	var d fileDiff
	if tc.ResultDisplay.Kind() != '{' || !into(tc.ResultDisplay, &d) || d.FileDiff.Kind() != '"' {
		return nil
	}
	orig := strOf(d.OriginalContent)
	hunks := parseHunks(strOf(d.FileDiff))
	if hunks == nil && (orig != "" || d.NewContent != "") {
		hunks = markup.DiffStrings(orig, d.NewContent, 1)
	}
	if d.FilePath == "" {
		d.FilePath = fileArgsOf(tc).FilePath
	}
	typ := "update"
	if d.IsNewFile || d.OriginalContent.Kind() != '"' || (orig == "" && d.NewContent != "") {
		typ = "create"
	}
	res := struct {
		Type            string        `json:"type"`
		FilePath        string        `json:"filePath"`
		Content         string        `json:"content,omitzero"`
		OriginalFile    string        `json:"originalFile,omitzero"`
		StructuredPatch []markup.Hunk `json:"structuredPatch"`
	}{typ, d.FilePath, "", "", hunks}
	if len(hunks) == 0 {
		// The cards make the diff from the whole files.
		res.Content, res.OriginalFile = d.NewContent, orig
	}
	return jsonOf(res)
}

var hunkHead = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// hunkHeadOf matches a hunk's head ("@@ -3,3 +3,4 @@"), nil on any other
// line (most: not given to the regexp).
func hunkHeadOf(line string) []string {
	if !strings.HasPrefix(line, "@@") {
		return nil
	}
	return hunkHead.FindStringSubmatch(line)
}

// parseHunks reads the hunks of a unified diff (the headers before the
// first "@@" are skipped; "\ No newline" lines left out).
func parseHunks(diff string) []markup.Hunk {
	var hunks []markup.Hunk
	var cur *markup.Hunk
	atoi := func(s string, def int) int {
		if s == "" {
			return def
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	for line := range strings.Lines(diff) {
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if m := hunkHeadOf(line); m != nil {
			hunks = append(hunks, markup.Hunk{OldStart: atoi(m[1], 1), OldLines: atoi(m[2], 1), NewStart: atoi(m[3], 1), NewLines: atoi(m[4], 1)})
			cur = &hunks[len(hunks)-1]
			continue
		}
		if cur == nil || line == "" || strings.HasPrefix(line, `\`) {
			continue
		}
		switch line[0] {
		case ' ', '+', '-':
			cur.Lines = append(cur.Lines, line)
		}
	}
	return hunks
}

// truncRead is read_file's note on a file shown in part.
var truncRead = regexp.MustCompile(`Showing lines (\d+)-(\d+) of (\d+) total lines`)

// readResult gives the Read card the file's text (or image) with its
// first line number.
func readResult(tc toolCall, text string, content []transcript.Block) jsontext.Value {
	if tc.Status != "success" {
		return nil
	}
	type file struct {
		FilePath   string `json:"filePath"`
		Content    string `json:"content,omitzero"`
		Base64     string `json:"base64,omitzero"`
		Type       string `json:"type,omitzero"`
		NumLines   int    `json:"numLines,omitzero"`
		StartLine  int    `json:"startLine,omitzero"`
		TotalLines int    `json:"totalLines,omitzero"`
	}
	args := fileArgsOf(tc)
	f := file{FilePath: args.FilePath}
	for _, b := range content {
		if b.Type == "image" && b.Source != nil {
			f.Base64, f.Type = b.Source.Data, b.Source.MediaType
			return jsonOf(struct {
				Type string `json:"type"`
				File file   `json:"file"`
			}{"image", f})
		}
	}
	if text == "" {
		return nil
	}
	f.StartLine = 1
	if args.Offset > 0 {
		f.StartLine = int(args.Offset) + 1 // read_file's offset is 0-based
	}
	if m := truncRead.FindStringSubmatch(text); m != nil {
		if _, body, ok := strings.Cut(text, "--- FILE CONTENT (truncated) ---\n"); ok {
			text = body
			f.StartLine, _ = strconv.Atoi(m[1])
			f.TotalLines, _ = strconv.Atoi(m[3])
		}
	}
	f.Content = text
	f.NumLines = strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	return jsonOf(struct {
		Type string `json:"type"`
		File file   `json:"file"`
	}{"text", f})
}
