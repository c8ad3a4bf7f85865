// Package render turns sessions into page data and page data into HTML
// through html/template; it knows nothing of disks.
package render

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// Page is what the layout template renders.
type Page struct {
	// Path is the page's path from the site root; Root the prefix back.
	Path string
	Root string
	// Canonical is the page's absolute URL when the site's is known.
	Canonical string
	// Single marks a self-contained page (a shared file): styles and
	// script inline, no site navigation.
	Single    bool
	InlineCSS template.CSS
	InlineJS  template.JS
	Title     string
	Kind      string // index, project, session, agent, search
	// Search tells that the site has a search page (and so a search box
	// in every header).
	Search bool
	// Demo marks a page of the built-in demo archive (build.Config.Demo).
	Demo   bool `json:",omitzero"`
	Crumbs []Crumb
	Body   any
}

// Crumb is one breadcrumb.
type Crumb struct {
	Label string
	URL   string
}

// URL returns the URL of the site path p from this page.
func (p *Page) URL(path string) string { return link.Rel(p.Path, path) }

// Nav is a link to another session or agent page.
type Nav struct {
	Title string
	URL   string
	Time  Time
}

// Time is a timestamp shown in UTC and localised by the page's script.
type Time struct {
	ISO   string
	UTC   string
	Clock string // hours and minutes, UTC
	Zero  bool
}

func mkTime(t time.Time) Time {
	if t.IsZero() {
		return Time{Zero: true}
	}
	u := t.UTC()
	return Time{ISO: u.Format(time.RFC3339), UTC: u.Format("2006-01-02 15:04 UTC"), Clock: u.Format("15:04")}
}

// SessionView is a session or sub-agent page's body.
type SessionView struct {
	Title       string
	TitleSource string
	ID          string
	Project     string
	ProjectURL  string
	IsAgent     bool
	Agent       *session.AgentInfo
	// Parent links a sub-agent page to its session and to the exact call.
	Parent     *Nav
	ParentCall string
	Prev, Next *Nav
	// ContinuedIn and ContinuedFrom link a continued session both ways.
	ContinuedIn, ContinuedFrom *Nav
	// Related link another agent's fork or sub-agent session with the
	// session it came from, both ways.
	Related []*Nav

	Start, End Time
	Active     string
	CWD        string
	Slug       string
	Branches   []string
	Models     []string
	Versions   []string
	Stats      session.Stats
	Tools      []NameCount
	PRs        []session.PRLink
	// Tag is the session's tag ("" without); EndedByModel says the model
	// ended the conversation.
	Tag          string
	EndedByModel bool
	// AgentName is the coding agent's when not Claude Code ("Codex"): a
	// badge in the header.
	AgentName string

	Agents  []AgentLink
	Warmups []*SessionView

	Turns     []TurnView
	Abandoned []BranchView
	Problems  []session.Problem
	Unknown   []NameCount
	Source    string
	// Exports link the session's other forms (export.Formats), in order;
	// Markdown and JSON are those two's links, for themes written before
	// Exports.
	Exports        []ExportLink
	Markdown, JSON string
	// Embedded is a body inside another page: its title is an h2.
	Embedded bool
	// Embeds are sub-agents shown on this same page (a shared file).
	Embeds []Embed
	// EmptyThinking counts thinking blocks that carry no text (recent
	// Claude Code versions record none): said once, not shown each time.
	EmptyThinking int
	// Resume is the command that resumes the session in Claude Code;
	// SourceName the transcript's file name.
	Resume     string
	SourceName string
	// Deferred is set on very long pages: later turns and tool bodies
	// are made when reached (see assets/app.js).
	Deferred bool
	// Deleted: see Links.Deleted.
	Deleted string
	// Cost is the session's own cost at the pricing table's prices;
	// CostAgents its sub-agents' and CostWithAgents both ("" without
	// sub-agents); RecordedCost Claude Code's own figure (cost-state).
	Cost, CostAgents, CostWithAgents, RecordedCost string
	// TokensOut spells the output tokens, a lower bound with an estimate
	// when some counts are partial; Advisor the advisor tool's calls by
	// model; Measured Claude Code's own time split and line counts
	// (cost-state), "" when it wrote none.
	TokensOut string
	Advisor   []string
	Measured  string
	// Charts are the header's pictures (charts.go); nil without turns.
	Charts *Charts
	// Commits are the git commits the session made (history.go), and
	// History its project's history page ("" without).
	Commits []CommitView
	History string
	// Compare is the compare page's URL ("" where there is none: a
	// shared file).
	Compare string
}

