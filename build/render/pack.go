package render

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"html/template"
	"unsafe"
)

// pack is the markup of a turn a very long page makes only when it nears
// the window: gzip, then base64, so it costs the page a sixth of its
// bytes and no parsing until it is needed (assets/app.js unpacks it with
// the browser's DecompressionStream). The markup is the page's own,
// escaped when it was rendered; the output is the same for the same input
// (no name, no time in the gzip header).
func pack(h template.HTML) (string, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return "", err
	}
	// The markup as it is, not copied (a Writer keeps nothing it is given).
	if _, err := zw.Write(unsafe.Slice(unsafe.StringData(string(h)), len(h))); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
