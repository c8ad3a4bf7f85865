package build

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// siteWriter owns the output folder: every file of the site is written
// through it (pages, exports, media, the static search index, lists,
// assets, the sitemap and the marker). It writes atomically (a temporary
// file and a rename), never through a link, records each file in the
// journal before writing it, leaves a file that already holds the same
// bytes alone when updating a site, stores each medium once, and at the
// end removes what the last build wrote and this one did not.
type siteWriter struct {
	out string
	jr  *journal
	// update is set when a previous site is being updated: files already
	// holding what is written are left alone (their times too, for rsync
	// and static hosts).
	update bool

	mu      sync.Mutex
	files   map[string]bool // slash paths from the root, written or kept
	media   map[string]bool
	written int64 // bytes written
	pages   int   // pages written

	// listed holds, per folder of the site, the names of the regular
	// files it held when exists first looked there (read once: a build
	// keeping thousands of pages and shards checks them with a few
	// directory reads rather than a stat each).
	listMu sync.Mutex
	listed map[string]*dirList
}

type dirList struct {
	once  sync.Once
	names map[string]bool
}

func newSiteWriter(out string, jr *journal, update bool) *siteWriter {
	return &siteWriter{out: out, jr: jr, update: update, files: map[string]bool{}, media: map[string]bool{}}
}

func (w *siteWriter) full(rel string) string { return filepath.Join(w.out, filepath.FromSlash(rel)) }

// write writes a file of the site (a slash path from its root) and
// records it as this build's; it tells whether it wrote (an update leaves
// a file holding data alone).
func (w *siteWriter) write(rel string, data []byte) (bool, error) {
	full := w.full(rel)
	w.mu.Lock()
	w.files[rel] = true
	w.mu.Unlock()
	if w.update && sameContent(full, data) && !linkInPath(w.out, full) {
		return false, nil
	}
	if err := w.jr.add(rel); err != nil {
		return false, err
	}
	if err := writeInside(w.out, full, data); err != nil {
		return false, err
	}
	w.mu.Lock()
	w.written += int64(len(data))
	w.mu.Unlock()
	return true, nil
}

// writePage is write for a page, counted as one.
func (w *siteWriter) writePage(rel string, data []byte) error {
	wrote, err := w.write(rel, data)
	if wrote {
		w.mu.Lock()
		w.pages++
		w.mu.Unlock()
	}
	return err
}

// writeMedium writes a medium (named by its content's hash) once.
func (w *siteWriter) writeMedium(rel string, data []byte) error {
	w.mu.Lock()
	seen := w.media[rel]
	w.media[rel] = true
	w.mu.Unlock()
	if seen {
		return nil
	}
	_, err := w.write(rel, data)
	return err
}

// writeShard writes a file of the static search index, whose name holds
// its content's hash: one already there with that size is this one. It
// is written in place (no page names it until the index's manifest,
// written last through write, and a half-written one has the wrong size,
// so the next build writes it again).
func (w *siteWriter) writeShard(rel string, data []byte) error {
	full := w.full(rel)
	w.mu.Lock()
	w.files[rel] = true
	w.mu.Unlock()
	if linkInPath(w.out, full) {
		if err := safeMkdirAll(w.out, filepath.Dir(full)); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(full)
	if err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		os.Remove(full) // a link: replaced, never written through
	}
	if err := w.jr.add(rel); err != nil {
		return err
	}
	if err := os.WriteFile(full, data, 0o644); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := safeMkdirAll(w.out, filepath.Dir(full)); err != nil {
		return err
	}
	return os.WriteFile(full, data, 0o644)
}

// readShard reads a file of the static search index the site holds: a
// regular file, never through a link.
func (w *siteWriter) readShard(rel string) ([]byte, error) {
	full := w.full(rel)
	if linkInPath(w.out, full) {
		return nil, fmt.Errorf("%s: a link in its path", rel)
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", rel)
	}
	return os.ReadFile(full)
}

// keep records files the last build wrote that this one keeps as they are.
func (w *siteWriter) keep(rels []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range rels {
		w.files[f] = true
		if strings.HasPrefix(f, "media/") {
			w.media[f] = true
		}
	}
}

// exists tells whether every file is in the site, as a regular file (not
// a link), as its folder was when this build first looked at it: it is
// asked of the files a previous build wrote, to keep them.
func (w *siteWriter) exists(rels []string) bool {
	for _, f := range rels {
		dir, name := filepath.Split(w.full(f))
		if !w.list(dir)[name] {
			return false
		}
	}
	return true
}

