package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

const (
	sessionID = "5b1e2c7a-3f4d-4e8a-9c21-7d0f6a8b9e13"
	ledgerCWD = "/home/ana/src/ledger"
)

// fixtureTests asserts, for every file in testdata/records, what a reader of
// the site will see: each record's kind and the typed fields of its type.
var fixtureTests = []struct {
	file  string
	kinds []string // KindLabel of each record, in file order
	known bool     // Known() of every record
	check func(t *testing.T, rs []Record)
}{
	// user
	{"user-string-prompt.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "UUID", r.UUID, "9f3a1c2e-7b44-4d1e-8a0b-5e6c3d2f1a90")
		eq(t, "ParentUUID", r.ParentUUID, "")
		eq(t, "SessionID", r.SessionID, sessionID)
		eq(t, "CWD", r.CWD, ledgerCWD)
		eq(t, "Version", r.Version, "2.1.34")
		eq(t, "GitBranch", r.GitBranch, "main")
		eq(t, "Slug", r.Slug, "quiet-sorting-heron")
		eq(t, "Entrypoint", r.Entrypoint, "cli")
		eq(t, "PermissionMode", r.PermissionMode, "default")
		eq(t, "PromptID", r.PromptID, "0c6f2d8e-41b7-4a55-b2f3-98e1c7a4d210")
		eq(t, "UserType", r.UserType, "external")
		eq(t, "IsSidechain", r.IsSidechain, false)
		eq(t, "IsMeta", r.IsMeta, false)
		eq(t, "Time", r.Time, time.Date(2026, 2, 10, 9, 14, 3, 512e6, time.UTC))
		eq(t, "Message.Role", msg(t, r).Role, "user")
		c := msg(t, r).Content
		eq(t, "Content.IsString", c.IsString, true)
		eq(t, "len(Blocks)", len(c.Blocks), 1)
		eq(t, "Blocks[0].Type", c.Blocks[0].Type, "text")
		eq(t, "Content.Text()", c.Text(), "Add a --since flag to the export command so I can limit it to recent entries")
		eq(t, "Todos", string(r.Todos), "[]")
	}},
	{"user-text-image.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "ParentUUID", r.ParentUUID, "4c2d9e1f-0a3b-4f6c-8d7e-2b1a0c9f8e7d")
		c := msg(t, r).Content
		eq(t, "Content.IsString", c.IsString, false)
		eq(t, "len(Blocks)", len(c.Blocks), 2)
		eq(t, "text", block(t, r, 0, "text").Text, "The totals column is misaligned, see the screenshot")
		img := block(t, r, 1, "image")
		src := source(t, img)
		eq(t, "Source.Type", src.Type, "base64")
		eq(t, "Source.MediaType", src.MediaType, "image/png")
		eq(t, "Source.Data prefix", strings.HasPrefix(src.Data, "iVBORw0KGgo"), true)
		eq(t, `Has("image")`, c.Has("image"), true)
		eq(t, `Has("tool_result")`, c.Has("tool_result"), false)
		eq(t, "Content.Text()", c.Text(), "The totals column is misaligned, see the screenshot")
	}},
	{"user-tool-result-string.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		const out = "ok  \tledger/export\t0.412s\nok  \tledger/store\t0.128s"
		b := block(t, r, 0, "tool_result")
		eq(t, "ToolUseID", b.ToolUseID, "toolu_01HkVw3Rj8sQp2mXn5bT7cYd")
		eq(t, "IsError", b.IsError, false)
		eq(t, "result IsString", b.Content.IsString, true)
		eq(t, "result Text()", b.Content.Text(), out)
		eq(t, "SourceToolAssistantUUID", r.SourceToolAssistantUUID, "e1d2c3b4-a5f6-4789-8abc-def012345678")
		eq(t, "toolUseResult.stdout", jsonAt(t, r.ToolUseResult, "stdout"), any(out))
		eq(t, "toolUseResult.interrupted", jsonAt(t, r.ToolUseResult, "interrupted"), any(false))
		eq(t, `Has("tool_result")`, msg(t, r).Content.Has("tool_result"), true)
	}},
	{"user-tool-result-array.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		b := block(t, r, 0, "tool_result")
		eq(t, "ToolUseID", b.ToolUseID, "toolu_01QmZ7cR4tYx9pLw2nVb6kJs")
		eq(t, "result IsString", b.Content.IsString, false)
		eq(t, "len(result blocks)", len(b.Content.Blocks), 2)
		if len(b.Content.Blocks) == 2 {
			eq(t, "result[0].Type", b.Content.Blocks[0].Type, "text")
			eq(t, "result[0].Text", b.Content.Blocks[0].Text, "Screenshot of http://localhost:5173/report taken")
			eq(t, "result[1].Type", b.Content.Blocks[1].Type, "image")
			src := source(t, b.Content.Blocks[1])
			eq(t, "result[1] media type", src.MediaType, "image/jpeg")
			eq(t, "result[1] data prefix", strings.HasPrefix(src.Data, "/9j/"), true)
		}
		eq(t, "result Text()", b.Content.Text(), "Screenshot of http://localhost:5173/report taken")
		eq(t, "toolUseResult[0].type", jsonAt(t, r.ToolUseResult, "0", "type"), any("text"))
	}},
	{"user-tool-result-tool-reference.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "IsSidechain", r.IsSidechain, true)
		eq(t, "AgentID", r.AgentID, "a4ca7529859c158c2")
		b := block(t, r, 0, "tool_result")
		var names []string
		for _, rb := range b.Content.Blocks {
			eq(t, "result block type", rb.Type, "tool_reference")
			names = append(names, rb.ToolName)
		}
		eq(t, "tool names", fmt.Sprint(names), "[WebSearch WebFetch]")
	}},
	{"user-tool-result-error.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		b := block(t, r, 0, "tool_result")
		eq(t, "IsError", b.IsError, true)
		eq(t, "ToolUseID", b.ToolUseID, "toolu_01Nc5Xb8Yt2Wq4Er6Ty8Ui0Op")
		eq(t, "result Text()", b.Content.Text(), "<tool_use_error>File does not exist. Current working directory: /home/ana/src/ledger</tool_use_error>")
		eq(t, "toolUseResult", jsonAt(t, r.ToolUseResult), any("Error: File does not exist. Current working directory: /home/ana/src/ledger"))
	}},
	{"user-meta.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "IsMeta", r.IsMeta, true)
		eq(t, "IsCompactSummary", r.IsCompactSummary, false)
		eq(t, "caveat", strings.HasPrefix(msg(t, r).Content.Text(), "<local-command-caveat>Caveat: The messages below"), true)
	}},
	{"user-compact-summary.jsonl", []string{"user"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "IsCompactSummary", r.IsCompactSummary, true)
		eq(t, "IsVisibleInTranscriptOnly", r.IsVisibleInTranscriptOnly, true)
		eq(t, "IsMeta", r.IsMeta, false)
		eq(t, "ParentUUID", r.ParentUUID, "c0ffee00-1234-4abc-9def-00112233aabb")
		text := msg(t, r).Content.Text()
		eq(t, "summary start", strings.HasPrefix(text, "This session is being continued from a previous conversation"), true)
		eq(t, "summary keeps newlines", strings.Contains(text, "\n2. Pending Tasks:\n   - Document the flag in README.md"), true)
	}},

	// assistant
	{"assistant-text-citations.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		m := msg(t, r)
		eq(t, "RequestID", r.RequestID, "req_011CXa1b2c3d4e5f6g7h8i9j")
		eq(t, "Message.ID", m.ID, "msg_01Ab3Cd5Ef7Gh9Ij1Kl3Mn5P")
		eq(t, "Message.Type", m.Type, "message")
		eq(t, "Message.Role", m.Role, "assistant")
		eq(t, "Message.Model", m.Model, "claude-opus-4-5-20251101")
		eq(t, "StopReason", m.StopReason, "end_turn")
		b := block(t, r, 0, "text")
		eq(t, "Text", b.Text, "Go 1.23 added range-over-func iterators.")
		eq(t, "citation type", jsonAt(t, b.Citations, "0", "type"), any("web_search_result_location"))
		eq(t, "citation url", jsonAt(t, b.Citations, "0", "url"), any("https://go.dev/doc/go1.23"))
		if got, want := *usage(t, r), (Usage{InputTokens: 12, OutputTokens: 58, CacheReadInputTokens: 20411, ServiceTier: "standard"}); !reflect.DeepEqual(got, want) {
			t.Errorf("usage = %+v, want %+v", got, want)
		}
	}},
	{"assistant-thinking.jsonl", []string{"assistant", "assistant"}, true, func(t *testing.T, rs []Record) {
		b := block(t, rs[0], 0, "thinking")
		eq(t, "Thinking", b.Thinking, "The export command lives in cmd/export.go; a --since flag should parse a duration or a date.")
		eq(t, "Signature prefix", strings.HasPrefix(b.Signature, "EtIBCkYIBBgC"), true)
		eq(t, "StopReason (null)", msg(t, rs[0]).StopReason, "")
		eq(t, "Content.Text()", msg(t, rs[0]).Content.Text(), "")
		// Newer models write empty thinking text but keep the signature.
		b = block(t, rs[1], 0, "thinking")
		eq(t, "empty Thinking", b.Thinking, "")
		eq(t, "Signature prefix", strings.HasPrefix(b.Signature, "Ep8CCkgI"), true)
		eq(t, "Version", rs[1].Version, "2.1.128")
		eq(t, "Model", msg(t, rs[1]).Model, "claude-opus-4-7")
		eq(t, "ParentUUID", rs[1].ParentUUID, rs[0].UUID)
	}},
	{"assistant-redacted-thinking.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		b := block(t, rs[0], 0, "redacted_thinking")
		eq(t, "Data prefix", strings.HasPrefix(b.Data, "EmwKAhgBEgy3va3pzix"), true)
		eq(t, "Thinking", b.Thinking, "")
		eq(t, "Model", msg(t, rs[0]).Model, "claude-sonnet-4-5-20250929")
	}},
	{"assistant-tool-use.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		b := block(t, r, 0, "tool_use")
		eq(t, "ID", b.ID, "toolu_01HkVw3Rj8sQp2mXn5bT7cYd")
		eq(t, "Name", b.Name, "Bash")
		eq(t, "input.command", jsonAt(t, b.Input, "command"), any("go test ./export/... ./store/..."))
		eq(t, "input.description", jsonAt(t, b.Input, "description"), any("Run the export and store tests"))
		eq(t, "caller.type", jsonAt(t, b.Caller, "type"), any("direct"))
		eq(t, "StopReason", msg(t, r).StopReason, "tool_use")
		eq(t, "UUID", r.UUID, "e1d2c3b4-a5f6-4789-8abc-def012345678")
		eq(t, "OutputTokens", usage(t, r).OutputTokens, int64(140))
	}},
	{"assistant-server-tool-use.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		b := block(t, r, 0, "server_tool_use")
		eq(t, "ID", b.ID, "srvtoolu_01TmABLWkAAscsjKZscbyLzV")
		eq(t, "Name", b.Name, "web_search")
		eq(t, "input.query", jsonAt(t, b.Input, "query"), any("go 1.23 range over func iterators"))
		u := usage(t, r)
		if u.ServerToolUse == nil {
			t.Fatal("Usage.ServerToolUse is nil")
		}
		eq(t, "ServerToolUse", *u.ServerToolUse, ServerToolUse{WebSearchRequests: 1})
		eq(t, "Usage.CacheCreation", u.CacheCreation, (*CacheCreation)(nil))
	}},
	{"assistant-web-search-tool-result.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "Message.ID (shared with the server_tool_use fragment)", msg(t, r).ID, "msg_01Se6rV7eR8tO9oL0uS1eA2b")
		b := block(t, r, 0, "web_search_tool_result")
		eq(t, "ToolUseID", b.ToolUseID, "srvtoolu_01TmABLWkAAscsjKZscbyLzV")
		eq(t, "len(results)", len(b.Content.Blocks), 2)
		if len(b.Content.Blocks) != 2 {
			return
		}
		for _, res := range b.Content.Blocks {
			eq(t, "result type", res.Type, "web_search_result")
			eq(t, "KnownBlock", KnownBlock(res.Type), false)
			eq(t, "result page_age kept", jsonAt(t, res.Extra, "page_age") != nil, true)
		}
		eq(t, "result[0].url", jsonAt(t, b.Content.Blocks[0].Extra, "url"), any("https://go.dev/doc/go1.23"))
		eq(t, "result[1].title", jsonAt(t, b.Content.Blocks[1].Extra, "title"), any("Range Over Function Types - The Go Programming Language"))
	}},
	{"assistant-image.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		src := source(t, block(t, rs[0], 0, "image"))
		eq(t, "Source", *src, Source{Type: "base64", MediaType: "image/gif", Data: "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"})
	}},
	{"assistant-document.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		b := block(t, rs[0], 0, "document")
		eq(t, "Source", *source(t, b), Source{Type: "url", URL: "https://example.com/specs/ledger-export-v2.pdf"})
		eq(t, "title (in Extra)", jsonAt(t, b.Extra, "title"), any("Ledger export format v2"))
	}},
	{"assistant-advisor.jsonl", []string{"assistant", "assistant", "assistant"}, true, func(t *testing.T, rs []Record) {
		eq(t, "AdvisorModel", rs[0].AdvisorModel, "claude-opus-4-7")
		eq(t, "server tool name", block(t, rs[0], 0, "server_tool_use").Name, "advisor")
		res := block(t, rs[1], 0, "advisor_tool_result")
		eq(t, "result ToolUseID", res.ToolUseID, "srvtoolu_01AdvQ")
		eq(t, "result content type (raw)", jsonAt(t, res.Content.Raw, "type"), any("advisor_redacted_result"))
		eq(t, "no iterations on a first fragment", len(usage(t, rs[0]).Steps()), 0)
		its := usage(t, rs[2]).Steps()
		want := []UsageIteration{
			{Type: "message", InputTokens: 1, OutputTokens: 40, CacheReadInputTokens: 40000, CacheCreationInputTokens: 1200, CacheCreation: &CacheCreation{Ephemeral5m: 1200}},
			{Type: IterationAdvisor, Model: "claude-opus-4-7", InputTokens: 41250, OutputTokens: 1630, CacheCreation: &CacheCreation{}},
			{Type: "message", InputTokens: 2, OutputTokens: 172, CacheReadInputTokens: 40300, CacheCreationInputTokens: 300, CacheCreation: &CacheCreation{Ephemeral5m: 300}},
		}
		if !reflect.DeepEqual(its, want) {
			t.Errorf("Iterations = %+v, want %+v", its, want)
		}
		// Its top-level counts sum both of its own calls: the context is
		// the last one's.
		eq(t, "Context", usage(t, rs[2]).Context(), 2+40300+300)
		eq(t, "Context without iterations", usage(t, rs[0]).Context(), 3+40000+1200)
	}},
	{"assistant-usage.jsonl", []string{"assistant", "assistant"}, true, func(t *testing.T, rs []Record) {
		want := Usage{
			InputTokens:              6,
			OutputTokens:             215,
			CacheCreationInputTokens: 15126,
			CacheReadInputTokens:     48816,
			ServiceTier:              "standard",
			CacheCreation:            &CacheCreation{Ephemeral5m: 15000, Ephemeral1h: 126},
			ServerToolUse:            &ServerToolUse{WebSearchRequests: 2, WebFetchRequests: 1},
		}
		for i, r := range rs {
			if got := usage(t, r); !reflect.DeepEqual(*got, want) {
				t.Errorf("record %d: Usage = %+v (cache %+v, server %+v), want %+v",
					i, *got, got.CacheCreation, got.ServerToolUse, want)
			}
			eq(t, "Message.ID", msg(t, r).ID, "msg_01Us7aG8eS9pL0iT1fR2aG3m")
			eq(t, "RequestID", r.RequestID, "req_011CXi9j0k1l2m3n4o5p6q7r")
		}
		eq(t, "fragment 1 text", block(t, rs[0], 0, "text").Text, "Both packages pass. Now the flag itself:")
		edit := block(t, rs[1], 0, "tool_use")
		eq(t, "fragment 2 tool", edit.Name, "Edit")
		eq(t, "fragment 2 file_path", jsonAt(t, edit.Input, "file_path"), any("/home/ana/src/ledger/cmd/export.go"))
		eq(t, "fragment 2 ParentUUID", rs[1].ParentUUID, rs[0].UUID)
	}},
	{"assistant-synthetic.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		m := msg(t, r)
		eq(t, "Model", m.Model, "<synthetic>")
		eq(t, "StopReason", m.StopReason, "stop_sequence")
		eq(t, "Text()", m.Content.Text(), "No response requested.")
		eq(t, "IsAPIErrorMessage", r.IsAPIErrorMessage, false)
		u := usage(t, r)
		eq(t, "InputTokens", u.InputTokens, int64(0))
		eq(t, "OutputTokens", u.OutputTokens, int64(0))
		eq(t, "ServiceTier (null)", u.ServiceTier, "")
		eq(t, "Error", len(r.Error), 0)
	}},
	{"assistant-api-error.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "IsAPIErrorMessage", r.IsAPIErrorMessage, true)
		eq(t, "error", jsonAt(t, r.Error), any("unknown"))
		eq(t, "Model", msg(t, r).Model, "<synthetic>")
		eq(t, "Text() prefix", strings.HasPrefix(msg(t, r).Content.Text(), `API Error: 529 {"type":"error"`), true)
	}},
	{"assistant-unknown-block.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		b := block(t, rs[0], 0, "mcp_tool_use")
		eq(t, "KnownBlock", KnownBlock(b.Type), false)
		eq(t, "ID", b.ID, "mcptoolu_01Lm2Nn3Oo4Pp5Qq6Rr7Ss8T")
		eq(t, "Name", b.Name, "get_issue")
		eq(t, "input.id", jsonAt(t, b.Input, "id"), any("ENG-412"))
		eq(t, "server_name (in Extra)", jsonAt(t, b.Extra, "server_name"), any("linear-server"))
	}},

	// progress
	{"progress-bash_progress.jsonl", []string{"progress/bash_progress"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		d := data(t, r)
		eq(t, "Data.Output", d.Output, "ok  \tledger/export\t0.412s\n")
		eq(t, "elapsedTimeSeconds", jsonAt(t, d.Extra, "elapsedTimeSeconds"), any(3.0))
		eq(t, "ToolUseID", r.ToolUseID, "bash-progress-0")
		eq(t, "ParentToolUseID", r.ParentToolUseID, "toolu_01HkVw3Rj8sQp2mXn5bT7cYd")
		eq(t, "Message", r.Message, (*Message)(nil))
	}},
	{"progress-agent_progress.jsonl", []string{"progress/agent_progress"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		d := data(t, r)
		const prompt = "Find every caller of store.Export and list their packages"
		eq(t, "Data.AgentID", d.AgentID, "a4ca7529859c158c2")
		eq(t, "Data.Prompt", d.Prompt, prompt)
		eq(t, "embedded message type", jsonAt(t, d.Message, "type"), any("user"))
		eq(t, "embedded message text", jsonAt(t, d.Message, "message", "content", "0", "text"), any(prompt))
		eq(t, "ToolUseID", r.ToolUseID, "agent_msg_01AK8LHTWagR6fbxTyyLLYxQ")
		eq(t, "ParentToolUseID", r.ParentToolUseID, "toolu_01BD79JrvZLE9RRPA6kCLgjN")
	}},
	{"progress-hook_progress.jsonl", []string{"progress/hook_progress"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		d := data(t, r)
		eq(t, "Data.HookName", d.HookName, "SessionStart:startup")
		eq(t, "hookEvent", jsonAt(t, d.Extra, "hookEvent"), any("SessionStart"))
		eq(t, "ParentUUID", r.ParentUUID, "")
		eq(t, "ToolUseID", r.ToolUseID, "1507cf93-9896-49a9-9bc9-e3cf22870ec7")
		eq(t, "ParentToolUseID", r.ParentToolUseID, r.ToolUseID)
	}},
	{"progress-mcp_progress.jsonl", []string{"progress/mcp_progress"}, true, func(t *testing.T, rs []Record) {
		d := data(t, rs[0])
		eq(t, "serverName", jsonAt(t, d.Extra, "serverName"), any("linear-server"))
		eq(t, "toolName", jsonAt(t, d.Extra, "toolName"), any("get_issue"))
		eq(t, "status", jsonAt(t, d.Extra, "status"), any("started"))
	}},
	{"progress-query_update.jsonl", []string{"progress/query_update"}, true, func(t *testing.T, rs []Record) {
		eq(t, "query", jsonAt(t, data(t, rs[0]).Extra, "query"), any("go 1.23 range over func iterators"))
		eq(t, "ToolUseID", rs[0].ToolUseID, "search-progress-1")
	}},
	{"progress-search_results_received.jsonl", []string{"progress/search_results_received"}, true, func(t *testing.T, rs []Record) {
		eq(t, "resultCount", jsonAt(t, data(t, rs[0]).Extra, "resultCount"), any(2.0))
		eq(t, "ToolUseID", rs[0].ToolUseID, "srvtoolu_01TmABLWkAAscsjKZscbyLzV")
	}},
	{"progress-waiting_for_task.jsonl", []string{"progress/waiting_for_task"}, true, func(t *testing.T, rs []Record) {
		d := data(t, rs[0])
		eq(t, "taskDescription", jsonAt(t, d.Extra, "taskDescription"), any("Run the full integration suite"))
		eq(t, "taskType", jsonAt(t, d.Extra, "taskType"), any("local_bash"))
		eq(t, "Slug", rs[0].Slug, "quiet-sorting-heron")
	}},
	{"progress-unknown-data-type.jsonl", []string{"progress/skill_progress"}, false, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "Type", r.Type, TypeProgress)
		eq(t, "UUID", r.UUID, "aad1e2f3-a4b5-4c6d-9e7f-9a0b1c2d3e4f")
		eq(t, "skillName", jsonAt(t, data(t, r).Extra, "skillName"), any("simplify"))
	}},

	// system
	{"system-stop_hook_summary.jsonl", []string{"system/stop_hook_summary"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "HookCount", r.HookCount, 2)
		eq(t, "hookInfos[1].command", jsonAt(t, r.HookInfos, "1", "command"), any("gofmt -l ."))
		eq(t, "hookErrors[0]", jsonAt(t, r.HookErrors, "0"), any("gofmt -l . exited with status 1"))
		eq(t, "PreventedContinue", r.PreventedContinue, true)
		eq(t, "StopReason", r.StopReason, "Stop hook prevented continuation")
		eq(t, "Level", r.Level, "suggestion")
		eq(t, "ToolUseID", r.ToolUseID, "55cb467b-5283-48cf-a6bf-05ef76f5bc69")
	}},
	{"system-turn_duration.jsonl", []string{"system/turn_duration"}, true, func(t *testing.T, rs []Record) {
		eq(t, "DurationMs", rs[0].DurationMs, 305728.0)
		eq(t, "IsMeta", rs[0].IsMeta, false)
		eq(t, "ParentUUID", rs[0].ParentUUID, "bbe2f3a4-b5c6-4d7e-8f9a-0b1c2d3e4f5a")
	}},
	{"system-api_error.jsonl", []string{"system/api_error"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "Level", r.Level, "error")
		eq(t, "RetryAttempt", r.RetryAttempt, 3)
		eq(t, "MaxRetries", r.MaxRetries, 10)
		eq(t, "RetryInMs", r.RetryInMs, 615.3449117698565)
		eq(t, "error.status", jsonAt(t, r.Error, "status"), any(529.0))
		eq(t, "error type", jsonAt(t, r.Error, "error", "error", "type"), any("overloaded_error"))
	}},
	{"system-local_command.jsonl", []string{"system/local_command"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString", rs[0].ContentString(),
			"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>")
		eq(t, "Level", rs[0].Level, "info")
	}},
	{"system-compact_boundary.jsonl", []string{"system/compact_boundary"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "ParentUUID", r.ParentUUID, "")
		eq(t, "LogicalParentUUID", r.LogicalParentUUID, "c0ffee00-1234-4abc-9def-00112233aabb")
		if r.CompactMetadata == nil {
			t.Fatal("CompactMetadata is nil")
		}
		eq(t, "CompactMetadata", *r.CompactMetadata, CompactMetadata{Trigger: "auto", PreTokens: 167342})
		eq(t, "MicrocompactMetadata", r.MicrocompactMetadata, (*MicrocompactMetadata)(nil))
		eq(t, "ContentString", r.ContentString(), "Conversation compacted")
	}},
	{"system-microcompact_boundary.jsonl", []string{"system/microcompact_boundary"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		want := &MicrocompactMetadata{Trigger: "auto", PreTokens: 50745, TokensSaved: 26741, CompactedToolIDs: []string{
			"toolu_01XYosP93TmyeTpxfA8fJ2xT", "toolu_012Kbqtr4nXNj96gaiqHp4pL", "toolu_01HY4bKAq9KmM2nPzdWhgRfX"}}
		if !reflect.DeepEqual(r.MicrocompactMetadata, want) {
			t.Errorf("MicrocompactMetadata = %+v, want %+v", r.MicrocompactMetadata, want)
		}
		eq(t, "CompactMetadata", r.CompactMetadata, (*CompactMetadata)(nil))
		eq(t, "ContentString", r.ContentString(), "Context microcompacted")
	}},
	{"system-away_summary.jsonl", []string{"system/away_summary"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString prefix", strings.HasPrefix(rs[0].ContentString(), "We're adding a --since flag to `ledger export`."), true)
		eq(t, "Version", rs[0].Version, "2.1.110")
		eq(t, "Entrypoint", rs[0].Entrypoint, "cli")
	}},
	{"system-informational.jsonl", []string{"system/informational"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString", rs[0].ContentString(), "Auto-update failed: permission denied writing /usr/local/lib/node_modules")
		eq(t, "Level", rs[0].Level, "warning")
	}},
	{"system-bridge_status.jsonl", []string{"system/bridge_status"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString has URL", strings.Contains(rs[0].ContentString(), "https://claude.ai/code/session_01V1ZQG948YQbhEq2nusnbMc"), true)
		eq(t, "url", jsonAt(t, rs[0].Raw, "url"), any("https://claude.ai/code/session_01V1ZQG948YQbhEq2nusnbMc"))
	}},
	{"system-no-subtype-1.0.jsonl", []string{"system"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "Subtype", r.Subtype, SubtypeNone)
		eq(t, "ContentString (ANSI kept)", r.ContentString(), "\x1b[1mPostToolUse:Edit\x1b[22m [gofmt -w .] completed successfully")
		eq(t, "Level", r.Level, "info")
		eq(t, "Version", r.Version, "1.0.53")
		eq(t, "CWD", r.CWD, "/Users/ana/src/ledger")
		eq(t, "ToolUseID", r.ToolUseID, "toolu_01LuSGktonFqgRF139dd9G2W")
		eq(t, "Time", r.Time, time.Date(2025, 7, 16, 9, 52, 28, 707e6, time.UTC))
	}},
	{"system-unknown-subtype.jsonl", []string{"system/ledger_sync_tick"}, false, func(t *testing.T, rs []Record) {
		eq(t, "UUID", rs[0].UUID, "f5c2d3e4-f5a6-4b7c-8d8e-0f1a2b3c4d5e")
		eq(t, "ContentString", rs[0].ContentString(), "Running scheduled task: nightly export")
	}},

	// attachment
	{"attachment-queued_command.jsonl", []string{"attachment/queued_command", "attachment/queued_command"}, true, func(t *testing.T, rs []Record) {
		eq(t, "PromptText (string)", att(t, rs[0]).PromptText(), "also make --since accept a date like 2026-01-31")
		eq(t, "commandMode", jsonAt(t, att(t, rs[0]).Extra, "commandMode"), any("prompt"))
		eq(t, "origin.kind", jsonAt(t, att(t, rs[0]).Extra, "origin", "kind"), any("human"))
		eq(t, "Time", rs[0].Time, time.Date(2026, 2, 10, 9, 16, 25, 101e6, time.UTC))
		eq(t, "PromptText (blocks)", att(t, rs[1]).PromptText(), "and this is the error I get\n\nwhen I pass --since 2d")
		eq(t, "ParentUUID", rs[1].ParentUUID, rs[0].UUID)
	}},
	{"attachment-hook_success.jsonl", []string{"attachment/hook_success"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "HookName", a.HookName, "UserPromptSubmit")
		eq(t, "content", jsonAt(t, a.Content), any(""))
		eq(t, "stdout", jsonAt(t, a.Extra, "stdout"), any("prompt registered\n"))
		eq(t, "exitCode", jsonAt(t, a.Extra, "exitCode"), any(0.0))
		eq(t, "PromptText", a.PromptText(), "")
		eq(t, "UUID", rs[0].UUID, "3c4d5e6f-7a8b-4c9d-9e0f-1a2b3c4d5e6f")
		eq(t, "ParentUUID", rs[0].ParentUUID, "9f3a1c2e-7b44-4d1e-8a0b-5e6c3d2f1a90")
	}},
	{"attachment-hook_system_message.jsonl", []string{"attachment/hook_system_message"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "HookName", a.HookName, "Stop")
		eq(t, "content", jsonAt(t, a.Content), any("Stop hook feedback:\nRun gofmt before finishing"))
		eq(t, "level", jsonAt(t, a.Extra, "level"), any("warning"))
	}},
	{"attachment-hook_additional_context.jsonl", []string{"attachment/hook_additional_context"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "HookName", a.HookName, "UserPromptSubmit")
		eq(t, "content[1]", jsonAt(t, a.Content, "1"), any("open issues assigned to you: 3"))
	}},
	{"attachment-hook_blocking_error.jsonl", []string{"attachment/hook_blocking_error"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "HookName", a.HookName, "PostToolUse:Edit")
		eq(t, "blockingError.command", jsonAt(t, a.Extra, "blockingError", "command"), any("go vet ./cmd/..."))
	}},
	{"attachment-hook_non_blocking_error.jsonl", []string{"attachment/hook_non_blocking_error"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "HookName", a.HookName, "Stop")
		eq(t, "exitCode", jsonAt(t, a.Extra, "exitCode"), any(1.0))
		eq(t, "command", jsonAt(t, a.Extra, "command"), any(`notify-send "Claude is done"`))
	}},
	{"attachment-task_reminder.jsonl", []string{"attachment/task_reminder"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "content[0].subject", jsonAt(t, a.Content, "0", "subject"), any("Add --since flag"))
		eq(t, "content[1].status", jsonAt(t, a.Content, "1", "status"), any("pending"))
		eq(t, "itemCount", jsonAt(t, a.Extra, "itemCount"), any(2.0))
	}},
	{"attachment-total_tokens_reminder.jsonl", []string{"attachment/total_tokens_reminder"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "used", jsonAt(t, a.Extra, "used"), any(154210.0))
		eq(t, "total", jsonAt(t, a.Extra, "total"), any(200000.0))
	}},
	{"attachment-skill_listing.jsonl", []string{"attachment/skill_listing"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		s, _ := jsonAt(t, a.Content).(string)
		eq(t, "content prefix", strings.HasPrefix(s, "- simplify: Review changed code"), true)
		eq(t, "skillCount", jsonAt(t, a.Extra, "skillCount"), any(2.0))
		eq(t, "isInitial", jsonAt(t, a.Extra, "isInitial"), any(true))
	}},
	{"attachment-deferred_tools_delta.jsonl", []string{"attachment/deferred_tools_delta"}, true, func(t *testing.T, rs []Record) {
		eq(t, "addedNames[2]", jsonAt(t, att(t, rs[0]).Extra, "addedNames", "2"), any("NotebookEdit"))
	}},
	{"attachment-agent_listing_delta.jsonl", []string{"attachment/agent_listing_delta"}, true, func(t *testing.T, rs []Record) {
		eq(t, "addedTypes[0]", jsonAt(t, att(t, rs[0]).Extra, "addedTypes", "0"), any("Explore"))
	}},
	{"attachment-mcp_instructions_delta.jsonl", []string{"attachment/mcp_instructions_delta"}, true, func(t *testing.T, rs []Record) {
		eq(t, "addedNames[0]", jsonAt(t, att(t, rs[0]).Extra, "addedNames", "0"), any("linear-server"))
	}},
	{"attachment-command_permissions.jsonl", []string{"attachment/command_permissions"}, true, func(t *testing.T, rs []Record) {
		eq(t, "allowedTools[0]", jsonAt(t, att(t, rs[0]).Extra, "allowedTools", "0"), any("Bash(go test:*)"))
	}},
	{"attachment-read_truncation_notice.jsonl", []string{"attachment/read_truncation_notice"}, true, func(t *testing.T, rs []Record) {
		a := att(t, rs[0])
		eq(t, "filePath", jsonAt(t, a.Extra, "filePath"), any("/home/ana/src/ledger/testdata/big.csv"))
		eq(t, "totalLines", jsonAt(t, a.Extra, "totalLines"), any(48211.0))
	}},
	{"attachment-unknown-type.jsonl", []string{"attachment/ledger_hint"}, false, func(t *testing.T, rs []Record) {
		eq(t, "Type", rs[0].Type, TypeAttachment)
		eq(t, "UUID", rs[0].UUID, "6d7e8f9a-0b1c-4d2e-8f3a-4b5c6d7e8f9a")
		eq(t, "newDate", jsonAt(t, att(t, rs[0]).Extra, "newDate"), any("2026-02-11"))
	}},

	// bookkeeping and titles
	{"summary.jsonl", []string{"summary", "summary"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Summary", rs[0].Summary, "Ledger export: add --since flag")
		eq(t, "LeafUUID", rs[0].LeafUUID, "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b")
		eq(t, "Summary 2", rs[1].Summary, "Fix CSV totals column alignment")
		eq(t, "UUID", rs[0].UUID, "")
		eq(t, "Time", rs[0].Time.IsZero(), true)
	}},
	{"file-history-snapshot.jsonl", []string{"file-history-snapshot", "file-history-snapshot"}, true, func(t *testing.T, rs []Record) {
		eq(t, "MessageID", rs[0].MessageID, "9f3a1c2e-7b44-4d1e-8a0b-5e6c3d2f1a90")
		eq(t, "IsSnapshotUpdate", rs[0].IsSnapshotUpdate, false)
		eq(t, "MessageID 2", rs[1].MessageID, "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b")
		eq(t, "IsSnapshotUpdate 2", rs[1].IsSnapshotUpdate, true)
		eq(t, "backup version", jsonAt(t, rs[1].Raw, "snapshot", "trackedFileBackups", "cmd/export.go", "version"), any(1.0))
	}},
	{"file-history-delta.jsonl", []string{"file-history-delta"}, true, func(t *testing.T, rs []Record) {
		eq(t, "MessageID", rs[0].MessageID, "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b")
		eq(t, "Time", rs[0].Time, time.Date(2026, 2, 10, 9, 20, 12, 4e6, time.UTC))
		eq(t, "trackingPath", jsonAt(t, rs[0].Raw, "trackingPath"), any("cmd/export.go"))
	}},
	{"queue-operation.jsonl", []string{"queue-operation", "queue-operation", "queue-operation", "queue-operation"}, true, func(t *testing.T, rs []Record) {
		var ops []string
		for _, r := range rs {
			ops = append(ops, r.Operation)
			eq(t, "SessionID", r.SessionID, sessionID)
		}
		eq(t, "operations", fmt.Sprint(ops), "[enqueue dequeue remove popAll]")
		eq(t, "enqueue content", rs[0].ContentString(), "also make --since accept a date like 2026-01-31")
		eq(t, "dequeue content", rs[1].ContentString(), "")
		eq(t, "popAll content", rs[3].ContentString(), "run the linter too")
		eq(t, "Time", rs[0].Time, time.Date(2026, 2, 10, 9, 16, 24, 343e6, time.UTC))
	}},
	{"permission-mode.jsonl", []string{"permission-mode"}, true, func(t *testing.T, rs []Record) {
		eq(t, "PermissionMode", rs[0].PermissionMode, "acceptEdits")
		eq(t, "SessionID", rs[0].SessionID, sessionID)
	}},
	{"last-prompt.jsonl", []string{"last-prompt"}, true, func(t *testing.T, rs []Record) {
		eq(t, "LastPrompt", rs[0].LastPrompt, "Add a --since flag to the export command so I can limit it to recent entries")
	}},
	{"mode.jsonl", []string{"mode"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Mode", rs[0].Mode, "normal")
	}},
	{"pr-link.jsonl", []string{"pr-link"}, true, func(t *testing.T, rs []Record) {
		eq(t, "PRNumber", rs[0].PRNumber, 133)
		eq(t, "PRURL", rs[0].PRURL, "https://github.com/ana/ledger/pull/133")
		eq(t, "PRRepository", rs[0].PRRepository, "ana/ledger")
		eq(t, "Time", rs[0].Time, time.Date(2026, 2, 10, 12, 23, 9, 239e6, time.UTC))
	}},
	{"atis-latch.jsonl", []string{"atis-latch"}, true, func(t *testing.T, rs []Record) {
		eq(t, "SessionID", rs[0].SessionID, sessionID)
		eq(t, "atis", jsonAt(t, rs[0].Raw, "atis"), any(""))
	}},
	{"custom-title.jsonl", []string{"custom-title"}, true, func(t *testing.T, rs []Record) {
		eq(t, "CustomTitle", rs[0].CustomTitle, "export --since")
	}},
	{"ai-title.jsonl", []string{"ai-title"}, true, func(t *testing.T, rs []Record) {
		eq(t, "AITitle", rs[0].AITitle, "Add --since flag to ledger export")
	}},
	{"agent-name.jsonl", []string{"agent-name"}, true, func(t *testing.T, rs []Record) {
		eq(t, "AgentName", rs[0].AgentName, "export-since")
	}},
	{"agent-setting.jsonl", []string{"agent-setting"}, true, func(t *testing.T, rs []Record) {
		eq(t, "SessionID", rs[0].SessionID, "e8b4a11e-5c3d-4f2a-9b1c-0d9e8f7a6b5c")
		eq(t, "agentSetting", jsonAt(t, rs[0].Raw, "agentSetting"), any("Explore"))
	}},
	{"bridge-session.jsonl", []string{"bridge-session"}, true, func(t *testing.T, rs []Record) {
		eq(t, "SessionID", rs[0].SessionID, sessionID)
		eq(t, "bridgeSessionId", jsonAt(t, rs[0].Raw, "bridgeSessionId"), any("cse_01V1ZQG948YQbhEq2nusnbMc"))
	}},
	{"saved_hook_context.jsonl", []string{"saved_hook_context"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "UUID", r.UUID, "7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b")
		eq(t, "ToolUseID", r.ToolUseID, "SessionStart")
		eq(t, "content[1]", jsonAt(t, r.Content, "1"), any("Open TODOs: 2"))
		eq(t, "Time", r.Time, time.Date(2026, 2, 10, 9, 13, 55, 410e6, time.UTC))
	}},
	{"cost-state.jsonl", []string{"cost-state"}, true, func(t *testing.T, rs []Record) {
		eq(t, "totalCostUSD", jsonAt(t, rs[0].Raw, "totalCostUSD"), any(1.8421))
	}},
	{"continued-in.jsonl", []string{"continued-in"}, true, func(t *testing.T, rs []Record) {
		eq(t, "continuedInSessionId", jsonAt(t, rs[0].Raw, "continuedInSessionId"), any("9c2d4e6f-1a3b-4c5d-8e7f-0a1b2c3d4e5f"))
	}},
	{"worktree-state.jsonl", []string{"worktree-state"}, true, func(t *testing.T, rs []Record) {
		eq(t, "worktreeSession.branch", jsonAt(t, rs[0].Raw, "worktreeSession", "branch"), any("ana/export-since"))
	}},
	{"agent-color.jsonl", []string{"agent-color"}, true, func(t *testing.T, rs []Record) {
		eq(t, "agentColor", jsonAt(t, rs[0].Raw, "agentColor"), any("green"))
	}},
	{"frame-link.jsonl", []string{"frame-link"}, true, func(t *testing.T, rs []Record) {
		eq(t, "sessionId", jsonAt(t, rs[0].Raw, "sessionId"), any("5b1e2c7a-3f4d-4e8a-9c21-7d0f6a8b9e13"))
	}},
	{"relocated.jsonl", []string{"relocated"}, true, func(t *testing.T, rs []Record) {
		eq(t, "sessionId", jsonAt(t, rs[0].Raw, "sessionId"), any("5b1e2c7a-3f4d-4e8a-9c21-7d0f6a8b9e13"))
	}},
	{"fork-context-ref.jsonl", []string{"fork-context-ref"}, true, func(t *testing.T, rs []Record) {
		eq(t, "forkedFromSessionId", jsonAt(t, rs[0].Raw, "forkedFromSessionId"), any("1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"))
	}},
	// Kinds newer than 2.1.237 (Claude Code's own table of record types).
	{"tag.jsonl", []string{"tag"}, true, func(t *testing.T, rs []Record) {
		eq(t, "tag", jsonAt(t, rs[0].Raw, "tag"), any("release"))
	}},
	{"ended-by-model.jsonl", []string{"ended-by-model"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Time", rs[0].Time.IsZero(), false)
	}},
	{"isolation-latch.jsonl", []string{"isolation-latch"}, true, func(t *testing.T, rs []Record) {
		eq(t, "side", jsonAt(t, rs[0].Raw, "side"), any("worktree"))
	}},
	{"attribution-snapshot.jsonl", []string{"attribution-snapshot"}, true, func(t *testing.T, rs []Record) {
		eq(t, "SessionID", rs[0].SessionID, sessionID)
	}},
	{"observer-ref.jsonl", []string{"observer-ref"}, true, func(t *testing.T, rs []Record) {
		eq(t, "SessionID", rs[0].SessionID, sessionID)
	}},
	{"marble-origami-commit.jsonl", []string{"marble-origami-commit"}, true, func(t *testing.T, rs []Record) {
		eq(t, "summary", jsonAt(t, rs[0].Raw, "summary"), any("Read the ledger schema and its tests."))
	}},
	{"marble-origami-snapshot.jsonl", []string{"marble-origami-snapshot"}, true, func(t *testing.T, rs []Record) {
		eq(t, "armed", jsonAt(t, rs[0].Raw, "armed"), any(true))
	}},
	{"marble-origami-reset.jsonl", []string{"marble-origami-reset"}, true, func(t *testing.T, rs []Record) {
		eq(t, "reason", jsonAt(t, rs[0].Raw, "reason"), any("rewind"))
	}},
	{"history-suppression.jsonl", []string{"history-suppression"}, true, func(t *testing.T, rs []Record) {
		eq(t, "cause", jsonAt(t, rs[0].Raw, "cause"), any("account-switch"))
	}},
	{"memory-mode.jsonl", []string{"memory-mode"}, true, func(t *testing.T, rs []Record) {
		eq(t, "mode", jsonAt(t, rs[0].Raw, "mode"), any("auto"))
	}},
	{"attachment-companion_intro.jsonl", []string{"attachment/companion_intro"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "companion_intro")
	}},
	{"dev-mods.jsonl", []string{"dev-mods"}, true, func(t *testing.T, rs []Record) {
		eq(t, "sessionId", jsonAt(t, rs[0].Raw, "sessionId"), any("5b1e2c7a-3f4d-4e8a-9c21-7d0f6a8b9e13"))
	}},
	{"started.jsonl", []string{"started"}, true, func(t *testing.T, rs []Record) {
		eq(t, "sessionId", jsonAt(t, rs[0].Raw, "sessionId"), any("5b1e2c7a-3f4d-4e8a-9c21-7d0f6a8b9e13"))
	}},
	{"result.jsonl", []string{"result"}, true, func(t *testing.T, rs []Record) {
		eq(t, "subtype", jsonAt(t, rs[0].Raw, "subtype"), any("success"))
	}},
	{"task-summary.jsonl", []string{"task-summary"}, true, func(t *testing.T, rs []Record) {
		eq(t, "summary", jsonAt(t, rs[0].Raw, "summary"), any("Add --since to ledger export"))
	}},
	{"content-replacement.jsonl", []string{"content-replacement"}, true, func(t *testing.T, rs []Record) {
		eq(t, "sessionId", jsonAt(t, rs[0].Raw, "sessionId"), any("5b1e2c7a-3f4d-4e8a-9c21-7d0f6a8b9e13"))
	}},
	{"artifact-ledger.jsonl", []string{"artifact-ledger"}, true, func(t *testing.T, rs []Record) {
		eq(t, "artifactId", jsonAt(t, rs[0].Raw, "artifactId"), any("art_01"))
	}},
	{"attachment-structured_output.jsonl", []string{"attachment/structured_output"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "structured_output")
	}},
	{"attachment-auto_mode.jsonl", []string{"attachment/auto_mode"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "auto_mode")
	}},
	{"attachment-edited_text_file.jsonl", []string{"attachment/edited_text_file"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "edited_text_file")
	}},
	{"attachment-nested_memory.jsonl", []string{"attachment/nested_memory"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "nested_memory")
	}},
	{"attachment-file.jsonl", []string{"attachment/file"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "file")
	}},
	{"attachment-date_change.jsonl", []string{"attachment/date_change"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "date_change")
	}},
	{"attachment-plan_mode.jsonl", []string{"attachment/plan_mode"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "plan_mode")
	}},
	{"attachment-plan_mode_exit.jsonl", []string{"attachment/plan_mode_exit"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "plan_mode_exit")
	}},
	{"attachment-compact_file_reference.jsonl", []string{"attachment/compact_file_reference"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "compact_file_reference")
	}},
	{"attachment-selected_lines_in_ide.jsonl", []string{"attachment/selected_lines_in_ide"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "selected_lines_in_ide")
	}},
	{"attachment-invoked_skills.jsonl", []string{"attachment/invoked_skills"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "invoked_skills")
	}},
	{"attachment-ultra_effort_enter.jsonl", []string{"attachment/ultra_effort_enter"}, true, func(t *testing.T, rs []Record) {
		eq(t, "Attachment.Type", att(t, rs[0]).Type, "ultra_effort_enter")
	}},
	{"system-agents_killed.jsonl", []string{"system/agents_killed"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString", rs[0].ContentString(), "2 background agents stopped")
	}},
	{"system-model_refusal_fallback.jsonl", []string{"system/model_refusal_fallback"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString", rs[0].ContentString(), "claude-opus-5 declined; retried with claude-sonnet-5-5")
	}},
	{"system-model_consent_fallback.jsonl", []string{"system/model_consent_fallback"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString", rs[0].ContentString(), "Switched to claude-sonnet-5-5")
	}},
	{"system-scheduled_task_fire.jsonl", []string{"system/scheduled_task_fire"}, true, func(t *testing.T, rs []Record) {
		eq(t, "ContentString", rs[0].ContentString(), "Nightly export check")
	}},
	{"assistant-effort-attribution.jsonl", []string{"assistant"}, true, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "Effort", r.Effort, "high")
		eq(t, "AttributionAgent", r.AttributionAgent, "release-bot")
		eq(t, "AttributionSkill", r.AttributionSkill, "release-notes")
		eq(t, "AttributionMCPServer", r.AttributionMCPServer, "github")
		eq(t, "AttributionMCPTool", r.AttributionMCPTool, "create_pr")
	}},
	{"user-prompt-source.jsonl", []string{"user", "user", "user", "user"}, true, func(t *testing.T, rs []Record) {
		for i, want := range []string{"typed", "queued", "system", "sdk"} {
			eq(t, "PromptSource", rs[i].PromptSource, want)
		}
	}},
	// worktree-state became known in 2.1.2xx; a made-up type stands for
	// the kinds not known yet.
	{"unknown-type.jsonl", []string{"ledger-checkpoint"}, false, func(t *testing.T, rs []Record) {
		r := rs[0]
		eq(t, "UUID", r.UUID, "8f9a0b1c-2d3e-4f4a-8b5c-6d7e8f9a0b1c")
		eq(t, "SessionID", r.SessionID, sessionID)
		eq(t, "Time", r.Time, time.Date(2026, 2, 10, 12, 50, 0, 0, time.UTC))
		eq(t, "worktreePath (in Raw)", jsonAt(t, r.Raw, "worktreePath"), any("/home/ana/src/ledger/.claude/worktrees/export-since"))
	}},
}

func TestDecodeFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range fixtureTests {
		t.Run(strings.TrimSuffix(tc.file, ".jsonl"), func(t *testing.T) {
			t.Parallel()
			rs := decodeFixture(t, tc.file)
			var kinds []string
			for i, r := range rs {
				kinds = append(kinds, r.KindLabel())
				if r.Known() != tc.known {
					t.Errorf("record %d (%s): Known() = %v, want %v", i, r.KindLabel(), r.Known(), tc.known)
				}
			}
			if !slices.Equal(kinds, tc.kinds) {
				t.Fatalf("kinds = %q, want %q", kinds, tc.kinds)
			}
			tc.check(t, rs)
		})
	}
}

// TestFixtureTableComplete keeps testdata/records and fixtureTests in step: a
// fixture nobody asserts on, or a row without its file, fails.
func TestFixtureTableComplete(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "records", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	onDisk := map[string]bool{}
	for _, f := range files {
		onDisk[filepath.Base(f)] = true
	}
	inTable := map[string]bool{}
	for _, tc := range fixtureTests {
		if inTable[tc.file] {
			t.Errorf("%s: two rows in fixtureTests", tc.file)
		}
		inTable[tc.file] = true
		if !onDisk[tc.file] {
			t.Errorf("%s: in fixtureTests but not in testdata/records", tc.file)
		}
	}
	for f := range onDisk {
		if !inTable[f] {
			t.Errorf("%s: in testdata/records but not in fixtureTests", f)
		}
	}
}

