package session

import (
	"strconv"
	"strings"
	"testing"
)

// TestPRLinksOncePerPR: Claude Code writes a pr-link record again each time
// a session touches its pull request (61 records for 6 PRs in one real
// session); the session lists each PR once, with its latest record's data,
// in the order they first appeared.
func TestPRLinksOncePerPR(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-02-02T06:00:00Z","message":{"role":"user","content":"open the PRs"}}`,
		`{"type":"pr-link","sessionId":"s","prNumber":133,"prUrl":"https://github.com/o/r/pull/133","prRepository":"o/r","timestamp":"2026-02-02T06:01:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prNumber":7,"prUrl":"https://github.com/o/other/pull/7","prRepository":"o/other","timestamp":"2026-02-02T06:02:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prNumber":133,"prUrl":"https://github.com/o/r/pull/133","prRepository":"o/r","timestamp":"2026-02-02T06:03:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prNumber":7,"prUrl":"https://github.com/o/r/pull/7","prRepository":"o/r","timestamp":"2026-02-02T06:04:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prNumber":133,"prUrl":"https://github.com/o/r/pull/133?x=1","prRepository":"o/r","timestamp":"2026-02-02T06:05:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prUrl":"https://gitlab.example/o/r/-/merge_requests/2","timestamp":"2026-02-02T06:06:00Z"}`,
		`{"type":"pr-link","sessionId":"s","prUrl":"https://gitlab.example/o/r/-/merge_requests/2","timestamp":"2026-02-02T06:07:00Z"}`,
	}
	s := buildWithTimeout(t, []byte(strings.Join(lines, "\n")+"\n"), "s.jsonl", Options{})
	var got []string
	for _, pr := range s.PRLinks {
		got = append(got, pr.Repository+"#"+strconv.Itoa(pr.Number)+" "+pr.URL+" "+pr.Time.Format("15:04"))
	}
	want := []string{
		"o/r#133 https://github.com/o/r/pull/133?x=1 06:05",
		"o/other#7 https://github.com/o/other/pull/7 06:02",
		"o/r#7 https://github.com/o/r/pull/7 06:04",
		"#0 https://gitlab.example/o/r/-/merge_requests/2 06:07",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PRLinks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
