package markup

import (
	"runtime"
	"strings"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// The twins are hand-written scans that give the tokens of four of
// chroma's lexers, Go's (goTokens), Python's (pythonTokens), Markdown's
// (mdTokens) and Bash's (bashTokens), from their root state: the
// languages a corpus build highlights most, which chroma's rules lex at 2
// to 9 MB/s. Without
// them a cold build misses its target. A twin is sure of most texts and
// says so; chroma's own lexer lexes the rest. They are the Highlighter's
// one seam for a second implementation (lexTokens), checked against the
// chroma version twinChroma: TestTwinChromaPinned fails when go.mod
// names another, and the ...MatchesChroma tests compare each twin with
// chroma, token for token.

// twinChroma is the chroma version the twins were checked against.
const twinChroma = "v2.27.0"

// twinOf returns the twin of chroma's lexer l, or nil when it has none.
// A twin's ok is false where it is not sure of the text (chroma's lexer
// lexes it then), or where a lexer it hands part of the text to (a raw
// string's, a fenced block's) failed or was slow.
func twinOf(l chroma.Lexer) func(h *Highlighter, text string) ([]chroma.Token, bool) {
	if l == nil {
		return nil
	}
	switch l.Config().Name {
	case "Go":
		return goTwin
	case "Python":
		return pythonTwin
	case "markdown":
		return markdownTwin
	case "Bash":
		return bashTwin
	}
	return nil
}

// lexTokens lexes code as chroma's lexer l does from its root state: with
// its twin where the twin is sure, else with patient(l), each step timed
// (lexTimed). ok is false when chroma's lexing failed or was slow.
func (h *Highlighter) lexTokens(l chroma.Lexer, code string) ([]chroma.Token, bool) {
	if twin := twinOf(l); twin != nil {
		if toks, ok := twin(h, code); ok {
			return toks, true
		}
	}
	lex := h.tokenise
	if lex == nil {
		lex = tokenise
	}
	return lexTimed(h.patientOf(l), code, lex)
}

// lexTimed gives the tokens lex makes of code with l, or ok false when
// lex failed or panicked (chroma panics on a broken rule's state), or when
// a step of it (Tokenise, or one call of its iterator) was slow: took
// slowStep or more of its thread's time, which is how a match that ran
// into its timeout shows. A step that took long on the clock but not on
// its thread waited for a core (a loaded machine): the block is lexed
// again, each step's thread time read, so that how a block is shown does
// not depend on the machine's load (stepTimer).
func lexTimed(l chroma.Lexer, code string, lex func(chroma.Lexer, string) (chroma.Iterator, error)) ([]chroma.Token, bool) {
	toks, how := lexSteps(l, code, lex, wallTimer{})
	for try := 0; how == stepStalled && try < stallTries; try++ {
		toks, how = lexThreadTimed(l, code, lex)
	}
	return toks, how == stepsDone
}

// stallTries is how many times a block whose steps waited long for a core
// is lexed again before it is shown plain (not kept: the next build tries
// again).
const stallTries = 3

// lexThreadTimed is lexSteps timed by the thread's clock: the goroutine
// keeps its thread meanwhile.
func lexThreadTimed(l chroma.Lexer, code string, lex func(chroma.Lexer, string) (chroma.Iterator, error)) ([]chroma.Token, stepOutcome) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return lexSteps(l, code, lex, threadTimer{})
}

// stepOutcome is how lexing a block went, step by step.
type stepOutcome int

const (
	stepsDone   stepOutcome = iota
	stepFailed              // an error, a panic, or a step slow on its thread
	stepStalled             // a step slow on the clock, its cause unknown
)

// stepTimer times the steps of lexing: begin before a step, then slow
// says whether it was slow (stepFailed), maybe slow (stepStalled) or not
// (stepsDone).
type stepTimer interface {
	begin() stepTimer
	slow() stepOutcome
}

// wallTimer times a step by the clock: cheap, and sure of a fast step
// only. A step of slowStep or more is stepStalled.
type wallTimer struct{ t0 time.Time }

func (wallTimer) begin() stepTimer { return wallTimer{time.Now()} }

func (w wallTimer) slow() stepOutcome {
	if time.Since(w.t0) >= slowStep {
		return stepStalled
	}
	return stepsDone
}

// threadTimer times a step by its thread's CPU time as well (threadTime):
// slowStep or more of it is stepFailed, the same on any machine load. A
// step that took stallStep or more on the clock but less on its thread is
// stepStalled: it may have run into a timeout while it waited (regexp2's
// clock counts waiting), and the block is lexed again.
type threadTimer struct {
	t0  time.Time
	cpu time.Duration
}

func (threadTimer) begin() stepTimer { return threadTimer{time.Now(), threadTime()} }

func (t threadTimer) slow() stepOutcome {
	switch {
	case threadTime()-t.cpu >= slowStep:
		return stepFailed
	case time.Since(t.t0) >= stallStep:
		return stepStalled
	}
	return stepsDone
}

// lexSteps lexes code with l through lex, each step timed by timer.
func lexSteps(l chroma.Lexer, code string, lex func(chroma.Lexer, string) (chroma.Iterator, error), timer stepTimer) (toks []chroma.Token, how stepOutcome) {
	defer func() {
		if recover() != nil {
			toks, how = nil, stepFailed
		}
	}()
	t := timer.begin()
	it, err := lex(l, code)
	if err != nil {
		return nil, stepFailed
	}
	if how := t.slow(); how != stepsDone {
		return nil, how
	}
	toks = make([]chroma.Token, 0, len(code)/4+1)
	for {
		t := timer.begin()
		tok := it()
		if how := t.slow(); how != stepsDone {
			return nil, how
		}
		if tok == chroma.EOF {
			return toks, stepsDone
		}
		toks = append(toks, tok)
	}
}

// goTwin is goTokens, a raw string's insides lexed by chroma's Go
// template lexer as the Go lexer's rule has it (its Other tokens strings),
// patient and timed.
func goTwin(h *Highlighter, text string) ([]chroma.Token, bool) {
	return goTokens(text, func(s string) ([]chroma.Token, bool) {
		raw := chroma.TypeRemappingLexer(h.patientOf(lexers.GoTextTemplate), goRawMapping)
		return lexTimed(raw, s, func(l chroma.Lexer, s string) (chroma.Iterator, error) {
			return l.Tokenise(&chroma.TokeniseOptions{State: "root", Nested: true}, s)
		})
	})
}

var goRawMapping = chroma.TypeMapping{{From: chroma.Other, To: chroma.LiteralString}}

func pythonTwin(_ *Highlighter, text string) ([]chroma.Token, bool) {
	return pythonTokens(text)
}

func bashTwin(_ *Highlighter, text string) ([]chroma.Token, bool) {
	return bashTokens(text)
}

// markdownTwin is chroma's markdownLexer.Tokenise (v2.27): a leading YAML
// front matter lexed by chroma's YAML lexer, the rest by mdTokens, each
// fenced block's code by fencedTokens.
func markdownTwin(h *Highlighter, text string) ([]chroma.Token, bool) {
	front, rest, ok := splitFrontmatter(text)
	yaml := lexers.Get("YAML")
	if !ok || yaml == nil {
		return mdTokens(text, h.fencedTokens)
	}
	head, ok := h.lexTokens(yaml, front)
	if !ok {
		return nil, false
	}
	body, ok := mdTokens(rest, h.fencedTokens)
	if !ok {
		return nil, false
	}
	return append(head, body...), true
}

// fencedTokens lexes the code of a fenced block of Markdown in language
// lang as chroma's Markdown lexer does (UsingByGroup): with the lexer
// chroma's registry has for lang, as Text when it has none.
func (h *Highlighter) fencedTokens(lang, code string) ([]chroma.Token, bool) {
	l := h.cachedLexer("g:"+lang, func() chroma.Lexer { return lexers.Get(lang) })
	if l == nil {
		return []chroma.Token{{Type: chroma.Text, Value: code}}, true
	}
	return h.lexTokens(l, code)
}

// splitFrontmatter is chroma's (lexers/markdown.go, v2.27): a leading
// block between --- lines.
func splitFrontmatter(text string) (frontmatter string, rest string, ok bool) {
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return "", text, false
	}
	lineEnd := strings.IndexByte(text, '\n')
	if lineEnd < 0 {
		return "", text, false
	}
	if strings.TrimSuffix(text[:lineEnd], "\r") != "---" {
		return "", text, false
	}
	for pos := lineEnd + 1; pos < len(text); {
		next := strings.IndexByte(text[pos:], '\n')
		if next < 0 {
			break
		}
		lineEnd = pos + next
		if strings.TrimSuffix(text[pos:lineEnd], "\r") == "---" {
			return text[:lineEnd+1], text[lineEnd+1:], true
		}
		pos = lineEnd + 1
	}
	return "", text, false
}
