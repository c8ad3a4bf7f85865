package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrLocked is returned when another build holds the output folder past
// the wait the caller allowed.
var ErrLocked = errors.New("another ccsite build is writing this folder")

// lockOut takes the output folder's lock, waiting up to wait for another
// build to finish (telling waiting once). The lock is the kernel's
// (flock), so a build that is killed releases it.
func lockOut(ctx context.Context, out, state string, wait time.Duration, waiting func()) (unlock func(), err error) {
	p := filepath.Join(state, lockName)
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	told := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", p, err)
		}
		if ok {
			return func() { unlockFile(f); f.Close() }, nil
		}
		if !time.Now().Before(deadline) {
			f.Close()
			if wait > 0 {
				return nil, fmt.Errorf("%w: %s (waited %s; --wait sets how long)", ErrLocked, out, wait)
			}
			return nil, fmt.Errorf("%w: %s (--wait DURATION waits for it)", ErrLocked, out)
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// safeMkdirAll makes dir, a folder inside out, never through a symbolic
// link: a link (or a file) where a folder of the site should be is
// removed and replaced by a real folder, so nothing is written outside
// the site.
func safeMkdirAll(out, dir string) error {
	rel, err := filepath.Rel(out, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not inside %s", dir, out)
	}
	cur := out
	if rel == "." {
		return nil
	}
	for _, el := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, el)
		st, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			continue
		case err != nil:
			return err
		case st.IsDir():
			continue
		}
		// A link or a file: not the site's.
		if err := os.Remove(cur); err != nil {
			return err
		}
		if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// linkInPath tells whether a folder between out and path (path itself
// excluded) is a symbolic link: removing path would reach outside.
func linkInPath(out, path string) bool {
	rel, err := filepath.Rel(out, filepath.Dir(path))
	if err != nil || rel == "." {
		return false
	}
	cur := out
	for _, el := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, el)
		if st, err := os.Lstat(cur); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// removeTemps removes what an earlier build left of its temporary files
// (.tmp-*: a build killed between writing one and renaming it), never
// following a link.
func removeTemps(out string) error {
	return filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == out {
				return err
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".tmp-") {
			os.Remove(p)
		}
		return nil
	})
}
