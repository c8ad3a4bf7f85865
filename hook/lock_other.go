//go:build !unix

package hook

import "os"

// lockFile does nothing where flock is not: installs into one settings
// file at once are not kept apart.
func lockFile(*os.File) error { return nil }
