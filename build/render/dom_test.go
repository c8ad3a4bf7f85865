package render_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// parseHTML parses a whole page, or a fragment as the body of one.
func parseHTML(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return doc
}

// walk calls fn for every element under n, in document order.
func walk(n *html.Node, fn func(*html.Node)) {
	if n.Type == html.ElementNode {
		fn(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

// textOf is the text a reader sees under n: text nodes in document order,
// scripts and styles left out, white space collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style):
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// rawTextOf is textOf without collapsing white space.
func rawTextOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// find returns the elements under n for which match is true.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(n, func(e *html.Node) {
		if match(e) {
			out = append(out, e)
		}
	})
	return out
}

func byClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return hasClass(n, class) }
}

// idProblems reports duplicate ids and in-page links (href="#x") whose
// target is not on the page.
func idProblems(doc *html.Node) []string {
	ids := map[string]int{}
	walk(doc, func(n *html.Node) {
		if id, ok := attr(n, "id"); ok {
			ids[id]++
		}
	})
	var out []string
	for id, n := range ids {
		if n > 1 {
			out = append(out, fmt.Sprintf("id %q used %d times", id, n))
		}
	}
	walk(doc, func(n *html.Node) {
		href, ok := attr(n, "href")
		if !ok || !strings.HasPrefix(href, "#") || href == "#" {
			return
		}
		if ids[href[1:]] == 0 {
			out = append(out, fmt.Sprintf("link %q (%s) points at no id on the page", href, textOf(n)))
		}
	})
	sort.Strings(out)
	return out
}