// TestFixturesCoverEveryKind checks that the fixtures hold at least one
// record of every type, system subtype, progress type, attachment type,
// content block type and queue operation this package knows, and an unknown
// one of each family.
func TestFixturesCoverEveryKind(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	var walk func(c Content)
	walk = func(c Content) {
		for _, b := range c.Blocks {
			seen["block:"+b.Type] = true
			walk(b.Content)
		}
	}
	for _, tc := range fixtureTests {
		for _, r := range decodeFixture(t, tc.file) {
			k := "known"
			if !r.Known() {
				k = "unknown"
			}
			seen[k+" type:"+r.Type] = true
			switch r.Type {
			case TypeSystem:
				seen[k+" subtype:"+r.Subtype] = true
			case TypeProgress:
				seen[k+" progress:"+data(t, r).Type] = true
			case TypeAttachment:
				seen[k+" attachment:"+att(t, r).Type] = true
			case TypeQueueOperation:
				seen["operation:"+r.Operation] = true
			}
			if r.Message != nil {
				walk(r.Message.Content)
			}
		}
	}
	var want []string
	for k := range knownTypes {
		want = append(want, "known type:"+k)
	}
	for k := range knownSubtypes {
		want = append(want, "known subtype:"+k)
	}
	for k := range knownProgress {
		want = append(want, "known progress:"+k)
	}
	for k := range knownAttachments {
		want = append(want, "known attachment:"+k)
	}
	for k := range knownBlocks {
		want = append(want, "block:"+k)
	}
	for _, op := range []string{"enqueue", "dequeue", "remove", "popAll"} {
		want = append(want, "operation:"+op)
	}
	slices.Sort(want)
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no fixture has a record of %s", w)
		}
	}
	for _, family := range []string{"type:", "subtype:", "progress:", "attachment:"} {
		found := false
		for k := range seen {
			if strings.HasPrefix(k, "unknown "+family) {
				found = true
			}
		}
		if !found {
			t.Errorf("no fixture has an unknown %s", strings.TrimSuffix(family, ":"))
		}
	}
}

