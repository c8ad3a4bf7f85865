package markup

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// goWords are the words of the Go lexer's rules, each with the rules it
// is a word of.
var goWords = func() map[string]uint8 {
	m := map[string]uint8{}
	for kind, words := range [...][]string{
		goNamespace:   {"import", "package"},
		goDeclaration: {"var", "func", "struct", "map", "chan", "type", "interface", "const"},
		goKeyword:     {"break", "default", "select", "case", "defer", "go", "else", "goto", "switch", "fallthrough", "if", "range", "continue", "for", "return"},
		goConstant:    {"true", "false", "iota", "nil"},
		goBuiltin:     {"uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "float", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool", "error", "uintptr", "print", "println", "panic", "recover", "close", "complex", "real", "imag", "len", "cap", "append", "copy", "delete", "new", "make", "clear", "min", "max"},
		goType:        {"uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "float", "float32", "float64", "complex64", "complex128", "byte", "rune", "string", "bool", "error", "uintptr", "any"},
	} {
		for _, w := range words {
			m[w] |= 1 << kind
		}
	}
	return m
}()

// The word rules, in their order.
const (
	goNamespace = iota
	goDeclaration
	goKeyword
	goConstant
	goBuiltin // before "("
	goType
)

// goOperators in the rule's order: the first that matches is taken.
var goOperators = []string{"<<=", ">>=", "<<", ">>", "<=", ">=", "&^=", "&^", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "&&", "||", "<-", "++", "--", "==", "!=", ":=", "...", "+", "-", "*", "/", "%", "&"}

func isGoSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' }
func isGoWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isOctal(c byte) bool    { return '0' <= c && c <= '7' }
func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// goTokens is the Go twin (twin.go): chroma's Go lexer (lexers/go.go)
// runs its rules as regexps at every token, about 9 MB/s, and Go source is
// the commonest code a corpus build highlights (file reads, edits,
// writes). It gives the same tokens from a hand-written scan of the same
// rules in the same order, for text where each rule is known to match as
// that scan does: valid UTF-8 without a carriage return, ASCII outside
// comments, strings and character literals, every string closed. Anything
// else (a character no rule takes, which chroma marks as an error; a
// string left open, where the regexp backtracks; a word or space a
// Unicode class could read differently) hands the whole text to chroma.
// The insides of a raw string go to raw (chroma's Go template lexer, its
// Other tokens strings, as the rule has it); ok is false when raw fails.
// TestGoLexerMatchesChroma compares the two on Go's own sources, changed
// at random, and on edge cases.
func goTokens(text string, raw func(string) ([]chroma.Token, bool)) ([]chroma.Token, bool) {
	if strings.IndexByte(text, '\r') >= 0 || !utf8.ValidString(text) {
		return nil, false
	}
	s := goScan{text: text, src: goSrc(text), toks: make([]handTok, 0, len(text)/4+1), raw: raw}
	for s.pos < len(text) {
		c := text[s.pos]
		if c >= utf8.RuneSelf {
			return nil, false // a Unicode word or space: chroma's classes
		}
		done, giveUp := s.spaceOrComment(c)
		if !done && !giveUp {
			done, giveUp = s.word(c)
		}
		if !done && !giveUp {
			done = s.number(c)
		}
		if !done && !giveUp {
			done, giveUp = s.literal(c)
		}
		if !done && !giveUp {
			done, giveUp = s.name(c)
		}
		if !done && !giveUp {
			done = s.operator(c)
		}
		if giveUp || !done {
			return nil, false // no rule: chroma's error token
		}
	}
	out := make([]chroma.Token, len(s.toks))
	for i, t := range s.toks {
		out[i] = chroma.Token{Type: t.t, Value: text[t.start:t.end]}
	}
	return out, true
}

// goScan is a scan of a text through the Go lexer's rules: the tokens so
// far (as spans of the text) and where the scan is. Its steps below each
// try a group of rules at pos, in the rules' order, and report whether
// one took the text there (done) and whether the scan must hand the whole
// text to chroma (giveUp).
type goScan struct {
	text string
	src  goSrc
	toks []handTok
	pos  int
	raw  func(string) ([]chroma.Token, bool)
}

// emit takes text[pos:end] as a token of type t, coalesced as
// chroma.Coalesce does.
func (s *goScan) emit(t chroma.TokenType, end int) {
	if n := len(s.toks); n > 0 && s.toks[n-1].t == t {
		s.toks[n-1].end = end
	} else {
		s.toks = append(s.toks, handTok{t, s.pos, end})
	}
	s.pos = end
}

// spaceOrComment is the rules of spaces and comments: a newline, a run of
// spaces, a line comment (a preprocessor one when a non-space follows
// "//"), a block comment.
func (s *goScan) spaceOrComment(c byte) (done, giveUp bool) {
	text, pos, src := s.text, s.pos, s.src
	switch {
	case c == '\n':
		s.emit(chroma.TextWhitespace, pos+1)
		return true, false
	case isGoSpace(c):
		end := src.run(pos, isGoSpace)
		if src.at(end) >= utf8.RuneSelf {
			return false, true // \s+ could go on
		}
		s.emit(chroma.TextWhitespace, end)
		return true, false
	case c == '/' && src.at(pos+1) == '/':
		next := src.at(pos + 2)
		if next >= utf8.RuneSelf {
			return false, true
		}
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		if pos+2 < len(text) && !isGoSpace(next) {
			s.emit(chroma.CommentPreproc, end)
		} else {
			s.emit(chroma.CommentSingle, end)
		}
		return true, false
	case c == '/':
		// /(\\\n)?[*](.|\n)*?[*](\\\n)?/ : the first end.
		q := pos + 1
		if strings.HasPrefix(text[q:], "\\\n") {
			q += 2
		}
		if src.at(q) != '*' {
			return false, false
		}
		for k := q + 1; k < len(text); k++ {
			if text[k] != '*' {
				continue
			}
			if src.at(k+1) == '/' {
				s.emit(chroma.CommentMultiline, k+2)
				return true, false
			}
			if strings.HasPrefix(text[k+1:], "\\\n/") {
				s.emit(chroma.CommentMultiline, k+4)
				return true, false
			}
		}
	}
	return false, false
}

// word is the rules of words: the word from pos on, which the \b after
// each rule's words asks to be whole, as a keyword, a constant, a builtin
// called or a type.
func (s *goScan) word(c byte) (done, giveUp bool) {
	if !isGoWord(c) {
		return false, false
	}
	pos, src := s.pos, s.src
	end := src.run(pos, isGoWord)
	if src.at(end) >= utf8.RuneSelf {
		return false, true
	}
	kinds := goWords[s.text[pos:end]]
	switch {
	case kinds == 0:
		return false, false
	case kinds&(1<<goNamespace) != 0:
		s.emit(chroma.KeywordNamespace, end)
	case kinds&(1<<goDeclaration) != 0:
		s.emit(chroma.KeywordDeclaration, end)
	case kinds&(1<<goKeyword) != 0:
		s.emit(chroma.Keyword, end)
	case kinds&(1<<goConstant) != 0:
		s.emit(chroma.KeywordConstant, end)
	case kinds&(1<<goBuiltin) != 0 && src.at(end) == '(':
		s.emit(chroma.NameBuiltin, end)
		s.emit(chroma.Punctuation, end+1)
	case kinds&(1<<goType) != 0:
		s.emit(chroma.KeywordType, end)
	default:
		return false, false
	}
	return true, false
}

// number is the rules of numbers, in their order (goNumber).
func (s *goScan) number(c byte) (done bool) {
	if !isDigit(c) && c != '.' {
		return false
	}
	if t, end := goNumber(s.src, s.pos); end > s.pos {
		s.emit(t, end)
		return true
	}
	return false
}

// literal is the rules of a character literal, a raw string and a
// string; any of them that does not match gives up.
func (s *goScan) literal(c byte) (done, giveUp bool) {
	switch c {
	case '\'':
		if end := goChar(s.text, s.pos); end > 0 {
			s.emit(chroma.LiteralStringChar, end)
			return true, false
		}
		return false, true
	case '`':
		return s.rawString()
	case '"':
		return s.str()
	}
	return false, false
}

// rawString is the raw string rule: its quotes as strings, its insides
// as raw gives them, each of whose tokens must be the next part of them.
func (s *goScan) rawString() (done, giveUp bool) {
	text, pos := s.text, s.pos
	end := strings.IndexByte(text[pos+1:], '`')
	if end < 0 {
		return false, true
	}
	end += pos + 1
	s.emit(chroma.LiteralString, pos+1)
	if end > s.pos {
		inside, ok := s.raw(text[s.pos:end])
		if !ok {
			return false, true
		}
		for _, t := range inside {
			if !strings.HasPrefix(text[s.pos:end], t.Value) {
				return false, true
			}
			if t.Value != "" {
				s.emit(t.Type, s.pos+len(t.Value))
			}
		}
		if s.pos != end {
			return false, true
		}
	}
	s.emit(chroma.LiteralString, end+1)
	return true, false
}

// str is the string rule "(\\\\|\\"|[^"])*" : closed at the first quote
// not escaped. One left open is matched by backtracking: chroma's.
func (s *goScan) str() (done, giveUp bool) {
	text, src := s.text, s.src
	for k := s.pos + 1; k < len(text); k++ {
		if text[k] == '\\' && (src.at(k+1) == '\\' || src.at(k+1) == '"') {
			k++
			continue
		}
		if text[k] == '"' {
			s.emit(chroma.LiteralString, k+1)
			return true, false
		}
	}
	return false, true
}

// name is the rules of names: ([a-zA-Z_]\w*)(\s*)(\() , a function
// called, or [^\W\d]\w* ; the word was checked (word) to end before any
// Unicode.
func (s *goScan) name(c byte) (done, giveUp bool) {
	if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false, false
	}
	src := s.src
	end := src.run(s.pos, isGoWord)
	sp := src.run(end, isGoSpace)
	if src.at(sp) >= utf8.RuneSelf {
		return false, true
	}
	if src.at(sp) == '(' {
		s.emit(chroma.NameFunction, end)
		if sp > end {
			s.emit(chroma.TextWhitespace, sp)
		}
		s.emit(chroma.Punctuation, sp+1)
		return true, false
	}
	s.emit(chroma.NameOther, end)
	return true, false
}

