package leakgen

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// shapeKinds are secrets written where no name says what they are:
// passwords given to commands as arguments, an API key given to curl as
// its user, a .netrc, private keys cut short or held in a JSON string or
// a URL, base64 wrapped over lines, cookies, and assignments inside
// assignments.
func shapeKinds() []kindDef {
	return slices.Concat(commandKinds(), keyFileKinds(), hiddenKinds())
}

// commandKinds are passwords and keys given to commands as arguments.
func commandKinds() []kindDef {
	cmd := func(kind, name string, line func(g *gen, pw string) string) kindDef {
		return kindDef{kind, func(g *gen) secret {
			v := g.password()
			l := line(g, string(v.b))
			return keyed(kind, v, name, l, "$ "+l)
		}}
	}
	quoted := func(g *gen, pw string) string {
		return g.pick(pw, "'"+pw+"'", `"`+pw+`"`)
	}
	return []kindDef{
		cmd("cli-mysql", "DB_CMD", func(g *gen, pw string) string {
			return g.pick("mysql -h db-prod.internal -u orders_app -p"+pw+" orders",
				"mysqldump -uroot -p"+pw+" --single-transaction shop > shop.sql",
				"mariadb -h 10.2.14.7 -u app -p'"+pw+"' -e 'SHOW TABLES' billing")
		}),
		cmd("cli-sshpass", "SSH_CMD", func(g *gen, pw string) string {
			return "sshpass -p " + quoted(g, pw) + " ssh -o StrictHostKeyChecking=no deploy@10.2.14.7 'systemctl restart api'"
		}),
		cmd("cli-docker-login", "LOGIN_CMD", func(g *gen, pw string) string {
			return g.pick("docker login -u ci-bot -p "+pw+" registry.northwind-labs.io",
				"podman login --username ci-bot --password "+quoted(g, pw)+" ghcr.io")
		}),
		cmd("cli-redis", "REDIS_CMD", func(g *gen, pw string) string {
			return "redis-cli -h cache.internal -p 6379 -a " + quoted(g, pw) + " --no-auth-warning ping"
		}),
		cmd("cli-htpasswd", "HTPASSWD_CMD", func(g *gen, pw string) string {
			return g.pick("htpasswd -b /etc/nginx/.htpasswd admin "+pw, "htpasswd -nbB ops "+quoted(g, pw))
		}),
		cmd("cli-zip", "ZIP_CMD", func(g *gen, pw string) string {
			return "zip -r -P " + quoted(g, pw) + " backup-2026-02-11.zip dump.sql uploads/"
		}),
		cmd("cli-openssl", "ENC_CMD", func(g *gen, pw string) string {
			return g.pick("openssl enc -aes-256-cbc -salt -pbkdf2 -in secrets.tar -out secrets.enc -pass pass:"+pw,
				"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:"+pw)
		}),
		cmd("cli-smbclient", "SMB_CMD", func(g *gen, pw string) string {
			return "smbclient //fs01.corp.internal/finance -U svc_backup%" + pw + " -c 'ls'"
		}),
		cmd("cli-ldapsearch", "LDAP_CMD", func(g *gen, pw string) string {
			return `ldapsearch -x -H ldap://dc01.corp.internal -D "cn=admin,dc=northwind,dc=io" -w ` + quoted(g, pw) + ` -b "dc=northwind,dc=io" "(uid=kim)"`
		}),
		cmd("cli-sqlcmd", "SQL_CMD", func(g *gen, pw string) string {
			return `sqlcmd -S sql-prod.internal,1433 -U sa -P ` + quoted(g, pw) + ` -d orders -Q "SELECT COUNT(*) FROM dbo.Orders"`
		}),
		{"cli-aws-configure", func(g *gen) secret {
			v := new(val).rnd(g.sep(40, alnumSet, "/+"))
			l := "aws configure set aws_secret_access_key " + string(v.b) + " --profile prod"
			return keyed("cli-aws-configure", v, "AWS_CMD", l, "$ "+l)
		}},
		{"curl-user-key", func(g *gen) secret {
			v := new(val).lit("sk_live_").rnd(g.str(24+g.r.IntN(2)*75, alnumSet))
			l := "curl https://api.stripe.com/v1/charges -u " + string(v.b) + ": -d amount=2000 -d currency=eur"
			return keyed("curl-user-key", v, "STRIPE_CMD", l, "$ "+l)
		}},
	}
}

