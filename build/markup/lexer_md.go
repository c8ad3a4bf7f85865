package markup

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/dlclark/regexp2/v2/syntax"
)

// mdTokens scans text as chroma's Markdown lexer (v2.27,
// lexers/markdown.go) does from its root state, token for token once
// coalesced, without regexp2: its rules try each one at every character,
// and the text rule takes one character a try, so chroma lexed Markdown at
// 1-4 MB/s, the slowest of the languages transcripts show most. The rules,
// in chroma's order, as regexp2 reads them (Unicode \s and \w, . any
// character but \n, ^ and $ at line ends):
//
//	root:   <!--[\w\W]*?-->                 CommentMultiline
//	        ^(#[^#].+\n)                    GenericHeading
//	        ^(#{2,6}.+\n)                   GenericSubheading
//	        ^(\s*)([*-] )(\[[ xX]\])( .+\n) Text, Keyword, Keyword, inline
//	        ^(\s*)([*-])(\s)(.+\n)          Text, Keyword, Text, inline
//	        ^(\s*)([0-9]+\.)( .+\n)         Text, Keyword, inline
//	        ^(\s*>\s)(.+\n)                 Keyword, GenericEmph
//	        ^(```\n)([\w\W]*?)(^```$)       String, Text, String
//	        ^(```)(\w+)(\n)([\w\W]*?)(^```$) the code in its language's lexer
//	        then inline's
//	inline: <!--[\w\W]*?-->                 CommentMultiline
//	        \\.                             Text
//	        (\s)(\*|_)((?:(?!\2).)*)(\2)((?=\W|\n))   GenericEmph
//	        (\s)((\*\*|__).*?)\3((?=\W|\n))           GenericStrong
//	        (\s)(~~[^~]+~~)((?=\W|\n))                GenericDeleted
//	        `[^`]+`                         LiteralStringBacktick
//	        [@#][\w/:]+                     NameEntity
//	        (!?\[)([^]]+)(\])(\()([^)]+)(\)) NameTag, NameAttribute
//	        .|\n                            Text
//
// None of them backtracks into another way of matching (each repeat ends
// at the first character the next part cannot start with), so each is a
// scan. A fenced block's code goes to sub, which lexes it as the lexer
// chroma would pick for it does (its twin first) or fails. ok is false,
// and chroma's rules lex the text, where regexp2 would not see the text's
// bytes: invalid UTF-8 (it reads runes, U+FFFD for a bad byte) and \r
// (chroma makes line ends \n first), and where sub failed. mdTokens is
// the Markdown twin (twin.go) of the text after any front matter.
func mdTokens(text string, sub func(lang, code string) ([]chroma.Token, bool)) ([]chroma.Token, bool) {
	if strings.IndexByte(text, '\r') >= 0 || !utf8.ValidString(text) {
		return nil, false
	}
	m := mdScan{sub: sub, toks: make([]chroma.Token, 0, len(text)/24+4)}
	m.root(text)
	if m.failed {
		return nil, false
	}
	return m.toks, true
}

// mdScan is the state of mdTokens: the text being scanned (the whole, or
// a list item's line for the inline rules) and where the run of text the
// last rule (.|\n) took began, written as one token before the next
// rule's.
type mdScan struct {
	sub    func(lang, code string) ([]chroma.Token, bool)
	toks   []chroma.Token
	s      string
	plain  int
	failed bool // a code block's lexer failed: chroma's rules say why
	memo   mdMemo
}

// mdMemo keeps what the scan last searched forward for in s, so that rules
// tried again and again further on (an opening ** with no closing one on
// a long line, blank lines by the thousand before a list's marker, a < or
// [ with nothing to close it) read each stretch of text once: a rule tried
// at every occurrence and searching to the end was quadratic (a 32 KB line
// of " **a" took 3 s; chroma's regexp2 14 s).
type mdMemo struct {
	bytes   [len(mdFound)]mdNext // the next of each byte of mdFound
	comment mdNext               // the next -->
	strong  [2]mdNext            // the next closing ** and __ (on the line)
	spaces  mdNext               // where a run of spaces ends
}

// mdFound are the bytes the scan looks ahead for.
const mdFound = "\n])`~"

// mdNext says that from from on, the first place the search succeeds is
// found (-1: none before end). A search from any place in [from, found],
// or [from, end] when it failed, has the same answer: nothing between
// from and it succeeded.
type mdNext struct {
	set              bool
	from, found, end int
}

// recall returns the remembered answer for a search from at, if it holds.
func (n *mdNext) recall(at int) (int, bool) {
	if !n.set || at < n.from {
		return 0, false
	}
	if n.found >= 0 && at <= n.found || n.found < 0 && at <= n.end {
		return n.found, true
	}
	return 0, false
}

