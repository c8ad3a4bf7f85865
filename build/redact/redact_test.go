package redact

import (
	"encoding/base64"
	"encoding/json"
	"regexp/syntax"
	"strings"
	"testing"
)

func newRedactor(t testing.TB) *Redactor {
	t.Helper()
	r, err := New(Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// line makes a JSONL line whose tool output is text.
func line(t *testing.T, text string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": "user", "uuid": "11111111-1111-4111-8111-111111111111",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": "toolu_01AbCdEfGhIjKlMnOpQrStUv", "content": text}}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	stripe    = "sk_live_51H8xQ2eZvKYlo2C0aB3dE4fG5hI6jK7l"
	anthropic = "sk-ant-api03-Zq3xYw9vUt8sRq7pOn6mLk5jIh4gFe3dCb2aZy1xWv0uTs9rQp8oNm7lKj6iHh5gFf4eDd3cCb2aAz1yYx0wWv9uUt8sSAA"
	awsID     = "AKIAQ3VZ7RXJ4M5KPT2N"
	azureKey  = "Qk3mZ8vR2xT7pL4nW9yB6cF1hJ5eG0sA3dK8mN2qR7tV4wX9zC1bE6fH0jL5oP8sU2vY7xA3cD9gF4hK1mP6qS0tW5yZ=="
	google    = "AIzaSyD4x9Qm2LpR7vT1wK8nB3cF6hJ0eG5sYuI"
)

// TestDecodedValues: secrets inside JSON strings, in the contexts that
// escaping used to hide from the rules, are found and the line stays
// valid JSON.
func TestDecodedValues(t *testing.T) {
	r := newRedactor(t)
	cases := map[string]string{
		"python constant":   "$ cat config.py\nAPI_KEY = \"" + stripe + "\"\nDEBUG = False\n",
		"js object":         "module.exports = { apiKey: '" + google + "', region: 'eu' }",
		"start of line":     "first line\n" + anthropic + "\nlast line",
		"ansi":              "\x1b[32m" + awsID + "\x1b[0m done",
		"ansi inside":       "key: \x1b[1msk_live_51H8xQ2eZvKY\x1b[0mlo2C0aB3dE4fG5hI6jK7l\n",
		"tab separated":     "name\t" + stripe + "\t2026-01-01",
		"end of sentence":   "The key is " + stripe + ".",
		"in brackets":       "keys (" + awsID + ") and [" + google + "]",
		"base64":            "data: " + base64.StdEncoding.EncodeToString([]byte("export STRIPE_KEY=\""+stripe+"\"\n")),
		"env password":      "DB_PASSWORD=Xk9pL2mQ7vZ3\nDB_HOST=localhost",
		"yaml password":     "database:\n  password: Xk9pL2mQ7vZ3\n  host: db",
		"json password":     `{"password": "Xk9pL2mQ7vZ3", "user": "app"}`,
		"basic auth":        "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("admin:Xk9pL2mQ7vZ3")),
		"bearer":            "curl -H 'Authorization: Bearer 4f9aXk9pL2mQ7vZ3Rt8uWy1b' https://api",
		"query password":    "postgres://db.internal:5432/shop?user=app&password=Xk9pL2mQ7vZ3",
		"ado password":      "Server=db;Database=shop;User Id=app;Password=Xk9pL2mQ7vZ3;",
		"env letters":       "POSTGRES_PASSWORD=wjoNyAcXpmiAdgEik\nLOG=info",
		"query letters":     "https://x.io/export?user=root&password=tjQePyDlQnfmfwjyCoRq&ssl=1",
		"url no user":       "redis://:Xk9pL2mQ7vZ3@cache:6379/0",
		"azure account key": "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net",
		"secret assignment": "export APP_SECRET=9fK2mQ7xZ4pL1vB8\nexport GH_TOKEN=q7Xk9pL2mQ7vZ3w",
	}
	secrets := map[string][]string{
		"python constant": {stripe}, "js object": {google}, "start of line": {anthropic}, "ansi": {awsID},
		"ansi inside": {"sk_live_51H8xQ2eZvKY", "lo2C0aB3dE4fG5hI6jK7l"}, "tab separated": {stripe},
		"end of sentence": {stripe}, "in brackets": {awsID, google},
		"base64":       {base64.StdEncoding.EncodeToString([]byte("export STRIPE_KEY=\"" + stripe + "\"\n"))[:30]},
		"env password": {"Xk9pL2mQ7vZ3"}, "yaml password": {"Xk9pL2mQ7vZ3"}, "json password": {"Xk9pL2mQ7vZ3"},
		"basic auth": {base64.StdEncoding.EncodeToString([]byte("admin:Xk9pL2mQ7vZ3"))}, "bearer": {"4f9aXk9pL2mQ7vZ3Rt8uWy1b"},
		"query password": {"Xk9pL2mQ7vZ3"}, "env letters": {"wjoNyAcXpmiAdgEik"}, "query letters": {"tjQePyDlQnfmfwjyCoRq"}, "ado password": {"Xk9pL2mQ7vZ3"}, "url no user": {"Xk9pL2mQ7vZ3"},
		"azure account key": {azureKey}, "secret assignment": {"9fK2mQ7xZ4pL1vB8", "q7Xk9pL2mQ7vZ3w"},
	}
	for name, text := range cases {
		in := line(t, text)
		out := r.Line("f.jsonl", in)
		if !json.Valid(out) {
			t.Errorf("%s: not JSON any more: %s", name, out)
			continue
		}
		var v struct {
			Message struct {
				Content []struct {
					Content string `json:"content"`
				} `json:"content"`
			} `json:"message"`
		}
		json.Unmarshal(out, &v)
		got := v.Message.Content[0].Content
		for _, sec := range secrets[name] {
			if strings.Contains(got, sec) {
				t.Errorf("%s: %q left in %q", name, sec, got)
			}
		}
		if !strings.Contains(got, "[REDACTED:") {
			t.Errorf("%s: no redaction in %q", name, got)
		}
		if !strings.Contains(string(out), "toolu_01AbCdEfGhIjKlMnOpQrStUv") || !strings.Contains(string(out), "11111111-1111-4111-8111-111111111111") {
			t.Errorf("%s: an id was touched: %s", name, out)
		}
	}
}

