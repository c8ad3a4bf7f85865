package markup

import "github.com/alecthomas/chroma/v2"

// handScan is what the hand-written scans of a lexer with a stack of
// states (bashScan, pyScan) share: the text, where the scan is, the tokens
// so far (as spans of the text, coalesced as chroma.Coalesce does) and the
// state stack, root at its bottom.
type handScan struct {
	text  string
	src   goSrc
	pos   int
	toks  []handTok
	stack []uint8
}

type handTok struct {
	t          chroma.TokenType
	start, end int
}

func newHandScan(text string) handScan {
	return handScan{text: text, src: goSrc(text), toks: make([]handTok, 0, len(text)/4+1), stack: make([]uint8, 1, 8)}
}

// emit takes text[pos:end] as a token of type t (nothing when empty),
// coalesced with the token before it when that is of the same type.
func (s *handScan) emit(t chroma.TokenType, end int) {
	if end == s.pos {
		return
	}
	if n := len(s.toks); n > 0 && s.toks[n-1].t == t {
		s.toks[n-1].end = end
	} else {
		s.toks = append(s.toks, handTok{t, s.pos, end})
	}
	s.pos = end
}

func (s *handScan) push(state uint8) { s.stack = append(s.stack, state) }
func (s *handScan) pop()             { s.stack = s.stack[:len(s.stack)-1] }
func (s *handScan) state() uint8     { return s.stack[len(s.stack)-1] }

// tokens are the scan's tokens, as chroma gives them.
func (s *handScan) tokens() []chroma.Token {
	out := make([]chroma.Token, len(s.toks))
	for i, t := range s.toks {
		out[i] = chroma.Token{Type: t.t, Value: s.text[t.start:t.end]}
	}
	return out
}
