//go:build gore2regex

package redact

import (
	"regexp"
	"sync"

	re2 "github.com/wasilibs/go-re2"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

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

// anchoredGeneric is generic-api-key's expression (expr) made anew, its
// matches found anchored where they can start (genericFindAll), and the
// submatches gitleaks asks of each match (a few dozen bytes) found by Go's
// engine: both unanchored on RE2 cost ~0.6 CPU-s of DFA states in every
// process that redacts. A text genericFindAll does not take, or that Go
// and RE2 may read differently (plainText), goes to RE2 as before.
func anchoredGeneric(expr string) *glregexp.Regexp {
	re := glregexp.MustCompile(expr)
	g, err := regexp.Compile(expr)
	if err != nil {
		return nil
	}
	re.SetHooks(&re2.Hooks{
		FindAllStringIndex: func(s string, n int) ([][]int, bool) {
			return genericFindAll(re.Anchored, s, n)
		},
		FindStringSubmatch: func(s string) ([]string, bool) {
			if !plainText(s) {
				return nil, false
			}
			return g.FindStringSubmatch(s), true
		},
	})
	return re
}

// anchoredSemi is a semi-generic expression (semiPlanOf) made anew, its
// matches found anchored where one of its ids starts (semiFindAll), and
// the submatches gitleaks asks of each match found by Go's engine (its
// expression compiled at the first; RE2's if Go's regexp does not take
// it); nil for an expression of another shape.
func anchoredSemi(expr string) *glregexp.Regexp {
	plan, ok := semiPlanOf(expr)
	if !ok {
		return nil
	}
	re := glregexp.MustCompile(expr)
	g := sync.OnceValue(func() *regexp.Regexp {
		g, _ := regexp.Compile(expr)
		return g
	})
	re.SetHooks(&re2.Hooks{
		FindAllStringIndex: func(s string, n int) ([][]int, bool) {
			return semiFindAll(re.Anchored, plan, s, n)
		},
		FindStringSubmatch: func(s string) ([]string, bool) {
			if !plainText(s) || g() == nil {
				return nil, false
			}
			return g().FindStringSubmatch(s), true
		},
	})
	return re
}
