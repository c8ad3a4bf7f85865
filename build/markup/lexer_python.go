package markup

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// The kinds of word the Python lexer's word rules know, as bits.
const (
	pyRootKeyword  = 1 << iota // root's keywords rule
	pyConstant                 // False, True, None
	pyOperatorWord             // in, is, and, or, not
	pyExprKeyword              // expr-keywords' first rule
	pyBuiltin                  // the builtins, after no "."
	pyPseudo                   // self, cls, ..., after no "."
	pyException                // the exceptions, after no "."
	pyMagicFunc                // magicfuncs
	pyMagicVar                 // magicvars
)

// pyWords holds the kinds of each word of the rules, the lists as
// python.xml has them.
var pyWords = func() map[string]uint16 {
	m := map[string]uint16{}
	for kind, words := range map[uint16]string{
		pyRootKeyword:  "nonlocal|continue|finally|except|lambda|assert|global|return|raise|yield|while|break|await|async|pass|else|elif|with|try|for|del|as|if|match|case",
		pyConstant:     "False|True|None",
		pyOperatorWord: "in|is|and|or|not",
		pyExprKeyword:  "lambda|yield|await|else|for|if",
		pyBuiltin:      "staticmethod|classmethod|memoryview|__import__|issubclass|isinstance|frozenset|bytearray|enumerate|reversed|property|compile|complex|delattr|hasattr|setattr|globals|getattr|divmod|filter|locals|format|object|sorted|slice|print|bytes|range|input|tuple|round|super|float|eval|list|dict|repr|type|vars|hash|next|bool|open|iter|oct|pow|min|zip|max|map|bin|len|set|any|dir|all|abs|str|sum|chr|int|hex|ord|id",
		pyPseudo:       "self|Ellipsis|NotImplemented|cls",
		pyException:    "PendingDeprecationWarning|ConnectionAbortedError|ConnectionRefusedError|UnicodeTranslateError|ConnectionResetError|ModuleNotFoundError|NotImplementedError|FloatingPointError|StopAsyncIteration|UnicodeDecodeError|DeprecationWarning|UnicodeEncodeError|NotADirectoryError|ProcessLookupError|ZeroDivisionError|IsADirectoryError|FileNotFoundError|UnboundLocalError|KeyboardInterrupt|ChildProcessError|EnvironmentError|IndentationError|InterruptedError|BlockingIOError|ArithmeticError|ConnectionError|BrokenPipeError|FileExistsError|ResourceWarning|PermissionError|RuntimeWarning|ReferenceError|AttributeError|AssertionError|UnicodeWarning|RecursionError|StopIteration|BaseException|OverflowError|SyntaxWarning|FutureWarning|GeneratorExit|ImportWarning|UnicodeError|TimeoutError|WindowsError|RuntimeError|BytesWarning|SystemError|UserWarning|MemoryError|ImportError|LookupError|BufferError|SyntaxError|SystemExit|ValueError|IndexError|NameError|Exception|TypeError|TabError|EOFError|KeyError|VMSError|Warning|OSError|IOError",
		pyMagicFunc:    "__instancecheck__|__subclasscheck__|__getattribute__|__length_hint__|__rfloordiv__|__ifloordiv__|__itruediv__|__contains__|__floordiv__|__rtruediv__|__reversed__|__setitem__|__complex__|__rdivmod__|__delattr__|__rmatmul__|__ilshift__|__prepare__|__delitem__|__rrshift__|__imatmul__|__rlshift__|__setattr__|__truediv__|__getitem__|__missing__|__getattr__|__irshift__|__rshift__|__format__|__invert__|__matmul__|__divmod__|__delete__|__aenter__|__lshift__|__await__|__bytes__|__anext__|__aiter__|__aexit__|__round__|__float__|__enter__|__index__|__iadd__|__ipow__|__rpow__|__iter__|__init__|__ixor__|__rmul__|__rmod__|__imul__|__imod__|__iand__|__hash__|__rsub__|__exit__|__rxor__|__bool__|__call__|__rand__|__next__|__radd__|__isub__|__repr__|__set__|__add__|__new__|__neg__|__xor__|__and__|__mul__|__mod__|__sub__|__len__|__str__|__ror__|__ior__|__pos__|__del__|__get__|__dir__|__abs__|__int__|__pow__|__eq__|__gt__|__le__|__lt__|__ne__|__or__|__ge__",
		pyMagicVar:     "__annotations__|__kwdefaults__|__qualname__|__objclass__|__defaults__|__closure__|__globals__|__weakref__|__module__|__class__|__bases__|__slots__|__file__|__code__|__name__|__func__|__dict__|__self__|__mro__|__doc__",
	} {
		for _, w := range strings.Split(words, "|") {
			m[w] |= kind
		}
	}
	return m
}()