// Sample lines for the damage tests.
const (
	lineU1 = `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-02-10T09:14:03.512Z","message":{"role":"user","content":"hello"}}`
	lineA1 = `{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-02-10T09:14:05.000Z","message":{"id":"msg_01","role":"assistant","model":"claude-opus-4-5-20251101","content":[{"type":"text","text":"Hi! What should we build?"}]}}`
	lineS1 = `{"type":"summary","summary":"Greeting","leafUuid":"a1"}`
)

// anyValue in a wantRec field skips that comparison.
const anyValue = "\x00any"

type wantRec struct {
	line  int
	typ   string
	uuid  string
	known bool
}

type wantProb struct {
	line   int
	reason string // a substring of Reason; "" accepts any
	// recovered lists "type:uuid" of each Recovered record; nil skips the check.
	recovered []string
}

var damageTests = []struct {
	name     string
	in       string
	records  []wantRec
	problems []wantProb
	bug      string // non-empty: a known bug, the subtest is skipped
}{
	{
		name:     "last line cut off",
		in:       lineU1 + "\n" + lineA1[:60],
		records:  []wantRec{{1, "user", "u1", true}},
		problems: []wantProb{{2, "truncated", []string{}}},
	},
	{
		name:     "line cut mid-string, more lines follow",
		in:       lineA1[:150] + "\n" + lineU1 + "\n",
		records:  []wantRec{{2, "user", "u1", true}},
		problems: []wantProb{{1, "cut off", []string{}}},
	},
	{
		name:     "line cut after a key",
		in:       `{"type":"user","uu` + "\n",
		problems: []wantProb{{1, "truncated", nil}},
	},
	{
		name: "two objects on one line",
		in:   lineU1 + lineA1 + "\n" + lineS1 + "\n",
		records: []wantRec{
			{2, "summary", "", true},
		},
		problems: []wantProb{{1, "2 JSON values on one line", []string{"user:u1", "assistant:a1"}}},
	},
	{
		name:     "two objects separated by a space",
		in:       lineS1 + " " + lineU1,
		problems: []wantProb{{1, "2 JSON values", []string{"summary:", "user:u1"}}},
	},
	{
		name:     "three objects on one line",
		in:       lineU1 + lineA1 + lineS1 + "\n",
		problems: []wantProb{{1, "3 JSON values", []string{"user:u1", "assistant:a1", "summary:"}}},
	},
	{
		name:     "an object then a cut-off object",
		in:       lineU1 + lineA1[:70] + "\n",
		problems: []wantProb{{1, "unreadable", []string{"user:u1"}}},
	},
	{
		name:     "comment line",
		in:       lineU1 + "\n// resumed on the laptop\n" + lineA1 + "\n",
		records:  []wantRec{{1, "user", "u1", true}, {3, "assistant", "a1", true}},
		problems: []wantProb{{2, "comment", []string{}}},
	},
	{
		name:     "indented comment after blank lines",
		in:       "\n\n   // fixture: images in user messages\n" + lineU1,
		records:  []wantRec{{4, "user", "u1", true}},
		problems: []wantProb{{3, "comment", nil}},
	},
	{
		name: "non-object JSON values are unknown records",
		in:   "\"x\"\n42\n[1]\nnull\ntrue\n-1.5e3\n{}\n",
		records: []wantRec{
			{1, "", "", false}, {2, "", "", false}, {3, "", "", false}, {4, "", "", false},
			{5, "", "", false}, {6, "", "", false}, {7, "", "", false},
		},
	},
	{
		name: "wrongly typed known fields: unknown record, raw kept",
		in: `{"type":"user","isMeta":"yes","uuid":"u-meta","timestamp":"2026-02-10T09:14:03.512Z"}` + "\n" +
			`{"type":"assistant","uuid":"u-msg","message":"hello"}` + "\n" +
			`{"type":"user","uuid":"u-ts","timestamp":1707556443}` + "\n" +
			`{"type":"user","uuid":"u-block","message":{"role":"user","content":[{"type":"text","text":5}]}}` + "\n" +
			`{"type":"progress","uuid":"u-data","data":"bash_progress"}` + "\n" +
			`{"type":"system","subtype":"turn_duration","uuid":"u-dur","durationMs":"305s"}` + "\n" +
			`{"type":"user","uuid":"u-blocks","message":{"role":"user","content":["wow error"]}}` + "\n",
		records: []wantRec{
			{1, anyValue, anyValue, false}, {2, anyValue, anyValue, false}, {3, anyValue, anyValue, false},
			{4, anyValue, anyValue, false}, {5, anyValue, anyValue, false}, {6, anyValue, anyValue, false},
			{7, anyValue, anyValue, false},
		},
	},
	{
		name: "wrongly typed known fields keep uuid and a ?type",
		in: `{"type":"user","isMeta":"yes","uuid":"u-meta","timestamp":"2026-02-10T09:14:03.512Z"}` + "\n" +
			`{"type":"assistant","uuid":"u-msg","message":"hello"}` + "\n" +
			`{"type":"user","uuid":"u-block","message":{"role":"user","content":[{"type":"text","text":5}]}}` + "\n" +
			`{"type":"system","subtype":"turn_duration","uuid":"u-dur","durationMs":"305s"}` + "\n",
		records: []wantRec{
			{1, "?user", "u-meta", false}, {2, "?assistant", "u-msg", false},
			{3, "?user", "u-block", false}, {4, "?system", "u-dur", false},
		},
	},
	{
		name:    "invalid UTF-8 and lone surrogates are accepted",
		in:      "{\"type\":\"user\",\"uuid\":\"u-utf8\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \xff\xfe ok\"}}\n" + `{"type":"user","uuid":"u-sur","message":{"role":"user","content":"a\udc00b \ud800"}}` + "\n",
		records: []wantRec{{1, "user", "u-utf8", true}, {2, "user", "u-sur", true}},
	},
	{
		name:     "CRLF line endings",
		in:       lineU1 + "\r\n" + lineA1 + "\r\n" + `{"type":"user",` + "\r\n" + "// note\r\n",
		records:  []wantRec{{1, "user", "u1", true}, {2, "assistant", "a1", true}},
		problems: []wantProb{{3, "truncated", nil}, {4, "comment", nil}},
	},
	{
		name:    "blank and white-space lines are skipped but counted",
		in:      "\n \t \n" + lineU1 + "\n\n\r\n" + lineA1 + "\n   \n",
		records: []wantRec{{3, "user", "u1", true}, {6, "assistant", "a1", true}},
	},
	{
		name:     "problem line numbers count blank lines",
		in:       "\n\n" + lineU1 + "\n\n" + `{"type":"user",` + "\n\n// c\n\n\n" + lineS1,
		records:  []wantRec{{3, "user", "u1", true}, {10, "summary", "", true}},
		problems: []wantProb{{5, "truncated", nil}, {7, "comment", nil}},
	},
	{
		name: "only blank lines",
		in:   "\n\n \r\n\t\n",
	},
	{
		name: "empty input",
		in:   "",
	},
	{
		name:    "no trailing newline",
		in:      lineU1 + "\n" + lineA1,
		records: []wantRec{{1, "user", "u1", true}, {2, "assistant", "a1", true}},
	},
	{
		name:    "blanks around an object",
		in:      " \t" + lineU1 + "  \t\r\n",
		records: []wantRec{{1, "user", "u1", true}},
	},
	{
		name:     "binary garbage",
		in:       "\x00\x01\x02\n\xff\xfe\xfd\n" + lineU1 + "\n",
		records:  []wantRec{{3, "user", "u1", true}},
		problems: []wantProb{{1, "", nil}, {2, "", nil}},
	},
	{
		name:     "garbage after a value is a problem",
		in:       lineU1 + "xyz\n" + lineS1 + " // trailing note\n" + "42 abc\n",
		problems: []wantProb{{1, "unreadable", nil}, {2, "unreadable", nil}, {3, "unreadable", nil}},
	},
}

