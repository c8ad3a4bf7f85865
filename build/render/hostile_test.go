package render_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/render"
	"ccsite/build/session"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The hostile tests write a transcript whose every field a page shows holds
// markup meant to run (script tags, event handlers, javascript: and data:
// links, terminal escapes that make links and images, SVG and HTML
// "images"), render whole pages, parse them as a browser would, and check
// that nothing of it became markup and that the text is still there to read.

// xss is the payload placed at loc: it must show as this exact text.
func xss(loc string) string {
	return fmt.Sprintf(`<script>alert(%[1]s)</script> <img src=x onerror=alert(%[1]s)> </details> "><svg onload=alert(%[1]s)>`, loc)
}

// mdLinks are Markdown constructs that would make a dangerous link.
const mdLinks = "[js](javascript:alert(1)) [JS](JAVASCRIPT:alert(1)) [sp]( javascript:alert(1)) " +
	"[ent](&#106;avascript:alert(1)) [tab](java&#x09;script:alert(1)) [vb](vbscript:msgbox(1)) " +
	"[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+) " +
	`<a href="javascript:alert(1)">raw</a> <javascript:alert(1)> ![img](javascript:alert(1)) ![track](https://evil.example/t.png) ` +
	`[t](https://ok.example "a\" onmouseover=alert(1) x=\"") [ref][r]` + "\n\n[r]: javascript:alert(1)\n"

// termPayload is terminal output with an OSC 8 hyperlink to javascript:,
// buildkite's link and image escapes, an iTerm inline image (an SVG) and
// 24-bit colour.
const termPayload = "\x1b]8;;javascript:alert(1)\x1b\\osc8 link\x1b]8;;\x1b\\ " +
	"\x1b]1339;url=javascript:alert(1);content=bk link\x07 " +
	"\x1b]1338;url=javascript:alert(1);alt=bk image\x07 " +
	"\x1b]1337;File=name=eC5zdmc=;inline=1:PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\x07 " +
	"\x1b[38;2;255;0;0mred\x1b[0m\n"

const (
	svgB64  = "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0iYWxlcnQoMSkiLz4="
	htmlB64 = "PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="
	pngB64  = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

// badImages are image blocks no page may show as an image.
func badImages() []any {
	img := func(media, data string) map[string]any {
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": media, "data": data}}
	}
	return []any{
		img("image/svg+xml", svgB64),
		img("text/html", htmlB64),
		img("image/png", `"><script>alert(1)</script>`),
		img("image/png;x=\"><script>alert(1)</script>", pngB64),
		map[string]any{"type": "image", "source": map[string]any{"type": "url", "url": "javascript:alert(1)"}},
	}
}

// writer writes a transcript: records chained by parentUuid, a second apart.
type writer struct {
	buf  bytes.Buffer
	n    int
	last string
	t    time.Time
	sid  string
}

func newWriter(sid string) *writer {
	return &writer{sid: sid, t: time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)}
}

// add writes r with the envelope filled in; it returns r's uuid.
func (w *writer) add(r map[string]any) string {
	w.n++
	w.t = w.t.Add(time.Second)
	env := map[string]any{"isSidechain": false, "userType": "external", "cwd": "/home/dev/" + xss("cwd"),
		"sessionId": w.sid, "version": "2.1.29", "gitBranch": xss("branch"), "timestamp": w.t.Format(time.RFC3339Nano)}
	if _, ok := r["uuid"]; !ok {
		env["uuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", w.n)
	}
	if _, ok := r["parentUuid"]; !ok && w.last != "" {
		env["parentUuid"] = w.last
	}
	for k, v := range r {
		env[k] = v
	}
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false) // as Claude Code writes: < and > as they are
	if err := enc.Encode(env); err != nil {
		panic(err)
	}
	if u, _ := env["uuid"].(string); u != "" && env["type"] != "custom-title" {
		w.last = u
	}
	u, _ := env["uuid"].(string)
	return u
}

func (w *writer) user(content any, extra ...any) string {
	r := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}}
	for i := 0; i+1 < len(extra); i += 2 {
		r[extra[i].(string)] = extra[i+1]
	}
	return w.add(r)
}

