package redact

import (
	"encoding/base64"
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// binary is what a string value holds when it is not text.
type binary int

const (
	binNone  binary = iota
	binImage        // a base64 image: its metadata is removed
	binOther        // another base64 document (a PDF): withheld
)

// binaryKind tells whether s is the data of a base64 image or document: a
// content block's source ({"type":"base64","media_type":…,"data":…}) or
// a Read result's file ({"type":"image/png","base64":…}).
func binaryKind(s jsonString, objs []jsonObject) binary {
	if s.obj < 0 || s.isKey {
		return binNone
	}
	o := objs[s.obj]
	switch {
	case s.key == "data" && o.typ == "base64":
		if isRaster(o.mediaType) {
			return binImage
		}
		return binOther
	case s.key == "base64" && strings.HasPrefix(o.typ, "image/"):
		if isRaster(o.typ) {
			return binImage
		}
		return binOther
	}
	return binNone
}

func isRaster(mediaType string) bool {
	switch mediaType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// idKeys are members whose values are identifiers: left alone when they
// look like one (a uuid, an API id, a hash, a time).
var idKeys = map[string]bool{
	"uuid": true, "parentUuid": true, "logicalParentUuid": true, "leafUuid": true, "sessionId": true,
	"requestId": true, "id": true, "tool_use_id": true, "toolUseID": true, "messageId": true, "promptId": true,
	"parentToolUseID": true, "sourceToolAssistantUUID": true, "timestamp": true,
}

// valueKeys are the members that hold the value of a secret another
// member names.
var valueKeys = map[string]bool{"value": true, "secret_value": true, "secretValue": true, "val": true, "plaintext_value": true}

// skipValue tells whether a string value is never a secret: a thinking
// signature, an identifier under its usual name, or a short word.
func skipValue(s jsonString, line []byte) bool {
	lit := line[s.start+1 : s.end-1]
	if len(lit) < minSecret {
		return true
	}
	switch {
	case s.key == "signature":
		return true
	case idKeys[s.key] && !s.escaped && len(lit) <= 64:
		v := view(lit)
		return isID(v) || isTime(v)
	}
	return false
}

// isTime tells whether s is an RFC 3339 time as Claude Code writes them.
func isTime(s string) bool {
	if len(s) < 20 || len(s) > 35 || s[4] != '-' || s[10] != 'T' {
		return false
	}
	return strings.Trim(s, "0123456789-:.TZ+") == ""
}

// scanKey tells whether a long member name is worth scanning: one with a
// digit or a symbol, as secrets have and names seldom do.
func scanKey(name []byte) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return true
		}
	}
	return false
}

// sensitiveKey tells whether a member's name says its value is a secret
// (a password, a token, a key): the rules then see "name: value". It is
// asked of every long value's member name, so an ASCII name is judged in
// one pass over a lowered copy on the stack; sensitiveKeyOf is the rule.
func sensitiveKey(k string) bool {
	if len(k) > 64 {
		return false
	}
	var buf [64]byte
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= utf8.RuneSelf {
			return sensitiveKeyOf(k)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	l := buf[:len(k)]
	if hasSuffix(l, "tokens") || hasSuffix(l, "source") || hasSuffix(l, "count") {
		return false
	}
	for i, c := range l {
		for _, w := range sensitiveByFirst[c] {
			if hasPrefix(l[i:], w) {
				return true
			}
		}
	}
	return false
}

// sensitiveByFirst is sensitiveWords by their first byte.
var sensitiveByFirst = func() (t [256][]string) {
	for _, w := range sensitiveWords {
		t[w[0]] = append(t[w[0]], w)
	}
	return t
}()

func hasPrefix(b []byte, w string) bool { return len(b) >= len(w) && string(b[:len(w)]) == w }
func hasSuffix(b []byte, w string) bool { return len(b) >= len(w) && string(b[len(b)-len(w):]) == w }

// sensitiveKeyOf is sensitiveKey's rule, for any name: lowered, it does
// not end in "tokens", "source" or "count" (token counts, a key's source)
// and holds one of the words.
func sensitiveKeyOf(k string) bool {
	if len(k) > 64 {
		return false
	}
	l := strings.ToLower(k)
	if strings.HasSuffix(l, "tokens") || strings.HasSuffix(l, "source") || strings.HasSuffix(l, "count") {
		return false
	}
	for _, w := range sensitiveWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

var sensitiveWords = []string{"pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie", "sig"}

// loosen prepares text for the rules without moving anything: closing
// punctuation right after a token (a secret at the end of a sentence, in
// brackets or a list) becomes a space, which the rules' terminators
// accept. Punctuation inside a token (a password's "!" or ",") stays.
func loosen(s string) string {
	var b strings.Builder
	writeLoosened(&b, s)
	return b.String()
}

// writeLoosened writes loosen(s) to b: a run of closing punctuation
// followed by white space, a quote or the end becomes spaces; so do the
// "<" of a closing tag (<command-args>SECRET</command-args>) and the
// "." of a file's extension (/home/kim/SECRET.json). Line ends are written
// as form feeds, white space to the rules as well: gitleaks indexes every
// line end of a text each time a rule matches in it, a call into RE2 for
// each, which on tool outputs of thousands of lines cost more than the
// rules themselves (see findings for the way back).
func writeLoosened(b *strings.Builder, s string) {
	b.Grow(len(s))
	last := 0
	blank := func(i, j int) {
		b.WriteString(s[last:i])
		for k := i; k < j; k++ {
			b.WriteByte(' ')
		}
		last = j
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !loosened[c] {
			continue
		}
		if c == '\n' {
			b.WriteString(s[last:i])
			b.WriteByte('\f')
			last = i + 1
			continue
		}
		switch {
		case c == '<' && i+1 < len(s) && s[i+1] == '/':
			blank(i, i+1)
			continue
		case c == '.' && extension(s[i+1:]) && inPath(s, i):
			blank(i, i+1)
			continue
		case !closing(c):
			continue
		}
		j := i + 1
		for j < len(s) && closing(s[j]) {
			j++
		}
		if j == len(s) || terminator(s[j]) {
			blank(i, j)
		}
		i = j - 1
	}
	b.WriteString(s[last:])
}

// inPath tells whether s[i] is in a path: a slash or backslash stands
// before it in the same word.
func inPath(s string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case '/', '\\':
			return true
		case ' ', '\n', '\t', '\r', '"', '\'', '`', '=', ':':
			return false
		}
	}
	return false
}

