package imgmeta

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/gif"
	"image/png"
	"slices"
	"testing"
)

// sample is an image holding metadata, for the robustness tests and as a
// fuzz seed.
type sample struct {
	name, mediaType string
	data            []byte
}

// samples returns an image with metadata of every kind for each format,
// from the same builders as the format tests.
func samples(t testing.TB) []sample {
	var s []sample

	var buf bytes.Buffer
	png.Encode(&buf, gradient(6, 4))
	meta, _ := pngMetadata()
	s = append(s, sample{"png", "image/png", pngInsert(buf.Bytes(), concat(pngNumeric(), meta), meta, "trailing "+marker)})

	jmeta, _ := jpegMetadata()
	for name, clean := range map[string][]byte{
		"jpeg":             encodeJPEG(t, gradient(9, 9)),
		"jpeg progressive": readTestdata(t, "progressive.jpg"),
		"jpeg restart":     readTestdata(t, "restart.jpg"),
		"jpeg ycck":        readTestdata(t, "ycck.jpg"),
	} {
		s = append(s, sample{name, "image/jpeg", concat(clean[:2], jmeta, clean[2:], jpegTrailer)})
	}

	in, _, _ := gifWithMetadata(t)
	s = append(s, sample{"gif", "image/gif", in})

	iccp, exif, xmp := webpMetadata()
	s = append(s, sample{"webp lossless", "image/webp", webpFile(
		webpChunkBytes("VP8X", webpVP8X(0x3c, 5, 4)), iccp,
		webpChunkBytes("VP8L", encodeVP8L(gradient(5, 4))), exif, xmp)})
	lossy := readTestdata(t, "lossy-alpha.webp")
	s = append(s, sample{"webp lossy", "image/webp", webpFile(lossy[12:30], iccp, lossy[30:], exif, xmp)})
	anim := readTestdata(t, "anim.webp")
	s = append(s, sample{"webp anim", "image/webp", webpFile(anim[12:], exif, xmp)})

	slices.SortFunc(s, func(a, b sample) int { return bytes.Compare([]byte(a.name), []byte(b.name)) })
	return s
}

// checkResult checks what must hold for any input: an error comes with no
// output; removed 0 hands back the input itself; otherwise the output
// strips clean (it is a valid image of the type with nothing left to
// take out).
func checkResult(mediaType string, in, out []byte, removed int, err error) error {
	if err != nil {
		if out != nil || removed != 0 {
			return fmt.Errorf("error %v with %d bytes out, removed %d", err, len(out), removed)
		}
		return nil
	}
	switch {
	case removed < 0:
		return fmt.Errorf("removed = %d", removed)
	case removed == 0:
		if len(out) != len(in) || len(in) == 0 || &out[0] != &in[0] {
			return fmt.Errorf("removed 0 but the output is not the input")
		}
	default:
		again, r, err := Strip(mediaType, out)
		if err != nil || r != 0 || !bytes.Equal(again, out) {
			return fmt.Errorf("output does not strip clean: removed %d, err %v", r, err)
		}
	}
	return nil
}

// TestUnsupported checks that only the four types are accepted.
func TestUnsupported(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, gradient(2, 2))
	for _, mt := range []string{"", "image/bmp", "image/svg+xml", "IMAGE/PNG", "image/jpg", "image/png; x=y", "application/octet-stream"} {
		if _, _, err := Strip(mt, buf.Bytes()); err == nil {
			t.Errorf("%q: no error", mt)
		}
	}
	// The right bytes under the wrong type are refused too.
	for _, mt := range mediaTypes[1:] {
		if _, _, err := Strip(mt, buf.Bytes()); err == nil {
			t.Errorf("PNG as %s: no error", mt)
		}
	}
}

// TestTruncatedAndCorrupted cuts every sample at every byte offset and
// overwrites every byte with 0x00, 0xFF and its complement: Strip must
// return an error or a valid stripped image (see checkResult) without the
// marker, and never panic or hang.
func TestTruncatedAndCorrupted(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			if _, removed, err := Strip(s.mediaType, s.data); err != nil || removed == 0 {
				t.Fatalf("sample: removed %d, err %v", removed, err)
			}
			ok := 0
			try := func(what string, in []byte) {
				out, removed, err := Strip(s.mediaType, in)
				if e := checkResult(s.mediaType, in, out, removed, err); e != nil {
					t.Fatalf("%s: %v", what, e)
				}
				if err == nil && removed > 0 && bytes.Contains(out, []byte(marker)) {
					t.Fatalf("%s: marker survived", what)
				}
				if err == nil {
					ok++
				}
			}
			for i := range s.data {
				try(fmt.Sprintf("cut at %d", i), s.data[:i])
			}
			mut := bytes.Clone(s.data)
			for i := range mut {
				orig := mut[i]
				for _, b := range []byte{0, 0xff, ^orig} {
					mut[i] = b
					try(fmt.Sprintf("byte %d = %#x", i, b), mut)
				}
				mut[i] = orig
			}
			t.Logf("%d bytes: %d of %d variants parsed", len(s.data), ok, 4*len(s.data))
		})
	}
}

