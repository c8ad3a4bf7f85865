package render

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"ccsite/build/markup"
)

// A session page is mostly Claude's answers and their tool calls, and
// text/template spends most of a page's time on them: a reflective call
// for every value it prints (html/template escapes each through a
// function) and for every eq of the kind switches. The blocks below write
// the same bytes as the templates of the same name in templates/ (which
// stay the definition: a theme overrides them there) straight into a
// buffer: an item's frame, an answer with its text, thinking and tool
// cards, and the Bash and file cards with their output. The way in is
// {{items .Items}}; every other block runs from its template (the layout,
// a session's header, turns and tail, prompts, events and the rarer
// items and cards), and so does any block a theme redefines. Without
// these few a warm --force build is past its budget; the others gained
// too little to keep a second copy of (BenchmarkPage times the templates
// of whole pages). TestFastMatchesTemplates renders the test cases, a
// hostile transcript and (with $CCSITE_CORPUS) every corpus session both
// ways and compares the pages byte for byte; TestFastEscapes does so for
// hostile values of every field.
//
// The escaping copies html/template's own (html.go and url.go of Go's
// html/template: htmlReplacementTable, urlProcessor, isSafeURL), for the
// contexts these blocks print into: text, quoted attributes and URL
// attributes. A value in any other context (a script) goes through a
// template: a deferred tool body is written by its template.

// fastBlocks are the blocks written by Go code while no theme redefines
// them (set in init: the blocks call one another through it).
var fastBlocks map[string]func(w *fastWriter, data any) bool

func init() {
	fastBlocks = map[string]func(w *fastWriter, data any) bool{
		"item":          (*fastWriter).item,
		"clock":         (*fastWriter).clock,
		"item/answer":   (*fastWriter).answer,
		"part/text":     (*fastWriter).partText,
		"part/thinking": (*fastWriter).partThinking,
		"part/tool":     (*fastWriter).partTool,
		"tool":          (*fastWriter).tool,
		"tool-body":     (*fastWriter).toolBody,
		"output":        (*fastWriter).output,
		"output-body":   (*fastWriter).outputBody,
		"tool/bash":     (*fastWriter).bash,
		"terminal":      (*fastWriter).terminal,
		"tool/file":     (*fastWriter).file,
	}
}

// fastWriter writes blocks into b; err is the first error of a block
// executed from its template.
type fastWriter struct {
	ts  *Templates
	b   *bytes.Buffer
	err error
}

// items writes the items of a turn, a branch or a warmup ({{items .Items}}).
func (ts *Templates) items(items []Item) (template.HTML, error) {
	buf := ts.pool.Get().(*bytes.Buffer)
	buf.Reset()
	defer ts.pool.Put(buf)
	w := &fastWriter{ts: ts, b: buf}
	for i := range items {
		w.call("item", &items[i])
		if w.err != nil {
			return "", w.err
		}
	}
	return template.HTML(buf.String()), nil
}

// call writes block name for data: by its Go code when the theme keeps
// the built-in block and data is of a type the code knows, else by its
// template (an error when there is none, as {{partial}} gives).
func (w *fastWriter) call(name string, data any) {
	if w.err != nil {
		return
	}
	if f := fastBlocks[name]; f != nil && w.ts.fast[name] && f(w, data) {
		return
	}
	if w.ts.t.Lookup(name) == nil {
		w.err = fmt.Errorf("no template %q", name)
		return
	}
	w.err = w.ts.t.ExecuteTemplate(w.b, name, data)
}

func (w *fastWriter) s(s string) { w.b.WriteString(s) }

// text writes s escaped for HTML text (and quoted attribute values: the
// two share html/template's table).
func (w *fastWriter) text(s string) {
	written := 0
	for i := markup.NextEscaped(s, 0, true); i < len(s); i = markup.NextEscaped(s, i+1, true) {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		w.b.WriteString(s[written:i])
		w.b.WriteString(repl)
		written = i + 1
	}
	w.b.WriteString(s[written:])
}

// attr is a string in a quoted attribute value.
func (w *fastWriter) attr(s string) { w.text(s) }

func (w *fastWriter) int(n int) { w.b.WriteString(strconv.Itoa(n)) }

// html writes trusted markup as it is (template.HTML in text).
func (w *fastWriter) html(h template.HTML) { w.b.WriteString(string(h)) }

// url writes a string as a whole URL attribute (href="{{.}}"): a scheme
// other than http, https or mailto is refused, the rest normalized.
func (w *fastWriter) url(s string) {
	if !isSafeURL(s) {
		w.s("#ZgotmplZ")
		return
	}
	w.attr(processURL(s, true))
}

// trustedURL is a template.URL as a whole URL attribute.
func (w *fastWriter) trustedURL(u template.URL) { w.attr(processURL(string(u), true)) }