// Embed is a sub-agent shown inside its parent's page.
type Embed struct {
	Anchor string
	Body   *SessionView
}

// NameCount is a name with a count, for tool and unknown-record tallies.
type NameCount = session.Count

// AgentLink is a sub-agent listed in its session's header.
type AgentLink struct {
	Title       string
	URL         string
	Type        string
	Description string
	Messages    int
	ToolCalls   int
	CallAnchor  string
	Layout      string
	Workflow    string // the workflow that ran it (subagents/workflows/<id>/)
}

// TurnView is a prompt and everything until the next one.
type TurnView struct {
	Index   int
	Anchor  string
	Start   Time
	Excerpt string
	Items   []Item
	// HasPrompt is false for what came before the first prompt; Quiet is
	// set when such a turn holds only bookkeeping (hooks, progress).
	HasPrompt bool
	Quiet     bool
	// EndedByModel marks the turn in which the model ended the
	// conversation (EndConversation).
	EndedByModel bool
	// Tools counts the turn's tool calls, ToolNames names the most used;
	// Took is its wall time; OutTokens what the model wrote in it.
	Tools     int
	ToolNames string
	Took      string
	OutTokens int64
	// OutEstimate is OutTokens with each partial count replaced by its
	// estimate (see session.Tokens.OutputEstimate); outPartial says one
	// was.
	OutEstimate int64
	outPartial  bool
	// Out spells OutTokens for the turn's line ("~250 tokens out (est.…)"
	// when a count is partial); "" when nothing was written. OutShort is
	// the outline's ("250 tok", "~250 tok (est.)").
	Out, OutShort string
	// TimeParts splits Took (model, tools, waiting, idle); TimeTop is
	// its largest part; Context the context size after the turn.
	TimeParts string
	TimeTop   string
	Context   int64
	// Cost is the turn's cost, spelled ("" when nothing was paid).
	Cost       string
	costMicros int64
	// Defer keeps the turn's items in an inert <script> until the turn
	// nears the window (very long pages); Height guesses its height.
	Defer  bool
	Height int
	// Commits are the git commits the turn made.
	Commits []CommitView
}

// BranchView is an abandoned branch, shown collapsed after the live one.
type BranchView struct {
	Index      int
	Anchor     string
	ForkAnchor string
	ForkLine   int
	Leaf       Time
	Items      []Item
	// Start is the branch's first time; Label its first words.
	Start Time
	Label string
}

// Item is one thing shown in the conversation, rendered by the template
// named "item/"+Kind.
type Item struct {
	Kind   string
	Anchor string
	UUID   string
	Line   int
	Time   Time
	// Forks lists the branches that leave from this message; Branches
	// are those shown right after it (abandoned branches at their fork).
	Forks    []Fork
	Branches []BranchView
	Data     any
}

// Fork is an abandoned branch leaving from a message.
type Fork struct {
	Index  int
	Anchor string
}

// sortedCounts orders a tally by count, then name.
func sortedCounts(m map[string]int) []NameCount { return session.SortCounts(m) }

// Links tells the view builder where pages are.
type Links struct {
	// Page is this page's path.
	Page string
	// Project is the project page's path.
	Project string
	// Agent returns the page path of a sub-agent, "" when it has none.
	Agent func(a *session.Session) string
	// Parent is the parent session's page (for a sub-agent page).
	Parent      string
	ParentTitle string
	Prev, Next  *Nav
	// ContinuedIn and ContinuedFrom link a session sent to the background
	// (or forked) and the session it went on in, both ways.
	ContinuedIn, ContinuedFrom *Nav
	// Related are the links between another agent's fork or sub-agent
	// session and the session it came from (build/continue.go).
	Related []*Nav
	// Exports are the session's other forms, with their paths.
	Exports []ExportLink
	// Deleted is the day the transcript file was last seen when it is
	// gone and the page was built from ccsite's kept copy.
	Deleted string
	// AgentAnchor, when set, places sub-agents on this same page: links to
	// them are "#"+AgentAnchor(a) (a shared single file).
	AgentAnchor func(a *session.Session) string
	// AnchorPrefix prefixes every anchor of the page body (a sub-agent
	// embedded in its parent's single file).
	AnchorPrefix string
	// Embedded marks a body shown inside another page (headings one down).
	Embedded bool
}

