package build

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ccsite/build/omit"
	"ccsite/build/redact"
)

// publishArchive writes three sessions in two projects of the user
// "kimberly", each holding its own marker words: a prompt, thinking, a
// tool call's input and its output (in the result, the toolUseResult and
// streamed progress), and a sub-agent for the second session, in its own
// legacy file.
func publishArchive(t *testing.T) string {
	dir := t.TempDir()
	type sess struct{ folder, cwd, id, day, mark string }
	all := []sess{
		{"-home-kimberly-shop", "/home/kimberly/shop", "aaaaaaaa-0000-4000-8000-000000000001", "2026-03-01", "alpha"},
		{"-home-kimberly-shop", "/home/kimberly/shop", "aaaaaaaa-0000-4000-8000-000000000002", "2026-03-05", "bravo"},
		{"-home-kimberly-private", "/home/kimberly/private", "aaaaaaaa-0000-4000-8000-000000000003", "2026-03-09", "charlie"},
	}
	for _, s := range all {
		rec := func(v map[string]any) string {
			v["sessionId"], v["cwd"], v["version"] = s.id, s.cwd, "2.0.30"
			if _, ok := v["timestamp"]; !ok {
				v["timestamp"] = s.day + "T10:00:00Z"
			}
			b, _ := json.Marshal(v)
			return string(b)
		}
		tool := "toolu_" + s.mark
		lines := []string{
			rec(map[string]any{"type": "user", "uuid": s.mark + "-u1", "message": map[string]any{"role": "user",
				"content": "prompt" + s.mark + " please list the files"}}),
			rec(map[string]any{"type": "assistant", "uuid": s.mark + "-a1", "parentUuid": s.mark + "-u1", "message": map[string]any{
				"id": "msg_" + s.mark, "role": "assistant", "model": "claude-opus-4-5", "content": []any{
					map[string]any{"type": "thinking", "thinking": "thought" + s.mark + " ponders", "signature": "c2lnbmF0dXJl"},
					map[string]any{"type": "text", "text": "answer" + s.mark + " here"},
					map[string]any{"type": "tool_use", "id": tool, "name": "Bash", "input": map[string]any{"command": "ls input" + s.mark}},
				}}}),
			rec(map[string]any{"type": "progress", "uuid": s.mark + "-p1", "parentUuid": s.mark + "-a1", "toolUseID": tool,
				"data": map[string]any{"type": "bash_progress", "output": "streamed" + s.mark, "fullOutput": "streamed" + s.mark}}),
			rec(map[string]any{"type": "user", "uuid": s.mark + "-u2", "parentUuid": s.mark + "-a1", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": tool, "content": "output" + s.mark + " file.txt"}}},
				"toolUseResult": map[string]any{"stdout": "output" + s.mark + " file.txt", "stderr": ""}}),
		}
		if err := os.MkdirAll(filepath.Join(dir, s.folder), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.folder, s.id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if s.mark == "bravo" {
			ag := rec(map[string]any{"type": "user", "uuid": "agent-u1", "isSidechain": true, "agentId": "b7a4e21",
				"message": map[string]any{"role": "user", "content": "agentprompt" + s.mark + " check it"}})
			if err := os.WriteFile(filepath.Join(dir, s.folder, "agent-b7a4e21.jsonl"), []byte(ag+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func buildWith(t *testing.T, in string, cfg Config) (Summary, string) {
	t.Helper()
	cfg.Paths, cfg.Out = []string{in}, filepath.Join(t.TempDir(), "site")
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sum, readAll(t, cfg.Out)
}

func TestExclusions(t *testing.T) {
	in := publishArchive(t)
	words := func(mark string) []string {
		return []string{"prompt" + mark, "thought" + mark, "answer" + mark, "input" + mark, "output" + mark, "streamed" + mark}
	}
	check := func(t *testing.T, all string, gone, kept []string) {
		t.Helper()
		for _, m := range gone {
			for _, w := range append(words(m), "agentprompt"+m) {
				if strings.Contains(all, w) {
					t.Errorf("%q is in the site", w)
				}
			}
		}
		for _, m := range kept {
			for _, w := range words(m)[:5] { // streamed output is not shown: the result supersedes it
				if !strings.Contains(all, w) {
					t.Errorf("%q is missing", w)
				}
			}
		}
	}
	t.Run("none", func(t *testing.T) {
		_, all := buildWith(t, in, Config{})
		check(t, all, nil, []string{"alpha", "bravo", "charlie"})
		if !strings.Contains(all, "agentpromptbravo") {
			t.Error("the sub-agent is missing")
		}
	})
	t.Run("project", func(t *testing.T) {
		sum, all := buildWith(t, in, Config{Exclude: Exclude{Projects: []string{"*private*", "nothing-like-it"}}})
		check(t, all, []string{"charlie"}, []string{"alpha", "bravo"})
		if strings.Contains(all, "kimberly/private") || strings.Contains(all, "kimberly-private") {
			t.Error("the excluded project is still named")
		}
		x := sum.Excluded
		if x.Projects != 1 || x.Sessions != 1 || len(x.Unmatched) != 1 || x.Unmatched[0] != "nothing-like-it" {
			t.Errorf("stats %+v", x)
		}
	})
	t.Run("session takes its sub-agent", func(t *testing.T) {
		sum, all := buildWith(t, in, Config{Exclude: Exclude{Sessions: []string{"aaaaaaaa-0000-4000-8000-000000000002"}}})
		check(t, all, []string{"bravo"}, []string{"alpha", "charlie"})
		if sum.Sessions != 2 || sum.Orphans != 0 || sum.Excluded.Agents != 1 {
			t.Errorf("sessions %d orphans %d excluded %+v", sum.Sessions, sum.Orphans, sum.Excluded)
		}
	})
	t.Run("dates", func(t *testing.T) {
		since, _ := ParseDate("2026-03-05", false)
		until, _ := ParseDate("2026-03-05", true)
		_, all := buildWith(t, in, Config{Exclude: Exclude{Since: since, Until: until}})
		check(t, all, []string{"alpha", "charlie"}, []string{"bravo"})
		until, _ = ParseDate("2026-03-01", true)
		_, all = buildWith(t, in, Config{Exclude: Exclude{Until: until}})
		check(t, all, []string{"bravo", "charlie"}, []string{"alpha"})
	})
	t.Run("everything out", func(t *testing.T) {
		_, err := Run(context.Background(), Config{Paths: []string{in}, Out: filepath.Join(t.TempDir(), "s"),
			Exclude: Exclude{Projects: []string{"*"}}})
		if err == nil {
			t.Error("a build with nothing left succeeded")
		}
	})
}

func TestParseDate(t *testing.T) {
	for in, want := range map[string]string{
		"2026-03-05":                "2026-03-05T00:00:00Z",
		"2026-03-05T10:30":          "2026-03-05T10:30:00Z",
		"2026-03-05T10:30:00+02:00": "2026-03-05T10:30:00+02:00",
	} {
		got, err := ParseDate(in, false)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	if got, _ := ParseDate("2026-03-05", true); got.Format(time.RFC3339) != "2026-03-06T00:00:00Z" {
		t.Errorf("until a day: %v", got)
	}
	if _, err := ParseDate("last tuesday", false); err == nil {
		t.Error("no error for a bad date")
	}
}

func TestOmitInSite(t *testing.T) {
	in := publishArchive(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out,
		Omit: omit.Options{Thinking: true, ToolOutput: true}}); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, out)
	page, err := os.ReadFile(filepath.Join(out, "home-kimberly-shop", "aaaaaaaa-0000-4000-8000-000000000001.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The call's card says its output was left out (not an empty terminal).
	if !strings.Contains(string(page), omit.Placeholder) {
		t.Error("the session page does not say the output was left out")
	}
	for _, m := range []string{"alpha", "bravo", "charlie"} {
		for _, w := range []string{"thought" + m, "output" + m, "streamed" + m} {
			if strings.Contains(all, w) {
				t.Errorf("%q is in the site", w)
			}
		}
		for _, w := range []string{"prompt" + m, "answer" + m, "input" + m} {
			if !strings.Contains(all, w) {
				t.Errorf("%q is missing", w)
			}
		}
	}
	if !strings.Contains(all, "output left out of this site") {
		t.Error("no page says the output was left out")
	}
	if !strings.Contains(all, "agentpromptbravo") {
		t.Error("the sub-agent is missing")
	}
}

func TestAnonymizePaths(t *testing.T) {
	in := publishArchive(t)
	red, err := redact.New(redact.Options{Anonymize: true, Home: "/home/kimberly", User: "kimberly"})
	if err != nil {
		t.Fatal(err)
	}
	sum, all := buildWith(t, in, Config{Redact: red})
	if !strings.Contains(all, "2 projects · 3 sessions") {
		t.Error("the index does not list the 3 sessions of the 2 projects")
	}
	if i := strings.Index(all, "kimberly"); i >= 0 {
		t.Errorf("the user name is in the site: …%s…", all[max(0, i-80):min(len(all), i+40)])
	}
	for _, want := range []string{"~/shop", "~/private"} {
		if !strings.Contains(all, want) {
			t.Errorf("%s is not in the site", want)
		}
	}
	if sum.Projects != 2 {
		t.Errorf("%d projects", sum.Projects)
	}
}
