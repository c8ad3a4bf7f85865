package session

import (
	"os"
	"strconv"
	"testing"

	"ccsite/build/transcript"
)

// BenchmarkHostile decodes and builds one hostile shape
// (CCSITE_HOSTILE_SHAPE, default tiny) of CCSITE_HOSTILE_N records: run it
// with -cpuprofile to see where a shape's time goes.
func BenchmarkHostile(b *testing.B) {
	shape := os.Getenv("CCSITE_HOSTILE_SHAPE")
	if shape == "" {
		shape = HostileTiny
	}
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("CCSITE_HOSTILE_N")); err == nil {
		n = v
	}
	path, err := writeHostile(b.TempDir(), shape, n)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		f, err := transcript.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		Build(f, Options{})
	}
}
