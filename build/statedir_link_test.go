package build

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStateDirFollowsLinks: a site reached through a link has the state
// folder of the folder the link leads to, whether the site exists yet or
// not; a state folder an earlier ccsite kept under the linked path is
// moved to the new name, with what it holds.
func TestStateDirFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "state")
	getenv := func(k string) string {
		if k == "CCSITE_STATE_HOME" {
			return home
		}
		return ""
	}
	real := filepath.Join(dir, "real")
	os.MkdirAll(filepath.Join(real, "site"), 0o755)
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for _, name := range []string{"site", "not-yet"} {
		viaReal, err := StateDir(filepath.Join(real, name), getenv)
		if err != nil {
			t.Fatal(err)
		}
		viaLink, err := StateDir(filepath.Join(dir, "link", name), getenv)
		if err != nil {
			t.Fatal(err)
		}
		if viaReal != viaLink {
			t.Errorf("%s: state folder %s by its real path, %s through the link", name, viaReal, viaLink)
		}
	}

	// Kept by an earlier ccsite under the linked path.
	os.MkdirAll(filepath.Join(real, "old"), 0o755)
	linked := filepath.Join(dir, "link", "old")
	old := stateDirOf(home, linked)
	os.MkdirAll(old, 0o700)
	os.WriteFile(filepath.Join(old, stateFile), []byte("{}"), 0o600)
	got, err := StateDir(linked, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if want := stateDirOf(home, filepath.Join(real, "old")); got != want {
		t.Errorf("StateDir = %s, want %s", got, want)
	}
	if _, err := os.Stat(filepath.Join(got, stateFile)); err != nil {
		t.Errorf("the earlier state was not moved: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the earlier state folder is still there: %v", err)
	}
}
