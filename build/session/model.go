// Package session turns the records of one transcript into a conversation:
// the uuid tree with its branches, merged assistant messages, paired tool
// calls, turns, sub-agents and statistics. It does no I/O.
package session

import (
	"time"

	"ccsite/build/pricing"
	"ccsite/build/transcript"
	"github.com/go-json-experiment/json/jsontext"
)

// Kind classifies a Message for display and for turn splitting.
type Kind string

// Message kinds. Only KindPrompt, KindCommand, KindBashInput and KindQueued
// are typed by a person and start a turn.
const (
	KindPrompt         Kind = "prompt"          // typed by the person
	KindCommand        Kind = "command"         // a slash command (<command-name>)
	KindBashInput      Kind = "bash-input"      // "!" shell input
	KindBashOutput     Kind = "bash-output"     // "!" shell output
	KindLocalOutput    Kind = "local-output"    // slash-command output (<local-command-stdout>)
	KindQueued         Kind = "queued"          // a prompt typed while a tool ran (attachment)
	KindToolResult     Kind = "tool-result"     // user record carrying tool_result blocks
	KindMeta           Kind = "meta"            // isMeta: skill expansion, caveats
	KindInterruption   Kind = "interruption"    // [Request interrupted by user...]
	KindCompactSummary Kind = "compact-summary" // the summary that restarts a compacted conversation
	KindNotification   Kind = "notification"    // <task-notification>, <bash-notification>
	KindAnswer         Kind = "answer"          // assistant message (merged fragments)
	KindSynthetic      Kind = "synthetic"       // assistant message of model <synthetic>
	KindAPIError       Kind = "api-error"       // assistant message marked isApiErrorMessage
	KindSystem         Kind = "system"          // system record (see Subtype)
	KindAttachment     Kind = "attachment"      // attachment record other than a queued prompt
	KindProgress       Kind = "progress"        // progress record not attached to a tool call
	KindUnknown        Kind = "unknown"         // a record of a type or shape not known: shown raw
)

// StartsTurn reports whether a message of kind k is typed by a person and
// so may open a turn (see Message.Prompt).
func (k Kind) StartsTurn() bool {
	return k == KindPrompt || k == KindCommand || k == KindBashInput || k == KindQueued
}

