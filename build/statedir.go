package build

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// DefaultStateDir is the state folder of the site at out: under
// $CCSITE_STATE_HOME, else the user's state folder
// ($XDG_STATE_HOME/ccsite, ~/.local/state/ccsite; on macOS
// ~/Library/Application Support/ccsite/state; on Windows
// %LocalAppData%\ccsite\state), in sites/<name>-<hash of out's absolute
// path>. It survives rebuilds of the site and is the same for every
// command given the same folder.
func DefaultStateDir(out string, getenv func(string) string) string {
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = filepath.Clean(out)
	}
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
	return filepath.Join(stateHome(getenv), "sites", name+"-"+hex.EncodeToString(sum[:8]))
}

func stateHome(getenv func(string) string) string {
	if d := getenv("CCSITE_STATE_HOME"); d != "" {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	switch runtime.GOOS {
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "ccsite", "state")
		}
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "ccsite", "state")
	}
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "ccsite")
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "ccsite-state")
	}
	return filepath.Join(home, ".local", "state", "ccsite")
}

// IndexPath is the bleve index of the site whose state folder is state.
func IndexPath(state string) string { return filepath.Join(state, IndexDir) }
