//go:build !tinygo.wasm && !re2_cgo

package internal

// ccsite: libre2 compiled to native code ahead of time, shipped in the
// binary, so that a process on a machine that has never run ccsite (a CI
// job, a first build) does not spend half a CPU-second compiling it.

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// precompiledCache answers wazero's cache lookups with the code in
// precompiledCode (precompiled_linux_amd64.go) and passes everything else
// to next (the cache in a folder, or nil).
//
// A key is wazero's own (fileCacheKey: the module's hash, wazero's magic
// and the CPU features wazero compiles for), so the shipped code is only
// handed over where wazero would have compiled that very code. The
// serialized module carries wazero's version, which wazero checks; a stale
// one is compiled anew.
type precompiledCache struct{ next fileCache }

func (c precompiledCache) Get(key [32]byte) (io.ReadCloser, bool, error) {
	if b := precompiled(key); b != nil {
		return io.NopCloser(bytes.NewReader(b)), true, nil
	}
	if c.next == nil {
		return nil, false, nil
	}
	return c.next.Get(key)
}

func (c precompiledCache) Add(key [32]byte, content io.Reader) error {
	if c.next == nil {
		return nil
	}
	return c.next.Add(key, content)
}

func (c precompiledCache) Delete(key [32]byte) error {
	if c.next == nil {
		return nil
	}
	return c.next.Delete(key)
}

// precompiledOff: GO_RE2_PRECOMPILED=off compiles as if no code were
// shipped (to make the shipped code, and for tests).
func precompiledOff() bool { return os.Getenv("GO_RE2_PRECOMPILED") == "off" }

// precompiled is the shipped code for key (gunzipped), or nil.
func precompiled(key [32]byte) []byte {
	if precompiledCode == nil || precompiledOff() {
		return nil
	}
	f, err := precompiledCode.Open(precompiledDir + "/" + hex.EncodeToString(key[:]) + ".gz")
	if err != nil {
		return nil
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(z)
	if err != nil {
		return nil
	}
	// The serialized module starts with "WAZEVO", a length and wazero's
	// version. Code another version compiled is not handed over (wazero
	// would find it stale and delete the key from the folder's cache too,
	// where a good copy may be).
	if len(b) < 7 || string(b[:6]) != "WAZEVO" || len(b) < 7+int(b[6]) || string(b[7:7+int(b[6])]) != wazeroVersion() {
		return nil
	}
	return b
}

// wazeroVersion is the version wazero finds for itself
// (internal/version.GetWazeroVersion): the module's in the build
// information, else "dev" (a test binary has none).
func wazeroVersion() string {
	v := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if strings.Contains(d.Path, "github.com/tetratelabs/wazero") {
				v = d.Version
			}
		}
		if v == "" || v == "(devel)" {
			v = info.Main.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}
