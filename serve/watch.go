package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxWaitPolls bounds the wait for files to settle: a transcript that a
// running session keeps appending to is built every this many polls.
const maxWaitPolls = 10

const (
	// settle is how long the files must be quiet, with notifications,
	// before a build: Claude Code appends a transcript line by line, and
	// a burst of writes is one change.
	settle = 250 * time.Millisecond
	// maxSettle bounds that wait: a file written without a pause is built
	// this often.
	maxSettle = maxWaitPolls * settle
	// safetyNet is the slowest scan while notifications are used, for a
	// change no event reported (a file behind a link to a folder that is
	// not watched, a queue overflow).
	safetyNet = 30 * time.Second
)

// Watcher watches a build's inputs — every *.jsonl and *.meta.json under
// its roots, and roots named as files — for files added, removed or
// changed (size or modification time).
//
// It is told of changes by the system's file-system notifications
// (inotify, kqueue, ReadDirectoryChangesW, through fsnotify): every folder
// under the roots is watched, and folders created later are added. A burst
// of events is one change once the files have been quiet for settle; a
// scan then compares the files with those of the last build, so only a
// change to a transcript builds. A slow scan (safetyNet) catches what no
// event reported.
//
// Where notifications cannot be used it polls every interval instead: the
// system has none, there are too many folders to watch (inotify's
// max_user_watches), or a root is on a network file system (NFS, SMB/CIFS,
// FUSE such as sshfs, 9p) where changes made on another machine raise no
// event. Mode says which it does.
type Watcher struct {
	roots    []string
	interval time.Duration
	built    map[string]stamp // the files as the last build saw them
	last     map[string]stamp // the files at the last poll
	waiting  int              // polls since built and the files first differed

	settle, maxSettle, safety time.Duration

	notify  *fsnotify.Watcher   // nil when polling
	dirs    map[string]bool     // folders watched, by real path
	exact   map[string]bool     // files watched by name in their folder: roots that are files, link targets
	missing map[string][]string // roots that do not exist yet, by the folder watched for them

	mu     sync.Mutex
	reason string // why it polls; "" while notifications are used
	files  int    // len(last), for Files
}

// stamp is what tells a file's versions apart.
type stamp struct{ size, mod int64 }

// NewWatcher looks at the files under roots once and sets up the
// notifications (see Mode). builtAt is when the site was last built: if
// any file changed after it, the watcher counts that as a change at once.
// Run releases the notifications when it ends; Close does if Run is never
// called.
func NewWatcher(roots []string, interval time.Duration, builtAt time.Time) *Watcher {
	return newWatcher(roots, interval, builtAt, "")
}

// NewPollingWatcher is NewWatcher without notifications: it polls every
// interval, whatever the file systems. reason is what Mode says of it.
func NewPollingWatcher(roots []string, interval time.Duration, builtAt time.Time, reason string) *Watcher {
	if reason == "" {
		reason = "asked to"
	}
	return newWatcher(roots, interval, builtAt, reason)
}

func newWatcher(roots []string, interval time.Duration, builtAt time.Time, poll string) *Watcher {
	w := &Watcher{roots: roots, interval: interval, settle: settle, maxSettle: maxSettle, safety: max(safetyNet, interval)}
	if poll != "" {
		w.reason = poll
	} else {
		// Watched before the scan: a change between the two is an event.
		w.startNotify()
	}
	w.built = scan(roots)
	w.last = w.built
	w.files = len(w.last)
	for _, s := range w.built {
		if s.mod > builtAt.UnixNano() {
			w.built = nil // differs from any scan, even an empty one
			break
		}
	}
	return w
}

// Files is the number of files watched at the last poll.
func (w *Watcher) Files() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files
}

// Mode says how the watcher learns of changes, for the user:
// "watching with file-system notifications", or "polling every 1s (why)".
// It can change from the first to the second while Run runs (a folder
// created later could not be watched).
func (w *Watcher) Mode() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reason == "" {
		return "watching with file-system notifications"
	}
	return fmt.Sprintf("polling every %s (%s)", w.interval, w.reason)
}

// Notifying reports whether the watcher uses file-system notifications,
// and if not, why.
func (w *Watcher) Notifying() (ok bool, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason == "", w.reason
}

// Close releases the notifications. Run calls it when it ends.
func (w *Watcher) Close() error {
	if w.notify == nil {
		return nil
	}
	err := w.notify.Close()
	if errors.Is(err, fsnotify.ErrClosed) {
		err = nil
	}
	return err
}

