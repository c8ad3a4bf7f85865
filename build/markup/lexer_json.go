package markup

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
)

// JSON is about a fifth of what chroma highlights in a corpus build (tool
// results, raw records, .json files), and its lexer's regexps run every
// rule at every token. jsonLexer gives the tokens of chroma's JSON lexer
// (lexers/embedded/json.xml: states root, value, objectvalue,
// objectattribute, arrayvalue) from a hand-written scan of the same
// states, for text where each rule is known to match as that scan does:
// valid UTF-8 without \r, ASCII whitespace of space, tab and newline
// between tokens, // comments ended by a line end (a / no rule takes is an
// error token, as chroma makes it). Anything else (another stray
// character, which chroma marks as an error, a number followed by a
// letter, text a rule's Unicode classes could read differently) hands the
// whole text to chroma.
// TestJSONLexerMatchesChroma compares the two on the corpus's JSON and on
// edge cases.
type jsonLexer struct{ chroma.Lexer }

func (l jsonLexer) Tokenise(opts *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	if toks, ok := jsonTokens(text); ok {
		return chroma.Literator(toks...), nil
	}
	return l.Lexer.Tokenise(opts, text)
}

// The states of chroma's JSON lexer.
const (
	jsValue  = iota // root and value: a value (or whitespace)
	jsObject        // objectvalue: a key or the end of an object
	jsAttr          // objectattribute: the key's value, then , or }
	jsArray         // arrayvalue
)

// jsonTokens scans text as chroma's JSON lexer does, or reports false
// where that is not certain.
func jsonTokens(text string) ([]chroma.Token, bool) {
	// chroma makes every \r\n and \r a \n before it lexes; a \r left
	// in a string here would not be.
	if strings.IndexByte(text, '\r') >= 0 || !utf8.ValidString(text) {
		return nil, false
	}
	toks := make([]chroma.Token, 0, len(text)/6+1)
	// emit adds text[pos:end] as a token of type t, coalesced as
	// chroma.Coalesce does: tokens follow one another in the text, so a
	// token of the previous one's type extends it (a slice of the text,
	// not a copy: slash after slash, each an error token, was quadratic).
	pos := 0
	last := 0 // where the last token starts
	emit := func(t chroma.TokenType, end int) {
		if n := len(toks); n > 0 && toks[n-1].Type == t {
			toks[n-1].Value = text[last:end]
			return
		}
		last = pos
		toks = append(toks, chroma.Token{Type: t, Value: text[pos:end]})
	}
	stack := []int{jsValue}
	lastNL := strings.LastIndexByte(text, '\n')
	// punct emits the punctuation at pos and pops pop states.
	punct := func(pop int) {
		emit(chroma.Punctuation, pos+1)
		pos++
		stack = stack[:len(stack)-pop]
	}
	for pos < len(text) {
		state := stack[len(stack)-1]
		c := text[pos]
		// Whitespace: the first rule of every state but objectattribute,
		// whose value include has it first too.
		if isJSONSpace(c) {
			end := pos + 1
			for end < len(text) && isJSONSpace(text[end]) {
				end++
			}
			emit(chroma.Text, end)
			pos = end
			continue
		}
		// A comment, //.*?\n with . taking any character: every state
		// reaches the rule, and no rule before it takes a /. Any other /,
		// or one with no line end after it, no rule takes: chroma marks it
		// an error and goes on in the same state (each such try of the
		// rule read to the end of the text: 20 s for 32 KB of slashes).
		if c == '/' {
			if strings.HasPrefix(text[pos:], "//") && lastNL > pos+1 {
				end := pos + 2 + strings.IndexByte(text[pos+2:], '\n') + 1
				emit(chroma.CommentSingle, end)
				pos = end
				continue
			}
			emit(chroma.Error, pos+1)
			pos++
			continue
		}
		// \s matches more than isJSONSpace (so a run of whitespace may go
		// on past it).
		if c == '\v' || c == '\f' || c >= utf8.RuneSelf {
			return nil, false
		}
		switch state {
		case jsObject:
			switch c {
			case '"':
				end, ok := jsonStringEnd(text, pos)
				if !ok {
					return nil, false
				}
				emit(chroma.NameTag, end)
				pos = end
				stack = append(stack, jsAttr)
			case '}':
				punct(1)
			default:
				return nil, false
			}
			continue
		case jsAttr:
			switch c {
			case ':':
				punct(0)
				continue
			case ',':
				punct(1)
				continue
			case '}':
				if len(stack) < 3 {
					return nil, false
				}
				punct(2)
				continue
			}
		case jsArray:
			switch c {
			case ',':
				punct(0)
				continue
			case ']':
				punct(1)
				continue
			}
		}
		// A value (root, value, and the value include of objectattribute
		// and arrayvalue, tried before their own punctuation: none of
		// which can start a value).
		switch {
		case c == '{':
			punct(0)
			stack = append(stack, jsObject)
		case c == '[':
			punct(0)
			stack = append(stack, jsArray)
		case c == '"':
			end, ok := jsonStringEnd(text, pos)
			if !ok {
				return nil, false
			}
			emit(chroma.LiteralStringDouble, end)
			pos = end
		case c == 't' || c == 'f' || c == 'n':
			var word string
			switch c {
			case 't':
				word = "true"
			case 'f':
				word = "false"
			default:
				word = "null"
			}
			end := pos + len(word)
			if end > len(text) || text[pos:end] != word || (end < len(text) && !jsonDelim(text[end])) {
				return nil, false
			}
			emit(chroma.KeywordConstant, end)
			pos = end
		case c == '-' || '0' <= c && c <= '9':
			end, float, ok := jsonNumberEnd(text, pos)
			if !ok {
				return nil, false
			}
			if float {
				emit(chroma.LiteralNumberFloat, end)
			} else {
				emit(chroma.LiteralNumberInteger, end)
			}
			pos = end
		default:
			return nil, false
		}
	}
	return toks, true
}

// isJSONSpace is the whitespace jsonTokens takes (not \r: chroma may
// rewrite line ends).
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// jsonDelim is a byte that may follow a keyword or a number in text
// jsonTokens takes: whitespace or punctuation (not a word character, for
// \b, nor a digit, sign, point or exponent, which would make chroma's
// number rules split the number differently).
func jsonDelim(c byte) bool {
	return isJSONSpace(c) || c == ',' || c == ':' || c == ']' || c == '}' || c == '[' || c == '{' || c == '"'
}

// jsonStringEnd is the end of the string starting at text[pos] (a quote):
// after the first quote no backslash escapes, which is where the lexer's
// "(\\\\|\\"|[^"])*" ends too.
func jsonStringEnd(text string, pos int) (int, bool) {
	for i := pos + 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// jsonNumberEnd reads a JSON number at text[pos]; float when it has a
// fraction or an exponent (the lexer's float rule).
func jsonNumberEnd(text string, pos int) (end int, float, ok bool) {
	i := pos
	digits := func() int {
		n := 0
		for i < len(text) && '0' <= text[i] && text[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if text[i] == '-' {
		i++
	}
	switch {
	case i < len(text) && text[i] == '0':
		i++
	case i < len(text) && '1' <= text[i] && text[i] <= '9':
		digits()
	default:
		return 0, false, false
	}
	if i < len(text) && text[i] == '.' {
		i++
		if digits() == 0 {
			return 0, false, false
		}
		float = true
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		if i < len(text) && (text[i] == '+' || text[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false, false
		}
		float = true
	}
	if i < len(text) && !jsonDelim(text[i]) {
		return 0, false, false
	}
	return i, float, true
}
