//go:build !gore2regex

package redact

import glregexp "github.com/zricethezav/gitleaks/v8/regexp"

// SmallScan, without the gore2regex tag (the rules run on Go's regexp
// package already), only makes the rules with lazy stop words
// (loadDefaultConfig). It must come before any redaction.
func SmallScan() { smallScan.Store(true) }

// anchoredGeneric is nil without RE2: Go's engine runs generic-api-key as
// gitleaks has it.
func anchoredGeneric(string) *glregexp.Regexp { return nil }

// anchoredSemi is nil without RE2: Go's engine runs the semi-generic
// rules as gitleaks has them.
func anchoredSemi(string) *glregexp.Regexp { return nil }