// Run watches until ctx ends. Once the files differ from those of the
// last build and have settled (no event for settle, or two polls that
// find them alike), it calls changed, which rebuilds; watching waits for
// it. A file that keeps changing is built every maxSettle (maxWaitPolls
// polls).
func (w *Watcher) Run(ctx context.Context, changed func(context.Context)) {
	defer w.Close()
	if w.notify != nil && w.runNotify(ctx, changed) {
		return
	}
	w.runPoll(ctx, changed)
}

// runPoll polls every interval until ctx ends.
func (w *Watcher) runPoll(ctx context.Context, changed func(context.Context)) {
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
	now := w.rescan()
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

// rescan scans the roots and counts the files.
func (w *Watcher) rescan() map[string]stamp {
	now := scan(w.roots)
	w.mu.Lock()
	w.files = len(now)
	w.mu.Unlock()
	return now
}

// fallBack turns notifications off: the watcher polls from now on.
func (w *Watcher) fallBack(reason string) {
	w.mu.Lock()
	if w.reason == "" {
		w.reason = reason
	}
	w.mu.Unlock()
	w.Close()
}

// startNotify watches the roots, or says why the watcher polls.
func (w *Watcher) startNotify() {
	n, err := fsnotify.NewWatcher()
	if err != nil {
		w.reason = "no file-system notifications: " + watchErr(err)
		return
	}
	w.notify = n
	w.dirs, w.exact, w.missing = map[string]bool{}, map[string]bool{}, map[string][]string{}
	for _, root := range w.roots {
		if err := w.watchRoot(root); err != nil {
			w.reason = err.Error()
			w.Close()
			w.notify = nil
			return
		}
	}
}

// watchRoot watches a root: a folder and every folder under it, a file by
// its name in its folder, or, while it does not exist, the closest folder
// above it that does.
func (w *Watcher) watchRoot(root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	st, err := os.Stat(abs)
	if err != nil {
		dir := filepath.Dir(abs)
		for {
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				return nil // nothing to watch; the safety net scans
			}
			dir = up
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil
		}
		if err := w.addDir(real); err != nil {
			return err
		}
		// By its real path, as events name it.
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			return nil
		}
		awaited := filepath.Join(real, rel)
		if !slices.Contains(w.missing[real], awaited) {
			w.missing[real] = append(w.missing[real], awaited)
		}
		// The next folder on the way may have been made between the look
		// and the watch, raising no event: look again, from deeper.
		next := filepath.Join(real, strings.SplitN(filepath.ToSlash(rel), "/", 2)[0])
		if _, err := os.Lstat(next); err == nil {
			w.missing[real] = slices.DeleteFunc(w.missing[real], func(r string) bool { return r == awaited })
			if len(w.missing[real]) == 0 {
				delete(w.missing, real)
			}
			return w.watchRoot(root)
		}
		return nil
	}
	if !st.IsDir() {
		return w.watchFile(abs)
	}
	return w.watchTree(abs)
}

// watchFile watches one file (followed if a link) by its name in its
// folder.
func (w *Watcher) watchFile(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil
	}
	if err := w.addDir(filepath.Dir(real)); err != nil {
		return err
	}
	w.exact[real] = true
	return nil
}

// watchTree watches dir and every folder under it, following links as
// scan does (walkFollowing), and the files links point to.
func (w *Watcher) watchTree(dir string) error {
	enter := func(dir, real string) bool { return !w.dirs[real] || dir == real }
	file := func(p string, _ fs.FileInfo, linked bool) error {
		if linked && wanted(p) {
			return w.watchFile(p)
		}
		return nil
	}
	return walkFollowing(dir, enter, w.addDir, file)
}

// walkFollowing walks dir as discovery does: links followed, a folder
// entered only when enter says so (given the path reached and its real
// path: links may loop). It calls folder with every real folder walked and
// file with every other entry (linked: reached through a link, info then
// its target's), and stops at the first error they return.
func walkFollowing(dir string, enter func(dir, real string) bool, folder func(p string) error,
	file func(p string, info fs.FileInfo, linked bool) error) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !enter(dir, real) {
		return nil
	}
	var failed error
	_ = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			if st, err := os.Stat(p); err == nil {
				if st.IsDir() {
					failed = walkFollowing(p, enter, folder, file)
				} else {
					failed = file(p, st, true)
				}
			}
		case d.IsDir():
			failed = folder(p)
		default:
			if info, err := d.Info(); err == nil {
				failed = file(p, info, false)
			}
		}
		if failed != nil {
			return fs.SkipAll
		}
		return nil
	})
	return failed
}

// addWatch adds a folder to the notifications (a variable for tests).
var addWatch = (*fsnotify.Watcher).Add

