// Package theme resolves a site's templates and assets as one overlay: a
// user's folder over a built-in theme over the defaults, file by file, and
// for templates down to a single {{define}} block.
package theme

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"ccsite/assets"
	"ccsite/templates"
)

// builtin holds the built-in themes, one folder each, overriding defaults
// by relative path (templates/…, assets/…).
//
//go:embed all:builtin
var builtin embed.FS

// Default is the name of the default theme.
const Default = "default"

// Names lists the built-in themes, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(builtin, "builtin")
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// Theme is a stack of layers, lowest first: defaults, a built-in theme, a
// user's folder.
type Theme struct {
	Name   string
	layers []fs.FS
}

// File is a template file in parse order.
type File struct {
	Name string // "templates/x.html" of the layer it came from
	Data []byte
}

// ErrUnknown is returned for a theme name that is not built in.
var ErrUnknown = errors.New("unknown theme")

// Open returns the theme name ("" for the default) with dir, when set,
// over it.
func Open(name, dir string) (*Theme, error) {
	if name == "" {
		name = Default
	}
	t := &Theme{Name: name, layers: []fs.FS{defaults()}}
	found := false
	for _, n := range Names() {
		if n == name {
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("%w %q (built in: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	sub, err := fs.Sub(builtin, path.Join("builtin", name))
	if err != nil {
		return nil, err
	}
	t.layers = append(t.layers, sub)
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("theme folder: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("theme folder %s is not a folder", dir)
		}
		t.layers = append(t.layers, os.DirFS(dir))
	}
	return t, nil
}

// defaults joins the embedded templates and assets as one folder tree.
func defaults() fs.FS {
	return prefixFS{"templates": templates.FS, "assets": assets.FS}
}

// prefixFS mounts file systems under top-level folder names.
type prefixFS map[string]fs.FS

func (p prefixFS) Open(name string) (fs.File, error) {
	top, rest, _ := strings.Cut(name, "/")
	sub, ok := p[top]
	if !ok {
		if name == "." {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if rest == "" {
		rest = "."
	}
	return sub.Open(rest)
}

func (p prefixFS) ReadDir(name string) ([]fs.DirEntry, error) {
	top, rest, _ := strings.Cut(name, "/")
	sub, ok := p[top]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	if rest == "" {
		rest = "."
	}
	return fs.ReadDir(sub, rest)
}

// list returns the files of a folder ("templates" or "assets") in a layer,
// skipping Go sources, sorted.
func list(layer fs.FS, dir string) []string {
	var out []string
	_ = fs.WalkDir(layer, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && !strings.HasSuffix(p, ".go") && !strings.HasPrefix(path.Base(p), ".") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Templates returns every template file to parse, in order: each layer's
// templates/*.html from the lowest up, a file shadowed by a higher layer's
// file of the same path left out. Parsing in this order lets a later file
// redefine any {{define}} block of an earlier one.
func (t *Theme) Templates() ([]File, error) {
	top := map[string]int{}
	for i, l := range t.layers {
		for _, p := range list(l, "templates") {
			top[p] = i
		}
	}
	var out []File
	for i, l := range t.layers {
		for _, p := range list(l, "templates") {
			if top[p] != i || !strings.HasSuffix(p, ".html") {
				continue
			}
			data, err := fs.ReadFile(l, p)
			if err != nil {
				return nil, fmt.Errorf("theme %s: %w", p, err)
			}
			out = append(out, File{Name: p, Data: data})
		}
	}
	return out, nil
}

// Assets returns the asset names (relative to assets/), from every layer,
// sorted.
func (t *Theme) Assets() []string {
	seen := map[string]bool{}
	for _, l := range t.layers {
		for _, p := range list(l, "assets") {
			seen[strings.TrimPrefix(p, "assets/")] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Asset returns an asset from the highest layer that has it.
func (t *Theme) Asset(name string) ([]byte, error) {
	for i := len(t.layers) - 1; i >= 0; i-- {
		data, err := fs.ReadFile(t.layers[i], path.Join("assets", name))
		if err == nil {
			return data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("theme asset %s: %w", name, fs.ErrNotExist)
}

// Export writes the default templates and assets to dir (templates/,
// assets/) for editing; a theme folder holding any of them overrides the
// defaults. It refuses to overwrite an existing file.
func Export(dir string) ([]string, error) {
	d := defaults()
	var files []string
	for _, top := range []string{"templates", "assets"} {
		files = append(files, list(d, top)...)
	}
	// Check everything first: a refusal writes nothing.
	for _, p := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Stat(target); err == nil {
			return nil, fmt.Errorf("%s exists; export into an empty folder", target)
		}
	}
	var written []string
	{
		for _, p := range files {
			target := filepath.Join(dir, filepath.FromSlash(p))
			data, err := fs.ReadFile(d, p)
			if err != nil {
				return written, err
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return written, err
			}
			if err := os.WriteFile(target, data, 0o644); err != nil {
				return written, err
			}
			written = append(written, p)
		}
	}
	return written, nil
}
