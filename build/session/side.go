package session

import (
	"fmt"
	"regexp"
	"strings"

	"ccsite/build/transcript"
	"github.com/go-json-experiment/json/jsontext"
)

// CostState is Claude Code's own record of what the session cost, from its
// last cost-state record.
type CostState struct {
	TotalCostUSD        float64                   `json:"totalCostUSD"`
	TotalDurationMs     float64                   `json:"totalDuration"`
	ModelUsage          map[string]ModelCostUsage `json:"modelUsage,omitzero"`
	HasUnknownModelCost bool                      `json:"hasUnknownModelCost,omitzero"`
	// Newer than 2.1.237: the time Claude Code waited on the API and ran
	// tools, and the lines its edits added and removed.
	TotalAPIDurationMs  float64 `json:"totalAPIDuration,omitzero"`
	TotalToolDurationMs float64 `json:"totalToolDuration,omitzero"`
	TotalLinesAdded     int64   `json:"totalLinesAdded,omitzero"`
	TotalLinesRemoved   int64   `json:"totalLinesRemoved,omitzero"`
	Line                int     `json:"line"`
}

// ModelCostUsage is one model's part of a CostState.
type ModelCostUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	CostUSD                  float64 `json:"costUSD"`
}

// Teammate is one <teammate-message> block of an agent team's message, or
// another agent's (<agent-message>) or session's (<cross-session-message>)
// message: Via names the tag of those two.
type Teammate struct {
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	Via     string `json:"via,omitempty"`
	Color   string `json:"color,omitempty"`
	Summary string `json:"summary,omitempty"`
	Body    string `json:"body"`
}

// Attribution says what an answer is attributed to (agent, skill, MCP
// server and tool).
type Attribution struct {
	Agent     string `json:"agent,omitempty"`
	Skill     string `json:"skill,omitempty"`
	MCPServer string `json:"mcpServer,omitempty"`
	MCPTool   string `json:"mcpTool,omitempty"`
}

// String is the attribution as a short note: "agent X · skill Y · MCP s/t".
func (a *Attribution) String() string {
	if a == nil {
		return ""
	}
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	add("agent", a.Agent)
	add("skill", a.Skill)
	mcp := a.MCPServer
	if a.MCPTool != "" {
		mcp = strings.TrimPrefix(mcp+"/"+a.MCPTool, "/")
	}
	add("MCP", mcp)
	return strings.Join(parts, " · ")
}

func attribution(r *transcript.Record) *Attribution {
	a := &Attribution{Agent: r.AttributionAgent, Skill: r.AttributionSkill, MCPServer: r.AttributionMCPServer, MCPTool: r.AttributionMCPTool}
	if *a == (Attribution{}) {
		return nil
	}
	return a
}

// reAttr reads a tag's attributes.
var reAttr = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_-]*)="([^"]*)"`)

// sideFacts reads what the records outside the tree say about the session
// (its recorded cost, where it continues) and places the ones shown, as
// events, among the live branch's messages by line.
func sideFacts(s *Session) {
	for _, sd := range s.Side {
		r := sd.Record
		if r == nil {
			continue
		}
		switch r.Type {
		case transcript.TypeCostState:
			var c CostState
			if transcript.Unmarshal(r.Raw, &c) != nil {
				// A shape off the spec: keep what the lenient fields say.
				c = CostState{}
			}
			c.Line = r.Line
			s.RecordedCost = &c
		case transcript.TypeContinuedIn:
			s.ContinuedIn = r.ContinuedInSessionID
			placeByLine(s, sideMessage(s, r, 0))
		case transcript.TypeTag:
			// The last tag record wins; an empty tag takes it off.
			s.Tag = strings.TrimSpace(recordString(r, "tag"))
		case transcript.TypeEndedByModel:
			s.EndedByModel = true
		}
	}
}

// recordString is a string member of a record's JSON ("" when it is of
// another shape).
func recordString(r *transcript.Record, key string) string {
	var m map[string]jsontext.Value
	if transcript.Unmarshal(r.Raw, &m) != nil {
		return ""
	}
	return RawString(m[key])
}