// TestHugeLengths declares lengths far past the end of the data in each
// format's length fields.
func TestHugeLengths(t *testing.T) {
	be := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	le := func(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }
	cases := []struct {
		mediaType string
		data      []byte
	}{
		{"image/png", concat([]byte(pngSignature), be(0xffffffff), []byte("IHDR"))},
		{"image/png", concat([]byte(pngSignature), be(13), []byte("IHDR"), make([]byte, 17), be(0x7ffffff0), []byte("IDAT"))},
		{"image/jpeg", []byte{0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff, 0, 0}},
		{"image/jpeg", []byte{0xff, 0xd8, 0xff, 0xc0, 0xff}},
		{"image/gif", concat([]byte("GIF89a\x01\x00\x01\x00\xf7\x00\x00"), make([]byte, 10))}, // 768-byte colour table
		{"image/gif", concat([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00"), []byte{0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0x87, 2})},
		{"image/webp", concat([]byte("RIFF"), le(0xffffffff), []byte("WEBPVP8L"), le(0xfffffff0))},
		{"image/webp", concat([]byte("RIFF"), le(16), []byte("WEBPVP8L"), le(0xffffffff), []byte("/abcd"))},
	}
	for i, c := range cases {
		out, removed, err := Strip(c.mediaType, c.data)
		if err == nil {
			t.Errorf("case %d (%s): no error (removed %d, %d bytes)", i, c.mediaType, removed, len(out))
		}
	}
}

// FuzzStrip checks, for any bytes under any of the four types, that Strip
// never panics, that its result is consistent (checkResult), and that when
// Go's decoder can read the input, it reads the output as the same pixels.
func FuzzStrip(f *testing.F) {
	for _, s := range samples(f) {
		f.Add(uint8(slices.Index(mediaTypes, s.mediaType)), s.data)
	}
	f.Add(uint8(0), []byte(pngSignature))
	f.Add(uint8(1), []byte{0xff, 0xd8, 0xff, 0xd9})
	f.Add(uint8(2), []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add(uint8(3), []byte("RIFF\x04\x00\x00\x00WEBP"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		mediaType := mediaTypes[int(kind)%len(mediaTypes)]
		in := bytes.Clone(data)
		out, removed, err := Strip(mediaType, data)
		if !bytes.Equal(in, data) {
			t.Fatal("Strip modified its input")
		}
		if e := checkResult(mediaType, data, out, removed, err); e != nil {
			t.Fatal(e)
		}
		if err != nil || removed == 0 {
			return
		}
		if e := sameWhenDecodable(mediaType, data, out); e != nil {
			t.Fatal(e)
		}
	})
}

// sameWhenDecodable checks that out decodes as in does, when Go's decoder
// reads in at all and the image is small enough to decode quickly.
func sameWhenDecodable(mediaType string, in, out []byte) error {
	cfg, err := decodeConfig(mediaType, in)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > 1<<16 {
		return nil
	}
	if mediaType == "image/jpeg" && bytes.Count(in, []byte{0xff, 0xe0}) > 1 {
		// Go's decoder takes the JFIF flag from the last APP0, libjpeg
		// from any; with the later APP0 dropped they may disagree.
		return nil
	}
	if mediaType == "image/gif" {
		a, err := gif.DecodeAll(bytes.NewReader(in))
		if err != nil {
			return nil
		}
		b, err := gif.DecodeAll(bytes.NewReader(out))
		if err != nil {
			return fmt.Errorf("the input decodes, the output does not: %v", err)
		}
		// Go reads the loop count only from the first sub-block of
		// NETSCAPE2.0; browsers find it in any, as Strip does.
		b.LoopCount = a.LoopCount
		return sameGIF(a, b)
	}
	a, err := decodeStill(mediaType, in)
	if err != nil {
		return nil
	}
	b, err := decodeStill(mediaType, out)
	if err != nil {
		return fmt.Errorf("the input decodes, the output does not: %v", err)
	}
	return samePixels(a, b)
}
