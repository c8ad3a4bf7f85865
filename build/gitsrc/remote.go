package gitsrc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// splitURL splits "URL[@REF]": the REF's "@" is the last one in the URL's
// path (after "scheme://host/" or an scp-like "host:"), so a user name
// before the host stays in the URL.
func splitURL(spec string) (url, ref string) {
	pathStart := 0
	if i := strings.Index(spec, "://"); i >= 0 {
		if j := strings.IndexByte(spec[i+3:], '/'); j >= 0 {
			pathStart = i + 3 + j
		} else {
			return spec, ""
		}
	} else if i := strings.IndexByte(spec, ':'); i >= 0 {
		pathStart = i
	}
	if i := strings.LastIndexByte(spec[pathStart:], '@'); i >= 0 {
		return spec[:pathStart+i], spec[pathStart+i+1:]
	}
	return spec, ""
}

// urlName is the repository's name in its URL: the last path element
// without .git.
func urlName(url string) string {
	url = strings.TrimRight(url, "/")
	if i := strings.LastIndexAny(url, "/:"); i >= 0 {
		url = url[i+1:]
	}
	if name := strings.TrimSuffix(url, ".git"); name != "" {
		return name
	}
	return "repository"
}

// CacheDir is where clones of repositories named by URL are kept:
// $CCSITE_CACHE_DIR/git, else ccsite/git in the user's cache folder
// (~/.cache when only the user database knows the home folder); "" when
// there is none: never a folder every user may write to, such as /tmp,
// where another user could make the folder, or the clone, first.
func CacheDir() string {
	if d := os.Getenv("CCSITE_CACHE_DIR"); d != "" {
		return filepath.Join(d, "git")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ccsite", "git")
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return filepath.Join(u.HomeDir, ".cache", "ccsite", "git")
	}
	return ""
}

// entireRefspecs are Entire's refs: the checkpoint refs and branches
// (entire/checkpoints/v1). They are fetched with their blobs, which are
// all read: fetched one at a time as git cat-file asks for them, they
// would cost a round trip each.
var entireRefspecs = []string{"+refs/entire/*:refs/entire/*", "+refs/heads/entire/*:refs/heads/entire/*"}

// fetchAll brings the clone up to date: Entire's refs with their blobs
// (under 1 GB each), then every branch without them (History reads only
// their commits). Refs gone from the remote go from the clone.
func fetchAll(ctx context.Context, r *repo) error {
	args := append([]string{"fetch", "--quiet", "--prune", "--no-tags", "--filter=blob:limit=1g", "origin"}, entireRefspecs...)
	if _, err := r.output(ctx, args...); err != nil {
		return err
	}
	_, err := r.output(ctx, "fetch", "--quiet", "--prune", "--no-tags", "origin", "+refs/heads/*:refs/heads/*")
	return err
}

// mirror brings the cache's bare, blob-less clone of url up to date (made
// by the first call) and returns its path. Blobs are fetched when read:
// only the transcripts written and their metadata.
func mirror(ctx context.Context, gitBin, url string) (string, error) {
	cache := CacheDir()
	if cache == "" {
		return "", errors.New("--git: cannot find a home folder to keep the clone in: set CCSITE_CACHE_DIR")
	}
	sum := sha256.Sum256([]byte(url))
	dir := filepath.Join(cache, urlName(url)+"-"+hex.EncodeToString(sum[:8])+".git")
	r := &repo{git: gitBin, dir: dir, env: gitEnv()}
	if isDir(dir) {
		if err := fetchAll(ctx, r); err != nil {
			return "", fmt.Errorf("--git: fetching %s into %s: %v", url, dir, err)
		}
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), dirMode); err != nil {
		return "", fmt.Errorf("--git: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".clone-")
	if err != nil {
		return "", fmt.Errorf("--git: %v", err)
	}
	defer os.RemoveAll(tmp)
	c := &repo{git: gitBin, dir: filepath.Dir(dir), env: gitEnv()}
	// The default branch only (for HEAD), without blobs: Entire's refs
	// come next, with theirs.
	if _, err := c.output(ctx, "clone", "--quiet", "--bare", "--filter=blob:none", "--single-branch", "--no-tags", "--", url, tmp); err != nil {
		return "", fmt.Errorf("--git: cloning %s: %v", url, err)
	}
	if err := fetchAll(ctx, &repo{git: gitBin, dir: tmp, env: gitEnv()}); err != nil {
		return "", fmt.Errorf("--git: cloning %s: %v", url, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("--git: %v", err)
	}
	return dir, nil
}
