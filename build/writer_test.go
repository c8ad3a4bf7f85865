package build

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSameContent: a file is the same as data only when every byte is,
// across the chunks it is compared in, and it holds nothing more.
func TestSameContent(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 40000) // 640 KB: three chunks
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	changed := func(at int) []byte {
		d := bytes.Clone(data)
		d[at] ^= 1
		return d
	}
	for _, c := range []struct {
		name string
		data []byte
		want bool
	}{
		{"same", data, true},
		{"first byte", changed(0), false},
		{"second chunk", changed(300 << 10), false},
		{"last byte", changed(len(data) - 1), false},
		{"shorter", data[:len(data)-1], false},
		{"longer", append(bytes.Clone(data), 'x'), false},
		{"empty", nil, false},
	} {
		if got := sameContent(path, c.data); got != c.want {
			t.Errorf("%s: sameContent = %v, want %v", c.name, got, c.want)
		}
	}
	if sameContent(filepath.Join(dir, "missing.html"), data) {
		t.Error("a missing file is the same as data")
	}
	empty := filepath.Join(dir, "empty.html")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !sameContent(empty, nil) {
		t.Error("an empty file differs from no data")
	}
}
