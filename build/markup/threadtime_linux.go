package markup

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadTime is the CPU time the calling thread has used (the caller
// keeps its thread: runtime.LockOSThread).
func threadTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
