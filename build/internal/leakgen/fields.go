package leakgen

import (
	"encoding/base64"
	"html"
	"strings"
)

// fieldDef is a field of a transcript and how to plant a secret in it.
type fieldDef struct {
	name string
	ctxs []string
	one  bool // holds one line
	n    int  // plants
	on   []*session
	// emit writes t (the secret in its context) or s itself into the field.
	emit func(ss *session, t string, s secret)
	// file names the file holding the field, when not the session's.
	file func(ss *session) string
}

// schedule plants secrets in every field: each field's contexts in turn,
// the kinds in turn, the sessions in turn.
func (g *gen) schedule() {
	for fi, f := range g.fields() {
		on := f.on
		if on == nil {
			on = g.mains
		}
		for j := range f.n {
			ctx := f.ctxs[(j+fi)%len(f.ctxs)]
			key := "main"
			if f.on != nil {
				key = f.name
			}
			ss := on[g.pos[key]%len(on)]
			g.pos[key]++
			sec := g.nextSecret(ctx, f.one)
			f.emit(ss, g.text(ctx, sec, f.one), sec)
			file := ss.rel
			if f.file != nil {
				file = f.file(ss)
			}
			g.plant(file, f.name, ctx, sec)
		}
	}
}

// fields lists every field a secret is planted in, in the order schedule
// takes them (which decides each field's first context).
func (g *gen) fields() []fieldDef {
	var all []fieldDef
	for _, part := range [][]fieldDef{g.promptFields(), g.toolInputFields(), g.toolResultFields(),
		g.recordFields(), g.attachmentFields(), g.agentFields()} {
		all = append(all, part...)
	}
	return all
}

// settingsPath is the settings file the edit tools work on.
func settingsPath(s *session) string { return s.path("config/settings.py") }

// promptFields are the fields of the prompts, the assistant's text and thinking, and the records that carry a prompt again.
func (g *gen) promptFields() []fieldDef {
	T, L := textContexts, lineContexts
	return []fieldDef{
		{name: "prompt.string", ctxs: T, n: 6, emit: func(s *session, t string, _ secret) {
			s.user(t, nil)
			s.say(g.ack())
		}},
		{name: "prompt.block", ctxs: T, n: 6, emit: func(s *session, t string, _ secret) {
			s.user([]any{text(t)}, nil)
			s.say(g.ack())
		}},
		{name: "prompt.command-args", ctxs: L, one: true, n: 4, emit: func(s *session, t string, _ secret) {
			s.user("<command-message>deploy</command-message>\n<command-name>/deploy</command-name>\n<command-args>"+t+"</command-args>", nil)
			s.say(g.ack())
		}},
		{name: "prompt.bash-stdout", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.user("<bash-input>cat .env.local</bash-input>", nil)
			s.user("<bash-stdout>"+t+"</bash-stdout><bash-stderr></bash-stderr>", nil)
		}},
		{name: "prompt.teammate-summary", ctxs: L, one: true, n: 6, emit: func(s *session, t string, _ secret) {
			// The summary attribute is HTML-escaped (&quot;): a page
			// shows it decoded.
			s.user("<teammate-message teammate_id=\"reviewer\" color=\"blue\" summary=\""+html.EscapeString(t)+
				"\">\nReview of config/settings.py done; details in the summary.\n</teammate-message>", nil)
			s.say(g.ack())
		}},
		{name: "prompt.meta", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.user([]any{text("<system-reminder>\nThe user opened config/settings.py in the IDE. Its content:\n" + t + "\n</system-reminder>")},
				map[string]any{"isMeta": true})
		}},
		{name: "attachment.queued_command", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("attachment")
			r["attachment"] = map[string]any{"type": "queued_command", "prompt": t}
			s.add(r)
		}},
		{name: "compact.summary", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			b := s.env("system")
			b["subtype"], b["content"], b["level"] = "compact_boundary", "Conversation compacted", "info"
			b["logicalParentUuid"], b["parentUuid"] = s.last, nil
			b["compactMetadata"] = map[string]any{"trigger": "auto", "preTokens": 150000 + g.r.IntN(9000)}
			s.add(b)
			s.user("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\n"+
				t+"\n\nPlease continue the conversation from where we left it off.", map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true})
		}},
		{name: "queue-operation.content", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.side(map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": g.tick(), "content": t})
		}},
		{name: "last-prompt", ctxs: L, one: true, n: 3, emit: func(s *session, t string, _ secret) {
			s.side(map[string]any{"type": "last-prompt", "lastPrompt": t})
		}},
		{name: "assistant.text", ctxs: T, n: 7, emit: func(s *session, t string, _ secret) {
			if g.r.IntN(2) == 0 {
				s.say("Found it in the config:\n\n```\n" + t + "\n```\n\nThat value must be rotated.")
			} else {
				s.say("The failing value is below.\n\n" + t + "\n\nRotate it before the next deploy.")
			}
		}},
		{name: "thinking", ctxs: T, n: 7, emit: func(s *session, t string, _ secret) {
			s.answer(map[string]any{"type": "thinking", "thinking": "The user pasted this:\n" + t + "\nI must not repeat it.", "signature": g.signature()},
				text("I'll rotate it without printing it."))
		}},
	}
}

