package markup

import (
	"crypto/sha256"
	"encoding/binary"
	"html/template"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/alecthomas/chroma/v2"
	chtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// Highlighting limits: chroma runs at under 1 MB/s per core, so blocks
// above these are shown plain (escaped, with line numbers).
const (
	DefaultMaxBytes = 32 << 10
	DefaultMaxLines = 1000
	// cacheBytes bounds the HTML kept in the in-memory cache.
	cacheBytes = 128 << 20
)

// Highlighter turns code into HTML with chroma's CSS classes, so light and
// dark themes both apply. Each distinct block is highlighted once: results
// are cached by content hash. Safe for concurrent use.
type Highlighter struct {
	MaxBytes, MaxLines int
	// Store, when set, keeps highlighted blocks between runs: asked on a
	// miss of the memory cache, given each block highlighted.
	Store Store

	mu    sync.Mutex
	cache map[[32]byte]string
	size  int

	// lexerCache remembers the lexer for a file name's extension (or whole
	// name when it has none) and for a language name: chroma's lookup by
	// file name tries every lexer's globs and costs more than highlighting
	// a small file.
	lexerCache sync.Map // string → chroma.Lexer (nil stored as noLexer)
	patients   sync.Map // chroma.Lexer → patientOf it

	// tokenise, when set, lexes in place of chroma's Tokenise: a test's
	// seam for a lexer that fails or times out. A twin (twin.go) is not
	// lexed through it.
	tokenise func(l chroma.Lexer, code string) (chroma.Iterator, error)

	hits, misses, plain atomic.Int64
}

// Store is a lasting cache of highlighted blocks, by content hash.
type Store interface {
	Get(key [32]byte) (string, bool)
	Put(key [32]byte, html string)
}

// NewHighlighter returns a Highlighter with the default limits.
func NewHighlighter() *Highlighter {
	return &Highlighter{MaxBytes: DefaultMaxBytes, MaxLines: DefaultMaxLines, cache: map[[32]byte]string{}}
}

// Stats reports cache hits, highlighted blocks and blocks shown plain.
func (h *Highlighter) Stats() (hits, misses, plain int64) {
	return h.hits.Load(), h.misses.Load(), h.plain.Load()
}

// Block renders a code block with a language label and a copy button. lang
// is a Markdown info string or a chroma language name; filename, when set,
// picks the lexer by extension instead.
func (h *Highlighter) Block(lang, filename, code string) template.HTML {
	return h.block(lang, filename, code, 0)
}

// Lines is Block with line numbers starting at start (Read's startLine).
func (h *Highlighter) Lines(lang, filename, code string, start int) template.HTML {
	if start < 1 {
		start = 1
	}
	return h.block(lang, filename, code, start)
}

func (h *Highlighter) block(lang, filename, code string, start int) template.HTML {
	label := lang
	if label == "" && filename != "" {
		label = path.Base(strings.ReplaceAll(filename, `\`, "/"))
	}
	const (
		head   = `<div class="code-block"><div class="code-head">`
		button = `<button type="button" class="copy" aria-label="Copy code">Copy</button></div>`
	)
	if label != "" {
		label = `<span class="code-lang">` + template.HTMLEscapeString(label) + `</span>`
	}
	body := h.Code(lang, filename, code, start)
	// Made at its size: grown as written, the block's code (most of it)
	// was often copied twice more.
	var b strings.Builder
	b.Grow(len(head) + len(label) + len(button) + len(body) + len(`</div>`))
	b.WriteString(head)
	b.WriteString(label)
	b.WriteString(button)
	b.WriteString(body)
	b.WriteString(`</div>`)
	return template.HTML(b.String())
}

// Code returns just the <pre> for code; start > 0 adds line numbers from
// start. Oversized code is escaped without highlighting.
func (h *Highlighter) Code(lang, filename, code string, start int) string {
	return h.code(lang, filename, code, start, limits{h.MaxBytes, h.MaxLines, false})
}

// limits are the sizes above which code is shown plain. strict is for
// text the lexer knows to be valid (JSON checked before): a token chroma
// cannot place there (an Error token) shows the block plain rather than
// garbled; strict blocks are cached under keys of their own.
type limits struct {
	maxBytes, maxLines int
	strict             bool
}

// code is Code with other limits. A block whose lexing failed (see
// lexOutcome) is shown plain and never kept: the next build tries again.
func (h *Highlighter) code(lang, filename, code string, start int, lim limits) string {
	code = strings.TrimSuffix(code, "\n")
	key := cacheKey(lang, filename, code, start)
	if lim.strict {
		key = cacheKey(lang+"\x00strict", filename, code, start)
	}
	if out, ok := h.lookup(key); ok {
		h.hits.Add(1)
		return out
	}
	lexer := h.pickLexer(lang, filename)
	if lexer == nil || len(code) > lim.maxBytes || strings.Count(code, "\n") >= lim.maxLines {
		h.plain.Add(1)
		out := plainCode(code, start, lexer != nil)
		if lexer == nil && len(code) <= lim.maxBytes {
			// No lexer for it: shown the same way every time, and kept
			// so the next build need not look for one (chroma's lookup
			// of a name no lexer has tries every lexer's patterns, a
			// fifth of a warm --force build's highlighting).
			h.keep(key, out)
		}
		return out
	}
	h.misses.Add(1)
	out, how := h.highlight(lexer, code, start)
	if how == lexFailed {
		// Once more: a first step can be slow for a reason of its own (a
		// lexer a rule hands text to, compiled then).
		out, how = h.highlight(lexer, code, start)
	}
	if how == lexFailed || how == lexUnplaced && lim.strict {
		h.plain.Add(1)
		return plainCode(code, start, false)
	}
	h.keep(key, out)
	return out
}

// lookup finds what was kept under key: in memory, then in the Store.
func (h *Highlighter) lookup(key [32]byte) (string, bool) {
	h.mu.Lock()
	out, ok := h.cache[key]
	h.mu.Unlock()
	if ok {
		return out, true
	}
	if h.Store != nil {
		if out, ok := h.Store.Get(key); ok {
			h.remember(key, out)
			return out, true
		}
	}
	return "", false
}

// keep keeps out under key, in memory and in the Store.
func (h *Highlighter) keep(key [32]byte, out string) {
	h.remember(key, out)
	if h.Store != nil {
		h.Store.Put(key, out)
	}
}

// Forget empties the memory cache (the Store keeps what it has).
func (h *Highlighter) Forget() {
	h.mu.Lock()
	h.cache, h.size = map[[32]byte]string{}, 0
	h.mu.Unlock()
}

// remember keeps a block in the memory cache, emptied when full.
func (h *Highlighter) remember(key [32]byte, out string) {
	h.mu.Lock()
	if h.size+len(out) > cacheBytes {
		h.cache, h.size = map[[32]byte]string{}, 0
	}
	h.cache[key] = out
	h.size += len(out)
	h.mu.Unlock()
}

func cacheKey(lang, filename, code string, start int) [32]byte {
	d := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(start))
	d.Write(n[:])
	d.Write([]byte(lang + "\x00" + filename + "\x00"))
	// The code as it is, not copied into a new []byte (a hash.Hash
	// neither keeps nor changes what it is given).
	d.Write(unsafe.Slice(unsafe.StringData(code), len(code)))
	var k [32]byte
	copy(k[:], d.Sum(nil))
	return k
}

type noLexerT struct{ chroma.Lexer }

var noLexer = noLexerT{}

// pickLexer finds a lexer by file name, then by language name; nil means
// plain text.
func (h *Highlighter) pickLexer(lang, filename string) chroma.Lexer {
	if filename != "" {
		base := path.Base(strings.ReplaceAll(filename, `\`, "/"))
		key := "f:" + base
		if ext := path.Ext(base); ext != "" && ext != base {
			key = "e:" + strings.ToLower(ext)
			if l := h.cachedLexer(key, func() chroma.Lexer { return lexers.Match("x" + strings.ToLower(ext)) }); l != nil {
				return l
			}
			// Some lexers match whole names (Makefile, Dockerfile.dev).
			key = "f:" + base
		}
		if l := h.cachedLexer(key, func() chroma.Lexer { return lexers.Match(base) }); l != nil {
			return l
		}
	}
	if lang != "" {
		name := strings.ToLower(strings.Fields(lang + " ")[0])
		return h.cachedLexer("l:"+name, func() chroma.Lexer { return lexers.Get(name) })
	}
	return nil
}

// cachedLexer returns the lexer remembered under key, finding it first:
// chroma's lookup by file name (lexers.Match, and lexers.Get of a name
// that is no lexer's) tries every lexer's patterns, milliseconds a name.
func (h *Highlighter) cachedLexer(key string, find func() chroma.Lexer) chroma.Lexer {
	if v, ok := h.lexerCache.Load(key); ok {
		if v == noLexer {
			return nil
		}
		return v.(chroma.Lexer)
	}
	l := find()
	if l == nil {
		h.lexerCache.Store(key, noLexer)
		return nil
	}
	h.lexerCache.Store(key, l)
	return l
}

// patientOf is patient(l), made once per lexer, its rules compiled: here,
// so that highlight's timing of each step leaves that out.
func (h *Highlighter) patientOf(l chroma.Lexer) chroma.Lexer {
	if p, ok := h.patients.Load(l); ok {
		return p.(chroma.Lexer)
	}
	p := patient(l)
	if _, err := p.Tokenise(nil, ""); err != nil { // compiles chroma's own
		p = l
	}
	got, _ := h.patients.LoadOrStore(l, p)
	return got.(chroma.Lexer)
}

// styled holds the token types some theme colours: other tokens are written
// as bare text, which keeps pages small (chroma's own formatter wraps every
// token, whitespace included, in a span).
var styled = func() map[chroma.TokenType]string {
	out := map[chroma.TokenType]string{}
	// The page's own text colours, which a token of that colour need not set.
	pageFG := map[string]chroma.Colour{LightStyle: chroma.MustParseColour("#1f2328"), DarkStyle: chroma.MustParseColour("#e6edf3")}
	for _, name := range []string{LightStyle, DarkStyle} {
		st := styles.Get(name)
		base := st.Get(chroma.Background)
		fg := base.Colour
		if !fg.IsSet() {
			fg = pageFG[name]
		}
		for tt, cls := range chroma.StandardTypes {
			if cls == "" || tt == chroma.Background || tt == chroma.PreWrapper || tt == chroma.Line ||
				tt == chroma.LineNumbers || tt == chroma.LineNumbersTable || tt == chroma.LineHighlight ||
				tt == chroma.LineTable || tt == chroma.LineTableTD || tt == chroma.CodeLine ||
				tt == chroma.TextWhitespace || tt == chroma.Error {
				continue
			}
			e := st.Get(tt)
			coloured := e.Colour.IsSet() && e.Colour != fg
			if coloured || e.Background != base.Background || e.Bold == chroma.Yes ||
				e.Italic == chroma.Yes || e.Underline == chroma.Yes {
				out[tt] = cls
			}
		}
	}
	return out
}()

// styledTypes is styled's class of each token type below 9000 (chroma's
// types are 1000 to 8999 by kind; the few negative ones are not tokens),
// a type's parent's when it has none: two map lookups per token cost
// as much as lexing Go did.
var styledTypes = func() (t [9000]string) {
	for tt := range chroma.TokenType(len(t)) {
		if t[tt] = styled[tt]; t[tt] == "" {
			t[tt] = styled[tt.Parent()]
		}
	}
	return t
}()

// styleOf is the class of token type tt (its parent's when it has none).
func styleOf(tt chroma.TokenType) string {
	if uint(tt) < uint(len(styledTypes)) {
		return styledTypes[tt]
	}
	if cls := styled[tt]; cls != "" {
		return cls
	}
	return styled[tt.Parent()]
}

// Theme styles for code.
const (
	LightStyle = "github"
	DarkStyle  = "github-dark"
)

// lexOutcome is how lexing a block went.
type lexOutcome int

const (
	lexClean    lexOutcome = iota
	lexUnplaced            // chroma met text no rule placed (an Error token)
	// lexFailed: Tokenise failed or panicked, or a step of it ran for
	// slowStep or longer, which is how a match that timed out shows.
	lexFailed
)

// slowStep is the time one step of chroma's lexing (Tokenise, or one
// call of its iterator: one position's rules tried) may take before the
// block is taken as failed: a match that timed out ran that long at
// least. chroma takes a match that timed out for no match, without a
// word. The lexers patient makes give a match matchTimeout; chroma's own
// (Markdown's, and those a rule hands text to) 250 ms, by regexp2's clock,
// which a goroutine moves on every 100 ms. The time counted is the
// thread's (lexTimed): on a loaded machine a step waits for a core, and
// a block timed by the clock alone came out highlighted on one build and
// plain on the next.
const slowStep = 100 * time.Millisecond

// stallStep is the clock time of a step that took less than slowStep of
// its thread's time from which the step may still have run into a
// timeout of chroma's own lexers (250 ms, less the lateness of regexp2's
// clock): the block is lexed again.
const stallStep = 200 * time.Millisecond

// tokenise is how the Highlighter lexes with chroma: Tokenise from the
// lexer's root state. A test puts another in h.tokenise.
func tokenise(l chroma.Lexer, code string) (chroma.Iterator, error) {
	return l.Tokenise(nil, code)
}

// highlight lexes code as chroma's lexer does (lexTokens: its twin, else
// chroma) and writes it as HTML, telling how the lexing went: out is only
// worth showing when how is not lexFailed.
func (h *Highlighter) highlight(lexer chroma.Lexer, code string, start int) (out string, how lexOutcome) {
	toks, ok := h.lexTokens(lexer, code)
	if !ok {
		return "", lexFailed
	}
	return writeCode(toks, code, start)
}

// writeCode writes code, lexed as toks, as HTML; how is lexUnplaced when
// a token is chroma's Error.
func writeCode(toks []chroma.Token, code string, start int) (out string, how lexOutcome) {
	var b strings.Builder
	b.Grow(len(code) + len(code)/3)
	if start > 0 {
		gutter(&b, start, strings.Count(code, "\n")+1)
	}
	b.WriteString(`<pre class="chroma"><code>`)
	cur := ""
	open := false
	for _, tok := range toks {
		if tok.Type == chroma.Error {
			how = lexUnplaced
		}
		if tok.Value == "" {
			continue
		}
		// Tokens are not coalesced: a run of one class is one span all
		// the same.
		cls := styleOf(tok.Type)
		if cls != cur {
			if open {
				b.WriteString("</span>")
				open = false
			}
			if cls != "" {
				b.WriteString(`<span class="` + cls + `">`)
				open = true
			}
			cur = cls
		}
		textEscaper.WriteString(&b, tok.Value)
	}
	if open {
		b.WriteString("</span>")
	}
	b.WriteString("</code></pre>")
	if start > 0 {
		b.WriteString("</div>")
	}
	return b.String(), how
}

// gutter opens a numbered block: the line numbers from start, in a column of
// their own that copying leaves out.
func gutter(b *strings.Builder, start, lines int) {
	b.WriteString(`<div class="numbered"><pre class="gutter" aria-hidden="true">`)
	for n := start; n < start+lines; n++ {
		b.WriteString(strconv.Itoa(n))
		b.WriteByte('\n')
	}
	b.WriteString(`</pre>`)
}

// plainCode escapes code in the same markup as highlighted code, with line
// numbers from start when start > 0. big marks code too large to highlight.
func plainCode(code string, start int, big bool) string {
	var b strings.Builder
	b.Grow(len(code) + len(code)/8)
	if start > 0 {
		gutter(&b, start, strings.Count(code, "\n")+1)
	}
	cls := "chroma plain"
	if big {
		cls += " too-big"
	}
	b.WriteString(`<pre class="` + cls + `"><code>`)
	textEscaper.WriteString(&b, code)
	b.WriteString(`</code></pre>`)
	if start > 0 {
		b.WriteString("</div>")
	}
	return b.String()
}

// CSS returns the stylesheet for chroma's classes in the named style, each
// rule prefixed by scope (e.g. `[data-theme="dark"]`). Backgrounds are left
// to the page's own stylesheet, and every colour is nudged (darker on light,
// lighter on dark) until it reaches 4.5:1 against bg, WCAG AA.
func CSS(style, scope string, bgs ...string) string {
	st := styles.Get(style)
	var b strings.Builder
	f := chtml.New(chtml.WithClasses(true))
	if err := f.WriteCSS(&b, st); err != nil {
		return ""
	}
	var back []chroma.Colour
	for _, bg := range bgs {
		back = append(back, chroma.MustParseColour(bg))
	}
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		if strings.Contains(line, "/* Background */") || strings.Contains(line, "/* PreWrapper */") {
			continue
		}
		line = reColour.ReplaceAllStringFunc(line, func(m string) string {
			sub := reColour.FindStringSubmatch(m)
			c := chroma.ParseColour(sub[2])
			if !c.IsSet() {
				return m
			}
			return sub[1] + "color: " + readable(c, back).String()
		})
		if i := strings.Index(line, "*/ ."); i >= 0 && scope != "" {
			line = line[:i+3] + scope + " " + line[i+3:]
		}
		out.WriteString(line)
	}
	return out.String()
}

var reColour = regexp.MustCompile(`(^|[ ;{])color: *(#[0-9a-fA-F]{6})`)

// readable moves c away from the backgrounds (all light or all dark) until
// its contrast ratio with each is at least 4.6 (AA's 4.5, with a margin for
// rounding).
func readable(c chroma.Colour, bgs []chroma.Colour) chroma.Colour {
	if len(bgs) == 0 {
		return c
	}
	worst := func() float64 {
		w := 21.0
		for _, bg := range bgs {
			w = min(w, contrast(c, bg))
		}
		return w
	}
	dark := luminance(bgs[0]) < 0.5
	for i := 0; i < 60 && worst() < 4.6; i++ {
		if dark {
			c = c.Brighten(0.05)
		} else {
			c = c.Brighten(-0.05)
		}
	}
	return c
}

func luminance(c chroma.Colour) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.Red()) + 0.7152*lin(c.Green()) + 0.0722*lin(c.Blue())
}

func contrast(a, b chroma.Colour) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// textEscaper escapes text for an element's content, where only &, < and >
// matter (quotes need no escaping outside attributes): code is full of
// quotes, and &#34; for each would swell pages.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
