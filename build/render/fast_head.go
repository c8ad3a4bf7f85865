package render

import "strconv"

// sessionHead writes the "session-head" block of templates/session.html:
// a session's header (facts, charts and their numbers, tallies, links) and
// the outline of its turns. Its per-turn rows (the outline, the numbers
// per turn) were a tenth of a warm build's page writing through
// text/template.
func (w *fastWriter) sessionHead(data any) bool {
	v := view[SessionView](data)
	if v == nil {
		return false
	}
	w.s("\n<article class=\"session")
	if v.Deferred {
		w.s(" deferred")
	}
	w.s(`"`)
	if !v.Embedded {
		w.s(` data-session="`)
		w.attr(v.ID)
		w.s(`"`)
	}
	w.s(">\n<header class=\"session-head\">\n")
	if v.IsAgent {
		w.s(`<p class="kicker">Sub-agent`)
		if v.Agent != nil && v.Agent.AgentType != "" {
			w.s(` · `)
			w.text(v.Agent.AgentType)
		}
		if v.Parent != nil {
			w.s(` of `)
			w.a("", v.Parent.URL, v.Parent.Title)
		}
		if v.ParentCall != "" {
			w.s(` · `)
			w.a("", v.ParentCall, "the call that ran it")
		}
		w.s(`</p>`)
	}
	w.s("\n")
	if v.Embedded {
		w.s(`<h2 class="embedded-title">`)
		w.text(v.Title)
		w.s(`</h2>`)
	} else {
		w.s(`<h1>`)
		w.text(v.Title)
		w.s(`</h1>`)
	}
	w.s("\n<p class=\"project-line\">")
	w.linkOr(v.ProjectURL, v.Project)
	for _, b := range v.Branches {
		w.s(` · <span class="git" title="git branch">⎇ `)
		w.text(b)
		w.s(`</span>`)
	}
	w.s("</p>\n")
	if v.Deleted != "" {
		w.s(`<p class="notice deleted-source"><strong>Source file deleted</strong> · last seen `)
		w.text(v.Deleted)
		w.s(` · this page is built from the copy ccsite keeps of every transcript it reads.</p>`)
	}
	w.s("\n<p class=\"identity\"><span class=\"muted\">Session</span> <code class=\"session-id\">")
	w.text(v.ID)
	w.s(`</code>`)
	if v.SourceName != "" {
		w.s(` <span class="muted">· file</span> <code class="source-name">`)
		w.text(v.SourceName)
		w.s(`</code>`)
	}
	if v.Resume != "" {
		w.s(`<br><span class="muted">Resume:</span> <code class="resume">`)
		w.text(v.Resume)
		w.s(`</code> <button type="button" class="copy-text" data-copy="`)
		w.attr(v.Resume)
		w.s(`">Copy</button>`)
	}
	w.s("</p>\n<dl class=\"facts\">\n<div><dt>Started</dt><dd>")
	w.call("time", v.Start)
	w.s("</dd></div>\n<div><dt>Ended</dt><dd>")
	w.call("time", v.End)
	w.s("</dd></div>\n<div><dt>Active</dt><dd>")
	w.text(v.Active)
	w.s("</dd></div>\n<div><dt>Turns</dt><dd>")
	w.int(len(v.Turns))
	w.s("</dd></div>\n<div><dt>Messages</dt><dd>")
	w.int(v.Stats.Messages)
	w.s("</dd></div>\n<div><dt>Tool calls</dt><dd>")
	w.int(v.Stats.ToolCalls)
	w.s("</dd></div>\n")
	if v.Cost != "" {
		w.s(`<div><dt>Cost</dt><dd class="cost">`)
		w.text(v.Cost)
		if v.CostAgents != "" {
			w.s(` <span class="muted">+ `)
			w.text(v.CostAgents)
			w.s(` sub-agents = `)
			w.text(v.CostWithAgents)
			w.s(`</span>`)
		}
		if v.RecordedCost != "" {
			w.s(`<br><span class="muted">Claude Code recorded `)
			w.text(v.RecordedCost)
			w.s(`</span>`)
		}
		w.s(`</dd></div>`)
	}
	t := v.Stats.Tokens
	w.s("\n<div><dt>Tokens</dt><dd>")
	w.text(num(t.Input))
	w.s(` in · `)
	w.text(num(t.Output))
	w.s(` out · `)
	w.text(num(t.CacheRead))
	w.s(` cache read · `)
	w.text(num(t.CacheWrite))
	w.s(" cache write</dd></div>\n")
	if len(v.Models) > 0 {
		w.s(`<div><dt>Models</dt><dd>`)
		w.text(joinComma(v.Models))
		w.s(`</dd></div>`)
	}
	w.s("\n")
	if len(v.Versions) > 0 {
		w.s(`<div><dt>Claude Code</dt><dd>`)
		w.text(joinComma(v.Versions))
		w.s(`</dd></div>`)
	}
	w.s("\n")
	if v.EmptyThinking != 0 {
		w.s(`<div><dt>Thinking</dt><dd>`)
		w.text(plural(v.EmptyThinking, "thinking block"))
		w.s(` without text (Claude Code did not record it)</dd></div>`)
	}
	w.s("\n</dl>\n")
	if c := v.Charts; c != nil {
		w.s("<div class=\"charts\">\n")
		if c.Turns != "" {
			w.s(`<figure class="chart-fig"><figcaption>Tokens per turn <span class="legend">`)
			for _, col := range c.TurnCols {
				w.s(` <span class="key `)
				w.attr(col.Class)
				w.s(`">`)
				w.text(col.Name)
				w.s(`</span>`)
			}
			w.s(`</span></figcaption>`)
			w.html(c.Turns)
			w.s("</figure>\n<details class=\"chart-data\"><summary>Numbers per turn</summary><table><thead><tr><th scope=\"col\">Turn</th>")
			for _, col := range c.TurnCols {
				w.s(`<th scope="col">`)
				w.text(col.Name)
				w.s(`</th>`)
			}
			w.s(`</tr></thead><tbody>`)
			for _, r := range c.TurnRows {
				w.s(`<tr><th scope="row"><a href="#`)
				w.urlPart(r.Anchor)
				w.s(`">`)
				w.text(r.Label)
				w.s(`</a></th>`)
				for _, cell := range r.Cells {
					w.s(`<td>`)
					w.text(cell)
					w.s(`</td>`)
				}
				w.s(`</tr>`)
			}
			w.s(`</tbody></table></details>`)
		}
		w.s("\n")
		if c.Tools != "" {
			w.s(`<figure class="chart-fig"><figcaption>Tool calls by tool</figcaption>`)
			w.html(c.Tools)
			w.s(`</figure>`)
		}
		w.s("\n</div>")
	}
	w.s("\n")
	if len(v.Tools) > 0 {
		w.s(`<ul class="tool-tally" aria-label="Tool calls by name">`)
		for _, tc := range v.Tools {
			w.s(`<li><span class="tool-name">`)
			w.text(tc.Name)
			w.s(`</span> `)
			w.int(tc.Count)
			w.s(`</li>`)
		}
		w.s(`</ul>`)
	}
	w.s("\n")
	if len(v.PRs) > 0 {
		w.s(`<ul class="prs">`)
		for _, pr := range v.PRs {
			w.s(`<li>`)
			u := safeURL(pr.URL)
			if u != "" {
				w.s(`<a href="`)
				w.url(u)
				w.s(`" rel="nofollow noopener noreferrer">`)
			}
			w.s(`PR #`)
			w.int(pr.Number)
			if pr.Repository != "" {
				w.s(` · `)
				w.text(pr.Repository)
			}
			if u != "" {
				w.s(`</a>`)
			}
			w.s(`</li>`)
		}
		w.s(`</ul>`)
	}
	w.s("\n")
	if len(v.Exports) > 0 {
		w.s(`<p class="exports">`)
		for i, e := range v.Exports {
			if i > 0 {
				w.s(` · `)
			}
			w.s(`<a href="`)
			w.url(e.URL)
			w.s(`" type="`)
			w.attr(e.Type)
			w.s(`">`)
			w.text(e.Name)
			w.s(`</a>`)
		}
		w.s(`</p>`)
	}
	w.s("\n")
	if v.ContinuedFrom != nil || v.ContinuedIn != nil {
		w.s(`<nav class="continuation" aria-label="Continuation">`)
		if n := v.ContinuedFrom; n != nil {
			w.a(` class="continued-from"`, n.URL, "↰ "+n.Title)
		}
		if v.ContinuedFrom != nil && v.ContinuedIn != nil {
			w.s(` · `)
		}
		if n := v.ContinuedIn; n != nil {
			w.a(` class="continued-in"`, n.URL, n.Title+" ↱")
		}
		w.s(`</nav>`)
	}
	w.s("\n")
	if v.Prev != nil || v.Next != nil {
		w.s(`<nav class="prev-next" aria-label="Sessions">`)
		if n := v.Prev; n != nil {
			w.a(` rel="prev"`, n.URL, "← "+n.Title)
		}
		if n := v.Next; n != nil {
			w.a(` rel="next"`, n.URL, n.Title+" →")
		}
		w.s(`</nav>`)
	}
	w.s("\n")
	if len(v.Agents) > 0 {
		w.s(`<section class="agents" aria-label="Sub-agents"><details`)
		if len(v.Agents) <= 3 {
			w.s(` open`)
		}
		w.s(`><summary><h2>`)
		w.text(plural(len(v.Agents), "sub-agent"))
		w.s("</h2></summary><ul>\n")
		for _, a := range v.Agents {
			w.s(`<li>`)
			w.linkOr(a.URL, a.Title)
			if a.Type != "" {
				w.s(` <span class="badge">`)
				w.text(a.Type)
				w.s(`</span>`)
			}
			if a.Workflow != "" {
				w.s(` <span class="badge workflow" title="workflow">⧉ `)
				w.text(a.Workflow)
				w.s(`</span>`)
			}
			w.s(` <span class="muted">`)
			w.text(plural(a.Messages, "message"))
			w.s(` · `)
			w.text(plural(a.ToolCalls, "tool call"))
			if a.CallAnchor != "" {
				w.s(` · `)
				w.a("", a.CallAnchor, "call")
			}
			w.s("</span></li>\n")
		}
		w.s(`</ul></details></section>`)
	}
	w.s("\n")
	if !v.Embedded {
		w.s(`<div class="view-switch" role="group" aria-label="View"><span class="muted">View:</span> <button type="button" data-view="conversation" aria-pressed="true">Conversation</button> <button type="button" data-view="full" aria-pressed="false">Full</button> <span class="muted small view-note">Conversation folds each tool call to a line; Full opens them all and shows thinking and bookkeeping.</span></div>`)
	}
	w.s("\n</header>\n\n")
	if v.Deferred {
		w.s(`<noscript><p class="notice">This session is very long: its page makes each turn and tool call as you reach it, which needs JavaScript.</p></noscript>`)
	}
	w.s("\n<div class=\"session-body\">\n")
	if len(v.Turns) > 0 {
		w.s(`<nav class="outline" aria-label="Turns"`)
		if !v.Embedded {
			w.s(` id="outline"`)
		}
		w.s(`><p class="outline-head">`)
		w.text(plural(len(v.Turns), "turn"))
		w.s(`</p><ol>`)
		for i := range v.Turns {
			t := &v.Turns[i]
			w.s(`<li`)
			if t.Quiet {
				w.s(` class="quiet"`)
			}
			w.s(`><a href="#`)
			w.urlPart(t.Anchor)
			w.s(`" data-turn="`)
			w.attr(t.Anchor)
			w.s(`"><span class="o-n">`)
			w.b.WriteString(strconv.Itoa(t.Index))
			w.s(`</span> <span class="o-x">`)
			switch {
			case t.Excerpt != "":
				w.text(t.Excerpt)
			case t.HasPrompt:
				w.s(`(no prompt text)`)
			default:
				w.s(`Before the first prompt`)
			}
			w.s(`</span> <span class="o-m">`)
			if !t.Start.Zero {
				w.text(t.Start.Clock)
			}
			if t.Tools != 0 {
				w.s(` · `)
				w.text(plural(t.Tools, "tool"))
			}
			if t.Took != "" {
				w.s(` · `)
				w.text(t.Took)
				if t.TimeTop != "" {
					w.s(` (`)
					w.text(t.TimeTop)
					w.s(`)`)
				}
			}
			if t.OutTokens != 0 {
				w.s(` · `)
				w.text(num(t.OutTokens))
				w.s(` tok`)
			}
			if t.Cost != "" {
				w.s(` · `)
				w.text(t.Cost)
			}
			w.s(`</span></a></li>`)
		}
		w.s(`</ol></nav>`)
	}
	w.s("\n<div class=\"conversation\">\n")
	return true
}