func (n *mdNext) keep(from, found, end int) int {
	*n = mdNext{set: true, from: from, found: found, end: end}
	return found
}

// next is the index in s of the first c at or after from, or -1.
func (m *mdScan) next(c byte, from int) int {
	n := &m.memo.bytes[strings.IndexByte(mdFound, c)]
	if at, ok := n.recall(from); ok {
		return at
	}
	i := strings.IndexByte(m.s[from:], c)
	if i >= 0 {
		i += from
	}
	return n.keep(from, i, len(m.s))
}

// lineEnd is the length of the line at from up to its \n, or -1 when the
// text ends first (strings.IndexByte(s[from:], '\n')).
func (m *mdScan) lineEnd(from int) int {
	if i := m.next('\n', from); i >= 0 {
		return i - from
	}
	return -1
}

// open writes the run of plain text before a match at pos.
func (m *mdScan) open(pos int) {
	if m.plain < pos {
		m.toks = append(m.toks, chroma.Token{Type: chroma.Text, Value: m.s[m.plain:pos]})
	}
}

func (m *mdScan) tok(t chroma.TokenType, v string) {
	if v != "" {
		m.toks = append(m.toks, chroma.Token{Type: t, Value: v})
	}
}

// root scans s in the root state.
func (m *mdScan) root(s string) {
	m.s, m.plain = s, 0
	for pos := 0; pos < len(s); {
		end := m.comment(pos)
		if end < 0 && (pos == 0 || s[pos-1] == '\n') {
			end = m.lineRule(pos)
		}
		if end < 0 {
			end = m.inlineRule(pos)
		}
		if end < 0 {
			pos += runeLen(s, pos)
			continue
		}
		pos, m.plain = end, end
	}
	m.open(len(s))
}

// inline scans s, a part of the text, in the inline state (chroma's
// UsingSelf: a lexer of its own for the part).
func (m *mdScan) inline(s string) {
	outer, plain, memo := m.s, m.plain, m.memo
	m.s, m.plain, m.memo = s, 0, mdMemo{}
	for pos := 0; pos < len(s); {
		end := m.inlineRule(pos)
		if end < 0 {
			pos += runeLen(s, pos)
			continue
		}
		pos, m.plain = end, end
	}
	m.open(len(s))
	m.s, m.plain, m.memo = outer, plain, memo
}

// comment: <!--[\w\W]*?-->
func (m *mdScan) comment(pos int) int {
	s := m.s
	if !strings.HasPrefix(s[pos:], "<!--") {
		return -1
	}
	c := &m.memo.comment
	i, ok := c.recall(pos + 4)
	if !ok {
		if i = strings.Index(s[pos+4:], "-->"); i >= 0 {
			i += pos + 4
		}
		c.keep(pos+4, i, len(s))
	}
	if i < 0 {
		return -1
	}
	end := i + 3
	m.open(pos)
	m.tok(chroma.CommentMultiline, s[pos:end])
	return end
}

// lineRule tries the root rules that start at a line's start (^), pos
// being one.
func (m *mdScan) lineRule(pos int) int {
	s := m.s
	switch s[pos] {
	case '#':
		if pos+1 >= len(s) {
			return -1
		}
		if s[pos+1] != '#' {
			// ^(#[^#].+\n): [^#] takes a \n too.
			q := pos + 1 + runeLen(s, pos+1)
			if e := m.lineEnd(q); e > 0 {
				end := q + e + 1
				m.open(pos)
				m.tok(chroma.GenericHeading, s[pos:end])
				return end
			}
			return -1
		}
		// ^(#{2,6}.+\n): two #s, then at least one character on the line
		// (a third # when there are only #s).
		if e := m.lineEnd(pos); e >= 3 {
			end := pos + e + 1
			m.open(pos)
			m.tok(chroma.GenericSubheading, s[pos:end])
			return end
		}
		return -1
	case '`':
		return m.fenced(pos)
	}
	// ^(\s*)...: the spaces, newlines among them.
	q, ok := m.memo.spaces.recall(pos)
	if !ok {
		for q = pos; q < len(s); {
			r, w := utf8.DecodeRuneInString(s[q:])
			if !unicode.IsSpace(r) {
				break
			}
			q += w
		}
		m.memo.spaces.keep(pos, q, q)
	}
	if q >= len(s) {
		return -1
	}
	switch c := s[q]; {
	case c == '*' || c == '-':
		// ^(\s*)([*-] )(\[[ xX]\])( .+\n)
		if q+6 < len(s) && s[q+1] == ' ' && s[q+2] == '[' && (s[q+3] == ' ' || s[q+3] == 'x' || s[q+3] == 'X') && s[q+4] == ']' && s[q+5] == ' ' {
			if e := m.lineEnd(q + 6); e > 0 {
				end := q + 6 + e + 1
				m.open(pos)
				m.tok(chroma.Text, s[pos:q])
				m.tok(chroma.Keyword, s[q:q+2])
				m.tok(chroma.Keyword, s[q+2:q+5])
				m.inline(s[q+5 : end])
				return end
			}
		}
		// ^(\s*)([*-])(\s)(.+\n)
		if q2, end := m.spaceThenLine(q + 1); end > 0 {
			m.open(pos)
			m.tok(chroma.Text, s[pos:q])
			m.tok(chroma.Keyword, s[q:q+1])
			m.tok(chroma.Text, s[q+1:q2])
			m.inline(s[q2:end])
			return end
		}
	case '0' <= c && c <= '9':
		// ^(\s*)([0-9]+\.)( .+\n)
		d := q + 1
		for d < len(s) && '0' <= s[d] && s[d] <= '9' {
			d++
		}
		if d+2 < len(s) && s[d] == '.' && s[d+1] == ' ' {
			if e := m.lineEnd(d + 2); e > 0 {
				end := d + 2 + e + 1
				m.open(pos)
				m.tok(chroma.Text, s[pos:q])
				m.tok(chroma.Keyword, s[q:d+1])
				m.inline(s[d+1 : end])
				return end
			}
		}
	case c == '>':
		// ^(\s*>\s)(.+\n)
		if q2, end := m.spaceThenLine(q + 1); end > 0 {
			m.open(pos)
			m.tok(chroma.Keyword, s[pos:q2])
			m.tok(chroma.GenericEmph, s[q2:end])
			return end
		}
	}
	return -1
}

