// Package readall reads a file whole into a buffer its caller keeps from
// one file to the next (the archive's copies, the transcripts).
package readall

import (
	"io"
	"os"
)

// File reads f to its end into buf[:0], grown when short, and returns what
// it read (with an error, what it read until then, so the caller may keep
// the buffer). size is the file's length when it was opened: a file that
// grew since (a live session) is read on to its end.
func File(f *os.File, size int64, buf []byte) ([]byte, error) {
	// One byte over, so that a file that did not grow ends the first read
	// short of the buffer and the next one sees EOF without regrowing.
	data := buf[:0]
	if int64(cap(data)) < size+1 {
		data = make([]byte, 0, size+1)
	}
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}
