package serve

import (
	"strings"
	"syscall"
)

// remoteTypes are the file systems, by statfs(2) type name, where a change
// made on another machine raises no event.
var remoteTypes = []string{"nfs", "smbfs", "cifs", "afpfs", "webdav", "ftp", "macfuse", "osxfuse", "fusefs", "fuse"}

// networkFS reports whether path is on a network (or FUSE) file system,
// and which.
func networkFS(path string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "", false
	}
	var b strings.Builder
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	name := b.String()
	for _, t := range remoteTypes {
		if name == t || strings.HasPrefix(name, t) {
			return name, true
		}
	}
	return "", false
}