// Session is one transcript file (a session or a sub-agent) as a conversation.
type Session struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	// SessionIDs lists every sessionId its records carry (resumed sessions
	// carry several), first seen first.
	SessionIDs []string `json:"sessionIds,omitempty"`

	Title       string    `json:"title"`
	TitleSource string    `json:"titleSource"` // custom-title, ai-title, agent-name, summary, first-prompt, agent-description, command, first-answer, first-tool, none (see title.go)
	Slug        string    `json:"slug,omitempty"`
	CWD         string    `json:"cwd,omitempty"`
	GitBranches []string  `json:"gitBranches,omitempty"`
	Versions    []string  `json:"versions,omitempty"`
	Models      []string  `json:"models,omitempty"`
	Start       time.Time `json:"start,omitzero"`
	End         time.Time `json:"end,omitzero"`
	// Active is the time spent working: gaps between records longer than
	// IdleGap are not counted.
	Active   time.Duration `json:"-"`
	ActiveMs int64         `json:"activeMs"`

	Stats Stats `json:"stats"`

	// Agent describes the session as a sub-agent; nil for a main session.
	Agent *AgentInfo `json:"agent,omitempty"`
	// AgentName names the coding agent whose session this is when it is
	// not Claude Code ("Codex"): transcript.File.Agent. Parent is the
	// session it was forked from or (ParentIsAgent) that ran it as a
	// sub-agent, "" for none; Children are the sessions that name it so.
	AgentName     string   `json:"agentName,omitempty"`
	Parent        string   `json:"parent,omitempty"`
	ParentIsAgent bool     `json:"parentIsAgent,omitzero"`
	Children      []string `json:"children,omitempty"`

	// Messages is the live branch in reading order, root to newest leaf:
	// merged assistant fragments are one message, and records hanging off the
	// branch (progress, hooks) and records shown raw sit where they occurred.
	Messages []*Message `json:"messages"`
	// Branches are the abandoned branches, each reachable from its fork point.
	Branches []*Branch `json:"branches,omitempty"`
	// Turns split Messages at each human prompt.
	Turns []Turn `json:"turns"`

	Tools         []*ToolCall    `json:"tools,omitempty"`
	Unanswered    []string       `json:"unansweredToolUses,omitempty"`
	OrphanResults []OrphanResult `json:"orphanToolResults,omitempty"`

	// Side records carry no uuid or sit outside the conversation: summaries,
	// snapshots, queue operations, modes, titles, last prompts.
	Summaries []Summary `json:"summaries,omitempty"`
	PRLinks   []PRLink  `json:"prLinks,omitempty"`
	Side      []Side    `json:"side,omitempty"`
	// RecordedCost is Claude Code's own cost of the session (its last
	// cost-state record); nil when it wrote none.
	RecordedCost *CostState `json:"recordedCost,omitempty"`
	// Pricing prices Cost, CostWithAgents and Overview; nil: the embedded
	// table (pricing.Default). The build sets it from --pricing.
	Pricing *pricing.Table `json:"-"`
	// ContinuedIn is the session id the conversation goes on in (a
	// continued-in record: the session was sent to the background).
	ContinuedIn string `json:"continuedIn,omitempty"`
	// Tag is the session's tag (its last tag record; /tag), "" without
	// one. EndedByModel says the model ended the conversation
	// (EndConversation: an ended-by-model record).
	Tag          string `json:"tag,omitempty"`
	EndedByModel bool   `json:"endedByModel,omitzero"`

	// AgentRefs are the sub-agent ids this session's Task/Agent calls and
	// agent_progress records name, with the call that names them.
	AgentRefs []AgentRef `json:"agentRefs,omitempty"`
	// Agents are the attached sub-agent sessions, by first appearance.
	Agents []*Session `json:"agents,omitempty"`

	// Unknown counts the records shown raw, by kind label.
	Unknown  map[string]int `json:"unknown,omitzero"`
	Problems []Problem      `json:"problems,omitempty"`

	toolIndex map[string]*ToolCall
	// memo keeps what Responses last gave (nil: a session not made by
	// Build, which makes them anew each time). A shallow copy of the
	// session (a page's view of its agent tree) shares it: its
	// responses are the same.
	memo *sessionMemo
	// work counts the steps of the searches whose cost depends on the
	// input's shape (duplicate uuid suffixes, hosts for stray roots):
	// tests check it stays linear in the records.
	work int
}

// IdleGap is the longest pause between two records that still counts as
// active time.
const IdleGap = 5 * time.Minute

// Stats are the session's totals. Messages, tool calls and tokens cover every
// branch (an abandoned branch was still paid for); turns count the live branch.
type Stats struct {
	Records     int            `json:"records"`
	Lines       int            `json:"lines"`
	Bytes       int64          `json:"bytes"`
	Turns       int            `json:"turns"`
	Messages    int            `json:"messages"`
	Prompts     int            `json:"prompts"`
	Answers     int            `json:"answers"`
	ToolCalls   int            `json:"toolCalls"`
	ToolsByName map[string]int `json:"toolsByName,omitzero"`
	Tokens      Tokens         `json:"tokens"`
	Duplicates  int            `json:"duplicateRecords,omitzero"`
}

// Tokens are summed once per API response (message id).
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	// Partial counts the responses whose recorded output count is partial
	// (see PartialOutput): Output is then a lower bound, and OutputMissing
	// what their estimates add to it.
	Partial       int   `json:"partialOutputs,omitzero"`
	OutputMissing int64 `json:"outputMissing,omitzero"`
}

// Add adds o to t.
func (t *Tokens) Add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheRead += o.CacheRead
	t.CacheWrite += o.CacheWrite
	t.Partial += o.Partial
	t.OutputMissing += o.OutputMissing
}

// OutputEstimate is Output with each partial count replaced by its
// estimate.
func (t Tokens) OutputEstimate() int64 { return t.Output + t.OutputMissing }

