package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Templates renders pages with the templates of a theme folder.
type Templates struct {
	t    *template.Template
	pool sync.Pool
}

// Load parses every *.html template in fsys.
func Load(fsys fs.FS) (*Templates, error) {
	ts := &Templates{}
	ts.pool.New = func() any { return new(bytes.Buffer) }
	t := template.New("").Funcs(template.FuncMap{
		"partial": func(string, any) (template.HTML, error) { return "", nil },
		"num":     num,
		"join":    strings.Join,
		"base":    func(p string) string { return path.Base(strings.ReplaceAll(p, `\`, "/")) },
		"icon":    icon,
		"safeURL": safeURL,
		"plural":  plural,
	})
	t, err := t.ParseFS(fsys, "*.html")
	if err != nil {
		return nil, fmt.Errorf("parse templates: %w", err)
	}
	// partial executes a named template into HTML, so a page can pick the
	// template for each item by its kind.
	t.Funcs(template.FuncMap{"partial": ts.partial})
	ts.t = t
	return ts, nil
}

func (ts *Templates) partial(name string, data any) (template.HTML, error) {
	if ts.t.Lookup(name) == nil {
		return "", fmt.Errorf("no template %q", name)
	}
	buf := ts.pool.Get().(*bytes.Buffer)
	buf.Reset()
	defer ts.pool.Put(buf)
	if err := ts.t.ExecuteTemplate(buf, name, data); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil
}

// Page writes a whole page.
func (ts *Templates) Page(w io.Writer, p *Page) error {
	p.Root = strings.Repeat("../", strings.Count(p.Path, "/"))
	return ts.t.ExecuteTemplate(w, "layout", p)
}

func num(v any) string {
	switch n := v.(type) {
	case int:
		return thousands(int64(n))
	case int64:
		return thousands(n)
	}
	return fmt.Sprint(v)
}

func icon(name string) string {
	switch name {
	case "compact":
		return "⇊"
	case "error":
		return "!"
	case "hook":
		return "↪"
	case "clock":
		return "◔"
	case "model":
		return "⇄"
	case "command":
		return "›"
	case "stop":
		return "■"
	case "attach":
		return "+"
	case "pr":
		return "⇡"
	}
	return "•"
}

// plural writes "1 turn", "2 turns", "1,204 tool calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(int64(n)) + " " + noun + "s"
}
