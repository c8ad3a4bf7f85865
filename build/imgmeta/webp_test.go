package imgmeta

import (
	"bytes"
	"encoding/binary"
	"image"
	"math/bits"
	"testing"

	"golang.org/x/image/webp"
)

// vp8lBits writes a VP8L bit stream: least significant bit first.
type vp8lBits struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *vp8lBits) write(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

func (w *vp8lBits) bytes() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
	}
	return w.buf
}

// encodeVP8L encodes m as the simplest lossless VP8L bit stream there is:
// no transform, no colour cache, one prefix-code group in which green, red,
// blue and alpha each use a fixed 8-bit code for every literal (and the
// unused distance code has a single symbol). It is large but exact, and
// lets the tests make WebP images of any size.
func encodeVP8L(m *image.NRGBA) []byte {
	w := &vp8lBits{}
	b := m.Bounds()
	w.write(0x2f, 8) // signature
	w.write(uint64(b.Dx()-1), 14)
	w.write(uint64(b.Dy()-1), 14)
	w.write(1, 1) // alpha is used
	w.write(0, 3) // version 0
	w.write(0, 1) // no transform
	w.write(0, 1) // no colour cache
	w.write(0, 1) // no meta prefix codes
	for i, size := range []int{256 + 24, 256, 256, 256, 40} {
		if i == 4 {
			// Distance: a simple code with the single symbol 0.
			w.write(1, 1) // simple
			w.write(0, 1) // one symbol
			w.write(0, 1) // in 1 bit
			w.write(0, 1) // symbol 0
			continue
		}
		// A normal code whose code-length code gives lengths 0 and 8 a
		// 1-bit code each (0 → "0", 8 → "1"). The order in which its 12
		// lengths are stored is 17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8.
		w.write(0, 1)
		w.write(12-4, 4)
		for _, sym := range []int{17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8} {
			if sym == 0 || sym == 8 {
				w.write(1, 3)
			} else {
				w.write(0, 3)
			}
		}
		w.write(0, 1) // a length for every symbol of the alphabet
		for s := 0; s < size; s++ {
			if s < 256 {
				w.write(1, 1) // length 8
			} else {
				w.write(0, 1) // length 0
			}
		}
	}
	// With every literal 8 bits long, symbol v's code is v, read from its
	// most significant bit on.
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := m.NRGBAAt(x, y)
			for _, v := range []uint8{c.G, c.R, c.B, c.A} {
				w.write(uint64(bits.Reverse8(v)), 8)
			}
		}
	}
	return w.bytes()
}

// webpChunkBytes builds one RIFF chunk with its padding byte.
func webpChunkBytes(id string, payload []byte) []byte {
	c := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	c = append(c, payload...)
	if len(payload)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

// webpFile wraps chunks in a RIFF WEBP header with the right size.
func webpFile(chunks ...[]byte) []byte {
	body := concat(chunks...)
	h := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body)+4))
	return concat(h, []byte("WEBP"), body)
}

// webpVP8X builds a VP8X payload for a w×h canvas.
func webpVP8X(flags byte, w, h int) []byte {
	p := []byte{flags, 0, 0, 0}
	p = append(p, byte(w-1), byte((w-1)>>8), byte((w-1)>>16))
	return append(p, byte(h-1), byte((h-1)>>8), byte((h-1)>>16))
}

// webpMetadata returns the three metadata chunks, each holding the marker
// (EXIF has an odd size).
func webpMetadata() (iccp, exif, xmp []byte) {
	return webpChunkBytes("ICCP", concat(make([]byte, 128), []byte("desc"+marker))),
		webpChunkBytes("EXIF", []byte("MM\x00\x2a\x00\x00\x00\x08"+marker)),
		webpChunkBytes("XMP ", []byte("<x:xmpmeta>"+marker+"</x:xmpmeta>"))
}

// webpLossless returns a simple lossless WebP of m (RIFF, VP8L).
func webpLossless(m *image.NRGBA) []byte {
	return webpFile(webpChunkBytes("VP8L", encodeVP8L(m)))
}

// TestVP8LEncoder checks the test's own encoder against x/image/webp.
func TestVP8LEncoder(t *testing.T) {
	for _, size := range [][2]int{{1, 1}, {2, 3}, {37, 23}} {
		m := gradient(size[0], size[1])
		got, err := webp.Decode(bytes.NewReader(webpLossless(m)))
		if err != nil {
			t.Fatalf("%v: %v", size, err)
		}
		if err := samePixels(m, got); err != nil {
			t.Errorf("%v: %v", size, err)
		}
	}
}

