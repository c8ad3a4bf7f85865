//go:build !linux

package main

// totalMemory is the machine's memory in bytes, 0 when unknown.
func totalMemory() int64 { return 0 }
