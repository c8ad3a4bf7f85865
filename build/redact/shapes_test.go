package redact

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"ccsite/build/internal/leakgen"
)

// shapeRand draws the values of the shape tests: a new seed each run (it
// is logged, to run one again with CCSITE_SHAPE_SEED).
func shapeRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("CCSITE_SHAPE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CCSITE_SHAPE_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed>>7))
}

func randStr(r *rand.Rand, n int, set string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.IntN(len(set))]
	}
	return string(b)
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randPassword is a password as people pick them: letters and digits,
// sometimes a symbol.
func randPassword(r *rand.Rand) string {
	for {
		p := randStr(r, 10+r.IntN(12), alnum)
		if r.IntN(2) == 0 {
			p += string("!*.~^@#"[r.IntN(7)]) + randStr(r, 3+r.IntN(4), alnum)
		}
		if !fake(p) && !rePlaceholder.MatchString(p) {
			return p
		}
	}
}

// shapeCase is a text holding secret (and maybe more that must go).
type shapeCase struct {
	name   string
	text   string
	secret []string
}

func shapeCases(r *rand.Rand) []shapeCase {
	pw := func() string { return randPassword(r) }
	q := func(s string) string { return []string{s, "'" + s + "'", `"` + s + `"`}[r.IntN(3)] }
	var cs []shapeCase
	add := func(name, text string, secret ...string) { cs = append(cs, shapeCase{name, text, secret}) }
	p := pw()
	add("mysql -p", "$ mysql -h db-prod.internal -u orders_app -p"+p+" orders -e 'SELECT 1'", p)
	p = pw()
	add("mysqldump -p", "mysqldump -uroot -p'"+p+"' shop > shop.sql", p)
	p = pw()
	add("sshpass -p", "sshpass -p "+q(p)+" ssh deploy@10.2.14.7 uptime", p)
	p = pw()
	add("docker login -p", "docker login -u ci-bot -p "+p+" registry.northwind-labs.io", p)
	p = pw()
	add("podman login --password", "podman login --username ci --password "+q(p)+" ghcr.io", p)
	p = pw()
	add("redis-cli -a", "redis-cli -h cache.internal -a "+q(p)+" ping", p)
	p = pw()
	add("htpasswd -b file", "htpasswd -b /etc/nginx/.htpasswd admin "+p, p)
	p = pw()
	add("htpasswd -nbB", "htpasswd -nbB ops "+q(p), p)
	p = pw()
	add("zip -P", "zip -r -P "+q(p)+" backup.zip dump.sql", p)
	p = pw()
	add("openssl -pass pass:", "openssl enc -aes-256-cbc -pbkdf2 -in a.tar -out a.enc -pass pass:"+p, p)
	p = pw()
	add("openssl -passout pass:", "openssl pkcs12 -export -in c.pem -inkey k.pem -out b.p12 -passout pass:"+p, p)
	p = pw()
	add("smbclient -U user%", "smbclient //fs01/finance -U svc_backup%"+p+" -c 'ls'", p)
	p = pw()
	add("ldapsearch -w", `ldapsearch -x -H ldap://dc01 -D "cn=admin,dc=nw,dc=io" -w `+q(p)+` -b "dc=nw,dc=io"`, p)
	p = pw()
	add("sqlcmd -P", `sqlcmd -S sql-prod,1433 -U sa -P `+q(p)+` -Q "SELECT 1"`, p)
	k := randStr(r, 40, alnum+"/+")
	add("aws configure set", "aws configure set aws_secret_access_key "+k+" --profile prod", k)
	stripe := "sk_live_" + randStr(r, 24+r.IntN(2)*75, alnum)
	add("curl -u key:", "curl https://api.stripe.com/v1/charges -u "+stripe+": -d amount=2000", stripe)
	u := randUUID(r)
	add(".netrc heroku", "$ cat ~/.netrc\nmachine api.heroku.com\n  login kim@nw.io\n  password "+u+"\nmachine git.heroku.com\n  login kim@nw.io\n  password "+u+"\n", u)
	p = pw()
	add(".netrc one line", "machine git.nw.io login ci-bot password "+p, p)
	body := randStr(r, 64, alnum+"+/") + "\n" + randStr(r, 64, alnum+"+/") + "\n" + randStr(r, 40, alnum+"+/")
	add("private key cut short", "$ head -n 4 ~/.ssh/id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n"+body+"\n$ ls", strings.Split(body, "\n")...)
	pem := "-----BEGIN EC PRIVATE KEY-----\n" + body + "\n-----END EC PRIVATE KEY-----"
	add("private key in a URL", "https://vault.nw.io/v1/import?name=x&key="+url.QueryEscape(pem), strings.Split(body, "\n")...)
	add("private key in a JSON string", `{"type": "service_account", "private_key": "`+strings.ReplaceAll(pem, "\n", `\n`)+`\n", "client_email": "d@x.iam.gserviceaccount.com"}`,
		strings.Split(body, "\n")...)
	sec := randStr(r, 40, alnum)
	doc := "{\n  \"type\": \"service_account\",\n  \"project_id\": \"nw-prod\",\n  \"client_email\": \"deploy@nw-prod.iam.gserviceaccount.com\",\n" +
		"  \"client_secret\": \"" + sec + "\"\n}\n"
	add("base64 wrapped at 76", "$ base64 sa.json\n"+wrap(base64.StdEncoding.EncodeToString([]byte(doc)), 76)+"\n$ echo ok", sec)
	env := "NODE_ENV=production\nDB_PASSWORD=" + p + "\nLOG_LEVEL=info\nREGION=eu-west-1\nFEATURE_FLAGS=a,b,c,d,e,f\n"
	add("base64 wrapped .env", wrap(base64.StdEncoding.EncodeToString([]byte(env)), 76), p)
	c1 := randStr(r, 32, "abcdefghijklmnopqrstuvwxyz0123456789")
	add("set-cookie", "< HTTP/2 200\n< set-cookie: sessionid="+c1+"; expires=Wed, 11 Feb 2026 10:14:02 GMT; HttpOnly; Path=/", c1)
	c2, c3 := randStr(r, 40, alnum), randStr(r, 32, alnum)
	add("Cookie header", "> GET /api/me HTTP/2\n> Cookie: csrftoken="+c3+"; sessionid="+c2+"\n>", c2, c3)
	c4 := randStr(r, 32, alnum)
	add("curl -b", "curl -b 'sessionid="+c4+"' https://nw.io/api/me", c4)
	p = pw()
	add("attribute decoded", `<teammate-message teammate_id="reviewer" summary="`+html.EscapeString(`found DB_PASSWORD="`+p+`" in .env`)+`">done</teammate-message>`, p)
	p = pw()
	add("nested: assignment in a string", `API_KEY = "DB_PASSWORD=`+p+`"`, p)
	k = randStr(r, 40, alnum+"/+")
	add("nested: yaml then assignment", "api_key: aws_secret_access_key = "+k, k)
	p = pw()
	add("nested: query then assignment", "https://api.nw.io/v1/ping?token=DB_PASSWORD="+p, p)
	p = pw()
	add("continued command", "docker login \\\n  -u ci-bot \\\n  -p "+p+" \\\n  registry.nw.io", p)
	stripe = "sk_live_" + randStr(r, 24, alnum)
	add("continued curl -u key:", "curl -X POST https://api.stripe.com/v1/charges \\\n  -u "+stripe+": \\\n  -d amount=2000", stripe)
	u = randUUID(r)
	add("Heroku key", "export HEROKU_API_KEY="+u, u)
	p = pw()
	add("escaped JSON in a string", `{\"db\": {\"password\": \"`+p+`\"}}`, p)
	return cs
}

