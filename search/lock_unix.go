//go:build unix

package search

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock, waiting for it.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
