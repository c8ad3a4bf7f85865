// Package randtext makes random texts for tests that compare two ways of
// doing one thing (a fast path and the reference it must agree with).
package randtext

import (
	"math/rand/v2"
	"strings"
)

// Join returns fewer than n pieces, each chosen at random, joined.
func Join(r *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for range r.IntN(n) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Bytes is s's bytes, each a piece of its own: a character of several
// bytes is split, so Join of them makes invalid UTF-8 too.
func Bytes(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}

// Of returns n bytes, each chosen at random from alphabet.
func Of(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