// a writes a link, <a{attrs} href="url">text</a>: attrs are the block's
// own markup, url and text are escaped for their places.
func (w *fastWriter) a(attrs, url, text string) {
	w.s(`<a`)
	w.s(attrs)
	w.s(` href="`)
	w.url(url)
	w.s(`">`)
	w.text(text)
	w.s(`</a>`)
}

// linkOr writes text as a link to url, or as it is without one
// ({{if .URL}}<a href="{{.URL}}">{{.Title}}</a>{{else}}{{.Title}}{{end}}).
func (w *fastWriter) linkOr(url, text string) {
	if url == "" {
		w.text(text)
		return
	}
	w.a("", url, text)
}

// joinComma is {{join . ", "}}.
func joinComma(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	n := 2 * (len(s) - 1)
	for _, x := range s {
		n += len(x)
	}
	b := make([]byte, 0, n)
	for i, x := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, x...)
	}
	return string(b)
}

// layoutHead writes the "layout-head" block of templates/layout.html (the
// document's head and the site's header) for a page of the site; a shared
// file's (Single: its style and script inline, in contexts these blocks do
// not write) runs the template.
func (w *fastWriter) layoutHead(data any) bool {
	p, ok := data.(*Page)
	if !ok || p.Single {
		return false
	}
	// The search box's scope: the session (a sub-agent's parent's) and
	// the project of the page.
	sid, proj := "", ""
	switch p.Kind {
	case "session", "agent":
		v := view[SessionView](p.Body)
		if v == nil {
			return false
		}
		sid, proj = v.ID, v.Project
		if v.Agent != nil && v.Agent.ParentID != "" {
			sid = v.Agent.ParentID
		}
	case "project":
		v := view[ProjectView](p.Body)
		if v == nil {
			return false
		}
		proj = v.Path
	}
	w.s("<!DOCTYPE html>\n<html lang=\"en\" data-theme=\"auto\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"ccsite\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<link rel=\"icon\" href=\"data:,\">\n<title>")
	w.text(p.Title)
	w.s(" · ccsite</title>\n")
	if p.Canonical != "" {
		w.s(`<link rel="canonical" href="`)
		w.url(p.Canonical)
		w.s(`">`)
	}
	w.s("\n<link rel=\"stylesheet\" href=\"")
	w.url(p.URL("assets/style.css"))
	w.s("\">\n<link rel=\"stylesheet\" href=\"")
	w.url(p.URL("assets/theme.css"))
	w.s("\">\n<script src=\"")
	w.url(p.URL("assets/app.js"))
	w.s("\"></script>\n\n</head>\n<body class=\"page-")
	w.attr(p.Kind)
	w.s("\">\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n<header class=\"site-head\">\n<nav class=\"crumbs\" aria-label=\"Breadcrumbs\"><ol>\n<li><a href=\"")
	w.url(p.URL("index.html"))
	w.s(`">All projects</a></li>`)
	for _, c := range p.Crumbs {
		w.s(`<li>`)
		if c.URL != "" {
			w.a("", c.URL, c.Label)
		} else {
			w.s(`<span aria-current="page">`)
			w.text(c.Label)
			w.s(`</span>`)
		}
		w.s(`</li>`)
	}
	w.s("\n</ol></nav>\n")
	if p.Search && p.Kind != "search" {
		w.s(`<form class="site-search" role="search" action="`)
		w.url(p.URL("search.html"))
		w.s(`"`)
		if proj != "" {
			w.s(` data-project="`)
			w.attr(proj)
			w.s(`"`)
		}
		if sid != "" {
			w.s(` data-session="`)
			w.attr(sid)
			w.s(`"`)
		}
		w.s(">\n<label class=\"sr-only\" for=\"search\">Search all sessions</label><input id=\"search\" name=\"q\" type=\"search\" placeholder=\"Search…\" autocomplete=\"off\" spellcheck=\"false\">")
		if proj != "" {
			w.s("\n<label class=\"sr-only\" for=\"search-scope\">Search in</label><select id=\"search-scope\" name=\"scope\" title=\"Search in\">\n<option value=\"\" selected>everywhere</option>")
			if sid != "" {
				w.s("\n<option value=\"session\">this session</option>")
			}
			w.s("\n<option value=\"project\">this project</option>\n</select>")
			if sid != "" {
				w.s(`<input type="hidden" name="session" value="`)
				w.attr(sid)
				w.s(`">`)
			}
			w.s(`<input type="hidden" name="project" value="`)
			w.attr(proj)
			w.s(`">`)
		}
		w.s("\n</form>")
	}
	w.s("\n<button type=\"button\" class=\"theme-toggle\" aria-label=\"Toggle dark theme\" title=\"Toggle theme\">◐</button>\n</header>\n<main id=\"main\">\n")
	return true
}