// Message is one node of the conversation: a user or assistant message (an
// assistant message merges the fragments that share its message id), a system
// event, an attachment, or a record shown raw.
type Message struct {
	UUID       string `json:"uuid"`
	ParentUUID string `json:"parentUuid,omitempty"`
	// Adopted is set when the record's own parent is missing and the message
	// was attached after the record before it in the file.
	Adopted   bool      `json:"adopted,omitzero"`
	Line      int       `json:"line"`
	Time      time.Time `json:"time,omitzero"`
	Kind      Kind      `json:"kind"`
	Type      string    `json:"type"`
	Subtype   string    `json:"subtype,omitempty"`
	Role      string    `json:"role,omitempty"`
	Model     string    `json:"model,omitempty"`
	MessageID string    `json:"messageId,omitempty"`
	Sidechain bool      `json:"sidechain,omitzero"`
	// Branch is 0 on the live branch, else the 1-based index into Branches.
	Branch int `json:"branch"`
	// Turn is the 1-based turn on the live branch, 0 off the live branch.
	Turn int `json:"turn"`
	// Prompt is set on the message a person typed to open a turn. A record
	// holding only what came with a prompt (a pasted image, IDE context)
	// written apart from its text is not one: it leads into the prompt.
	Prompt bool `json:"prompt,omitzero"`

	Blocks []transcript.Block `json:"blocks,omitempty"`
	// Command holds the parsed pseudo-XML of commands, shell and notices.
	Command *Command `json:"command,omitempty"`
	// ToolUseIDs lists the tool calls this message makes (assistant) or
	// answers (tool results).
	ToolUseIDs []string `json:"toolUseIds,omitempty"`

	// PromptSource is who wrote a user message (typed, queued, system,
	// sdk) when the record says.
	PromptSource string `json:"promptSource,omitempty"`
	// Effort is an answer's effort level; Attribution what it is
	// attributed to (agent, skill, MCP server and tool).
	Effort      string       `json:"effort,omitempty"`
	Attribution *Attribution `json:"attribution,omitempty"`
	// Teammates are the <teammate-message> blocks of an agent team's
	// message, every one kept.
	Teammates []Teammate `json:"teammates,omitempty"`
	// Notices are the bodies of a notification's <task-notification> and
	// <bash-notification> blocks (ParseNotice reads them); Framing the
	// text Claude Code wrote around a notification's blocks.
	Notices []string `json:"notices,omitempty"`
	Framing string   `json:"framing,omitempty"`

	// Raw is the whole record for kinds without a message (system,
	// attachment, progress, unknown), so JSON readers lose nothing.
	Raw jsontext.Value `json:"raw,omitempty"`

	// Records are the source records: several for a merged assistant message.
	Records []*transcript.Record `json:"-"`
}

// Text returns the message's text blocks joined by blank lines.
func (m *Message) Text() string { return transcript.Content{Blocks: m.Blocks}.Text() }

// Record returns the message's first source record.
func (m *Message) Record() *transcript.Record { return m.Records[0] }

// Command is Claude Code's pseudo-XML found in a user message.
type Command struct {
	Name    string `json:"name,omitempty"`    // /command
	Message string `json:"message,omitempty"` // <command-message>
	Args    string `json:"args,omitempty"`
	Input   string `json:"input,omitempty"`  // <bash-input>
	Stdout  string `json:"stdout,omitempty"` // <bash-stdout>, <local-command-stdout>
	Stderr  string `json:"stderr,omitempty"`
	Notice  string `json:"notice,omitempty"` // notification body
}

// Branch is an abandoned line of the conversation: a rewind or an edit left
// it behind. Its messages read like the live branch's.
type Branch struct {
	Index int `json:"index"`
	// ForkUUID is the uuid of the record both lines grow from; Fork is the
	// message holding it, on the live branch or another branch.
	ForkUUID string     `json:"forkUuid"`
	Fork     *Message   `json:"-"`
	Messages []*Message `json:"messages"`
	// Leaf is the time of its newest record.
	Leaf time.Time `json:"leafTime,omitzero"`
}

