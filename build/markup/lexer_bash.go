package markup

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// bashKeywords and bashBuiltins are the words of the keyword rule and of
// the builtin rule.
var bashKeywords, bashBuiltins = func() (k, b map[string]bool) {
	k, b = map[string]bool{}, map[string]bool{}
	for _, w := range strings.Fields("if fi else while do done for then return function case select continue until esac elif") {
		k[w] = true
	}
	for _, w := range strings.Fields(`alias bg bind break builtin caller cd command compgen complete declare dirs disown echo
		enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout popd printf pushd pwd
		read readonly set shift shopt source suspend test time times trap true type typeset ulimit umask unalias unset wait`) {
		b[w] = true
	}
	return k, b
}()

// The states of the Bash lexer a scan can be in: root and those its rules
// push. All but string end with root's rules.
const (
	bashRoot = iota
	bashString
	bashParen
	bashMath
	bashBackticks
	bashCurly
)

// isBashSpace is regexp2's \s on ASCII (Go's unicode.IsSpace).
func isBashSpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// bashTextStop holds the ASCII characters the text rule
// [^=\s\[\]{}()$"'`\\<&|;]+ does not take.
var bashTextStop = func() (set [128]bool) {
	for _, c := range []byte("=[]{}()$\"'`\\<&|; \t\n\v\f\r") {
		set[c] = true
	}
	return set
}()

// bashScan is a scan of the text (handScan) through the lexer's rules.
type bashScan struct{ handScan }

// Shell commands are the commonest code blocks of a corpus (every Bash
// tool call shows its command), most of them a line of 150 bytes, and
// chroma's Bash lexer (lexers/embedded/bash.xml) runs at about 2 MB/s:
// each token tries up to 28 regexps. bashTokens, the Bash twin (twin.go),
// gives the same tokens from a hand-written scan of the same rules in the
// same order and the same state stack (root, and the string, paren, math, backticks and curly
// states pushed on it), for text where each rule is known to match as
// that scan does: valid UTF-8 without a carriage return, ASCII outside
// strings, comments, escapes and here-documents (regexp2's \w, \s, \d and
// \b are Unicode's, so a word, space or digit could run on into any other
// character), every single-quoted string closed and no backslash last
// (no rule takes those: chroma marks them as errors), no here-document
// whose word is so long, and left without its end, that chroma's time
// limit could cut the search short. Anything else hands the whole text to
// chroma. Chroma compiles every rule in multi-line mode, so the rules' $
// is the end of a line, and the Bash lexer does not add a final newline
// (no ensure_nl). TestBashLexerMatchesChroma compares the two on edge
// cases of each rule and on the corpus's shell commands, changed at
// random.
func bashTokens(text string) ([]chroma.Token, bool) {
	if strings.IndexByte(text, '\r') >= 0 || !utf8.ValidString(text) {
		return nil, false
	}
	s := bashScan{newHandScan(text)}
	for s.pos < len(text) {
		var ok bool
		switch s.state() {
		case bashString:
			ok = s.str()
		case bashParen:
			ok = s.paren()
		case bashMath:
			ok = s.math()
		case bashBackticks:
			ok = s.backticks()
		case bashCurly:
			ok = s.curly()
		default:
			ok = s.root()
		}
		if !ok {
			return nil, false
		}
	}
	return s.tokens(), true
}

// str is the string state: a closing quote pops it; a run of escapes and
// characters other than ", \ and $; then interp's rules.
func (s *bashScan) str() bool {
	c := s.text[s.pos]
	if c == '"' {
		s.emit(chroma.LiteralStringDouble, s.pos+1)
		s.pop()
		return true
	}
	// (\\\\|\\[0-7]+|\\.|[^"\\$])+ , dot matching newlines: a backslash
	// takes the character after it, whatever it is.
	end := s.pos
	for end < len(s.text) {
		c := s.text[end]
		if c == '"' || c == '$' {
			break
		}
		if c == '\\' {
			if end+1 >= len(s.text) {
				break
			}
			_, size := utf8.DecodeRuneInString(s.text[end+1:])
			end += 1 + size
			continue
		}
		end++
	}
	if end > s.pos {
		s.emit(chroma.LiteralStringDouble, end)
		return true
	}
	if c == '$' {
		return s.interp()
	}
	return false // a backslash last: no rule takes it
}

// paren is the paren state: ")" pops it, else root's rules.
func (s *bashScan) paren() bool {
	if s.text[s.pos] == ')' {
		s.emit(chroma.Keyword, s.pos+1)
		s.pop()
		return true
	}
	return s.root()
}

