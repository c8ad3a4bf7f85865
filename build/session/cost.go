package session

import (
	"sort"
	"strconv"
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
	// Advisor marks the advisor tool's model call within the response ID
	// names before "/advisor/": its model is the advisor's, its tokens
	// are not in the response's usage (Claude Code writes them in the
	// usage's iterations).
	Advisor bool `json:"advisor,omitzero"`
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
	accs := collectResponses(s)
	out := make([]Response, 0, len(accs))
	for _, a := range accs {
		r := a.r
		r.Cost = priceOf(t, r.Model, a.u)
		if a.partial() {
			r.Cost.Tokens.Partial, r.Cost.Tokens.OutputMissing = 1, a.estimate()-a.u.Output
		}
		out = append(out, r)
		for i, ad := range a.advisors {
			c := priceOf(t, ad.model, ad.u)
			c.Responses = 0 // a call within the response, not one of its own
			out = append(out, Response{ID: a.r.ID + "/advisor/" + strconv.Itoa(i+1), Model: ad.model,
				Time: r.Time, Turn: r.Turn, Message: r.Message, Advisor: true, Cost: c})
		}
	}
	return out
}

// respAcc is one API response as its streamed fragments tell it: each
// count the largest they give, the bytes of what they wrote, and the
// advisor tool's model calls within it.
type respAcc struct {
	r        Response
	u        pricing.Usage
	written  int64
	advisors []advisorAcc
}

// advisorAcc is one advisor call's model and usage (an advisor_message
// iteration), the largest of each count over the response's fragments.
type advisorAcc struct {
	model string
	u     pricing.Usage
}

// PartialOutput reports whether output tokens recorded for a response that
// wrote that many bytes (text, thinking, tool input) are too few to be its
// whole count: fewer than one token per 8 bytes, half of what prose and
// code take. Claude Code repeats a growing usage on each streamed fragment
// and sometimes writes only the first, small, count. A count of 0 is none
// written (a usage without output_tokens), not a partial one.
func PartialOutput(output, written int64) bool { return output > 0 && output*8 < written }

// EstimateOutput is the output tokens of a response that wrote that many
// bytes, at 4 bytes a token.
func EstimateOutput(written int64) int64 { return (written + 3) / 4 }

func (a *respAcc) partial() bool { return PartialOutput(a.u.Output, a.written) }

func (a *respAcc) estimate() int64 { return max(a.u.Output, EstimateOutput(a.written)) }

// collectResponses gathers s's own API responses, each once (by message
// id), in order of appearance.
func collectResponses(s *Session) []*respAcc {
	byKey := map[string]*respAcc{}
	var order []*respAcc
	for _, m := range s.allMessages() {
		for _, r := range m.Records {
			if r.Type != transcript.TypeAssistant || r.Message == nil || r.Message.Usage == nil {
				continue
			}
			key := r.Message.ID
			if key == "" {
				key = "uuid:" + r.UUID
			}
			a := byKey[key]
			if a == nil {
				a = &respAcc{r: Response{ID: key, Model: r.Message.Model, Time: r.Time, Turn: m.Turn, Message: m}}
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
			a.u = maxUsage(a.u, usageOf(r.Message.Usage))
			a.written += writtenBytes(r.Message.Content)
			a.addAdvisors(r)
		}
	}
	return order
}

// addAdvisors counts the advisor calls of one fragment's usage: its
// advisor_message iterations, the n-th of each fragment being the same call.
func (a *respAcc) addAdvisors(r *transcript.Record) {
	n := 0
	for _, it := range r.Message.Usage.Steps() {
		if it.Type != transcript.IterationAdvisor {
			continue
		}
		if n == len(a.advisors) {
			a.advisors = append(a.advisors, advisorAcc{})
		}
		ad := &a.advisors[n]
		n++
		if ad.model == "" {
			ad.model = it.Model
		}
		if ad.model == "" {
			ad.model = r.AdvisorModel
		}
		ad.u = maxUsage(ad.u, usageOf(&transcript.Usage{InputTokens: it.InputTokens, OutputTokens: it.OutputTokens,
			CacheReadInputTokens: it.CacheReadInputTokens, CacheCreationInputTokens: it.CacheCreationInputTokens,
			CacheCreation: it.CacheCreation}))
	}
}

func maxUsage(a, b pricing.Usage) pricing.Usage {
	return pricing.Usage{Input: max(a.Input, b.Input), Output: max(a.Output, b.Output),
		CacheRead: max(a.CacheRead, b.CacheRead), CacheWrite: max(a.CacheWrite, b.CacheWrite),
		CacheWrite1h: max(a.CacheWrite1h, b.CacheWrite1h)}
}

// writtenBytes is what a fragment's blocks have the model write: text,
// thinking and tool input, in bytes.
func writtenBytes(c transcript.Content) int64 {
	var n int
	for i := range c.Blocks {
		b := &c.Blocks[i]
		switch b.Type {
		case "text":
			n += len(b.Text)
		case "thinking":
			n += len(b.Thinking)
		case "tool_use", "server_tool_use":
			n += len(b.Input)
		}
	}
	return int64(n)
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
