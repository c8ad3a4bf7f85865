package markup

import (
	"html/template"
	"regexp"
	"strings"

	terminal "github.com/buildkite/terminal-to-html/v3"
)

// ANSI renders terminal output: SGR colours become classes (term-fg31,
// term-bold, …), carriage-return rewrites and cursor moves are applied as a
// terminal would, and everything else is escaped. Inline-image escapes
// become a marker (a page never loads a remote resource) and hyperlinks
// keep only http(s) targets.
func ANSI(s string) template.HTML {
	if !needsTerminal(s) {
		return template.HTML(template.HTMLEscapeString(s))
	}
	out := terminal.Render([]byte(s))
	out = reTermImg.ReplaceAllString(out, `<span class="term-img">[image]</span>`)
	out = reTermHref.ReplaceAllStringFunc(out, func(m string) string {
		u := strings.ToLower(reTermHref.FindStringSubmatch(m)[1])
		if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			return m[:len(m)-1] + ` rel="nofollow noopener noreferrer">`
		}
		return `<a>`
	})
	return template.HTML(out)
}

// needsTerminal tells whether s holds what a terminal renders (else it is
// only escaped).
func needsTerminal(s string) bool { return strings.ContainsAny(s, "\x1b\r\b") }

var (
	reTermImg  = regexp.MustCompile(`<img [^>]*>`)
	reTermHref = regexp.MustCompile(`<a href="([^"]*)">`)
)