// Turn is a human prompt and everything up to the next one, on the live
// branch. The first turn has no Prompt when the session starts otherwise.
type Turn struct {
	Index int `json:"index"`
	// First and Last bound the turn's messages in Session.Messages.
	First     int  `json:"first"`
	Last      int  `json:"last"`
	HasPrompt bool `json:"hasPrompt"`
	// Prompt is the index in Session.Messages of the turn's prompt, -1
	// when the turn has none; lead-ins (caveats, pasted images) may
	// precede it within the turn.
	Prompt  int            `json:"prompt"`
	Start   time.Time      `json:"start,omitzero"`
	End     time.Time      `json:"end,omitzero"`
	Excerpt string         `json:"excerpt"`
	Tools   map[string]int `json:"tools,omitzero"`
	Answers int            `json:"answers"`
	Timing  *Timing        `json:"timing,omitempty"` // where its time went (timing.go), set when the session is built
}

// ToolCall is a tool_use paired with its tool_result.
type ToolCall struct {
	ID    string         `json:"id"`
	Name  string         `json:"name"`
	Input jsontext.Value `json:"input,omitempty"`
	// Use is the assistant message making the call; Result the message
	// answering it, nil when unanswered.
	Use           *Message          `json:"-"`
	Result        *Message          `json:"-"`
	UseUUID       string            `json:"useUuid"`
	ResultUUID    string            `json:"resultUuid,omitempty"`
	ResultBlock   *transcript.Block `json:"resultBlock,omitempty"`
	IsError       bool              `json:"isError,omitzero"`
	ToolUseResult jsontext.Value    `json:"toolUseResult,omitempty"`
	// Progress holds the call's progress records (streamed output, hooks,
	// embedded sub-agent messages), in file order.
	Progress      []*transcript.Record `json:"-"`
	ProgressCount int                  `json:"progress,omitzero"`
	// AgentID names the sub-agent a Task/Agent call ran.
	AgentID string `json:"agentId,omitempty"`
	// input is Input decoded, on first use (see In).
	input lazyInput
}

// OrphanResult is a tool_result whose tool_use is not in the file.
type OrphanResult struct {
	ToolUseID string `json:"toolUseId"`
	UUID      string `json:"uuid"`
	Line      int    `json:"line"`
}

// Summary is a summary record: mostly a title, its leaf often in another file.
type Summary struct {
	Text     string `json:"text"`
	LeafUUID string `json:"leafUuid"`
	InFile   bool   `json:"leafInFile"`
	Line     int    `json:"line"`
}

// PRLink is a pull request the session created or touched.
type PRLink struct {
	Number     int       `json:"number"`
	URL        string    `json:"url"`
	Repository string    `json:"repository"`
	Time       time.Time `json:"time,omitzero"`
}

// Side is a record outside the conversation tree, by line.
type Side struct {
	Line   int                `json:"line"`
	Kind   string             `json:"kind"`
	Time   time.Time          `json:"time,omitzero"`
	Record *transcript.Record `json:"-"`
}

// AgentRef is a sub-agent named by a call or progress record of the session.
type AgentRef struct {
	AgentID   string `json:"agentId"`
	ToolUseID string `json:"toolUseId,omitempty"`
	Via       string `json:"via"` // toolUseResult, agent_progress, sidechain
}

// AgentInfo describes a sub-agent session and where it links.
type AgentInfo struct {
	AgentID     string `json:"agentId"`
	Layout      string `json:"layout"` // inline (1.0.x sidechain), legacy (agent-*.jsonl), subagents (<session>/subagents/), progress (rebuilt from agent_progress)
	ParentID    string `json:"parentSessionId,omitempty"`
	ToolUseID   string `json:"toolUseId,omitempty"`
	AgentType   string `json:"agentType,omitempty"`
	Description string `json:"description,omitempty"`
	Warmup      bool   `json:"warmup,omitzero"`
	Orphan      bool   `json:"orphan,omitzero"`
	ParentAgent string `json:"parentAgentId,omitempty"` // the agent that started it (depth ≥ 2), from .meta.json or its call
	WorkflowID  string `json:"workflowId,omitempty"`    // the workflow of an agent under subagents/workflows/<id>/
	// LinkedBy says which evidence attached the agent to its parent.
	LinkedBy []string `json:"linkedBy,omitempty"`
}

// Problem is something wrong with the session's input, tied to a line when
// it can be.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitzero"`
	Kind   string `json:"kind"` // line, dangling-parent, duplicate-uuid, cycle, agent
	Reason string `json:"reason"`
}
