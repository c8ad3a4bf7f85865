package markup

import (
	"html/template"
	"math/bits"
	"regexp"
	"strings"
	"unsafe"

	terminal "github.com/buildkite/terminal-to-html/v3"
)

// ANSI renders terminal output: SGR colours become classes (term-fg31,
// term-bold, …), carriage-return rewrites and cursor moves are applied as a
// terminal would, and everything else is escaped. Inline-image escapes
// become a marker (a page never loads a remote resource) and hyperlinks
// keep only http(s) targets.
func ANSI(s string) template.HTML {
	if !needsTerminal(s) {
		return template.HTML(escapeHTML(s))
	}
	if strings.IndexByte(s, '\x1b') < 0 && strings.IndexByte(s, '\b') < 0 {
		if drawn, ok := carriageReturns(s); ok {
			return template.HTML(escapeHTML(drawn))
		}
	}
	out := terminal.Render([]byte(s))
	out = reTermImg.ReplaceAllString(out, `<span class="term-img">[image]</span>`)
	out = reTermHref.ReplaceAllStringFunc(out, func(m string) string {
		u := strings.ToLower(reTermHref.FindStringSubmatch(m)[1])
		if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			return m[:len(m)-1] + ` rel="nofollow noopener noreferrer">`
		}
		return `<a>`
	})
	return template.HTML(out)
}

// carriageReturns is s as a terminal shows it when its only control
// characters are line ends and carriage returns (a progress bar, git's
// "Rebasing (1/1)\r"): each carriage return takes the cursor back to the
// start of its line, and what follows is written over what was there,
// character by character; line ends at the end are left out. ok is false
// when a line holding one is longer than the terminal emulator's 160
// columns (it would wrap there, and the return go to the start of the
// wrapped part): that text is left to it.
// The emulator draws each character into a cell of its own, with a style,
// and took 0.16 CPU-s of a cold corpus build for such texts (1.8 MB).
func carriageReturns(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	var cells []rune
	for first := true; ; first = false {
		line, rest, more := strings.Cut(s, "\n")
		if !first {
			b.WriteByte('\n')
		}
		if strings.IndexByte(line, '\r') < 0 {
			b.WriteString(line)
		} else {
			cells = cells[:0]
			x := 0
			for _, r := range line {
				if r == '\r' {
					x = 0
					continue
				}
				if x == termColumns {
					return "", false
				}
				if x < len(cells) {
					cells[x] = r
				} else {
					cells = append(cells, r)
				}
				x++
			}
			for _, r := range cells {
				b.WriteRune(r)
			}
		}
		if !more {
			// As the emulator, which draws no empty line at the end.
			return strings.TrimRight(b.String(), "\n"), true
		}
		s = rest
	}
}

// termColumns is the width of terminal-to-html's screen.
const termColumns = 160

// needsTerminal tells whether s holds what a terminal renders (else it is
// only escaped): three byte searches, each in vector instructions, where
// ContainsAny tries every byte against a set (5% of a warm --force build's
// highlighting and Markdown, every tool output asked).
func needsTerminal(s string) bool {
	return strings.IndexByte(s, '\x1b') >= 0 || strings.IndexByte(s, '\r') >= 0 || strings.IndexByte(s, '\b') >= 0
}

var (
	reTermImg  = regexp.MustCompile(`<img [^>]*>`)
	reTermHref = regexp.MustCompile(`<a href="([^"]*)">`)
)

// escapeHTML is template.HTMLEscapeString in one allocation of the size the
// result needs, none when s has nothing to escape. HTMLEscapeString copies
// s to bytes and escapes them into a buffer grown by doubling, which then
// becomes the string: about five times the text allocated, 410 MB of a
// cold 1 GB build's 8 GB, every tool output shown.
func escapeHTML(s string) string {
	first := NextEscaped(s, 0, false)
	if first == len(s) {
		return s
	}
	extra := 0
	for i := first; i < len(s); i = NextEscaped(s, i+1, false) {
		extra += escapeGrowth[s[i]]
	}
	b := make([]byte, 0, len(s)+extra)
	last := 0
	for i := first; i < len(s); i = NextEscaped(s, i+1, false) {
		b = append(b, s[last:i]...)
		b = append(b, escapeOf(s[i])...)
		last = i + 1
	}
	b = append(b, s[last:]...)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// NextEscaped is the index of the first byte of s from i on that HTML
// escaping changes, or len(s): NUL, the quote and apostrophe, &, <, >, and + too
// when plus (html/template escapes it in its text and attributes; text/
// template's HTMLEscape does not). Eight bytes are looked at a time (a
// terminal's output is mostly long runs of nothing to escape): a byte b
// is one when b, b^'"', b^'+', (b|1)^0x27 (an apostrophe or &) or (b|2)^'>' (< or >)
// is 0, and the lowest byte the zero-byte test finds is always a zero one.
func NextEscaped(s string, i int, plus bool) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	pc := uint64('"') * ones // without plus, the quote's test again
	if plus {
		pc = '+' * ones
	}
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q := w ^ ('"' * ones)
		p := w ^ pc
		a := (w | ones) ^ ('\'' * ones)
		g := (w | 2*ones) ^ ('>' * ones)
		if m := ((w-ones)&^w | (q-ones)&^q | (p-ones)&^p | (a-ones)&^a | (g-ones)&^g) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if escapeGrowth[s[i]] != 0 || plus && s[i] == '+' {
			return i
		}
	}
	return len(s)
}

// escapeOf is what text/template's HTMLEscape writes for c.
func escapeOf(c byte) string {
	switch c {
	case 0:
		return "\uFFFD"
	case '"':
		return "&#34;"
	case '\'':
		return "&#39;"
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	}
	return "&gt;"
}

// escapeGrowth is how many bytes escaping a byte adds (0: kept as it is).
var escapeGrowth = func() (g [256]int) {
	for _, c := range []byte{0, '"', '\'', '&', '<', '>'} {
		g[c] = len(escapeOf(c)) - 1
	}
	return g
}()
