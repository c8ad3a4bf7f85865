package render_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestReader states, case by case, what a reader of the golden pages must
// find: the numbers, line numbers, states and links the transcript holds.
// The goldens freeze the whole markup; these checks say which parts of it
// matter, so a wrong golden is not recorded unnoticed. A case in knownBugs
// whose checks fail is skipped with the bug; one whose checks pass is
// reported, so the entry gets removed and the golden recorded.

// view is the conversation part of a case's page, parsed.
type view struct {
	html string     // the conversation's markup
	doc  *html.Node // parsed
	text string     // visible text, white space collapsed
	// prose is text without the raw JSON of records (event details,
	// unknown records), which holds the transcript's own escapes and tags.
	prose string
}

// check returns what is wrong with v, if anything.
type check func(v *view) []string

// has: the visible text holds each of want.
func has(want ...string) check {
	return func(v *view) (bad []string) {
		for _, w := range want {
			if !strings.Contains(v.text, w) {
				bad = append(bad, fmt.Sprintf("visible text lacks %q", w))
			}
		}
		return bad
	}
}

// hasNot: the visible text, raw JSON of records aside, holds none of these.
func hasNot(unwanted ...string) check {
	return func(v *view) (bad []string) {
		for _, w := range unwanted {
			if strings.Contains(v.prose, w) {
				bad = append(bad, fmt.Sprintf("visible text holds %q", w))
			}
		}
		return bad
	}
}

// inMarkup: the markup holds each of want.
func inMarkup(want ...string) check {
	return func(v *view) (bad []string) {
		for _, w := range want {
			if !strings.Contains(v.html, w) {
				bad = append(bad, fmt.Sprintf("markup lacks %q", w))
			}
		}
		return bad
	}
}

// noMarkup: the markup holds none of these.
func noMarkup(unwanted ...string) check {
	return func(v *view) (bad []string) {
		for _, w := range unwanted {
			if strings.Contains(v.html, w) {
				bad = append(bad, fmt.Sprintf("markup holds %q", w))
			}
		}
		return bad
	}
}

// count: n elements carry class.
func count(class string, n int) check {
	return func(v *view) []string {
		if got := len(find(v.doc, byClass(class))); got != n {
			return []string{fmt.Sprintf("%d elements of class %q, want %d", got, class, n)}
		}
		return nil
	}
}

// textIn: some element of class shows want (white space collapsed).
func textIn(class, want string) check {
	return func(v *view) []string {
		var seen []string
		for _, n := range find(v.doc, byClass(class)) {
			s := textOf(n)
			if strings.Contains(s, want) {
				return nil
			}
			seen = append(seen, s)
		}
		return []string{fmt.Sprintf("no .%s shows %q; they show %q", class, want, seen)}
	}
}

// lineNumbers: the code blocks' line numbers, in order, are exactly want
// (gutter or per-line numbers, whichever the highlighter writes).
func lineNumbers(want ...int) check {
	return func(v *view) []string {
		var got []int
		for _, n := range find(v.doc, func(n *html.Node) bool { return hasClass(n, "gutter") || hasClass(n, "ln") && n.Data == "span" }) {
			for _, f := range strings.Fields(rawTextOf(n)) {
				if k, err := strconv.Atoi(f); err == nil {
					got = append(got, k)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return []string{fmt.Sprintf("line numbers %v, want %v", got, want)}
		}
		return nil
	}
}

// diffRows: the diff rows of kind (add, del, ctx) carry these numbers: the
// old line number for del and ctx, the new one for add.
func diffRows(kind string, want ...int) check {
	return func(v *view) []string {
		var got []int
		for _, tr := range find(v.doc, func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, kind) }) {
			cells := find(tr, byClass("ln"))
			if len(cells) != 2 {
				return []string{fmt.Sprintf("diff row with %d number cells", len(cells))}
			}
			cell := cells[0]
			if kind == "add" {
				cell = cells[1]
			}
			k, err := strconv.Atoi(textOf(cell))
			if err != nil {
				return []string{fmt.Sprintf("%s row without its line number: %q", kind, textOf(tr))}
			}
			got = append(got, k)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return []string{fmt.Sprintf("%s rows at lines %v, want %v", kind, got, want)}
		}
		return nil
	}
}

