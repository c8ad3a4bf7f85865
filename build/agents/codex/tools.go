package codex

import (
	"regexp"
	"strconv"
	"strings"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json/jsontext"
)

// callKind is how a call's output is shown: as a command's, or as text.
type callKind struct {
	shell bool
	// ids are the tool_use ids the call became (an apply_patch of several
	// files is one card per file).
	ids []string
}

// call maps a function or custom tool call to the card people know.
func (c *converter) call(l *line, id, name string, args []byte, custom bool) {
	if c.calls == nil {
		c.calls = map[string]callKind{}
	}
	var in map[string]jsontext.Value
	if !custom {
		if transcript.Unmarshal(args, &in) != nil {
			in = nil
		}
	}
	str := func(k string) string {
		var s string
		_ = transcript.Unmarshal(in[k], &s)
		return s
	}
	switch {
	case name == "shell" || name == "container.exec" || name == "local_shell":
		var argv []string
		_ = transcript.Unmarshal(in["command"], &argv)
		c.shellCall(l, id, argvCommand(argv), str("workdir"))
	case name == "shell_command":
		c.shellCall(l, id, str("command"), str("workdir"))
	case name == "exec_command":
		c.shellCall(l, id, str("cmd"), str("workdir"))
	case name == "apply_patch":
		patch := string(args)
		if !custom {
			patch = str("input")
		}
		c.patchCall(l, id, patch)
	case name == "update_plan":
		c.calls[id] = callKind{ids: []string{id}}
		c.toolUse(l, id, "TodoWrite", planInput(in))
	case name == "read_file":
		c.calls[id] = callKind{ids: []string{id}}
		c.toolUse(l, id, "Read", in)
	case name == "grep_files":
		c.calls[id] = callKind{ids: []string{id}}
		c.toolUse(l, id, "Grep", map[string]string{"pattern": str("pattern"), "path": str("path"), "glob": str("include")})
	case name == "view_image":
		c.calls[id] = callKind{ids: []string{id}}
		c.toolUse(l, id, "Read", map[string]any{"file_path": str("path")})
	default:
		c.calls[id] = callKind{ids: []string{id}}
		c.toolUse(l, id, toolName(name), genericInput(args, in, custom))
	}
}

// toolName names MCP tools as Claude Code does (mcp__server__tool): Codex
// writes them server__tool.
func toolName(name string) string {
	if strings.Contains(name, "__") && !strings.HasPrefix(name, "mcp__") {
		return "mcp__" + name
	}
	return name
}

func genericInput(args []byte, in map[string]jsontext.Value, custom bool) any {
	switch {
	case custom:
		in := map[string]string{"script": string(args)}
		if cmds := scriptCommands(string(args)); cmds != "" {
			in["description"] = cmds // the card's summary
		}
		return in
	case in != nil:
		return in
	case len(args) > 0:
		return map[string]string{"arguments": string(args)}
	}
	return map[string]string{}
}

// reScriptCmd finds the commands a code-mode script (the custom exec
// tool: JavaScript calling tools.exec_command({cmd: "…"})) runs.
var reScriptCmd = regexp.MustCompile(`\bcmd\s*:\s*("(?:[^"\\\n]|\\.)*")`)

// scriptCommands are a script's commands, joined by " ; ", "" for none.
func scriptCommands(script string) string {
	var cmds []string
	for _, m := range reScriptCmd.FindAllStringSubmatch(script, 8) {
		if s, err := strconv.Unquote(m[1]); err == nil && s != "" {
			cmds = append(cmds, s)
		}
	}
	return strings.Join(cmds, " ; ")
}

func (c *converter) shellCall(l *line, id, cmd, workdir string) {
	c.calls[id] = callKind{shell: true, ids: []string{id}}
	in := map[string]any{"command": cmd}
	if workdir != "" && workdir != c.cwd {
		in["description"] = "in " + workdir
	}
	c.toolUse(l, id, "Bash", in)
}

// argvCommand shows an argv as the command line it runs: the script of
// `bash -lc SCRIPT`, else the words joined, quoted where needed.
func argvCommand(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch argv[0] {
		case "bash", "zsh", "sh", "/bin/bash", "/bin/zsh", "/bin/sh":
			return argv[2]
		}
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		if w == "" || strings.ContainsAny(w, " \t\n'\"$`\\|&;<>()*?[]#~") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}

// planInput is update_plan's plan as TodoWrite's todos.
func planInput(in map[string]jsontext.Value) map[string]any {
	var plan []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	}
	_ = transcript.Unmarshal(in["plan"], &plan)
	todos := make([]map[string]string, 0, len(plan))
	for _, s := range plan {
		todos = append(todos, map[string]string{"content": s.Step, "status": s.Status, "activeForm": s.Step})
	}
	out := map[string]any{"todos": todos}
	var expl string
	if transcript.Unmarshal(in["explanation"], &expl) == nil && expl != "" {
		out["explanation"] = expl
	}
	return out
}

// output adds a call's result, one tool_result per card the call became.
func (c *converter) output(l *line) {
	k, ok := c.calls[l.p.CallID]
	if !ok {
		k = callKind{ids: []string{l.p.CallID}}
	}
	text, exit, hasExit := outputText(l.p.Output)
	isErr := hasExit && exit != 0
	r := c.record(l, "user")
	var blocks []transcript.Block
	for _, id := range k.ids {
		blocks = append(blocks, transcript.Block{Type: "tool_result", ToolUseID: id, Content: textContent(text), IsError: isErr})
	}
	r.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: blocks}}
	if k.shell {
		res := map[string]any{"stdout": text, "stderr": "", "interrupted": false}
		if isErr {
			res["returnCodeInterpretation"] = "exit code " + strconv.Itoa(exit)
		}
		r.ToolUseResult = jsontext.Value(mustJSON(res))
	}
	c.add(r, false)
}

var (
	reExit     = regexp.MustCompile(`(?m)^(?:Exit code:|Process exited with code) (-?\d+)\s*$`)
	reOutputAt = regexp.MustCompile(`(?m)^Output:\n`)
)

// outputText reads a call's output: older rollouts hold JSON {output,
// metadata{exit_code}}, newer ones text with "Exit code: N" or "Process
// exited with code N" above "Output:"; MCP and custom tools content items.
func outputText(v jsontext.Value) (text string, exit int, hasExit bool) {
	var s string
	switch {
	case len(v) > 0 && v[0] == '"':
		_ = transcript.Unmarshal(v, &s)
	case len(v) > 0 && v[0] == '[':
		var items []item
		_ = transcript.Unmarshal(v, &items)
		var parts []string
		for _, it := range items {
			parts = append(parts, it.Text)
		}
		s = strings.Join(parts, "")
	case len(v) > 0 && v[0] == '{':
		var o struct {
			Content string `json:"content"`
		}
		if transcript.Unmarshal(v, &o) == nil && o.Content != "" {
			s = o.Content
		} else {
			s = string(v)
		}
	}
	var js struct {
		Output   *string `json:"output"`
		Metadata *struct {
			ExitCode int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && transcript.Unmarshal([]byte(s), &js) == nil && js.Output != nil {
		if js.Metadata != nil {
			return *js.Output, js.Metadata.ExitCode, true
		}
		return *js.Output, 0, false
	}
	if m := reExit.FindStringSubmatch(s); m != nil {
		exit, _ = strconv.Atoi(m[1])
		hasExit = true
		if loc := reOutputAt.FindStringIndex(s); loc != nil {
			s = s[loc[1]:]
		}
	}
	return s, exit, hasExit
}
