//go:build !tinygo.wasm && !re2_cgo

package internal

import (
	"embed"
	"io/fs"
)

// precompiledCode is wazero v1.9.0's compiled code of libre2 and of the
// memory module, as its compilation cache keeps them, gzipped and named by
// their keys. build/redact's TestRE2Precompiled checks it is what wazero
// compiles today and writes it anew with CCSITE_UPDATE_RE2=1.
//
//go:embed wasm/amd64-linux
var precompiledEmbed embed.FS

var precompiledCode fs.FS = precompiledEmbed

const precompiledDir = "wasm/amd64-linux"
