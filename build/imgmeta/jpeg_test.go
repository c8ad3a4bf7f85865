package imgmeta

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"reflect"
	"testing"
)

// jpegSeg builds a marker segment: 0xFF, the marker, the length and payload.
func jpegSeg(m byte, payload []byte) []byte {
	s := []byte{0xff, m}
	s = binary.BigEndian.AppendUint16(s, uint16(len(payload)+2))
	return append(s, payload...)
}

// jpegSegInfo is one marker found by jpegSegments: its code and where its
// segment (header only, not the scan data that follows an SOS) starts and
// ends.
type jpegSegInfo struct {
	marker     byte
	start, end int
}

// jpegSegments lists the markers of a well-formed JPEG up to EOI. It is
// written independently of stripJPEG, for checking its output.
func jpegSegments(t testing.TB, data []byte) []jpegSegInfo {
	t.Helper()
	var segs []jpegSegInfo
	pos := 0
	for pos+1 < len(data) {
		if data[pos] != 0xff {
			t.Fatalf("no marker at offset %d", pos)
		}
		m := data[pos+1]
		if m == 0xff {
			pos++ // fill byte
			continue
		}
		start := pos
		pos += 2
		if m == 0xd8 || m == 0xd9 || 0xd0 <= m && m <= 0xd7 {
			segs = append(segs, jpegSegInfo{m, start, pos})
			if m == 0xd9 {
				return segs
			}
			continue
		}
		pos += int(binary.BigEndian.Uint16(data[pos:]))
		segs = append(segs, jpegSegInfo{m, start, pos})
		if m == 0xda {
			for !(data[pos] == 0xff && data[pos+1] != 0 && !(0xd0 <= data[pos+1] && data[pos+1] <= 0xd7)) {
				pos++
			}
		}
	}
	t.Fatal("no EOI")
	return nil
}

// jpegMarkers lists just the marker codes.
func jpegMarkers(t testing.TB, data []byte) []byte {
	var ms []byte
	for _, s := range jpegSegments(t, data) {
		ms = append(ms, s.marker)
	}
	return ms
}