// spaceThenLine matches (\s)(.+\n) at i: it returns where the .+ starts
// and where the match ends, or end 0.
func (m *mdScan) spaceThenLine(i int) (q2, end int) {
	s := m.s
	if i >= len(s) {
		return 0, 0
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	if !unicode.IsSpace(r) {
		return 0, 0
	}
	if e := m.lineEnd(i + w); e > 0 {
		return i + w, i + w + e + 1
	}
	return 0, 0
}

// fenced: ^(```\n)([\w\W]*?)(^```$) and ^(```)(\w+)(\n)([\w\W]*?)(^```$),
// the code of the second lexed by its language's lexer (UsingByGroup), as
// Text when there is none.
func (m *mdScan) fenced(pos int) int {
	s := m.s
	if !strings.HasPrefix(s[pos:], "```") {
		return -1
	}
	if strings.HasPrefix(s[pos+3:], "\n") {
		j := closeFence(s, pos+4)
		if j < 0 {
			return -1
		}
		m.open(pos)
		m.tok(chroma.String, s[pos:pos+4])
		m.tok(chroma.Text, s[pos+4:j])
		m.tok(chroma.String, s[j:j+3])
		return j + 3
	}
	p := pos + 3
	for p < len(s) {
		r, w := utf8.DecodeRuneInString(s[p:])
		if !syntax.IsWordChar(r) {
			break
		}
		p += w
	}
	if p == pos+3 || p >= len(s) || s[p] != '\n' {
		return -1
	}
	j := closeFence(s, p+1)
	if j < 0 {
		return -1
	}
	lang, code := s[pos+3:p], s[p+1:j]
	m.open(pos)
	m.tok(chroma.String, s[pos:pos+3])
	m.tok(chroma.String, lang)
	m.tok(chroma.String, "\n")
	toks, ok := m.sub(lang, code)
	if !ok {
		m.failed = true
		return len(s)
	}
	for _, t := range toks {
		if t.Type != chroma.Ignore {
			m.tok(t.Type, t.Value)
		}
	}
	m.tok(chroma.String, s[j:j+3])
	return j + 3
}

// closeFence returns the first line at or after from (a line's start)
// that is ``` alone (^```$), or -1.
func closeFence(s string, from int) int {
	for k := from; ; {
		if strings.HasPrefix(s[k:], "```") && (k+3 == len(s) || s[k+3] == '\n') {
			return k
		}
		nl := strings.IndexByte(s[k:], '\n')
		if nl < 0 {
			return -1
		}
		k += nl + 1
	}
}

// inlineRule tries the inline rules but the last (.|\n) at pos.
func (m *mdScan) inlineRule(pos int) int {
	s := m.s
	switch c := s[pos]; c {
	case '<':
		return m.comment(pos)
	case '\\':
		// \\.
		if pos+1 < len(s) && s[pos+1] != '\n' {
			end := pos + 1 + runeLen(s, pos+1)
			m.open(pos)
			m.tok(chroma.Text, s[pos:end])
			return end
		}
		return -1
	case '`':
		// `[^`]+`
		if k := m.next('`', pos+1); k > pos+1 {
			end := k + 1
			m.open(pos)
			m.tok(chroma.LiteralStringBacktick, s[pos:end])
			return end
		}
		return -1
	case '@', '#':
		// [@#][\w/:]+
		p := pos + 1
		for p < len(s) {
			r, w := utf8.DecodeRuneInString(s[p:])
			if r != '/' && r != ':' && !syntax.IsWordChar(r) {
				break
			}
			p += w
		}
		if p == pos+1 {
			return -1
		}
		m.open(pos)
		m.tok(chroma.NameEntity, s[pos:p])
		return p
	case '!', '[':
		return m.link(pos)
	}
	if c := s[pos]; c < utf8.RuneSelf && !asciiSpace(c) {
		return -1
	}
	r, w := utf8.DecodeRuneInString(s[pos:])
	if !unicode.IsSpace(r) {
		return -1
	}
	return m.spaced(pos, pos+w)
}

// asciiSpace: the ASCII characters unicode.IsSpace takes.
func asciiSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}

