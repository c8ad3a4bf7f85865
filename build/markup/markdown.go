// Package markup turns untrusted transcript text into safe HTML fragments:
// Markdown (goldmark), highlighted code (chroma), diffs and terminal output.
// It is the only package that produces template.HTML.
package markup

import (
	"bufio"
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// Renderer renders Markdown and code. It is safe for concurrent use; the
// highlight cache it holds is shared by all callers.
type Renderer struct {
	md goldmark.Markdown
	hl *Highlighter
}

// New returns a Renderer that highlights with hl.
func New(hl *Highlighter) *Renderer {
	r := &Renderer{hl: hl}
	r.md = goldmark.New(
		goldmark.WithExtensions(gfm),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(&safeNodes{hl: hl}, 100)),
		),
	)
	return r
}

// Highlighter returns the renderer's highlighter.
func (r *Renderer) Highlighter() *Highlighter { return r.hl }

// Markdown renders src as GitHub-flavoured Markdown. Raw HTML in src is
// shown as text, never passed through; only absolute http(s) and mailto
// links keep their href (javascript:, data:, relative paths do not); images
// are shown as links so a page never loads a remote resource; headings get
// no ids (they would collide across messages).
//
// Its output is kept with the highlighted blocks (memory, then the
// lasting Store): a rebuild renders a page's Markdown (goldmark, a tenth of
// a --force build) only for text it has not seen.
func (r *Renderer) Markdown(src string) template.HTML {
	if out, ok := plainParagraph(src); ok {
		return out
	}
	if len(src) < fragmentCacheMin {
		return r.markdown(src)
	}
	return r.kept("markdown", src, r.markdown)
}

// plainParagraph is goldmark's HTML for src when src is one paragraph of
// plain text, which nothing in it can make more than text: its lines
// (split at "\n") each start with an ASCII letter or a character beyond
// ASCII and hold only those, digits, spaces and ,.?'"()/;%$=+-: (no
// emphasis, code, link, HTML, entity,
// escape, table or strikethrough mark), none ends with a space (a hard
// break), and no "://" or "www" (an autolink) is in it. goldmark writes
// "<p>", the text with each " as &quot;, and "</p>\n" for it. Most short
// messages are such (3,944 of the corpus's 6,249 under 256 bytes), and
// goldmark took 15 µs for each. TestPlainParagraph and FuzzPlainParagraph
// compare it with goldmark.
func plainParagraph(src string) (template.HTML, bool) {
	if src == "" || len(src) > 64<<10 {
		return "", false
	}
	quotes := 0
	start := true // at a line's start
	for i := 0; i < len(src); i++ {
		c := src[i]
		k := plainClass[c]
		if start {
			if k != plainLetter && k != plainWide {
				return "", false
			}
			start = false
		}
		switch k {
		case plainLetter, plainOther:
		case plainWide:
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError {
				return "", false
			}
			i += n - 1
		case plainNewline:
			if src[i-1] == ' ' {
				return "", false
			}
			start = true
		case plainQuote:
			quotes++
		default:
			return "", false
		}
	}
	if start || src[len(src)-1] == ' ' || strings.Contains(src, "://") || hasWWW(src) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(src) + 5*quotes + len("<p></p>\n"))
	b.WriteString("<p>")
	for rest := src; ; {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		b.WriteString("&quot;")
		rest = rest[i+1:]
	}
	b.WriteString("</p>\n")
	return template.HTML(b.String()), true
}

// plainClass is what each byte is to plainParagraph.
var plainClass = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = plainLetter, plainLetter
	}
	for _, c := range "0123456789 ,.?'()/;%$=+-:" {
		t[c] = plainOther
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = plainWide
	}
	t['\n'], t['"'] = plainNewline, plainQuote
	return t
}()

const (
	plainNo      = iota // ends the fast path
	plainLetter         // an ASCII letter: may start a line
	plainOther          // a digit, a space, harmless punctuation
	plainWide           // a byte of a character beyond ASCII: may start a line
	plainNewline        // a line's end
	plainQuote          // ", written &quot;
)

