package markup

import (
	"crypto/sha256"
	"encoding/binary"
	"html/template"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	chtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// Highlighting limits: chroma runs at under 1 MB/s per core, so blocks
// above these are shown plain (escaped, with line numbers).
const (
	DefaultMaxBytes = 128 << 10
	DefaultMaxLines = 3000
	// cacheBytes bounds the HTML kept in the in-memory cache.
	cacheBytes = 256 << 20
)

// Highlighter turns code into HTML with chroma's CSS classes, so light and
// dark themes both apply. Each distinct block is highlighted once: results
// are cached by content hash. Safe for concurrent use.
type Highlighter struct {
	MaxBytes, MaxLines int

	mu    sync.Mutex
	cache map[[32]byte]string
	size  int

	hits, misses, plain atomic.Int64
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
	var b strings.Builder
	b.WriteString(`<div class="code-block"><div class="code-head">`)
	if label != "" {
		b.WriteString(`<span class="code-lang">`)
		b.WriteString(template.HTMLEscapeString(label))
		b.WriteString(`</span>`)
	}
	b.WriteString(`<button type="button" class="copy" aria-label="Copy code">Copy</button></div>`)
	b.WriteString(h.Code(lang, filename, code, start))
	b.WriteString(`</div>`)
	return template.HTML(b.String())
}

// Code returns just the <pre> for code; start > 0 adds line numbers from
// start. Oversized code is escaped without highlighting.
func (h *Highlighter) Code(lang, filename, code string, start int) string {
	code = strings.TrimSuffix(code, "\n")
	key := cacheKey(lang, filename, code, start)
	h.mu.Lock()
	out, ok := h.cache[key]
	h.mu.Unlock()
	if ok {
		h.hits.Add(1)
		return out
	}
	lexer := pickLexer(lang, filename)
	if lexer == nil || len(code) > h.MaxBytes || strings.Count(code, "\n") >= h.MaxLines {
		h.plain.Add(1)
		return plainCode(code, start, lexer != nil)
	}
	h.misses.Add(1)
	out = highlight(lexer, code, start)
	h.mu.Lock()
	if h.size+len(out) > cacheBytes {
		h.cache, h.size = map[[32]byte]string{}, 0
	}
	h.cache[key] = out
	h.size += len(out)
	h.mu.Unlock()
	return out
}

func cacheKey(lang, filename, code string, start int) [32]byte {
	d := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(start))
	d.Write(n[:])
	d.Write([]byte(lang + "\x00" + filename + "\x00"))
	d.Write([]byte(code))
	var k [32]byte
	copy(k[:], d.Sum(nil))
	return k
}

// pickLexer finds a lexer by file name, then by language name; nil means
// plain text.
func pickLexer(lang, filename string) chroma.Lexer {
	var l chroma.Lexer
	if filename != "" {
		l = lexers.Match(path.Base(strings.ReplaceAll(filename, `\`, "/")))
	}
	if l == nil && lang != "" {
		l = lexers.Get(strings.ToLower(strings.Fields(lang + " ")[0]))
	}
	if l == nil {
		return nil
	}
	return chroma.Coalesce(l)
}

var formatterOpts = []chtml.Option{chtml.WithClasses(true), chtml.PreventSurroundingPre(false)}

func highlight(lexer chroma.Lexer, code string, start int) string {
	opts := formatterOpts
	if start > 0 {
		opts = append(append([]chtml.Option(nil), opts...), chtml.WithLineNumbers(true), chtml.BaseLineNumber(start))
	}
	f := chtml.New(opts...)
	it, err := lexer.Tokenise(nil, code)
	if err != nil {
		return plainCode(code, start, false)
	}
	var b strings.Builder
	if err := f.Format(&b, styles.Fallback, it); err != nil {
		return plainCode(code, start, false)
	}
	return b.String()
}

// plainCode escapes code in the same markup chroma writes, with line
// numbers from start when start > 0. big marks code too large to highlight.
func plainCode(code string, start int, big bool) string {
	var b strings.Builder
	b.Grow(len(code) + len(code)/8)
	cls := "chroma plain"
	if big {
		cls += " too-big"
	}
	b.WriteString(`<pre class="` + cls + `"><code>`)
	if start <= 0 {
		template.HTMLEscape(&b, []byte(code))
	} else {
		n := start
		for line := range strings.Lines(code) {
			b.WriteString(`<span class="line"><span class="ln">`)
			b.WriteString(strconv.Itoa(n))
			b.WriteString(`</span><span class="cl">`)
			template.HTMLEscape(&b, []byte(line))
			b.WriteString(`</span></span>`)
			n++
		}
	}
	b.WriteString(`</code></pre>`)
	return b.String()
}

// CSS returns the stylesheet for chroma's classes in the named style, each
// rule prefixed by scope (e.g. `[data-theme="dark"]`).
func CSS(style, scope string) string {
	st := styles.Get(style)
	var b strings.Builder
	f := chtml.New(chtml.WithClasses(true))
	if err := f.WriteCSS(&b, st); err != nil {
		return ""
	}
	if scope == "" {
		return b.String()
	}
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		if i := strings.Index(line, "*/ ."); i >= 0 {
			out.WriteString(line[:i+3] + scope + " " + line[i+3:])
			continue
		}
		out.WriteString(line)
	}
	return out.String()
}