// operator is the rules of operators and punctuation. The operators' rule
// comes before name's and word's in chroma's order, but no operator
// starts with a letter or "_".
func (s *goScan) operator(c byte) (done bool) {
	if op := goOperator(s.text[s.pos:]); op > 0 {
		s.emit(chroma.Operator, s.pos+op)
		return true
	}
	if strings.IndexByte("|^<>=!()[]{}.,;:~", c) >= 0 {
		s.emit(chroma.Punctuation, s.pos+1)
		return true
	}
	return false
}

// goSrc is a text being scanned.
type goSrc string

// at is the byte at i, 0 past the end.
func (s goSrc) at(i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// run is the end of the run of bytes from i on that ok takes.
func (s goSrc) run(i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

// exponent is the end of [eE][+\-]?\d+ at i (the sign optional when
// optSign, else required), or -1.
func (s goSrc) exponent(i int, optSign bool) int {
	if c := s.at(i); c != 'e' && c != 'E' {
		return -1
	}
	i++
	if c := s.at(i); c == '+' || c == '-' {
		i++
	} else if !optSign {
		return -1
	}
	if end := s.run(i, isDigit); end > i {
		return end
	}
	return -1
}

// goNumber matches the Go lexer's number rules at pos, in their order:
// the token and its end, end == pos when none does.
func goNumber(text goSrc, pos int) (chroma.TokenType, int) {
	digits := text.run(pos, isDigit) // end of \d+ from pos (pos if none)
	if digits > pos {
		// \d+i
		if text.at(digits) == 'i' {
			return chroma.LiteralNumber, digits + 1
		}
		// \d+\.\d*([Ee][-+]\d+)?i
		if text.at(digits) == '.' {
			frac := text.run(digits+1, isDigit)
			if e := text.exponent(frac, false); e > 0 && text.at(e) == 'i' {
				return chroma.LiteralNumber, e + 1
			}
			if text.at(frac) == 'i' {
				return chroma.LiteralNumber, frac + 1
			}
		}
	}
	// \.\d+([Ee][-+]\d+)?i
	if text[pos] == '.' {
		if frac := text.run(pos+1, isDigit); frac > pos+1 {
			if e := text.exponent(frac, false); e > 0 && text.at(e) == 'i' {
				return chroma.LiteralNumber, e + 1
			}
			if text.at(frac) == 'i' {
				return chroma.LiteralNumber, frac + 1
			}
		}
	}
	if digits > pos {
		// \d+[Ee][-+]\d+i
		if e := text.exponent(digits, false); e > 0 && text.at(e) == 'i' {
			return chroma.LiteralNumber, e + 1
		}
		// \d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)
		if text.at(digits) == '.' {
			if frac := text.run(digits+1, isDigit); frac > digits+1 {
				if e := text.exponent(frac, true); e > 0 {
					return chroma.LiteralNumberFloat, e
				}
			}
			return chroma.LiteralNumberFloat, text.run(digits+1, isDigit)
		}
		if e := text.exponent(digits, true); e > 0 {
			return chroma.LiteralNumberFloat, e
		}
	}
	// \.\d+([eE][+\-]?\d+)?
	if text[pos] == '.' {
		if frac := text.run(pos+1, isDigit); frac > pos+1 {
			if e := text.exponent(frac, true); e > 0 {
				return chroma.LiteralNumberFloat, e
			}
			return chroma.LiteralNumberFloat, frac
		}
		return chroma.Text, pos
	}
	if text[pos] == '0' {
		// 0[0-7]+
		if end := text.run(pos+1, isOctal); end > pos+1 {
			return chroma.LiteralNumberOct, end
		}
		// 0[xX][0-9a-fA-F_]+
		if c := text.at(pos + 1); c == 'x' || c == 'X' {
			if end := text.run(pos+2, func(c byte) bool { return isHexDigit(c) || c == '_' }); end > pos+2 {
				return chroma.LiteralNumberHex, end
			}
		}
		// 0b[01_]+
		if text.at(pos+1) == 'b' {
			if end := text.run(pos+2, func(c byte) bool { return c == '0' || c == '1' || c == '_' }); end > pos+2 {
				return chroma.LiteralNumberBin, end
			}
		}
		// (0|[1-9][0-9_]*)
		return chroma.LiteralNumberInteger, pos + 1
	}
	return chroma.LiteralNumberInteger, text.run(pos+1, func(c byte) bool { return isDigit(c) || c == '_' })
}

// goChar matches the Go lexer's character rule at pos:
// '(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'
// and returns its end, 0 when it does not match.
func goChar(text string, pos int) int {
	s := text[pos+1:]
	closed := func(n int) int {
		if n < len(s) && s[n] == '\'' {
			return pos + 1 + n + 1
		}
		return 0
	}
	hex := func(from, n int) bool {
		if len(s) < from+n {
			return false
		}
		for _, c := range []byte(s[from : from+n]) {
			if !isHexDigit(c) {
				return false
			}
		}
		return true
	}
	if len(s) == 0 {
		return 0
	}
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0
		}
		if strings.IndexByte(`'"\abfnrtv`, s[1]) >= 0 {
			if end := closed(2); end > 0 {
				return end
			}
		}
		if s[1] == 'x' && hex(2, 2) {
			if end := closed(4); end > 0 {
				return end
			}
		}
		// \\[0-7]{1,3}, greedy, then backing off.
		n := 0
		for n < 3 && 1+n < len(s) && isOctal(s[1+n]) {
			n++
		}
		for ; n >= 1; n-- {
			if end := closed(1 + n); end > 0 {
				return end
			}
		}
		if s[1] == 'u' && hex(2, 4) {
			if end := closed(6); end > 0 {
				return end
			}
		}
		if s[1] == 'U' && hex(2, 8) {
			if end := closed(10); end > 0 {
				return end
			}
		}
		return 0
	}
	_, size := utf8.DecodeRuneInString(s)
	return closed(size)
}

// goOperator is the length of the Go lexer's operator rule's match at the
// start of s, 0 for none.
func goOperator(s string) int {
	if strings.IndexByte("<>&+-*/%|:=!.", s[0]) < 0 {
		return 0
	}
	for _, op := range goOperators {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	return 0
}
