package archive

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxName bounds a name taken from a transcript: a file system allows 255
// bytes a path element.
const maxName = 255

// PlainName tells whether s, a name taken from a transcript (a session or
// agent id, a stored output's file name), may become one element of a
// path: not empty, not "." or "..", no separator of either style, no
// control character (NUL included), valid UTF-8, at most 255 bytes, and
// local on this system (no drive, no reserved name).
func PlainName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > maxName || !utf8.ValidString(s) {
		return false
	}
	if strings.ContainsAny(s, `/\`) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return false
	}
	return filepath.IsLocal(s)
}