// hasWWW tells whether s holds "www" in any case (c|0x20 is 'w' for 'w'
// and 'W' only).
func hasWWW(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if s[i]|0x20 == 'w' && s[i+1]|0x20 == 'w' && s[i+2]|0x20 == 'w' {
			return true
		}
	}
	return false
}

// ANSI is the package's ANSI, its HTML kept as Markdown's is when the
// text needs a terminal's rendering (an escape, a carriage return or a
// backspace) and is long enough. A nil Renderer renders.
func (r *Renderer) ANSI(s string) template.HTML {
	if r == nil || len(s) < fragmentCacheMin || !needsTerminal(s) {
		return ANSI(s)
	}
	return r.kept("terminal", s, ANSI)
}

// fragmentCacheMin is the shortest text whose HTML is worth caching:
// shorter text renders about as fast as it is looked up.
const fragmentCacheMin = 256

// kept is render(src), taken from the highlighter's caches when there,
// kept there when not. kind names the renderer in the key; the start of
// -1 is one no code block's key has (its start is at least 0).
func (r *Renderer) kept(kind, src string, render func(string) template.HTML) template.HTML {
	key := cacheKey(kind, "", src, -1)
	if out, ok := r.hl.lookup(key); ok {
		return template.HTML(out)
	}
	out := render(src)
	r.hl.keep(key, string(out))
	return out
}

func (r *Renderer) markdown(src string) template.HTML {
	o := mdOuts.Get().(*mdOut)
	defer mdOuts.Put(o)
	o.buf.Reset()
	o.w.Reset(&o.buf)
	// goldmark writes through a bufio.Writer: given none, it made one (4
	// KB) for each text, and the HTML grew its buffer from nothing.
	err := r.md.Convert([]byte(src), o.w)
	if err == nil {
		err = o.w.Flush()
	}
	if err != nil {
		return Text(src)
	}
	out := template.HTML(o.buf.String())
	if o.buf.Cap() > 1<<20 {
		o.buf = bytes.Buffer{} // not kept: a rare long text
	}
	return out
}

// mdOut is the buffer Markdown is converted into, and its writer, kept
// from one text to the next.
type mdOut struct {
	buf bytes.Buffer
	w   *bufio.Writer
}

var mdOuts = sync.Pool{New: func() any {
	o := &mdOut{}
	o.w = bufio.NewWriter(&o.buf)
	return o
}}

// safeNodes renders the nodes goldmark's default renderer would drop or pass
// through: raw HTML becomes escaped text, fenced code is highlighted with a
// copy button, images become links, links get rel attributes.
type safeNodes struct {
	hl *Highlighter
}

func (s *safeNodes) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, s.rawHTML)
	reg.Register(ast.KindHTMLBlock, s.htmlBlock)
	reg.Register(ast.KindFencedCodeBlock, s.fenced)
	reg.Register(ast.KindCodeBlock, s.indented)
	reg.Register(ast.KindImage, s.image)
	reg.Register(ast.KindLink, s.link)
	reg.Register(ast.KindAutoLink, s.autoLink)
	reg.Register(ast.KindHeading, s.heading)
	reg.Register(east.KindTaskCheckBox, s.checkbox)
}

// heading keeps a transcript's headings out of the page's outline (two h1s
// and skipped levels otherwise): they look like headings, they are not.
func (s *safeNodes) heading(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	h := n.(*ast.Heading)
	if entering {
		fmt.Fprintf(w, `<p class="md-h md-h%d">`, h.Level)
	} else {
		w.WriteString("</p>\n")
	}
	return ast.WalkContinue, nil
}

// checkbox renders a task-list box with an accessible name.
func (s *safeNodes) checkbox(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if n.(*east.TaskCheckBox).IsChecked {
		w.WriteString(`<input type="checkbox" checked disabled aria-label="done"> `)
	} else {
		w.WriteString(`<input type="checkbox" disabled aria-label="not done"> `)
	}
	return ast.WalkContinue, nil
}