// toolInputFields are the fields of the inputs of tool calls, built-in and MCP.
func (g *gen) toolInputFields() []fieldDef {
	T, L := textContexts, lineContexts
	N, U, M := []string{CtxName}, []string{CtxURL}, []string{CtxMember}
	return []fieldDef{
		{name: "Bash.command", ctxs: T, n: 6, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "cat > deploy/.env <<'EOF'\n" + t + "\nEOF", "description": "Write the deploy env file"},
				"", false, bashResult("", ""))
		}},
		{name: "Bash.description", ctxs: L, one: true, n: 3, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "make deploy ENV=prod", "description": t}, "deployed 3 services", false,
				bashResult("deployed 3 services\n", ""))
		}},
		{name: "Write.content", ctxs: T, n: 6, emit: func(s *session, t string, _ secret) {
			p := s.path("config/settings.local")
			s.call("Write", map[string]any{"file_path": p, "content": t}, "File created successfully at: "+p, false, nil)
		}},
		{name: "Write.file_path", ctxs: N, one: true, n: 3, emit: func(s *session, t string, _ secret) {
			s.call("Write", map[string]any{"file_path": "/home/kim/.config/northwind/" + t + ".json", "content": "{\n  \"profile\": \"prod\"\n}\n"},
				"File created successfully.", false, nil)
		}},
		{name: "Edit.old_string", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("Edit", map[string]any{"file_path": settingsPath(s), "old_string": t, "new_string": "# credentials now come from the environment\n"},
				"The file "+settingsPath(s)+" has been updated.", false, nil)
		}},
		{name: "Edit.new_string", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("Edit", map[string]any{"file_path": settingsPath(s), "old_string": "# TODO: credentials\n", "new_string": t},
				"The file "+settingsPath(s)+" has been updated.", false, nil)
		}},
		{name: "MultiEdit.edits", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("MultiEdit", map[string]any{"file_path": settingsPath(s), "edits": []any{
				map[string]any{"old_string": "DEBUG = True", "new_string": "DEBUG = False"},
				map[string]any{"old_string": "# credentials", "new_string": t}}},
				"Applied 2 edits to "+settingsPath(s)+".", false, nil)
		}},
		{name: "Read.file_path", ctxs: N, one: true, n: 3, emit: func(s *session, t string, _ secret) {
			s.call("Read", map[string]any{"file_path": "/home/kim/Downloads/" + t + ".txt"}, "     1\u2192ok\n", false, nil)
		}},
		{name: "WebFetch.url", ctxs: U, one: true, n: 4, emit: func(s *session, t string, _ secret) {
			s.call("WebFetch", map[string]any{"url": t, "prompt": "Is the export finished?"}, "The export finished at 09:12 UTC.", false, nil)
		}},
		{name: "WebFetch.prompt", ctxs: L, one: true, n: 4, emit: func(s *session, t string, _ secret) {
			s.call("WebFetch", map[string]any{"url": "https://docs.northwind-labs.io/api/auth", "prompt": "Is this credential format accepted? " + t},
				"Yes, the API accepts that format.", false, nil)
		}},
		{name: "mcp.input.headers", ctxs: M, one: true, n: 4, emit: func(s *session, _ string, sec secret) {
			h := map[string]any{}
			switch {
			case sec.name == "Authorization":
				h["Authorization"] = sec.assign
			case sec.evident:
				h["Authorization"] = "Bearer " + sec.value
			default:
				h["X-"+strings.ReplaceAll(camel(pyName(sec.name)), "_", "-")] = sec.assign
			}
			s.call("mcp__http__request", map[string]any{"method": "GET", "url": "https://api.northwind-labs.io/v1/invoices?limit=5", "headers": h},
				[]any{text(`{"count": 5, "next": null}`)}, false, nil)
		}},
		{name: "mcp.input.env", ctxs: M, one: true, n: 4, emit: func(s *session, _ string, sec secret) {
			s.call("mcp__docker__run_container", map[string]any{"image": "postgres:16-alpine", "name": "orders-db",
				"env": map[string]any{pyName(sec.name): sec.assign}, "ports": []any{"5432:5432"}},
				[]any{text("Container orders-db started (id 3f2a9c).")}, false, nil)
		}},
		{name: "mcp.input.value", ctxs: M, one: true, n: 3, emit: func(s *session, _ string, sec secret) {
			s.call("mcp__github__create_or_update_secret", map[string]any{"owner": "northwind", "repo": "payments",
				"secret_name": pyName(sec.name), "value": sec.assign}, []any{text("Secret updated.")}, false, nil)
		}},
		{name: "mcp.input.text", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("mcp__linear__create_issue", map[string]any{"teamId": "ENG", "title": "Rotate leaked credential", "description": "Found in the repo:\n\n" + t},
				[]any{text("Created ENG-482: Rotate leaked credential")}, false, nil)
		}},
		{name: "Task.prompt", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("Task", map[string]any{"description": "Check credential usage", "prompt": "Find every place that uses this credential:\n\n" + t,
				"subagent_type": "general-purpose"}, []any{text("Checked: it is used in two places.")}, false, nil)
		}},
		{name: "TodoWrite.content", ctxs: L, one: true, n: 3, emit: func(s *session, t string, _ secret) {
			s.call("TodoWrite", map[string]any{"todos": []any{
				map[string]any{"content": "Rotate " + t, "status": "pending", "activeForm": "Rotating the credential"},
				map[string]any{"content": "Update CI", "status": "pending", "activeForm": "Updating CI"}}},
				"Todos have been modified successfully.", false, nil)
		}},
		{name: "ExitPlanMode.plan", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("ExitPlanMode", map[string]any{"plan": "## Plan\n\n1. Move the credential below out of the repo\n2. Rotate it\n\n```\n" + t + "\n```\n"},
				"User has approved your plan.", false, nil)
		}},
	}
}

