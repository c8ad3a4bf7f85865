package markup

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// gfm is GitHub-flavoured Markdown as GitHub reads it: goldmark's GFM
// extensions, but strikethrough only between two tildes (~~gone~~).
// goldmark's Strikethrough (v1.8.7, without an option for it) also takes
// one tilde, which struck through paths such as iCloud's
// com~apple~CloudDocs. Struck text is still goldmark's Strikethrough node,
// drawn by its renderer (<del>).
var gfm goldmark.Extender = gfmExtension{}

type gfmExtension struct{}

func (gfmExtension) Extend(m goldmark.Markdown) {
	extension.Linkify.Extend(m)
	extension.Table.Extend(m)
	extension.TaskList.Extend(m)
	m.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(doubleTilde{}, 500)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(
		util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500)))
}

// doubleTilde parses a run of exactly two tildes as a strikethrough
// delimiter; any other run of tildes is text.
type doubleTilde struct{}

func (doubleTilde) Trigger() []byte { return []byte{'~'} }

func (doubleTilde) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	if before == '~' {
		return nil // inside a longer run
	}
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 2, doubleTilde{})
	if d == nil || d.OriginalLength != 2 {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (doubleTilde) CloseBlock(parent ast.Node, pc parser.Context) {}

// IsDelimiter, CanOpenCloser and OnMatch make doubleTilde the delimiter
// processor of its own runs.
func (doubleTilde) IsDelimiter(b byte) bool { return b == '~' }

func (doubleTilde) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.Length == 2 && closer.Length == 2
}

func (doubleTilde) OnMatch(consumes int) ast.Node { return east.NewStrikethrough() }