// placeByLine inserts m into the live branch after the last message written
// before it in the file.
func placeByLine(s *Session, m *Message) {
	at := 0
	for i, o := range s.Messages {
		if o.Line < m.Line {
			at = i + 1
		}
	}
	s.Messages = append(s.Messages, nil)
	copy(s.Messages[at+1:], s.Messages[at:])
	s.Messages[at] = m
}

// Bookkeeping reports a known record kind that carries nothing for a
// reader: counted among the side records, never shown.
func Bookkeeping(r *transcript.Record) bool {
	switch r.Type {
	case transcript.TypeCostState, transcript.TypeWorktreeState, transcript.TypeAgentColor,
		transcript.TypeAgentSetting, transcript.TypeFrameLink, transcript.TypeRelocated,
		transcript.TypeForkContextRef, transcript.TypeDevMods, transcript.TypeStarted,
		transcript.TypeResult, transcript.TypeTaskSummary, transcript.TypeContentReplacement,
		transcript.TypeATISLatch, transcript.TypeFileHistoryDelta, transcript.TypeIsolationLatch,
		transcript.TypeAttributionSnapshot, transcript.TypeObserverRef, transcript.TypeContextCollapseCommit,
		transcript.TypeContextCollapseSnap, transcript.TypeContextCollapseReset, transcript.TypeHistorySuppression,
		transcript.TypeMemoryMode:
		return true
	}
	return strings.HasPrefix(r.Type, transcript.TypeArtifactPrefix)
}

// EventText is the one line a newer record kind (continued-in, the
// newer system subtypes and attachment types) shows as: what happened, with
// its useful fields. ok is false for the kinds it does not describe. Page,
// Markdown export and search documents all use it.
func EventText(r *transcript.Record) (text string, ok bool) {
	switch r.Type {
	case transcript.TypeContinuedIn:
		text = "Continued in another session"
		if r.ContinuedInSessionID != "" {
			text += ": " + r.ContinuedInSessionID
		}
		return text, true
	case transcript.TypeSystem:
		return systemText(r)
	case transcript.TypeAttachment:
		return attachmentText(r)
	}
	return newerText(r)
}

// newerText is the line of the record kinds newer than 2.1.237, from the
// members their writer gives them; any member of another shape is left
// out of the line (the full view shows the record).
func newerText(r *transcript.Record) (string, bool) {
	var m map[string]jsontext.Value
	if transcript.Unmarshal(r.Raw, &m) != nil {
		m = nil
	}
	str := func(k string) string { return strings.TrimSpace(RawString(m[k])) }
	with := func(label, v string) string {
		if v == "" {
			return label
		}
		return label + ": " + Excerpt(v, 160)
	}
	in := func(label, v string) string {
		if v == "" {
			return label
		}
		return label + " (" + Excerpt(v, 80) + ")"
	}
	switch r.Type {
	case transcript.TypeTag:
		if t := str("tag"); t != "" {
			return "Tagged " + Excerpt(t, 80), true
		}
		return "Tag removed", true
	case transcript.TypeEndedByModel:
		return "Claude ended the conversation (EndConversation): no later prompt is answered in this session", true
	case transcript.TypeIsolationLatch:
		return with("Isolation latched", str("side")), true
	case transcript.TypeAttributionSnapshot:
		return with("Attribution snapshot", str("messageId")), true
	case transcript.TypeObserverRef:
		return "Observer attached", true
	case transcript.TypeContextCollapseCommit:
		return with("Older messages collapsed in context", str("summary")), true
	case transcript.TypeContextCollapseSnap:
		var staged []jsontext.Value
		if transcript.Unmarshal(m["staged"], &staged) != nil || len(staged) == 0 {
			return "Context collapse state saved", true
		}
		if len(staged) == 1 {
			return "Context collapse state saved: 1 span staged", true
		}
		return fmt.Sprintf("Context collapse state saved: %d spans staged", len(staged)), true
	case transcript.TypeContextCollapseReset:
		return in("Context collapses reset", str("reason")), true
	case transcript.TypeHistorySuppression:
		return in("History kept out of later sessions", str("cause")), true
	case transcript.TypeMemoryMode:
		t := with("Memory mode", str("mode"))
		if reason := str("reason"); reason != "" {
			t += " (" + Excerpt(reason, 80) + ")"
		}
		return t, true
	}
	return "", false
}