// toolResultFields are the fields of the results of tool calls: the tool_result block and the toolUseResult beside it.
func (g *gen) toolResultFields() []fieldDef {
	T := textContexts
	return []fieldDef{
		{name: "tool_result.string", ctxs: T, n: 6, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "cat config/credentials.yml", "description": "Show the credentials file"}, t, false, nil)
		}},
		{name: "tool_result.blocks", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("mcp__vault__read_secret", map[string]any{"path": "secret/data/prod/api"},
				[]any{text("Secret at secret/data/prod/api (version 7):"), text(t)}, false, nil)
		}},
		{name: "tool_result.is_error", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "./scripts/deploy.sh prod", "description": "Deploy to prod"}, "Exit code 1\n"+t, true, "Error: Exit code 1")
		}},
		{name: "toolUseResult.stdout", ctxs: T, n: 6, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "printenv | sort", "description": "List the environment"}, "", false, bashResult(t, ""))
		}},
		{name: "toolUseResult.stderr", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "npm run migrate", "description": "Run migrations"}, "", false, bashResult("", t))
		}},
		{name: "toolUseResult.file.content", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			p := s.path("config/prod.env")
			n := strings.Count(t, "\n") + 1
			s.call("Read", map[string]any{"file_path": p}, "     1\u2192(file content)\n", false,
				map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": t, "numLines": n, "startLine": 1, "totalLines": n}})
		}},
		{name: "toolUseResult.structuredPatch", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			lines := []any{" # config"}
			for _, l := range strings.Split(t, "\n") {
				lines = append(lines, "+"+l)
			}
			hunk := map[string]any{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": len(lines), "lines": lines}
			s.call("Edit", map[string]any{"file_path": settingsPath(s), "old_string": "# config", "new_string": "# config\n# loaded from vault"},
				"The file "+settingsPath(s)+" has been updated.", false,
				map[string]any{"filePath": settingsPath(s), "oldString": "# config", "newString": "# config\n# loaded from vault", "originalFile": "# config\n",
					"structuredPatch": []any{hunk}, "userModified": false, "replaceAll": false})
		}},
		{name: "toolUseResult.originalFile", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			hunk := map[string]any{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": []any{"-DEBUG = True", "+DEBUG = False"}}
			s.call("Edit", map[string]any{"file_path": settingsPath(s), "old_string": "DEBUG = True", "new_string": "DEBUG = False"},
				"The file "+settingsPath(s)+" has been updated.", false,
				map[string]any{"filePath": settingsPath(s), "oldString": "DEBUG = True", "newString": "DEBUG = False", "originalFile": "DEBUG = True\n" + t,
					"structuredPatch": []any{hunk}, "userModified": false, "replaceAll": false})
		}},
		{name: "toolUseResult.content(Write)", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			p := s.path("config/vault.hcl")
			s.call("Write", map[string]any{"file_path": p, "content": "# moved to vault\n"}, "File created successfully at: "+p, false,
				map[string]any{"type": "create", "filePath": p, "content": t, "structuredPatch": []any{}})
		}},
		{name: "toolUseResult.string", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "terraform apply -auto-approve", "description": "Apply the infrastructure"},
				"Error: terraform apply failed", true, "Error: "+t)
		}},
		{name: "toolUseResult.WebFetch.result", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			u := "https://paste.northwind-labs.io/raw/8f3k2"
			s.call("WebFetch", map[string]any{"url": u, "prompt": "Show the raw paste"}, "Fetched the paste.", false,
				map[string]any{"url": u, "result": t, "bytes": len(t), "code": 200, "codeText": "OK", "durationMs": 412})
		}},
		{name: "toolUseResult.Task.content", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			p := "Scan the repo for hard-coded credentials and report."
			s.call("Task", map[string]any{"description": "Scan for secrets", "prompt": p, "subagent_type": "general-purpose"},
				[]any{text("Scan finished.")}, false,
				map[string]any{"status": "completed", "prompt": p, "content": []any{text("Found one hard-coded credential:\n\n" + t)},
					"totalDurationMs": 52000, "totalTokens": 14000, "totalToolUseCount": 4})
		}},
	}
}

