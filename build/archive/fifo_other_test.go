//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package archive

import "errors"

// mkfifo makes a named pipe at path: not on this platform.
func mkfifo(path string) error { return errors.New("no named pipes here") }
