package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"

	"ccsite/build/keep"
	"ccsite/search"
)

// A site's build state (the manifest, the journal, the lock, the bleve
// index and its metas) lives outside the site, in a state folder of its
// own: the output folder holds only what is published. These are the
// state folder's files.
const (
	stateFile   = "state.json"
	journalFile = "journal"
	lockName    = "lock"
	// IndexDir is the bleve index's folder in the state folder.
	IndexDir = "bleve"
	// legacyState is where builds before the state folder kept it: inside
	// the site. A build removes it.
	legacyState = ".ccsite"
)

// ErrNoStateHome is StateDir's error when no folder can hold the state.
var ErrNoStateHome = errors.New("cannot find a home folder for the state: set CCSITE_STATE_HOME or --state")

// StateDir is the state folder of the site at out: under
// $CCSITE_STATE_HOME, else the user's state folder
// ($XDG_STATE_HOME/ccsite, ~/.local/state/ccsite; on macOS
// ~/Library/Application Support/ccsite/state; on Windows
// %LocalAppData%\ccsite\state), in sites/<name>-<hash of out's absolute
// path, links followed>. It survives rebuilds of the site and is the same
// for every command given the same folder, by whatever path: a site built
// through a link is searched and served by its real path, and the other
// way round (the links are followed in the part of out that exists).
//
// A state folder an earlier ccsite kept under the path as given (links
// not followed) is moved to its new name when that is free.
//
// The home folder is $HOME, else the system's (os.UserHomeDir, the user
// database). Without one, ErrNoStateHome: never a folder every user may
// write to, such as /tmp, where another user could make the folder first
// and read the transcripts kept in it.
func StateDir(out string, getenv func(string) string) (string, error) {
	home, err := stateHome(getenv)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = filepath.Clean(out)
	}
	dir := stateDirOf(home, resolvedPath(abs))
	if old := stateDirOf(home, abs); old != dir {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			if _, err := os.Stat(old); err == nil && os.Rename(old, dir) != nil {
				return old, nil
			}
		}
	}
	return dir, nil
}

// stateDirOf is the state folder under home of the site at the absolute
// path abs.
func stateDirOf(home, abs string) string {
	sum := sha256.Sum256([]byte(abs))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	if len(name) > 40 {
		name = name[:40]
	}
	return filepath.Join(home, "sites", name+"-"+hex.EncodeToString(sum[:8]))
}

// DefaultStateDir is StateDir, "" when there is no home folder for the
// state (a build given "" says why, with ErrNoStateHome).
func DefaultStateDir(out string, getenv func(string) string) string {
	d, _ := StateDir(out, getenv)
	return d
}

// systemHome is the user's home folder as the system has it when $HOME
// is not set ("" if none); a variable for the tests.
var systemHome = func() string {
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		return h
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return u.HomeDir
	}
	return ""
}

func stateHome(getenv func(string) string) (string, error) {
	if d := getenv("CCSITE_STATE_HOME"); d != "" {
		return d, nil
	}
	if d := getenv("LocalAppData"); d != "" && runtime.GOOS == "windows" {
		return filepath.Join(d, "ccsite", "state"), nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) && runtime.GOOS != "darwin" {
		return filepath.Join(d, "ccsite"), nil
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		home = systemHome()
	}
	switch {
	case home == "":
		return "", ErrNoStateHome
	case runtime.GOOS == "darwin":
		return filepath.Join(home, "Library", "Application Support", "ccsite", "state"), nil
	}
	return filepath.Join(home, ".local", "state", "ccsite"), nil
}

// IndexPath is the bleve index of the site whose state folder is state.
func IndexPath(state string) string { return filepath.Join(state, IndexDir) }

// checkStatePlace refuses a state folder inside the site (it would be
// published: the archive holds the transcripts as they were) and a site
// inside its state folder. Links are followed first, in the longest part
// of each path that exists (neither need exist yet): a state folder
// reached through a link into the site is inside it.
func checkStatePlace(out, state string) error {
	o, s := resolvedPath(out), resolvedPath(state)
	if within(s, o) {
		return fmt.Errorf("the state folder %s is inside the site %s: it would be published (choose another --state)", state, out)
	}
	if within(o, s) {
		return fmt.Errorf("the site %s is inside its state folder %s: the two must be apart (choose another --state)", out, state)
	}
	return nil
}