// recordFields are the fields of the records around the conversation: titles, summaries, system records and progress.
func (g *gen) recordFields() []fieldDef {
	T, L := textContexts, lineContexts
	m := g.mains
	return []fieldDef{
		{name: "custom-title", ctxs: L, one: true, n: 3, on: []*session{m[0], m[4], m[7]}, emit: func(s *session, t string, _ secret) {
			s.side(map[string]any{"type": "custom-title", "customTitle": t})
		}},
		{name: "ai-title", ctxs: L, one: true, n: 2, on: []*session{m[1], m[5]}, emit: func(s *session, t string, _ secret) {
			s.side(map[string]any{"type": "ai-title", "aiTitle": t})
		}},
		{name: "summary", ctxs: L, one: true, n: 3, on: []*session{m[2], m[6], m[0]}, emit: func(s *session, t string, _ secret) {
			s.side(map[string]any{"type": "summary", "summary": t, "leafUuid": s.last})
		}},
		{name: "system.local_command", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("system")
			r["subtype"], r["level"], r["content"] = "local_command", "info", "<local-command-stdout>"+t+"</local-command-stdout>"
			s.add(r)
		}},
		{name: "system.content", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("system")
			r["level"], r["content"] = "info", "\x1b[1mPreToolUse:Bash\x1b[22m [./hooks/guard.sh] completed successfully: "+t
			s.add(r)
		}},
		{name: "system.informational", ctxs: L, one: true, n: 2, emit: func(s *session, t string, _ secret) {
			r := s.env("system")
			r["subtype"], r["level"], r["content"] = "informational", "info", t
			s.add(r)
		}},
		{name: "progress.bash_progress", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			id := s.use("Bash", map[string]any{"command": "./scripts/export.sh", "description": "Run the export"})
			p := s.env("progress")
			p["data"] = map[string]any{"type": "bash_progress", "output": t, "fullOutput": t, "elapsedTimeSeconds": 3, "totalLines": strings.Count(t, "\n") + 1}
			p["toolUseID"], p["parentToolUseID"] = "bash-progress-0", id
			s.add(p)
			s.result(id, "export done", false, bashResult("export done\n", ""))
		}},
		{name: "progress.hook_progress", ctxs: L, one: true, n: 3, emit: func(s *session, t string, _ secret) {
			id := s.use("Read", map[string]any{"file_path": s.path("README.md")})
			p := s.env("progress")
			p["data"] = map[string]any{"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Read", "command": t}
			p["toolUseID"], p["parentToolUseID"] = id, id
			s.add(p)
			s.result(id, "     1\u2192# payments\n", false, nil)
		}},
		{name: "progress.agent_progress", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			id := s.use("Task", map[string]any{"description": "Audit the loader", "prompt": "Audit the config loader.", "subagent_type": "general-purpose"})
			p := s.env("progress")
			p["data"] = map[string]any{"type": "agent_progress", "agentId": g.str(7, hexSet), "prompt": "Audit the config loader.",
				"message": map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{text(t)}},
					"uuid": g.uuid(), "timestamp": g.tick()}, "normalizedMessages": []any{}}
			p["toolUseID"], p["parentToolUseID"] = "agent_msg_01"+g.str(22, base58), id
			s.add(p)
			s.result(id, []any{text("The loader reads the environment first.")}, false, nil)
		}},
	}
}

