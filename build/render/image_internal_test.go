package render

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"ccsite/build/transcript"
)

// TestImageLineBreaks: an image whose base64 is folded into lines (CRLF or
// LF, as mail and some tools write it) is the same image as unfolded; one
// with other stray bytes is not shown as an image.
func TestImageLineBreaks(t *testing.T) {
	raw := bytes.Repeat([]byte("\x89PNG\r\n\x1a\n\x00\xff binary"), 40)
	flat := base64.StdEncoding.EncodeToString(raw)
	var folded strings.Builder
	for i := 0; i < len(flat); i += 76 {
		folded.WriteString(flat[i:min(i+76, len(flat))])
		folded.WriteString([]string{"\r\n", "\n"}[i/76%2])
	}
	var got []byte
	c := &viewCtx{b: &Builder{Media: func(ext string, data []byte) string {
		got = data
		return "media/x." + ext
	}}}
	img, ok := c.image(&transcript.Source{Type: "base64", MediaType: "image/png", Data: folded.String()})
	if !ok || !bytes.Equal(got, raw) || !strings.HasSuffix(string(img.Src), "media/x.png") {
		t.Fatalf("folded base64: ok %v, src %q, %d bytes stored, want %d", ok, img.Src, len(got), len(raw))
	}
	if _, ok := c.image(&transcript.Source{Type: "base64", MediaType: "image/png", Data: flat[:40] + " " + flat[40:]}); ok {
		t.Error("base64 with a space in it is shown as an image")
	}
}
