package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"ccsite/build/redact"
)

// reviewRand is seeded from the clock (CCSITE_REVIEW_SEED repeats a run).
func reviewRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CCSITE_REVIEW_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (CCSITE_REVIEW_SEED=%d repeats it)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// reviewSecret is n random letters and digits with each kind in it and no
// word or run the rules take for a placeholder.
func reviewSecret(rng *rand.Rand, n int) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		s := string(b)
		low := strings.ToLower(s)
		bad := !strings.ContainsAny(s, "0123456789") || s == low || s == strings.ToUpper(s)
		for _, w := range []string{"test", "secret", "pass", "real", "fake", "mock", "demo", "sample", "dummy", "foo", "change",
			"example", "your", "redact", "xxx", "123", "abc", "qwerty", "letmein", "hunter", "place", "insert", "replace", "key", "token"} {
			bad = bad || strings.Contains(low, w)
		}
		if !bad {
			return s
		}
	}
}

// reviewPlant is a secret planted in a file's line, and the rule that
// must find it.
type reviewPlant struct {
	name, secret, rule string
	file               string
	line               int
	// before and after are text the context must show beside the marker.
	before, after string
	// where is the finding's Where ("": "line").
	where string
}

// reviewTree writes a projects tree (a session with a blank line, and a
// sub-agent) with random secrets in a prompt, a Bash call, a tool's
// result and the sub-agent's lines.
func reviewTree(t *testing.T, rng *rand.Rand) (root string, plants []reviewPlant) {
	root = t.TempDir()
	proj := filepath.Join(root, "-home-kim-shop")
	sid := "5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b"
	if err := os.MkdirAll(filepath.Join(proj, sid, "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(proj, sid+".jsonl")
	agent := filepath.Join(proj, sid, "subagents", "agent-a1b2c3d.jsonl")
	dbPass, mysqlPass := reviewSecret(rng, 14+rng.IntN(10)), reviewSecret(rng, 12+rng.IntN(8))
	ghp := "ghp_" + reviewSecret(rng, 36)
	bearer, bearer2 := reviewSecret(rng, 40), reviewSecret(rng, 40)
	stored := filepath.Join(proj, sid, "tool-results", "toolu_01StOrEdStOrEdStOrEdStOr.txt")
	meta := strings.TrimSuffix(agent, ".jsonl") + ".meta.json"
	deployPass, ghp2 := reviewSecret(rng, 16+rng.IntN(8)), "ghp_"+reviewSecret(rng, 36)
	plants = []reviewPlant{
		{"db password", dbPass, "password-assignment", main, 1, "staging with DB_PASSWORD=", " and tell me", ""},
		{"mysql -p", mysqlPass, "cli-password", main, 4, "mysql -u root -p", " shop -e", ""},
		{"github token", ghp, "github-pat", main, 5, "GITHUB_TOKEN: ", "⏎Authorization", ""},
		{"bearer", bearer, "authorization-bearer", main, 5, "Authorization: Bearer ", "⏎ready", ""},
		{"github token again", ghp, "github-pat", agent, 1, "is ", " still valid", ""},
		{"bearer in agent", bearer2, "authorization-bearer", agent, 2, "Bearer ", " works", ""},
		{"stored output", deployPass, "password-assignment", stored, 3, "export DEPLOY_PASSWORD=", "⏎step 4", "stored"},
		{"agent description", ghp2, "github-pat", meta, 0, "Check ", " is revoked", "meta"},
	}
	if err := os.MkdirAll(filepath.Dir(stored), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stored, []byte("step 1\nstep 2\nexport DEPLOY_PASSWORD="+deployPass+"\nstep 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, []byte(`{"agentType":"general-purpose","description":"Check `+ghp2+` is revoked"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	line := func(v map[string]any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	base := func(uuid, parent, typ string) map[string]any {
		m := map[string]any{"uuid": uuid, "type": typ, "sessionId": sid, "cwd": "/home/kim/shop",
			"timestamp": "2026-03-01T10:00:00Z", "version": "2.1.3", "parentUuid": parent}
		return m
	}
	u1, a1, u2, a2 := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
	prompt := base(u1, "", "user")
	prompt["message"] = map[string]any{"role": "user", "content": "Deploy to staging with DB_PASSWORD=" + dbPass + " and tell me when it is up."}
	think := base("99999999-9999-4999-8999-999999999999", u1, "assistant")
	think["message"] = map[string]any{"id": "msg_00", "role": "assistant", "model": "claude-opus-4-5",
		"content": []any{map[string]any{"type": "text", "text": "Checking the database first."}}}
	call := base(a1, u1, "assistant")
	call["message"] = map[string]any{"id": "msg_01", "role": "assistant", "model": "claude-opus-4-5", "content": []any{
		map[string]any{"type": "tool_use", "id": "toolu_01AbCdEfGhIjKlMnOpQrStUv", "name": "Bash",
			"input": map[string]any{"command": "mysql -u root -p" + mysqlPass + " shop -e 'select 1'", "description": "Check the database"}}}}
	out := "GITHUB_TOKEN: " + ghp + "\nAuthorization: Bearer " + bearer + "\nready\n"
	result := base(u2, a1, "user")
	result["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
		"tool_use_id": "toolu_01AbCdEfGhIjKlMnOpQrStUv", "content": out}}}
	result["toolUseResult"] = map[string]any{"stdout": out, "stderr": ""}
	final := base(a2, u2, "assistant")
	final["message"] = map[string]any{"id": "msg_02", "role": "assistant", "model": "claude-opus-4-5",
		"content": []any{map[string]any{"type": "text", "text": "Staging is up."}}}
	// Line 3 is blank: lines are numbered as the file has them.
	data := line(prompt) + "\n" + line(think) + "\n\n" + line(call) + "\n" + line(result) + "\n" + line(final) + "\n"
	if err := os.WriteFile(main, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ag := base("55555555-5555-4555-8555-555555555555", "", "user")
	ag["isSidechain"], ag["agentId"] = true, "a1b2c3d"
	ag["message"] = map[string]any{"role": "user", "content": "Check whether the token " + "is " + ghp + " still valid."}
	agA := base("66666666-6666-4666-8666-666666666666", "55555555-5555-4555-8555-555555555555", "assistant")
	agA["isSidechain"], agA["agentId"] = true, "a1b2c3d"
	agA["message"] = map[string]any{"id": "msg_03", "role": "assistant", "model": "claude-opus-4-5",
		"content": []any{map[string]any{"type": "text", "text": "Yes: Authorization: Bearer " + bearer2 + " works."}}}
	if err := os.WriteFile(agent, []byte(line(ag)+"\n"+line(agA)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, plants
}

// reviewFindings is every finding of a report.
func reviewFindings(rep *ReviewReport) []ReviewFinding {
	var out []ReviewFinding
	for _, ru := range rep.Rules {
		out = append(out, ru.Findings...)
	}
	return out
}

// TestReview: every planted secret is listed with its rule, file, line and
// id, in its context; counts are by rule; and no byte of the state folder
// holds a secret, raw, HTML-unescaped or JSON-decoded.
func TestReview(t *testing.T) {
	rng := reviewRand(t)
	in, plants := reviewTree(t, rng)
	state := filepath.Join(t.TempDir(), "state")
	site := filepath.Join(t.TempDir(), "site")
	home := filepath.Dir(in) // paths under it are shown as ~/…
	shown := func(p string) string {
		rel, _ := filepath.Rel(home, p)
		return "~/" + filepath.ToSlash(rel)
	}
	rep, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, Out: site, State: state,
		Redact: redact.Options{Secrets: true}, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0] != shown(in) {
		t.Errorf("inputs %q, want %q", rep.Inputs, shown(in))
	}
	if rep.Files != 2 || rep.Lines != 7 {
		t.Errorf("read %d files, %d lines; want 2, 7", rep.Files, rep.Lines)
	}

	type key struct {
		file string
		line int
		rule string
		id   string
	}
	got := map[key]ReviewFinding{}
	for _, f := range reviewFindings(rep) {
		got[key{f.File, f.Line, f.Rule, f.ID}] = f
	}
	wantRules := map[string]int{}
	for _, p := range plants {
		wantRules[p.rule]++
		k := key{shown(p.file), p.line, p.rule, redact.FindingID(p.secret)}
		f, ok := got[k]
		if !ok {
			t.Errorf("%s: no finding %s:%d %s", p.name, k.file, p.line, p.rule)
			continue
		}
		delete(got, k)
		where := p.where
		if where == "" {
			where = "line"
		}
		if f.Where != where || !f.Placed || f.Marker != "[REDACTED:"+p.rule+"]" {
			t.Errorf("%s: where %q, placed %v, marker %q", p.name, f.Where, f.Placed, f.Marker)
		}
		if !strings.HasSuffix(f.Before, p.before) || !strings.HasPrefix(f.After, p.after) {
			t.Errorf("%s: context %q %s %q; want it to end %q and go on %q", p.name, f.Before, f.Marker, f.After, p.before, p.after)
		}
	}
	for k := range got {
		t.Errorf("unexpected finding %s:%d %s", k.file, k.line, k.rule)
	}
	if br := rep.ByRule(); fmt.Sprint(br) != fmt.Sprint(wantRules) {
		t.Errorf("counts by rule %v, want %v", br, wantRules)
	}
	if rep.Total != len(plants) {
		t.Errorf("total %d, want %d", rep.Total, len(plants))
	}
	for _, ru := range rep.Rules {
		if ru.Rule == "github-pat" && ru.Distinct != 2 {
			t.Errorf("github-pat: %d distinct values, want 2 (one token twice, another once)", ru.Distinct)
		}
	}

	// Only the page and its JSON, the user's alone, none with a secret.
	var names []string
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, filepath.Base(p))
			if fi, _ := d.Info(); fi.Mode().Perm() != 0o600 {
				t.Errorf("%s is %v, want 0600", p, fi.Mode().Perm())
			}
		}
		return nil
	})
	sort.Strings(names)
	if strings.Join(names, " ") != "review.html review.json" {
		t.Errorf("the state folder holds %v", names)
	}
	if _, err := os.Stat(site); err == nil {
		t.Error("review wrote into the site folder")
	}
	reviewNoSecrets(t, state, plants)
	page, _ := os.ReadFile(filepath.Join(state, ReviewPage))
	for _, want := range []string{"--allow-file", "--redact", redact.FindingID(plants[0].secret), "[REDACTED:cli-password]",
		"prefers-color-scheme: dark", filepath.Base(plants[0].file)} {
		if !bytes.Contains(page, []byte(html.EscapeString(want))) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if bytes.Contains(page, []byte("<script")) {
		t.Error("the page has a script")
	}
}