// within tells whether path p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// resolvedPath is p made absolute, with the links in the longest part of
// it that exists followed (the rest, not there yet, as it is).
func resolvedPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	var rest []string
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// makeStateDir makes the state folder, the user's alone (0700, as is
// every folder made on the way to it). One ccsite chose (ours) that an
// older ccsite made open to others is closed to them; a folder the user
// named is left as it is.
func makeStateDir(state string, ours bool) error {
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	if fi, err := os.Stat(state); ours && err == nil && fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(state, fi.Mode().Perm()&0o700)
	}
	return nil
}

// Erased says what ForgetErasing removed.
type Erased struct {
	Sessions int // sessions whose copies went
	Files    int // their files (sub-agents, file-history… included)
	// StillThere counts the forgotten sessions whose file is still in
	// place: the next build reads and keeps them again.
	StillThere int
	// Bytes are the archive's bytes that went: the forgotten copies (and
	// any earlier copy of them a pack still held), their restored files,
	// discovery's cache.
	Bytes int64
	// Rebuild says the build's manifest and search index went too (they
	// hold the forgotten sessions' titles and texts): the next build
	// makes every page and the search index again.
	Rebuild bool
	// Cache says the highlight cache went too (it holds their code and
	// redacted lines): the next build highlights anew.
	Cache bool
}

// ForgetErasing removes the kept sessions sel selects from the archive
// of the site out whose state folder is state, with every file they kept
// (sub-agents, file-history…), and erases what the state folder holds of
// them: their copies in the archive and their restored files (the
// archive's save erases them), what discovery remembered of their files,
// and the build's manifest and search index, which hold their titles and
// texts (the next build makes them again, without them). The next build
// removes their pages, exports and search documents, unless their file
// is still there. The highlight cache files in cache ("": none; the cache
// is the user's, every site's) are removed too. It holds the site's lock:
// while a build of the site runs, it fails. A state folder without an
// archive is left as it is (nothing forgotten).
func ForgetErasing(ctx context.Context, out, state, cache string, sel ForgetSelect) (Erased, error) {
	var res Erased
	if sel.empty() {
		return res, errors.New("forget: name sessions, --project GLOB or --before DATE")
	}
	if _, err := os.Stat(filepath.Join(archiveDir(state), "index.json")); errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	unlock, err := lockOut(ctx, out, state, 0, nil)
	if errors.Is(err, ErrLocked) {
		return res, fmt.Errorf("a build of %s is running: forget once it has ended", out)
	}
	if err != nil {
		return res, err
	}
	defer unlock()
	before := treeSize(archiveDir(state))
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		return res, err
	}
	defer st.Close()
	sessions := map[string]bool{}
	for _, e := range st.Entries() {
		if e.Kind == keep.KindSession && sel.match(e) {
			sessions[e.Session] = true
			if _, err := os.Stat(e.Path); err == nil {
				res.StillThere++
			}
		}
	}
	res.Sessions = len(sessions)
	res.Files = st.Forget(func(e *keep.Entry) bool { return sessions[e.Session] || (e.Session == "" && sel.match(e)) })
	if _, err := st.Save(); err != nil {
		return res, err
	}
	// What discovery remembered of the forgotten files goes too (the
	// next build reads again the files still there).
	if err := os.Remove(peekCachePath(state)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	res.Bytes = max(before-treeSize(archiveDir(state)), 0)
	if res.Files == 0 {
		return res, nil
	}
	if err := search.Remove(IndexPath(state)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	if err := os.Remove(filepath.Join(state, stateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	res.Rebuild = true
	if cache != "" {
		if res.Cache, err = clearDiskCache(cache); err != nil {
			return res, err
		}
	}
	return res, nil
}

// treeSize is the size of the files under dir.
func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ExportKept writes the kept transcripts of the site whose state folder
// is state to dir as a projects tree, never over a file there (see
// keep.Store.ExportTo): dir may be the live projects folder.
func ExportKept(state, dir string) (keep.Exported, error) {
	if _, err := os.Stat(filepath.Join(archiveDir(state), "index.json")); errors.Is(err, fs.ErrNotExist) {
		return keep.Exported{}, fmt.Errorf("no archive in %s (build the site first)", archiveDir(state))
	}
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		return keep.Exported{}, err
	}
	defer st.Close()
	return st.ExportTo(dir)
}
