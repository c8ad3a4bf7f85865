package markup

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// plainParser reads Markdown as Markdown does for pages (GFM), less
// strike-through: a "~" is kept as the character it is in a title.
var plainParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.TaskList, extension.Linkify)).Parser()

// PlainText is what a reader sees of Markdown src, as one line: the text
// of its nodes (emphasis, code backticks, heading and list marks and a
// link's URL gone; escapes and entities resolved), raw HTML kept as the
// text it is, white space folded to single spaces. It is a string, never
// HTML: whoever shows it escapes it.
func PlainText(src string) string {
	source := []byte(src)
	doc := plainParser.Parse(text.NewReader(source))
	var b strings.Builder
	lines := func(n ast.Node) {
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(source))
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock {
				b.WriteByte(' ')
			}
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			v := n.Segment.Value(source)
			if _, code := n.Parent().(*ast.CodeSpan); !code {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			b.Write(v)
			if n.SoftLineBreak() || n.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(n.Value)
		case *ast.AutoLink:
			b.Write(n.Label(source))
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(source))
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines(n)
		case *ast.HTMLBlock:
			lines(n)
			if n.HasClosure() {
				b.Write(n.ClosureLine.Value(source))
			}
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}
