package serve

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxWaitPolls bounds the wait for files to settle: a transcript that a
// running session keeps appending to is built every this many polls.
const maxWaitPolls = 10

// Watcher polls a build's inputs — every *.jsonl and *.meta.json under
// its roots, and roots named as files — for files added, removed or
// changed (size or modification time). No file-system events: polling
// works the same on every system and every kind of mount.
type Watcher struct {
	roots    []string
	interval time.Duration
	built    map[string]stamp // the files as the last build saw them
	last     map[string]stamp // the files at the last poll
	waiting  int              // polls since built and the files first differed
}

// stamp is what tells a file's versions apart.
type stamp struct{ size, mod int64 }

// NewWatcher looks at the files under roots once. builtAt is when the site
// was last built: if any file changed after it, the first poll counts
// that as a change.
func NewWatcher(roots []string, interval time.Duration, builtAt time.Time) *Watcher {
	w := &Watcher{roots: roots, interval: interval}
	w.built = scan(roots)
	w.last = w.built
	for _, s := range w.built {
		if s.mod > builtAt.UnixNano() {
			w.built = nil // differs from any scan, even an empty one
			break
		}
	}
	return w
}

// Files is the number of files watched at the last poll.
func (w *Watcher) Files() int { return len(w.last) }

// Run polls every interval until ctx ends. Once the files differ from
// those of the last build and a poll finds them as the poll before did
// (so a file being written is not built ten times), it calls changed,
// which rebuilds; polling waits for it. A file that keeps changing is
// built every maxWaitPolls polls.
func (w *Watcher) Run(ctx context.Context, changed func(context.Context)) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if w.poll() {
				changed(ctx)
			}
		}
	}
}

// poll scans the files and reports whether it is time to build.
func (w *Watcher) poll() bool {
	now := scan(w.roots)
	prev := w.last
	w.last = now
	if w.built != nil && maps.Equal(now, w.built) {
		w.waiting = 0
		return false
	}
	w.waiting++
	if maps.Equal(now, prev) || w.waiting >= maxWaitPolls {
		w.built, w.waiting = now, 0
		return true
	}
	return false
}

// scan stamps the transcripts under roots as archive.Discover finds them:
// a root that is a file is read whatever its name; folders are walked
// following links (each real folder once). What cannot be read is left
// out.
func scan(roots []string) map[string]stamp {
	files := map[string]stamp{}
	seen := map[string]bool{} // folders walked, by real path: links may loop
	var walk func(dir string)
	walk = func(dir string) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || seen[real] {
			return
		}
		seen[real] = true
		_ = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// Followed, as discovery follows them.
				if st, err := os.Stat(p); err == nil {
					if st.IsDir() {
						walk(p)
					} else {
						addFile(files, p, st)
					}
				}
				return nil
			}
			if !d.IsDir() {
				if info, err := d.Info(); err == nil {
					addFile(files, p, info)
				}
			}
			return nil
		})
	}
	for _, root := range roots {
		st, err := os.Stat(root)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			files[root] = stamp{st.Size(), st.ModTime().UnixNano()}
			continue
		}
		walk(root)
	}
	return files
}

// addFile records a transcript or a sub-agent's meta file.
func addFile(files map[string]stamp, p string, info fs.FileInfo) {
	name := filepath.Base(p)
	if !info.Mode().IsRegular() || !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".meta.json") {
		return
	}
	files[p] = stamp{info.Size(), info.ModTime().UnixNano()}
}