// The states of the Python lexer a scan can be in. A string's state is
// pyString plus its kind (the escape rules chroma combines with it) times
// four, plus two for a double quote, plus one for a triple one.
const (
	pyRoot       = iota
	pyFuncname   // after "def "
	pyClassname  // after "class "
	pyFromImport // after "from "
	pyImport     // after "import "
	pyFExpr      // expr-inside-fstring: after an f-string's "{"
	pyFExprInner // expr-inside-fstring-inner: in brackets there
	pyString     = 8
)

// The kinds of string: raw (r, rb, br: no escape state), plain (u, b or no
// prefix: stringescape), f (fstringescape) and rf (rfstringescape).
const (
	pyRaw = iota
	pyPlain
	pyF
	pyRF
)

// pyStringStop and pyFStringStop hold the characters that end a run of a
// string's other characters: [^\\\'"%{\n]+ , and [^\\\'"{}\n]+ in an
// f-string.
var pyStringStop, pyFStringStop = func() (s, f [256]bool) {
	for _, c := range []byte("\\'\"%{\n") {
		s[c] = true
	}
	for _, c := range []byte("\\'\"{}\n") {
		f[c] = true
	}
	return s, f
}()

// isPySpace is regexp2's \s on ASCII.
func isPySpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// isPyNameStart is [_\p{L}] on ASCII.
func isPyNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// pyScan is a scan of the text (handScan) through the lexer's rules.
type pyScan struct{ handScan }

// Python is much of a corpus's code (whole .py files a tool read or
// wrote, ```python blocks), and chroma's Python lexer
// (lexers/embedded/python.xml) runs at about 2 MB/s: a token in the root
// state tries up to 49 regexps. pythonTokens, the Python twin (twin.go), gives the same
// tokens from a hand-written scan of the same rules in the same order and the same state stack
// (root; funcname, classname, fromimport and import after def, class,
// from and import; a string state for each prefix, quote and triple
// quote, with the escape rules chroma combines with it; the two states of
// an f-string's {expression}), for text where each rule is known to match
// as that scan does: valid UTF-8 without a carriage return, ASCII outside
// strings and comments (regexp2's \w, \s, \d and \b, and the rules'
// \p{L} and \p{N}, are Unicode's, so a name, space or digit could run on
// into any other character), ASCII where a string's %-format or {}-format
// rule reads a word or digits, and no character that no rule takes (a
// "$", "?" or lone "!" in code, a "#" or "\" in an f-string's expression:
// chroma marks those as errors). Anything else hands the whole text to
// chroma, as does the rare text holding {,2} before three quotes:
// regexp2 reads the root state's docstring rules' [rRuUbB]{,2} as a
// letter and those four characters, not a count, so they match only there
// (a docstring is otherwise a string). Chroma compiles every rule in
// multi-line mode, so $ is the end of a line; the Python lexer does not
// add a final newline (no ensure_nl). A newline that no rule of a one-line
// string takes empties the state stack back to root, as chroma does.
// TestPythonLexerMatchesChroma compares the two on edge cases of each
// rule, on the corpus's Python and on Python's own library, changed at
// random.
func pythonTokens(text string) ([]chroma.Token, bool) {
	if strings.IndexByte(text, '\r') >= 0 || strings.Contains(text, `{,2}"""`) || strings.Contains(text, "{,2}'''") ||
		!utf8.ValidString(text) {
		return nil, false
	}
	s := pyScan{newHandScan(text)}
	for s.pos < len(text) {
		var ok bool
		switch st := s.state(); st {
		case pyRoot:
			ok = s.root()
		case pyFuncname:
			ok = s.funcname()
		case pyClassname:
			ok = s.classname()
		case pyFromImport:
			ok = s.fromImport()
		case pyImport:
			ok = s.importState()
		case pyFExpr:
			ok = s.fexpr()
		case pyFExprInner:
			ok = s.fexprInner()
		default:
			ok = s.str(st - pyString)
		}
		if !ok {
			return nil, false
		}
	}
	return s.tokens(), true
}

// word is the end of the name [_\p{L}][_\p{L}\p{N}]* (or, from a digit,
// \w+) from pos; ok is false when a Unicode character could carry it on.
func (s *pyScan) word(pos int) (end int, ok bool) {
	end = s.src.run(pos, isGoWord)
	return end, s.src.at(end) < utf8.RuneSelf
}

// spaces is the end of the run of \s from pos; ok is false when a Unicode
// space could carry it on.
func (s *pyScan) spaces(pos int) (end int, ok bool) {
	end = s.src.run(pos, isPySpace)
	return end, s.src.at(end) < utf8.RuneSelf
}

