package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"ccsite/build/transcript"
)

// turnTimingEach is TurnTiming as it was first written: every call asked
// for every segment. TurnTiming sweeps the segments with a heap; the two
// must agree.
func turnTimingEach(s *Session, t Turn) Timing {
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
	tools := map[string]int64{}
	for i := 1; i < len(points); i++ {
		a, b := points[i-1], points[i]
		d := b.Sub(a).Milliseconds()
		if d <= 0 {
			continue
		}
		open := -1
		for k, c := range calls {
			if !c.use.After(a) && !c.res.Before(b) && (open < 0 || c.res.After(calls[open].res)) {
				open = k
			}
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

// randomCallsTurn is one turn of assistant messages each starting a few
// tool calls (of a few names, some waiting for the person) whose results
// come back out of order: overlapping calls, ties of use and result times,
// results before their use, on a coarse clock so times collide.
func randomCallsTurn(rng *rand.Rand) *Session {
	base := time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC)
	at := func(tick int) time.Time { return base.Add(time.Duration(tick) * 700 * time.Millisecond) }
	s := &Session{toolIndex: map[string]*ToolCall{}}
	s.Messages = append(s.Messages, &Message{Type: transcript.TypeUser, Time: at(0)})
	names := []string{"Bash", "Read", "Task", "AskUserQuestion", "Edit"}
	tick, n := 0, 0
	for range 1 + rng.IntN(12) {
		tick += rng.IntN(4)
		m := &Message{Type: transcript.TypeAssistant, Time: at(tick)}
		if rng.IntN(8) == 0 {
			m.Time = time.Time{}
		}
		s.Messages = append(s.Messages, m)
		calls := rng.IntN(5)
		if rng.IntN(4) == 0 {
			calls = rng.IntN(40) // many side by side: a heap of many
		}
		for range calls {
			n++
			id := fmt.Sprint("toolu_", n)
			m.ToolUseIDs = append(m.ToolUseIDs, id)
			res := &Message{Type: transcript.TypeUser, Time: at(tick + rng.IntN(60) - 2)}
			if rng.IntN(10) == 0 {
				res = nil
			}
			c := &ToolCall{ID: id, Name: names[rng.IntN(len(names))], Use: m, Result: res}
			if rng.IntN(6) == 0 {
				c.ResultBlock = &transcript.Block{IsError: true, Content: transcript.Content{IsString: true, Blocks: []transcript.Block{{Type: "text", Text: "The user doesn't want to proceed"}}}}
			}
			s.toolIndex[id] = c
			if res != nil {
				s.Messages = append(s.Messages, res)
			}
		}
	}
	return s
}

// TestTurnTimingSweep: the sweep gives what asking every call gives, on
// random turns and on every turn of the corpus ($CCSITE_CORPUS).
func TestTurnTimingSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 3000 {
		s := randomCallsTurn(rng)
		turn := Turn{First: 0, Last: len(s.Messages) - 1}
		if got, want := TurnTiming(s, turn), turnTimingEach(s, turn); !reflect.DeepEqual(got, want) {
			t.Fatalf("random turn %d: %+v, each call asked %+v", i, got, want)
		}
	}
	big := bigTurn(2000)
	turn := Turn{First: 0, Last: len(big.Messages) - 1}
	if got, want := TurnTiming(big, turn), turnTimingEach(big, turn); !reflect.DeepEqual(got, want) {
		t.Fatalf("a turn of 2,000 calls: %+v, each call asked %+v", got, want)
	}
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		return
	}
	turns := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		f, err := transcript.ReadFile(path)
		if err != nil {
			return nil
		}
		s := Build(f, Options{})
		for _, ss := range append([]*Session{s}, s.Agents...) {
			for _, turn := range ss.Turns {
				turns++
				if got, want := TurnTiming(ss, turn), turnTimingEach(ss, turn); !reflect.DeepEqual(got, want) {
					t.Errorf("%s turn %d: %+v, each call asked %+v", path, turn.Index, got, want)
				}
			}
		}
		return nil
	})
	t.Logf("%d corpus turns", turns)
}

// bigTurn is one turn of n tool calls, ten started at a time, each
// running a few seconds: a long autonomous run.
func bigTurn(n int) *Session {
	base := time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC)
	s := &Session{toolIndex: map[string]*ToolCall{}}
	s.Messages = append(s.Messages, &Message{Type: transcript.TypeUser, Time: base})
	var m *Message
	for i := range n {
		if i%10 == 0 {
			m = &Message{Type: transcript.TypeAssistant, Time: base.Add(time.Duration(i) * time.Second)}
			s.Messages = append(s.Messages, m)
		}
		id := fmt.Sprint("toolu_", i)
		m.ToolUseIDs = append(m.ToolUseIDs, id)
		res := &Message{Type: transcript.TypeUser, Time: m.Time.Add(time.Duration(1+i%7) * time.Second)}
		s.toolIndex[id] = &ToolCall{ID: id, Name: "Bash", Use: m, Result: res}
		s.Messages = append(s.Messages, res)
	}
	return s
}

func BenchmarkTurnTiming(b *testing.B) {
	s := bigTurn(5000)
	turn := Turn{First: 0, Last: len(s.Messages) - 1}
	b.Run("sweep", func(b *testing.B) {
		for b.Loop() {
			TurnTiming(s, turn)
		}
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			turnTimingEach(s, turn)
		}
	})
}