func systemText(r *transcript.Record) (string, bool) {
	content := strings.TrimSpace(StripANSI(r.ContentString()))
	with := func(label string) (string, bool) {
		if content != "" && len(content) < 200 && !strings.Contains(content, "\n") {
			return label + ": " + content, true
		}
		return label, true
	}
	switch r.Subtype {
	case transcript.SubtypeAgentsKilled:
		return with("Background agents stopped")
	case transcript.SubtypeModelRefusal:
		return with("Model refused; fell back to another model")
	case transcript.SubtypeModelConsent:
		return with("Fell back to another model (consent required)")
	case transcript.SubtypeScheduledTaskFire:
		return with("Scheduled task fired")
	}
	return "", false
}

// attachmentFields are the members newer attachment types carry, all
// optional.
type attachmentFields struct {
	Data          jsontext.Value `json:"data"`
	ToolUseID     string         `json:"toolUseID"`
	Filename      string         `json:"filename"`
	DisplayPath   string         `json:"displayPath"`
	Path          string         `json:"path"`
	Snippet       string         `json:"snippet"`
	NewDate       string         `json:"newDate"`
	ReminderType  string         `json:"reminderType"`
	IsSubAgent    bool           `json:"isSubAgent"`
	PlanFilePath  string         `json:"planFilePath"`
	PlanExists    bool           `json:"planExists"`
	IDEName       string         `json:"ideName"`
	LineStart     int            `json:"lineStart"`
	LineEnd       int            `json:"lineEnd"`
	Skills        jsontext.Value `json:"skills"`
	AutoConsent   jsontext.Value `json:"autoModeConsentFlow"`
	BashFirst     jsontext.Value `json:"bashFirst"`
	SteerOnly     jsontext.Value `json:"steerOnly"`
	Bypass        jsontext.Value `json:"bypass"`
	Name          jsontext.Value `json:"name"`
	Species       jsontext.Value `json:"species"`
	ContentString string         `json:"-"`
}

// AttachmentFields decodes the members of a newer attachment leniently: a
// member of another shape is left empty.
func attachmentFieldsOf(a *transcript.Attachment) attachmentFields {
	var f attachmentFields
	if a == nil {
		return f
	}
	var m map[string]jsontext.Value
	if transcript.Unmarshal(a.Extra, &m) != nil {
		m = nil
	}
	str := func(k string) string { return RawString(m[k]) }
	num := func(k string) int {
		var n float64
		if transcript.Unmarshal(m[k], &n) != nil {
			return 0
		}
		return int(n)
	}
	flag := func(k string) bool { return string(m[k]) == "true" }
	f.Data, f.ToolUseID = m["data"], str("toolUseID")
	f.Filename, f.DisplayPath, f.Path, f.Snippet = str("filename"), str("displayPath"), str("path"), str("snippet")
	f.NewDate, f.ReminderType, f.IsSubAgent = str("newDate"), str("reminderType"), flag("isSubAgent")
	f.PlanFilePath, f.PlanExists = str("planFilePath"), flag("planExists")
	f.IDEName, f.LineStart, f.LineEnd = str("ideName"), num("lineStart"), num("lineEnd")
	f.Skills = m["skills"]
	f.AutoConsent, f.BashFirst, f.SteerOnly, f.Bypass = m["autoModeConsentFlow"], m["bashFirst"], m["steerOnly"], m["bypass"]
	f.Name, f.Species = m["name"], m["species"]
	f.ContentString = RawString(a.Content)
	return f
}

