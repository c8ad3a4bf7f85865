package leakgen

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
)

// Character sets of the random parts.
const (
	upperSet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerSet = "abcdefghijklmnopqrstuvwxyz"
	digitSet = "0123456789"
	alnumSet = upperSet + lowerSet + digitSet
	hexSet   = "0123456789abcdef"
	awsSet   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

// secret is one generated secret and the ways it is written.
type secret struct {
	kind  string
	value string // what must never leak
	mask  []bool // value's random bytes
	// extra are more strings that must never leak (the password inside a
	// Basic token), random throughout.
	extra []string
	// name is the variable, key or header that holds it in key/value
	// contexts; assign the value written there (the value itself, or
	// "Bearer …", or a URL holding it); line the secret written on a line
	// of its own ("Authorization: Bearer …", "password=…").
	name, assign, line string
	// evident is set when the value alone says what it is (a prefixed
	// token): only those are planted in file and folder names.
	evident bool
}

// nameSafe tells whether the value can be a file or folder name as is.
var nameSafe = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// inName tells whether s may be planted in a file or folder name (one
// short enough for any file system).
func (s secret) inName() bool {
	return s.evident && len(s.value) <= 120 && nameSafe.MatchString(s.value)
}

// multiline tells whether the secret spans lines (a PEM key).
func (s secret) multiline() bool { return strings.Contains(s.assign, "\n") }

// val builds a value from literal and random parts, remembering which bytes
// are random.
type val struct {
	b    []byte
	mask []bool
}

func (v *val) lit(s string) *val {
	v.b = append(v.b, s...)
	for range len(s) {
		v.mask = append(v.mask, false)
	}
	return v
}

func (v *val) rnd(s string) *val {
	v.b = append(v.b, s...)
	for range len(s) {
		v.mask = append(v.mask, true)
	}
	return v
}

// kindDef makes secrets of one kind.
type kindDef struct {
	name string
	make func(g *gen) secret
}

// token is a secret whose value is written the same everywhere.
func token(kind string, v *val, name string) secret {
	s := string(v.b)
	return secret{kind: kind, value: s, mask: v.mask, name: name, assign: s, line: s, evident: true}
}

// keyed is a secret written after a keyword (name=value, a header, a URL).
func keyed(kind string, v *val, name, assign, line string) secret {
	return secret{kind: kind, value: string(v.b), mask: v.mask, name: name, assign: assign, line: line}
}

// allKinds are the kinds of secret planted, in a fixed order.
func allKinds() []kindDef {
	var all []kindDef
	for _, part := range [][]kindDef{apiTokenKinds(), encodedKinds(), hostedTokenKinds(), credentialKinds(), shapeKinds()} {
		all = append(all, part...)
	}
	return all
}

// apiTokenKinds are API keys and tokens of AI, payment, mail and cloud services, each
// with a prefix of its own.
func apiTokenKinds() []kindDef {
	return []kindDef{
		{"anthropic", func(g *gen) secret {
			return token("anthropic", new(val).lit("sk-ant-api03-").rnd(g.sep(93, alnumSet, "-_")).lit("AA"),
				g.pick("ANTHROPIC_API_KEY", "CLAUDE_API_KEY"))
		}},
		{"openai", func(g *gen) secret {
			return token("openai", new(val).lit("sk-proj-").rnd(g.sep(74, alnumSet, "-_")).lit("T3BlbkFJ").rnd(g.sep(74, alnumSet, "-_")),
				"OPENAI_API_KEY")
		}},
		{"stripe-secret", func(g *gen) secret {
			n := []int{24, 34, 99}[g.r.IntN(3)]
			return token("stripe-secret", new(val).lit("sk_live_").rnd(g.str(n, alnumSet)), g.pick("STRIPE_SECRET_KEY", "STRIPE_API_KEY"))
		}},
		{"stripe-restricted", func(g *gen) secret {
			return token("stripe-restricted", new(val).lit("rk_live_").rnd(g.str(99, alnumSet)), "STRIPE_RESTRICTED_KEY")
		}},
		{"npm", func(g *gen) secret {
			return token("npm", new(val).lit("npm_").rnd(g.str(36, alnumSet)), "NPM_TOKEN")
		}},
		{"sendgrid", func(g *gen) secret {
			return token("sendgrid", new(val).lit("SG.").rnd(g.sep(22, alnumSet, "-_")).lit(".").rnd(g.sep(43, alnumSet, "-_")),
				"SENDGRID_API_KEY")
		}},
		{"google-api", func(g *gen) secret {
			return token("google-api", new(val).lit("AIza").rnd(g.sep(35, alnumSet, "-_")), g.pick("GOOGLE_API_KEY", "FIREBASE_API_KEY", "MAPS_API_KEY"))
		}},
		{"aws-access-key-id", func(g *gen) secret {
			return token("aws-access-key-id", new(val).lit("AKIA").rnd(g.str(16, awsSet)), "AWS_ACCESS_KEY_ID")
		}},
	}
}

// encodedKinds are secrets without a prefix of their own: an AWS secret key, a
// JWT, HTTP authorization headers and an Azure storage key.
func encodedKinds() []kindDef {
	return []kindDef{
		{"aws-secret-key", func(g *gen) secret {
			v := new(val).rnd(g.sep(40, alnumSet, "/+"))
			s := string(v.b)
			return keyed("aws-secret-key", v, "aws_secret_access_key", s, "aws_secret_access_key="+s)
		}},
		{"jwt", func(g *gen) secret {
			enc := base64.RawURLEncoding
			hdr, _ := json.Marshal(map[string]string{"alg": "HS256", "typ": "JWT", "kid": g.str(10, alnumSet)})
			pay, _ := json.Marshal(map[string]any{"sub": "usr_" + g.str(14, alnumSet), "name": "Kim Lindqvist",
				"iat": 1767225600 + g.r.IntN(1e7), "exp": 1799000000 + g.r.IntN(1e7), "jti": g.str(18, alnumSet)})
			sig := make([]byte, 32)
			for i := range sig {
				sig[i] = byte(g.r.IntN(256))
			}
			v := new(val).rnd(enc.EncodeToString(hdr)).lit(".").rnd(enc.EncodeToString(pay)).lit(".").rnd(enc.EncodeToString(sig))
			return token("jwt", v, g.pick("SESSION_JWT", "ID_TOKEN"))
		}},
		{"bearer", func(g *gen) secret {
			v := new(val).rnd(g.sep(48, alnumSet, "-._"))
			s := string(v.b)
			return keyed("bearer", v, "Authorization", "Bearer "+s, "Authorization: Bearer "+s)
		}},
		{"basic-auth", func(g *gen) secret {
			user := "svc-" + g.str(6, lowerSet)
			pw := g.str(22, alnumSet)
			b := base64.StdEncoding.EncodeToString([]byte(user + ":" + pw))
			s := keyed("basic-auth", new(val).rnd(b), "Authorization", "Basic "+b, "Authorization: Basic "+b)
			s.extra = []string{pw}
			return s
		}},
		{"azure-storage", func(g *gen) secret {
			raw := make([]byte, 64)
			for i := range raw {
				raw[i] = byte(g.r.IntN(256))
			}
			key := base64.StdEncoding.EncodeToString(raw)
			conn := "DefaultEndpointsProtocol=https;AccountName=st" + g.str(10, lowerSet+digitSet) + ";AccountKey=" + key +
				";EndpointSuffix=core.windows.net"
			return keyed("azure-storage", new(val).rnd(key), "AZURE_STORAGE_CONNECTION_STRING", conn, conn)
		}},
	}
}

// hostedTokenKinds are tokens of code hosts, chat, registries and hosted platforms,
// and private keys.
func hostedTokenKinds() []kindDef {
	return []kindDef{
		{"github-pat", func(g *gen) secret {
			return token("github-pat", new(val).lit("ghp_").rnd(g.str(36, alnumSet)), g.pick("GITHUB_TOKEN", "GH_TOKEN"))
		}},
		{"github-fine-grained", func(g *gen) secret {
			return token("github-fine-grained", new(val).lit("github_pat_").rnd(g.str(22, alnumSet)).lit("_").rnd(g.str(59, alnumSet)),
				"GITHUB_PAT")
		}},
		{"gitlab", func(g *gen) secret {
			return token("gitlab", new(val).lit("glpat-").rnd(g.str(20, alnumSet)), "GITLAB_TOKEN")
		}},
		{"slack-bot", func(g *gen) secret {
			v := new(val).lit("xoxb-").rnd(g.str(13, digitSet)).lit("-").rnd(g.str(13, digitSet)).lit("-").rnd(g.str(24, alnumSet))
			return token("slack-bot", v, "SLACK_BOT_TOKEN")
		}},
		{"slack-webhook", func(g *gen) secret {
			v := new(val).lit("https://hooks.slack.com/services/T").rnd(g.str(10, upperSet+digitSet)).lit("/B").
				rnd(g.str(10, upperSet+digitSet)).lit("/").rnd(g.str(24, alnumSet))
			return token("slack-webhook", v, "SLACK_WEBHOOK_URL")
		}},
		{"private-key", func(g *gen) secret {
			label := g.pick("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY")
			raw := make([]byte, 360+g.r.IntN(200))
			for i := range raw {
				raw[i] = byte(g.r.IntN(256))
			}
			body := base64.StdEncoding.EncodeToString(raw)
			v := new(val).lit("-----BEGIN " + label + "-----\n")
			for len(body) > 64 {
				v.rnd(body[:64]).lit("\n")
				body = body[64:]
			}
			v.rnd(body).lit("\n-----END " + label + "-----")
			return token("private-key", v, g.pick("PRIVATE_KEY", "DEPLOY_KEY", "SSH_PRIVATE_KEY"))
		}},
		{"twilio", func(g *gen) secret {
			return token("twilio", new(val).lit("SK").rnd(g.str(32, hexSet)), "TWILIO_API_KEY")
		}},
		{"mailgun", func(g *gen) secret {
			return token("mailgun", new(val).lit("key-").rnd(g.str(32, hexSet)), "MAILGUN_API_KEY")
		}},
		{"huggingface", func(g *gen) secret {
			return token("huggingface", new(val).lit("hf_").rnd(g.str(34, upperSet+lowerSet)), g.pick("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"))
		}},
		{"shopify", func(g *gen) secret {
			return token("shopify", new(val).lit("shpat_").rnd(g.str(32, hexSet)), "SHOPIFY_ACCESS_TOKEN")
		}},
		{"pypi", func(g *gen) secret {
			return token("pypi", new(val).lit("pypi-AgEIcHlwaS5vcmc").rnd(g.str(1, alnumSet)+g.sep(69, alnumSet, "-_")), "PYPI_TOKEN")
		}},
		{"digitalocean", func(g *gen) secret {
			return token("digitalocean", new(val).lit("dop_v1_").rnd(g.str(64, hexSet)), "DIGITALOCEAN_TOKEN")
		}},
		{"databricks", func(g *gen) secret {
			return token("databricks", new(val).lit("dapi").rnd(g.str(32, hexSet)), "DATABRICKS_TOKEN")
		}},
	}
}

// credentialKinds are passwords and secrets known by where they are written:
// database URLs, connection strings, assignments and environment
// variables.
func credentialKinds() []kindDef {
	return []kindDef{
		{"db-url", func(g *gen) secret {
			v := new(val).rnd(g.str(20, alnumSet))
			pw := string(v.b)
			u := g.pick("postgres://orders_app:"+pw+"@db-prod.internal:5432/orders",
				"postgresql://app:"+pw+"@10.2.14.7:5432/billing?sslmode=require",
				"mysql://root:"+pw+"@mysql.internal:3306/shop",
				"mongodb+srv://admin:"+pw+"@cluster0.k3x9p.mongodb.net/app",
				"redis://default:"+pw+"@cache.internal:6379/0")
			return keyed("db-url", v, "DATABASE_URL", u, u)
		}},
		{"db-url-query", func(g *gen) secret {
			v := new(val).rnd(g.str(20, alnumSet))
			pw := string(v.b)
			u := g.pick("postgresql://db-prod.internal:5432/orders?user=orders_app&password="+pw+"&sslmode=require",
				"mysql://mysql.internal:3306/shop?user=root&password="+pw,
				"jdbc:postgresql://db-prod.internal:5432/orders?user=app&password="+pw)
			return keyed("db-url-query", v, "DATABASE_URL", u, u)
		}},
		{"connection-string", func(g *gen) secret {
			v := new(val).rnd(g.str(20, alnumSet))
			pw := string(v.b)
			c := g.pick("Server=tcp:sql-prod.database.windows.net,1433;Initial Catalog=orders;User ID=orders_app;Password="+pw+";Encrypt=True;",
				"Host=db-prod.internal;Port=5432;Database=orders;Username=app;Password="+pw+";",
				"jdbc:sqlserver://sql-prod.internal:1433;databaseName=orders;user=app;password="+pw+";encrypt=true;")
			return keyed("connection-string", v, "ConnectionStrings__Default", c, c)
		}},
		{"json-password", func(g *gen) secret {
			v := g.password()
			s := string(v.b)
			q, _ := json.Marshal(s)
			return keyed("json-password", v, "password", s, `"password": `+string(q))
		}},
		{"password-assign", func(g *gen) secret {
			v := g.password()
			s := string(v.b)
			return keyed("password-assign", v, "password", s, "password="+s)
		}},
		{"env-password", func(g *gen) secret {
			v := g.password()
			name := g.pick("POSTGRES_PASSWORD", "REDIS_PASSWORD", "SMTP_PASSWORD", "MYSQL_ROOT_PASSWORD", "GRAFANA_ADMIN_PASSWORD",
				"KEYCLOAK_ADMIN_PASSWORD")
			s := string(v.b)
			return keyed("env-password", v, name, s, name+"="+s)
		}},
		{"env-secret", func(g *gen) secret {
			v := new(val).rnd(g.pick(g.str(40, alnumSet), g.str(64, hexSet), g.sep(43, alnumSet, "-_")))
			name := g.pick("JWT_SECRET", "SESSION_SECRET", "OAUTH_CLIENT_SECRET", "WEBHOOK_SIGNING_SECRET", "NEXTAUTH_SECRET", "APP_SECRET")
			s := string(v.b)
			return keyed("env-secret", v, name, s, name+"="+s)
		}},
		{"env-token", func(g *gen) secret {
			v := new(val).rnd(g.pick(g.str(40, alnumSet), g.sep(44, alnumSet, "-_")))
			name := g.pick("SENTRY_AUTH_TOKEN", "VAULT_TOKEN", "CI_DEPLOY_TOKEN", "CLOUDFLARE_API_TOKEN", "DATADOG_API_TOKEN", "TERRAFORM_TOKEN")
			s := string(v.b)
			return keyed("env-token", v, name, s, name+"="+s)
		}},
	}
}

// password is a password: 14 to 20 letters and digits, sometimes a symbol
// and a few more (a run of 12 or more always stays).
func (g *gen) password() *val {
	v := new(val).rnd(g.str(14+g.r.IntN(7), alnumSet))
	if g.r.IntN(2) == 0 {
		v.rnd(string("!*.~^"[g.r.IntN(5)])).rnd(g.str(4+g.r.IntN(5), alnumSet))
	}
	return v
}