func randUUID(r *rand.Rand) string {
	h := randStr(r, 32, "0123456789abcdef")
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// TestShapes: the shapes a sweep found published (passwords given to
// commands, a key as curl's user, .netrc, keys cut short or encoded,
// wrapped base64, cookies, attributes decoded on the page, assignments
// inside assignments), with new values each run, are redacted from a
// line's every string, decoded as a page decodes them.
func TestShapes(t *testing.T) {
	r := newRedactor(t)
	for _, c := range shapeCases(shapeRand(t)) {
		for _, field := range []string{"tool_result", "prompt"} {
			var in []byte
			if field == "prompt" {
				in, _ = json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": c.text}})
			} else {
				in = line(t, c.text)
			}
			out := r.Line("f.jsonl", in)
			var v any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("%s: not JSON after redaction: %v", c.name, err)
			}
			shown := allDecodings(string(out))
			for _, s := range c.secret {
				if strings.Contains(shown, s) {
					t.Errorf("%s (%s): %q is still there:\n%s", c.name, field, s, out)
				}
			}
		}
	}
}

// allDecodings is s and what a page or a reader makes of it: JSON strings
// decoded (twice), HTML references, percent-encoding, base64 runs joined
// over lines.
func allDecodings(s string) string {
	var parts []string
	parts = append(parts, s)
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		var walk func(any)
		walk = func(x any) {
			switch y := x.(type) {
			case string:
				parts = append(parts, y)
				if d, ok := decodeEscapes(y); ok {
					parts = append(parts, d)
				}
			case []any:
				for _, e := range y {
					walk(e)
				}
			case map[string]any:
				for _, e := range y {
					walk(e)
				}
			}
		}
		walk(v)
	}
	n := len(parts)
	for _, p := range parts[:n] {
		parts = append(parts, html.UnescapeString(p))
		if u, err := url.QueryUnescape(p); err == nil {
			parts = append(parts, u)
		}
		joined := strings.ReplaceAll(p, "\n", "")
		for _, run := range base64Runs(joined) {
			for k := range 4 {
				if run[0]+k < run[1] {
					if b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(joined[run[0]+k:run[1]], "=")); err == nil {
						parts = append(parts, string(b))
					}
				}
			}
		}
	}
	return strings.Join(parts, "\n")
}