func TestDecodeDamage(t *testing.T) {
	t.Parallel()
	for _, tc := range damageTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.bug != "" {
				t.Skip("BUG: " + tc.bug)
			}
			const name = "damaged.jsonl"
			f, err := Decode(strings.NewReader(tc.in), name)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			checkFileInvariants(t, f, []byte(tc.in))
			if want := len(tc.records) + len(tc.problems); f.Lines != want {
				t.Errorf("Lines = %d, want %d", f.Lines, want)
			}
			if len(f.Records) != len(tc.records) {
				t.Errorf("got %d records, want %d: %s", len(f.Records), len(tc.records), describeRecords(f.Records))
			}
			for i, w := range tc.records {
				if i >= len(f.Records) {
					break
				}
				r := f.Records[i]
				if r.Line != w.line {
					t.Errorf("record %d: Line = %d, want %d", i, r.Line, w.line)
				}
				if w.typ != anyValue && r.Type != w.typ {
					t.Errorf("record %d: Type = %q, want %q", i, r.Type, w.typ)
				}
				if w.uuid != anyValue && r.UUID != w.uuid {
					t.Errorf("record %d: UUID = %q, want %q", i, r.UUID, w.uuid)
				}
				if r.Known() != w.known {
					t.Errorf("record %d: Known() = %v, want %v", i, r.Known(), w.known)
				}
				if w.typ == "" && r.KindLabel() != "(no type)" {
					t.Errorf("record %d: KindLabel() = %q, want (no type)", i, r.KindLabel())
				}
				if w.typ != anyValue && w.typ != "" && r.KindLabel() != w.typ {
					t.Errorf("record %d: KindLabel() = %q, want %q", i, r.KindLabel(), w.typ)
				}
			}
			if len(f.Problems) != len(tc.problems) {
				t.Errorf("got %d problems, want %d: %v", len(f.Problems), len(tc.problems), f.Problems)
			}
			for i, w := range tc.problems {
				if i >= len(f.Problems) {
					break
				}
				p := f.Problems[i]
				if p.Line != w.line {
					t.Errorf("problem %d: Line = %d, want %d (%s)", i, p.Line, w.line, p)
				}
				if !strings.Contains(p.Reason, w.reason) {
					t.Errorf("problem %d: Reason = %q, want it to contain %q", i, p.Reason, w.reason)
				}
				if w.recovered != nil {
					var got []string
					for _, r := range p.Recovered {
						got = append(got, r.Type+":"+r.UUID)
						if r.Line != p.Line {
							t.Errorf("problem %d: recovered record has Line %d, want %d", i, r.Line, p.Line)
						}
					}
					if !slices.Equal(got, w.recovered) {
						t.Errorf("problem %d: Recovered = %q, want %q (%s)", i, got, w.recovered, p.Reason)
					}
				}
			}
		})
	}
}

