package transcript

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Record is one decoded JSONL line. Every known field is typed; fields whose
// shape varies (tool results, progress data, attachments, errors) are kept as
// raw JSON for the layers that display them. Raw always holds the whole line,
// so nothing a transcript says is lost, whatever its type.
type Record struct {
	// Line is the 1-based line number in the file.
	Line int `json:"-"`
	// Raw is the line's JSON object exactly as written (trimmed of blanks).
	Raw jsontext.Value `json:"-"`
	// Time is Timestamp parsed; zero when absent or unparseable.
	Time time.Time `json:"-"`

	Type    string `json:"type"`
	Subtype string `json:"subtype"`

	// Envelope.
	UUID                      string `json:"uuid"`
	ParentUUID                string `json:"parentUuid"`
	LogicalParentUUID         string `json:"logicalParentUuid"`
	SessionID                 string `json:"sessionId"`
	Timestamp                 string `json:"timestamp"`
	CWD                       string `json:"cwd"`
	Version                   string `json:"version"`
	GitBranch                 string `json:"gitBranch"`
	IsSidechain               bool   `json:"isSidechain"`
	UserType                  string `json:"userType"`
	Slug                      string `json:"slug"`
	AgentID                   string `json:"agentId"`
	Entrypoint                string `json:"entrypoint"`
	IsMeta                    bool   `json:"isMeta"`
	PermissionMode            string `json:"permissionMode"`
	PromptID                  string `json:"promptId"`
	RequestID                 string `json:"requestId"`
	IsCompactSummary          bool   `json:"isCompactSummary"`
	IsVisibleInTranscriptOnly bool   `json:"isVisibleInTranscriptOnly"`
	IsAPIErrorMessage         bool   `json:"isApiErrorMessage"`
	SourceToolAssistantUUID   string `json:"sourceToolAssistantUUID"`
	SourceToolUseID           string `json:"sourceToolUseID"`
	ToolUseID                 string `json:"toolUseID"`
	ParentToolUseID           string `json:"parentToolUseID"`

	// user / assistant.
	Message       *Message       `json:"message"`
	ToolUseResult jsontext.Value `json:"toolUseResult"`
	PlanContent   string         `json:"planContent"`
	Todos         jsontext.Value `json:"todos"`
	Error         jsontext.Value `json:"error"`

	// system.
	Content              jsontext.Value        `json:"content"`
	Level                string                `json:"level"`
	DurationMs           float64               `json:"durationMs"`
	RetryAttempt         int                   `json:"retryAttempt"`
	MaxRetries           int                   `json:"maxRetries"`
	RetryInMs            float64               `json:"retryInMs"`
	CompactMetadata      *CompactMetadata      `json:"compactMetadata"`
	MicrocompactMetadata *MicrocompactMetadata `json:"microcompactMetadata"`
	HookCount            int                   `json:"hookCount"`
	HookInfos            jsontext.Value        `json:"hookInfos"`
	HookErrors           jsontext.Value        `json:"hookErrors"`
	PreventedContinue    bool                  `json:"preventedContinuation"`
	StopReason           string                `json:"stopReason"`

	// Newer user / assistant fields: who or what wrote a prompt (typed,
	// queued, system, sdk), the effort level of an answer and what it is
	// attributed to.
	PromptSource         string `json:"promptSource"`
	Effort               string `json:"effort"`
	AttributionAgent     string `json:"attributionAgent"`
	AttributionSkill     string `json:"attributionSkill"`
	AttributionMCPServer string `json:"attributionMcpServer"`
	AttributionMCPTool   string `json:"attributionMcpTool"`
	// AdvisorModel is the advisor tool's model, on an answer that called it.
	AdvisorModel string `json:"advisorModel"`

	// continued-in.
	ContinuedInSessionID string `json:"continuedInSessionId"`

	// summary.
	Summary  string `json:"summary"`
	LeafUUID string `json:"leafUuid"`

	// progress.
	Data *ProgressData `json:"data"`

	// attachment.
	Attachment *Attachment `json:"attachment"`

	// queue-operation.
	Operation string `json:"operation"`

	// pr-link.
	PRNumber     int    `json:"prNumber"`
	PRURL        string `json:"prUrl"`
	PRRepository string `json:"prRepository"`

	// Title records.
	CustomTitle string `json:"customTitle"`
	AITitle     string `json:"aiTitle"`
	AgentName   string `json:"agentName"`

	// last-prompt, mode, permission-mode.
	LastPrompt string `json:"lastPrompt"`
	Mode       string `json:"mode"`

	// file-history-snapshot / delta.
	MessageID        string `json:"messageId"`
	IsSnapshotUpdate bool   `json:"isSnapshotUpdate"`
}

