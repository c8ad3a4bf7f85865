package session

import "time"

// Overview is what lists and manifests need of a session: its title,
// first words, times, counts and models, without its messages. Project
// pages, the index and the build's manifest are made from overviews.
type Overview struct {
	Title string `json:"title"`
	// TitleSource says where the title comes from (Session.TitleSource).
	TitleSource string `json:"titleSource,omitempty"`
	// Excerpt is the first prompt's first words, when they differ from the
	// title.
	Excerpt   string        `json:"excerpt,omitempty"`
	Start     time.Time     `json:"start,omitzero"`
	End       time.Time     `json:"end,omitzero"`
	Active    time.Duration `json:"active,omitzero"`
	Turns     int           `json:"turns,omitzero"`
	ToolCalls int           `json:"toolCalls,omitzero"`
	Tokens    Tokens        `json:"tokens"`
	Models    []string      `json:"models,omitempty"`
	// Agents counts the attached sub-agents; Problems the session's own.
	Agents   int `json:"agents,omitzero"`
	Problems int `json:"problems,omitzero"`
	// Prompts counts what a person typed (prompts, shell input, slash
	// commands: Stats.Prompts), Housekeeping the built-in slash commands
	// without arguments among them (/clear, /model…), Answers the
	// assistant's answers, Messages every message (Stats).
	Prompts      int `json:"prompts,omitzero"`
	Housekeeping int `json:"housekeeping,omitzero"`
	Answers      int `json:"answers,omitzero"`
	Messages     int `json:"messages,omitzero"`
	// Bytes is the size of the transcript file.
	Bytes int64 `json:"bytes,omitzero"`
	// Cost is the USD cost of the session's responses and its sub-agents'
	// (Session.CostWithAgents) at the session's pricing table; CostUnknown
	// says some tokens are of a model with no price, so Cost is a lower
	// bound. RecordedCost is Claude Code's own figure (its last cost-state
	// record), 0 when it wrote none.
	Cost float64 `json:"cost,omitzero"`
	// CostByModel splits Cost by model ("" keys none).
	CostByModel  map[string]float64 `json:"costByModel,omitempty"`
	CostUnknown  bool               `json:"costUnknown,omitzero"`
	RecordedCost float64            `json:"recordedCost,omitzero"`
	// CostPartial says some of its output counts are partial records:
	// Cost is then a lower bound.
	CostPartial bool `json:"costPartial,omitzero"`
	// Tag is the session's tag (/tag), "" without one.
	Tag string `json:"tag,omitempty"`
	// AgentName is the coding agent's name when not Claude Code
	// (Session.AgentName).
	AgentName string `json:"agentName,omitempty"`
}

// Overview summarises s.
func (s *Session) Overview() Overview {
	ex := ""
	for _, t := range s.Turns {
		if t.HasPrompt && t.Excerpt != s.Title {
			ex = t.Excerpt
			break
		}
	}
	housekeeping := 0
	for _, m := range s.allMessages() {
		if m.Prompt && Housekeeping(m) {
			housekeeping++
		}
	}
	costs := s.Costs(s.Pricing)
	cost, byModel := costs.WithAgents, costs.ByModel
	recorded := 0.0
	if s.RecordedCost != nil {
		recorded = s.RecordedCost.TotalCostUSD
	}
	return Overview{AgentName: s.AgentName, Title: s.Title, TitleSource: s.TitleSource, Excerpt: ex, Start: s.Start, End: s.End, Active: s.Active,
		Turns: s.Stats.Turns, ToolCalls: s.Stats.ToolCalls, Tokens: s.Stats.Tokens,
		Models: append([]string(nil), s.Models...), Agents: len(s.Agents), Problems: len(s.Problems),
		Prompts: s.Stats.Prompts, Housekeeping: housekeeping, Answers: s.Stats.Answers, Messages: s.Stats.Messages,
		Bytes: s.Stats.Bytes, Cost: cost.USD, CostUnknown: cost.Unknown, RecordedCost: recorded, CostByModel: byModel,
		CostPartial: cost.Tokens.Partial > 0,
		Tag:         s.Tag}
}

// NoConversation reports a session in which nothing was said: no prompt
// typed (built-in commands such as /clear or /model aside) and no answer.
// Lists show such sessions apart from the others.
func (o Overview) NoConversation() bool {
	return o.Prompts-o.Housekeeping <= 0 && o.Answers == 0
}

// Total is every token counted: input, output, cache reads and writes.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }
