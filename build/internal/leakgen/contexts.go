package leakgen

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// Contexts: the text around a secret.
const (
	CtxPython    = "python"    // API_KEY = "…"
	CtxJS        = "js"        // { apiKey: '…' }
	CtxLineStart = "linestart" // alone at the start of a line, after other lines
	CtxEnv       = "env"       // NAME=value
	CtxYAML      = "yaml"      // key: value
	CtxJSON      = "json"      // {"key": "…"}
	CtxANSI      = "ansi"      // \x1b[32m…\x1b[0m
	CtxTSV       = "tsv"       // name\t…\tdate
	CtxBase64    = "base64"    // the line holding it, base64-encoded
	CtxProse     = "prose"     // in the middle of a sentence
	CtxURL       = "url"       // a query parameter, percent-encoded
	CtxName      = "name"      // a file or folder name, a path element, a branch
	CtxMember    = "member"    // the value of a JSON member of a tool's input
	CtxPNGText   = "png-tEXt"
	CtxPNGZText  = "png-zTXt"
	CtxPNGIText  = "png-iTXt"
	CtxJPEGCom   = "jpeg-COM"
	CtxJPEGExif  = "jpeg-EXIF"
	CtxJPEGXP    = "jpeg-EXIF-XPComment"
)

// textContexts suit a field holding any text; lineContexts a field holding
// one line (a title, a description).
var (
	textContexts = []string{CtxPython, CtxJS, CtxLineStart, CtxEnv, CtxYAML, CtxJSON, CtxANSI, CtxTSV, CtxBase64, CtxProse, CtxURL}
	lineContexts = []string{CtxPython, CtxJS, CtxEnv, CtxJSON, CtxANSI, CtxTSV, CtxBase64, CtxProse, CtxURL}
	pngContexts  = []string{CtxPNGText, CtxPNGZText, CtxPNGIText}
	jpegContexts = []string{CtxJPEGCom, CtxJPEGExif, CtxJPEGXP}
)

// fits tells whether a secret can be written in a context (in a field of
// one line when one is set).
func fits(ctx string, s secret, one bool) bool {
	switch ctx {
	case CtxName:
		return s.inName()
	case CtxURL, CtxMember:
		return !s.multiline()
	case CtxLineStart, CtxYAML:
		return !one
	}
	if one && s.multiline() {
		return false
	}
	return true
}

// pyName is the name as a Python or shell variable.
func pyName(name string) string {
	if name == "Authorization" {
		return "AUTH_HEADER"
	}
	return name
}

// camel is the name as a JavaScript property.
func camel(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	parts := strings.Split(strings.ToLower(strings.ReplaceAll(name, "__", "_")), "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// snake is the name as a YAML or JSON key.
func snake(name string) string {
	if name == "Authorization" {
		return name
	}
	return strings.ToLower(strings.ReplaceAll(name, "__", "_"))
}

// jsonString is s as a JSON string, without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// envValue is s as a .env value: quoted with \n escapes when it spans lines
// or holds blanks.
func envValue(s string) string {
	if strings.ContainsAny(s, "\n \t") {
		return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
	}
	return s
}

// text writes s in context ctx; one asks for a single line.
func (g *gen) text(ctx string, s secret, one bool) string {
	nl := s.multiline()
	switch ctx {
	case CtxPython:
		q := `"` + s.assign + `"`
		if nl {
			q = `"""` + s.assign + `"""`
		}
		stmt := pyName(s.name) + " = " + q
		if one {
			return stmt
		}
		return g.pick(
			"# settings/production.py\nimport os\n\nDEBUG = False\nALLOWED_HOSTS = [\"api.northwind-labs.io\"]\n"+stmt+"\nREQUEST_TIMEOUT = 30\n",
			"import requests\n\n"+stmt+"\n\n\ndef client():\n    s = requests.Session()\n    s.headers[\"User-Agent\"] = \"nw-sync/2.3\"\n    return s\n")
	case CtxJS:
		q := "'" + s.assign + "'"
		if nl {
			q = "`" + s.assign + "`"
		}
		if one {
			return "const config = { " + camel(s.name) + ": " + q + " };"
		}
		return g.pick(
			"export default {\n  region: 'eu-west-1',\n  "+camel(s.name)+": "+q+",\n  retries: 3,\n};\n",
			"const client = createClient({\n  baseURL: 'https://api.northwind-labs.io',\n  "+camel(s.name)+": "+q+",\n});\n")
	case CtxLineStart:
		return g.pick(
			"Fetching credentials from vault (secret/data/prod/"+snake(s.name)+")...\nkey_version: 7\n"+s.line+"\nlease_duration: 768h\n",
			"$ cat ~/.config/northwind/credentials\n# written by nwctl login on 2026-02-11\n"+s.line+"\n")
	case CtxEnv:
		kv := pyName(s.name) + "=" + envValue(s.assign)
		if one {
			return kv
		}
		return "# .env.production\nNODE_ENV=production\n" + kv + "\nLOG_LEVEL=info\n"
	case CtxYAML:
		v := s.assign
		if nl {
			v = "|\n    " + strings.ReplaceAll(s.assign, "\n", "\n    ")
		}
		return g.pick(
			"production:\n  adapter: postgresql\n  "+snake(s.name)+": "+v+"\n  pool: 5\n",
			"services:\n  api:\n    image: ghcr.io/northwind/api:2.3.1\n    environment:\n      "+pyName(s.name)+": "+strings.ReplaceAll(v, "\n    ", "\n        ")+"\n")
	case CtxJSON:
		if one {
			return `{"` + snake(s.name) + `": ` + jsonString(s.assign) + `, "region": "eu-west-1"}`
		}
		return "{\n  \"" + snake(s.name) + "\": " + jsonString(s.assign) + ",\n  \"region\": \"eu-west-1\",\n  \"timeout\": 30\n}\n"
	case CtxANSI:
		if one {
			return "\x1b[32m" + s.line + "\x1b[0m"
		}
		return "\x1b[36minfo\x1b[39m loaded 3 secrets from \x1b[1m.env.local\x1b[22m\n  \x1b[32m" + s.line +
			"\x1b[0m\n\x1b[36minfo\x1b[39m listening on :8080\n"
	case CtxTSV:
		v := strings.ReplaceAll(s.assign, "\n", `\n`)
		row := pyName(s.name) + "\t" + v + "\t2026-02-11T09:14:02Z"
		if one {
			return row
		}
		return "NAME\tVALUE\tUPDATED\nLOG_LEVEL\tinfo\t2026-01-03T17:40:11Z\n" + row + "\n"
	case CtxBase64:
		enc := base64.StdEncoding.EncodeToString
		if one {
			return snake(s.name) + ": " + enc([]byte(s.assign))
		}
		return g.pick(
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: payments-api\n  namespace: prod\ntype: Opaque\ndata:\n  "+
				strings.ToLower(strings.ReplaceAll(pyName(s.name), "_", "-"))+": "+enc([]byte(s.assign))+"\n",
			"$ base64 -w0 .env.production\n"+enc([]byte("NODE_ENV=production\n"+pyName(s.name)+"="+envValue(s.assign)+"\n"))+"\n")
	case CtxProse:
		if nl {
			return "Here is the deploy key the runner needs:\n\n" + s.line + "\n\nAdd it to the CI settings and delete this message."
		}
		return g.pick(
			"The staging deploy fails because "+pyName(s.name)+" is stale; the new value is "+s.line+" so please update CI.",
			"I rotated it this morning: "+s.line+" (the old one is revoked).")
	case CtxURL:
		return "https://status.northwind-labs.io/api/v2/export?format=csv&" + strings.ToLower(pyName(s.name)) + "=" + url.QueryEscape(s.assign)
	case CtxName, CtxMember:
		return s.value
	}
	panic("leakgen: unknown context " + ctx)
}