// TestNotSecrets: code that names a secret, placeholders and references
// are left as they are, and a clean line comes back as it was.
func TestNotSecrets(t *testing.T) {
	r := newRedactor(t)
	for _, text := range []string{
		"password = getpass()",
		"if not token:\n    raise ValueError('no token')",
		`API_KEY = os.environ["API_KEY"]`,
		"password: ${DB_PASSWORD}",
		"token=$TOKEN",
		`"password": "****"`,
		`api_key = "your-api-key-here"`,
		"Authorization: Bearer <your-token>",
		"Authorization: Bearer $GITHUB_TOKEN",
		"def get_secret_key(self):\n    return self.secret_key",
		"secret = None",
		"password: string;",
		"const token = req.headers.authorization;",
		"max_tokens=4096",
		`token_type: "bearer"`,
		"password_hash = bcrypt.hash(password)",
		"this is basic information about the token",
		`"tokenizer": "whitespace"`,
		"password=${{ secrets.DB_PASSWORD }}",
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 and uuid 5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b",
		"https://user@host/ and http://localhost:8080/path",
	} {
		in := line(t, text)
		if out := r.Line("f.jsonl", in); string(out) != string(in) {
			t.Errorf("changed %q:\n%s", text, out)
		}
	}
	byRule, _ := r.Counts()
	if len(byRule) != 0 {
		t.Errorf("counted %v", byRule)
	}
}

