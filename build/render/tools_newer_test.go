package render_test

// Reader checks of the newer tools' cards (task board, messages between
// agents, server tools, images of a result), added to readerChecks.
func init() {
	for name, checks := range map[string][]check{
		"tool-tasks": {
			count("tool-tasks", 9),
			count("tool-generic", 0),
			// The board shows every state with its tasks.
			textIn("state-pending", "Add a test for three decimals"),
			textIn("state-in_progress", "Round prices to cents"),
			textIn("state-completed", "Reproduce the bug"),
			has("in progress", "pending", "completed", "blocked"),
			// TaskCreate and TaskUpdate show the task and its new state.
			textIn("tool-summary", "#1 Round prices to cents → in progress"),
			has("pending → in progress", "blocked by #1", "Tests 12 passed (12)"),
			textIn("tool-summary", "1 of 3 tasks done"),
		},
		"tool-message": {
			count("tool-message", 4),
			count("tool-generic", 0),
			textIn("msg-from", "team-lead"),
			textIn("msg-to", "alice"),
			textIn("msg-to", "bob"),
			textIn("msg-to", "user"),
			inMarkup("<strong>rebase</strong>", "<strong>merged</strong>"),
			noMarkup("<script>alert(1)</script>"),
			has("Message sent to alice's inbox", "shutdown request"),
		},
		"tool-skill-search": {
			count("tool-fields", 5),
			count("tool-generic", 0),
			textIn("tool-summary", "release v1.4.0 with *notes*"),
			inMarkup("<em>notes</em>"),
			has("TaskCreate", "SendMessage", "NotebookEdit", "Entered plan mode."),
			hasNot("In plan mode, you should"),
		},
		"tool-schedule": {
			count("tool-fields", 5),
			count("tool-generic", 0),
			has("*/2 * * * *", "Check alice's commit", "PR #140 check transitions", "337e67de", "Cancelled job 337e67de."),
			inMarkup("<code>git status --short</code>"),
		},
		"tool-agents-misc": {
			count("tool-fields", 3),
			count("tool-generic", 0),
			has("alice (running)", "nightly", "Price report"),
			inMarkup("<strong>nightly</strong>"),
		},
		"tool-server": {
			// Each server tool's card holds its result; no raw block.
			count("status-ok", 2),
			count("status-pending", 0),
			hasNot("advisor_tool_result block", "web_search_tool_result block", "no result"),
			textIn("tool-body", "Use integer cents; rounding floats is fragile."),
			has("Rounding in JS", "The advisor agrees."),
		},
		"tool-result-images": {
			// Every image of a result is shown, after text too; an
			// unreadable one is said.
			count("shot", 2),
			has("Successfully captured screenshot", "Two screenshots.", "Image not shown (image/jpeg)"),
		},
	} {
		readerChecks[name] = checks
	}
}
