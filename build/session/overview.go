package session

import "time"

// Overview is what lists and manifests need of a session: its title,
// first words, times, counts and models, without its messages. Project
// pages, the index and the build's manifest are made from overviews.
type Overview struct {
	Title string `json:"title"`
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
	return Overview{Title: s.Title, Excerpt: ex, Start: s.Start, End: s.End, Active: s.Active,
		Turns: s.Stats.Turns, ToolCalls: s.Stats.ToolCalls, Tokens: s.Stats.Tokens,
		Models: append([]string(nil), s.Models...), Agents: len(s.Agents), Problems: len(s.Problems)}
}

// Total is every token counted: input, output, cache reads and writes.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }
