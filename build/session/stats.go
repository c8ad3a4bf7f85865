package session

import (
	"sort"
	"time"

	"ccsite/build/pricing"
	"ccsite/build/transcript"
)

// finish computes what derives from the messages: turns, title, metadata and
// statistics.
func finish(s *Session) {
	sort.SliceStable(s.Problems, func(i, j int) bool { return s.Problems[i].Line < s.Problems[j].Line })
	for _, b := range s.Branches {
		markPrompts(b.Messages)
	}
	sideFacts(s)
	turns(s)
	FillTimings(s)
	metadata(s)
	title(s)
	counts(s)
	if len(s.Unknown) == 0 {
		s.Unknown = nil
	}
}

// turns splits the live branch at every human prompt. A turn starts at its
// prompt, or at the lead-ins just before it (the caveat Claude Code writes
// before a local command, a pasted image written as its own record).
func turns(s *Session) {
	s.Turns = nil
	markPrompts(s.Messages)
	var starts, prompts []int
	for i, m := range s.Messages {
		if !m.Prompt {
			continue
		}
		floor := 0
		if n := len(prompts); n > 0 {
			floor = prompts[n-1] + 1
		}
		st := i
		for st-1 >= floor && leadIn(s.Messages[st-1]) {
			st--
		}
		starts, prompts = append(starts, st), append(prompts, i)
	}
	if len(s.Messages) > 0 && (len(starts) == 0 || starts[0] > 0) {
		starts, prompts = append([]int{0}, starts...), append([]int{-1}, prompts...)
	}
	if len(starts) > 0 {
		s.Turns = make([]Turn, 0, len(starts))
	}
	for k, st := range starts {
		last := len(s.Messages) - 1
		if k+1 < len(starts) {
			last = starts[k+1] - 1
		}
		s.Turns = append(s.Turns, Turn{Index: k + 1, First: st, Last: last, Prompt: prompts[k], HasPrompt: prompts[k] >= 0})
		for _, m := range s.Messages[st : last+1] {
			m.Turn = k + 1
		}
	}
	for ti := range s.Turns {
		t := &s.Turns[ti]
		for _, m := range s.Messages[t.First : t.Last+1] {
			if !m.Time.IsZero() {
				if t.Start.IsZero() || m.Time.Before(t.Start) {
					t.Start = m.Time
				}
				if m.Time.After(t.End) {
					t.End = m.Time
				}
			}
			if m.Kind == KindAnswer {
				t.Answers++
			}
			for _, id := range m.ToolUseIDs {
				if m.Type != transcript.TypeAssistant {
					continue
				}
				if c := s.Tool(id); c != nil {
					if t.Tools == nil {
						t.Tools = map[string]int{}
					}
					t.Tools[c.Name]++
				}
			}
		}
		if t.HasPrompt {
			t.Excerpt = Excerpt(PromptText(s.Messages[t.Prompt]), 100)
		}
	}
}

// metadata collects cwd, slug, git branches, versions, models and times.
func metadata(s *Session) {
	seen := map[string]bool{}
	add := func(list *[]string, kind, v string) {
		if v == "" || seen[kind+v] {
			return
		}
		seen[kind+v] = true
		*list = append(*list, v)
	}
	var times []time.Time
	visit := func(r *transcript.Record) {
		if s.CWD == "" {
			s.CWD = r.CWD
		}
		if s.Slug == "" {
			s.Slug = r.Slug
		}
		add(&s.GitBranches, "b", r.GitBranch)
		add(&s.Versions, "v", r.Version)
		if r.Message != nil && r.Type == transcript.TypeAssistant && r.Message.Model != "<synthetic>" {
			add(&s.Models, "m", r.Message.Model)
		}
		if !r.Time.IsZero() {
			times = append(times, r.Time)
		}
	}
	for _, m := range s.allMessages() {
		for _, r := range m.Records {
			visit(r)
		}
	}
	for _, sd := range s.Side {
		if !sd.Time.IsZero() {
			times = append(times, sd.Time)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	s.Active = 0
	if len(times) > 0 {
		s.Start, s.End = times[0], times[len(times)-1]
		for i := 1; i < len(times); i++ {
			if gap := times[i].Sub(times[i-1]); gap <= IdleGap {
				s.Active += gap
			}
		}
	}
	s.ActiveMs = s.Active.Milliseconds()
}

// counts fills Stats: messages, prompts, tools and tokens once per message id.
func counts(s *Session) {
	st := &s.Stats
	st.Messages, st.Prompts, st.Answers, st.ToolCalls = 0, 0, 0, len(s.Tools)
	st.Turns = 0
	for _, t := range s.Turns {
		if t.HasPrompt {
			st.Turns++
		}
	}
	st.ToolsByName = map[string]int{}
	for _, c := range s.Tools {
		st.ToolsByName[c.Name]++
	}
	if len(st.ToolsByName) == 0 {
		st.ToolsByName = nil
	}
	st.Tokens = Tokens{}
	for _, m := range s.allMessages() {
		switch m.Type {
		case transcript.TypeUser, transcript.TypeAssistant:
			st.Messages++
		case transcript.TypeAttachment:
			if m.Kind == KindQueued {
				st.Messages++
			}
		}
		if m.Prompt {
			st.Prompts++
		}
		if m.Kind == KindAnswer {
			st.Answers++
		}
	}
	for _, a := range collectResponses(s) {
		st.Tokens.Add(a.tokens())
	}
}

// tokens is a response's tokens with its advisor calls', and its partial
// output count marked.
func (a *respAcc) tokens() Tokens {
	t := tokensOf(a.u)
	if a.partial() {
		t.Partial, t.OutputMissing = 1, a.estimate()-a.u.Output
	}
	for _, ad := range a.advisors {
		t.Add(tokensOf(ad.u))
	}
	return t
}

func tokensOf(u pricing.Usage) Tokens {
	return Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
}

// TurnTokens is each turn's tokens, by s.Turns index: its API responses
// on the live branch (their advisor calls included), each counted once.
func TurnTokens(s *Session) []Tokens {
	out := make([]Tokens, len(s.Turns))
	for _, a := range collectResponses(s) {
		if a.r.Turn >= 1 && a.r.Turn <= len(out) {
			out[a.r.Turn-1].Add(a.tokens())
		}
	}
	return out
}

// Count is a name with its tally.
type Count struct {
	Name  string
	Count int
}

// SortCounts orders a tally (tool calls by name, unknown records by kind)
// most first, then by name.
func SortCounts(m map[string]int) []Count {
	out := make([]Count, 0, len(m))
	for k, v := range m {
		out = append(out, Count{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}