// addDir watches one folder.
func (w *Watcher) addDir(dir string) error {
	if w.dirs[dir] {
		return nil
	}
	if fsType, remote := networkFS(dir); remote {
		return fmt.Errorf("%s is on %s, where changes made elsewhere raise no notification", dir, fsType)
	}
	if err := addWatch(w.notify, dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil // gone, or not ours to read: scan leaves it out too
		}
		return fmt.Errorf("cannot watch %s: %s", dir, watchErr(err))
	}
	w.dirs[dir] = true
	return nil
}

// watchErr says what an error from the notifications means.
func watchErr(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "too many folders to watch; raise fs.inotify.max_user_watches"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "too many open files or watchers; raise ulimit -n (or, on Linux, fs.inotify.max_user_instances)"
	}
	return err.Error()
}

// runNotify waits for events until ctx ends (true), or until
// notifications fail (false: the watcher polls from then on).
func (w *Watcher) runNotify(ctx context.Context, changed func(context.Context)) bool {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	safety := time.NewTicker(w.safety)
	defer safety.Stop()
	var first time.Time // when the events now settling began; zero if none
	arm := func() {
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		timer.Reset(max(0, min(w.settle, w.maxSettle-now.Sub(first))))
	}
	if w.built == nil {
		arm() // the site is older than its input
	}
	for {
		select {
		case <-ctx.Done():
			return true
		case ev, ok := <-w.notify.Events:
			if !ok {
				w.fallBack("file-system notifications stopped")
				return false
			}
			if err := w.event(ev, arm); err != nil {
				w.fallBack(err.Error())
				return false
			}
		case err, ok := <-w.notify.Errors:
			if !ok {
				w.fallBack("file-system notifications stopped")
				return false
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: watch what is there now, and look.
				for _, root := range w.roots {
					if err := w.watchRoot(root); err != nil {
						w.fallBack(err.Error())
						return false
					}
				}
				arm()
			}
		case <-safety.C:
			arm()
		case <-timer.C:
			first = time.Time{}
			now := w.rescan()
			w.last = now
			if w.built != nil && maps.Equal(now, w.built) {
				continue
			}
			w.built = now
			changed(ctx)
		}
	}
}

// event handles one notification: folders created are watched, and a
// change that may concern a transcript arms the settle timer.
func (w *Watcher) event(ev fsnotify.Event, arm func()) error {
	name := filepath.Clean(ev.Name)
	if roots, ok := w.missing[filepath.Dir(name)]; ok && ev.Has(fsnotify.Create) {
		// Something appeared where a root is awaited: perhaps the root, or
		// a folder on the way to it.
		found := false
		for _, root := range roots {
			if name == root || strings.HasPrefix(root, name+string(filepath.Separator)) {
				found = true
			}
		}
		if found {
			delete(w.missing, filepath.Dir(name))
			for _, root := range roots {
				if err := w.watchRoot(root); err != nil {
					return err
				}
			}
			arm()
			return nil
		}
	}
	switch {
	case ev.Has(fsnotify.Create):
		if st, err := os.Stat(name); err == nil && st.IsDir() {
			// A new folder, perhaps with files already in it: watched, and
			// looked at.
			if err := w.watchTree(name); err != nil {
				return err
			}
			arm()
			return nil
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if w.dirs[name] {
			// A folder gone (its files with it) or moved (it is watched
			// again where it lands, by its Create).
			prefix := name + string(filepath.Separator)
			for d := range w.dirs {
				if d == name || strings.HasPrefix(d, prefix) {
					delete(w.dirs, d)
					_ = w.notify.Remove(d)
				}
			}
			arm()
			return nil
		}
	}
	if wanted(name) || w.exact[name] {
		arm()
	}
	return nil
}

// wanted reports whether a file's name is a transcript's or a sub-agent's
// meta file's.
func wanted(p string) bool {
	name := filepath.Base(p)
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".meta.json")
}

// scan stamps the transcripts under roots as archive.Discover finds them:
// a root that is a file is read whatever its name; folders are walked
// following links (each real folder once). What cannot be read is left
// out.
func scan(roots []string) map[string]stamp {
	files := map[string]stamp{}
	seen := map[string]bool{} // folders walked, by real path: links may loop
	enter := func(_, real string) bool {
		if seen[real] {
			return false
		}
		seen[real] = true
		return true
	}
	folder := func(string) error { return nil }
	file := func(p string, info fs.FileInfo, _ bool) error {
		addFile(files, p, info)
		return nil
	}
	walk := func(dir string) { _ = walkFollowing(dir, enter, folder, file) }
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
	if !info.Mode().IsRegular() || !wanted(p) {
		return
	}
	files[p] = stamp{info.Size(), info.ModTime().UnixNano()}
}