// ExportLink links one of a session's other forms: its name, media type
// and URL (a path from the site root in Links, relative in a view).
type ExportLink struct {
	Name, Type, URL string
}

// Builder makes page bodies from sessions.
type Builder struct {
	MD *markup.Renderer
	// Media, when set, stores an image's bytes as a site file and returns
	// its path from the site root; without it images are inlined.
	Media func(ext string, data []byte) string
	// DeferAfter is the number of tool calls past which a page makes its
	// later turns and its tool bodies only when they are reached (0: 400).
	DeferAfter int
	// Home is the home folder of whoever builds the site ("" for none):
	// a session's folder under it is shown as ~/… (the resume line).
	Home string
}

// Session builds the body of a session or sub-agent page.
func (b *Builder) Session(s *session.Session, project string, l Links) *SessionView {
	v := &SessionView{
		Title: s.Title, TitleSource: s.TitleSource, ID: s.ID, Project: project,
		ProjectURL: link.Rel(l.Page, l.Project), IsAgent: s.Agent != nil, Agent: s.Agent,
		Start: mkTime(s.Start), End: mkTime(s.End), Active: duration(s.Active),
		CWD: s.CWD, Slug: s.Slug, Branches: s.GitBranches, Models: s.Models, Versions: s.Versions,
		Stats: s.Stats, Tools: sortedCounts(s.Stats.ToolsByName), PRs: s.PRLinks,
		Problems: s.Problems, Unknown: sortedCounts(s.Unknown), Source: s.Path,
		Prev: l.Prev, Next: l.Next, Deleted: l.Deleted,
		ContinuedIn: l.ContinuedIn, ContinuedFrom: l.ContinuedFrom, Related: l.Related,
		Tag: s.Tag, EndedByModel: s.EndedByModel, AgentName: s.AgentName,
	}
	for _, e := range l.Exports {
		e.URL = link.Rel(l.Page, e.URL)
		v.Exports = append(v.Exports, e)
		switch e.Name {
		case "Markdown":
			v.Markdown = e.URL
		case "JSON":
			v.JSON = e.URL
		}
	}
	v.Embedded = l.Embedded
	if l.Parent != "" {
		v.Parent = &Nav{Title: l.ParentTitle, URL: link.Rel(l.Page, l.Parent)}
		if s.Agent != nil && s.Agent.ToolUseID != "" {
			v.ParentCall = v.Parent.URL + "#" + link.Tool(s.Agent.ToolUseID)
		}
	}
	ctx := &viewCtx{b: b, s: s, links: l, agentURL: map[string]string{}, anchored: map[string]bool{}, toolSeen: map[string]int{}, pre: l.AnchorPrefix}
	for _, a := range s.Agents {
		if a.Agent == nil {
			continue
		}
		if a.Agent.Warmup {
			v.Warmups = append(v.Warmups, b.Session(a, project, Links{Page: l.Page, Project: l.Project, Agent: func(*session.Session) string { return "" }}))
			continue
		}
		url := ""
		if l.AgentAnchor != nil {
			url = "#" + l.AgentAnchor(a)
		} else if p := l.Agent(a); p != "" {
			url = link.Rel(l.Page, p)
		}
		ctx.agentURL[a.Agent.AgentID] = url
		al := AgentLink{Title: a.Title, URL: url, Type: a.Agent.AgentType, Description: a.Agent.Description,
			Messages: a.Stats.Messages, ToolCalls: a.Stats.ToolCalls, Layout: a.Agent.Layout, Workflow: a.Agent.WorkflowID}
		if a.Agent.ToolUseID != "" {
			al.CallAnchor = "#" + l.AnchorPrefix + link.Tool(a.Agent.ToolUseID)
		}
		v.Agents = append(v.Agents, al)
	}
	forks := map[string][]int{}
	for _, br := range s.Branches {
		if br.Fork != nil {
			forks[br.Fork.UUID] = append(forks[br.Fork.UUID], br.Index)
		}
	}
	ctx.forks = forks
	ctx.deferred = b.deferred(s)
	ctx.costOf = map[*session.Message]session.Cost{}
	for _, r := range s.Responses(s.Pricing) {
		if r.Message != nil {
			c := ctx.costOf[r.Message]
			c.Add(r.Cost)
			ctx.costOf[r.Message] = c
		}
	}
	items := ctx.items(s.Messages)
	v.Abandoned = placeBranches(items, ctx.branches(s))
	v.Turns = splitTurns(s, items, ctx.pre)
	outline(s, v.Turns)
	if ctx.deferred {
		deferTurns(v.Turns)
	}
	v.EmptyThinking = ctx.emptyThinking
	v.Resume, v.SourceName = resume(s, b.Home), sourceName(s.Path)
	v.Deferred = ctx.deferred
	costs(s, v)
	v.Charts = charts(s, v)
	return v
}

// splitTurns groups the live branch's items by the turn of their message.
func splitTurns(s *session.Session, items []Item, pre string) []TurnView {
	var out []TurnView
	byIndex := map[int]int{}
	for _, t := range s.Turns {
		tv := TurnView{Index: t.Index, Anchor: pre + link.Turn(t.Index), Start: mkTime(t.Start), Excerpt: t.Excerpt, HasPrompt: t.HasPrompt}
		byIndex[t.Index] = len(out)
		out = append(out, tv)
	}
	turnOf := map[string]int{}
	for _, m := range s.Messages {
		turnOf[m.UUID] = m.Turn
		if k, ok := byIndex[m.Turn]; ok && m.Type == transcript.TypeEndedByModel {
			out[k].EndedByModel = true
		}
	}
	for _, it := range items {
		k, ok := byIndex[turnOf[it.UUID]]
		if !ok {
			if len(out) == 0 {
				out = append(out, TurnView{Index: 1, Anchor: pre + link.Turn(1), HasPrompt: true})
			}
			k = len(out) - 1
		}
		out[k].Items = append(out[k].Items, it)
	}
	return out
}

func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

// viewCtx carries what item builders need.
type viewCtx struct {
	b        *Builder
	s        *session.Session
	links    Links
	agentURL map[string]string
	forks    map[string][]int
	anchored map[string]bool
	toolSeen map[string]int
	// pre prefixes every anchor (sub-agents embedded in a shared page).
	pre string
	// emptyThinking counts the thinking blocks without text left out.
	emptyThinking int
	// deferred: the page keeps tool bodies in templates (see deferLimit).
	deferred bool
	// costOf is each answer's cost (its API response's).
	costOf map[*session.Message]session.Cost
	// taskCalls are the tool calls that started background tasks, by
	// task id (made when a notification first needs them).
	taskCalls map[string]string
}

// items turns messages into items: tool results are shown inside the
// card of their call, progress records attached to a call are folded into
// it, model switches are marked.
func (c *viewCtx) items(msgs []*session.Message) []Item {
	// A tool-result message shown as an item of its own keeps its anchor
	// there; the cards of its calls must not take it first.
	for _, m := range msgs {
		if m.Kind == session.KindToolResult && !c.allPaired(m) {
			c.anchored[m.UUID] = true
		}
	}
	var out []Item
	lastModel := ""
	var progress []*session.Message
	flush := func() {
		if len(progress) == 0 {
			return
		}
		out = append(out, Item{Kind: "progress", Anchor: c.pre + link.Message(progress[0].UUID), UUID: progress[0].UUID,
			Line: progress[0].Line, Time: mkTime(progress[0].Time), Data: c.progressGroup(progress)})
		progress = nil
	}
	for _, m := range msgs {
		if m.Kind == session.KindProgress {
			if c.attached(m) {
				continue
			}
			progress = append(progress, m)
			continue
		}
		flush()
		if m.Kind == session.KindToolResult && c.allPaired(m) {
			continue
		}
		if m.Kind == session.KindAnswer && m.Model != "" {
			if lastModel != "" && m.Model != lastModel {
				out = append(out, Item{Kind: "event", UUID: m.UUID, Line: m.Line, Time: mkTime(m.Time),
					Data: Event{Icon: "model", Text: "Model switched from " + lastModel + " to " + m.Model}})
			}
			lastModel = m.Model
		}
		it := Item{Kind: string(m.Kind), Anchor: c.pre + link.Message(m.UUID), UUID: m.UUID, Line: m.Line, Time: mkTime(m.Time)}
		for _, n := range c.forks[m.UUID] {
			it.Forks = append(it.Forks, Fork{Index: n, Anchor: c.pre + link.Branch(n)})
		}
		it.Kind, it.Data = c.message(m)
		out = append(out, it)
	}
	flush()
	return out
}

// attached reports a progress record folded into its tool call's card.
func (c *viewCtx) attached(m *session.Message) bool {
	r := m.Record()
	return c.s.Tool(r.ParentToolUseID) != nil || c.s.Tool(r.ToolUseID) != nil
}

// allPaired reports a tool-result message all of whose results are shown
// in their calls' cards.
func (c *viewCtx) allPaired(m *session.Message) bool {
	for _, b := range m.Blocks {
		if b.Type == "tool_result" && c.s.Tool(b.ToolUseID) == nil {
			return false
		}
		if b.Type != "tool_result" && b.Type != "text" {
			return false
		}
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			return false
		}
	}
	return true
}

// Event is a one-line happening: compaction, retries, hooks, durations.
type Event struct {
	Icon   string
	Text   string
	Detail template.HTML // collapsed
	Raw    template.HTML // collapsed raw JSON
	Level  string        // "", "warn", "error"
	URL    string
}

// Prompt is a typed prompt, a queued one, or a meta text.
type Prompt struct {
	HTML      template.HTML
	Images    []Image
	Context   []ContextChip
	Reminders []template.HTML
	Queued    bool
	Memory    string
}

// ContextChip is IDE context that came with a prompt.
type ContextChip struct {
	Label string
	Body  template.HTML
}

// Image is an inline image from a transcript (data URI).
type Image struct {
	Src template.URL
	Alt string
}

// Terminal is command or shell input/output.
type Terminal struct {
	Command string
	Args    string
	Input   template.HTML
	Stdout  template.HTML
	Stderr  template.HTML
	Lines   int
	Long    bool
}

// Collapsible is a titled block shown collapsed.
type Collapsible struct {
	Label string
	Chars int
	Body  template.HTML
	Open  bool
}

// Answer is an assistant message: its parts in order.
type Answer struct {
	// Who is the assistant's name: Claude, or the other agent's (Codex).
	Who       string
	Model     string
	Synthetic bool
	Error     bool
	Parts     []Part
	// Cost is what this API response cost, spelled ("" when free).
	Cost string
}

// Part is one block of an answer; Kind selects the template "part/"+Kind.
type Part struct {
	Kind string
	Data any
}

// Raw is a record shown as JSON.
type Raw struct {
	Label string
	JSON  template.HTML
}

func (c *viewCtx) message(m *session.Message) (string, any) {
	md := c.b.MD
	switch m.Kind {
	case session.KindPrompt, session.KindQueued:
		return "prompt", c.prompt(m)
	case session.KindMeta:
		text := reCaveat.ReplaceAllString(m.Text(), "$1")
		label := metaLabel(m)
		if c.s != nil && c.s.AgentName != "" {
			// Another agent's injected context (instructions, environment).
			label = "Text added by " + c.s.AgentName
		}
		return "meta", Collapsible{Label: label, Chars: runes(text), Body: md.Markdown(text)}
	case session.KindCompactSummary:
		return "compact-summary", Collapsible{Label: "Summary of the conversation before compaction", Chars: runes(m.Text()), Body: md.Markdown(m.Text())}
	case session.KindInterruption:
		return "interruption", Event{Icon: "stop", Text: strings.Trim(strings.TrimSpace(m.Text()), "[]")}
	case session.KindCommand:
		return "command", Terminal{Command: m.Command.Name, Args: m.Command.Args}
	case session.KindLocalOutput, session.KindBashOutput:
		return "terminal", c.shell(m.Command.Stdout, m.Command.Stderr)
	case session.KindBashInput:
		return "terminal", Terminal{Input: c.b.MD.ANSI(m.Command.Input)}.Shell()
	case session.KindNotification:
		return "notification", c.notification(m)
	case session.KindAnswer, session.KindSynthetic, session.KindAPIError:
		return "answer", annotate(m, c.answer(m))
	case session.KindToolResult:
		return "tool-results", c.toolResults(m)
	case session.KindSystem:
		return "event", c.system(m)
	case session.KindAttachment:
		return "event", c.attachment(m)
	}
	return "unknown", Raw{Label: m.Record().KindLabel(), JSON: c.rawJSON(m.Record().Raw)}
}