// urlPart is a string after the start of a URL (href="#{{.}}"): every
// byte but the unreserved ones percent-encoded.
func (w *fastWriter) urlPart(s string) { w.attr(processURL(s, false)) }

func isSafeURL(s string) bool {
	if protocol, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(protocol, "/") {
		if !strings.EqualFold(protocol, "http") && !strings.EqualFold(protocol, "https") && !strings.EqualFold(protocol, "mailto") {
			return false
		}
	}
	return true
}

func processURL(s string, norm bool) string {
	var b []byte
	written := 0
	for i, n := 0, len(s); i < n; i++ {
		c := s[i]
		switch c {
		case '!', '#', '$', '&', '*', '+', ',', '/', ':', ';', '=', '?', '@', '[', ']':
			if norm {
				continue
			}
		case '-', '.', '_', '~':
			continue
		case '%':
			if norm && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				continue
			}
		default:
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				continue
			}
		}
		if b == nil {
			b = make([]byte, 0, len(s)+16)
		}
		b = append(b, s[written:i]...)
		b = append(b, '%', hexDigit[c>>4], hexDigit[c&15])
		written = i + 1
	}
	if b == nil {
		return s
	}
	return string(append(b, s[written:]...))
}

const hexDigit = "0123456789abcdef"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// The blocks. Each returns false, writing nothing, when data is not of
// the type its template is given, so the template runs instead.

func (w *fastWriter) item(data any) bool {
	it, ok := data.(*Item)
	if !ok {
		return false
	}
	w.s(`<div class="item kind-`)
	w.attr(it.Kind)
	w.s(`"`)
	if it.Anchor != "" {
		w.s(` id="`)
		w.attr(it.Anchor)
		w.s(`"`)
	}
	w.s(` data-line="`)
	w.int(it.Line)
	w.s("\">\n<div class=\"item-body\">")
	w.call("item/"+it.Kind, it.Data)
	w.s("\n")
	for _, f := range it.Forks {
		w.s(`<p class="fork-note"><a href="#`)
		w.urlPart(f.Anchor)
		w.s(`">↳ Abandoned branch `)
		w.int(f.Index)
		w.s(` starts here</a></p>`)
	}
	w.s("</div>\n<div class=\"item-meta\">")
	if !it.Time.Zero {
		w.call("clock", it.Time)
	}
	if it.Anchor != "" {
		w.s(`<a class="anchor" href="#`)
		w.urlPart(it.Anchor)
		w.s(`" aria-label="Link to this message" title="Copy link">#</a>`)
	}
	w.s("</div>\n</div>")
	for i := range it.Branches {
		w.call("branch", it.Branches[i])
	}
	return true
}

func (w *fastWriter) clock(data any) bool {
	t, ok := data.(Time)
	if !ok {
		return false
	}
	w.s(`<time class="short" datetime="`)
	w.attr(t.ISO)
	w.s(`" title="`)
	w.attr(t.UTC)
	w.s(`">`)
	w.text(t.Clock)
	w.s(`</time>`)
	return true
}

func (w *fastWriter) answer(data any) bool {
	a, ok := data.(Answer)
	if !ok {
		return false
	}
	w.s(`<div class="msg assistant`)
	if a.Synthetic {
		w.s(` synthetic`)
	}
	if a.Error {
		w.s(` api-error`)
	}
	if len(a.Parts) == 0 {
		w.s(` empty`)
	}
	w.s("\">\n<div class=\"who\">")
	w.text(a.Who)
	if a.Model != "" {
		w.s(` <span class="model">`)
		w.text(a.Model)
		w.s(`</span>`)
	}
	if a.Cost != "" {
		w.s(` <span class="cost muted" title="What this answer cost">`)
		w.text(a.Cost)
		w.s(`</span>`)
	}
	if a.Synthetic {
		w.s(` <span class="muted">(written by Claude Code, not the model)</span>`)
	}
	if a.Error {
		w.s(` <span class="badge error">API error</span>`)
	}
	w.s("</div>\n")
	for _, p := range a.Parts {
		w.call("part/"+p.Kind, p.Data)
	}
	w.s("\n</div>")
	return true
}

func (w *fastWriter) partText(data any) bool {
	h, ok := data.(template.HTML)
	if !ok {
		return false
	}
	w.s(`<div class="md">`)
	w.html(h)
	w.s(`</div>`)
	return true
}

func (w *fastWriter) partThinking(data any) bool {
	c, ok := data.(Collapsible)
	if !ok {
		return false
	}
	w.s(`<details class="thinking"><summary>Thinking <span class="muted">· `)
	w.text(num(c.Chars))
	w.s(` characters</span></summary><div class="md">`)
	w.html(c.Body)
	w.s(`</div></details>`)
	return true
}