// TestShapesKeep: text that names or points to a secret, or measures
// something called token, stays as it is.
func TestShapesKeep(t *testing.T) {
	r := newRedactor(t)
	for _, s := range []string{
		"secretName: tls-cert",
		"      secretName: api-tls\n      secretKeyRef:\n        name: db-credentials",
		"BenchmarkCalculateTotalTokenUsage: 404µs\nCalculateTotalTokenUsage: 404µs",
		"token_usage: 12.5ms/op",
		"tokenPath: /var/run/secrets/token",
		"password_file: /run/secrets/db",
		"mysql -u root -p -e 'SHOW DATABASES'",
		"docker login -u ci-bot --password-stdin ghcr.io",
		"curl -b cookies.txt https://nw.io/api/me",
		"redis-cli -a $REDIS_PASSWORD ping",
		"sshpass -p \"$SSH_PASS\" ssh host",
		"htpasswd -b .htpasswd admin ${ADMIN_PASSWORD}",
		"openssl enc -d -in a.enc -pass env:ENC_PASS",
		"Cookie: theme=dark; lang=en",
		"password: test1234",
		`password = "changeme"`,
		"zip -r out.zip folder",
		"see the .netrc: machine, login and password lines",
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
	} {
		if out := r.String("f", s); out != s {
			t.Errorf("changed:\n%s\n->\n%s", s, out)
		}
	}
}

// TestImageMetadataEscaped: an image whose media type or type is written
// with JSON escapes ("image\/png", "\u0062ase64") still loses its metadata.
func TestImageMetadataEscaped(t *testing.T) {
	r := newRedactor(t)
	sec := randStr(shapeRand(t), 32, alnum)
	png := base64.StdEncoding.EncodeToString(leakgen.PNG([3]string{"Comment " + sec, "x", "y"}))
	for _, src := range []string{
		`{"type":"base64","media_type":"image\/png","data":"` + png + `"}`,
		`{"type":"\u0062ase64","media_type":"image/png","data":"` + png + `"}`,
		`{"type":"base64","media_typ\u0065":"image\u002fpng","dat\u0061":"` + png + `"}`,
	} {
		in := `{"type":"user","message":{"role":"user","content":[{"type":"image","source":` + src + `}]}}`
		out := r.Line("f.jsonl", []byte(in))
		var v struct {
			Message struct {
				Content []struct {
					Source struct{ Data string } `json:"source"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		raw, _ := base64.StdEncoding.DecodeString(v.Message.Content[0].Source.Data)
		if strings.Contains(string(raw), sec) {
			t.Errorf("%s: the image keeps its metadata", src[:60])
		}
	}
}

// TestAllow: a finding the allow list names, by its FindingID or as it
// is, stays; the others go; OnFind is told what was replaced.
func TestAllow(t *testing.T) {
	rng := shapeRand(t)
	// Letters and digits: a URL's password ends at its first "@" or "#".
	keep, keep2, gone := randStr(rng, 16, alnum), randStr(rng, 16, alnum), randStr(rng, 16, alnum)
	var told []string
	r, err := New(Options{Secrets: true, Allow: []string{FindingID(keep), keep2},
		OnFind: func(rule, secret string) { told = append(told, rule+" "+secret) }})
	if err != nil {
		t.Fatal(err)
	}
	in := "DB_PASSWORD=" + keep + "\nREDIS_PASSWORD=" + keep2 + "\nSMTP_PASSWORD=" + gone + "\npostgres://app:" + keep + "@db/x"
	out := r.String("f", in)
	if !strings.Contains(out, keep) || !strings.Contains(out, keep2) || strings.Contains(out, gone) {
		t.Errorf("allow list not applied:\n%s", out)
	}
	if len(told) != 1 || told[0] != "password-assignment "+gone {
		t.Errorf("OnFind told %q", told)
	}
	r2, _ := New(Options{Secrets: true})
	if r.Fingerprint() == r2.Fingerprint() {
		t.Error("the allow list does not change the Fingerprint: caches would serve pages redacted without it")
	}
}

// TestShapesInLists: a command written as a list of arguments (Python's
// subprocess, a JSON array in a string) hides its password no better.
func TestShapesInLists(t *testing.T) {
	r := newRedactor(t)
	rng := shapeRand(t)
	for _, f := range []func(p string) string{
		func(p string) string { return `subprocess.run(["mysql", "-u", "root", "-p` + p + `", "orders"])` },
		func(p string) string {
			return `subprocess.run(["sshpass", "-p", "` + p + `", "ssh", "deploy@10.2.14.7"])`
		},
		func(p string) string { return `cmd = ['docker', 'login', '-u', 'ci', '-p', '` + p + `', 'ghcr.io']` },
		func(p string) string { return `exec.Command("redis-cli", "-h", "cache", "-a", "` + p + `", "ping")` },
		func(p string) string { return `["sqlcmd", "-S", "db", "-U", "sa", "-P", "` + p + `"]` },
		func(p string) string { return `["ldapsearch", "-x", "-w", "` + p + `", "-b", "dc=x"]` },
	} {
		p := randPassword(rng)
		in := f(p)
		if out := r.String("f", in); strings.Contains(out, p) {
			t.Errorf("still there:\n%s", out)
		}
	}
}
