package archive

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// walker finds the transcript files under Discover's paths, following
// symbolic links. Files and folders are known by their real path (links
// resolved), so that one reached twice is used once and a link back to a
// folder being walked ends the descent.
type walker struct {
	ctx context.Context
	a   *Archive
	// files and dirs map real paths to the path they were first met by;
	// realOf files' paths to their real paths.
	files  map[string]string
	dirs   map[string]string
	realOf map[string]string
	// stack is the folders being walked, root first.
	stack    []stackDir
	sessions []*SessionFile
	agents   []*AgentFile
	extras   []string
	// claimed are the files another agent read (others); owned the roots
	// it found them under.
	claimed map[string]bool
	owned   map[string]bool
}

type stackDir struct{ real, path string }

func (w *walker) skip(path, reason string) {
	w.a.Skipped = append(w.a.Skipped, Skip{Path: path, Reason: reason})
}

// root walks one of Discover's paths: a folder, or a file taken whatever
// its name.
func (w *walker) root(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		w.skip(root, reason(err))
		return nil
	}
	st, err := os.Stat(abs)
	if err != nil {
		if lst, lerr := os.Lstat(abs); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			w.skip(root, linkReason(abs, err))
		} else {
			w.skip(root, reason(err))
		}
		return nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		w.skip(root, linkReason(abs, err))
		return nil
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			w.skip(root, notRegular(st.Mode()))
			return nil
		}
		w.file(abs, real, st)
		return nil
	}
	if strings.HasSuffix(abs, ".jsonl") {
		w.skip(root, whyDirJSONL)
	}
	if first, ok := w.dirs[real]; ok {
		if first != abs {
			w.skip(root, "same folder as "+first)
		}
		return nil
	}
	return w.dir(abs, real)
}

const whyDirJSONL = "a directory named .jsonl"

// dir walks a folder, path as reached and real its resolved path.
func (w *walker) dir(path, real string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.dirs[real] = path
	w.stack = append(w.stack, stackDir{real, path})
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	entries, err := os.ReadDir(path)
	if err != nil {
		// ReadDir returns what it read before the error: use that too.
		w.skip(path, reason(err))
	}
	for _, e := range entries {
		if err := w.entry(path, real, e); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) entry(dir, realDir string, e fs.DirEntry) error {
	name := e.Name()
	p := filepath.Join(dir, name)
	jsonl := strings.HasSuffix(name, ".jsonl")
	var (
		st    fs.FileInfo
		real  string
		isDir bool
		err   error
	)
	if e.Type()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(p); err != nil {
			w.skip(p, linkReason(p, err))
			return nil
		}
		if real, err = filepath.EvalSymlinks(p); err != nil {
			w.skip(p, linkReason(p, err))
			return nil
		}
		isDir = st.IsDir()
		if isDir {
			if anc, ok := w.ancestor(real); ok {
				if anc.real == real {
					w.skip(p, "symlink loop: leads back to "+anc.path)
				} else {
					w.skip(p, "symlink loop: leads to a folder above "+anc.path)
				}
				return nil
			}
		}
	} else {
		real = filepath.Join(realDir, name)
		isDir = e.IsDir()
		if !isDir {
			if !jsonl && !isToolResultsDir(dir) {
				return nil
			}
			if st, err = e.Info(); err != nil {
				w.skip(p, reason(err))
				return nil
			}
		}
	}
	if isDir {
		if jsonl {
			w.skip(p, whyDirJSONL)
		}
		if first, ok := w.dirs[real]; ok {
			if first != p {
				w.skip(p, "same folder as "+first)
			}
			return nil
		}
		return w.dir(p, real)
	}
	if !jsonl && !isToolResultsDir(dir) {
		return nil
	}
	if !st.Mode().IsRegular() {
		// Never opened: a named pipe would block.
		w.skip(p, notRegular(st.Mode()))
		return nil
	}
	if !jsonl || inSessionTree(p) && !strings.HasPrefix(name, "agent-") {
		if w.seen(p, real) {
			return nil
		}
		w.extras = append(w.extras, p)
		return nil
	}
	w.file(p, real, st)
	return nil
}

// ancestor returns the shallowest folder being walked that is real or lies
// below it: walking real would come back to it.
func (w *walker) ancestor(real string) (stackDir, bool) {
	prefix := strings.TrimSuffix(real, string(filepath.Separator)) + string(filepath.Separator)
	for _, d := range w.stack {
		if d.real == real || strings.HasPrefix(d.real, prefix) {
			return d, true
		}
	}
	return stackDir{}, false
}

// seen reports a file met before, recording it as met; one met before by
// another path is Skipped.
func (w *walker) seen(path, real string) bool {
	if first, ok := w.files[real]; ok {
		if first != path {
			w.skip(path, "same file as "+first)
		}
		return true
	}
	w.files[real] = path
	w.realOf[path] = real
	return false
}

// file adds a transcript, path absolute.
func (w *walker) file(path, real string, st fs.FileInfo) {
	if w.claimed[path] || w.seen(path, real) {
		return
	}
	w.a.Files++
	w.a.Bytes += st.Size()
	if ag := classifyAgent(path, st); ag != nil {
		w.agents = append(w.agents, ag)
		return
	}
	w.sessions = append(w.sessions, &SessionFile{Path: path, Folder: filepath.Dir(path), Size: st.Size(), Info: st})
}

// reason says why err made a path unusable, without the path.
func reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.ELOOP):
		return "symlink loop"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// linkReason says why the symbolic link at path could not be followed.
func linkReason(path string, err error) string {
	switch {
	case errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links"):
		return "symlink loop"
	case errors.Is(err, fs.ErrNotExist):
		if target, rerr := os.Readlink(path); rerr == nil {
			return "broken symlink to " + target
		}
		return "broken symlink"
	}
	return reason(err)
}

// notRegular names what a non-regular, non-folder file is.
func notRegular(m fs.FileMode) string {
	kind := "irregular file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeCharDevice != 0:
		kind = "character device"
	case m&fs.ModeDevice != 0:
		kind = "device"
	}
	return "not a regular file (" + kind + ")"
}

// sortSkips orders Skipped by path, then reason, dropping repeats.
func sortSkips(a *Archive) {
	s := a.Skipped
	sort.Slice(s, func(i, j int) bool {
		if s[i].Path != s[j].Path {
			return s[i].Path < s[j].Path
		}
		return s[i].Reason < s[j].Reason
	})
	out := s[:0]
	for i, sk := range s {
		if i == 0 || sk != s[i-1] {
			out = append(out, sk)
		}
	}
	a.Skipped = out
}