// wordEnds reports whether a word ends at i (\b after a word character):
// ok is false when that is a Unicode character.
func (s *pyScan) wordEnds(i int) (ends, ok bool) {
	c := s.src.at(i)
	return !isGoWord(c), c < utf8.RuneSelf
}

// root is the root state's rules at pos, in their order: a newline, the
// comments, a backslash, the keywords, def, class, from and import, then
// expr's. (Its docstring rules match only at {,2} before three quotes,
// which no text scanned holds.)
func (s *pyScan) root() bool {
	text, pos, src := s.text, s.pos, s.src
	c := text[pos]
	switch {
	case c == '\n':
		s.emit(chroma.Text, pos+1)
		return true
	case c == '#':
		// \A#!.+$ , then #.*$ : to the end of the line.
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		if pos == 0 && src.at(1) == '!' && end > 2 {
			s.emit(chroma.CommentHashbang, end)
		} else {
			s.emit(chroma.CommentSingle, end)
		}
		return true
	case c == '\\':
		// \\\n , then \\
		if src.at(pos+1) == '\n' {
			s.emit(chroma.Text, pos+2)
		} else {
			s.emit(chroma.Text, pos+1)
		}
		return true
	case isPyNameStart(c):
		return s.rootWord()
	}
	return s.expr()
}

// rootWord is root's rules at a name: a string's prefix, the keywords
// (each word whole: \b after it), def, class, from and import before
// spaces (or escaped ones), then expr's word rules.
func (s *pyScan) rootWord() bool {
	text, pos := s.text, s.pos
	end, ok := s.word(pos)
	if !ok {
		return false
	}
	if q := s.src.at(end); q == '"' || q == '\'' {
		if kind, ok := pyPrefix(text[pos:end]); ok {
			return s.openString(kind, end)
		}
	}
	w := text[pos:end]
	kinds := pyWords[w]
	if w == "yield" {
		// (yield from|...)\b : "yield from" when a word ends after it.
		if strings.HasPrefix(text[end:], " from") {
			ends, ok := s.wordEnds(end + 5)
			if !ok {
				return false
			}
			if ends {
				s.emit(chroma.Keyword, end+5)
				return true
			}
		}
	}
	switch {
	case kinds&pyRootKeyword != 0:
		s.emit(chroma.Keyword, end)
		return true
	case kinds&pyConstant != 0:
		s.emit(chroma.KeywordConstant, end)
		return true
	}
	switch w {
	case "def", "class", "from", "import":
		// (def)((?:\s|\\\s)+) and the like.
		sp := end
		for {
			c := s.src.at(sp)
			if c == '\\' {
				c = s.src.at(sp + 1)
				if c >= utf8.RuneSelf {
					return false
				}
				if sp+1 < len(text) && isPySpace(c) {
					sp += 2
					continue
				}
				break
			}
			if c >= utf8.RuneSelf {
				return false
			}
			if sp >= len(text) || !isPySpace(c) {
				break
			}
			sp++
		}
		if sp == end {
			break
		}
		var kw chroma.TokenType
		var next uint8
		switch w {
		case "def":
			kw, next = chroma.Keyword, pyFuncname
		case "class":
			kw, next = chroma.Keyword, pyClassname
		case "from":
			kw, next = chroma.KeywordNamespace, pyFromImport
		default:
			kw, next = chroma.KeywordNamespace, pyImport
		}
		s.emit(kw, end)
		s.emit(chroma.Text, sp)
		s.push(next)
		return true
	}
	return s.exprWord(end)
}

// pyPrefix is the kind of string a prefix starts, if it is one.
func pyPrefix(p string) (kind uint8, ok bool) {
	switch strings.ToLower(p) {
	case "rf", "fr":
		return pyRF, true
	case "f":
		return pyF, true
	case "rb", "br", "r":
		return pyRaw, true
	case "u", "b":
		return pyPlain, true
	}
	return 0, false
}

// openString takes the prefix text[pos:end] (which may be empty) and the
// quotes after it: an affix and the quotes, then the string's state.
func (s *pyScan) openString(kind uint8, end int) bool {
	q := s.text[end]
	t, st := chroma.LiteralStringSingle, uint8(pyString+kind*4)
	if q == '"' {
		t, st = chroma.LiteralStringDouble, st+2
	}
	n := 1
	if s.src.at(end+1) == q && s.src.at(end+2) == q {
		n, st = 3, st+1
	}
	s.emit(chroma.LiteralStringAffix, end)
	s.emit(t, end+n)
	s.push(st)
	return true
}

// expr is the expr state's rules at pos, in their order (at a name, see
// exprWord): strings, spaces but newlines, numbers, operators,
// punctuation, the decorator rule and "@". Any other character no rule
// takes.
func (s *pyScan) expr() bool {
	text, pos, src := s.text, s.pos, s.src
	c := text[pos]
	if c >= utf8.RuneSelf {
		return false // a Unicode name, space or digit: the classes
	}
	switch {
	case c == '"' || c == '\'':
		return s.openString(pyPlain, pos)
	case isPyNameStart(c):
		end, ok := s.word(pos)
		if !ok {
			return false
		}
		if q := src.at(end); q == '"' || q == '\'' {
			if kind, ok := pyPrefix(text[pos:end]); ok {
				return s.openString(kind, end)
			}
		}
		return s.exprWord(end)
	case c != '\n' && isPySpace(c):
		// [^\S\n]+
		end := pos + 1
		for end < len(text) && text[end] != '\n' && isPySpace(text[end]) {
			end++
		}
		if src.at(end) >= utf8.RuneSelf {
			return false
		}
		s.emit(chroma.Text, end)
		return true
	case isDigit(c) || c == '.':
		t, end, ok := s.number(pos)
		if !ok {
			return false
		}
		if end > pos {
			s.emit(t, end)
			return true
		}
	}
	// !=|==|<<|>>|:=|[-~+/*%=<>&^|.]
	switch next := src.at(pos + 1); {
	case c == '!' && next == '=', c == '=' && next == '=', c == '<' && next == '<', c == '>' && next == '>', c == ':' && next == '=':
		s.emit(chroma.Operator, pos+2)
		return true
	case strings.IndexByte("-~+/*%=<>&^|.", c) >= 0:
		s.emit(chroma.Operator, pos+1)
		return true
	case strings.IndexByte("[]{}:(),;", c) >= 0:
		s.emit(chroma.Punctuation, pos+1)
		return true
	case c == '@':
		// @[_\p{L}][_\p{L}\p{N}]*(\s*\.\s*[_\p{L}][_\p{L}\p{N}]*)* , then @
		if next >= utf8.RuneSelf {
			return false
		}
		if !isPyNameStart(next) {
			s.emit(chroma.Operator, pos+1)
			return true
		}
		end, ok := s.word(pos + 1)
		if !ok {
			return false
		}
		for {
			dot, ok := s.spaces(end)
			if !ok {
				return false
			}
			if src.at(dot) != '.' {
				break
			}
			name, ok := s.spaces(dot + 1)
			if !ok {
				return false
			}
			if !isPyNameStart(src.at(name)) {
				break
			}
			if end, ok = s.word(name); !ok {
				return false
			}
		}
		s.emit(chroma.NameDecorator, end)
		return true
	}
	return false
}

// exprWord is expr's rules at the name text[pos:end] (not a string's
// prefix): the operator words, expr-keywords (with "yield from" and
// "async for"), the constants, the builtins, pseudo-builtins and
// exceptions when no "." comes before, the magic functions and
// variables, else a name. Each word is whole (\b after it).
func (s *pyScan) exprWord(end int) bool {
	text, pos := s.text, s.pos
	w := text[pos:end]
	kinds := pyWords[w]
	if w == "yield" || w == "async" {
		rest := " from"
		if w == "async" {
			rest = " for"
		}
		if strings.HasPrefix(text[end:], rest) {
			ends, ok := s.wordEnds(end + len(rest))
			if !ok {
				return false
			}
			if ends {
				s.emit(chroma.Keyword, end+len(rest))
				return true
			}
		}
	}
	afterDot := pos > 0 && text[pos-1] == '.'
	switch {
	case kinds&pyOperatorWord != 0:
		s.emit(chroma.OperatorWord, end)
	case kinds&pyExprKeyword != 0:
		s.emit(chroma.Keyword, end)
	case kinds&pyConstant != 0:
		s.emit(chroma.KeywordConstant, end)
	case !afterDot && kinds&pyBuiltin != 0:
		s.emit(chroma.NameBuiltin, end)
	case !afterDot && kinds&pyPseudo != 0:
		s.emit(chroma.NameBuiltinPseudo, end)
	case !afterDot && kinds&pyException != 0:
		s.emit(chroma.NameException, end)
	case kinds&pyMagicFunc != 0:
		s.emit(chroma.NameFunctionMagic, end)
	case kinds&pyMagicVar != 0:
		s.emit(chroma.NameVariableMagic, end)
	default:
		s.emit(chroma.Name, end)
	}
	return true
}

// digits is the end of \d(?:_?\d)* at i, i when there is none; ok is
// false when a Unicode digit could carry it on.
func (s *pyScan) digits(i int) (end int, ok bool) {
	src := s.src
	if !isDigit(src.at(i)) {
		return i, src.at(i) < utf8.RuneSelf
	}
	for i++; ; {
		switch c := src.at(i); {
		case isDigit(c):
			i++
		case c == '_' && isDigit(src.at(i+1)):
			i += 2
		case c >= utf8.RuneSelf, c == '_' && src.at(i+1) >= utf8.RuneSelf:
			return i, false
		default:
			return i, true
		}
	}
}

// exponent is the end of ([eE][+-]?\d(?:_?\d)*)? at i.
func (s *pyScan) exponent(i int) (end int, ok bool) {
	if c := s.src.at(i); c != 'e' && c != 'E' {
		return i, true
	}
	j := i + 1
	if c := s.src.at(j); c == '+' || c == '-' {
		j++
	}
	d, ok := s.digits(j)
	if !ok {
		return 0, false
	}
	if d == j {
		return i, true
	}
	return d, true
}

// number matches the numbers state's rules at pos, in their order: the
// token and its end, end == pos when none does.
func (s *pyScan) number(pos int) (t chroma.TokenType, end int, ok bool) {
	src := s.src
	d, ok := s.digits(pos) // \d(?:_?\d)* from pos, pos if none
	if !ok {
		return 0, 0, false
	}
	// (\d(?:_?\d)*\.(?:\d(?:_?\d)*)?|(?:\d(?:_?\d)*)?\.\d(?:_?\d)*)([eE][+-]?\d(?:_?\d)*)?
	if src.at(d) == '.' {
		f, ok := s.digits(d + 1)
		if !ok {
			return 0, 0, false
		}
		if d > pos || f > d+1 {
			if f, ok = s.exponent(f); !ok {
				return 0, 0, false
			}
			return chroma.LiteralNumberFloat, f, true
		}
	}
	if d == pos {
		return 0, pos, true // a "." alone
	}
	// \d(?:_?\d)*[eE][+-]?\d(?:_?\d)*j?
	e, ok := s.exponent(d)
	if !ok {
		return 0, 0, false
	}
	if e > d {
		if src.at(e) == 'j' {
			e++
		}
		return chroma.LiteralNumberFloat, e, true
	}
	// 0[oO](?:_?[0-7])+ , 0[bB](?:_?[01])+ , 0[xX](?:_?[a-fA-F0-9])+
	if src.at(pos) == '0' {
		var t chroma.TokenType
		var in func(byte) bool
		switch src.at(pos + 1) {
		case 'o', 'O':
			t, in = chroma.LiteralNumberOct, isOctal
		case 'b', 'B':
			t, in = chroma.LiteralNumberBin, func(c byte) bool { return c == '0' || c == '1' }
		case 'x', 'X':
			t, in = chroma.LiteralNumberHex, isHexDigit
		}
		if in != nil {
			i := pos + 2
			for {
				if in(src.at(i)) {
					i++
				} else if src.at(i) == '_' && in(src.at(i+1)) {
					i += 2
				} else {
					break
				}
			}
			if i > pos+2 {
				return t, i, true
			}
		}
	}
	// \d(?:_?\d)*
	return chroma.LiteralNumberInteger, d, true
}

// funcname is the funcname state: a magic function's name (the state
// kept), a name (popped), else popped.
func (s *pyScan) funcname() bool {
	pos := s.pos
	c := s.text[pos]
	if c >= utf8.RuneSelf {
		return false
	}
	if isPyNameStart(c) {
		end, ok := s.word(pos)
		if !ok {
			return false
		}
		if pyWords[s.text[pos:end]]&pyMagicFunc != 0 {
			s.emit(chroma.NameFunctionMagic, end)
			return true
		}
		s.emit(chroma.NameFunction, end)
	}
	s.pop()
	return true
}

// classname is the classname state: a name, popped; nothing else (no
// rule: chroma's error).
func (s *pyScan) classname() bool {
	if !isPyNameStart(s.text[s.pos]) {
		return false
	}
	end, ok := s.word(s.pos)
	if !ok {
		return false
	}
	s.emit(chroma.NameClass, end)
	s.pop()
	return true
}

// fromImport is the fromimport state: spaces and "import" (popped); ".";
// None (popped); a name; else popped.
func (s *pyScan) fromImport() bool {
	text, pos := s.text, s.pos
	c := text[pos]
	if c >= utf8.RuneSelf {
		return false
	}
	switch {
	case isPySpace(c):
		sp, ok := s.spaces(pos)
		if !ok {
			return false
		}
		if strings.HasPrefix(text[sp:], "import") {
			ends, ok := s.wordEnds(sp + 6)
			if !ok {
				return false
			}
			if ends {
				s.emit(chroma.Text, sp)
				s.emit(chroma.KeywordNamespace, sp+6)
				s.pop()
				return true
			}
		}
	case c == '.':
		s.emit(chroma.NameNamespace, pos+1)
		return true
	case isPyNameStart(c):
		end, ok := s.word(pos)
		if !ok {
			return false
		}
		if text[pos:end] == "None" {
			s.emit(chroma.NameBuiltinPseudo, end)
			s.pop()
			return true
		}
		s.emit(chroma.NameNamespace, end)
		return true
	}
	s.pop()
	return true
}

// importState is the import state: spaces, "as" and spaces; "."; a name;
// a comma between any spaces; else popped.
func (s *pyScan) importState() bool {
	text, pos := s.text, s.pos
	c := text[pos]
	if c >= utf8.RuneSelf {
		return false
	}
	sp, ok := s.spaces(pos)
	if !ok {
		return false
	}
	if sp > pos && strings.HasPrefix(text[sp:], "as") {
		end, ok := s.spaces(sp + 2)
		if !ok {
			return false
		}
		if end > sp+2 {
			s.emit(chroma.Text, sp)
			s.emit(chroma.Keyword, sp+2)
			s.emit(chroma.Text, end)
			return true
		}
	}
	switch {
	case c == '.':
		s.emit(chroma.NameNamespace, pos+1)
		return true
	case isPyNameStart(c):
		end, ok := s.word(pos)
		if !ok {
			return false
		}
		s.emit(chroma.NameNamespace, end)
		return true
	case s.src.at(sp) == ',':
		end, ok := s.spaces(sp + 1)
		if !ok {
			return false
		}
		s.emit(chroma.Text, sp)
		s.emit(chroma.Operator, sp+1)
		s.emit(chroma.Text, end)
		return true
	}
	s.pop()
	return true
}

// fexpr is the expr-inside-fstring state: an opening bracket pushes the
// inner state; "}" or ":", after an optional "=" and spaces and an
// optional conversion (!s, !r, !a, !f), pops it; spaces; then expr's
// rules.
func (s *pyScan) fexpr() bool {
	text, pos, src := s.text, s.pos, s.src
	switch c := text[pos]; c {
	case '{', '(', '[':
		s.emit(chroma.Punctuation, pos+1)
		s.push(pyFExprInner)
		return true
	case '=', '!', '}', ':':
		end := pos
		if c == '=' {
			var ok bool
			if end, ok = s.spaces(pos + 1); !ok {
				return false
			}
		}
		if src.at(end) == '!' && strings.IndexByte("sraf", src.at(end+1)) >= 0 && src.at(end+1) != 0 {
			end += 2
		}
		if c := src.at(end); end < len(text) && (c == '}' || c == ':') {
			s.emit(chroma.LiteralStringInterpol, end+1)
			s.pop()
			return true
		}
	}
	return s.fexprSpaceOrExpr()
}

// fexprInner is the expr-inside-fstring-inner state: an opening bracket
// pushes it again, a closing one pops it; spaces; then expr's rules.
func (s *pyScan) fexprInner() bool {
	pos := s.pos
	switch s.text[pos] {
	case '{', '(', '[':
		s.emit(chroma.Punctuation, pos+1)
		s.push(pyFExprInner)
		return true
	case '}', ')', ']':
		s.emit(chroma.Punctuation, pos+1)
		s.pop()
		return true
	}
	return s.fexprSpaceOrExpr()
}

// fexprSpaceOrExpr is \s+ (newlines too), then expr's rules.
func (s *pyScan) fexprSpaceOrExpr() bool {
	if isPySpace(s.text[s.pos]) {
		end, ok := s.spaces(s.pos)
		if !ok {
			return false
		}
		s.emit(chroma.Text, end)
		return true
	}
	return s.expr()
}

// str is a string's state, its rules in chroma's order: for an f-string
// "{{" and "}}"; for all but raw strings and rf-strings stringescape's
// escapes; the closing quotes; for a one-line string \\\\, \\ and the
// quote, \\\n; then the f-string's "{" (pushing its expression's state)
// and "}", or the other strings' %-format and {}-format; runs of other
// characters; single quotes and backslashes; and for a triple-quoted
// string a newline. A one-line string takes no newline: chroma then
// empties the stack back to root.
func (s *pyScan) str(st uint8) bool {
	text, pos, src := s.text, s.pos, s.src
	kind, double, triple := st/4, st&2 != 0, st&1 != 0
	q, t := byte('\''), chroma.LiteralStringSingle
	if double {
		q, t = '"', chroma.LiteralStringDouble
	}
	fstring := kind == pyF || kind == pyRF
	c := text[pos]
	if fstring && (c == '{' || c == '}') && src.at(pos+1) == c {
		s.emit(chroma.LiteralStringEscape, pos+2)
		return true
	}
	if c == '\\' && (kind == pyPlain || kind == pyF) {
		if end := s.stringEscape(pos); end > 0 {
			s.emit(chroma.LiteralStringEscape, end)
			return true
		}
	}
	if c == q {
		if !triple {
			s.emit(t, pos+1)
			s.pop()
			return true
		}
		if src.at(pos+1) == q && src.at(pos+2) == q {
			s.emit(t, pos+3)
			s.pop()
			return true
		}
	}
	if c == '\\' && !triple {
		if next := src.at(pos + 1); next == '\\' || next == q || next == '\n' {
			s.emit(chroma.LiteralStringEscape, pos+2)
			return true
		}
	}
	switch c {
	case '\n':
		if !triple {
			s.stack = s.stack[:1] // no rule: back to root
			return true
		}
		s.emit(t, pos+1)
		return true
	case '\\', '\'', '"':
		s.emit(t, pos+1)
		return true
	}
	if fstring {
		switch c {
		case '}':
			s.emit(chroma.LiteralStringInterpol, pos+1)
			return true
		case '{':
			s.emit(chroma.LiteralStringInterpol, pos+1)
			s.push(pyFExpr)
			return true
		}
		// [^\\\'"{}\n]+
		end := pos + 1
		for end < len(text) && !pyFStringStop[text[end]] {
			end++
		}
		s.emit(t, end)
		return true
	}
	switch c {
	case '%':
		end, ok := s.percentFormat(pos)
		if !ok {
			return false
		}
		if end > 0 {
			s.emit(chroma.LiteralStringInterpol, end)
		} else {
			s.emit(t, pos+1)
		}
		return true
	case '{':
		end, ok := s.braceFormat(pos)
		if !ok {
			return false
		}
		if end > 0 {
			s.emit(chroma.LiteralStringInterpol, end)
		} else if src.at(pos+1) == '{' {
			s.emit(t, pos+2) // %|(\{{1,2})
		} else {
			s.emit(t, pos+1)
		}
		return true
	}
	// [^\\\'"%{\n]+
	end := pos + 1
	for end < len(text) && !pyStringStop[text[end]] {
		end++
	}
	s.emit(t, end)
	return true
}

// stringEscape matches
// \\([\\abfnrtv"\']|\n|N\{.*?\}|u[a-fA-F0-9]{4}|U[a-fA-F0-9]{8}|x[a-fA-F0-9]{2}|[0-7]{1,3})
// at pos and returns its end, 0 when it does not match.
func (s *pyScan) stringEscape(pos int) int {
	src := s.src
	hex := func(from, n int) int {
		for i := from; i < from+n; i++ {
			if !isHexDigit(src.at(i)) {
				return 0
			}
		}
		return from + n
	}
	switch c := src.at(pos + 1); {
	case c == 0 && pos+1 >= len(s.text):
		return 0
	case strings.IndexByte("\\abfnrtv\"'\n", c) >= 0:
		return pos + 2
	case c == 'N':
		// N\{.*?\} : to the first "}" on the line.
		if src.at(pos+2) != '{' {
			return 0
		}
		for i := pos + 3; i < len(s.text); i++ {
			switch s.text[i] {
			case '}':
				return i + 1
			case '\n':
				return 0
			}
		}
		return 0
	case c == 'u':
		return hex(pos+2, 4)
	case c == 'U':
		return hex(pos+2, 8)
	case c == 'x':
		return hex(pos+2, 2)
	case isOctal(c):
		end := pos + 2
		for end < pos+4 && isOctal(src.at(end)) {
			end++
		}
		return end
	}
	return 0
}