// backticks is the backticks state: "`" pops it, else root's rules.
func (s *bashScan) backticks() bool {
	if s.text[s.pos] == '`' {
		s.emit(chroma.LiteralStringBacktick, s.pos+1)
		s.pop()
		return true
	}
	return s.root()
}

// math is the math state: "))" pops it; one-character operators (the
// rule's \*\* and \|\| come after [-+*/%^|&], which takes their first
// character); numbers with a base or without; then root's rules.
func (s *bashScan) math() bool {
	text, pos := s.text, s.pos
	c := text[pos]
	switch {
	case c == ')' && s.src.at(pos+1) == ')':
		s.emit(chroma.Keyword, pos+2)
		s.pop()
		return true
	case strings.IndexByte("-+*/%^|&", c) >= 0:
		s.emit(chroma.Operator, pos+1)
		return true
	case isDigit(c):
		// \d+#\d+ , \d+#(?! ) , \d+ : each \d+ the whole run of digits,
		// which a Unicode digit would carry on.
		d := s.src.run(pos, isDigit)
		if s.src.at(d) >= utf8.RuneSelf {
			return false
		}
		if s.src.at(d) == '#' {
			next := s.src.at(d + 1)
			if next >= utf8.RuneSelf {
				return false
			}
			if e := s.src.run(d+1, isDigit); e > d+1 {
				if s.src.at(e) >= utf8.RuneSelf {
					return false
				}
				s.emit(chroma.LiteralNumber, e)
				return true
			}
			if next != ' ' {
				s.emit(chroma.LiteralNumber, d+1)
				return true
			}
		}
		s.emit(chroma.LiteralNumber, d)
		return true
	}
	return s.root()
}

// curly is the curly state (a ${...}): "}" pops it; ":-"; a word; a run
// of characters other than }:"'`$\ (words, spaces and any Unicode among
// them: the class names only ASCII); ":"; then root's rules, which only
// those five characters reach.
func (s *bashScan) curly() bool {
	text, pos := s.text, s.pos
	c := text[pos]
	switch {
	case c == '}':
		s.emit(chroma.LiteralStringInterpol, pos+1)
		s.pop()
		return true
	case c == ':' && s.src.at(pos+1) == '-':
		s.emit(chroma.Keyword, pos+2)
		return true
	case c >= utf8.RuneSelf:
		return false // \w+ or the run: a Unicode word or not
	case isGoWord(c):
		end := s.src.run(pos, isGoWord)
		if s.src.at(end) >= utf8.RuneSelf {
			return false
		}
		s.emit(chroma.NameVariable, end)
		return true
	case strings.IndexByte("}:\"'`$\\", c) < 0:
		end := pos + 1
		for end < len(text) && strings.IndexByte("}:\"'`$\\", text[end]) < 0 {
			end++
		}
		s.emit(chroma.Punctuation, end)
		return true
	case c == ':':
		s.emit(chroma.Punctuation, pos+1)
		return true
	}
	return s.root()
}

// wordBefore reports whether the character before pos is a word's, as
// regexp2's \b sees it; ok is false when that is a Unicode character.
func (s *bashScan) wordBefore(pos int) (word, ok bool) {
	if pos == 0 {
		return false, true
	}
	c := s.text[pos-1]
	if c >= utf8.RuneSelf {
		return false, false
	}
	return isGoWord(c), true
}

// root is the root state's rules at pos, in their order: basic's, the
// backtick, data's, interp's.
func (s *bashScan) root() bool {
	c := s.text[s.pos]
	if c >= utf8.RuneSelf {
		return false // a Unicode word, space, digit or other: the classes
	}
	if isGoWord(c) {
		return s.word(c)
	}
	switch c {
	case '#':
		s.comment()
		return true
	case '\\':
		return s.escape()
	case '[', ']', '{', '}', '(', ')', '=':
		s.emit(chroma.Operator, s.pos+1)
		return true
	case '<':
		return s.redirect()
	case '&', '|':
		if s.src.at(s.pos+1) == c {
			s.emit(chroma.Operator, s.pos+2)
		} else {
			s.emit(chroma.Punctuation, s.pos+1)
		}
		return true
	case '`':
		s.emit(chroma.LiteralStringBacktick, s.pos+1)
		s.push(bashBackticks)
		return true
	case '"':
		s.doubleQuote()
		return true
	case '$':
		return s.dollar()
	case '\'':
		// '.*?' , dot matching newlines: to the next quote; none, no
		// rule.
		end := strings.IndexByte(s.text[s.pos+1:], '\'')
		if end < 0 {
			return false
		}
		s.emit(chroma.LiteralStringSingle, s.pos+1+end+1)
		return true
	case ';':
		s.emit(chroma.Punctuation, s.pos+1)
		return true
	}
	if isBashSpace(c) {
		s.emit(chroma.Text, s.src.run(s.pos, isBashSpace))
		return true
	}
	s.emit(chroma.Text, s.textRun(s.pos))
	return true
}