// extension tells whether s starts with a file extension: one to five
// letters or digits, then the end, white space, a quote, a closing tag or
// closing punctuation at the end of a word.
func extension(s string) bool {
	n := 0
	for n < len(s) && n <= 5 && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9') {
		n++
	}
	if n == 0 || n > 5 {
		return false
	}
	if n == len(s) || terminator(s[n]) || s[n] == '<' {
		return true
	}
	j := n
	for j < len(s) && closing(s[j]) {
		j++
	}
	return j > n && (j == len(s) || terminator(s[j]))
}

func terminator(c byte) bool {
	switch c {
	case ' ', '\n', '\f', '\t', '\r', '"', '\'', '`':
		return true
	}
	return false
}

func closing(c byte) bool { return closers[c] }

var closers = [256]bool{',': true, ')': true, ']': true, '}': true, '>': true, '.': true, '!': true, '?': true, '|': true}

// loosened are the bytes writeLoosened may change: line ends, closers and
// "<" (one look-up for each byte of a text, most of which are none).
var loosened = func() [256]bool {
	t := closers
	t['\n'], t['<'] = true, true
	return t
}()

// stripANSI removes terminal escape sequences (colours, cursor moves).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			// CSI: parameters, then one final byte in @–~.
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		if i+1 < len(s) && s[i+1] == ']' {
			// OSC: up to BEL or ST.
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
			continue
		}
		i++ // a two-byte escape
	}
	return b.String()
}

// minBase64 is the shortest base64 run decoded: 18 bytes of text.
const minBase64 = 24

// b64Class sorts bytes for base64Runs: 0 not base64, 1 upper case, 2
// lower case, 3 digits and + / - _, 4 padding.
var b64Class = func() (t [256]byte) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 2
	}
	for _, c := range "0123456789+/-_" {
		t[c] = 3
	}
	t['='] = 4
	return t
}()

// base64Runs finds the runs of base64 characters in s long enough to hide
// a secret and mixed-case (as base64 of text always is; paths and words
// seldom are).
//
// A run long enough holds minBase64-2 characters before its padding, so
// one that starts within the next minBase64-2 bytes holds the last of
// them: where that byte is not of a run, the scan skips them all (most of
// a text, whose words and paths break every few bytes); where it is, the
// run that holds it is found from its start.
func base64Runs(s string) [][2]int {
	const m = minBase64 - 2
	var out [][2]int
	for i := 0; i < len(s); {
		if i+m > len(s) {
			break
		}
		if c := b64Class[s[i+m-1]]; c == 0 || c == 4 {
			i += m
			continue
		}
		start := i + m - 1
		for start > i && b64Class[s[start-1]] != 0 && b64Class[s[start-1]] != 4 {
			start--
		}
		i = start
		var seen byte
		for i < len(s) && b64Class[s[i]] != 0 && b64Class[s[i]] != 4 {
			seen |= 1 << b64Class[s[i]]
			i++
		}
		// Padding ends a run.
		for k := 0; k < 2 && i < len(s) && s[i] == '='; k++ {
			i++
		}
		if i-start >= minBase64 && seen&(1<<1) != 0 && seen&(1<<2) != 0 {
			out = append(out, [2]int{start, i})
		}
	}
	return out
}