// reviewNoSecrets fails for any secret (whole, or its middle) in any file
// under dir, as it is, HTML-unescaped, or in a JSON document's strings.
func reviewNoSecrets(t *testing.T, dir string, plants []reviewPlant) {
	t.Helper()
	var probes []string
	for _, p := range plants {
		probes = append(probes, p.secret, p.secret[len(p.secret)/2-5:len(p.secret)/2+5])
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		views := []string{string(data), html.UnescapeString(string(data))}
		var doc any
		if json.Unmarshal(data, &doc) == nil {
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case string:
					views = append(views, v)
				case []any:
					for _, e := range v {
						walk(e)
					}
				case map[string]any:
					for k, e := range v {
						views = append(views, k)
						walk(e)
					}
				}
			}
			walk(doc)
		}
		for _, v := range views {
			for _, pr := range probes {
				if strings.Contains(v, pr) {
					t.Errorf("%s holds %q, part of a secret", p, pr)
				}
			}
		}
		return nil
	})
}

// TestReviewAllow: a finding's id in an allow file leaves that value alone,
// in the review and in a build, and only that one.
func TestReviewAllow(t *testing.T) {
	rng := reviewRand(t)
	in, plants := reviewTree(t, rng)
	state := filepath.Join(t.TempDir(), "state")
	rep, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, State: state, Redact: redact.Options{Secrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	// The bearer token of the main session's tool result.
	allowed := plants[3]
	var id string
	for _, f := range reviewFindings(rep) {
		if f.File == allowed.file && f.Line == allowed.line && f.Rule == allowed.rule {
			id = f.ID
		}
	}
	if id == "" {
		t.Fatalf("no %s finding at %s:%d", allowed.rule, allowed.file, allowed.line)
	}
	allowFile := filepath.Join(t.TempDir(), "allow.txt")
	if err := os.WriteFile(allowFile, []byte("# not secrets\n"+id+"  # the staging proxy's token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids, err := redact.ReadAllowList(allowFile)
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, State: state,
		Redact: redact.Options{Secrets: true, Allow: ids}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range reviewFindings(rep2) {
		if f.ID == id {
			t.Errorf("the allowed finding is still listed: %s:%d", f.File, f.Line)
		}
	}
	if rep2.Total != rep.Total-1 {
		t.Errorf("%d findings with the allow list, %d without: want one fewer", rep2.Total, rep.Total)
	}

	// A build with the same allow list publishes that value, and only it.
	red, err := redact.New(redact.Options{Secrets: true, Allow: ids})
	if err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: site, State: filepath.Join(t.TempDir(), "bstate"), Redact: red}); err != nil {
		t.Fatal(err)
	}
	all := readAll(t, site)
	if !strings.Contains(all, allowed.secret) {
		t.Error("the allowed value is not on the site")
	}
	for _, p := range plants {
		if p.secret != allowed.secret && strings.Contains(all, p.secret) {
			t.Errorf("the %s is on the site", p.name)
		}
	}
}

// TestReviewKept: a session whose file is gone but which the site's
// archive keeps (a build would restore it) is reviewed too, under its own
// path; nothing of it is left in the state folder but the archive.
func TestReviewKept(t *testing.T) {
	rng := reviewRand(t)
	in, plants := reviewTree(t, rng)
	state := filepath.Join(t.TempDir(), "state")
	red, _ := redact.New(redact.Options{Secrets: true})
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: filepath.Join(t.TempDir(), "site"), State: state, Redact: red}); err != nil {
		t.Fatal(err)
	}
	// Claude Code removes the sub-agent's file.
	gone := plants[5].file
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		before[p] = true
		return nil
	})
	rep, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, State: state, Redact: redact.Options{Secrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 1 || rep.Files != 2 {
		t.Errorf("read %d files, %d kept; want 2, 1", rep.Files, rep.Kept)
	}
	n := 0
	for _, f := range reviewFindings(rep) {
		if f.File == gone {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d findings in the vanished sub-agent's file, want 2", n)
	}
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if !before[p] && filepath.Base(p) != ReviewPage && filepath.Base(p) != ReviewJSON {
			t.Errorf("review left %s", p)
		}
		return nil
	})
}

