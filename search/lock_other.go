//go:build !unix

package search

import "os"

// lockFile does nothing where flock is not: two searches syncing one index
// at once are not kept apart.
func lockFile(*os.File) error { return nil }
