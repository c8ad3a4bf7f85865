// Package funclen holds the test that keeps every function of build/ and
// search/ to maxLines lines; it has no code of its own.
package funclen
