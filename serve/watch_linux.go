package serve

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// remoteMagic names the file systems, by statfs(2) magic number, where a
// change made on another machine (the server, the host of a VM, the other
// end of sshfs) raises no inotify event.
var remoteMagic = map[uint32]string{
	0x6969:     "NFS",
	0x517b:     "SMB",
	0xff534d42: "CIFS",
	0xfe534d42: "SMB2",
	0x65735546: "FUSE",
	0x01021997: "9p",
	0x5346414f: "AFS",
	0x6b414653: "AFS",
	0x73757245: "Coda",
	0x00c36400: "Ceph",
	0x0bd00bd0: "Lustre",
	0x01161970: "GFS2",
	0x7461636f: "OCFS2",
	0x786f4256: "VirtualBox shared folder",
}

// networkFS reports whether path is on a network (or FUSE) file system,
// and which.
func networkFS(path string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "", false
	}
	name, ok := remoteMagic[uint32(st.Type)]
	if ok && name == "FUSE" {
		if t := mountType(path); t != "" {
			name = t // fuse.sshfs, fuse.rclone, …
		}
	}
	return name, ok
}

// mountType is the type /proc/self/mountinfo gives the mount holding
// path, or "".
func mountType(path string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	best, typ := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent dev root mountpoint options [optional…] - type source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+1 >= len(fields) {
			continue
		}
		mp := unescapeMount(fields[4])
		if (path == mp || strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/")) && len(mp) >= len(best) {
			best, typ = mp, fields[sep+1]
		}
	}
	return typ
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return filepath.Clean(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return filepath.Clean(b.String())
}
