package session

import (
	"sort"
	"sync/atomic"
	"time"

	"ccsite/build/pricing"
	"ccsite/build/transcript"
)

// Cost is what a set of API responses cost: their tokens and USD. USD counts
// only the responses of priced models; Unknown says some tokens came from a
// model the pricing table does not name (their cost is unknown, not $0), and
// UnknownTokens counts them.
type Cost struct {
	Tokens Tokens `json:"tokens"`
	// CacheWrite1h is the part of Tokens.CacheWrite written for an hour.
	CacheWrite1h  int64    `json:"cacheWrite1h,omitzero"`
	USD           float64  `json:"usd"`
	Unknown       bool     `json:"unknown,omitzero"`
	UnknownTokens int64    `json:"unknownTokens,omitzero"`
	UnknownModels []string `json:"unknownModels,omitempty"`
	Responses     int      `json:"responses,omitzero"`
}

// Add adds o to c.
func (c *Cost) Add(o Cost) {
	c.Tokens.Add(o.Tokens)
	c.CacheWrite1h += o.CacheWrite1h
	c.USD += o.USD
	c.Unknown = c.Unknown || o.Unknown
	c.UnknownTokens += o.UnknownTokens
	c.Responses += o.Responses
	for _, m := range o.UnknownModels {
		c.addUnknownModel(m)
	}
}

func (c *Cost) addUnknownModel(m string) {
	i := sort.SearchStrings(c.UnknownModels, m)
	if i < len(c.UnknownModels) && c.UnknownModels[i] == m {
		return
	}
	c.UnknownModels = append(c.UnknownModels, "")
	copy(c.UnknownModels[i+1:], c.UnknownModels[i:])
	c.UnknownModels[i] = m
}

// Response is one API response: its usage counted once (the largest of its
// streamed fragments, as Stats counts tokens) and its cost.
type Response struct {
	// ID is the message id ("uuid:…" for a record without one).
	ID    string    `json:"id"`
	Model string    `json:"model,omitempty"`
	Time  time.Time `json:"time,omitzero"`
	// Turn is the turn of its message on the live branch, 0 elsewhere.
	Turn int  `json:"turn,omitzero"`
	Cost Cost `json:"cost"`
	// Message is the message holding its first fragment.
	Message *Message `json:"-"`
}

// Responses returns s's own API responses (not its sub-agents'), each once,
// in order of appearance, priced with t (nil: the embedded table). The
// slice is shared by every call with the same table (a session's page,
// its parent's, its overview and its export each ask): it must not be
// changed.
func (s *Session) Responses(t *pricing.Table) []Response {
	if t == nil {
		t = pricing.Default()
	}
	if s.memo == nil {
		return s.responses0(t)
	}
	if m := s.memo.responses.Load(); m != nil && m.t == t {
		return m.r
	}
	r := s.responses0(t)
	s.memo.responses.Store(&responsesMemo{t: t, r: r})
	return r
}

// sessionMemo keeps what is asked of a session again and again.
type sessionMemo struct {
	responses atomic.Pointer[responsesMemo]
}

// responsesMemo is a session's responses priced with t.
type responsesMemo struct {
	t *pricing.Table
	r []Response
}

// responses0 is Responses made anew.
func (s *Session) responses0(t *pricing.Table) []Response {
	type acc struct {
		r   Response
		u   pricing.Usage
		idx int
	}
	byKey := map[string]*acc{}
	var order []*acc
	for _, m := range s.allMessages() {
		for _, r := range m.Records {
			if r.Type != transcript.TypeAssistant || r.Message == nil || r.Message.Usage == nil {
				continue
			}
			key := r.Message.ID
			if key == "" {
				key = "uuid:" + r.UUID
			}
			u := usageOf(r.Message.Usage)
			a := byKey[key]
			if a == nil {
				a = &acc{r: Response{ID: key, Model: r.Message.Model, Time: r.Time, Turn: m.Turn, Message: m}}
				if m.Branch != 0 {
					a.r.Turn = 0
				}
				byKey[key] = a
				order = append(order, a)
			}
			if a.r.Model == "" {
				a.r.Model = r.Message.Model
			}
			if a.r.Time.IsZero() {
				a.r.Time = r.Time
			}
			a.u = pricing.Usage{Input: max(a.u.Input, u.Input), Output: max(a.u.Output, u.Output),
				CacheRead: max(a.u.CacheRead, u.CacheRead), CacheWrite: max(a.u.CacheWrite, u.CacheWrite),
				CacheWrite1h: max(a.u.CacheWrite1h, u.CacheWrite1h)}
		}
	}
	out := make([]Response, 0, len(order))
	for _, a := range order {
		a.r.Cost = priceOf(t, a.r.Model, a.u)
		out = append(out, a.r)
	}
	return out
}