func (w *fastWriter) image(data any, altPre, altPost string) bool {
	img, ok := data.(Image)
	if !ok {
		return false
	}
	w.s(`<img class="shot" src="`)
	w.trustedURL(img.Src)
	w.s(`" alt="`)
	w.s(altPre)
	w.attr(img.Alt)
	w.s(altPost)
	w.s(`" loading="lazy">`)
	return true
}

func (w *fastWriter) partTool(data any) bool {
	w.call("tool", data)
	return true
}

// view is data as a *T when it is a T or a non-nil *T (a template reads
// either alike), else nil.
func view[T any](data any) *T {
	switch d := data.(type) {
	case T:
		return &d
	case *T:
		return d
	}
	return nil
}

func (w *fastWriter) tool(data any) bool {
	t := view[ToolView](data)
	if t == nil || t.Fold.Defer {
		// A deferred body is a JSON string in a script: its template
		// escapes it.
		return false
	}
	w.s(`<div class="tool-line"><details class="tool tool-`)
	w.attr(t.Kind)
	w.s(` status-`)
	w.attr(t.Status)
	if t.Orphan {
		w.s(` orphan`)
	}
	w.s(`" id="`)
	w.attr(t.Anchor)
	w.s(`" aria-label="`)
	w.attr(t.Name)
	w.s(" call\">\n<summary class=\"tool-head\">")
	if t.ResultAnchor != "" {
		w.s(`<span class="result-anchor" id="`)
		w.attr(t.ResultAnchor)
		w.s(`"></span>`)
	}
	w.s(`<span class="tool-name">`)
	if t.Server != "" {
		w.s(`<span class="mcp">`)
		w.text(t.Server)
		w.s(`</span> `)
		w.text(t.Tool)
	} else {
		w.text(t.Name)
	}
	w.s("</span>\n")
	if t.Summary != "" {
		w.s(`<span class="tool-summary">`)
		w.text(t.Summary)
		w.s(`</span>`)
	}
	w.s("\n")
	if t.Fold.Edit || t.Fold.Took != "" || t.Status == "ok" {
		w.s(`<span class="fold">`)
		if t.Fold.Edit {
			w.s(`<span class="added">+`)
			w.int(t.Fold.Added)
			w.s(`</span> <span class="removed">−`)
			w.int(t.Fold.Removed)
			w.s(`</span>`)
		}
		if t.Fold.Took != "" {
			w.s(` <span class="took">`)
			w.text(t.Fold.Took)
			w.s(`</span>`)
		}
		if t.Status == "ok" {
			w.s(` <span class="ok" title="Succeeded">✓</span>`)
		}
		w.s(`</span>`)
	}
	w.s("\n<span class=\"tool-status\">")
	switch t.Status {
	case "error":
		w.s(`<span class="badge error">error</span>`)
	case "interrupted":
		w.s(`<span class="badge warn">interrupted</span>`)
	case "pending":
		w.s(`<span class="badge">no result</span>`)
	case "rejected":
		w.s(`<span class="badge warn">rejected</span>`)
	}
	if t.Orphan {
		w.s(`<span class="badge warn">result without its call</span>`)
	}
	if t.Progress != 0 {
		w.s(` <span class="muted">`)
		w.text(plural(t.Progress, "progress update"))
		w.s(`</span>`)
	}
	w.s("</span></summary>\n")
	w.call("tool-body", data)
	w.s("\n</details><a class=\"anchor\" href=\"#")
	w.urlPart(t.Anchor)
	w.s("\" aria-label=\"Link to this tool call\">#</a></div>")
	return true
}

// toolBody names the tool's view by its kind: the template does so with
// {{template}} for the kinds it knows, {{partial}} for the others, which
// write the same.
func (w *fastWriter) toolBody(data any) bool {
	t := view[ToolView](data)
	if t == nil {
		return false
	}
	w.s(`<div class="tool-body"`)
	if t.ResultAnchor != "" {
		w.s(` data-result="`)
		w.attr(t.ResultAnchor)
		w.s(`"`)
	}
	w.s(">\n")
	w.call("tool/"+t.Kind, t.Data)
	w.s("\n")
	if t.Result != nil {
		w.call("output", t.Result)
	}
	w.s("\n")
	if t.Error != "" {
		w.s(`<pre class="tool-error">`)
		w.html(t.Error)
		w.s(`</pre>`)
	}
	w.s("\n</div>")
	return true
}