// TestReviewRefusesSite: no state folder inside the site, nor a page
// reached through a link into it.
func TestReviewRefusesSite(t *testing.T) {
	rng := reviewRand(t)
	in, _ := reviewTree(t, rng)
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	if _, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, Out: site, State: filepath.Join(site, "state"),
		Redact: redact.Options{Secrets: true}}); err == nil || !strings.Contains(err.Error(), "inside the site") {
		t.Errorf("a state folder in the site: %v", err)
	}
	// The state folder is a link into the site.
	os.MkdirAll(filepath.Join(site, "st"), 0o755)
	if err := os.Symlink(filepath.Join(site, "st"), filepath.Join(dir, "linked")); err != nil {
		t.Skip(err)
	}
	if _, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, Out: site, State: filepath.Join(dir, "linked"),
		Redact: redact.Options{Secrets: true}}); err == nil {
		t.Error("a state folder linked into the site is taken")
	}
	// The page itself is a link into the site.
	state := filepath.Join(dir, "state")
	os.MkdirAll(state, 0o700)
	os.Symlink(filepath.Join(site, "st", "review.html"), filepath.Join(state, ReviewPage))
	if _, err := Review(context.Background(), ReviewConfig{Paths: []string{in}, Out: site, State: state,
		Redact: redact.Options{Secrets: true}}); err == nil || !strings.Contains(err.Error(), "inside the site") {
		t.Errorf("a page linked into the site: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(site, "st"))
	if len(entries) > 0 {
		t.Errorf("the site holds %v", entries)
	}
}
