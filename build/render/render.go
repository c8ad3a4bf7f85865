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
	"text/template/parse"

	"ccsite/templates"
)

// Templates renders pages with the templates of a theme folder.
type Templates struct {
	t    *template.Template
	pool sync.Pool
	// fast names the blocks written by Go code (fast.go): those with code
	// there that no theme file redefines.
	fast map[string]bool
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
	ts := &Templates{fast: map[string]bool{}}
	ts.pool.New = func() any { return new(bytes.Buffer) }
	t := template.New("").Funcs(template.FuncMap{
		"partial": func(string, any) (template.HTML, error) { return "", nil },
		"items":   func([]Item) (template.HTML, error) { return "", nil },
		"num":     num,
		"join":    strings.Join,
		"base":    func(p string) string { return path.Base(strings.ReplaceAll(p, `\`, "/")) },
		"icon":    icon,
		"safeURL": safeURL,
		"plural":  plural,
		"pack":    pack,
	})
	for name := range fastBlocks {
		ts.fast[name] = true
	}
	for _, f := range files {
		var before map[string]*parse.Tree
		if !builtinFile(f) {
			before = trees(t)
		}
		if _, err := t.New(f.Name).Parse(string(f.Data)); err != nil {
			return nil, fmt.Errorf("parse template %s: %w", f.Name, err)
		}
		if before != nil {
			// A block this file defines is the theme's: run from its
			// template.
			for name, tree := range trees(t) {
				if before[name] != tree {
					delete(ts.fast, name)
				}
			}
		}
	}
	if t.Lookup("layout") == nil {
		return nil, fmt.Errorf("templates define no \"layout\"")
	}
	// partial executes a named template into HTML, so a page can pick the
	// template for each item by its kind.
	t.Funcs(template.FuncMap{"partial": ts.partial, "items": ts.items})
	ts.t = t
	return ts, nil
}

// builtinFile reports whether f is one of the built-in template files as
// ccsite ships it.
func builtinFile(f File) bool {
	data, err := fs.ReadFile(templates.FS, path.Base(f.Name))
	return err == nil && bytes.Equal(data, f.Data)
}

func trees(t *template.Template) map[string]*parse.Tree {
	m := map[string]*parse.Tree{}
	for _, d := range t.Templates() {
		m[d.Name()] = d.Tree
	}
	return m
}

// Slow makes every block run from its template, as when a theme
// redefines it (for tests comparing the two).
func (ts *Templates) Slow() { ts.fast = map[string]bool{} }

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
