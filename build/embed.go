package build

import (
	"fmt"
	"strconv"
	"strings"

	"ccsite/build/render"
	"ccsite/build/session"
)

// TurnRange is a range of a session's turns, From to To, both included
// (share --turns 3-7; on a site, <session>.html#t-3..t-7 and
// <session>.html?embed=t-3..t-7, which the page's script reads).
type TurnRange struct{ From, To int }

// ParseTurnRange reads "3-7", "3..7" or "5" (one turn).
func ParseTurnRange(s string) (TurnRange, error) {
	s = strings.TrimSpace(s)
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		a, b, ok = strings.Cut(s, "-")
	}
	if !ok {
		b = a
	}
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || from < 0 || to < from {
		return TurnRange{}, fmt.Errorf("%q: want FROM-TO, turn numbers as on the session page, such as 3-7", s)
	}
	return TurnRange{From: from, To: to}, nil
}

func (r TurnRange) String() string {
	if r.From == r.To {
		return "turn " + strconv.Itoa(r.From)
	}
	return "turns " + strconv.Itoa(r.From) + "–" + strconv.Itoa(r.To)
}

// keepTurns leaves on the page only the turns of r: the outline follows,
// the abandoned branches and warmups go, and the sub-agents kept are
// those called in r; the per-turn chart goes. The title says which turns these are. It fails when
// no turn of the session is in r.
func keepTurns(body *render.SessionView, s *session.Session, r TurnRange) error {
	var kept []render.TurnView
	for _, t := range body.Turns {
		if t.Index >= r.From && t.Index <= r.To {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		if len(body.Turns) == 0 {
			return fmt.Errorf("%s: the session has no turns", r)
		}
		return fmt.Errorf("%s: the session has turns %d–%d", r, body.Turns[0].Index, body.Turns[len(body.Turns)-1].Index)
	}
	got := TurnRange{From: kept[0].Index, To: kept[len(kept)-1].Index}
	body.Title += " · " + got.String() + " of " + strconv.Itoa(len(body.Turns))
	body.Turns = kept
	body.Abandoned, body.Warmups = nil, nil
	if body.Charts != nil { // the per-turn chart is the whole session's and links to every turn
		body.Charts.Turns = nil
		if body.Charts.Tools == nil {
			body.Charts = nil
		}
	}
	called := map[string]bool{}
	for _, t := range s.Turns {
		if t.Index < got.From || t.Index > got.To {
			continue
		}
		for i := t.First; i <= t.Last && i < len(s.Messages); i++ {
			for _, id := range s.Messages[i].ToolUseIDs {
				called[id] = true
			}
		}
	}
	var embeds []render.Embed
	for _, e := range body.Embeds {
		if a := e.Body.Agent; a != nil && called[a.ToolUseID] {
			embeds = append(embeds, e)
		}
	}
	body.Embeds = embeds
	return nil
}
