package export

import "strings"

// prose makes transcript text safe to write into Markdown: every "<"
// outside code becomes "&lt;", so no Markdown renderer sees an HTML tag,
// comment or declaration in it (a "<script>" in a prompt reads as text on
// GitHub, in an editor's preview or a static site generator), while the
// rest of the Markdown (emphasis, lists, links, code) still works.
//
// Code is what CommonMark makes code at the top level: fenced blocks
// (``` or ~~~ indented by at most three spaces) and code spans on one
// line. Anything this reads differently from a renderer is escaped, so a
// mistake shows a "&lt;" in code, never live HTML.
func prose(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	fence := ""
	for line := range strings.Lines(s) {
		body := strings.TrimRight(line, "\r\n")
		if fence != "" {
			b.WriteString(line)
			if closesFence(body, fence) {
				fence = ""
			}
			continue
		}
		if f := opensFence(body); f != "" {
			fence = f
			b.WriteString(line)
			continue
		}
		b.WriteString(escapeOutsideSpans(line))
	}
	return b.String()
}

// indent returns the line without up to three leading spaces, or false
// when it is indented more (not a fence then).
func indent(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	return t, len(line)-len(t) <= 3
}

// opensFence returns the fence a line opens ("```", "~~~~"…), or "".
func opensFence(line string) string {
	t, ok := indent(line)
	if !ok || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	if t[0] == '`' && strings.Contains(t[n:], "`") {
		// A backtick fence's info string holds no backtick.
		return ""
	}
	return t[:n]
}

func closesFence(line, fence string) bool {
	t, ok := indent(line)
	if !ok {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// escapeOutsideSpans escapes "<" in a line except inside its code spans:
// a run of backticks (not escaped with a backslash) up to the next run of
// the same length.
func escapeOutsideSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			// An escaped character is text; an escaped "<" reads the same
			// as "&lt;".
			if line[i+1] == '<' {
				b.WriteString("&lt;")
			} else {
				b.WriteString(line[i : i+2])
			}
			i += 2
		case c == '`':
			n := run(line, i)
			if end := closing(line, i+n, n); end >= 0 {
				b.WriteString(line[i : end+n])
				i = end + n
				continue
			}
			b.WriteString(line[i : i+n])
			i += n
		case c == '<':
			b.WriteString("&lt;")
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// run is the length of the run of backticks at line[i].
func run(line string, i int) int {
	n := 0
	for i+n < len(line) && line[i+n] == '`' {
		n++
	}
	return n
}

// closing finds the next run of exactly n backticks from line[i].
func closing(line string, i, n int) int {
	for i < len(line) {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			return -1
		}
		j += i
		m := run(line, j)
		if m == n {
			return j
		}
		i = j + m
	}
	return -1
}

// code writes s as an inline code span that nothing in s can close.
func code(s string) string {
	s = oneLine(s)
	n, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	f := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + s + " " + f
	}
	return f + s + f
}
