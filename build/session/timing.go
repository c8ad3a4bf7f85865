package session

import (
	"container/heap"
	"sort"
	"strings"
	"time"

	"ccsite/build/transcript"
)

// Where a turn's time went.
//
// A turn's wall time is the durationMs of its system turn_duration record
// when it has one (Claude Code's own measure), else its last timestamp less
// its first. The parts come from timestamps: the turn's timestamped messages
// (and its tool calls' use and result times) cut it into segments, and each
// segment is counted once, so the parts add up to the computed wall time:
//
//   - tool time, per tool name: a segment during which a tool call is open
//     (from its tool_use to its tool_result). With calls running side by
//     side, the segment goes to the open call whose result comes last (the
//     one the model waits for).
//   - waiting: a segment whose open call waits for the person:
//     AskUserQuestion and ExitPlanMode, and a call the person rejected at
//     its permission prompt (its result says so). The transcript does not
//     mark an accepted permission prompt, so that time stays the tool's.
//   - idle: a segment longer than IdleGap with no call open (no record for
//     over five minutes: nobody working).
//   - model: every other segment: from a prompt or a tool result to the
//     next assistant message, the model thinking and writing.
//
// A call with no result is not counted as open. Messages off the live branch
// are not looked at.
type Timing struct {
	// WallMs is the turn's duration; Recorded is set when it comes from a
	// turn_duration record.
	WallMs   int64 `json:"wallMs"`
	Recorded bool  `json:"recorded,omitzero"`
	// ModelMs, WaitingMs and IdleMs are the parts but tools'.
	ModelMs   int64 `json:"modelMs"`
	WaitingMs int64 `json:"waitingMs,omitzero"`
	IdleMs    int64 `json:"idleMs,omitzero"`
	// Tools is the tool time by tool name, largest first, then by name.
	Tools []ToolTime `json:"tools,omitempty"`
}

// ToolTime is the time a tool (by name) ran within a turn.
type ToolTime struct {
	Name string `json:"name"`
	Ms   int64  `json:"ms"`
}

// waitingTools are the tools whose time is the person's: they ask.
var waitingTools = map[string]bool{"AskUserQuestion": true, "ExitPlanMode": true}

// FillTimings sets every turn's Timing (see TurnTiming).
func FillTimings(s *Session) {
	for i := range s.Turns {
		tm := TurnTiming(s, s.Turns[i])
		s.Turns[i].Timing = &tm
	}
}

// TurnTiming splits turn t's time (see Timing). It does not change s.
func TurnTiming(s *Session, t Turn) Timing {
	var tm Timing
	if t.First < 0 || t.Last >= len(s.Messages) || t.First > t.Last {
		return tm
	}
	msgs := s.Messages[t.First : t.Last+1]
	type call struct {
		name     string
		use, res time.Time
		waits    bool
	}
	var calls []call
	var points []time.Time
	recorded := -1.0
	for _, m := range msgs {
		if !m.Time.IsZero() {
			points = append(points, m.Time)
		}
		if m.Type == transcript.TypeSystem && m.Subtype == transcript.SubtypeTurnDuration && len(m.Records) > 0 && m.Record().DurationMs > 0 {
			recorded = m.Record().DurationMs
		}
		if m.Type != transcript.TypeAssistant {
			continue
		}
		for _, id := range m.ToolUseIDs {
			c := s.Tool(id)
			if c == nil || c.Use == nil || c.Result == nil || c.Use.Time.IsZero() || c.Result.Time.IsZero() || !c.Result.Time.After(c.Use.Time) {
				continue
			}
			calls = append(calls, call{name: c.Name, use: c.Use.Time, res: c.Result.Time, waits: waitingTools[c.Name] || rejected(c)})
			points = append(points, c.Result.Time)
		}
	}
	sort.Slice(points, func(i, j int) bool { return points[i].Before(points[j]) })
	// A segment [a, b] goes to the call open over all of it (used by a,
	// its result at b or later) whose result comes last, the first of
	// those on a tie. The segments are swept in order, so a call joins the
	// candidates once, when a reaches its use, and leaves them for good
	// when its result is before b: a heap by result, not every call asked
	// for every segment (a turn of thousands of calls was quadratic).
	byUse := make([]int, len(calls))
	for k := range byUse {
		byUse[k] = k
	}
	sort.SliceStable(byUse, func(i, j int) bool { return calls[byUse[i]].use.Before(calls[byUse[j]].use) })
	cand := &callHeap{later: func(x, y int) bool { // x's result after y's, or the same and x first
		if c := calls[x].res.Compare(calls[y].res); c != 0 {
			return c > 0
		}
		return x < y
	}}
	next := 0
	tools := map[string]int64{}
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		for next < len(byUse) && !calls[byUse[next]].use.After(a) {
			heap.Push(cand, byUse[next])
			next++
		}
		for cand.Len() > 0 && calls[cand.ks[0]].res.Before(b) {
			heap.Pop(cand)
		}
		d := b.Sub(a).Milliseconds()
		if d <= 0 {
			continue
		}
		open := -1
		if cand.Len() > 0 {
			open = cand.ks[0]
		}
		switch {
		case open >= 0 && calls[open].waits:
			tm.WaitingMs += d
		case open >= 0:
			tools[calls[open].name] += d
		case b.Sub(a) > IdleGap:
			tm.IdleMs += d
		default:
			tm.ModelMs += d
		}
	}
	if len(points) > 1 {
		tm.WallMs = points[len(points)-1].Sub(points[0]).Milliseconds()
	}
	if recorded > 0 {
		tm.WallMs, tm.Recorded = int64(recorded), true
	}
	for name, ms := range tools {
		tm.Tools = append(tm.Tools, ToolTime{Name: name, Ms: ms})
	}
	sort.Slice(tm.Tools, func(i, j int) bool {
		if tm.Tools[i].Ms != tm.Tools[j].Ms {
			return tm.Tools[i].Ms > tm.Tools[j].Ms
		}
		return tm.Tools[i].Name < tm.Tools[j].Name
	})
	return tm
}

// callHeap is a turn's calls (by index) with the one whose result comes
// last on top (container/heap's Less is later).
type callHeap struct {
	ks    []int
	later func(x, y int) bool
}

func (h *callHeap) Len() int           { return len(h.ks) }
func (h *callHeap) Less(i, j int) bool { return h.later(h.ks[i], h.ks[j]) }
func (h *callHeap) Swap(i, j int)      { h.ks[i], h.ks[j] = h.ks[j], h.ks[i] }
func (h *callHeap) Push(x any)         { h.ks = append(h.ks, x.(int)) }
func (h *callHeap) Pop() any {
	k := h.ks[len(h.ks)-1]
	h.ks = h.ks[:len(h.ks)-1]
	return k
}

// rejected reports whether the person turned call c down at its permission
// prompt: Claude Code answers it with an error saying so.
func rejected(c *ToolCall) bool {
	if c.ResultBlock == nil || !c.ResultBlock.IsError {
		return false
	}
	txt := c.ResultBlock.Content.Text()
	return strings.Contains(txt, "doesn't want to proceed") || strings.Contains(txt, "tool use was rejected")
}