// attachmentFields are the fields of attachments, PR links and plans.
func (g *gen) attachmentFields() []fieldDef {
	T := textContexts
	U := []string{CtxURL}
	return []fieldDef{
		{name: "attachment.hook_success", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("attachment")
			r["attachment"] = map[string]any{"type": "hook_success", "hookEvent": "SessionStart", "hookName": "SessionStart:startup",
				"toolUseID": "SessionStart", "content": "", "stdout": t, "stderr": "", "exitCode": 0, "command": "./scripts/load-env.sh", "durationMs": 42}
			s.add(r)
		}},
		{name: "attachment.hook_additional_context", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("attachment")
			r["attachment"] = map[string]any{"type": "hook_additional_context", "hookEvent": "UserPromptSubmit", "hookName": "UserPromptSubmit",
				"toolUseID": "UserPromptSubmit", "content": []any{t}}
			s.add(r)
		}},
		{name: "attachment.nested_memory", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("attachment")
			r["attachment"] = map[string]any{"type": "nested_memory", "path": s.path("services/api/CLAUDE.md"), "content": "# API service\n\n" + t,
				"displayPath": "services/api/CLAUDE.md"}
			s.add(r)
		}},
		{name: "attachment.edited_text_file", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("attachment")
			r["attachment"] = map[string]any{"type": "edited_text_file", "filename": s.path(".env.local"), "snippet": t}
			s.add(r)
		}},
		{name: "attachment.selected_lines_in_ide", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			r := s.env("attachment")
			r["attachment"] = map[string]any{"type": "selected_lines_in_ide", "ideName": "Visual Studio Code", "lineStart": 3, "lineEnd": 5,
				"filename": settingsPath(s), "content": t, "displayPath": "config/settings.py"}
			s.add(r)
		}},
		{name: "pr-link.prUrl", ctxs: U, one: true, n: 2, emit: func(s *session, t string, _ secret) {
			s.side(map[string]any{"type": "pr-link", "prNumber": 482, "prUrl": t, "prRepository": "northwind/payments", "timestamp": g.tick()})
		}},
		{name: "planContent", ctxs: T, n: 5, emit: func(s *session, t string, _ secret) {
			s.user("Implement the plan.", map[string]any{"planContent": "# Plan\n\n" + t})
			s.say(g.ack())
		}},
	}
}