func attachmentText(r *transcript.Record) (string, bool) {
	a := r.Attachment
	if a == nil {
		return "", false
	}
	f := attachmentFieldsOf(a)
	file := f.DisplayPath
	if file == "" {
		file = f.Filename
	}
	if file == "" {
		file = f.Path
	}
	on := func(s string) string {
		if file == "" {
			return s
		}
		return s + ": " + file
	}
	switch a.Type {
	case transcript.AttachmentStructuredOutput:
		t := "Structured output"
		if f.ToolUseID != "" {
			t += " of tool call " + f.ToolUseID
		}
		return t, true
	case transcript.AttachmentAutoMode:
		var on []string
		for _, kv := range []struct {
			k string
			v jsontext.Value
		}{{"consent flow", f.AutoConsent}, {"bash first", f.BashFirst}, {"steer only", f.SteerOnly}, {"bypass", f.Bypass}} {
			if string(kv.v) == "true" {
				on = append(on, kv.k)
			} else if s := RawString(kv.v); s != "" {
				on = append(on, kv.k+" "+s)
			}
		}
		t := "Auto mode"
		if len(on) > 0 {
			t += " (" + strings.Join(on, ", ") + ")"
		}
		return t, true
	case transcript.AttachmentEditedTextFile:
		return on("File changed outside the session"), true
	case transcript.AttachmentNestedMemory:
		return on("Memory file loaded"), true
	case transcript.AttachmentFile:
		return on("File attached"), true
	case transcript.AttachmentDateChange:
		t := "Date changed"
		if f.NewDate != "" {
			t += " to " + f.NewDate
		}
		return t, true
	case transcript.AttachmentPlanMode:
		t := "Plan mode"
		if f.IsSubAgent {
			t += " (sub-agent)"
		}
		if f.PlanFilePath != "" {
			t += ": plan file " + f.PlanFilePath
			if !f.PlanExists {
				t += " (not written yet)"
			}
		}
		return t, true
	case transcript.AttachmentPlanModeExit:
		t := "Plan mode ended"
		if f.PlanFilePath != "" {
			t += ": plan file " + f.PlanFilePath
		}
		return t, true
	case transcript.AttachmentCompactFileReference:
		return on("File kept by reference after compaction"), true
	case transcript.AttachmentSelectedLinesInIDE:
		t := "Lines selected in the IDE"
		if f.IDEName != "" {
			t = "Lines selected in " + f.IDEName
		}
		if file != "" {
			t += ": " + file
			if f.LineStart > 0 {
				t += fmt.Sprintf(":%d", f.LineStart)
				if f.LineEnd > f.LineStart {
					t += fmt.Sprintf("-%d", f.LineEnd)
				}
			}
		}
		return t, true
	case transcript.AttachmentInvokedSkills:
		t := "Skills invoked"
		if names := skillNames(f.Skills); len(names) > 0 {
			t += ": " + strings.Join(names, ", ")
		}
		return t, true
	case transcript.AttachmentUltraEffortEnter:
		return "Ultra effort mode entered", true
	case transcript.AttachmentCompanionIntro:
		name, species := RawString(f.Name), RawString(f.Species)
		switch {
		case name != "" && species != "":
			return "Companion introduced: " + name + " the " + species, true
		case name+species != "":
			return "Companion introduced: " + name + species, true
		}
		return "Companion introduced", true
	}
	return "", false
}

// AttachmentBody is the text a newer attachment carries (a file's content,
// a snippet, a structured output), for the collapsed detail and search.
func AttachmentBody(a *transcript.Attachment) string {
	if a == nil {
		return ""
	}
	f := attachmentFieldsOf(a)
	switch {
	case f.ContentString != "":
		return f.ContentString
	case f.Snippet != "":
		return f.Snippet
	case len(f.Data) > 0:
		if s := RawString(f.Data); s != "" {
			return s
		}
		return string(f.Data)
	}
	return ""
}

// skillNames reads invoked_skills' skills: names, or objects with a name.
func skillNames(v jsontext.Value) []string {
	var list []jsontext.Value
	if transcript.Unmarshal(v, &list) != nil {
		return nil
	}
	var out []string
	for _, e := range list {
		if s := RawString(e); s != "" {
			out = append(out, s)
			continue
		}
		var o struct {
			Name string `json:"name"`
		}
		if transcript.Unmarshal(e, &o) == nil && o.Name != "" {
			out = append(out, o.Name)
		}
	}
	return out
}