// word is root's rules at a word character: a keyword, a builtin, an
// assignment, a number, else the text rule's run.
func (s *bashScan) word(c byte) bool {
	text, pos, src := s.text, s.pos, s.src
	end := src.run(pos, isGoWord)
	if src.at(end) >= utf8.RuneSelf {
		return false // \w+ could go on
	}
	prevWord, ok := s.wordBefore(pos)
	if !ok {
		return false
	}
	// The keyword, builtin and assignment rules start with \b, here
	// a word after a character not of one; each word ends where the
	// run of word characters does (the keyword rule asks for \b after
	// it, the builtin one for a space, ")" or "`").
	if !prevWord {
		w := text[pos:end]
		if bashKeywords[w] {
			// (\s*)\b takes the spaces after the word when a word
			// follows them, else none: both as Text, as \s+ would
			// take them next.
			s.emit(chroma.Keyword, end)
			return true
		}
		if next := src.at(end); bashBuiltins[w] && (isBashSpace(next) || next == ')' || next == '`') {
			s.emit(chroma.NameBuiltin, end)
			return true
		}
		if done, ok := s.assignment(end); done || !ok {
			return ok
		}
	}
	// \d+(?= |$) : the run of digits before a space, a newline or
	// the end.
	if isDigit(c) {
		d := src.run(pos, isDigit)
		if next := src.at(d); d == len(text) || next == ' ' || next == '\n' {
			s.emit(chroma.LiteralNumber, d)
			return true
		}
	}
	s.emit(chroma.Text, s.textRun(pos))
	return true
}

// assignment is the rule (\b\w+)(\s*)(\+?=) for the word from pos to end:
// done when it matches, ok false when a Unicode space could make \s* run
// on.
func (s *bashScan) assignment(end int) (done, ok bool) {
	src := s.src
	sp := src.run(end, isBashSpace)
	if src.at(sp) >= utf8.RuneSelf {
		return false, false // \s* could go on
	}
	op := 0
	if src.at(sp) == '=' {
		op = 1
	} else if src.at(sp) == '+' && src.at(sp+1) == '=' {
		op = 2
	}
	if op == 0 {
		return false, true
	}
	s.emit(chroma.NameVariable, end)
	if sp > end {
		s.emit(chroma.Text, sp)
	}
	s.emit(chroma.Operator, sp+op)
	return true, true
}

// comment is the rules \A#!.+\n , then #.*(\S|$) : to the end of the line
// (.* takes all but the newline, where $ matches).
func (s *bashScan) comment() {
	text, pos := s.text, s.pos
	nl := strings.IndexByte(text[pos:], '\n')
	if pos == 0 && strings.HasPrefix(text, "#!") && len(text) > 2 && text[2] != '\n' && nl >= 0 {
		s.emit(chroma.CommentPreproc, nl+1)
		return
	}
	if nl < 0 {
		s.emit(chroma.CommentSingle, len(text))
	} else {
		s.emit(chroma.CommentSingle, pos+nl)
	}
}

// escape is the rule \\[\w\W] : a backslash and any character; none after
// it, no rule.
func (s *bashScan) escape() bool {
	pos := s.pos
	if pos+1 >= len(s.text) {
		return false
	}
	_, size := utf8.DecodeRuneInString(s.text[pos+1:])
	s.emit(chroma.LiteralStringEscape, pos+1+size)
	return true
}

// redirect is root's rules at a "<": "<<<", a here-document, else the "<"
// as Text.
func (s *bashScan) redirect() bool {
	pos := s.pos
	if strings.HasPrefix(s.text[pos:], "<<<") {
		s.emit(chroma.Operator, pos+3)
		return true
	}
	end, ok := s.heredoc(pos)
	if !ok {
		return false
	}
	if end > 0 {
		s.emit(chroma.LiteralString, end)
		return true
	}
	s.emit(chroma.Text, pos+1)
	return true
}

// doubleQuote is root's rules at a '"': the whole string when it has no
// "$" (data's rule), else its quote, pushing the string state.
func (s *bashScan) doubleQuote() {
	if end := s.quoted(s.pos+1, '"'); end > 0 {
		s.emit(chroma.LiteralStringDouble, end)
		return
	}
	s.emit(chroma.LiteralStringDouble, s.pos+1)
	s.push(bashString)
}

