package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ccsite/build/redact"
)

// fakeSecrets makes realistic secrets (formats of real providers, random
// bodies from a fixed seed) so gitleaks' rules can find them.
func fakeSecrets() map[string]string {
	rng := rand.New(rand.NewPCG(7, 11))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	rnd := func(n int, set string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = set[rng.IntN(len(set))]
		}
		return string(b)
	}
	pemBody := ""
	for i := 0; i < 6; i++ {
		pemBody += rnd(64, alnum+"+/") + "\n"
	}
	return map[string]string{
		"anthropic": "sk-ant-api03-" + rnd(93, alnum+"-_") + "AA",
		"openai":    "sk-proj-" + rnd(58, alnum) + "T3BlbkFJ" + rnd(58, alnum),
		"github":    "ghp_" + rnd(36, alnum),
		"aws":       "AKIA" + rnd(16, upper),
		"slack":     "xoxb-" + rnd(12, "0123456789") + "-" + rnd(12, "0123456789") + "-" + rnd(24, alnum),
		"stripe":    "sk_live_" + rnd(32, alnum),
		"jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." +
			rnd(43, alnum+"_-"),
		"pem":      "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody + "-----END RSA PRIVATE KEY-----",
		"env":      rnd(28, alnum),
		"urlpass":  "Zq8" + rnd(14, alnum),
		"literal":  "acme-internal-" + rnd(10, "abcdefghij"),
		"userregx": "CORP-" + rnd(12, "0123456789"),
	}
}

