package build

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the tests' build states (by default in the user's state
// folder) in a temporary folder.
func TestMain(m *testing.M) {
	if os.Getenv("CCSITE_STATE_HOME") != "" { // a child process of a test: its parent's
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ccsite-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CCSITE_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