// dollar is root's rules at a "$": a $"..." or $'...' string, else
// interp's.
func (s *bashScan) dollar() bool {
	pos := s.pos
	switch s.src.at(pos + 1) {
	case '"':
		if end := s.quoted(pos+2, '"'); end > 0 {
			s.emit(chroma.LiteralStringDouble, end)
			return true
		}
	case '\'':
		if end := s.quoted(pos+2, '\''); end > 0 {
			s.emit(chroma.LiteralStringSingle, end)
			return true
		}
	}
	return s.interp()
}

// textRun is the end of the text rule's run from pos, which it takes
// whole: at a Unicode character it stops, and the scan gives up there.
func (s *bashScan) textRun(pos int) int {
	end := pos + 1
	for end < len(s.text) && s.text[end] < utf8.RuneSelf && !bashTextStop[s.text[end]] {
		end++
	}
	return end
}

// quoted matches the rest of the data state's strings from i (after the
// opening quote q): \$?"(\\\\|\\[0-7]+|\\.|[^"\\$])*" for q == '"',
// \$'(\\\\|\\[0-7]+|\\.|[^'\\])*' for a single quote. A backslash takes the
// character after it (every alternative starting with one takes at least
// that, none takes a backslash alone), so the string ends at the first
// quote not taken so; a "$" not taken so ends a double-quoted one without
// a match, as does the end of the text. It returns the end, 0 for none.
func (s *bashScan) quoted(i int, q byte) int {
	text := s.text
	for ; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++ // the rest of a Unicode character is none of \ " ' $
		case q:
			return i + 1
		case '$':
			if q == '"' {
				return 0
			}
		}
	}
	return 0
}

// heredoc matches <<-?\s*(\'?)\\?(\w+)[\w\W]+?\2 at pos: up to the first
// copy of the word that starts a character or more after it, the word \w+
// took or, when there is none, each shorter start of it in turn (the only
// backtracking that can help: the optional parts and the spaces cannot
// start a word). end is 0 when it does not match; ok false when a Unicode
// character could make the word or the spaces run on.
func (s *bashScan) heredoc(pos int) (end int, ok bool) {
	text, src := s.text, s.src
	if src.at(pos+1) != '<' {
		return 0, true
	}
	q := pos + 2
	if src.at(q) == '-' {
		q++
	}
	q = src.run(q, isBashSpace)
	if src.at(q) == '\'' {
		q++
	}
	if src.at(q) == '\\' {
		q++
	}
	w := src.run(q, isGoWord)
	if src.at(w) >= utf8.RuneSelf {
		return 0, false
	}
	for k := w; k > q; k-- {
		if k+1 > len(text) {
			continue // [\w\W]+? has no character to take
		}
		if i := strings.Index(text[k+1:], text[q:k]); i >= 0 {
			return k + 1 + i + (k - q), true
		}
		// regexp2 tries the word at each character to the end, then
		// again for each shorter start of it: on a long word left
		// without its end, chroma's time limit for a match (250 ms,
		// after which the rule does not match) could come first.
		if (w-k+1)*(len(text)-k) > 1<<18 {
			return 0, false
		}
	}
	return 0, true
}

// interp is the interp state's rules at a "$": $(( and $( push math and
// paren, ${ (and ${#) curly; a variable's name, digits or special
// character; else the "$" alone.
func (s *bashScan) interp() bool {
	text, pos, src := s.text, s.pos, s.src
	switch next := src.at(pos + 1); {
	case strings.HasPrefix(text[pos:], "$(("):
		s.emit(chroma.Keyword, pos+3)
		s.push(bashMath)
	case next == '(':
		s.emit(chroma.Keyword, pos+2)
		s.push(bashParen)
	case next == '{':
		end := pos + 2
		if src.at(end) == '#' {
			end++
		}
		s.emit(chroma.LiteralStringInterpol, end)
		s.push(bashCurly)
	case next == '_' || 'a' <= next && next <= 'z' || 'A' <= next && next <= 'Z':
		// \$[a-zA-Z_]\w*
		end := src.run(pos+1, isGoWord)
		if src.at(end) >= utf8.RuneSelf {
			return false
		}
		s.emit(chroma.NameVariable, end)
	case next >= utf8.RuneSelf:
		return false // \$\d+ : a Unicode digit would do
	case isDigit(next):
		end := src.run(pos+1, isDigit)
		if src.at(end) >= utf8.RuneSelf {
			return false
		}
		s.emit(chroma.NameVariable, end)
	case strings.IndexByte("#$?!_*@-", next) >= 0:
		s.emit(chroma.NameVariable, pos+2)
	default:
		s.emit(chroma.Text, pos+1)
	}
	return true
}
