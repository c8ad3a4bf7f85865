package markup

import (
	"html/template"
	"math"
	"strings"
)

// MaxJSONBytes is the size of JSON text above which JSON stays plain:
// tool results are pretty-printed and highlighted up to it (chroma's JSON
// lexer runs at about 2 MB/s per core; the highlight cache keeps each
// block between builds).
const MaxJSONBytes = 256 << 10

// JSON renders valid JSON text (already indented) as a highlighted code
// block labelled "json", with higher limits than Block: tool results are
// often tens of kilobytes of JSON. Text over MaxJSONBytes is escaped, not
// highlighted. The text being valid, chroma is held to placing every token
// (see limits.strict), so loaded machines do not write garbled blocks.
func (h *Highlighter) JSON(code string) template.HTML {
	var b strings.Builder
	b.WriteString(`<div class="code-block json"><div class="code-head"><span class="code-lang">json</span>`)
	b.WriteString(`<button type="button" class="copy" aria-label="Copy code">Copy</button></div>`)
	b.WriteString(h.code("json", "", code, 0, limits{maxBytes: MaxJSONBytes, maxLines: math.MaxInt, strict: true}))
	b.WriteString(`</div>`)
	return template.HTML(b.String())
}