// reCaveat unwraps the tag around a local-command caveat.
var reCaveat = regexp.MustCompile(`(?s)</?local-command-caveat>`)

func runes(s string) int { return utf8.RuneCountInString(s) }

// Notification is what another agent or Claude Code itself wrote into the
// conversation: background tasks' completions (Tasks, a line each), the
// messages of teammates, agents and other sessions (Teammates, each
// credited to its writer), and the text Claude Code put around them
// (Framing). Label, Summary, Fields and Body show a notice of another tag.
type Notification struct {
	Label   string
	Summary string
	Fields  []NameValue
	Body    template.HTML
	Chars   int
	Open    bool
	// Teammates, when set, are an agent team's messages, each shown as
	// its own message from its teammate.
	Teammates []TeammateView
	Tasks     []TaskNote
	// Framing is Claude Code's text around the blocks, muted; Long puts
	// it in a collapsed block.
	Framing     template.HTML
	FramingLong bool
}

// NameValue is a labelled field.
type NameValue struct {
	Name  string
	Value string
}

// TeammateView is one teammate's message of an agent team, or an agent's
// or another session's: Role names which ("teammate", "agent",
// "session"); URL links an agent's page. Event is a protocol message (an
// idle notice…) as one muted line, in place of a body.
type TeammateView struct {
	Name    string
	Role    string
	URL     string
	Color   string
	Summary string
	// Event, Since and EventWhy are a protocol message: what, since
	// when (Zero: not said), why ("" for none).
	Event    string
	Since    Time
	EventWhy string
	Body     template.HTML
	Chars    int
	Open     bool
}

// reColor accepts the colours a teammate may carry (a name or a hex code).
var reColor = regexp.MustCompile(`^(?:[a-zA-Z]{1,20}|#[0-9a-fA-F]{3,8})$`)

// annotate adds an answer's effort beside its model and its attribution as
// a muted note.
func annotate(m *session.Message, a Answer) Answer {
	if m.Effort != "" {
		a.Model = strings.TrimPrefix(a.Model+" · effort "+m.Effort, " · ")
	}
	if note := m.Attribution.String(); note != "" {
		a.Parts = append([]Part{{"note", "Attributed to " + note}}, a.Parts...)
	}
	return a
}

func (c *viewCtx) notification(m *session.Message) Notification {
	n := Notification{Label: strings.ReplaceAll(m.Command.Name, "-", " ")}
	n.Framing, n.FramingLong = c.framing(m.Framing)
	for _, t := range m.Teammates {
		n.Teammates = append(n.Teammates, c.teammate(t))
	}
	for _, body := range m.Notices {
		n.Tasks = append(n.Tasks, c.taskNote(m.Command.Name, body))
	}
	if len(n.Teammates) > 0 || len(n.Tasks) > 0 {
		return n
	}
	if m.Command.Args != "" {
		n.Label += " from " + m.Command.Args
	}
	if text := strings.TrimSpace(m.Command.Notice); text != "" {
		n.Body = c.b.MD.Markdown(text)
		n.Chars = runes(text)
		n.Open = n.Chars < 400
	}
	return n
}

func metaLabel(m *session.Message) string {
	t := strings.TrimSpace(m.Text())
	switch m.PromptSource {
	case session.PromptSourceSystem:
		return "Prompt written by Claude Code (not typed)"
	case session.PromptSourceSDK:
		return "Prompt sent by a program (SDK)"
	}
	switch {
	case strings.HasPrefix(t, "<local-command-caveat>") || strings.HasPrefix(t, "Caveat:"):
		return "Caveat added by Claude Code"
	case strings.HasPrefix(t, "Base directory for this skill"):
		return "Skill instructions"
	}
	return "Text added by Claude Code"
}

// collapseLines is the output length above which blocks start collapsed.
const collapseLines = 30