// Known reports whether the record's type, and its subtype, progress or
// attachment type where it has one, is one this package types. Unknown records
// are kept whole (Raw) and must be shown raw, never dropped.
func (r *Record) Known() bool {
	if !KnownType(r.Type) {
		return false
	}
	switch r.Type {
	case TypeSystem:
		return KnownSubtype(r.Subtype)
	case TypeProgress:
		return r.Data != nil && KnownProgress(r.Data.Type)
	case TypeAttachment:
		return r.Attachment != nil && KnownAttachment(r.Attachment.Type)
	}
	return true
}

// KindLabel names the record's kind for counts and reports: "system/api_error",
// "progress/bash_progress", "attachment/queued_command", or the bare type.
func (r *Record) KindLabel() string {
	t := r.Type
	if t == "" {
		t = "(no type)"
	}
	switch r.Type {
	case TypeSystem:
		if r.Subtype == "" {
			return t
		}
		return t + "/" + r.Subtype
	case TypeProgress:
		if r.Data != nil && r.Data.Type != "" {
			return t + "/" + r.Data.Type
		}
	case TypeAttachment:
		if r.Attachment != nil && r.Attachment.Type != "" {
			return t + "/" + r.Attachment.Type
		}
	}
	return t
}

// ContentString returns a system record's content when it is a JSON string,
// else "".
func (r *Record) ContentString() string { return rawString(r.Content) }

// Message is the API message carried by user and assistant records.
type Message struct {
	ID         string  `json:"id,omitempty"`
	Type       string  `json:"type,omitempty"`
	Role       string  `json:"role,omitempty"`
	Model      string  `json:"model,omitempty"`
	Content    Content `json:"content,omitzero"`
	StopReason string  `json:"stop_reason,omitempty"`
	Usage      *Usage  `json:"usage,omitzero"`
}

// Usage is the token accounting of one API response. It repeats on every
// streamed fragment of a response: count it once per message id.
type Usage struct {
	InputTokens              int64          `json:"input_tokens,omitzero"`
	OutputTokens             int64          `json:"output_tokens,omitzero"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens,omitzero"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens,omitzero"`
	ServiceTier              string         `json:"service_tier,omitempty"`
	CacheCreation            *CacheCreation `json:"cache_creation,omitzero"`
	ServerToolUse            *ServerToolUse `json:"server_tool_use,omitzero"`
	// Iterations splits a response into the model calls the API made for
	// it: "message" ones (the response's own model, already summed in the
	// fields above) and "advisor_message" ones (the advisor tool's model,
	// named in Model, and not in the fields above). Kept as written, so
	// that a newer shape leaves the record readable: Steps reads it.
	Iterations jsontext.Value `json:"iterations,omitempty"`
}

// Steps reads Iterations: each element of UsageIteration's shape, in
// order; an element of another shape is left out.
func (u *Usage) Steps() []UsageIteration {
	var elems []jsontext.Value
	if len(u.Iterations) == 0 || Unmarshal(u.Iterations, &elems) != nil {
		return nil
	}
	out := make([]UsageIteration, 0, len(elems))
	for _, e := range elems {
		var it UsageIteration
		if Unmarshal(e, &it) == nil {
			out = append(out, it)
		}
	}
	return out
}

// UsageIteration is one model call within a response (Usage.Iterations).
type UsageIteration struct {
	Type                     string         `json:"type,omitempty"`
	Model                    string         `json:"model,omitempty"`
	InputTokens              int64          `json:"input_tokens,omitzero"`
	OutputTokens             int64          `json:"output_tokens,omitzero"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens,omitzero"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens,omitzero"`
	CacheCreation            *CacheCreation `json:"cache_creation,omitzero"`
}

