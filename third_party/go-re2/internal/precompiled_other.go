//go:build !tinygo.wasm && !re2_cgo && !(linux && amd64)

package internal

import "io/fs"

// No code is shipped compiled for this platform: libre2 is compiled at the
// first match (or loaded from the cache in a folder).
var precompiledCode fs.FS

const precompiledDir = ""
