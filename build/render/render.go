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

// Load parses every *.html template in fsys (the defaults, for tests).
func Load(fsys fs.FS) (*Templates, error) {
	names, err := fs.Glob(fsys, "*.html")
	if err != nil {
		return nil, err
	}
	var files []File
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: n, Data: data})
	}
	return LoadFiles(files)
}

// File is a template file's name and text.
type File struct {
	Name string
	Data []byte
}

// LoadFiles parses template files in order: a later file may redefine any
// {{define}} block of an earlier one (a theme's override).
func LoadFiles(files []File) (*Templates, error) {
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
		"pack":    pack,
	})
	for _, f := range files {
		if _, err := t.New(f.Name).Parse(string(f.Data)); err != nil {
			return nil, fmt.Errorf("parse template %s: %w", f.Name, err)
		}
	}
	if t.Lookup("layout") == nil {
		return nil, fmt.Errorf("templates define no \"layout\"")
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
