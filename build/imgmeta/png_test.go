package imgmeta

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"reflect"
	"strings"
	"testing"
)

// pngChunk builds one chunk with its length and CRC.
func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(c, typ...)
	c = append(c, data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

// pngChunkTypes lists the chunk types of a PNG file, in order, up to IEND.
func pngChunkTypes(t testing.TB, data []byte) []string {
	t.Helper()
	var types []string
	for pos := 8; pos+8 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[pos:]))
		types = append(types, string(data[pos+4:pos+8]))
		pos += 12 + n
	}
	return types
}

// pngInsert puts chunks after IHDR and before IEND, and trailing bytes
// after IEND, into an encoded PNG.
func pngInsert(enc []byte, afterIHDR, beforeIEND []byte, trailing string) []byte {
	ihdrEnd := 8 + 12 + 13
	iend := len(enc) - 12
	return concat(enc[:ihdrEnd], afterIHDR, enc[ihdrEnd:iend], beforeIEND, enc[iend:], []byte(trailing))
}

func zlibBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// pngMetadata returns one chunk of each metadata kind, each holding the
// marker (in clear text, or compressed in zTXt/iCCP where the keyword or
// profile name holds it too), and their count.
func pngMetadata() ([]byte, int) {
	exif := concat([]byte("MM\x00\x2a\x00\x00\x00\x08"), []byte(marker))
	icc := concat(make([]byte, 128), []byte("desc"+marker))
	chunks := [][]byte{
		pngChunk("tEXt", []byte("Comment\x00"+marker)),
		pngChunk("iTXt", []byte("XML:com.adobe.xmp\x00\x00\x00\x00\x00<x:xmpmeta>"+marker+"</x:xmpmeta>")),
		pngChunk("zTXt", concat([]byte(marker+"\x00\x00"), zlibBytes([]byte(marker)))),
		pngChunk("eXIf", exif),
		pngChunk("iCCP", concat([]byte(marker+"\x00\x00"), zlibBytes(icc))),
		pngChunk("tIME", []byte{0x07, 0xea, 1, 2, 3, 4, 5}),
		pngChunk("sPLT", concat([]byte(marker+"\x00\x08"), []byte{1, 2, 3, 4, 0, 1})),
		pngChunk("prVt", []byte(marker)), // private chunk
	}
	return concat(chunks...), len(chunks)
}

// pngNumeric returns the purely numeric ancillary chunks that are kept.
func pngNumeric() []byte {
	return concat(
		pngChunk("gAMA", []byte{0, 0, 0xb1, 0x8f}),
		pngChunk("cHRM", make([]byte, 32)),
		pngChunk("sRGB", []byte{0}),
		pngChunk("pHYs", []byte{0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1}),
	)
}

// TestPNG strips every kind of PNG metadata from true-colour, palette and
// 16-bit grey images and checks that only the whitelisted chunks remain, in
// order, and that the pixels decode the same.
func TestPNG(t *testing.T) {
	pal := image.NewPaletted(image.Rect(0, 0, 9, 5), color.Palette{
		color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 255, 0, 128}, color.NRGBA{0, 0, 255, 0},
	})
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 3)
	}
	gray := image.NewGray16(image.Rect(0, 0, 7, 3))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 37)
	}
	images := map[string]image.Image{
		"nrgba":    gradient(37, 23),
		"paletted": pal,
		"gray16":   gray,
	}
	for name, m := range images {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := png.Encode(&buf, m); err != nil {
				t.Fatal(err)
			}
			clean := buf.Bytes()
			mustBeClean(t, "image/png", clean)

			meta, n := pngMetadata()
			in := pngInsert(clean, concat(pngNumeric(), meta), meta, "trailing "+marker)
			out := mustStrip(t, "image/png", in, 2*n+1)

			want := pngChunkTypes(t, pngInsert(clean, pngNumeric(), nil, ""))
			if got := pngChunkTypes(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("chunks %v, want %v", got, want)
			}
			if err := sameDecoded("image/png", in, out); err != nil {
				t.Error(err)
			}
			if err := sameDecoded("image/png", clean, out); err != nil {
				t.Error(err)
			}
			// With only numeric chunks added, nothing is removed.
			mustBeClean(t, "image/png", pngInsert(clean, pngNumeric(), nil, ""))
		})
	}
}

// TestPNGAnimation checks that APNG chunks and bKGD are kept as they are.
func TestPNGAnimation(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, gradient(4, 4))
	clean := buf.Bytes()
	fctl := make([]byte, 26)
	binary.BigEndian.PutUint32(fctl[4:], 4)
	binary.BigEndian.PutUint32(fctl[8:], 4)
	apng := pngInsert(clean,
		concat(pngChunk("acTL", []byte{0, 0, 0, 1, 0, 0, 0, 0}), pngChunk("bKGD", []byte{0, 1, 0, 2, 0, 3}), pngChunk("fcTL", fctl)),
		pngChunk("fdAT", []byte{0, 0, 0, 2}), "")
	mustBeClean(t, "image/png", apng)
	meta, n := pngMetadata()
	out := mustStrip(t, "image/png", pngInsert(apng, meta, nil, ""), n)
	if !bytes.Equal(out, apng) {
		t.Error("stripping the added metadata did not give the APNG back")
	}
}

// TestPNGErrors feeds broken PNGs: each must give an error.
func TestPNGErrors(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, gradient(5, 5))
	clean := buf.Bytes()
	ihdr := clean[8 : 8+25]
	idat := clean[33 : len(clean)-12]
	iend := clean[len(clean)-12:]
	if !strings.HasPrefix(string(ihdr[4:]), "IHDR") || !strings.HasPrefix(string(idat[4:]), "IDAT") {
		t.Fatal("test setup: IHDR or IDAT not where expected")
	}
	sig := []byte(pngSignature)
	badCRC := bytes.Clone(clean)
	badCRC[40] ^= 1 // inside IDAT
	huge := func(n uint32) []byte {
		c := binary.BigEndian.AppendUint32(nil, n)
		return concat(sig, ihdr, append(c, "tEXt"...), []byte("abcd"))
	}
	cases := map[string][]byte{
		"empty":            nil,
		"wrong sig":        concat([]byte("\x89PNG\r\n\x1a\x00"), clean[8:]),
		"jpeg":             {0xff, 0xd8, 0xff, 0xd9},
		"no IEND":          clean[:len(clean)-12],
		"no IDAT":          concat(sig, ihdr, iend),
		"IDAT first":       concat(sig, idat, ihdr, iend),
		"bad CRC":          badCRC,
		"huge 0x7fffffff":  huge(0x7fffffff),
		"huge 0xffffffff":  huge(0xffffffff),
		"bad type":         concat(sig, ihdr, pngChunk("t\x00Xt", nil), idat, iend),
		"CgBI critical":    concat(sig, pngChunk("CgBI", []byte{0x50, 0, 0x20, 6}), ihdr, idat, iend),
		"unknown critical": concat(sig, ihdr, pngChunk("ABCD", nil), idat, iend),
	}
	for name, data := range cases {
		if out, removed, err := Strip("image/png", data); err == nil {
			t.Errorf("%s: no error (removed %d, %d bytes)", name, removed, len(out))
		}
	}
	// Sanity: the pieces do make a valid PNG.
	if _, _, err := Strip("image/png", concat(sig, ihdr, idat, iend)); err != nil {
		t.Errorf("reassembled PNG: %v", err)
	}
}