// list returns the names of the regular files in the folder dir (empty
// when it cannot be read).
func (w *siteWriter) list(dir string) map[string]bool {
	w.listMu.Lock()
	if w.listed == nil {
		w.listed = map[string]*dirList{}
	}
	d := w.listed[dir]
	if d == nil {
		d = &dirList{}
		w.listed[dir] = d
	}
	w.listMu.Unlock()
	d.once.Do(func() {
		entries, _ := os.ReadDir(dir)
		d.names = make(map[string]bool, len(entries))
		for _, e := range entries {
			if e.Type().IsRegular() {
				d.names[e.Name()] = true
			}
		}
	})
	return d.names
}

// prune removes the files the previous build wrote and this one did not,
// then the folders that leaves empty. Files someone else put there
// (CNAME, robots.txt) are not in the marker, and stay.
func (w *siteWriter) prune(previous []string) error {
	dirs := map[string]bool{}
	for _, rel := range previous {
		if strings.Contains(rel, "..") || filepath.IsAbs(rel) {
			continue // a marker edited by hand: never leave the site
		}
		if rel == legacyState || strings.HasPrefix(rel, legacyState+"/") {
			continue // an older build's state: removed with its folder
		}
		full := w.full(rel)
		if w.files[filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))] || linkInPath(w.out, full) {
			continue // (behind a link: not the site's, never removed)
		}
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("clean %s: %w", w.out, err)
		}
		for d := filepath.Dir(full); d != w.out && strings.HasPrefix(d, w.out); d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	for _, d := range list {
		os.Remove(d) // fails, harmlessly, when not empty
	}
	return nil
}

// writeMarker writes the marker: it names the folder as ccsite's and lists
// what this build wrote, sorted.
func (w *siteWriter) writeMarker() error {
	files := make([]string, 0, len(w.files))
	for f := range w.files {
		files = append(files, f)
	}
	sort.Strings(files)
	var buf bytes.Buffer
	buf.WriteString(markerHead)
	for _, f := range files {
		buf.WriteString(f + "\n")
	}
	return writeInside(w.out, filepath.Join(w.out, marker), buf.Bytes())
}

// removeLegacyState removes the state folder builds before the state
// folder kept inside the site (its index, manifest and journal): it is
// not to be published.
func removeLegacyState(out string) error {
	p := filepath.Join(out, legacyState)
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return os.Remove(p) // a link or a file: never followed
	}
	return os.RemoveAll(p)
}

// sameContent tells whether the file at path holds data.
func sameContent(path string, data []byte) bool {
	st, err := os.Lstat(path)
	if err != nil || st.Size() != int64(len(data)) || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	// Compared a chunk at a time through a buffer kept for the next file:
	// reading each page whole made a new buffer of its size every time,
	// memory to zero and fault in (a twentieth of --force's page faults).
	bp := chunkBuffers.Get().(*[]byte)
	defer chunkBuffers.Put(bp)
	buf := *bp
	for len(data) > 0 {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(data))])
		if err != nil || !bytes.Equal(buf[:n], data[:n]) {
			return false
		}
		data = data[n:]
	}
	n, _ := f.Read(buf[:1])
	return n == 0 // nothing after (the file did not grow since its size was read)
}

// writeInside is writeFile for a file of the site out: its folders are
// made without ever following a link (see safeMkdirAll), and the rename
// replaces a link at path itself.
func writeInside(out, path string, data []byte) error {
	if err := safeMkdirAll(out, filepath.Dir(path)); err != nil {
		return err
	}
	return WriteFile(path, data)
}

// beforeRename, when set, runs in WriteFile between writing the temporary
// file and renaming it. Only TestKilledRepair's child build sets it, to die
// at a chosen write as a crash there would.
var beforeRename func()

// WriteFile writes through a temporary file and a rename, so a reader
// never sees half a file. The file is readable by others (a page, a
// report): a file of the state or the cache is written with
// WritePrivateFile.
func WriteFile(path string, data []byte) error { return writeFileMode(path, data, 0o755, 0o644) }

// WritePrivateFile is WriteFile for a file the user's alone (0600, the
// folders it makes 0700): the manifest, a build record.
func WritePrivateFile(path string, data []byte) error {
	return writeFileMode(path, data, 0o700, 0o600)
}

func writeFileMode(path string, data []byte, dirMode, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename()
	}
	return os.Rename(tmp.Name(), path)
}