// percentFormat matches
// %(\(\w+\))?[-#0 +]*([0-9]+|[*])?(\.([0-9]+|[*]))?[hlL]?[E-GXc-giorsaux%]
// at pos: its end, 0 when it does not match. The parts after the name
// take characters of sets none of which holds the last one's, and each
// optional one's set is none of those after it but "0" before digits, so
// taking each part whole finds the match when there is one.
func (s *pyScan) percentFormat(pos int) (end int, ok bool) {
	src := s.src
	i := pos + 1
	if src.at(i) == '(' {
		// (\(\w+\))? : the name whole, or none (and then no match: "("
		// is no later part's).
		w, ok := s.word(i + 1)
		if !ok {
			return 0, false
		}
		if w == i+1 || src.at(w) != ')' {
			return 0, true
		}
		i = w + 1
	}
	for strings.IndexByte("-#0 +", src.at(i)) >= 0 && i < len(s.text) {
		i++
	}
	if src.at(i) == '*' {
		i++
	} else {
		i = src.run(i, isDigit)
	}
	if src.at(i) == '.' {
		if src.at(i+1) == '*' {
			i += 2
		} else if d := src.run(i+1, isDigit); d > i+1 {
			i = d
		} else {
			return 0, true
		}
	}
	if c := src.at(i); c == 'h' || c == 'l' || c == 'L' {
		i++
	}
	if c := src.at(i); c != 0 && strings.IndexByte("EFGXcdefgiorsaux%", c) >= 0 {
		return i + 1, true
	}
	return 0, true
}

// braceFormat matches
// \{((\w+)((\.\w+)|(\[[^\]]+\]))*)?(\![sra])?(\:(.?[<>=\^])?[-+ ]?#?0?(\d+)?,?(\.\d+)?[E-GXb-gnosx%]?)?\}
// at pos: its end, 0 when it does not match. Up to the ":" each part
// takes what it can, and no later part can take what one leaves (a
// backtrack into them leaves a character none takes); after it the fill
// and alignment are tried as regexp2 tries them (a character and an
// alignment, an alignment, none), each with the rest taken part by part.
func (s *pyScan) braceFormat(pos int) (end int, ok bool) {
	src := s.src
	i := pos + 1
	if c := src.at(i); c >= utf8.RuneSelf {
		return 0, false // \w+ could take it
	} else if isGoWord(c) {
		if i, ok = s.word(i); !ok {
			return 0, false
		}
		for {
			switch src.at(i) {
			case '.':
				c := src.at(i + 1)
				if c >= utf8.RuneSelf {
					return 0, false
				}
				if !isGoWord(c) {
					return 0, true
				}
				if i, ok = s.word(i + 1); !ok {
					return 0, false
				}
				continue
			case '[':
				// \[[^\]]+\] : to the first "]", one character or more
				// after the "[".
				j := strings.IndexByte(s.text[i+1:], ']')
				if j <= 0 {
					return 0, true
				}
				i += 1 + j + 1
				continue
			}
			break
		}
	}
	if src.at(i) == '!' {
		if c := src.at(i + 1); c != 's' && c != 'r' && c != 'a' {
			return 0, true
		}
		i += 2
	}
	if src.at(i) == ':' {
		q := i + 1
		// (.?[<>=\^])? : a character and an alignment, an alignment,
		// none.
		var starts []int
		if q < len(s.text) && s.text[q] != '\n' {
			_, size := utf8.DecodeRuneInString(s.text[q:])
			if strings.IndexByte("<>=^", src.at(q+size)) >= 0 && src.at(q+size) != 0 {
				starts = append(starts, q+size+1)
			}
		}
		if strings.IndexByte("<>=^", src.at(q)) >= 0 && src.at(q) != 0 {
			starts = append(starts, q+1)
		}
		starts = append(starts, q)
		for _, j := range starts {
			end, ok := s.formatSpec(j)
			if !ok {
				return 0, false
			}
			if end > 0 {
				return end, true
			}
		}
		return 0, true
	}
	if src.at(i) == '}' {
		return i + 1, true
	}
	return 0, true
}

// formatSpec matches [-+ ]?#?0?(\d+)?,?(\.\d+)?[E-GXb-gnosx%]?\} at i,
// each part taking what it can: its end, 0 when it does not match.
func (s *pyScan) formatSpec(i int) (end int, ok bool) {
	src := s.src
	if c := src.at(i); c == '-' || c == '+' || c == ' ' {
		i++
	}
	if src.at(i) == '#' {
		i++
	}
	if src.at(i) == '0' {
		i++
	}
	if i, ok = s.asciiDigits(i); !ok {
		return 0, false
	}
	if src.at(i) == ',' {
		i++
	}
	if src.at(i) == '.' {
		d, ok := s.asciiDigits(i + 1)
		if !ok {
			return 0, false
		}
		if d > i+1 {
			i = d
		}
	}
	if c := src.at(i); c != 0 && strings.IndexByte("EFGXbcdefgnosx%", c) >= 0 {
		i++
	}
	if src.at(i) == '}' {
		return i + 1, true
	}
	return 0, true
}

// asciiDigits is the end of \d* from i; ok is false when a Unicode digit
// could carry it on.
func (s *pyScan) asciiDigits(i int) (end int, ok bool) {
	end = s.src.run(i, isDigit)
	return end, s.src.at(end) < utf8.RuneSelf
}