func (c *viewCtx) prompt(m *session.Message) Prompt {
	p := Prompt{Queued: m.Kind == session.KindQueued}
	if m.Command != nil && m.Command.Name == "memory" {
		p.Memory = m.Command.Input
		return p
	}
	var texts []string
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "image":
			if img, ok := c.image(b.Source); ok {
				p.Images = append(p.Images, img)
			}
		}
	}
	text := strings.Join(texts, "\n\n")
	text = extract(text, reIDE, func(tag, body string) {
		label := "IDE: opened file"
		if tag == "ide_selection" {
			label = "IDE: selection"
		}
		p.Context = append(p.Context, ContextChip{Label: label, Body: markup.Text(strings.TrimSpace(body))})
	})
	text = extract(text, reReminder, func(_, body string) {
		p.Reminders = append(p.Reminders, c.b.MD.Markdown(strings.TrimSpace(body)))
	})
	p.HTML = c.b.MD.Markdown(text)
	return p
}

// image makes an image from a base64 source of a known raster type; any
// other source is not shown as an image. With a Media sink the image is
// written once as a file of its own (pages stay small, copies are shared),
// else it is inlined as a data URI.
func (c *viewCtx) image(src *transcript.Source) (Image, bool) {
	if src == nil || src.Type != "base64" || src.Data == "" {
		return Image{}, false
	}
	ext := ""
	switch src.MediaType {
	case "image/png":
		ext = "png"
	case "image/jpeg":
		ext = "jpg"
	case "image/gif":
		ext = "gif"
	case "image/webp":
		ext = "webp"
	default:
		return Image{}, false
	}
	// The decoder skips line breaks (\r, \n) itself: taking them out
	// first, rune by rune, copied every image once more.
	data, err := base64.StdEncoding.DecodeString(src.Data)
	if err != nil {
		return Image{}, false
	}
	if c.b.Media != nil {
		if p := c.b.Media(ext, data); p != "" {
			return Image{Src: template.URL(link.Rel(c.links.Page, p)), Alt: src.MediaType}, true
		}
	}
	return Image{Src: template.URL("data:" + src.MediaType + ";base64," + base64.StdEncoding.EncodeToString(data)), Alt: src.MediaType}, true
}

func (c *viewCtx) answer(m *session.Message) Answer {
	a := Answer{Who: assistantName(c.s), Model: m.Model, Synthetic: m.Kind == session.KindSynthetic, Error: m.Kind == session.KindAPIError}
	if cost, ok := c.costOf[m]; ok && (cost.USD > 0 || cost.Unknown) {
		a.Cost = SpellCost(cost)
	}
	if a.Model == "<synthetic>" {
		a.Model = ""
	}
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				a.Parts = append(a.Parts, Part{"text", c.b.MD.Markdown(b.Text)})
			}
		case "thinking":
			if strings.TrimSpace(b.Thinking) == "" {
				c.emptyThinking++
				continue
			}
			a.Parts = append(a.Parts, Part{"thinking", Collapsible{Label: "Thinking", Chars: runes(b.Thinking), Body: c.b.MD.Markdown(b.Thinking)}})
		case "redacted_thinking":
			a.Parts = append(a.Parts, Part{"redacted", nil})
		case "tool_use", "server_tool_use":
			if call := c.s.Tool(b.ID); call != nil {
				tv := c.tool(call)
				tv.Fold = fold(call, tv)
				// In a very long page, the first turns' and the branches'
				// tool bodies wait as markup; later turns wait whole.
				tv.Fold.Defer = c.deferred && m.Turn <= 2
				a.Parts = append(a.Parts, Part{"tool", tv})
			}
		case "image":
			if img, ok := c.image(b.Source); ok {
				a.Parts = append(a.Parts, Part{"image", img})
			}
		default:
			// A server tool's result is shown in its call's card.
			if call := c.s.Tool(b.ToolUseID); call != nil && session.IsServerResult(b.Type) && call.ResultBlock != nil && call.ResultBlock.Type == b.Type {
				continue
			}
			a.Parts = append(a.Parts, Part{"raw", Raw{Label: b.Type + " block", JSON: c.rawBlock(b)}})
		}
	}
	return a
}

// ToolResults is a tool-result message shown on its own: results whose
// call is not in the file, and text typed beside the results (a prompt
// written while the tools ran).
type ToolResults struct {
	Orphans []ToolView
	Typed   *Prompt
}

