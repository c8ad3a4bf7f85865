//go:build gore2regex

package redact

import re2 "github.com/wasilibs/go-re2"

// SmallScan tells redaction that this process will scan little (a build
// that updates a site: lines found clean before are not scanned again), so
// the rules run on Go's regexp package for their first bytes of input
// rather than start RE2's WebAssembly runtime (~0.1 CPU-s) for a line or
// two; past that budget they move to RE2 (third_party/go-re2/CCSITE.md).
// Its rules are also made with lazy stop words (loadDefaultConfig). It must
// come before any redaction; later, it does nothing.
func SmallScan() {
	smallScan.Store(true)
	re2.UseGo(smallScanBudget)
}

// smallScanBudget is the input, all rules together, matched on Go's engine
// before RE2 takes over: about 20 ms of Go's matching.
const smallScanBudget = 512 << 10
