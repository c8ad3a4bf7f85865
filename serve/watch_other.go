//go:build !linux && !darwin

package serve

// networkFS reports whether path is on a network file system. Not told
// apart on this system: notifications are used, with the slow scan as
// the safety net.
func networkFS(path string) (string, bool) { return "", false }