func (w *writer) assistant(model string, blocks ...any) {
	w.n++
	id := fmt.Sprintf("msg_01hostile%04d", w.n)
	for _, b := range blocks {
		w.add(map[string]any{"type": "assistant", "requestId": "req_" + id,
			"message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
				"content": []any{b}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	}
}

func (w *writer) call(id, name string, input any) {
	w.assistant("claude-sonnet-4-5-20250929", map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
}

func (w *writer) result(id string, content, tur any, isError bool) {
	r := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}}}}
	if tur != nil {
		r["toolUseResult"] = tur
	}
	w.add(r)
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// hostileTranscript writes the session file and its sub-agent into dir and
// returns the session's path and the places whose payload must show as
// text.
func hostileTranscript(t *testing.T, dir string) (path string, visible []string) {
	t.Helper()
	see := func(loc string) string { visible = append(visible, loc); return xss(loc) }
	const sid = "7d0c2a1e-5b4f-4c3d-9e8f-0a1b2c3d4e5f"
	w := newWriter(sid)
	w.add(map[string]any{"type": "custom-title", "customTitle": see("title"), "sessionId": sid})
	w.user(see("prompt") + "\n\n" + mdLinks + "\n\n```js\nalert(1) // " + see("fence") + "\n")
	w.assistant("claude-sonnet-4-5-20250929",
		map[string]any{"type": "thinking", "thinking": see("thinking") + "\n" + mdLinks, "signature": "x"},
		text(see("answer")+"\n\n"+mdLinks+"\n\n```html\n"+see("answer_fence")+"\n"),
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/svg+xml", "data": svgB64}},
		map[string]any{"type": "mystery_block", "payload": see("mystery_block")},
	)
	// Model names come from the transcript too.
	w.assistant(xss("model"), text("A reply from an odd model."))

	w.call("toolu_bash", "Bash", map[string]any{"command": "echo '" + see("bash_command") + "'", "description": see("bash_description")})
	w.result("toolu_bash", "ok", map[string]any{"stdout": see("bash_stdout") + "\n" + termPayload, "stderr": see("bash_stderr") + "\n" + termPayload, "interrupted": false}, false)
	w.call("toolu_bash_err", "Bash", map[string]any{"command": "false"})
	w.result("toolu_bash_err", "Exit code 1\n"+see("bash_error")+"\n"+termPayload, "Error: Exit code 1", true)

	readPath := "/tmp/" + see("read_path") + ".ts"
	w.call("toolu_read", "Read", map[string]any{"file_path": readPath, "offset": 7})
	w.result("toolu_read", "x", map[string]any{"type": "text", "file": map[string]any{"filePath": readPath,
		"content": "const a = 1; // " + see("read_content") + "\n", "numLines": 1, "startLine": 7, "totalLines": 9}}, false)
	w.call("toolu_read_svg", "Read", map[string]any{"file_path": "/tmp/logo.svg"})
	w.result("toolu_read_svg", badImages()[:1], map[string]any{"type": "image", "file": map[string]any{"base64": svgB64, "type": "image/svg+xml"}}, false)
	w.call("toolu_read_legacy", "Read", map[string]any{"file_path": "/tmp/legacy.txt"})
	w.result("toolu_read_legacy", "     1→"+see("read_legacy"), nil, false)

	w.call("toolu_write", "Write", map[string]any{"file_path": "/tmp/" + see("write_path") + ".html", "content": see("write_content") + "\n"})
	w.result("toolu_write", "File created", map[string]any{"type": "create"}, false)
	w.call("toolu_edit", "Edit", map[string]any{"file_path": "/tmp/edit.go", "old_string": "a := 1 // " + see("edit_old"), "new_string": "b := 22222 + 3 // " + see("edit_new")})
	w.result("toolu_edit", "ok", map[string]any{"filePath": "/tmp/edit.go", "originalFile": "package x\n"}, false)
	w.call("toolu_patch", "Edit", map[string]any{"file_path": "/tmp/patch.go", "old_string": "x", "new_string": "y"})
	w.result("toolu_patch", "ok", map[string]any{"structuredPatch": []any{map[string]any{"oldStart": 3, "oldLines": 1, "newStart": 3, "newLines": 1,
		"lines": []any{"-" + see("patch_old"), "+" + see("patch_new"), `\ No newline at end of file ` + see("patch_meta")}}}}, false)

	w.call("toolu_grep", "Grep", map[string]any{"pattern": see("grep_pattern"), "path": see("grep_path"), "glob": see("grep_glob")})
	w.result("toolu_grep", "x", map[string]any{"mode": "content", "content": see("grep_content") + "\n" + termPayload, "numLines": 2}, false)
	w.call("toolu_glob", "Glob", map[string]any{"pattern": "**/*"})
	w.result("toolu_glob", "x", map[string]any{"filenames": []any{see("glob_file")}, "numFiles": 1}, false)
	w.call("toolu_todo", "TodoWrite", map[string]any{"todos": []any{map[string]any{"content": see("todo"), "status": see("todo_status"), "activeForm": "x"}}})
	w.result("toolu_todo", "ok", nil, false)
	w.call("toolu_task", "Task", map[string]any{"description": see("task_description"), "prompt": see("task_prompt") + "\n" + mdLinks, "subagent_type": see("task_type")})
	w.result("toolu_task", []any{text(xss("task_result"))}, map[string]any{"status": see("task_status"), "agentId": "evil1",
		"content": []any{text(see("task_result_tur") + "\n" + mdLinks)}, "totalDurationMs": 1000, "totalTokens": 10, "totalToolUseCount": 1}, false)
	w.call("toolu_fetch", "WebFetch", map[string]any{"url": "javascript:alert(1)", "prompt": "x"})
	w.result("toolu_fetch", "x", map[string]any{"code": 200, "codeText": see("fetch_code"), "result": see("fetch_result") + "\n" + mdLinks, "url": "javascript:alert(1)"}, false)
	w.call("toolu_fetch_data", "WebFetch", map[string]any{"url": " data:text/html;base64," + htmlB64})
	w.result("toolu_fetch_data", "x", nil, false)
	w.call("toolu_search", "WebSearch", map[string]any{"query": see("search_query")})
	w.result("toolu_search", "x", map[string]any{"query": "q", "results": []any{
		map[string]any{"tool_use_id": "srvtoolu_1", "content": []any{
			map[string]any{"title": xss("search_title"), "url": "javascript:alert(1)"},
			map[string]any{"title": "data", "url": "data:text/html;base64," + htmlB64},
			map[string]any{"title": "spaced", "url": "  JaVaScRiPt:alert(1)"}}},
		see("search_summary") + "\n" + mdLinks}}, false)
	w.call("toolu_plan", "ExitPlanMode", map[string]any{"plan": see("plan") + "\n" + mdLinks + "\n```\nunclosed"})
	w.result("toolu_plan", see("plan_rejected"), "Error: rejected", true)
	w.call("toolu_nb", "NotebookEdit", map[string]any{"notebook_path": "/tmp/" + see("nb_path") + ".ipynb", "cell_id": see("nb_cell"),
		"cell_type": "markdown", "edit_mode": see("nb_mode"), "new_source": see("nb_source")})
	w.result("toolu_nb", "ok", nil, false)
	q := see("ask_question")
	w.call("toolu_ask", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": q, "header": see("ask_header"),
		"options": []any{map[string]any{"label": see("ask_label"), "description": see("ask_option")}}}}})
	w.result("toolu_ask", "x", map[string]any{"answers": map[string]any{q: see("ask_answer")}}, false)
	w.call("toolu_mcp", "mcp__"+see("mcp_server")+"__"+see("mcp_tool"), map[string]any{"q": see("mcp_input")})
	w.result("toolu_mcp", append([]any{text(see("mcp_result") + "\n" + termPayload)}, badImages()...), nil, false)
	w.call("toolu_unknown", see("tool_name"), map[string]any{"description": xss("tool_summary"), "x": see("tool_input")})
	w.result("toolu_unknown", []any{text(see("tool_output"))}, nil, false)
	w.call(`"><img src=x onerror=alert(1)>`, "Bash", map[string]any{"command": "true"})
	w.result(`"><img src=x onerror=alert(1)>`, "ok", nil, false)
	w.result("toolu_"+`"><script>alert(1)</script>`, see("orphan_result"), nil, false)
	w.call("toolu_pending", "Bash", map[string]any{"command": see("pending_command")})

	w.user(see("queued_prompt_before"))
	w.add(map[string]any{"type": "system", "subtype": "api_error", "level": "error", "retryAttempt": 1, "maxRetries": 3, "retryInMs": 10,
		"error": map[string]any{"status": 500, "error": map[string]any{"type": see("api_type"), "message": see("api_message")}}})
	w.add(map[string]any{"type": "system", "subtype": "local_command", "content": "<command-name>/x</command-name><command-args>" + xss("local_command") + "</command-args>\n" + termPayload})
	w.add(map[string]any{"type": "system", "content": see("system_legacy") + " " + termPayload, "level": "warning"})
	w.add(map[string]any{"type": "system", "content": "short " + see("system_short"), "level": "info"})
	w.add(map[string]any{"type": "system", "subtype": "stop_hook_summary", "hookCount": 1, "hookErrors": []any{xss("hook_error")}, "preventedContinuation": true})
	w.add(map[string]any{"type": "system", "subtype": see("system_subtype"), "content": "x"})
	w.add(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_success", "hookName": see("hook_name"), "content": see("hook_content") + "\n" + termPayload}})
	w.add(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "queued_command", "prompt": see("queued_prompt") + "\n" + mdLinks}})
	w.add(map[string]any{"type": "attachment", "attachment": map[string]any{"type": see("attachment_type")}})
	w.add(map[string]any{"type": "progress", "data": map[string]any{"type": "hook_progress", "hookName": see("progress")}, "toolUseID": "nothing"})
	w.add(map[string]any{"type": see("record_type"), "payload": see("record_payload")})
	w.add(map[string]any{"type": "pr-link", "prNumber": 7, "prUrl": "javascript:alert(1)", "prRepository": see("pr_repo")})
	w.add(map[string]any{"type": "system", "subtype": "compact_boundary", "parentUuid": nil, "logicalParentUuid": w.last,
		"compactMetadata": map[string]any{"trigger": see("compact_trigger"), "preTokens": 1}})
	w.user(see("compact_summary")+"\n"+mdLinks, "isCompactSummary", true)
	w.user([]any{text(see("meta") + "\n" + mdLinks)}, "isMeta", true)
	w.user("<command-name>/" + see("command_name") + "</command-name><command-args>" + see("command_args") + "</command-args>")
	w.user("<local-command-stdout>" + see("local_stdout") + "\n" + termPayload + "</local-command-stdout><local-command-stderr>" + see("local_stderr") + "</local-command-stderr>")
	w.user("<bash-input>" + see("bash_input") + "</bash-input>")
	w.user("<bash-stdout>" + see("bash_mode_out") + "\n" + termPayload + "</bash-stdout><bash-stderr>" + see("bash_mode_err") + "</bash-stderr>")
	w.user("<task-notification><summary>" + see("task_note") + "</summary>\n" + mdLinks + "</task-notification>")
	w.user(`<teammate-message teammate_id="x</details><script>alert(1)</script>">` + see("teammate") + `</teammate-message>`)
	w.user("<user-memory-input>" + see("memory") + "</user-memory-input>")
	w.user(append([]any{
		text("<ide_opened_file>" + see("ide") + "</ide_opened_file>"),
		text("<ide_selection>" + see("ide_selection") + "</ide_selection>"),
		text(see("prompt_with_images") + "\n<system-reminder>" + see("reminder") + "\n" + mdLinks + "</system-reminder>"),
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": pngB64}},
	}, badImages()...))
	w.user("[Request interrupted by user] " + see("interruption"))
	w.user("Ask the sub-agent")
	w.assistant("<synthetic>", text(see("synthetic")))
	w.add(map[string]any{"type": "assistant", "isApiErrorMessage": true, "message": map[string]any{"id": "e1", "role": "assistant",
		"model": "<synthetic>", "content": []any{text(see("api_error_message"))}}})
	// A damaged line: its problem is listed with an excerpt.
	w.buf.WriteString(`{"type":"user","message":{"content":"` + xss("damaged") + "\n")
	// A branch: the first answer forks.
	w.add(map[string]any{"type": "user", "parentUuid": "00000000-0000-4000-8000-000000000002", "message": map[string]any{"role": "user", "content": see("branch_prompt")}})
	w.assistant("claude-sonnet-4-5-20250929", text(see("branch_answer")))

	path = filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(path, w.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The sub-agent the Task call ran, with a hostile meta file.
	a := newWriter(sid)
	a.user(see("agent_prompt"), "isSidechain", true, "agentId", "evil1")
	a.assistant("claude-sonnet-4-5-20250929", text(see("agent_answer")))
	sub := filepath.Join(dir, sid, "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]string{"agentType": xss("agent_type"), "description": xss("agent_description")})
	if err := os.WriteFile(filepath.Join(sub, "agent-evil1.jsonl"), a.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "agent-evil1.meta.json"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, visible
}

// hostilePages renders the session page and its sub-agent's page.
func hostilePages(t *testing.T, b *render.Builder) (s *session.Session, pages map[string]string, visible []string) {
	t.Helper()
	path, visible := hostileTranscript(t, t.TempDir())
	s = loadSession(t, path)
	project := xss("project")
	pages = map[string]string{}
	page := sessionPage(s)
	body := b.Session(s, project, render.Links{Page: page, Project: link.Project(testProject),
		Agent: func(a *session.Session) string { return agentPage(s, a) },
		Prev:  &render.Nav{Title: xss("prev"), URL: "javascript:alert(1)"}})
	pages[page] = renderPage(t, &render.Page{Path: page, Title: s.Title, Kind: "session",
		Crumbs: []render.Crumb{{Label: project, URL: "javascript:alert(1)"}, {Label: s.Title}}, Body: body})
	if len(s.Agents) != 1 {
		t.Fatalf("%d sub-agents attached, want 1", len(s.Agents))
	}
	a := s.Agents[0]
	ap := agentPage(s, a)
	ab := b.Session(a, project, render.Links{Page: ap, Project: link.Project(testProject),
		Agent: func(*session.Session) string { return "" }, Parent: page, ParentTitle: s.Title})
	pages[ap] = renderPage(t, &render.Page{Path: ap, Title: a.Title, Kind: "agent", Body: ab})
	return s, pages, visible
}

func TestHostileSession(t *testing.T) {
	t.Parallel()
	s, pages, visible := hostilePages(t, sharedBuilder)
	main := pages[sessionPage(s)]
	if os.Getenv("CCSITE_DUMP") != "" {
		_ = os.WriteFile(filepath.Join(os.Getenv("CCSITE_DUMP"), "hostile.html"), []byte(main), 0o644)
	}
	for p, page := range pages {
		t.Run(p, func(t *testing.T) {
			checkSafe(t, page, func(src string) bool { return reDataImage.MatchString(src) })
		})
	}
	t.Run("visible", func(t *testing.T) {
		doc := parseHTML(t, main)
		text := textOf(doc)
		for _, loc := range visible {
			if strings.HasPrefix(loc, "agent_") {
				continue
			}
			// Raw JSON (tool inputs, unknown records) shows the quote
			// escaped, as the transcript has it.
			if !strings.Contains(text, xss(loc)) && !strings.Contains(text, strings.ReplaceAll(xss(loc), `"`, `\"`)) {
				t.Errorf("%s: the payload is not shown as text: want %q in the page's text", loc, xss(loc))
			}
		}
		agent := textOf(parseHTML(t, pages[agentPage(s, s.Agents[0])]))
		for _, loc := range []string{"agent_prompt", "agent_answer"} {
			if !strings.Contains(agent, xss(loc)) {
				t.Errorf("%s: not shown as text on the agent page", loc)
			}
		}
		for _, loc := range []string{"agent_type", "project", "prev"} {
			if !strings.Contains(text, xss(loc)) {
				t.Errorf("%s: not shown as text on the session page", loc)
			}
		}
	})
	t.Run("images", func(t *testing.T) {
		// Only the one real PNG is shown; the SVG, HTML and broken
		// "images" are not.
		imgs := find(parseHTML(t, main), func(n *html.Node) bool { return n.DataAtom == atom.Img })
		if len(imgs) != 1 {
			t.Errorf("%d images on the page, want 1 (the pasted PNG)", len(imgs))
		}
	})
	t.Run("markdown-links", func(t *testing.T) {
		// The links of mdLinks keep their text; only the https one links.
		doc := parseHTML(t, main)
		for _, a := range find(doc, func(n *html.Node) bool { return n.DataAtom == atom.A }) {
			href, ok := attr(a, "href")
			if !ok {
				continue
			}
			switch textOf(a) {
			case "js", "JS", "sp", "ent", "tab", "vb", "data", "svg", "ref", "javascript:alert(1)":
				t.Errorf("dangerous Markdown link %q kept href %q", textOf(a), href)
			}
		}
	})
}

// TestHostileMedia renders the hostile session with images written as
// site files: an image is then a relative link to a raster file the sink
// was given, never anything else.
func TestHostileMedia(t *testing.T) {
	written := map[string]bool{}
	b := &render.Builder{MD: markup.New(markup.NewHighlighter()), Media: func(ext string, data []byte) string {
		p := fmt.Sprintf("media/%d.%s", len(written), ext)
		written[p] = true
		return p
	}}
	t.Parallel()
	s, pages, _ := hostilePages(t, b)
	page := sessionPage(s)
	checkSafe(t, pages[page], func(src string) bool {
		return strings.HasSuffix(src, ".png") && written[strings.TrimPrefix(src, link.Root(page))]
	})
	if len(written) == 0 {
		t.Error("the pasted PNG was not written as a media file")
	}
	for p := range written {
		if !strings.HasSuffix(p, ".png") {
			t.Errorf("media file %s written for an image that is not a raster image", p)
		}
	}
}

var (
	reDataImage = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$`)
	// Browsers drop ASCII tab and newline anywhere in a URL and control
	// characters and spaces around it.
	reURLJunk = regexp.MustCompile(`[\x00-\x20]`)
)

// urlAttrs are the attributes a browser loads or follows.
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "poster": true,
	"background": true, "cite": true, "data": true, "srcset": true, "xlink:href": true, "ping": true, "manifest": true}

// checkSafe fails t on every problem unsafe finds in page.
func checkSafe(t *testing.T, page string, okImage func(src string) bool) {
	t.Helper()
	probs, err := unsafe(page, okImage)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
}

// unsafe parses a whole page and reports anything that would run or load:
// scripts but the site's own, event handlers, javascript:/vbscript:/data:
// URLs, images okImage rejects, embedded documents; and duplicate ids.
func unsafe(page string, okImage func(src string) bool) (probs []string, err error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return nil, err
	}
	errorf := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	ids := map[string]int{}
	walk(doc, func(n *html.Node) {
		switch n.DataAtom {
		case atom.Script:
			src, _ := attr(n, "src")
			body := ""
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				body += c.Data
			}
			if !strings.HasSuffix(src, "assets/app.js") || strings.TrimSpace(body) != "" {
				errorf("foreign <script src=%q>%s</script>", src, body)
			}
		case atom.Form:
			// The header's search box is the one form: a GET to the
			// site's search page.
			cls, _ := attr(n, "class")
			action, _ := attr(n, "action")
			method, _ := attr(n, "method")
			if cls != "site-search" || !strings.HasSuffix(action, "search.html") || method != "" ||
				strings.Contains(action, ":") {
				errorf("forbidden <%s> element: %s", n.Data, render1(n))
			}
		case atom.Svg:
			// The header's charts (markup/chart.go) are the one SVG:
			// shapes and text with titles, nothing that loads or runs.
			if !chartSVG(n) {
				errorf("forbidden <%s> element: %s", n.Data, render1(n))
			}
		case atom.Iframe, atom.Object, atom.Embed, atom.Math, atom.Base, atom.Frame,
			atom.Frameset, atom.Style, atom.Applet, atom.Template:
			errorf("forbidden <%s> element: %s", n.Data, render1(n))
		case atom.Meta:
			if v, ok := attr(n, "http-equiv"); ok {
				errorf("<meta http-equiv=%q>", v)
			}
		case atom.Link:
			// The stylesheet, and an empty icon that spares a request.
			rel, _ := attr(n, "rel")
			href, _ := attr(n, "href")
			if rel != "stylesheet" && !(rel == "icon" && href == "data:,") {
				errorf("<link rel=%q href=%q>", rel, href)
			}
			if rel == "icon" {
				return
			}
		case atom.Img:
			src, _ := attr(n, "src")
			if !okImage(src) {
				errorf("<img> with a source that is not a raster image: %.120q", src)
			}
		}
		if n.Namespace != "" && !(n.Namespace == "svg" && chartPart[n.Data] && inChart(n)) {
			errorf("foreign-content element <%s:%s>", n.Namespace, n.Data)
		}
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			if a.Namespace != "" {
				key = a.Namespace + ":" + key
			}
			if strings.HasPrefix(key, "on") {
				errorf("event handler %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
			if key == "id" {
				ids[a.Val]++
			}
			if key == "srcdoc" {
				errorf("srcdoc on <%s>", n.Data)
			}
			if key == "style" {
				l := strings.ToLower(a.Val)
				for _, bad := range []string{"url(", "expression", "javascript", "@import", `\`} {
					if strings.Contains(l, bad) {
						errorf("style %q on <%s>", a.Val, n.Data)
					}
				}
			}
			if urlAttrs[key] {
				u := strings.ToLower(reURLJunk.ReplaceAllString(a.Val, ""))
				for _, bad := range []string{"javascript:", "vbscript:", "livescript:"} {
					if strings.HasPrefix(u, bad) {
						errorf("%s=%q on <%s>", a.Key, a.Val, n.Data)
					}
				}
				if strings.HasPrefix(u, "data:") && !(n.DataAtom == atom.Img && key == "src" && reDataImage.MatchString(a.Val)) {
					errorf("data: URL in %s on <%s>: %.80q", a.Key, n.Data, a.Val)
				}
			}
		}
	})
	for id, n := range ids {
		if n > 1 {
			errorf("id %q used %d times", id, n)
		}
	}
	sort.Strings(probs)
	return probs, nil
}

func render1(n *html.Node) string {
	var b bytes.Buffer
	_ = html.Render(&b, n)
	if b.Len() > 200 {
		return b.String()[:200] + "…"
	}
	return b.String()
}

// TestHostileLists renders the index and a project page with hostile
// project, session and path names.
func TestHostileLists(t *testing.T) {
	t.Parallel()
	idx := renderPage(t, &render.Page{Path: link.Index(), Title: xss("index_title"), Kind: "index", Body: &render.HomeView{
		IndexView: &render.IndexView{
			Projects: []render.ProjectRow{{Name: xss("project_name"), Path: xss("project_path"), URL: "javascript:alert(1)", Sessions: 1}},
			Sessions: 1},
		Recent: []render.RecentRow{{Title: xss("recent_title"), URL: "javascript:alert(1)", Project: xss("recent_project"),
			ProjectURL: " javascript:alert(1)", Active: xss("recent_active"), Size: xss("recent_size")}},
		Totals: render.Totals{Projects: 1, Sessions: 1}}})
	proj := renderPage(t, &render.Page{Path: link.Project(testProject), Title: xss("project_title"), Kind: "project",
		Crumbs: []render.Crumb{{Label: xss("crumb")}}, Body: &render.ProjectPage{ProjectView: &render.ProjectView{
			Name: xss("project_name"), Path: xss("project_path"),
			Sessions: []render.SessionRow{{Title: xss("session_title"), URL: " javascript:alert(1)", Excerpt: xss("excerpt"), Active: xss("active")}},
			Orphans:  []render.Nav{{Title: xss("orphan"), URL: "data:text/html;base64," + htmlB64}}},
			Empty: []render.SessionRow{{Title: xss("empty_title"), URL: "javascript:alert(1)"}}}})
	for name, page := range map[string]string{"index": idx, "project": proj} {
		t.Run(name, func(t *testing.T) {
			checkSafe(t, page, func(string) bool { return false })
			text := textOf(parseHTML(t, page))
			locs := []string{"project_name", "project_path", "recent_title", "recent_project", "recent_active", "recent_size"}
			if name == "project" {
				locs = []string{"project_name", "project_path", "crumb", "session_title", "excerpt", "orphan", "empty_title"}
			}
			for _, loc := range locs {
				if !strings.Contains(text, xss(loc)) {
					t.Errorf("%s: not shown as text", loc)
				}
			}
			if !strings.Contains(page, "<title>"+template.HTMLEscapeString(xss(name+"_title"))) {
				t.Errorf("<title> does not hold the escaped title")
			}
		})
	}
}

// TestUnsafeCatches makes sure the checker itself fails on each kind of
// unsafe page: a checker that finds nothing proves nothing.
func TestUnsafeCatches(t *testing.T) {
	t.Parallel()
	okData := func(src string) bool { return reDataImage.MatchString(src) }
	for _, body := range []string{
		`<script>alert(1)</script>`,
		`<script src="https://evil.example/x.js"></script>`,
		`<script src="assets/app.js">alert(1)</script>`,
		`<p onclick="alert(1)">x</p>`,
		`<div OnMouseOver="alert(1)">x</div>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href="  JaVaScRiPt:alert(1)">x</a>`,
		"<a href=\"java\tscript:alert(1)\">x</a>",
		`<a href="vbscript:msgbox(1)">x</a>`,
		`<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>`,
		`<img src="x">`,
		`<img src="https://evil.example/t.png">`,
		`<img src="data:image/svg+xml;base64,PHN2Zz4=">`,
		`<iframe src="https://evil.example"></iframe>`,
		`<object data="x"></object>`,
		`<embed src="x">`,
		`<svg><circle r="1"/></svg>`,
		`<math><mi>x</mi></math>`,
		`<form action="https://evil.example"><button>x</button></form>`,
		`<base href="https://evil.example/">`,
		`<meta http-equiv="refresh" content="0;url=https://evil.example">`,
		`<p style="background:url(https://evil.example/t.png)">x</p>`,
		`<p id="a">x</p><p id="a">y</p>`,
		`<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
		`<link rel="icon" href="data:text/html,x">`,
		`<link rel="preload" href="https://evil.example/x">`,
	} {
		page := `<!DOCTYPE html><html><head><script src="assets/app.js"></script></head><body>` + body + `</body></html>`
		probs, err := unsafe(page, okData)
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) == 0 {
			t.Errorf("unsafe finds nothing wrong with %s", body)
		}
	}
	page := `<!DOCTYPE html><html><head><link rel="icon" href="data:,"><link rel="stylesheet" href="assets/style.css"><script src="../assets/app.js"></script></head><body>` +
		`<a href="https://ok.example">x</a><img src="data:image/png;base64,` + pngB64 + `"><p id="a">&lt;script&gt;</p></body></html>`
	if probs, _ := unsafe(page, okData); len(probs) > 0 {
		t.Errorf("unsafe rejects a safe page: %q", probs)
	}
}

// chartPart are the elements a chart's SVG is made of.
var chartPart = map[string]bool{"svg": true, "title": true, "desc": true, "g": true, "rect": true, "line": true, "polyline": true, "circle": true, "text": true}

// chartSVG tells whether n is one of the header's chart SVGs.
func chartSVG(n *html.Node) bool {
	cls, _ := attr(n, "class")
	return n.Data == "svg" && n.Namespace == "svg" && strings.HasPrefix(cls, "chart ")
}

// inChart tells whether n is a chart SVG or inside one.
func inChart(n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if chartSVG(p) {
			return true
		}
	}
	return false
}