// TestDecodeText checks what replaces invalid text: invalid UTF-8 bytes and
// lone surrogate escapes become U+FFFD, valid pairs are joined.
func TestDecodeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, json, want string
	}{
		{"invalid UTF-8 bytes", "\"caf\xe9 ok\"", "caf\uFFFD ok"},
		{"lone high surrogate", `"\ud800"`, "\uFFFD"},
		{"lone low surrogate inside text", `"a\udc00b"`, "a\uFFFDb"},
		{"high surrogate at the end", `"x \ud83d"`, "x \uFFFD"},
		{"valid surrogate pair", `"\ud83d\ude00"`, "😀"},
		{"escaped NUL and ANSI", `"\u0000\u001b[1m"`, "\x00\x1b[1m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			line := `{"type":"user","uuid":"u","message":{"role":"user","content":` + tc.json + `}}`
			r, p := DecodeLine([]byte(line), "text.jsonl", 1)
			if p != nil {
				t.Fatalf("problem: %s", p)
			}
			got := msg(t, r).Content.Text()
			if got != tc.want {
				t.Errorf("text = %q, want %q", got, tc.want)
			}
			if strings.ContainsRune(tc.want, utf8.RuneError) && !utf8.ValidString(got) {
				t.Errorf("text %q is not valid UTF-8", got)
			}
			if !r.Known() {
				t.Errorf("Known() = false, want true")
			}
		})
	}
}

