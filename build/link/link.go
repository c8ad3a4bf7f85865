// Package link owns every URL of the site: pages, sub-agent pages, anchors
// and assets. Pages, the search index and tests all call it, so links cannot
// drift. Paths are slash-separated and relative to the site root.
package link

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Index is the site's front page.
func Index() string { return "index.html" }

// Search is the search page.
func Search() string { return "search.html" }

// Compare is the page comparing two sessions (compare.html?a=…&b=…).
func Compare() string { return "compare.html" }

// CompareIndex is the script listing every session for the compare page.
func CompareIndex() string { return "compare-index.js" }

// Facts is the script of a session's figures (for the compare page),
// beside its page.
func Facts(page string) string { return Export(page, ".facts.js") }

// Project is a project's page.
func Project(project string) string { return project + "/index.html" }

// Session is a session's page.
func Session(project, session string) string {
	return project + "/" + File(session) + ".html"
}

// Export is a page's other form beside it: the same path with ext (".md",
// ".json") instead of ".html".
func Export(page, ext string) string { return strings.TrimSuffix(page, ".html") + ext }

// Agent is a sub-agent's page, beside its session's page.
func Agent(project, session, agent string) string {
	return project + "/" + File(session) + "/agent-" + File(agent) + ".html"
}

// Asset is a file of the site's assets folder.
func Asset(name string) string { return "assets/" + name }

// Media is an image or other file from a transcript, named by its hash.
func Media(name string) string { return "media/" + name }

// Message is the anchor of a message, from its uuid.
func Message(uuid string) string { return "m-" + File(uuid) }

// Tool is the anchor of a tool call, from its tool_use id.
func Tool(id string) string { return "tool-" + File(id) }

// Turn is the anchor of a turn.
func Turn(n int) string { return "t-" + itoa(n) }

// Branch is the anchor of an abandoned branch.
func Branch(n int) string { return "branch-" + itoa(n) }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// maxFile bounds a name File makes: a file system allows 255 bytes a path
// element, and a page's name adds a prefix and an extension to it.
const maxFile = 100

// File makes s safe as a file name or anchor: ASCII letters, digits, '.',
// '_' and '-' are kept, anything else becomes '_' (and a leading '.' too).
// A name longer than maxFile bytes (an id of any length can come from a
// transcript) keeps its first part and ends with a hash of the whole, so
// it stays unique and the same from build to build.
func File(s string) string {
	if len(s) > maxFile {
		sum := sha256.Sum256([]byte(s))
		return File(s[:maxFile-17]) + "-" + hex.EncodeToString(sum[:8])
	}
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// ProjectSlug names a project's folder from its path: the path's letters and
// digits joined by '-', lower-cased ("/home/u/My App" → "home-u-my-app").
func ProjectSlug(path string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(path) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "project"
	}
	s := b.String()
	if len(s) > 80 {
		s = s[len(s)-80:]
		s = strings.TrimLeft(s, "-")
	}
	return s
}

// Rel returns the URL of page `to` from page `from` (both relative to the
// site root), so the site works from file:// and from any sub-path.
func Rel(from, to string) string {
	fromDir := strings.Split(from, "/")
	fromDir = fromDir[:len(fromDir)-1]
	toParts := strings.Split(to, "/")
	i := 0
	for i < len(fromDir) && i < len(toParts)-1 && fromDir[i] == toParts[i] {
		i++
	}
	var b strings.Builder
	for range fromDir[i:] {
		b.WriteString("../")
	}
	b.WriteString(strings.Join(toParts[i:], "/"))
	return b.String()
}

// Root returns the prefix from page to the site root ("" or "../../").
func Root(page string) string {
	return strings.Repeat("../", strings.Count(page, "/"))
}
