//go:build unix

package hook

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock (flock), waiting for it; closing f
// lets it go.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
