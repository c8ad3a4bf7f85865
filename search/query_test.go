package search

import (
	"errors"
	"testing"
)

// TestQueryMistakes: a filter with a value it cannot have is a
// *QueryError saying what is valid (the static reader, assets/search.js,
// gives the same messages: browsertest checks it).
func TestQueryMistakes(t *testing.T) {
	for _, c := range []struct {
		q    Query
		want string // "" when fine
	}{
		{Query{Text: "x role:bogus"}, `role must be one of prompt, answer, thinking, tool, agent, teammate, commit, not "bogus"`},
		{Query{Text: "x", Role: "bogus"}, `role must be one of prompt, answer, thinking, tool, agent, teammate, commit, not "bogus"`},
		{Query{Text: "x after:notadate"}, `after: want a date like 2026-01-02, not "notadate"`},
		{Query{Text: "x before:2026-02-30"}, `before: want a date like 2026-01-02, not "2026-02-30"`},
		{Query{Text: "x BEFORE:yesterday role:bogus"}, `before: want a date like 2026-01-02, not "yesterday"`},
		{Query{Text: "x role:Prompt"}, ""},
		{Query{Text: "x", Role: "TOOL"}, ""},
		{Query{Text: "role:teammate after:2026-01-02 before:2026-01-03"}, ""},
		{Query{Text: "x tool:AnyToolAtAll"}, ""},
	} {
		err := c.q.Check()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.q, err)
			}
			continue
		}
		var qe *QueryError
		if !errors.As(err, &qe) || err.Error() != c.want || !IsUsage(err) {
			t.Errorf("%+v: %v, want a *QueryError %q", c.q, err, c.want)
		}
	}
	if err := (Query{}).Check(); !errors.Is(err, ErrEmpty) || !IsUsage(err) {
		t.Errorf("empty query: %v", err)
	}
}