func (c *viewCtx) toolResults(m *session.Message) ToolResults {
	var out ToolResults
	var typed []transcript.Block
	for i := range m.Blocks {
		b := &m.Blocks[i]
		switch b.Type {
		case "tool_result":
			if c.s.Tool(b.ToolUseID) != nil {
				continue // shown in its call's card
			}
			// The item carries the message's anchor; the card must not.
			c.anchored[m.UUID] = true
			call := &session.ToolCall{ID: b.ToolUseID, Name: "(unknown tool)", Result: m, ResultUUID: m.UUID, ResultBlock: b,
				IsError: b.IsError, ToolUseResult: m.Record().ToolUseResult}
			tv := c.tool(call)
			tv.Orphan = true
			out.Orphans = append(out.Orphans, tv)
		default:
			typed = append(typed, *b)
		}
	}
	if len(typed) > 0 {
		p := c.prompt(&session.Message{Kind: session.KindPrompt, Blocks: typed})
		out.Typed = &p
	}
	return out
}

// IndexView is the front page's body.
type IndexView struct {
	Projects []ProjectRow
	Sessions int
}

// ProjectRow is a project listed on the front page.
type ProjectRow struct {
	Name, Path, URL string
	Sessions        int
	Last            Time
	Tokens          int64
	ToolCalls       int
	// Cost is the project's sessions' cost, spelled; CostMicros sorts it.
	Cost       string
	CostMicros int64
	// History links the project's history page.
	History string
}

// ProjectView is a project page's body.
type ProjectView struct {
	Name, Path string
	Sessions   []SessionRow
	Orphans    []Nav
	Timeline   template.HTML
	First      Time
	Last       Time
	Tokens     int64
	ToolCalls  int
	// CostUSD sums the sessions' costs; CostUnknown says part of it is
	// of models with no price.
	CostUSD     float64
	CostUnknown bool
	// CostPartial: some sessions' costs are lower bounds (partial output
	// counts).
	CostPartial bool
	// CostDays and CostModels draw the project's cost per day and by
	// model (CostTally).
	CostDays, CostModels *Chart
	// Tags are its sessions' tags, a filter each.
	Tags []TagCount
}

// Cost is the project's cost, spelled.
func (pv *ProjectView) Cost() string {
	return LowerBound(SpellUSD(pv.CostUSD, pv.CostUnknown), pv.CostPartial)
}

// SessionRow is a session listed on its project's page. The raw values
// (seconds, counts) let the page sort its rows without parsing text.
type SessionRow struct {
	Title, URL, Excerpt string
	Start               Time
	StartUnix           int64
	Active              string
	ActiveSec           int64
	Turns, ToolCalls    int
	Agents, Problems    int
	Models              string
	Tokens              int64
	// Cost is the session's cost with its sub-agents', spelled;
	// CostMicros sorts it.
	Cost       string
	CostMicros int64
	// Tag is the session's tag, "" without one.
	Tag string
	// AgentName is the coding agent's when not Claude Code (a badge).
	AgentName string
}

// Row summarises a session for its project page.
func Row(s *session.Session, url string) SessionRow {
	ex := ""
	for _, t := range s.Turns {
		if t.HasPrompt && t.Excerpt != s.Title {
			ex = t.Excerpt
			break
		}
	}
	var models []string
	for _, m := range s.Models {
		models = append(models, strings.TrimPrefix(m, "claude-"))
	}
	t := s.Stats.Tokens
	row := SessionRow{Title: s.Title, URL: url, Excerpt: ex, Start: mkTime(s.Start), Active: duration(s.Active),
		ActiveSec: int64(s.Active.Seconds()), Turns: s.Stats.Turns, ToolCalls: s.Stats.ToolCalls, Agents: len(s.Agents),
		Problems: len(s.Problems), Models: strings.Join(models, ", "), Tokens: t.Input + t.Output + t.CacheRead + t.CacheWrite}
	if !s.Start.IsZero() {
		row.StartUnix = s.Start.Unix()
	}
	return row
}

// MkTime exposes the page time format to the site builder.
func MkTime(t time.Time) Time { return mkTime(t) }

// assistantName is who answers in a session: Claude, or the coding agent
// that wrote it (session.Session.AgentName).
func assistantName(s *session.Session) string {
	if s != nil && s.AgentName != "" {
		return s.AgentName
	}
	return "Claude"
}