// TestWebP strips ICCP, EXIF, XMP and unknown chunks from lossless
// (VP8X+VP8L) and lossy-with-alpha (VP8X+ALPH+VP8) files: the flags are
// cleared, the RIFF size is right, the output is the clean file byte for
// byte and decodes the same.
func TestWebP(t *testing.T) {
	m := gradient(37, 23)
	vp8l := webpChunkBytes("VP8L", encodeVP8L(m))
	iccp, exif, xmp := webpMetadata()
	unknown := webpChunkBytes("ZZZZ", []byte(marker)) // odd size

	t.Run("lossless", func(t *testing.T) {
		mustBeClean(t, "image/webp", webpLossless(m))
		clean := webpFile(webpChunkBytes("VP8X", webpVP8X(0x10, 37, 23)), vp8l)
		mustBeClean(t, "image/webp", clean)
		in := webpFile(webpChunkBytes("VP8X", webpVP8X(0x10|0x20|0x08|0x04, 37, 23)), iccp, vp8l, exif, xmp, unknown)
		out := mustStrip(t, "image/webp", in, 4)
		if !bytes.Equal(out, clean) {
			t.Errorf("got %q", out[:min(len(out), 40)])
		}
		if err := sameDecoded("image/webp", in, out); err != nil {
			t.Error(err)
		}
		got, _ := decodeStill("image/webp", out)
		if err := samePixels(m, got); err != nil {
			t.Error(err)
		}
	})

	t.Run("lossy alpha", func(t *testing.T) {
		clean := readTestdata(t, "lossy-alpha.webp")
		mustBeClean(t, "image/webp", clean)
		if string(clean[12:16]) != "VP8X" || clean[20]&0x2c != 0 {
			t.Fatalf("lossy-alpha.webp: no clean VP8X")
		}
		vp8x := clean[12:30]
		in := concat(clean[:12], vp8x, iccp, clean[30:], exif, xmp, unknown)
		in[20] |= 0x2c
		binary.LittleEndian.PutUint32(in[4:], uint32(len(in)-8))
		out := mustStrip(t, "image/webp", in, 4)
		if !bytes.Equal(out, clean) {
			t.Error("output is not the clean file")
		}
		if err := sameDecoded("image/webp", in, out); err != nil {
			t.Error(err)
		}
		if got, _ := decodeStill("image/webp", out); got != nil {
			if _, ok := got.(*image.NYCbCrA); !ok {
				t.Errorf("decoded as %T, want *image.NYCbCrA", got)
			}
		}
	})

	t.Run("simple with extras", func(t *testing.T) {
		// Metadata after a simple-format image (not allowed, but written
		// by some tools) and bytes after the RIFF form.
		clean := webpLossless(m)
		in := concat(webpFile(vp8l, exif, xmp), []byte("trailing "+marker))
		out := mustStrip(t, "image/webp", in, 3)
		if !bytes.Equal(out, clean) {
			t.Error("output is not the clean file")
		}
		if err := sameDecoded("image/webp", in, out); err != nil {
			t.Error(err)
		}
	})

	t.Run("stale flags", func(t *testing.T) {
		clean := webpFile(webpChunkBytes("VP8X", webpVP8X(0x10, 37, 23)), vp8l)
		in := webpFile(webpChunkBytes("VP8X", webpVP8X(0x10|0x08, 37, 23)), vp8l)
		if out := mustStrip(t, "image/webp", in, 1); !bytes.Equal(out, clean) {
			t.Error("EXIF flag not cleared")
		}
	})
}