// secretArchive writes a session (and a sub-agent) holding every secret:
// in the title, a prompt, an answer, thinking, a tool's input and output.
func secretArchive(t *testing.T, sec map[string]string) (dir string, keep []string) {
	dir = t.TempDir()
	proj := filepath.Join(dir, "-home-kim-shop")
	sid := "5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b"
	if err := os.MkdirAll(filepath.Join(proj, sid, "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	envDump := fmt.Sprintf("DATABASE_URL=postgres://shop:%s@db.internal:5432/shop\nSTRIPE_SECRET_KEY=%s\nAPP_SECRET=%s\n",
		sec["urlpass"], sec["stripe"], sec["env"])
	commit := "9fceb02d0ae598e95dc970b74767f19372d61af8"
	keep = []string{sid, "toolu_01AbCdEfGhIjKlMnOpQrStUv", "msg_01XyZaBcDeFgHiJkLmNoPqRs", commit,
		"11111111-1111-4111-8111-111111111111"}
	line := func(v map[string]any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	base := func(uuid, parent, typ string) map[string]any {
		m := map[string]any{"uuid": uuid, "type": typ, "sessionId": sid, "cwd": "/home/kim/shop",
			"timestamp": "2026-03-01T10:00:00Z", "version": "2.1.3"}
		if parent != "" {
			m["parentUuid"] = parent
		}
		return m
	}
	u1, a1, u2, a2 := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
	prompt := base(u1, "", "user")
	prompt["message"] = map[string]any{"role": "user", "content": "Deploy with my key " + sec["anthropic"] +
		" and the OpenAI one " + sec["openai"] + " then the JWT " + sec["jwt"] + "\nOur ticket id is " + sec["userregx"] +
		" at " + sec["literal"] + "."}
	answer := base(a1, u1, "assistant")
	answer["requestId"] = "req_011CUaBcDeFgHiJkLmNoPq"
	answer["message"] = map[string]any{"id": keep[2], "role": "assistant", "model": "claude-opus-4-5", "content": []any{
		map[string]any{"type": "thinking", "thinking": "The GitHub token " + sec["github"] + " should not be echoed.",
			"signature": "EqQBCkYIBxgCKkDl4H0o3ZyP6tZ9Vqv0mEr2jT3QxY8hZk1bNcW5sP7uFgLrD9aYeXoJiM2nKb6Hv4tGqRsUwCzEdAfIgOhBjNkLpMq"},
		map[string]any{"type": "text", "text": "Commit " + commit + " has the AWS key " + sec["aws"] + " hard-coded."},
		map[string]any{"type": "tool_use", "id": keep[1], "name": "Bash",
			"input": map[string]any{"command": "cat .env && echo " + sec["slack"], "description": "Show env"}},
	}}
	result := base(u2, a1, "user")
	result["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
		"tool_use_id": keep[1], "content": envDump + sec["pem"] + "\n"}}}
	result["toolUseResult"] = map[string]any{"stdout": envDump + sec["pem"] + "\n", "stderr": ""}
	final := base(a2, u2, "assistant")
	final["message"] = map[string]any{"id": "msg_02", "role": "assistant", "model": "claude-opus-4-5",
		"content": []any{map[string]any{"type": "text", "text": "Found " + sec["stripe"] + " in .env; rotate it."}}}
	title := map[string]any{"type": "custom-title", "customTitle": "Rotate " + sec["github"], "sessionId": sid}
	var lines []string
	for _, v := range []map[string]any{prompt, answer, result, final, title} {
		lines = append(lines, line(v))
	}
	if err := os.WriteFile(filepath.Join(proj, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sub-agent that saw secrets too.
	ag := base("55555555-5555-4555-8555-555555555555", "", "user")
	ag["isSidechain"] = true
	ag["agentId"] = "a1b2c3d"
	ag["message"] = map[string]any{"role": "user", "content": "Check that " + sec["aws"] + " and " + sec["anthropic"] + " are revoked."}
	agA := base("66666666-6666-4666-8666-666666666666", "55555555-5555-4555-8555-555555555555", "assistant")
	agA["isSidechain"] = true
	agA["agentId"] = "a1b2c3d"
	agA["message"] = map[string]any{"id": "msg_03", "role": "assistant", "model": "claude-opus-4-5",
		"content": []any{map[string]any{"type": "text", "text": "Revoked. Slack: " + sec["slack"]}}}
	if err := os.WriteFile(filepath.Join(proj, sid, "subagents", "agent-a1b2c3d.jsonl"),
		[]byte(line(ag)+"\n"+line(agA)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	meta := `{"agentType":"general-purpose","description":"Revoke ` + sec["github"] + `"}`
	if err := os.WriteFile(filepath.Join(proj, sid, "subagents", "agent-a1b2c3d.meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, keep
}

// probesOf are the strings that must not appear: each secret whole, and a
// distinctive middle part of it (an escaped or cut copy would still hold it).
func probesOf(sec map[string]string) map[string]string {
	out := map[string]string{}
	for name, s := range sec {
		out[name] = s
		if name == "pem" {
			lines := strings.Split(s, "\n")
			out[name+"/body"] = lines[2]
			continue
		}
		if len(s) >= 24 {
			out[name+"/middle"] = s[len(s)/2-6 : len(s)/2+6]
		}
	}
	return out
}

// scanTree fails for every probe found in any file under dir.
func scanTree(t *testing.T, dir string, probes map[string]string) (files int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		for name, pr := range probes {
			if bytes.Contains(data, []byte(pr)) {
				t.Errorf("%s holds the %s secret", p, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRedactionEverywhere builds a site (with search shards, the bleve
// index, Markdown and JSON exports) and a shared file from an archive full
// of secrets, and reads every byte written: no secret is left, each is
// replaced by [REDACTED:<rule>], and the ids are all still there.
func TestRedactionEverywhere(t *testing.T) {
	sec := fakeSecrets()
	in, keep := secretArchive(t, sec)
	red, err := redact.New(redact.Options{Secrets: true, Literals: []string{sec["literal"]},
		Patterns: mustRegexps(t, `CORP-[0-9]{12}`)})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, JSON: true, Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Docs == 0 || sum.Agents != 1 {
		t.Fatalf("built %d search documents, %d sub-agents", sum.Docs, sum.Agents)
	}
	probes := probesOf(sec)
	n := scanTree(t, out, probes)
	t.Logf("%d files read, none holds a secret", n)

	// The rules named, the ids kept.
	all := readAll(t, out)
	for _, rule := range []string{"anthropic-api-key", "openai-api-key", "github-pat", "aws-access-token", "slack-bot-token",
		"stripe-access-token", "jwt", "private-key", "url-password", "user-literal", "user-regex"} {
		if !strings.Contains(all, "[REDACTED:"+rule+"]") {
			t.Errorf("no [REDACTED:%s] anywhere", rule)
		}
	}
	for _, id := range keep {
		if !strings.Contains(all, id) {
			t.Errorf("the id %s was redacted", id)
		}
	}
	byRule, files := map[string]int{}, map[string]bool{}
	for _, r := range sum.Redactions {
		for rule, n := range r.ByRule {
			byRule[rule] += n
		}
		for _, f := range r.Files {
			files[f] = true
		}
	}
	if len(files) != 2 || byRule["private-key"] == 0 {
		t.Errorf("counts by rule %v, files %v", byRule, files)
	}

	// The shared single file too.
	red2, _ := redact.New(redact.Options{Secrets: true, Literals: []string{sec["literal"]},
		Patterns: mustRegexps(t, `CORP-[0-9]{12}`)})
	shared := filepath.Join(t.TempDir(), "one.html")
	matches, _ := filepath.Glob(filepath.Join(in, "*", "*.jsonl"))
	if _, err := Share(context.Background(), ShareConfig{File: matches[0], Out: shared, Redact: red2}); err != nil {
		t.Fatal(err)
	}
	scanTree(t, filepath.Dir(shared), probes)
}

func mustRegexps(t *testing.T, pats ...string) []*regexp.Regexp {
	t.Helper()
	var out []*regexp.Regexp
	for _, p := range pats {
		out = append(out, regexp.MustCompile(p))
	}
	return out
}

func readAll(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.Write(data)
		}
		return nil
	})
	return b.String()
}

// TestRedactedNamesStayApart: two session files whose names redact alike
// (each named after a key) still get a page each, and neither name is
// published.
func TestRedactedNamesStayApart(t *testing.T) {
	in := t.TempDir()
	proj := filepath.Join(in, "-home-kim-shop")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"sk_live_4eC39HqLyjWDarjtT1zdp7dcA", "sk_live_9xQ27LmPzuWErbtkT3ydq4ecB"}
	for i, n := range names {
		line := fmt.Sprintf(`{"type":"user","uuid":"1111111%d-1111-4111-8111-111111111111","timestamp":"2026-03-0%dT10:00:00Z","cwd":"/home/kim/shop","message":{"role":"user","content":"session %d"}}`, i, i+1, i)
		if err := os.WriteFile(filepath.Join(proj, n+".jsonl"), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	red, err := redact.New(redact.Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 2 {
		t.Fatalf("%d sessions", sum.Sessions)
	}
	pages, _ := filepath.Glob(filepath.Join(out, "home-kim-shop", "*.html"))
	if len(pages) != 3 { // the project's index and a page per session
		t.Errorf("pages %v", pages)
	}
	all := readAll(t, out)
	for _, n := range names {
		if strings.Contains(all, n) || strings.Contains(strings.ToLower(all), strings.ToLower(n[8:])) {
			t.Errorf("%s is in the site", n)
		}
	}
	for i := range names {
		if !strings.Contains(all, fmt.Sprintf("session %d", i)) {
			t.Errorf("session %d lost", i)
		}
	}
}