// spaced tries the rules that begin with a space (\s), the one at pos,
// its next character at p.
func (m *mdScan) spaced(pos, p int) int {
	s := m.s
	if p >= len(s) {
		return -1
	}
	d := s[p]
	if d == '*' || d == '_' {
		// (\s)(\*|_)((?:(?!\2).)*)(\2)((?=\W|\n)): the first d or \n
		// after; a d, with a character not of a word after it.
		k := p + 1
		for k < len(s) && s[k] != d && s[k] != '\n' {
			k++
		}
		if k < len(s) && s[k] == d && notWordAt(s, k+1) {
			m.open(pos)
			m.tok(chroma.Text, s[pos:p])
			m.tok(chroma.GenericEmph, s[p:k+1])
			return k + 1
		}
		// (\s)((\*\*|__).*?)\3((?=\W|\n)): the first dd on the line with a
		// character not of a word after it.
		if p+1 < len(s) && s[p+1] == d {
			if k := m.strongClose(d, p+2); k >= 0 {
				m.open(pos)
				m.tok(chroma.Text, s[pos:p])
				m.tok(chroma.GenericStrong, s[p:k+2])
				return k + 2
			}
		}
		return -1
	}
	if d == '~' && p+1 < len(s) && s[p+1] == '~' {
		// (\s)(~~[^~]+~~)((?=\W|\n))
		c0 := p + 2
		if kk := m.next('~', c0); kk > c0 {
			if kk+1 < len(s) && s[kk+1] == '~' && notWordAt(s, kk+2) {
				m.open(pos)
				m.tok(chroma.Text, s[pos:p])
				m.tok(chroma.GenericDeleted, s[p:kk+2])
				return kk + 2
			}
		}
	}
	return -1
}

// strongClose returns where the first dd on the line at or after from
// stands with a character not of a word after it (the end of
// (\s)((\*\*|__).*?)\3((?=\W|\n)) opened before from), or -1. d and \n are
// ASCII, so a byte of either starts a character.
func (m *mdScan) strongClose(d byte, from int) int {
	s := m.s
	n := &m.memo.strong[0]
	if d == '_' {
		n = &m.memo.strong[1]
	}
	if k, ok := n.recall(from); ok {
		return k
	}
	k := from
	for ; k < len(s) && s[k] != '\n'; k++ {
		if s[k] == d && k+1 < len(s) && s[k+1] == d && notWordAt(s, k+2) {
			return n.keep(from, k, k)
		}
	}
	return n.keep(from, -1, k)
}

// link: (!?\[)([^]]+)(\])(\()([^)]+)(\))
func (m *mdScan) link(pos int) int {
	s := m.s
	b := pos + 1
	if s[pos] == '!' {
		if b >= len(s) || s[b] != '[' {
			return -1
		}
		b++
	}
	kb := m.next(']', b)
	if kb <= b {
		return -1
	}
	if kb+1 >= len(s) || s[kb+1] != '(' {
		return -1
	}
	c0 := kb + 2
	n := m.next(')', c0)
	if n <= c0 {
		return -1
	}
	end := n + 1
	m.open(pos)
	m.tok(chroma.Text, s[pos:b])
	m.tok(chroma.NameTag, s[b:kb])
	m.tok(chroma.Text, s[kb:c0])
	m.tok(chroma.NameAttribute, s[c0:end-1])
	m.tok(chroma.Text, s[end-1:end])
	return end
}

// notWordAt: (?=\W|\n) at i, a character there that is not a word's.
func notWordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !syntax.IsWordChar(r)
}

// runeLen is the length of the character at s[i] (i < len(s)).
func runeLen(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, w := utf8.DecodeRuneInString(s[i:])
	return w
}