func TestDecodeLine(t *testing.T) {
	t.Parallel()
	r, p := DecodeLine([]byte(lineU1), "s.jsonl", 7)
	if p != nil {
		t.Fatalf("problem: %s", p)
	}
	eq(t, "Line", r.Line, 7)
	eq(t, "Raw", string(r.Raw), lineU1)
	eq(t, "Time", r.Time, time.Date(2026, 2, 10, 9, 14, 3, 512e6, time.UTC))
	eq(t, "Text", msg(t, r).Content.Text(), "hello")

	// Times in other zones are kept as the same instant, in UTC.
	r, p = DecodeLine([]byte(`{"type":"user","timestamp":"2025-07-03T17:50:07.874310+02:00"}`), "s.jsonl", 1)
	if p != nil {
		t.Fatalf("problem: %s", p)
	}
	eq(t, "Time", r.Time, time.Date(2025, 7, 3, 15, 50, 7, 874310e3, time.UTC))
	eq(t, "Time location", r.Time.Location(), time.UTC)

	// An unparseable timestamp leaves Time zero but keeps the string.
	r, p = DecodeLine([]byte(`{"type":"user","timestamp":"yesterday"}`), "s.jsonl", 1)
	if p != nil {
		t.Fatalf("problem: %s", p)
	}
	eq(t, "Time.IsZero", r.Time.IsZero(), true)
	eq(t, "Timestamp", r.Timestamp, "yesterday")

	_, p = DecodeLine([]byte(`{"type":"user",`), "s.jsonl", 9)
	if p == nil {
		t.Fatal("no problem for a cut-off line")
	}
	eq(t, "Problem.File", p.File, "s.jsonl")
	eq(t, "Problem.Line", p.Line, 9)
	eq(t, "Problem.Excerpt", p.Excerpt, `{"type":"user",`)
	eq(t, "Problem.String()", p.String(), "s.jsonl:9: "+p.Reason)
	eq(t, "Recovered", len(p.Recovered), 0)
}

// TestProblemExcerpt checks the excerpt of a long broken line: short, and
// valid UTF-8 even when the cut falls inside a character.
func TestProblemExcerpt(t *testing.T) {
	t.Parallel()
	line := `{"type":"user","message":{"content":"` + strings.Repeat("é", 200)
	_, p := DecodeLine([]byte(line), "x.jsonl", 1)
	if p == nil {
		t.Fatal("no problem for a cut-off line")
	}
	if p.Excerpt == "" || len(p.Excerpt) > 130 {
		t.Errorf("Excerpt has %d bytes, want 1 to 130", len(p.Excerpt))
	}
	if !utf8.ValidString(p.Excerpt) {
		t.Errorf("Excerpt %q is not valid UTF-8", p.Excerpt)
	}
	if !strings.HasPrefix(p.Excerpt, `{"type":"user","message":{"content":"éé`) {
		t.Errorf("Excerpt %q does not start the line", p.Excerpt)
	}
}

