//go:build gore2regex

// re2child matches one expression through gitleaks' regexp package (RE2
// under the gore2regex tag) and prints the wazero version it was built
// with. TestRE2Precompiled builds it: a test binary carries no module
// versions, so wazero there calls itself "dev" and never takes the code
// shipped compiled for a release.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

func main() {
	if !glregexp.MustCompile(`a+b`).MatchString("xaab") {
		fmt.Fprintln(os.Stderr, "re2child: no match")
		os.Exit(1)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				fmt.Println("wazero", d.Version)
			}
		}
	}
}