// decodeBase64Text decodes a base64 run (either alphabet, padded or not)
// that holds text. Base64 of text has a mark: every fourth character
// (the first of each group, wherever the text starts) encodes the top six
// bits of a printable byte, so it is one of I–Z or a–f; a run where no
// alignment shows that is not decoded at all.
func decodeBase64Text(run string) (string, bool) {
	trimmed := strings.TrimRight(run, "=")
	for k := 0; k < 4 && k < len(trimmed); k++ {
		if !textMark(trimmed[k:]) {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(trimmed[k:]); err == nil && len(b) >= minSecret && utf8.Valid(b) && printable(string(b)) {
				return string(b), true
			}
		}
	}
	return "", false
}

// textMark tells whether s could be base64 of text from its first
// character on: nine in ten of its characters at multiples of four are
// in I–Z or a–f.
func textMark(s string) bool {
	n, in := 0, 0
	for i := 0; i < len(s); i += 4 {
		n++
		if c := s[i]; c >= 'I' && c <= 'Z' || c >= 'a' && c <= 'f' {
			in++
		}
	}
	return n > 0 && in*10 >= n*9
}

// percentRuns finds the runs of s that hold percent-encoded bytes (a URL
// or a query value written with %3D, %2F…): up to white space or a quote.
func percentRuns(s string) [][2]int {
	var out [][2]int
	if strings.IndexByte(s, '%') < 0 {
		// A query written with "+" for its spaces and nothing else
		// encoded (?cmd=mysql+-u+root+-p…).
		return plusRuns(s)
	}
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '%')
		if j < 0 {
			break
		}
		j += i
		if j+2 >= len(s) || !isHex(s[j+1]) || !isHex(s[j+2]) {
			i = j + 1
			continue
		}
		from := j
		for from > 0 && !percentStop(s[from-1]) {
			from--
		}
		to := j
		for to < len(s) && !percentStop(s[to]) {
			to++
		}
		if to-from >= minSecret {
			out = append(out, [2]int{from, to})
		}
		i = to
	}
	return out
}

func percentStop(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '"', '\'', '`', '<', '>':
		return true
	}
	return false
}

// decodePercent decodes a percent-encoded run ("+" is a space, as in a
// query), when that gives text.
func decodePercent(run string) (string, bool) {
	t, err := url.QueryUnescape(run)
	if err != nil {
		if t, err = url.PathUnescape(run); err != nil {
			return "", false
		}
	}
	if t == run || !utf8.ValidString(t) {
		return "", false
	}
	return t, true
}

// randomTokens replaces the parts of a name that look random (a key
// written into a folder or file name, which Claude Code's folder names
// mangle past any rule: sk_live_… becomes sk-live-…): runs of letters and
// digits of 16 or more with both, or of 28 or more, that are not hex
// (uuids, agent ids and hashes are).
func randomTokens(name string) (string, int) {
	n := 0
	var b strings.Builder
	last := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && isAlnum(name[i]) {
			continue
		}
		j := i
		for j > last && isAlnum(name[j-1]) {
			j--
		}
		if tok := name[j:i]; looksRandom(tok) {
			b.WriteString(name[last:j])
			b.WriteString("[REDACTED:name-token]")
			last = i
			n++
		}
	}
	if n == 0 {
		return name, 0
	}
	b.WriteString(name[last:])
	return b.String(), n
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func looksRandom(tok string) bool {
	if len(tok) < 12 {
		return false
	}
	hex, upper, lower, digit := true, false, false, false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if !isHex(c) || c >= 'A' && c <= 'F' {
			hex = false
		}
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		default:
			lower = true
		}
	}
	if hex {
		// uuids' parts and agent ids are short hex; a key is long.
		return len(tok) >= 32
	}
	if len(tok) < 16 {
		// Short: only with all three kinds of character, and not written
		// as a name.
		return upper && lower && digit && !identLike(tok)
	}
	return digit && (upper || lower) || len(tok) >= 28 || !identLike(tok)
}

