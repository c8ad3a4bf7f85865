package render

import (
	"fmt"
	"time"

	"ccsite/build/session"
)

// FoldLine is a tool call told in one line, as the conversation view shows
// it before it is opened: the tool and its target are the card's header;
// this adds how it went and how long it took, and for edits the lines
// added and removed.
type FoldLine struct {
	Took    string // "1.2 s", "" when unknown
	Added   int
	Removed int
	Edit    bool // Added/Removed are a file edit's
	// Defer keeps the card's body in an inert <template>, made when the
	// card is opened (very long pages).
	Defer bool
}

// fold tells a call in one line.
func fold(call *session.ToolCall, v ToolView) FoldLine {
	var f FoldLine
	if d, ok := serverTook(call); ok {
		f.Took = took(d)
	} else if call.Use != nil && call.Result != nil && !call.Use.Time.IsZero() && !call.Result.Time.IsZero() {
		if d := call.Result.Time.Sub(call.Use.Time); d >= 0 {
			f.Took = took(d)
		}
	}
	fv, ok := v.Data.(FileView)
	if p, isPtr := v.Data.(*FileView); isPtr && p != nil {
		fv, ok = *p, true
	}
	if ok && (fv.Added > 0 || fv.Removed > 0) {
		f.Added, f.Removed, f.Edit = fv.Added, fv.Removed, true
	}
	return f
}

// took writes a duration as people read it: "340 ms", "4.2 s", "3 min 5 s".
func took(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}