// TestWebPAnimation strips metadata from an animated WebP, including an
// unknown chunk inside a frame: ANIM and every ANMF frame stay byte for
// byte (x/image/webp cannot decode animations, so the check is on bytes).
func TestWebPAnimation(t *testing.T) {
	clean := readTestdata(t, "anim.webp")
	mustBeClean(t, "image/webp", clean)
	chunks, _, err := webpChunks(clean[12:])
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range chunks {
		ids = append(ids, c.id)
	}
	if len(chunks) != 5 || ids[0] != "VP8X" || ids[1] != "ANIM" || ids[2] != "ANMF" {
		t.Fatalf("anim.webp chunks %v", ids)
	}
	iccp, exif, xmp := webpMetadata()
	unknown := webpChunkBytes("ZZZZ", []byte(marker))
	frame := chunks[3].payload
	vp8x := webpChunkBytes("VP8X", concat([]byte{chunks[0].payload[0] | 0x2c}, chunks[0].payload[1:]))
	in := webpFile(vp8x, iccp,
		webpChunkBytes("ANIM", chunks[1].payload),
		webpChunkBytes("ANMF", chunks[2].payload),
		webpChunkBytes("ANMF", concat(frame[:16], unknown, frame[16:], exif)),
		webpChunkBytes("ANMF", chunks[4].payload),
		exif, xmp)
	out := mustStrip(t, "image/webp", in, 5)
	if !bytes.Equal(out, clean) {
		t.Error("output is not the clean file")
	}
}

// TestWebPPadding covers odd-sized chunks: a missing padding byte at the
// very end is accepted (the file comes back as it was); a padding byte
// that is not zero is written as zero.
func TestWebPPadding(t *testing.T) {
	payload := encodeVP8L(gradient(5, 3))
	if len(payload)%2 == 0 {
		payload = append(payload, 0) // decoders ignore bytes after the stream
	}
	clean := webpFile(webpChunkBytes("VP8L", payload))
	mustBeClean(t, "image/webp", clean)

	noPad := bytes.Clone(clean[:len(clean)-1])
	binary.LittleEndian.PutUint32(noPad[4:], uint32(len(noPad)-8))
	mustBeClean(t, "image/webp", noPad)

	badPad := bytes.Clone(clean)
	badPad[len(badPad)-1] = 'x'
	if out := mustStrip(t, "image/webp", badPad, 1); !bytes.Equal(out, clean) {
		t.Error("padding byte not zeroed")
	}

	// An odd chunk dropped from the middle, with its padding.
	vp8x := webpChunkBytes("VP8X", webpVP8X(0x10, 5, 3))
	in := webpFile(vp8x, webpChunkBytes("ZZZZ", []byte("odd")), webpChunkBytes("VP8L", payload))
	if out := mustStrip(t, "image/webp", in, 1); !bytes.Equal(out, webpFile(vp8x, webpChunkBytes("VP8L", payload))) {
		t.Error("odd chunk in the middle not dropped cleanly")
	}
}

// TestWebPErrors feeds broken WebP files: each must give an error.
func TestWebPErrors(t *testing.T) {
	vp8l := webpChunkBytes("VP8L", encodeVP8L(gradient(3, 3)))
	clean := webpFile(vp8l)
	withSize := func(b []byte, size uint32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[4:], size)
		return b
	}
	hugeChunk := webpFile(append([]byte("EXIF\xff\xff\xff\xff"), "abcd"...))
	vp8x := webpChunkBytes("VP8X", webpVP8X(0, 3, 3))
	cases := map[string][]byte{
		"empty":           nil,
		"RIFX":            concat([]byte("RIFX"), clean[4:]),
		"WEBQ":            concat(clean[:8], []byte("WEBQ"), clean[12:]),
		"size 0":          withSize(clean, 0),
		"size too big":    withSize(clean, uint32(len(clean))),
		"size 0xffffffff": withSize(clean, 0xffffffff),
		"huge chunk":      hugeChunk,
		"no chunks":       webpFile(),
		"EXIF first":      webpFile(webpChunkBytes("EXIF", []byte("x")), vp8l),
		"VP8X only":       webpFile(vp8x),
		"VP8X size 9":     webpFile(webpChunkBytes("VP8X", make([]byte, 9)), vp8l),
		"VP8 no start":    webpFile(webpChunkBytes("VP8 ", make([]byte, 10))),
		"VP8L no sig":     webpFile(webpChunkBytes("VP8L", make([]byte, 10))),
		"short ANMF":      webpFile(vp8x, webpChunkBytes("ANMF", make([]byte, 15))),
		"empty ANMF":      webpFile(vp8x, webpChunkBytes("ANMF", make([]byte, 16))),
		"cut header":      concat(clean, []byte("EXIF")),
		"truncated":       clean[:len(clean)-3],
	}
	cases["cut header"] = withSize(cases["cut header"], uint32(len(cases["cut header"])-8))
	for name, data := range cases {
		if out, removed, err := Strip("image/webp", data); err == nil {
			t.Errorf("%s: no error (removed %d, %d bytes)", name, removed, len(out))
		}
	}
}