// jpegMetadata returns one segment of each metadata kind, each holding the
// marker, and their count. The JFIF APP0 carries a thumbnail made of the
// marker.
func jpegMetadata() ([]byte, int) {
	thumb := bytes.Repeat([]byte(marker), 3) // 17×1 pixels, 3 bytes each
	segs := [][]byte{
		jpegSeg(0xe0, concat([]byte("JFIF\x00\x01\x02\x01\x00\x48\x00\x48"), []byte{byte(len(marker)), 1}, thumb)),
		jpegSeg(0xe0, []byte("JFXX\x00\x10"+marker)),
		jpegSeg(0xe1, []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08"+marker)),
		jpegSeg(0xe1, []byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>"+marker+"</x:xmpmeta>")),
		jpegSeg(0xe2, concat([]byte("ICC_PROFILE\x00\x01\x01"), make([]byte, 128), []byte("desc"+marker))),
		jpegSeg(0xe2, []byte("MPF\x00"+marker)),
		jpegSeg(0xe2, []byte("FPXR\x00"+marker)),
		jpegSeg(0xe3, []byte(marker)),
		jpegSeg(0xec, []byte("Ducky\x00"+marker)),
		jpegSeg(0xed, []byte("Photoshop 3.0\x008BIM\x04\x04\x00\x00"+marker)),
		jpegSeg(0xef, []byte(marker)),
		jpegSeg(0xfe, []byte(marker)),
		jpegSeg(0xee, []byte("Adobe"+marker[:6])), // too short to be read: dropped
	}
	return concat(segs...), len(segs)
}

// jpegTrailer is what follows EOI in the test files: a second, tiny JPEG
// (as MPF and gain-map files carry) with a comment.
var jpegTrailer = concat([]byte{0xff, 0xd8}, jpegSeg(0xfe, []byte("trailing "+marker)), []byte{0xff, 0xd9})

// encodeJPEG encodes m with Go's encoder (no APP segments at all).
func encodeJPEG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestJPEG strips every kind of JPEG metadata (and trailing data) from
// baseline, grey, progressive, restart-interval and YCCK files and checks
// the exact bytes left: the clean file, with a JFIF header (without
// thumbnail) where the test added one. Pixels must decode the same.
func TestJPEG(t *testing.T) {
	gray := image.NewGray(image.Rect(0, 0, 19, 11))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 5)
	}
	files := map[string][]byte{
		"baseline":         encodeJPEG(t, gradient(37, 23)),
		"gray":             encodeJPEG(t, gray),
		"progressive":      readTestdata(t, "progressive.jpg"),
		"gray progressive": readTestdata(t, "gray-progressive.jpg"),
		"restart":          readTestdata(t, "restart.jpg"),
		"ycck":             readTestdata(t, "ycck.jpg"),
	}
	for name, clean := range files {
		t.Run(name, func(t *testing.T) {
			mustBeClean(t, "image/jpeg", clean)
			segs := jpegSegments(t, clean)
			at := 2 // after SOI, or after the file's own JFIF APP0
			hasJFIF := segs[1].marker == 0xe0
			if hasJFIF {
				at = segs[1].end
			}
			meta, n := jpegMetadata()
			in := concat(clean[:at], meta, clean[at:], jpegTrailer)
			out := mustStrip(t, "image/jpeg", in, n+1)

			want := clean
			if !hasJFIF {
				// The added JFIF header stays, without its thumbnail.
				jfif := jpegSeg(0xe0, []byte("JFIF\x00\x01\x02\x01\x00\x48\x00\x48\x00\x00"))
				want = concat(clean[:2], jfif, clean[2:])
			}
			if !bytes.Equal(out, want) {
				t.Errorf("output markers % x, want % x", jpegMarkers(t, out), jpegMarkers(t, want))
			}
			if err := sameDecoded("image/jpeg", in, out); err != nil {
				t.Error(err)
			}
			if err := sameDecoded("image/jpeg", clean, out); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestJPEGProgressiveScans puts metadata between the scans of a
// progressive JPEG: it goes, and every scan stays.
func TestJPEGProgressiveScans(t *testing.T) {
	clean := readTestdata(t, "progressive.jpg")
	var sos []int
	for _, s := range jpegSegments(t, clean) {
		if s.marker == 0xda {
			sos = append(sos, s.start)
		}
	}
	if len(sos) < 3 {
		t.Fatalf("progressive.jpg has %d scans", len(sos))
	}
	com := jpegSeg(0xfe, []byte(marker))
	app1 := jpegSeg(0xe1, []byte("Exif\x00\x00"+marker))
	in := concat(clean[:sos[1]], com, clean[sos[1]:sos[2]], app1, com, clean[sos[2]:])
	out := mustStrip(t, "image/jpeg", in, 3)
	if !bytes.Equal(out, clean) {
		t.Errorf("output markers % x, want % x", jpegMarkers(t, out), jpegMarkers(t, clean))
	}
	if err := sameDecoded("image/jpeg", in, out); err != nil {
		t.Error(err)
	}
}

// TestJPEGAdobe checks that the Adobe APP14 segment, which decides how
// components are read, is kept and cut to its 12 bytes: with transform 0 a
// 3-component file decodes as RGB, so losing the segment would change the
// pixels; a YCCK file cannot be decoded at all without it.
func TestJPEGAdobe(t *testing.T) {
	clean := encodeJPEG(t, gradient(16, 16))
	adobe := []byte("Adobe\x00\x64\x00\x00\x00\x00\x00")
	in := concat(clean[:2], jpegSeg(0xee, concat(adobe, []byte(marker))), clean[2:])
	out := mustStrip(t, "image/jpeg", in, 1)
	if want := concat(clean[:2], jpegSeg(0xee, adobe), clean[2:]); !bytes.Equal(out, want) {
		t.Errorf("got markers % x, want % x", jpegMarkers(t, out), jpegMarkers(t, want))
	}
	if err := sameDecoded("image/jpeg", in, out); err != nil {
		t.Error(err)
	}
	// The test can fail: the same file without APP14 decodes otherwise.
	if err := sameDecoded("image/jpeg", in, clean); err == nil {
		t.Error("APP14 transform 0 made no difference: the test proves nothing")
	}
	a, _ := decodeStill("image/jpeg", out)
	if _, ok := a.(*image.RGBA); !ok {
		t.Errorf("decoded as %T, want *image.RGBA (Adobe transform 0)", a)
	}

	ycck := readTestdata(t, "ycck.jpg")
	var app14 jpegSegInfo
	for _, s := range jpegSegments(t, ycck) {
		if s.marker == 0xee {
			app14 = s
		}
	}
	if app14.end-app14.start != 16 || ycck[app14.end-1] != 2 {
		t.Fatalf("ycck.jpg: APP14 %+v is not a 12-byte Adobe segment with transform 2", app14)
	}
	without := concat(ycck[:app14.start], ycck[app14.end:])
	if err := sameDecoded("image/jpeg", ycck, without); err == nil {
		t.Error("YCCK decodes the same without APP14: the test proves nothing")
	}
	m, _ := decodeStill("image/jpeg", ycck)
	if _, ok := m.(*image.CMYK); !ok {
		t.Errorf("ycck.jpg decoded as %T, want *image.CMYK", m)
	}
}

// TestJPEGOddStructure covers what lies between segments: fill bytes
// before a kept marker stay with it, stray bytes (even with a marker
// inside) and stand-alone RST markers go, a second JFIF header goes, and
// a short JFIF header is written out in full.
func TestJPEGOddStructure(t *testing.T) {
	clean := encodeJPEG(t, gradient(24, 8))
	segs := jpegSegments(t, clean) // SOI DQT SOF0 DHT SOS EOI
	if !reflect.DeepEqual(jpegMarkers(t, clean), []byte{0xd8, 0xdb, 0xc0, 0xc4, 0xda, 0xd9}) {
		t.Fatalf("Go's encoder wrote markers % x", jpegMarkers(t, clean))
	}
	dqt, sof := segs[1].start, segs[2].start

	// Fill bytes before DQT are kept; junk and a stray RST0 go.
	in := concat(clean[:dqt], []byte("\xff\xff\xff"), clean[dqt:sof], []byte("junk"+marker+"\xff\x00junk"), []byte{0xff, 0xd0}, clean[sof:])
	out := mustStrip(t, "image/jpeg", in, 2)
	if want := concat(clean[:dqt], []byte("\xff\xff\xff"), clean[dqt:]); !bytes.Equal(out, want) {
		t.Errorf("got markers % x", jpegMarkers(t, out))
	}
	if err := sameDecoded("image/jpeg", in, out); err != nil {
		t.Error(err)
	}

	// A short JFIF header (Go's decoder reads only its first 5 bytes) is
	// written out in full with default values; a second JFIF goes.
	short := jpegSeg(0xe0, []byte("JFIF\x00"))
	second := jpegSeg(0xe0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))
	in = concat(clean[:2], short, second, clean[2:])
	out = mustStrip(t, "image/jpeg", in, 2)
	if want := concat(clean[:2], second, clean[2:]); !bytes.Equal(out, want) {
		t.Errorf("got % x", out[:30])
	}

	// A canonical JFIF header is clean.
	mustBeClean(t, "image/jpeg", concat(clean[:2], second, clean[2:]))
}

// TestJPEGErrors feeds broken JPEGs: each must give an error.
func TestJPEGErrors(t *testing.T) {
	clean := encodeJPEG(t, gradient(8, 8))
	segs := jpegSegments(t, clean)
	sof, sos := segs[2], segs[4]
	cases := map[string][]byte{
		"empty":       nil,
		"no SOI":      clean[2:],
		"png":         []byte(pngSignature),
		"no EOI":      clean[:len(clean)-2],
		"cut in scan": clean[:sos.end+3],
		"huge APP1":   concat(clean[:2], []byte{0xff, 0xe1, 0xff, 0xff}, []byte("Exif")),
		"length 1":    concat(clean[:2], []byte{0xff, 0xe1, 0x00, 0x01}, clean[2:]),
		"length 0":    concat(clean[:2], []byte{0xff, 0xfe, 0x00, 0x00}, clean[2:]),
		"SOS first":   concat(clean[:sof.start], clean[sof.end:]),
		"only EOI":    {0xff, 0xd8, 0xff, 0xd9},
		"second SOI":  concat(clean[:2], clean),
		"only fill":   {0xff, 0xd8, 0xff, 0xff, 0xff},
	}
	for name, data := range cases {
		if out, removed, err := Strip("image/jpeg", data); err == nil {
			t.Errorf("%s: no error (removed %d, %d bytes)", name, removed, len(out))
		}
	}
}
