package redact

import (
	"strconv"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

// The pieces of the command-line rules below. The scanned text writes
// line ends as form feeds (writeLoosened), so a rule that stays on one
// line takes neither \f nor \n; a URL's query writes spaces as "+", which
// the separators take too.
const (
	// sp is the space between arguments.
	sp = `[ \t+]`
	// pre is what stands before a flag: a space, or in a list of
	// arguments (subprocess.run(["mysql", "-p…"])) a quote, a comma or a
	// bracket.
	pre = `[ \t+"'\x60,\[(]`
	// gap is what stands between a flag and its value: spaces, or a
	// list's "…", "…" (the scanned text writes a comma before a space as
	// a space).
	gap = `(?:[ \t+]+|["'\x60][ \t]*,?[ \t]*)`
	// rest is the rest of a command, up to its end (;, |, & or a line's
	// end, or a third line end after a "\" that continues it): the flags
	// between the command and the one that matters.
	rest = seg + cont + cont + cont
	seg  = `[^\f\n;|&]*?`
	cont = `(?:\\[ \t]*\f` + seg + `)?`
	// cliValue is a flag's value, quoted or not: the first group that
	// is not empty is the secret.
	cliValue = `(?:'([^'\f\n]+)'|"([^"\f\n]+)"|([^\s'"\x60;|&<>()]+))`
	// cliArg is an argument that is not a flag.
	cliArg = `(?:'[^'\f\n]*'|"[^"\f\n]*"|[^\s'"\x60;|&<>()-][^\s'"\x60;|&<>()]*)`
	// nl is one line end, as the scanned text or a JSON string writes it,
	// and the sign of a patch's line after it.
	nl = `(?:[ \t]*(?:\f|\r\f?|\\r\\n|\\n|\\r)[+ \t-]*)`
	// netrcToken is a .netrc's login, account or port, if there.
	netrcToken = `(?:(?:` + sp + `+|` + nl + `)(?:login|account|port)` + sp + `+[^\s+\\]+)?`
	// keyNl is nl in a key, whose END line starts with dashes.
	keyNl = `(?:[ \t]*(?:\f|\r\f?|\\r\\n|\\n|\\r)[+ \t]*)`
)

// shapeRules are ccsite's rules for secrets written where no name says
// what they are: passwords given to commands as arguments (mysql -p…,
// sshpass -p …, htpasswd -b file user …), an API key given to curl as a
// user with no password (-u sk_live_…:), a .netrc's passwords, a private
// key cut short (no END line), cookies in headers. Each value is judged
// by acceptCLI before it counts.
var shapeRules = []config.Rule{
	cliRule("cli-password", "mysql -p<password>",
		`\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin)\b`+
			rest+pre+`-p`+cliValue, "mysql", "mariadb"),
	cliRule("cli-password", "sshpass -p <password>",
		`\bsshpass\b`+rest+pre+`-p(?:`+gap+`)?`+cliValue, "sshpass"),
	cliRule("cli-password", "a registry login's password (docker login -p …)",
		`\b(?:docker|podman|buildah|skopeo|nerdctl|helm|oras|crane|regctl)\b`+rest+`\blogin\b`+rest+pre+
			`(?:-p|--password)(?:`+gap+`|=)`+cliValue, "docker", "podman", "buildah", "skopeo", "nerdctl", "helm", "oras", "crane", "regctl"),
	cliRule("cli-password", "redis-cli -a <password>",
		`\b(?:redis-cli|valkey-cli|keydb-cli)\b`+rest+pre+`(?:-a|--pass)(?:`+gap+`|=)`+cliValue, "redis-cli", "valkey-cli", "keydb-cli"),
	// htpasswd -b takes the password after the file and the user, or
	// after the user alone with -n: two rules, each checking the flags
	// (acceptShape).
	cliRule("cli-password#htpasswd-file", "htpasswd -b file user <password>",
		`\bhtpasswd(?:`+sp+`+-[a-zA-Z]+)+`+sp+`+`+cliArg+sp+`+`+cliArg+sp+`+`+cliValue, "htpasswd"),
	cliRule("cli-password#htpasswd-n", "htpasswd -nb user <password>",
		`\bhtpasswd(?:`+sp+`+-[a-zA-Z]+)+`+sp+`+`+cliArg+sp+`+`+cliValue, "htpasswd"),
	cliRule("cli-password", "zip -P <password>",
		`\b(?:zip|unzip|zipcloak)\b`+rest+pre+`(?:-P|--password)(?:`+gap+`|=)`+cliValue, "zip ", "zip\t", "zip+", "zipcloak"),
	cliRule("cli-password", "7z -p<password>",
		`\b(?:7z|7za|7zr|rar|unrar)\b`+rest+pre+`-p`+cliValue, "7z ", "7za ", "7zr ", "rar "),
	cliRule("cli-password", "openssl -pass pass:<password>",
		`(?:^|`+sp+`)-(?:pass|passin|passout|srcpass|destpass|password)`+sp+`+['"]?pass:`+cliValue, " pass:", "'pass:", "\"pass:", "+pass:", "\tpass:"),
	cliRule("cli-password", "openssl enc -k <password>",
		`\bopenssl\b`+rest+pre+`-k`+gap+cliValue, "openssl"),
	cliRule("cli-password", "smbclient -U user%<password>",
		`\b(?:smbclient|rpcclient|smbmap|smbcacls|smbget|smbtree|mount\.cifs)\b`+rest+
			`(?:`+pre+`-U(?:`+gap+`)?|`+pre+`--user(?:name)?(?:`+gap+`|=))['"]?[^%\s'"\f\n]+%([^\s'"\x60;|&<>]+)`,
		"smbclient", "rpcclient", "smbmap", "smbcacls", "smbget", "smbtree", "cifs"),
	cliRule("cli-password", "ldapsearch -w <password>",
		`\bldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop|url)\b`+rest+pre+`-[wsa](?:`+gap+`)?`+cliValue, "ldap"),
	cliRule("cli-password", "sqlcmd -P <password>",
		`\b(?:sqlcmd|bcp|osql|isql|mssql-cli|mssql-scripter|sqlpackage)\b`+rest+pre+`-P(?:`+gap+`)?`+cliValue,
		"sqlcmd", "bcp ", "osql", "isql", "mssql"),
	cliRule("cli-password", "mongosh -p <password>",
		`\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b`+rest+pre+`(?:-p|--password)(?:`+gap+`|=)`+cliValue,
		"mongo"),
	cliRule("cli-password", "keytool -storepass <password>",
		`(?:^|`+sp+`)-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass)`+sp+`+`+cliValue,
		"storepass", "keypass", "keytool"),
	cliRule("cli-password", "mosquitto_pub -P <password>",
		`\bmosquitto_(?:pub|sub|rr)\b`+rest+pre+`-P`+gap+cliValue, "mosquitto_"),
	cliRule("cli-password", "mosquitto_passwd -b file user <password>",
		`\bmosquitto_passwd\b`+rest+sp+`-b`+sp+`+`+cliArg+sp+`+`+cliArg+sp+`+`+cliValue, "mosquitto_"),
	cliRule("cli-password", "aws configure set aws_secret_access_key <secret>",
		`\bconfigure`+sp+`set`+sp+`+(?:[\w.-]*\.)?(?:aws_secret_access_key|aws_session_token|aws_security_token)`+sp+`+`+cliValue,
		"configure set", "configure+set"),
	cliRule("cli-password", "a password given as --password <value> (with a space)",
		`(?:^|`+sp+`)--(?:[a-z]+-)*(?:password|passwd|passphrase|pass|token|api-?key|secret|client-secret|secret-key|access-key|auth-token)`+
			`[ \t]+`+cliValue, "-password ", "-passwd ", "-passphrase ", "-pass ", "-token ", "-apikey ", "-api-key ", "-secret ",
		"-secret-key ", "-access-key ", "-password\t", "-token\t", "-secret\t"),
	cliRule("cli-password", "lftp -u user,<password>",
		`\blftp\b`+rest+sp+`-u`+sp+`+['"]?[^,\s'"\f\n]+,([^\s'"\x60;|&<>]+)`, "lftp"),
	cliRule("cli-user-key", "an API key given to curl as the user, with no password (-u sk_live_…:)",
		`\bcurl\b`+rest+sp+`(?:-u|--user|-a|--auth)(?:`+sp+`*|=)['"]?([A-Za-z0-9_.-]+):(?:['"\x60\s]|$)`,
		"curl"),
	{
		RuleID:      "netrc-password",
		Description: "A .netrc's password (machine … login … password …)",
		// A token ends at a line end written as \n too (a .netrc
		// shown in a JSON string or a .env value).
		Regex:    glregexp.MustCompile(`\b(?:machine` + sp + `+[^\s+\\]+|default)` + netrcToken + netrcToken + netrcToken + `(?:` + sp + `+|` + nl + `)password` + sp + `+(?:'([^'\f\n]+)'|"([^"\f\n]+)"|([^\s'"\x60;|&<>()\\]+))`),
		Keywords: []string{"machine", "default login", "default password", "default account"},
	},
	{
		RuleID:      "private-key-cut",
		Description: "A private key, whole or cut short (no END line), as lines, in a JSON string or in a URL",
		Regex: glregexp.MustCompile(`(-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----` +
			`(?:` + keyNl + `(?:(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):[ \t][^\f\\]*|[A-Za-z0-9+/=]*))*)`),
		SecretGroup: 1,
		Keywords:    []string{"-----begin"},
	},
	{
		RuleID:      "cookie",
		Description: "Cookies in a Cookie or Set-Cookie header (curl -v, a browser's request)",
		// The first cookie of the header: the others on its line are
		// taken with it (moreCookies).
		Regex: glregexp.MustCompile(`(?i)\b(?:set-)?cookie2?["']?[ \t]*[:=][ \t]*["'\x60]?[\w.-]+=` +
			`([^;\s"'\x60\f]+)`),
		Keywords: []string{"cookie"},
	},
	cliRule("curl-cookie", "curl -b 'name=value'",
		`\bcurl\b`+rest+sp+`(?:-b|--cookie)(?:`+sp+`+|=)`+cliValue, "curl"),
}

// cliRule is a rule for a secret given to a command. Rules of one label
// (cli-password) are kept apart by a key after "#" (ruleLabel): each is
// run only where its own keywords are. An id given a key (htpasswd's two
// rules, told apart by acceptShape) keeps it; the others are numbered.
func cliRule(id, desc, expr string, keywords ...string) config.Rule {
	if !strings.Contains(id, "#") {
		cliRules++
		id += "#" + strconv.Itoa(cliRules)
	}
	return config.Rule{RuleID: id, Description: desc, Regex: glregexp.MustCompile(expr), Keywords: keywords}
}

var cliRules int

// ruleLabel is the name a rule's findings are shown and counted under:
// its id up to a "#".
func ruleLabel(id string) string {
	label, _, _ := strings.Cut(id, "#")
	return label
}

// acceptShape is the validator of shapeRules' findings.
func acceptShape(rule, secret, match string) bool {
	if strings.Contains(rule, "#htpasswd") {
		// -b, and -n exactly when the rule reads no file.
		flags := htpasswdFlags(match)
		noFile := strings.HasSuffix(rule, "#htpasswd-n")
		if !strings.Contains(flags, "b") || strings.Contains(flags, "n") != noFile {
			return false
		}
	}
	switch ruleLabel(rule) {
	case "cli-password", "netrc-password":
		return acceptCLI(secret)
	case "cli-user-key":
		// A user name of sixteen letters and digits with no password:
		// an API key (Stripe's, Mailgun's) unless it reads as a name.
		return len(secret) >= 16 && acceptCLI(secret) && (hasDigit(secret) || !identLike(secret))
	case "private-key-cut":
		body := secret[strings.Index(secret, "-----BEGIN"):]
		body = body[strings.Index(body[5:], "-----")+10:]
		n := 0
		for i := 0; i < len(body); i++ {
			if isAlnum(body[i]) || body[i] == '+' || body[i] == '/' {
				n++
			}
		}
		return n >= 16
	case "curl-cookie":
		return strings.Contains(secret, "=") && acceptCookies(secret)
	case "cookie":
		if !strings.Contains(secret, "=") {
			return cookieValue(secret)
		}
		return acceptCookies(secret)
	}
	return true
}

// htpasswdFlags are the letters of the flags after htpasswd in match.
func htpasswdFlags(match string) string {
	var b strings.Builder
	for _, f := range strings.FieldsFunc(match, func(r rune) bool { return r == ' ' || r == '\t' || r == '+' })[1:] {
		if !strings.HasPrefix(f, "-") {
			break
		}
		b.WriteString(f[1:])
	}
	return b.String()
}

// acceptCLI tells whether a value given on a command line (or in a
// .netrc) is a literal secret: not a variable, a template, a flag, a
// placeholder or a made-up value.
func acceptCLI(v string) bool {
	v = strings.Trim(v, `"'`)
	if len(v) < minSecret || rePlaceholder.MatchString(v) || fake(v) {
		return false
	}
	switch v[0] {
	case '$', '%', '{', '<', '[', '(', '-', '@', '*', '`':
		return false
	}
	if strings.Contains(v, "${") || strings.Contains(v, "$(") || strings.HasPrefix(v, "env:") || strings.HasPrefix(v, "file:") {
		return false
	}
	// A metavariable of a usage text (PASSWORD, <pass>) or a word.
	if reWordy.MatchString(v) && (strings.ToUpper(v) == v || strings.ToLower(v) == v) {
		return false
	}
	if strings.Contains(v, "/") && !strings.Contains(v, "+") && !randomParts(v) &&
		(strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") || reFilePath.MatchString(v) || !hasDigit(v)) {
		return false // a path
	}
	return true
}

// cookieAttrs are the attributes of a Set-Cookie header, not cookies.
var cookieAttrs = map[string]bool{"path": true, "domain": true, "expires": true, "max-age": true, "samesite": true,
	"priority": true, "version": true, "comment": true, "partitioned": true}

// acceptCookies tells whether a cookie header's value holds a cookie worth
// hiding: a name=value pair whose value is long and not a word, a
// variable or a placeholder.
func acceptCookies(v string) bool {
	for _, pair := range strings.Split(v, ";") {
		name, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		if cookieAttrs[strings.ToLower(name)] {
			continue
		}
		if cookieValue(val) {
			return true
		}
	}
	return false
}

// cookieValue tells whether a cookie's value is worth hiding: long, not a
// word, a variable or a placeholder.
func cookieValue(val string) bool {
	val = strings.Trim(val, `"' `)
	if len(val) < 8 || rePlaceholder.MatchString(val) || fake(val) || strings.ContainsAny(val[:1], "$%{<[(") ||
		strings.Contains(val, "${") {
		return false
	}
	return hasDigit(val) || !identLike(val)
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// moreCookies are the values of the cookies after the first on the line
// of a Cookie header whose first cookie is match (found in text): a
// browser sends them all on one line.
func moreCookies(text, match string) []string {
	at := strings.Index(text, match)
	if at < 0 || strings.HasPrefix(strings.ToLower(strings.TrimLeft(match, " \t\"'")), "set-") {
		return nil
	}
	rest := text[at+len(match):]
	if e := strings.IndexAny(rest, "\f\n\x00\"'`"); e >= 0 {
		rest = rest[:e]
	}
	var out []string
	for _, pair := range strings.Split(rest, ";") {
		name, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && name != "" && !strings.ContainsAny(name, " \t") && !cookieAttrs[strings.ToLower(name)] && cookieValue(val) {
			out = append(out, strings.TrimSpace(val))
		}
	}
	return out
}