// lastSepBut returns the index of the path separator that leaves the last
// keep+1 elements of p after it, or -1 when p has no more elements than
// that.
func lastSepBut(p string, keep int) int {
	i := len(p)
	for range keep + 1 {
		i = strings.LastIndexAny(p[:i], `/\`)
		if i < 0 {
			return -1
		}
	}
	return i
}

// wrappedBase64Runs finds base64 wrapped over lines (base64's 76 columns,
// openssl's 64, a PEM body): two lines or more of base64 characters
// alone, each as long as the first (at least 20), the last no longer. No
// one line of such a run decodes to the whole text, nor a secret cut at
// its end.
func wrappedBase64Runs(s string) [][2]int {
	if len(s) < 2*20+1 || strings.IndexByte(s, '\n') < 0 {
		return nil
	}
	var out [][2]int
	start, width, lines := -1, 0, 0
	flush := func(end int) {
		if start >= 0 && lines >= 2 {
			out = append(out, [2]int{start, end})
		}
		start, width, lines = -1, 0, 0
	}
	prevEnd := 0
	for at := 0; at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		line := strings.TrimRight(s[at:end], "\r")
		n := len(line)
		ok := n > 0
		for i := 0; ok && i < n; i++ {
			c := b64Class[line[i]]
			ok = c != 0 && !(c == 4 && i < n-2)
		}
		switch {
		case !ok:
			flush(prevEnd)
		case start >= 0 && n == width:
			lines++
		case start >= 0 && n < width:
			lines++
			flush(at + len(line))
			ok = false
		case n >= 20:
			flush(prevEnd)
			start, width, lines = at, n, 1
		default:
			flush(prevEnd)
		}
		if ok {
			prevEnd = at + len(line)
		}
		at = end + 1
	}
	flush(prevEnd)
	return out
}

// joinLines is s without its line ends.
func joinLines(s string) string {
	return strings.NewReplacer("\r", "", "\n", "").Replace(s)
}

// decodeEntities decodes the HTML character references of s (&quot;,
// &#39;, &amp;…), when it holds one: a page shows an attribute or a
// Markdown text decoded.
func decodeEntities(s string) (string, bool) {
	if strings.IndexByte(s, '&') < 0 {
		return "", false
	}
	t := html.UnescapeString(s)
	return t, t != s
}

// entityForms are the ways HTML writes s.
func entityForms(s string) []string {
	e := html.EscapeString(s) // &#34; &#39;
	return []string{e, strings.NewReplacer("&#34;", "&quot;", "&#39;", "&apos;").Replace(e),
		strings.NewReplacer("&#34;", "&quot;", "&#39;", "&#x27;").Replace(e)}
}

// decodeEscapes decodes the JSON string escapes of s when it holds an
// escaped quote or slash (a JSON text printed inside a string, or written
// into one): \" \\ \/ \n \t \uXXXX.
func decodeEscapes(s string) (string, bool) {
	if !strings.Contains(s, `\"`) && !strings.Contains(s, `\/`) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case '"', '\\', '/':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'u':
			if i+4 < len(s) {
				if n, err := strconv.ParseUint(s[i+1:i+5], 16, 16); err == nil {
					b.WriteRune(rune(n))
					i += 4
					continue
				}
			}
			b.WriteString(`\u`)
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), true
}

// escapedForms are the ways a JSON string writes s.
func escapedForms(s string) []string {
	return []string{strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s),
		strings.NewReplacer(`\`, `\\`, `"`, `\"`, "/", `\/`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)}
}

// linesWith finds the lines of s (spans without their line end) where at
// reports a mark: has finds the next mark from an index, -1 for none.
func linesWith(s string, has func(s string) int) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		j := has(s[i:])
		if j < 0 {
			break
		}
		j += i
		from := strings.LastIndexByte(s[:j], '\n') + 1
		to := strings.IndexByte(s[j:], '\n')
		if to < 0 {
			to = len(s)
		} else {
			to += j
		}
		out = append(out, [2]int{from, to})
		i = to + 1
	}
	return out
}

// hasEntity is the index of the first character reference of s that
// HTML decodes (&quot; &#39; &amp;), or -1.
func hasEntity(s string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '&')
		if j < 0 {
			return -1
		}
		j += i
		k := j + 1
		for k < len(s) && k-j <= 10 && (isAlnum(s[k]) || s[k] == '#') {
			k++
		}
		if k < len(s) && s[k] == ';' && k > j+1 {
			return j
		}
		i = j + 1
	}
}

// hasEscape is the index of the first escaped quote or slash of s, or -1.
func hasEscape(s string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 || i+j+1 >= len(s) {
			return -1
		}
		j += i
		if s[j+1] == '"' || s[j+1] == '/' {
			return j
		}
		i = j + 2
	}
}

// plusRuns finds the runs of s (up to white space or a quote) that are a
// URL's query holding a "+" in a value: decoded, its pluses are spaces.
func plusRuns(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '?')
		if j < 0 {
			break
		}
		j += i
		to := j
		for to < len(s) && !percentStop(s[to]) {
			to++
		}
		if q := s[j:to]; strings.IndexByte(q, '=') > 0 && strings.IndexByte(q, '+') > 0 {
			from := j
			for from > 0 && !percentStop(s[from-1]) {
				from--
			}
			out = append(out, [2]int{from, to})
		}
		i = to + 1
	}
	return out
}
