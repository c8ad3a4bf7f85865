package search

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DisplayText is what the static search shows of a document's text, for
// the snippets the browser cuts around the first match: white space
// folded and, for what people and the model wrote (prompts, answers,
// thinking, a sub-agent's messages, and the tools whose text is Markdown:
// plans, fetched pages, sub-agent prompts), the Markdown syntax taken out
// (emphasis, headings, list and quote markers, backticks, a link's URL).
// Other tools' input and output (commands, files, diffs) stay as they
// are. The indexed text (what scoring reads) is never this one.
func DisplayText(role, tool, text string) string {
	if stripsMarkdown(role, tool) {
		text = stripMarkdown(text)
	}
	return collapseSpace(text)
}

// stripsMarkdown tells whether a document's display text is its text with
// the Markdown taken out (DisplayText).
func stripsMarkdown(role, tool string) bool { return role != "tool" || markdownTools[tool] }

// collapseSpace is strings.Join(strings.Fields(s), " ") in one pass: the
// words of s (runs of characters that are not unicode.IsSpace) with one
// space between; s itself when that is s.
func collapseSpace(s string) string {
	// While the result is a prefix of s (same), out is its length;
	// after, b holds it.
	var b []byte
	start, out := -1, 0
	same := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf && !asciiSpace[c] {
			// A run of ASCII that is not space, in a loop of its own.
			if start < 0 {
				start = i
			}
			for i++; i < len(s) && s[i] < utf8.RuneSelf && !asciiSpace[s[i]]; i++ {
			}
			continue
		}
		size, space := 1, asciiSpace[c]
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		switch {
		case !space && start < 0:
			start = i
		case space && start >= 0:
			b, out, same = appendWord(b, s, start, i, out, same)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		b, out, same = appendWord(b, s, start, len(s), out, same)
	}
	if same {
		return s[:out]
	}
	return string(b)
}

// appendWord adds s[from:to] to the result, after a space unless it is the
// first word. While the result is a prefix of s (same) nothing is copied:
// out is its length.
func appendWord(b []byte, s string, from, to, out int, same bool) ([]byte, int, bool) {
	if same {
		if out == 0 && from == 0 || out > 0 && from == out+1 && s[out] == ' ' {
			return b, to, true
		}
		b = append(make([]byte, 0, len(s)), s[:out]...)
	}
	if len(b) > 0 {
		b = append(b, ' ')
	}
	return append(b, s[from:to]...), 0, false
}

// asciiSpace holds the ASCII characters unicode.IsSpace finds.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// markdownTools are the tools whose input or output is mostly Markdown.
var markdownTools = map[string]bool{
	"ExitPlanMode": true, "WebFetch": true, "WebSearch": true, "Task": true, "Agent": true, "Skill": true,
}

var (
	// A line's block markers: heading hashes, quote marks, list bullets
	// or numbers (several, nested), a task box.
	reBlock = regexp.MustCompile(`^[ \t]*(?:(?:#{1,6}|>|[-*+]|\d{1,9}[.)])(?:[ \t]+|$))+(?:\[[ xX]\][ \t]+)?`)
	reRule  = regexp.MustCompile(`^[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+)$`)
	reFence = regexp.MustCompile("^[ \t]*(?:```|~~~)")
	// [text](url), ![alt](url): the text.
	reLink = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^()\s]*(?:\s+"[^"]*")?\)`)
	// __words__ when the inside is not a name (__init__ stays).
	reUnder = regexp.MustCompile(`__([^_\s](?:[^_]*[^_\s])?)__`)
	reName  = regexp.MustCompile(`^[\p{L}\p{N}_]+$`)
)

// ruleStart and blockStart are the bytes a line matching reRule, or
// reBlock, starts with after its blanks.
var ruleStart, blockStart = func() (rule, block [256]bool) {
	for _, c := range []byte("-*_=") {
		rule[c] = true
	}
	for _, c := range []byte("#>-*+0123456789") {
		block[c] = true
	}
	return
}()

// firstNonBlank is l's first byte that is not a space or a tab, 0 if none.
func firstNonBlank(l string) byte {
	for i := 0; i < len(l); i++ {
		if l[i] != ' ' && l[i] != '\t' {
			return l[i]
		}
	}
	return 0
}

// stripMarkdown takes the Markdown syntax out of text, line by line; code
// (fenced blocks, `spans`) keeps its characters, less the fences and
// backticks.
func stripMarkdown(text string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	fenced := false
	for _, l := range lines {
		// Each expression needs its line to start (after blanks) with
		// one of a few bytes; most lines start with none, and skip them.
		c := firstNonBlank(l)
		if (c == '`' || c == '~') && reFence.MatchString(l) {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, l)
			continue
		}
		if ruleStart[c] && reRule.MatchString(l) {
			continue
		}
		if blockStart[c] {
			l = reBlock.ReplaceAllString(l, "")
		}
		out = append(out, inline(l))
	}
	return strings.Join(out, "\n")
}

// inline strips a line's inline syntax outside its code spans, and the
// backticks around them.
func inline(l string) string {
	if !strings.ContainsAny(l, "`*_[~") {
		return l
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(l, '`')
		if i < 0 {
			b.WriteString(prose(l))
			return b.String()
		}
		n := 1
		for i+n < len(l) && l[i+n] == '`' {
			n++
		}
		ticks := l[i : i+n]
		j := strings.Index(l[i+n:], ticks)
		if j < 0 {
			b.WriteString(prose(l[:i]))
			b.WriteString(l[i+n:])
			return b.String()
		}
		b.WriteString(prose(l[:i]))
		b.WriteString(l[i+n : i+n+j])
		l = l[i+n+j+n:]
	}
}

// prose strips links, bold, strike-through and __emphasis__.
func prose(s string) string {
	if strings.Contains(s, "](") {
		s = reLink.ReplaceAllString(s, "$1")
	}
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "~~", "")
	if strings.Contains(s, "__") {
		s = reUnder.ReplaceAllStringFunc(s, func(m string) string {
			if in := m[2 : len(m)-2]; !reName.MatchString(in) {
				return in
			}
			return m
		})
	}
	return s
}
