package markup

import (
	"reflect"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// fastMarkdown is chroma's markdownLexer (a RegexLexer behind a
// Tokenise that highlights a leading YAML front matter first) over the
// fast lexer.
type fastMarkdown struct {
	chroma.Lexer // chroma's, for the config and the rest
	inner        *fastLexer
}

// newFastMarkdown wraps chroma's markdown lexer, or returns nil for any
// other.
func newFastMarkdown(l chroma.Lexer) chroma.Lexer {
	v := reflect.ValueOf(l)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Type().String() != "*lexers.markdownLexer" {
		return nil
	}
	f := v.Elem().FieldByName("Lexer")
	if !f.IsValid() || v.Elem().NumField() != 1 {
		return nil
	}
	inner, ok := f.Interface().(chroma.Lexer)
	if !ok {
		return nil
	}
	fast, ok := newFastLexer(inner).(*fastLexer)
	if !ok {
		return nil
	}
	return &fastMarkdown{Lexer: l, inner: fast}
}

// Tokenise is markdownLexer.Tokenise (chroma v2.27).
func (m *fastMarkdown) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	frontmatter, rest, ok := splitFrontmatter(text)
	if !ok {
		return m.body(options, text)
	}
	yaml := lexers.Get("YAML")
	if yaml == nil {
		return m.body(options, text)
	}
	yamlTokens, err := yaml.Tokenise(options, frontmatter)
	if err != nil {
		return nil, err
	}
	mdTokens, err := m.body(options, rest)
	if err != nil {
		return nil, err
	}
	return chroma.Concaterator(yamlTokens, mdTokens), nil
}

// body lexes the text after any front matter: scanned by hand (mdTokens)
// when it is lexed from the start as chroma's highlighting does, else with
// chroma's rules.
func (m *fastMarkdown) body(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	if options == nil {
		if toks, ok := mdTokens(text, m.inner.registry); ok {
			return chroma.Literator(toks...), nil
		}
	}
	return m.inner.Tokenise(options, text)
}

// splitFrontmatter is chroma's: a leading block between --- lines.
func splitFrontmatter(text string) (frontmatter string, rest string, ok bool) {
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return "", text, false
	}
	lineEnd := strings.IndexByte(text, '\n')
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