// TestSensitiveNames: a value is judged with the name of its member, so a
// tool input's env and headers are redacted.
func TestSensitiveNames(t *testing.T) {
	r := newRedactor(t)
	in := []byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"mcp__x__call","input":{"env":{"DB_PASSWORD":"Xk9pL2mQ7vZ3","PORT":"5432"},"headers":{"Authorization":"Bearer 4f9aXk9pL2mQ7vZ3Rt8uWy1b"}}},{"type":"tool_use","id":"toolu_2","name":"mcp__github__create_secret","input":{"value":"q0MRdiECSiDZwEl37IM1Ya2oXq2Xmm0Aj+dkOMRr","secret_name":"aws_secret_access_key"}}]}}`)
	out := string(r.Line("f.jsonl", in))
	for _, sec := range []string{"Xk9pL2mQ7vZ3", "4f9aXk9pL2mQ7vZ3Rt8uWy1b", "q0MRdiECSiDZwEl37IM1Ya2oXq2Xmm0Aj+dkOMRr"} {
		if strings.Contains(out, sec) {
			t.Errorf("%s left: %s", sec, out)
		}
	}
	if !strings.Contains(out, `"PORT":"5432"`) {
		t.Errorf("PORT touched: %s", out)
	}
}

// TestKeptAsIs: signatures, ids and times are never touched, even when a
// rule would match them; a secret used as a member name is.
func TestKeptAsIs(t *testing.T) {
	r := newRedactor(t)
	sig := "EqQBCkYIBxgCKkDl4H0o3ZyP6tZ9Vqv0mEr2jT3QxY8hZk1bNcW5sP7uFgLrD9aYeXoJiM2nKb6Hv4tGqRsUwCzEdAfIgOhBjNkLpMq" + awsID
	in := []byte(`{"type":"assistant","uuid":"5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b","timestamp":"2026-03-01T10:00:00.123Z","message":{"id":"msg_01XyZaBcDeFgHiJkLmNoPqRs","content":[{"type":"thinking","thinking":"hm","signature":"` + sig + `"}]},"toolUseResult":{"` + stripe + `":1}}`)
	out := string(r.Line("f.jsonl", in))
	for _, keep := range []string{sig, "5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b", "2026-03-01T10:00:00.123Z", "msg_01XyZaBcDeFgHiJkLmNoPqRs"} {
		if !strings.Contains(out, keep) {
			t.Errorf("%s touched: %s", keep, out)
		}
	}
	if strings.Contains(out, stripe) || !json.Valid([]byte(out)) {
		t.Errorf("member name not redacted: %s", out)
	}
}

// TestBrokenLine: a line that is not JSON is redacted as text.
func TestBrokenLine(t *testing.T) {
	r := newRedactor(t)
	out := string(r.Line("f.jsonl", []byte(`{"type":"user","message":"key `+stripe+` and then`)))
	if strings.Contains(out, stripe) {
		t.Errorf("left in a broken line: %s", out)
	}
}

// TestNames: folder and file names pass the same rules.
func TestNames(t *testing.T) {
	r := newRedactor(t)
	if got := r.Name("x", "-home-kim-"+stripe+"-shop"); strings.Contains(got, stripe) {
		t.Errorf("Name kept the secret: %s", got)
	}
	if got := r.Name("x", "5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b"); got != "5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b" {
		t.Errorf("Name changed an id: %s", got)
	}
}

