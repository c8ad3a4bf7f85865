package render_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ccsite/build/render"
)

var tagRe = regexp.MustCompile(`<[^>]*>`)

// pageText is a page's text as read: tags dropped, blanks folded.
func pageText(page string) string {
	return strings.Join(strings.Fields(tagRe.ReplaceAllString(page, " ")), " ")
}

// TestTokensTruthful: a page says what the records hold about tokens. The
// advisor tool's calls are counted (in the header, the turn's line, the
// call's card) at the advisor's model; the advice, encrypted, is said to
// be, never printed as JSON; an output count that is a partial record is
// shown as an estimate, labelled, never as "4 tokens out" beside 800
// bytes of answer; Claude Code's own time split and line counts
// (cost-state's newer fields) are shown beside ccsite's.
func TestTokensTruthful(t *testing.T) {
	t.Parallel()
	s := loadSession(t, filepath.Join("testdata", "tokens", "advisor.jsonl"))
	page := renderSession(t, s, "/p")
	text := pageText(page)
	for _, want := range []string{
		"≥ 1,846 out (~2,042 est., 1 partial record)",
		"Advisor claude-opus-4-7 · 1 call · 41,250 in · 1,630 out · $0.25",
		"Claude Code measured API 41 s · tools 9 s of 1 min 4 s · 120 lines added, 35 removed",
		"1,842 tokens out (1,630 by the advisor)",
		"~200 tokens out (est.; ≥ 4 recorded, partial) · ≥ $0.02",
		"Advisor model claude-opus-4-7 · 41,250 in · 1,630 out · $0.25",
		"The advice (12 bytes) is encrypted",
		"advisor claude-opus-4-7 18.0 s", // the call's time: its result came 18 s after it
		"· 1,842 tok · ",                 // the outline
		"· ~200 tok (est.) · ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("page does not say %q", want)
		}
	}
	for _, bad := range []string{"EqQBCkYIBxgC", "advisor_redacted_result", " 4 tokens out"} {
		if strings.Contains(text, bad) {
			t.Errorf("page says %q", bad)
		}
	}
}

// TestTotalsLowerBound: a project's and the archive's cost that include a
// session priced on partial output counts say they are lower bounds.
func TestTotalsLowerBound(t *testing.T) {
	t.Parallel()
	s := loadSession(t, filepath.Join("testdata", "tokens", "advisor.jsonl"))
	o := s.Overview()
	if !o.CostPartial {
		t.Fatalf("overview %+v: not marked partial", o)
	}
	var tot render.Totals
	tot.Add(o)
	if got := tot.Cost(); !strings.HasPrefix(got, "≥ $") {
		t.Errorf("archive cost %q, want a lower bound", got)
	}
	if got := render.RowOf(o, "x.html").Cost; !strings.HasPrefix(got, "≥ $") {
		t.Errorf("session row cost %q, want a lower bound", got)
	}
}