// IterationAdvisor is the Type of an advisor tool's model call.
const IterationAdvisor = "advisor_message"

// Context is the context the response's model read on its last call: input,
// cache reads and cache writes. A response that called the advisor sums its own calls in
// the top-level counts (each rereads the whole context), so the last
// "message" iteration says it when there are iterations.
func (u *Usage) Context() int64 {
	steps := u.Steps()
	for i := len(steps) - 1; i >= 0; i-- {
		if it := steps[i]; it.Type == "message" {
			return it.InputTokens + it.CacheReadInputTokens + it.CacheCreationInputTokens
		}
	}
	return u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
}

// CacheCreation splits cache writes by lifetime.
type CacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens,omitzero"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens,omitzero"`
}

// ServerToolUse counts server-side tool requests of a response.
type ServerToolUse struct {
	WebSearchRequests int64 `json:"web_search_requests,omitzero"`
	WebFetchRequests  int64 `json:"web_fetch_requests,omitzero"`
}

// Block is one content block. Type selects which fields are set; members of
// other blocks are kept in Extra.
type Block struct {
	Type string `json:"type,omitempty"`
	// text
	Text      string         `json:"text,omitempty"`
	Citations jsontext.Value `json:"citations,omitempty"`
	// thinking, redacted_thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	// tool_use, server_tool_use
	ID     string         `json:"id,omitempty"`
	Name   string         `json:"name,omitempty"`
	Input  jsontext.Value `json:"input,omitempty"`
	Caller jsontext.Value `json:"caller,omitempty"`
	// tool_result, web_search_tool_result
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   Content `json:"content,omitzero"`
	IsError   bool    `json:"is_error,omitzero"`
	// image, document
	Source *Source `json:"source,omitzero"`
	// tool_reference
	ToolName string `json:"tool_name,omitempty"`

	// Extra holds the members not listed above (all of a block of an
	// unknown type but its type), so nothing is lost.
	Extra jsontext.Value `json:",embed"`
}

// Source is an image or document source.
type Source struct {
	Type      string `json:"type,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// CompactMetadata describes a compact_boundary.
type CompactMetadata struct {
	Trigger   string `json:"trigger,omitempty"`
	PreTokens int64  `json:"preTokens,omitzero"`
}

// MicrocompactMetadata describes a microcompact_boundary.
type MicrocompactMetadata struct {
	Trigger          string   `json:"trigger,omitempty"`
	PreTokens        int64    `json:"preTokens,omitzero"`
	TokensSaved      int64    `json:"tokensSaved,omitzero"`
	CompactedToolIDs []string `json:"compactedToolIds,omitempty"`
}

// ProgressData is a progress record's data. Message holds the embedded
// sub-agent message of agent_progress; Extra the members not listed.
type ProgressData struct {
	Type     string         `json:"type,omitempty"`
	AgentID  string         `json:"agentId,omitempty"`
	Prompt   string         `json:"prompt,omitempty"`
	Output   string         `json:"output,omitempty"`
	HookName string         `json:"hookName,omitempty"`
	Message  jsontext.Value `json:"message,omitempty"`
	Extra    jsontext.Value `json:",embed"`
}

// Attachment is an attachment record's payload; Extra keeps the members not
// listed.
type Attachment struct {
	Type     string         `json:"type,omitempty"`
	Prompt   jsontext.Value `json:"prompt,omitempty"`
	HookName string         `json:"hookName,omitempty"`
	Content  jsontext.Value `json:"content,omitempty"`
	Extra    jsontext.Value `json:",embed"`
}

// PromptText returns a queued_command's prompt when it is a string, or the
// text blocks of an array prompt joined by blank lines.
func (a *Attachment) PromptText() string {
	if a == nil {
		return ""
	}
	if s := rawString(a.Prompt); s != "" {
		return s
	}
	var c Content
	if err := unmarshal(a.Prompt, &c); err == nil {
		return c.Text()
	}
	return ""
}

// IsUUID tells whether s has the form of the ids Claude Code gives
// sessions, records and file names: 8-4-4-4-12 hexadecimal digits.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