func TestLoosen(t *testing.T) {
	for in, want := range map[string]string{
		"end " + stripe + ".":      "end " + stripe + " ",
		"(a) b":                    "(a  b",
		`"pa$$w0rd!x"`:             `"pa$$w0rd!x"`,
		`"pa$$w0rd!"`:              `"pa$$w0rd "`,
		"a.b.c":                    "a.b.c",
		"password: 'a8Kq.3u8Y'":    "password: 'a8Kq.3u8Y'",
		"/x/SECRET.json and":       "/x/SECRET json and",
		"<a>SECRET</a>":            "<a>SECRET /a ",
		"hooks.slack.com/services": "hooks.slack.com/services",
		"see x.tar.gz.":            "see x.tar.gz ",
		"cat /x/a.tar.gz.":         "cat /x/a.tar gz ",
		"k: v":                     "k: v",
		"list: a, b, c).":          "list: a  b  c  ",
		"no punctuation at all ":   "no punctuation at all ",
	} {
		if got := loosen(in); got != want {
			t.Errorf("loosen(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBase64Runs(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString([]byte(`API_KEY="` + stripe + `"`))
	runs := base64Runs("x " + enc + " /usr/local/lib/python3/site-packages y")
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	if got, ok := decodeBase64Text(("x " + enc)[runs[0][0]:runs[0][1]]); !ok || !strings.Contains(got, stripe) {
		t.Errorf("decoded %q %v", got, ok)
	}
}

// TestAnonymizeOnly: a line changed only by anonymising comes back
// changed, with nothing counted.
func TestAnonymizeOnly(t *testing.T) {
	r, err := New(Options{Anonymize: true, Home: "/home/kim", User: "kim"})
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"type":"user","cwd":"/home/kim/src/shop","message":{"role":"user","content":"see /home/kim/src/shop/main.go"}}`)
	out := string(r.Line("f.jsonl", in))
	if strings.Contains(out, "/home/kim") || !strings.Contains(out, `"cwd":"~/src/shop"`) {
		t.Errorf("not anonymised: %s", out)
	}
	if byRule, _ := r.Counts(); len(byRule) != 0 {
		t.Errorf("counted %v", byRule)
	}
}

// TestKeyAcrossPatchLines: a private key added by an edit sits in a
// structuredPatch as one array element per line; it is found across them
// and cut from each, the lines keeping their signs.
func TestKeyAcrossPatchLines(t *testing.T) {
	r := newRedactor(t)
	body := []string{
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
		"LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
		"9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvre",
	}
	lines := []any{" import os", "+-----BEGIN RSA PRIVATE KEY-----"}
	for _, b := range body {
		lines = append(lines, "+"+b)
	}
	lines = append(lines, "+-----END RSA PRIVATE KEY-----", " print('done')")
	in, _ := json.Marshal(map[string]any{"type": "user", "toolUseResult": map[string]any{"filePath": "/x/key.py",
		"structuredPatch": []any{map[string]any{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 8, "lines": lines}}}})
	out := string(r.Line("f.jsonl", in))
	for _, b := range body {
		if strings.Contains(out, b[10:40]) {
			t.Errorf("key line left: %s", out)
		}
	}
	var v struct {
		ToolUseResult struct {
			StructuredPatch []struct {
				Lines []string `json:"lines"`
			} `json:"structuredPatch"`
		} `json:"toolUseResult"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	got := v.ToolUseResult.StructuredPatch[0].Lines
	if len(got) != len(lines) || got[0] != " import os" || got[len(got)-1] != " print('done')" ||
		!strings.HasPrefix(got[1], "+") || !strings.Contains(got[1], "[REDACTED:private-key]") || got[2] != "+" {
		t.Errorf("lines: %q", got)
	}
}

func TestFake(t *testing.T) {
	for v, want := range map[string]bool{
		"sk-ant-api03-real-secret": true, "ghp_test123": true, "SuperSecret123": true, "sk-1234567890abcdef": true,
		"MY_TEST_TOKEN": true, "jcd6DEMoj2k0Vc2bIO0d": false, "Xk9pL2mQ7vZ3": false, "reAL9kQ": false,
		"oMZxFNIRTYavIDMLBIXN": false,
	} {
		if got := fake(v); got != want {
			t.Errorf("fake(%q) = %v", v, got)
		}
	}
}

func TestIdentLike(t *testing.T) {
	for v, want := range map[string]bool{
		"password": true, "userPwd": true, "dbPassword": true, "self": true, "DB_PASSWORD": true, "newPassword2": true,
		"GyyauvkgWkbbk3": false, "nBcvXufhzKerxEdXjncg": false, "oMZxFNIRTYavIDMLBIXN": false, "PuIdFeMiTeZkNkQcVkJe": false,
		"tjQePyDlQnfmfwjyCoRq": false, "getIdOrNull": true,
	} {
		if got := identLike(v); got != want {
			t.Errorf("identLike(%q) = %v", v, got)
		}
	}
}

func TestStringEnd(t *testing.T) {
	for in, want := range map[string]int{
		`"abc"x`: 5, `"a\"b"x`: 6, `"a\\"x`: 5, `"a\\\"b"x`: 8, `"\n\n\n"`: 8, `"abc`: -1, `"a\"`: -1, `"a\`: -1, `""`: 2,
	} {
		if got, _ := stringEnd([]byte(in), 0); got != want {
			t.Errorf("stringEnd(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestNamesRandomParts: a key written into a folder or file name is cut,
// a temporary folder above the archive is not.
func TestNamesRandomParts(t *testing.T) {
	r := newRedactor(t)
	for in, want := range map[string]string{
		"-home-kim-rk-live-fcAqLJg4G3KqbzbySptO0lP0amBb":                                                       "-home-kim-rk-live-[REDACTED:name-token]",
		"/tmp/TestScriptspublish3922104591/projects/-home-kim-shop/aaaaaaaa-0000-4000-8000-000000000001.jsonl": "/tmp/TestScriptspublish3922104591/projects/-home-kim-shop/aaaaaaaa-0000-4000-8000-000000000001.jsonl",
		"/x/projects/-home-kim-shop/agent-a1b2c3d4e5f6a7b8c.jsonl":                                             "/x/projects/-home-kim-shop/agent-a1b2c3d4e5f6a7b8c.jsonl",
		"/x/projects/-home-kim-Xk9pL2mQ7vZ3aB8c/s.jsonl":                                                       "/x/projects/-home-kim-[REDACTED:name-token]/s.jsonl",
	} {
		if got := r.Name("f", in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTwoKeysInOnePatch: two keys in one patch's lines are both cut, each
// line keeping its sign.
func TestTwoKeysInOnePatch(t *testing.T) {
	r := newRedactor(t)
	body := []string{
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
	}
	var lines []any
	for range 2 {
		lines = append(lines, "+-----BEGIN RSA PRIVATE KEY-----")
		for _, b := range body {
			lines = append(lines, "+"+b)
		}
		lines = append(lines, "+-----END RSA PRIVATE KEY-----", " x = 1")
	}
	in, _ := json.Marshal(map[string]any{"toolUseResult": map[string]any{"structuredPatch": []any{map[string]any{"lines": lines}}}})
	out := string(r.Line("f.jsonl", in))
	if strings.Contains(out, body[0][10:40]) || strings.Contains(out, body[1][10:40]) || strings.Count(out, "[REDACTED:private-key]") != 2 {
		t.Errorf("patch: %s", out)
	}
	if !json.Valid([]byte(out)) || strings.Count(out, `" x = 1"`) != 2 {
		t.Errorf("lines lost: %s", out)
	}
}

// TestPasswordValues: an assignment's value is taken whole, however long,
// and ends at its line (a quote left open on one line does not take the
// next line's assignment into a value of its own); a name may be long.
func TestPasswordValues(t *testing.T) {
	r := newRedactor(t)
	// 1,600 bytes that no gitleaks rule takes whole (the "!"s cut
	// generic-api-key's runs short).
	long := strings.Repeat("q7Xk9pL2!mQ7vZ3w", 100)
	cases := map[string]struct {
		text    string
		secrets []string
	}{
		"long value":  {"export SERVICE_TOKEN=" + long + "\nexport DEBUG=1\n", []string{long[:40], long[len(long)-40:]}},
		"open quote":  {"API_KEY = \"abc\npassword = \"wjoNyAcXpmiAdgEik\"\n", []string{"wjoNyAcXpmiAdgEik"}},
		"long name":   {"prod_db_password_for_the_main_cluster = 'wjoNyAcXpmiAdgEik'\n", []string{"wjoNyAcXpmiAdgEik"}},
		"long prefix": {"export SERVICEACCOUNTCONFIGURATIONOFTHEPRODUCTIONDBPASSWORD=wjoNyAcXpmiAdgEik\n", []string{"wjoNyAcXpmiAdgEik"}},
	}
	for name, c := range cases {
		out := string(r.Line("f.jsonl", line(t, c.text)))
		for _, sec := range c.secrets {
			if strings.Contains(out, sec) {
				t.Errorf("%s: %q left in %s", name, sec, out)
			}
		}
	}
}

// TestRulesUncounted: ccsite's rules have no repetition counted past 64
// ({0,1000}): RE2 makes a state for each count it may be at, which cost
// a second of CPU in every process that redacted (see password-assignment).
func TestRulesUncounted(t *testing.T) {
	var walk func(re *syntax.Regexp) string
	walk = func(re *syntax.Regexp) string {
		if re.Op == syntax.OpRepeat && (re.Max > 64 || re.Min > 64) {
			return re.String()
		}
		for _, s := range re.Sub {
			if bad := walk(s); bad != "" {
				return bad
			}
		}
		return ""
	}
	for _, rule := range extraRules {
		re, err := syntax.Parse(rule.Regex.String(), syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", rule.RuleID, err)
		}
		if bad := walk(re); bad != "" {
			t.Errorf("%s: counted repetition %s", rule.RuleID, bad)
		}
	}
}

// TestAllowCommentIgnored: a "gitleaks:allow" in a transcript (a tool's
// output, a file read, a prompt) keeps no secret from being redacted, on
// its own line or another.
func TestAllowCommentIgnored(t *testing.T) {
	r := newRedactor(t)
	for _, text := range []string{
		"STRIPE_KEY=" + stripe + " # gitleaks:allow\n",
		"see the docs: # gitleaks:allow marks a false positive\n\nSTRIPE_KEY=" + stripe + "\n",
	} {
		if out := string(r.Line("f.jsonl", line(t, text))); strings.Contains(out, stripe) {
			t.Errorf("%q left in %s", stripe, out)
		}
	}
}