// matches: the markup matches the regular expression.
func matches(expr string) check {
	re := regexp.MustCompile(expr)
	return func(v *view) []string {
		if !re.MatchString(v.html) {
			return []string{fmt.Sprintf("markup does not match %s", expr)}
		}
		return nil
	}
}

// closedDetails: every <details> whose summary starts with label is
// collapsed (no open attribute), and there is at least one.
func closedDetails(label string) check {
	return func(v *view) []string {
		n := 0
		for _, d := range find(v.doc, func(n *html.Node) bool { return n.Data == "details" }) {
			sums := find(d, func(n *html.Node) bool { return n.Data == "summary" })
			if len(sums) == 0 || !strings.HasPrefix(textOf(sums[0]), label) {
				continue
			}
			n++
			if _, open := attr(d, "open"); open {
				return []string{fmt.Sprintf("%q starts open", label)}
			}
		}
		if n == 0 {
			return []string{fmt.Sprintf("no collapsed block %q", label)}
		}
		return nil
	}
}

var readerChecks = map[string][]check{
	// Tools.
	"tool-bash": {
		textIn("tool-summary", "Run the test suite"),
		textIn("tool-summary", "git status --short …"),
		has("npm test -- --colors", "git log --oneline -3", "Tests 6 passed (6)"),
		inMarkup(`<span class="term-fg32">✓</span>`),
		textIn("term-err", "npm warn config production Use `--omit=dev` instead."),
		hasNot("\x1b", "[32m", "[39m"),
		count("status-ok", 2),
	},
	"tool-bash-interrupted": {
		count("status-interrupted", 1),
		inMarkup(`<span class="badge warn">interrupted</span>`),
		textIn("term-out", "VITE v5.4.2 ready in 312 ms"),
		textIn("kind-interruption", "Request interrupted by user for tool use"),
	},
	"tool-bash-interrupted-2x": {
		count("status-interrupted", 1),
		count("status-error", 0),
		inMarkup(`<span class="badge warn">interrupted</span>`),
	},
	"tool-bash-error": {
		count("status-error", 1),
		inMarkup(`<span class="badge error">error</span>`),
		textIn("tool-error", "12:7 error 'unused' is assigned a value but never used"),
	},
	"tool-read": {
		has("lines 40–44 of 120"),
		lineNumbers(40, 41, 42, 43, 44),
		has("return Math.round(sum * 1.2);"),
		hasNot("system-reminder", "→"),
	},
	"tool-read-image": {
		matches(`<img class="shot" src="data:image/png;base64,iVBORw0KGgo[^"]*"`),
		count("shot", 1),
	},
	"tool-read-legacy": {
		// The 1.x "12→code" text is read back into code with its real
		// line numbers, highlighted like any Read.
		has("lines 10–12", "export function formatPrice(cents: number): string {"),
		lineNumbers(10, 11, 12),
	},
	"tool-write-create": {
		textIn("badge", "new file"),
		lineNumbers(1, 2, 3, 4, 5),
		has("export const TAX_RATE = 1.2;"),
	},
	"tool-write-update": {
		textIn("badge", "updated"),
		textIn("added", "+3"), textIn("removed", "−1"),
		has("@@ -1,3 +1,5 @@"),
		diffRows("add", 1, 2, 4), diffRows("del", 2), diffRows("ctx", 1, 3),
	},
	"tool-edit": {
		has("@@ -18,7 +18,7 @@"),
		diffRows("ctx", 18, 19, 20, 22, 23, 24), diffRows("del", 21), diffRows("add", 21),
		inMarkup("<del>1.2</del>", "<ins>TAX_RATE</ins>"),
		textIn("added", "+1"), textIn("removed", "−1"),
	},
	"tool-edit-nopatch": {
		// No patch: the strings are diffed and placed where old_string
		// sits in originalFile (line 19).
		has("@@ -19,2 +19,2 @@", "all occurrences"),
		diffRows("del", 19), diffRows("add", 19), diffRows("ctx", 20),
	},
	"tool-multiedit": {
		has("@@ -1,6 +1,6 @@", "@@ -21,4 +21,4 @@"),
		diffRows("del", 3, 24), diffRows("add", 3, 24),
		textIn("added", "+2"), textIn("removed", "−2"),
	},
	"tool-glob": {
		has("100 files", "Results · 3 KB · 100 lines"),
		textIn("badge", "truncated"),
		count("files", 1),
		func(v *view) []string {
			if n := len(find(v.doc, func(n *html.Node) bool { return n.Data == "li" && n.Parent != nil && hasClass(n.Parent, "files") })); n != 100 {
				return []string{fmt.Sprintf("%d files listed, want 100", n)}
			}
			return nil
		},
		closedDetails("Results · 3 KB · 100 lines"),
	},
	"tool-grep": {
		has("glob=*.ts", "output_mode=content", "-n=true", "· 2 lines", "· 2 files"),
		textIn("term-out", "src/cart.ts:52: label.textContent = total.toFixed(2);"),
		textIn("files", "/home/dev/shop/src/price.ts"),
	},
	"tool-ls": {
		textIn("term-out", "- /home/dev/shop/src/ - cart.ts - price.ts"),
	},
	"tool-todo": {
		textIn("tool-summary", "1 of 3 done"),
		textIn("completed", "Add a TAX_RATE constant"),
		textIn("in_progress", "Use TAX_RATE in total()"),
		textIn("pending", "Update the cart tests"),
		count("todo", 3),
	},
	"tool-task": {
		has("completed · 45.2s · 18,234 tokens · 7 tool calls", "completed · 2m 05s · 40,210 tokens · 12 tool calls"),
		// Only the Explore agent has a transcript of its own.
		count("agent-link", 1),
		matches(`<a class="agent-link" href="[0-9a-f-]{36}/agent-a4f2c91\.html">`),
		textIn("task-result", "src/cart.ts:52"),
		closedDetails("Prompt"),
	},
	"tool-task-inline": {
		// 1.0.x: the sub-agent's records are in the session file; they get
		// a page of their own, not a place in the conversation.
		count("agent-link", 1),
		matches(`<a class="agent-link" href="[0-9a-f-]{36}/agent-sidechain-[0-9a-f]{8}\.html">`),
		textIn("task-result", "There are 3 TODOs: 2 in cart.ts, 1 in price.ts."),
		hasNot("Count the TODO comments under src/. Count"),
		count("tool", 1),
	},
	"tool-task-warmup": {
		// A warmup agent gets no page: it is folded into the session's.
		textIn("warmups", "1 warmup sub-agent"),
		closedDetails("1 warmup sub-agent"),
		count("turn", 1),
	},
	"tool-websearch": {
		has("javascript toFixed 1.005 rounding", "2 results", "1.005 is stored as 1.00499999…"),
		inMarkup(`<a href="https://stackoverflow.com/questions/10015027" rel="nofollow noopener noreferrer">Why does toFixed(2) round 1.005 down?</a>`),
	},
	"tool-webfetch": {
		inMarkup(`<a href="https://vitest.dev/api/expect.html"`),
		has("200 OK", "checks that |a - b| < 10^-digits / 2."),
		closedDetails("Result · 66 bytes · 1 line"),
	},
	"tool-plan": {
		inMarkup(`<p class="md-h md-h2">Plan: tax rate</p>`, `<input type="checkbox" checked disabled aria-label="done"> agreed with the team`),
		count("status-rejected", 1),
		textIn("badge", "rejected"),
		textIn("tool-error", "Keep the current rounding."),
	},
	"tool-notebook": {
		has("/home/dev/shop/analysis/sales.ipynb", "cell cell-3 · replace · code", "df.groupby('month')['total'].sum()"),
	},
	"turn-timing": {
		has("2 min 32 s · model 21 s · Bash 10 s · waiting 2 min 0 s", "10 min 0 s · idle 10 min 0 s", "Which fix?"),
	},
	"tool-ask": {
		has("Rounding Which rounding should prices use?", "Half up — Round half away from zero", "Answer: Half up", "Answer: USD, EUR", "JPY — No minor unit"),
	},
	"tool-mcp": {
		inMarkup(`<span class="mcp">github</span> get_issue`, `<span class="mcp">playwright</span> browser_take_screenshot`),
		has("#42 Prices show three decimals", "Took a screenshot of the current page."),
		matches(`<img class="shot" src="data:image/png;base64,`),
		count("shot", 1),
	},
	"tool-unknown": {
		has("FrobnicateWidget", `"widget": "cart"`, "Frobnicated cart at level 3."),
	},
	"tool-orphan-result": {
		textIn("tool-name", "(unknown tool)"),
		textIn("badge", "result without its call"),
		has("1→hello"),
	},
	"tool-unanswered": {
		count("status-pending", 1),
		textIn("badge", "no result"),
		has("Wait, don't deploy yet."),
	},
	"tool-result-with-text": {
		has("but also check the footer layout"),
		count("tool", 1),
		hasNot("(unknown tool)", "result without its call"),
	},

	// Events.
	"event-compact": {
		has("Conversation compacted (auto, 155,234 tokens before)"),
		closedDetails("Summary of the conversation before compaction · 264 characters"),
		has("Primary Request: use TAX_RATE in total()"),
	},
	"event-microcompact": {
		has("Older tool outputs cleared from context (12,345 tokens saved, 3 tool results)"),
	},
	"event-api-error": {
		has("retry 1 of 10 in 615ms", "retry 2 of 10 in 1.2s", "API error 529 overloaded_error Overloaded — retry 3 of 10 in 2.4s", "API Error: Request timed out"),
		count("api-error", 1),
		count("error", 4), // three events and the message's badge
	},
	"event-stop-hook": {
		has("Stop hooks: 1 ran", "Stop hooks: 2 ran, with errors, stopped the turn"),
		count("warn", 1),
	},
	"event-turn-duration": {
		has("Turn took 1m 23s", "Turn took 4.2s"),
	},
	"event-local-command": {
		has("Local command", "Set model to opus (claude-opus-4-1-20250805)"),
		hasNot("<command-name>", "<local-command-stdout>"),
	},
	"event-system-legacy": {
		has("System: PreToolUse:Bash [~/.claude/hooks/guard.sh] completed successfully"),
		inMarkup(`<span class="term-fg33">warning:</span>`),
		hasNot("[1m", "[22m", "\x1b"),
		count("warn", 1),
	},
	"event-attachments": {
		has("hook success: UserPromptSubmit", "Loaded 3 project notes"),
		textIn("queued", "You (queued while Claude worked) also make the footer sticky"),
		count("turn", 2),
	},
	"event-progress": {
		has("2 progress records (progress/hook_progress × 2)"),
	},
	"event-pr-link": {
		inMarkup(`<a href="https://github.com/dev/shop/pull/139"`),
		has("Pull request #139 · dev/shop"),
	},
	"event-unknown-record": {
		has("unknown record atlas-checkpoint", "unknown record telemetry-flush",
			"Records of unknown kinds, shown raw where they occurred: atlas-checkpoint × 1, telemetry-flush × 1."),
		closedDetails("unknown record"),
	},
	"event-model-switch": {
		has("Model switched from claude-sonnet-4-5-20250929 to claude-opus-4-1-20250805"),
		textIn("chip", "/model"),
	},
	"event-thinking": {
		closedDetails("Thinking · 40 characters"),
	},
	"event-thinking-unicode": {
		closedDetails("Thinking · 27 characters"),
	},
	"event-redacted-thinking": {
		has("Thinking redacted by the API", "Use integer cents everywhere."),
		hasNot("EmwKAhgBEgy"),
	},
	"event-interruption": {
		textIn("kind-interruption", "Request interrupted by user"),
		count("turn", 2),
	},
	"event-slash-command": {
		textIn("cmd", "/review"),
		textIn("args", "PR 42 --strict"),
		hasNot("<command-name>", "<command-message>"),
	},
	"event-bash-mode": {
		textIn("term-in", "$ git status"),
		textIn("term-out", "nothing to commit, working tree clean"),
		textIn("term-err", "fatal: The current branch main has no upstream branch."),
		hasNot("<bash-input>", "<bash-stdout>", "<bash-stderr>"),
		count("turn", 2),
	},
	"event-local-stdout": {
		textIn("cmd", "/cost"),
		textIn("term-out", "Total cost: $0.42 Total duration (API): 1m 3.2s"),
		hasNot("<local-command-stdout>"),
	},
	"event-local-caveat": {
		has("Caveat: The messages below were generated by the user while running local commands."),
		hasNot("<local-command-caveat>", "</local-command-caveat>"),
	},
	"event-meta-skill": {
		closedDetails("Skill instructions"),
		has("Base directory for this skill: /home/dev/.claude/skills/release"),
	},
	"event-task-notification": {
		// One line: what happened, its exit code and output file.
		has(`✓ background task Background command "npm run build" completed · exit 0 · output file b07h5t4ng.output`),
		hasNot("<task-id>", "<status>", "<summary>", "</task-notification>", "(exit code 0)"),
	},
	"event-prompt-context": {
		closedDetails("IDE: opened file"),
		matches(`<img class="shot" src="data:image/png;base64,[^"]+" alt="Pasted image \(image/png\)"`),
		closedDetails("System reminder added by Claude Code"),
		textIn("md", "Why does this total look wrong in the screenshot?"),
		hasNot("<ide_opened_file>", "<system-reminder>"),
	},
	"event-branch": {
		// The abandoned branch sits right after the message it forked
		// from, labelled by its time and first words.
		matches(`id="m-[^"]+" data-line="2">[\s\S]*?</div>\n</div><details class="branch" id="branch-1">`),
		has("↳ Abandoned branch · 2026-03-10 09:00 UTC · Use a Map instead · 2 messages"),
		func(v *view) []string {
			// The live branch reads the newest line; the other is in the
			// abandoned branch only.
			var live, gone string
			for _, n := range find(v.doc, byClass("branch")) {
				gone += textOf(n) + " "
			}
			for _, n := range find(v.doc, byClass("turn")) {
				for _, b := range find(n, byClass("branch")) {
					b.Parent.RemoveChild(b)
				}
				live += textOf(n) + " "
			}
			var bad []string
			if !strings.Contains(live, "Actually, use a plain object") || strings.Contains(live, "Use a Map instead") {
				bad = append(bad, "live branch is not the newest line: "+live)
			}
			if !strings.Contains(gone, "Use a Map instead") || !strings.Contains(gone, "Switched to a Map.") {
				bad = append(bad, "abandoned branch lacks its messages: "+gone)
			}
			return bad
		},
	},
	"event-new-agent-color": {
		hasNot("unknown record", "agent-color"), has("Done: the export takes --since now."),
	},
	"event-new-agents-killed": {
		has("Background agents stopped: 2 background agents stopped"), hasNot("unknown record"),
	},
	"event-new-artifact-ledger": {
		hasNot("unknown record", "artifact-ledger"), has("Done: the export takes --since now."),
	},
	"event-new-auto-mode": {
		has("Auto mode (consent flow)"), hasNot("unknown record"),
	},
	"event-new-compact-file-reference": {
		has("File kept by reference after compaction: export.go"), hasNot("unknown record"),
	},
	"event-new-content-replacement": {
		hasNot("unknown record", "content-replacement"), has("Done: the export takes --since now."),
	},
	"event-new-continued-in": {
		has("Continued in another session: 9c2d4e6f-1a3b-4c5d-8e7f-0a1b2c3d4e5f"), hasNot("unknown record"),
	},
	"event-new-cost-state": {
		hasNot("unknown record", "cost-state"), has("Done: the export takes --since now."),
	},
	"event-new-date-change": {
		has("Date changed to 2026-02-11"), hasNot("unknown record"),
	},
	"event-new-dev-mods": {
		hasNot("unknown record", "dev-mods"), has("Done: the export takes --since now."),
	},
	"event-new-edited-text-file": {
		has("File changed outside the session: /home/ana/src/ledger/README.md"), hasNot("unknown record"),
	},
	"event-new-effort": {
		has("claude-opus-5 · effort high", "Attributed to agent release-bot · skill release-notes · MCP github/create_pr"),
	},
	"event-new-file": {
		has("File attached: export.go"), hasNot("unknown record"),
	},
	"event-new-fork-context-ref": {
		hasNot("unknown record", "fork-context-ref"), has("Done: the export takes --since now."),
	},
	"event-new-frame-link": {
		hasNot("unknown record", "frame-link"), has("Done: the export takes --since now."),
	},
	"event-new-invoked-skills": {
		has("Skills invoked: release-notes, go-vet"), hasNot("unknown record"),
	},
	"event-new-model-consent-fallback": {
		has("Fell back to another model (consent required): Switched to claude-sonnet-5-5"), hasNot("unknown record"),
	},
	"event-new-model-refusal-fallback": {
		has("Model refused; fell back to another model: claude-opus-5 declined; retried with claude-sonnet-5-5"), hasNot("unknown record"),
	},
	"event-new-nested-memory": {
		has("Memory file loaded: store/CLAUDE.md"), hasNot("unknown record"),
	},
	"event-new-plan-mode": {
		has("Plan mode: plan file /home/ana/.claude/plans/quiet-sorting-heron.md (not written yet)"), hasNot("unknown record"),
	},
	"event-new-plan-mode-exit": {
		has("Plan mode ended: plan file /home/ana/.claude/plans/quiet-sorting-heron.md"), hasNot("unknown record"),
	},
	"event-new-prompt-source": {
		has("Prompt written by Claude Code (not typed)", "Prompt sent by a program (SDK)", "Also the refunds"), count("turn", 2),
	},
	"event-new-relocated": {
		hasNot("unknown record", "relocated"), has("Done: the export takes --since now."),
	},
	"event-new-result": {
		hasNot("unknown record", "result"), has("Done: the export takes --since now."),
	},
	"event-new-scheduled-task-fire": {
		has("Scheduled task fired: Nightly export check"), hasNot("unknown record"),
	},
	"event-new-selected-lines-in-ide": {
		has("Lines selected in VS Code: export.go:12-18"), hasNot("unknown record"),
	},
	"event-new-started": {
		hasNot("unknown record", "started"), has("Done: the export takes --since now."),
	},
	"event-new-structured-output": {
		has("Structured output of tool call toolu_01Struct"), hasNot("unknown record"),
	},
	"event-new-task-summary": {
		hasNot("unknown record", "task-summary"), has("Done: the export takes --since now."),
	},
	"event-new-teammates": {
		has("teammate researcher", "Found the slow query", "The orders query scans the whole table", "teammate tester", "Tests pass", "All 48 export tests pass with --since."), count("teammate", 2),
	},
	"event-new-ultra-effort-enter": {
		has("Ultra effort mode entered"), hasNot("unknown record"),
	},
	"event-new-worktree-state": {
		hasNot("unknown record", "worktree-state"), has("Done: the export takes --since now."),
	},
	"event-task-by-id": {
		// An older notification names its task, not its call: the line
		// links the call whose result started that task; a failure is
		// marked so.
		has(`✗ background task Background command "Upgrade claude-code cask via Homebrew" failed · exit 1 · output file b3932ee.output`),
		inMarkup(`<a href="#tool-toolu_01ById0001">Background command`, `class="msg notification task-note error"`),
		hasNot("<task-notification>", "with exit code 1"),
	},
	"who-said-what": {
		// Background tasks that report while Claude works: one line each,
		// in the running turn, their note and usage read, never "You".
		has(`✓ background task Background command "Run the test suite" completed · exit 0 · output file b7f3k2q.output`,
			`✓ background task Agent "Review checkout changes" completed · 48,210 tokens · 17 tool uses · 3m 04s · output file a4e1c9b27d05f3e68.output`),
		hasNot("<task-notification>", "<note>", "<usage>", "<subagent_tokens>", "You (queued while Claude worked)", "Prompt written by Claude Code", "unknown record"),
		// The agent's report is the agent's, its hand-back frame Claude
		// Code's, set apart.
		has("agent a4e1c9b27d05f3e68 Review of src/checkout/", "applyCoupon reads cart.total before the tax line"),
		closedDetails("Text Claude Code added around it"),
		// A teammate's message and idle notice, and the framing around
		// them.
		has("teammate qa Checkout flows pass", "teammate qa idle since 09:19 (available)",
			"Added by Claude Code: Another Claude session sent a message: This came from another Claude session — not typed by the user."),
		hasNot(`{"type":"idle_notification"`, "<teammate-message"),
		// The tag and the model's end of the conversation; the bookkeeping
		// kinds as events.
		has("ended by Claude", "Tagged checkout", "Claude ended the conversation (EndConversation)",
			"Companion introduced: Pip the axolotl", "Memory mode: auto (setting)", "Older messages collapsed in context: Started the test suite"),
	},
	"markdown-headings": {
		// Transcript headings look like headings but stay out of the
		// page's outline (one h1 per page, no skipped levels).
		inMarkup(`<p class="md-h md-h2">Summary</p>`, `<p class="md-h md-h1">Main</p>`),
	},
}

