//go:build !gore2regex

package redact

// SmallScan does nothing without the gore2regex tag: the rules run on Go's
// regexp package already.
func SmallScan() {}