func (w *fastWriter) output(data any) bool {
	o, ok := data.(*Output)
	if !ok || o == nil {
		return false
	}
	if o.HTML != "" {
		if o.Long {
			w.s(`<details class="out"><summary>Output · `)
			w.text(o.Size)
			w.s(`</summary>`)
			w.call("output-body", data)
			w.s(`</details>`)
		} else {
			w.call("output-body", data)
		}
	}
	for _, img := range o.Images {
		w.image(img, "Tool output image (", ")")
	}
	for _, s := range o.Withheld {
		w.s(`<p class="image-withheld muted">Image not shown (`)
		w.text(s)
		w.s(`): its data could not be read.</p>`)
	}
	if len(o.Links) > 0 {
		w.s(`<details class="out"><summary>`)
		w.text(plural(len(o.Links), "result"))
		w.s(`</summary><ul class="links">`)
		for _, l := range o.Links {
			w.s(`<li><a href="`)
			w.url(l.URL)
			w.s(`" rel="nofollow noopener noreferrer">`)
			w.text(l.Title)
			w.s(`</a></li>`)
		}
		w.s(`</ul></details>`)
	}
	return true
}

func (w *fastWriter) outputBody(data any) bool {
	o, ok := data.(*Output)
	if !ok || o == nil {
		return false
	}
	if o.JSON {
		w.html(o.HTML)
	} else {
		w.s(`<pre class="term-out">`)
		w.html(o.HTML)
		w.s(`</pre>`)
	}
	return true
}

func (w *fastWriter) bash(data any) bool {
	v := view[BashView](data)
	if v == nil {
		return false
	}
	if v.Background {
		w.s(`<p class="tool-desc"><span class="badge">runs in the background</span></p>`)
	}
	w.s("\n")
	if v.CommandLong {
		w.s(`<details class="out"><summary>Command · `)
		w.text(v.CommandSize)
		w.s(`</summary>`)
		w.html(v.Command)
		w.s(`</details>`)
	} else {
		w.html(v.Command)
	}
	w.s("\n")
	w.call("terminal", v.Out)
	if v.ExitNote != "" {
		w.s(`<p class="muted">`)
		w.text(v.ExitNote)
		w.s(`</p>`)
	}
	return true
}

func (w *fastWriter) terminal(data any) bool {
	sh := view[Shell](data)
	if sh == nil {
		return false
	}
	w.s(`<div class="terminal`)
	if sh.Long {
		w.s(` long`)
	}
	w.s("\">\n")
	if sh.Input != "" {
		w.s(`<pre class="term-in"><span class="prompt-sign" aria-hidden="true">$ </span>`)
		w.html(sh.Input)
		w.s(`</pre>`)
	}
	w.s("\n")
	if sh.Stdout != "" || sh.Stderr != "" {
		if sh.Long {
			w.s(`<details class="out"><summary>Output · `)
			w.text(sh.Size)
			w.s(`</summary>`)
		}
		w.s("\n")
		if sh.JSON {
			w.html(sh.Stdout)
		} else if sh.Stdout != "" {
			w.s(`<pre class="term-out">`)
			w.html(sh.Stdout)
			w.s(`</pre>`)
		}
		w.s("\n")
		if sh.Stderr != "" {
			w.s(`<pre class="term-err">`)
			w.html(sh.Stderr)
			w.s(`</pre>`)
		}
		w.s("\n")
		if sh.Long {
			w.s(`</details>`)
		}
	}
	w.s("\n</div>")
	return true
}

func (w *fastWriter) file(data any) bool {
	v := view[FileView](data)
	if v == nil {
		return false
	}
	if v.Range != "" || v.Note != "" || v.Added != 0 || v.Removed != 0 {
		w.s(`<p class="file-line">`)
		if v.Range != "" {
			w.s(`<span class="muted">`)
			w.text(v.Range)
			w.s(`</span>`)
		}
		if v.Note != "" {
			if v.Range != "" {
				w.s(` `)
			}
			w.s(`<span class="badge">`)
			w.text(v.Note)
			w.s(`</span>`)
		}
		if v.Added != 0 || v.Removed != 0 {
			if v.Range != "" || v.Note != "" {
				w.s(` `)
			}
			w.s(`<span class="added">+`)
			w.int(v.Added)
			w.s(`</span> <span class="removed">−`)
			w.int(v.Removed)
			w.s(`</span>`)
		}
		w.s(`</p>`)
	}
	w.s("\n")
	if v.Image != nil {
		w.s(`<img class="shot" src="`)
		w.trustedURL(v.Image.Src)
		w.s(`" alt="`)
		w.attr(v.Path)
		w.s(`" loading="lazy">`)
	}
	w.s("\n")
	if v.Diff != "" {
		if v.Long {
			w.s(`<details class="out"><summary>Diff · `)
			w.text(v.Size)
			w.s(`</summary>`)
			w.html(v.Diff)
			w.s(`</details>`)
		} else {
			w.html(v.Diff)
		}
	}
	w.s("\n")
	if v.Code != "" {
		if v.Long {
			w.s(`<details class="out"><summary>Content · `)
			w.text(v.Size)
			w.s(`</summary>`)
			w.html(v.Code)
			w.s(`</details>`)
		} else {
			w.html(v.Code)
		}
	}
	return true
}