func TestReader(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, file := range caseFiles(t) {
		name := caseName(file)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checks, ok := readerChecks[name]
			if !ok {
				t.Fatalf("no readerChecks for case %s: say what a reader must find", name)
			}
			conv := conversation(t, renderSession(t, loadSession(t, file), "/home/dev/shop"))
			doc := parseHTML(t, conv)
			v := &view{html: conv, doc: doc, text: textOf(doc), prose: proseOf(t, conv)}
			var bad []string
			for _, c := range checks {
				bad = append(bad, c(v)...)
			}
			switch bug := knownBugs[name]; {
			case bug != "" && len(bad) > 0:
				t.Skip(bug + "\n\t" + strings.Join(bad, "\n\t"))
			case bug != "":
				t.Errorf("known bug looks fixed (remove it from knownBugs, record the golden): %s", bug)
			}
			for _, b := range bad {
				t.Error(b)
			}
		})
	}
	for name := range readerChecks {
		if !seen[name] {
			t.Errorf("readerChecks names %s, which has no testdata/sessions/%s.jsonl", name, name)
		}
	}
}

// proseOf is the visible text of a conversation without the raw JSON shown
// for records (event details and unknown records).
func proseOf(t *testing.T, conv string) string {
	doc := parseHTML(t, conv)
	for _, n := range find(doc, func(n *html.Node) bool {
		return n.Data == "details" && (hasClass(n, "event-detail") || hasClass(n, "raw"))
	}) {
		for _, cb := range find(n, byClass("code-block")) {
			cb.Parent.RemoveChild(cb)
		}
	}
	return textOf(doc)
}