// agentFields are the fields of sub-agents' transcripts, inline sidechains and sub-agents' .meta.json files.
func (g *gen) agentFields() []fieldDef {
	T, L := textContexts, lineContexts
	N := []string{CtxName}
	return []fieldDef{
		{name: "subagent.text", ctxs: T, n: 6, on: g.agents, emit: func(s *session, t string, _ secret) {
			s.say("The loader falls back to this hard-coded value:\n\n" + t)
		}},
		{name: "subagent.tool_result", ctxs: T, n: 5, on: g.agents, emit: func(s *session, t string, _ secret) {
			s.call("Bash", map[string]any{"command": "grep -rn KEY config/", "description": "Search the config"}, t, false, nil)
		}},
		{name: "subagent.thinking", ctxs: T, n: 5, on: g.agents, emit: func(s *session, t string, _ secret) {
			s.answer(map[string]any{"type": "thinking", "thinking": "This looks like a live credential:\n" + t, "signature": g.signature()},
				text("Reporting it to the parent."))
		}},
		{name: "sidechain.prompt", ctxs: T, n: 5, on: g.inline, emit: func(s *session, t string, _ secret) {
			s.sidechainDo(func() {
				s.user("Check this configuration for problems:\n\n"+t, nil)
				s.say(g.ack())
			})
		}},
		{name: "sidechain.text", ctxs: T, n: 5, on: g.inline, emit: func(s *session, t string, _ secret) {
			s.sidechainDo(func() {
				s.user("Audit the config loader.", nil)
				s.say("The loader reads this:\n\n" + t)
			})
		}},
		{name: "meta.agentType", ctxs: N, one: true, n: 2, on: g.withMet, emit: func(s *session, t string, _ secret) {
			s.meta["agentType"] = t
		}, file: metaFile},
		{name: "meta.description", ctxs: L, one: true, n: 3, on: g.withMet, emit: func(s *session, t string, _ secret) {
			s.meta["description"] = t
		}, file: metaFile},
	}
}

func metaFile(s *session) string { return strings.TrimSuffix(s.rel, ".jsonl") + ".meta.json" }

// images plants secrets in the metadata of PNG and JPEG images: pasted in
// a prompt, returned by a tool, read from a file, seen by a sub-agent.
func (g *gen) images() {
	type imageField struct {
		name string
		on   []*session
		emit func(s *session, mediaType, data string, size int)
	}
	src := func(mt, data string) map[string]any {
		return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mt, "data": data}}
	}
	shot := func(s *session, mt, data string, _ int) {
		s.call("mcp__playwright__browser_take_screenshot", map[string]any{"fullPage": false},
			[]any{text("Took a screenshot of the current page."), src(mt, data)}, false, nil)
	}
	fields := []imageField{
		{"prompt.image", g.mains, func(s *session, mt, data string, _ int) {
			s.user([]any{src(mt, data), text("Why does the dashboard show this error?")}, nil)
			s.say(g.ack())
		}},
		{"tool_result.image", g.mains, shot},
		{"toolUseResult.file.base64", g.mains, func(s *session, mt, data string, size int) {
			p := s.path("docs/screenshot.png")
			if mt == "image/jpeg" {
				p = s.path("docs/photo.jpg")
			}
			s.call("Read", map[string]any{"file_path": p}, []any{text("[image]")}, false,
				map[string]any{"type": "image", "file": map[string]any{"base64": data, "type": mt, "originalSize": size}})
		}},
		{"subagent.image", g.agents, shot},
	}
	for _, f := range fields {
		for _, format := range []string{"png", "jpeg"} {
			s := f.on[g.pos["image"]%len(f.on)]
			g.pos["image"]++
			ctxs := pngContexts
			if format == "jpeg" {
				ctxs = jpegContexts
			}
			var secs [3]secret
			var texts [3]string
			for k, ctx := range ctxs {
				secs[k] = g.nextSecret(ctx, false)
				texts[k] = secs[k].line
			}
			var raw []byte
			mt := "image/png"
			if format == "png" {
				raw = g.pngWith(texts)
			} else {
				raw, mt = g.jpegWith(texts), "image/jpeg"
			}
			f.emit(s, mt, base64.StdEncoding.EncodeToString(raw), len(raw))
			for k, ctx := range ctxs {
				g.plant(s.rel, f.name, ctx, secs[k])
			}
		}
	}
}