// keyFileKinds are a .netrc's passwords and private keys cut short, or
// held in a JSON string or a URL.
func keyFileKinds() []kindDef {
	return []kindDef{
		{"netrc", func(g *gen) secret {
			u := g.uuid()
			v := new(val)
			for i := 0; i < len(u); i++ {
				if u[i] == '-' || i == 14 {
					v.lit(u[i : i+1])
				} else {
					v.rnd(u[i : i+1])
				}
			}
			n := "machine api.heroku.com\n  login kim@northwind-labs.io\n  password " + u + "\nmachine git.heroku.com\n  login kim@northwind-labs.io\n  password " + u
			return keyed("netrc", v, "NETRC", n, "$ cat ~/.netrc\n"+n)
		}},
		{"netrc-inline", func(g *gen) secret {
			v := g.password()
			n := "machine git.northwind-labs.io login ci-bot password " + string(v.b)
			return keyed("netrc-inline", v, "NETRC", n, n)
		}},
		{"private-key-cut", func(g *gen) secret {
			label := g.pick("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY")
			v := new(val).lit("-----BEGIN " + label + "-----\n")
			for i := range 4 {
				if i > 0 {
					v.lit("\n")
				}
				v.rnd(g.b64Line(64))
			}
			s := string(v.b)
			return keyed("private-key-cut", v, "SSH_KEY_HEAD", s, "$ head -n 5 ~/.ssh/id_rsa\n"+s)
		}},
		{"pem-json", func(g *gen) secret {
			v := new(val).lit(`-----BEGIN PRIVATE KEY-----\n`)
			for range 3 {
				v.rnd(g.b64Line(64)).lit(`\n`)
			}
			v.lit(`-----END PRIVATE KEY-----\n`)
			j := `{"type": "service_account", "project_id": "nw-prod", "private_key": "` + string(v.b) +
				`", "client_email": "deploy@nw-prod.iam.gserviceaccount.com"}`
			return keyed("pem-json", v, "GOOGLE_CREDENTIALS", j, j)
		}},
		{"pem-url", func(g *gen) secret {
			v := new(val).lit("-----BEGIN EC PRIVATE KEY-----\n")
			for range 3 {
				v.rnd(g.b64Line(64)).lit("\n")
			}
			v.lit("-----END EC PRIVATE KEY-----")
			u := "https://vault.northwind-labs.io/v1/transit/import?name=signing&key=" + url.QueryEscape(string(v.b))
			return keyed("pem-url", v, "IMPORT_URL", u, u)
		}},
	}
}

// hiddenKinds are secrets inside other text: base64 wrapped over lines,
// cookies, and assignments inside assignments.
func hiddenKinds() []kindDef {
	return []kindDef{
		{"base64-wrapped", func(g *gen) secret {
			v := new(val).rnd(g.sep(40, alnumSet, "-_"))
			doc := "{\n  \"type\": \"service_account\",\n  \"project_id\": \"nw-prod-" + g.str(6, lowerSet) + "\",\n" +
				"  \"client_email\": \"deploy@nw-prod.iam.gserviceaccount.com\",\n  \"client_id\": \"1098" + g.str(17, digitSet) + "\",\n" +
				"  \"auth_uri\": \"https://accounts.google.com/o/oauth2/auth\",\n  \"client_secret\": \"" + string(v.b) + "\"\n}\n"
			enc := base64.StdEncoding.EncodeToString([]byte(doc))
			var b strings.Builder
			for len(enc) > 76 {
				b.WriteString(enc[:76] + "\n")
				enc = enc[76:]
			}
			b.WriteString(enc)
			w := b.String()
			return keyed("base64-wrapped", v, "SA_JSON_B64", w, "$ base64 sa.json\n"+w)
		}},
		{"cookie-set", func(g *gen) secret {
			v := new(val).rnd(g.str(32, lowerSet+digitSet))
			l := "< set-cookie: sessionid=" + string(v.b) + "; expires=Wed, 11 Feb 2026 10:14:02 GMT; HttpOnly; Max-Age=1209600; Path=/; SameSite=Lax; Secure"
			return keyed("cookie-set", v, "SET_COOKIE", l, "< HTTP/2 200\n"+l)
		}},
		{"cookie-header", func(g *gen) secret {
			v := new(val).rnd(g.str(40, alnumSet))
			csrf := g.str(32, alnumSet)
			l := "> Cookie: csrftoken=" + csrf + "; sessionid=" + string(v.b)
			s := keyed("cookie-header", v, "COOKIE", l, "> GET /api/me HTTP/2\n"+l)
			s.extra = []string{csrf}
			return s
		}},
		{"nested-assign", func(g *gen) secret {
			v := g.password()
			pw := string(v.b)
			inner := g.pick("DB_PASSWORD="+pw, "aws_secret_access_key = "+pw, "REDIS_PASSWORD="+pw)
			name := g.pick("API_KEY", "ACCESS_TOKEN", "APP_SECRET")
			line := g.pick("api_key: "+inner, "https://api.northwind-labs.io/v1/ping?token="+inner, name+` = "`+inner+`"`)
			return keyed("nested-assign", v, name, inner, line)
		}},
	}
}

// b64Line is n random base64 characters (a line of a PEM body).
func (g *gen) b64Line(n int) string {
	return g.str(n, alnumSet+"+/")
}
