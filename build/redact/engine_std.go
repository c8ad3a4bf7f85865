//go:build !gore2regex

package redact

// SmallScan, without the gore2regex tag (the rules run on Go's regexp
// package already), only makes the rules with lazy stop words
// (loadDefaultConfig). It must come before any redaction.
func SmallScan() { smallScan.Store(true) }
