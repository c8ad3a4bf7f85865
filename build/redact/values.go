package redact

import (
	"encoding/base64"
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
		v := string(lit)
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
// (a password, a token, a key): the rules then see "name: value".
func sensitiveKey(k string) bool {
	if len(k) > 64 {
		return false
	}
	l := strings.ToLower(k)
	if strings.HasSuffix(l, "tokens") || strings.HasSuffix(l, "source") || strings.HasSuffix(l, "count") {
		return false
	}
	for _, w := range []string{"pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie", "sig"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// loosen prepares text for the rules without moving anything: closing
// punctuation right after a token (a secret at the end of a sentence, in
// brackets or a list) becomes a space, which the rules' terminators
// accept. Punctuation inside a token (a password's "!" or ",") stays.
func loosen(s string) string {
	var b []byte
	for i := len(s) - 1; i >= 0; i-- {
		if !closing(s[i]) {
			continue
		}
		if i+1 < len(s) {
			n := s[i+1]
			if b != nil {
				n = b[i+1]
			}
			if n != ' ' && n != '\n' && n != '\t' && n != '\r' && n != '"' && n != '\'' && n != '`' {
				continue
			}
		}
		if b == nil {
			b = []byte(s)
		}
		b[i] = ' '
	}
	if b == nil {
		return s
	}
	return string(b)
}

func closing(c byte) bool {
	switch c {
	case ',', ')', ']', '}', '>', '.', '!', '?', '|':
		return true
	}
	return false
}

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

// base64Runs finds the runs of base64 characters in s long enough to hide
// a secret and mixed-case (as base64 of text always is; paths and words
// seldom are).
func base64Runs(s string) [][2]int {
	var out [][2]int
	start, upper, lower := -1, false, false
	flush := func(end int) {
		if start >= 0 && end-start >= minBase64 && upper && lower {
			out = append(out, [2]int{start, end})
		}
		start, upper, lower = -1, false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9', c == '+', c == '/', c == '-', c == '_':
		case c == '=':
			// Padding ends a run.
			if start >= 0 {
				j := i
				for j < len(s) && s[j] == '=' && j-i < 2 {
					j++
				}
				flush(j)
				i = j - 1
			}
			continue
		default:
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// decodeBase64Text decodes a base64 run (either alphabet, padded or not)
// that holds text.
func decodeBase64Text(run string) (string, bool) {
	trimmed := strings.TrimRight(run, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(trimmed); err == nil {
			if len(b) >= minSecret && utf8.Valid(b) && printable(string(b)) {
				return string(b), true
			}
		}
	}
	// A run may start mid-word ("key=" followed by base64): try without
	// each of its first three characters.
	for k := 1; k <= 3 && k < len(trimmed); k++ {
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(trimmed[k:]); err == nil && len(b) >= minSecret && utf8.Valid(b) && printable(string(b)) {
				return string(b), true
			}
		}
	}
	return "", false
}