// usageOf reads a usage record: cache writes are the larger of
// cache_creation_input_tokens and the sum of its 5 min / 1 h split.
func usageOf(u *transcript.Usage) pricing.Usage {
	p := pricing.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens,
		CacheWrite: u.CacheCreationInputTokens}
	if cc := u.CacheCreation; cc != nil {
		p.CacheWrite = max(p.CacheWrite, cc.Ephemeral5m+cc.Ephemeral1h)
		p.CacheWrite1h = cc.Ephemeral1h
	}
	return p
}

// priceOf prices one response's usage of model.
func priceOf(t *pricing.Table, model string, u pricing.Usage) Cost {
	c := Cost{Tokens: Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite},
		CacheWrite1h: u.CacheWrite1h, Responses: 1}
	if model == "<synthetic>" {
		return c // written by Claude Code itself, not by the API: nothing to pay
	}
	p, ok := t.Lookup(model)
	if !ok {
		if c.Tokens.Total() > 0 {
			c.Unknown, c.UnknownTokens = true, c.Tokens.Total()
			name := model
			if name == "" {
				name = "(none)"
			}
			c.UnknownModels = []string{name}
		}
		return c
	}
	c.USD = p.Cost(u)
	return c
}

// Costs is what a session cost: its own responses, each turn of its live
// branch, and with its sub-agents rolled in.
type Costs struct {
	// Own is the session's own responses (every branch), not its agents'.
	Own Cost `json:"own"`
	// Agents is its sub-agents' (each counted once, nested ones included).
	Agents Cost `json:"agents"`
	// WithAgents is Own and Agents together.
	WithAgents Cost `json:"withAgents"`
	// Turns is each turn's own cost, by s.Turns index.
	Turns []Cost `json:"turns"`
	// ByModel splits WithAgents' dollars by model (nil when nothing was
	// paid).
	ByModel map[string]float64 `json:"byModel,omitempty"`
}

func (c *Costs) addModel(r Response) {
	if r.Cost.USD <= 0 {
		return
	}
	if c.ByModel == nil {
		c.ByModel = map[string]float64{}
	}
	c.ByModel[r.Model] += r.Cost.USD
}

// Costs prices s with t (nil: the embedded table).
func (s *Session) Costs(t *pricing.Table) Costs {
	var c Costs
	c.Turns = make([]Cost, len(s.Turns))
	for _, r := range s.Responses(t) {
		c.Own.Add(r.Cost)
		c.addModel(r)
		if r.Turn >= 1 && r.Turn <= len(c.Turns) {
			c.Turns[r.Turn-1].Add(r.Cost)
		}
	}
	seen := map[*Session]bool{s: true}
	var walk func(list []*Session)
	walk = func(list []*Session) {
		for _, a := range list {
			if a == nil || seen[a] {
				continue
			}
			seen[a] = true
			for _, r := range a.Responses(t) {
				c.Agents.Add(r.Cost)
				c.addModel(r)
			}
			walk(a.Agents)
		}
	}
	walk(s.Agents)
	c.WithAgents = c.Own
	c.WithAgents.Add(c.Agents)
	return c
}

// Cost is s's own cost at the embedded prices, or at s.Pricing when set.
func (s *Session) Cost() Cost { return s.Costs(s.Pricing).Own }

// CostWithAgents is s's cost with its sub-agents', priced like Cost.
func (s *Session) CostWithAgents() Cost { return s.Costs(s.Pricing).WithAgents }
