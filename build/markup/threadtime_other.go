//go:build !linux

package markup

import "time"

// threadStart is when the process began timing threads.
var threadStart = time.Now()

// threadTime stands for the calling thread's CPU time where the system
// gives none cheaply: the clock, so a slow step fails as it did when the
// clock alone was read.
func threadTime() time.Duration { return time.Since(threadStart) }