// TestDecodeDeepNesting: JSON nested beyond the decoder's depth limit is one
// problem or one record, never a crash.
func TestDecodeDeepNesting(t *testing.T) {
	t.Parallel()
	const depth = 200_000
	for _, in := range []string{
		strings.Repeat("[", depth) + strings.Repeat("]", depth),
		`{"type":"user","uuid":"deep","toolUseResult":` + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + "}",
		`{"type":"user","message":{"content":` + strings.Repeat("[", depth),
	} {
		f, err := Decode(strings.NewReader(in+"\n"+lineS1), "deep.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		checkFileInvariants(t, f, []byte(in+"\n"+lineS1))
		if f.Lines != 2 {
			t.Errorf("Lines = %d, want 2", f.Lines)
		}
	}
}

// TestDecodeLongLines decodes lines longer than the reader's buffer, between
// short lines, so line numbers must survive the long ones.
func TestDecodeLongLines(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("0123456789abcdef", 3<<20/16) // 3 MB
	long := `{"type":"user","uuid":"long","message":{"role":"user","content":"` + text + `"}}`
	cut := long[:len(long)-10]
	in := lineU1 + "\n" + long + "\n" + cut + "\n\n" + lineS1 + "\n" + long
	f, err := Decode(strings.NewReader(in), "long.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checkFileInvariants(t, f, []byte(in))
	var lines []int
	for _, r := range f.Records {
		lines = append(lines, r.Line)
	}
	eq(t, "record lines", fmt.Sprint(lines), "[1 2 5 6]")
	if len(f.Problems) != 1 || f.Problems[0].Line != 3 || !strings.Contains(f.Problems[0].Reason, "truncated") {
		t.Fatalf("problems = %v, want one truncated line 3", f.Problems)
	}
	if len(f.Records) == 4 {
		for _, i := range []int{1, 3} {
			if got := msg(t, f.Records[i]).Content.Text(); got != text {
				t.Errorf("record %d: text of %d bytes, want %d", i, len(got), len(text))
			}
		}
	}
}

// TestDecodeHugeLine decodes a 70 MB line (a user record holding a 70 MB
// string), above the 64 MB the format guide asks for.
func TestDecodeHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("70 MB line: skipped with -short")
	}
	const size = 70 << 20
	prefix := `{"type":"user","uuid":"huge","message":{"role":"user","content":"`
	suffix := `"}}` + "\n"
	in := io.MultiReader(
		strings.NewReader(lineU1+"\n"+prefix),
		io.LimitReader(repeatReader('x'), size),
		strings.NewReader(suffix+lineS1+"\n"),
	)
	f, err := Decode(in, "huge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 0 {
		t.Fatalf("problems: %v", f.Problems)
	}
	if len(f.Records) != 3 || f.Lines != 3 {
		t.Fatalf("%d records, Lines = %d, want 3 and 3", len(f.Records), f.Lines)
	}
	r := f.Records[1]
	eq(t, "UUID", r.UUID, "huge")
	eq(t, "Line", r.Line, 2)
	text := msg(t, r).Content.Text()
	eq(t, "len(text)", len(text), size)
	eq(t, "text is all x", strings.Count(text, "x"), size)
	eq(t, "len(Raw)", len(r.Raw), len(prefix)+size+len(suffix)-1)
	eq(t, "last record line", f.Records[2].Line, 3)
	eq(t, "Bytes", f.Bytes, int64(len(lineU1)+1+len(prefix)+size+len(suffix)+len(lineS1)+1))
}

// TestDecodeReaderChunking decodes the same bytes through readers that return
// them one byte, or half a buffer, at a time: the result must not change.
func TestDecodeReaderChunking(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	for _, tc := range fixtureTests {
		data, err := os.ReadFile(fixturePath(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		in.Write(data)
	}
	for _, tc := range damageTests {
		in.WriteString(tc.in)
		in.WriteString("\n")
	}
	want, err := Decode(bytes.NewReader(in.Bytes()), "all.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checkFileInvariants(t, want, in.Bytes())
	for name, r := range map[string]io.Reader{
		"OneByteReader": iotest.OneByteReader(bytes.NewReader(in.Bytes())),
		"HalfReader":    iotest.HalfReader(bytes.NewReader(in.Bytes())),
		"DataErrReader": iotest.DataErrReader(bytes.NewReader(in.Bytes())),
	} {
		got, err := Decode(r, "all.jsonl")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if g, w := summarize(got), summarize(want); g != w {
			t.Errorf("%s: decoded differently:\n got %s\nwant %s", name, g, w)
		}
	}
}

func TestDecodeReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	in := io.MultiReader(strings.NewReader(lineU1+"\n"+lineA1+"\n"), iotest.ErrReader(boom))
	f, err := Decode(in, "burning.jsonl")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	if !strings.Contains(err.Error(), "burning.jsonl") {
		t.Errorf("err = %q, want it to name the file", err)
	}
	if f == nil || len(f.Records) != 2 {
		t.Fatalf("want the 2 records read before the error, got %+v", f)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	path := fixturePath("queue-operation.jsonl")
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "Path", f.Path, path)
	eq(t, "Lines", f.Lines, 4)

	_, err = ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) error = %v, want fs.ErrNotExist", err)
	}
}

// decodeFixture reads testdata/records/name, requires it to decode without
// problems, and checks what holds for every record: line numbers, Raw is the
// line, Time is Timestamp parsed.
func decodeFixture(t *testing.T, name string) []Record {
	t.Helper()
	path := fixturePath(name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) > 0 {
		t.Fatalf("%s: problems: %v", name, f.Problems)
	}
	checkFileInvariants(t, f, data)
	eq(t, "Path", f.Path, path)
	for i, r := range f.Records {
		if r.Line != i+1 {
			t.Errorf("%s: record %d has Line %d, want %d", name, i, r.Line, i+1)
		}
		if r.Timestamp == "" {
			if !r.Time.IsZero() {
				t.Errorf("%s:%d: Time = %v without a timestamp", name, r.Line, r.Time)
			}
			continue
		}
		want, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			t.Fatalf("%s:%d: fixture timestamp %q: %v", name, r.Line, r.Timestamp, err)
		}
		if !r.Time.Equal(want) || r.Time.Location() != time.UTC {
			t.Errorf("%s:%d: Time = %v, want %v in UTC", name, r.Line, r.Time, want)
		}
	}
	return f.Records
}

// checkFileInvariants checks the contract of a decoded File against its
// input: one record or problem per non-empty line, in order, each record's
// Raw being its line.
func checkFileInvariants(t *testing.T, f *File, in []byte) {
	t.Helper()
	lines := bytes.Split(in, []byte("\n"))
	nonEmpty := 0
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			nonEmpty++
		}
	}
	if f.Lines != nonEmpty {
		t.Errorf("Lines = %d, want %d non-empty lines", f.Lines, nonEmpty)
	}
	if len(f.Records)+len(f.Problems) != f.Lines {
		t.Errorf("%d records + %d problems != %d lines", len(f.Records), len(f.Problems), f.Lines)
	}
	if f.Bytes != int64(len(in)) {
		t.Errorf("Bytes = %d, want %d", f.Bytes, len(in))
	}
	var at []int
	for _, r := range f.Records {
		at = append(at, r.Line)
		if r.Line < 1 || r.Line > len(lines) {
			t.Errorf("record Line %d out of 1..%d", r.Line, len(lines))
			continue
		}
		if want := bytes.TrimSpace(lines[r.Line-1]); !bytes.Equal(r.Raw, want) {
			t.Errorf("record at line %d: Raw is not the line (%d vs %d bytes)", r.Line, len(r.Raw), len(want))
		}
	}
	for _, p := range f.Problems {
		at = append(at, p.Line)
		if p.File != f.Path {
			t.Errorf("problem %s: File = %q, want %q", p, p.File, f.Path)
		}
		if p.Line < 1 || p.Line > len(lines) {
			t.Errorf("problem Line %d out of 1..%d", p.Line, len(lines))
			continue
		}
		if len(bytes.TrimSpace(lines[p.Line-1])) == 0 {
			t.Errorf("problem %s is on a blank line", p)
		}
		if p.Reason == "" || p.Excerpt == "" || !utf8.ValidString(p.Excerpt) {
			t.Errorf("problem %s: Reason %q, Excerpt %q: want both, valid UTF-8", p, p.Reason, p.Excerpt)
		}
	}
	slices.Sort(at)
	for i := 1; i < len(at); i++ {
		if at[i] == at[i-1] {
			t.Errorf("line %d has two results", at[i])
		}
	}
}

// summarize renders what Decode found, for comparing two decodes.
func summarize(f *File) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lines=%d bytes=%d", f.Lines, f.Bytes)
	for _, r := range f.Records {
		fmt.Fprintf(&b, " r%d:%s:%s:%d", r.Line, r.KindLabel(), r.UUID, len(r.Raw))
	}
	for _, p := range f.Problems {
		fmt.Fprintf(&b, " p%d:%s:%d", p.Line, p.Reason, len(p.Recovered))
	}
	return b.String()
}

func describeRecords(rs []Record) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("line %d %s %q known=%v", r.Line, r.KindLabel(), r.UUID, r.Known()))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

func fixturePath(name string) string { return filepath.Join("testdata", "records", name) }

type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func msg(t *testing.T, r Record) *Message {
	t.Helper()
	if r.Message == nil {
		t.Fatalf("line %d: Message is nil", r.Line)
	}
	return r.Message
}

func usage(t *testing.T, r Record) *Usage {
	t.Helper()
	if u := msg(t, r).Usage; u != nil {
		return u
	}
	t.Fatalf("line %d: Usage is nil", r.Line)
	return nil
}

func data(t *testing.T, r Record) *ProgressData {
	t.Helper()
	if r.Data == nil {
		t.Fatalf("line %d: Data is nil", r.Line)
	}
	return r.Data
}

func att(t *testing.T, r Record) *Attachment {
	t.Helper()
	if r.Attachment == nil {
		t.Fatalf("line %d: Attachment is nil", r.Line)
	}
	return r.Attachment
}

// block returns block i of the record's message, which must have type typ.
func block(t *testing.T, r Record, i int, typ string) Block {
	t.Helper()
	bs := msg(t, r).Content.Blocks
	if i >= len(bs) {
		t.Fatalf("line %d: %d blocks, want block %d", r.Line, len(bs), i)
	}
	if bs[i].Type != typ {
		t.Fatalf("line %d: block %d has type %q, want %q", r.Line, i, bs[i].Type, typ)
	}
	return bs[i]
}

func source(t *testing.T, b Block) *Source {
	t.Helper()
	if b.Source == nil {
		t.Fatalf("%s block: Source is nil", b.Type)
	}
	return b.Source
}

// jsonAt decodes v and returns the value at path: object member names, or
// array indexes in decimal. Numbers come back as float64.
func jsonAt(t *testing.T, v jsontext.Value, path ...string) any {
	t.Helper()
	var x any
	if err := Unmarshal(v, &x); err != nil {
		t.Fatalf("decode %.200s: %v", v, err)
	}
	for _, p := range path {
		switch c := x.(type) {
		case map[string]any:
			m, ok := c[p]
			if !ok {
				t.Fatalf("no member %q in %.200s", p, v)
			}
			x = m
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				t.Fatalf("no element %q in %.200s", p, v)
			}
			x = c[i]
		default:
			t.Fatalf("%q: %.200s is not an object or array there", p, v)
		}
	}
	return x
}