func (s *safeNodes) rawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		template.HTMLEscape(w, seg.Value(src))
	}
	return ast.WalkSkipChildren, nil
}

func (s *safeNodes) htmlBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	w.WriteString(`<p class="raw-html">`)
	lines := b.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		template.HTMLEscape(w, seg.Value(src))
	}
	if b.HasClosure() {
		template.HTMLEscape(w, b.ClosureLine.Value(src))
	}
	w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

func linesOf(n ast.Node, src []byte) string {
	var buf bytes.Buffer
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		buf.Write(seg.Value(src))
	}
	return buf.String()
}

func (s *safeNodes) fenced(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	b := n.(*ast.FencedCodeBlock)
	lang := ""
	if b.Info != nil {
		lang = string(b.Language(src))
	}
	w.WriteString(string(s.hl.Block(lang, "", linesOf(n, src))))
	return ast.WalkSkipChildren, nil
}

func (s *safeNodes) indented(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	w.WriteString(string(s.hl.Block("", "", linesOf(n, src))))
	return ast.WalkSkipChildren, nil
}

func (s *safeNodes) image(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	img := n.(*ast.Image)
	alt := nodeText(img, src)
	w.WriteString(`<a class="md-image"`)
	if linkable(img.Destination) {
		w.WriteString(` href="`)
		w.Write(util.EscapeHTML(util.URLEscape(img.Destination, true)))
		w.WriteString(`"`)
	}
	w.WriteString(` rel="nofollow noopener noreferrer">image: `)
	if alt == "" {
		alt = string(img.Destination)
	}
	template.HTMLEscape(w, []byte(alt))
	w.WriteString("</a>")
	return ast.WalkSkipChildren, nil
}

func nodeText(n ast.Node, src []byte) string {
	var buf bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			buf.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return buf.String()
}

func (s *safeNodes) link(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	l := n.(*ast.Link)
	if !entering {
		w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	w.WriteString("<a")
	if linkable(l.Destination) {
		w.WriteString(` href="`)
		w.Write(util.EscapeHTML(util.URLEscape(l.Destination, true)))
		w.WriteString(`"`)
	} else {
		// A relative or other link means nothing on the site: keep the
		// text, show the target on hover.
		w.WriteString(` class="no-link" title="`)
		template.HTMLEscape(w, l.Destination)
		w.WriteString(`"`)
	}
	if l.Title != nil {
		w.WriteString(` title="`)
		template.HTMLEscape(w, l.Title)
		w.WriteString(`"`)
	}
	w.WriteString(` rel="nofollow noopener noreferrer">`)
	return ast.WalkContinue, nil
}

func (s *safeNodes) autoLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	l := n.(*ast.AutoLink)
	url := l.URL(src)
	label := l.Label(src)
	if l.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
		url = append([]byte("mailto:"), url...)
	}
	w.WriteString("<a")
	if linkable(url) {
		w.WriteString(` href="`)
		w.Write(util.EscapeHTML(util.URLEscape(url, false)))
		w.WriteString(`"`)
	}
	w.WriteString(` rel="nofollow noopener noreferrer">`)
	template.HTMLEscape(w, label)
	w.WriteString("</a>")
	return ast.WalkContinue, nil
}

// linkable reports a URL worth a link on a published page: absolute http,
// https or mailto. Relative links from a transcript point into someone's
// project, not the site; other schemes may be dangerous.
func linkable(u []byte) bool {
	l := bytes.ToLower(bytes.TrimSpace(u))
	return (bytes.HasPrefix(l, []byte("http://")) || bytes.HasPrefix(l, []byte("https://")) ||
		bytes.HasPrefix(l, []byte("mailto:"))) && !html.IsDangerousURL(u)
}

// Text returns s escaped, in a paragraph-free span of pre-wrapped text.
func Text(s string) template.HTML {
	return template.HTML(`<span class="plain">` + template.HTMLEscapeString(s) + `</span>`)
}
