//go:build !gore2regex

package main

// re2Scan: see re2_on.go.
const re2Scan = false

// slowScanNote is said on a terminal by a build that redacts.
const slowScanNote = "ccsite build: note: this ccsite was built without -tags gore2regex, so secret scanning runs on Go's regexp engine and a cold build takes about 1.4 times the CPU; build it with make build (or go build -tags gore2regex)\n"
