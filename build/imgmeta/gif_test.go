package imgmeta

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"reflect"
	"testing"
)

// gifBlocks builds data sub-blocks (at most 255 bytes each) with their
// terminator.
func gifBlocks(data []byte) []byte {
	var out []byte
	for len(data) > 0 {
		n := min(len(data), 255)
		out = append(out, byte(n))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return append(out, 0)
}

// gifAppExt builds an application extension with an 11-byte identifier.
func gifAppExt(id string, data []byte) []byte {
	return concat([]byte{0x21, 0xff, 11}, []byte(id), gifBlocks(data))
}

// gifMetadata returns one block of each metadata kind, each holding the
// marker, and their count.
func gifMetadata() ([]byte, int) {
	exts := [][]byte{
		concat([]byte{0x21, 0xfe}, gifBlocks([]byte("comment "+marker))),
		concat([]byte{0x21, 0x01, 12}, make([]byte, 12), gifBlocks([]byte(marker))), // plain text
		gifAppExt("XMP DataXMP", []byte("<x:xmpmeta>"+marker+"</x:xmpmeta>")),
		gifAppExt("ICCRGBG1012", concat(make([]byte, 128), []byte("desc"+marker))),
		gifAppExt("MGK8BIM0000", []byte("8BIM"+marker)),
	}
	return concat(exts...), len(exts)
}

// gifList names the blocks of a well-formed GIF in order ("image",
// "ext f9", "app NETSCAPE2.0", "trailer"), written independently of
// stripGIF.
func gifList(t testing.TB, data []byte) []string {
	t.Helper()
	pos := 13
	if data[10]&0x80 != 0 {
		pos += 3 << (data[10]&7 + 1)
	}
	skip := func(p int) int {
		for data[p] != 0 {
			p += int(data[p]) + 1
		}
		return p + 1
	}
	var list []string
	for {
		switch data[pos] {
		case 0x3b:
			return append(list, "trailer")
		case 0x2c:
			p := pos + 10
			if data[pos+9]&0x80 != 0 {
				p += 3 << (data[pos+9]&7 + 1)
			}
			pos = skip(p + 1)
			list = append(list, "image")
		case 0x21:
			if data[pos+1] == 0xff {
				list = append(list, "app "+string(data[pos+3:pos+3+int(data[pos+2])]))
			} else {
				list = append(list, fmt.Sprintf("ext %02x", data[pos+1]))
			}
			pos = skip(pos + 2)
		default:
			t.Fatalf("bad block %02x", data[pos])
		}
	}
}

// gifScreenEnd returns the offset just past the logical screen descriptor
// and global colour table.
func gifScreenEnd(data []byte) int {
	if data[10]&0x80 != 0 {
		return 13 + 3<<(data[10]&7+1)
	}
	return 13
}

// animatedGIF encodes three frames, with their own palettes (local colour
// tables), a sub-rectangle, transparency, delays, disposal and a loop
// count.
func animatedGIF(t testing.TB) []byte {
	pal := color.Palette(palette.Plan9[:16])
	pal2 := color.Palette{color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 0, 0}, color.RGBA{0, 0, 255, 255}}
	f1 := image.NewPaletted(image.Rect(0, 0, 20, 12), pal)
	f2 := image.NewPaletted(image.Rect(3, 2, 15, 9), pal2)
	f3 := image.NewPaletted(image.Rect(0, 0, 20, 12), palette.WebSafe)
	for i := range f1.Pix {
		f1.Pix[i] = uint8(i % 16)
	}
	for i := range f2.Pix {
		f2.Pix[i] = uint8(i % 3)
	}
	for i := range f3.Pix {
		f3.Pix[i] = uint8(i * 7 % 216)
	}
	var buf bytes.Buffer
	err := gif.EncodeAll(&buf, &gif.GIF{
		Image:     []*image.Paletted{f1, f2, f3},
		Delay:     []int{10, 25, 70},
		Disposal:  []byte{gif.DisposalNone, gif.DisposalBackground, gif.DisposalPrevious},
		LoopCount: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gifWithMetadata returns an animated GIF with metadata before the first
// frame and before the trailer, an extra NETSCAPE2.0 sub-block and
// trailing bytes; the clean GIF it came from; and how many items Strip
// must remove.
func gifWithMetadata(t testing.TB) (in, clean []byte, n int) {
	clean = animatedGIF(t)
	screen := gifScreenEnd(clean)
	meta, m := gifMetadata()
	// Go's encoder writes NETSCAPE2.0 right after the screen: give it a
	// second sub-block after the loop count.
	netscape := []byte("\x21\xff\x0bNETSCAPE2.0\x03\x01")
	if !bytes.HasPrefix(clean[screen:], netscape) {
		t.Fatalf("no NETSCAPE2.0 extension at offset %d", screen)
	}
	loopEnd := screen + len(netscape) + 2 // loop count; terminator follows
	in = concat(clean[:screen], meta, clean[screen:loopEnd],
		[]byte{byte(len(marker))}, []byte(marker),
		clean[loopEnd:len(clean)-1], meta, clean[len(clean)-1:], []byte("trailing "+marker))
	return in, clean, 2*m + 2
}

// TestGIF strips every kind of GIF metadata from an animated GIF: the
// output is the clean file byte for byte, and every frame, delay,
// disposal and the loop count decode the same.
func TestGIF(t *testing.T) {
	in, clean, n := gifWithMetadata(t)
	mustBeClean(t, "image/gif", clean)
	out := mustStrip(t, "image/gif", in, n)
	if !bytes.Equal(out, clean) {
		t.Errorf("blocks %v, want %v", gifList(t, out), gifList(t, clean))
	}
	want := []string{"app NETSCAPE2.0", "ext f9", "image", "ext f9", "image", "ext f9", "image", "trailer"}
	if got := gifList(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("blocks %v, want %v", got, want)
	}
	if err := sameDecoded("image/gif", in, out); err != nil {
		t.Error(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 3 || g.LoopCount != 3 || !reflect.DeepEqual(g.Delay, []int{10, 25, 70}) {
		t.Errorf("decoded %d frames, loop %d, delays %v", len(g.Image), g.LoopCount, g.Delay)
	}

	// A still GIF (no NETSCAPE2.0) with a comment.
	var buf bytes.Buffer
	gif.Encode(&buf, gradient(9, 7), nil)
	still := buf.Bytes()
	mustBeClean(t, "image/gif", still)
	s := gifScreenEnd(still)
	in = concat(still[:s], gifMetadataOnly(), still[s:])
	out = mustStrip(t, "image/gif", in, 1)
	if !bytes.Equal(out, still) {
		t.Errorf("still: blocks %v", gifList(t, out))
	}
	if err := sameDecoded("image/gif", in, out); err != nil {
		t.Error(err)
	}
}

// gifMetadataOnly is a single comment extension holding the marker.
func gifMetadataOnly() []byte {
	return concat([]byte{0x21, 0xfe}, gifBlocks([]byte(marker)))
}

// TestGIFExtensions covers the kept extensions in odd shapes: a graphic
// control extension with extra data is cut to its 4 bytes; ANIMEXTS1.0 is
// kept; a NETSCAPE2.0 without a loop count goes.
func TestGIFExtensions(t *testing.T) {
	clean := animatedGIF(t)
	gce := bytes.Index(clean, []byte{0x21, 0xf9, 4})
	if gce < 0 {
		t.Fatal("no graphic control extension")
	}
	// 0x21 0xf9 4 <4 bytes> 0: put a sub-block before the terminator.
	in := concat(clean[:gce+7], []byte{byte(len(marker))}, []byte(marker), clean[gce+7:])
	if out := mustStrip(t, "image/gif", in, 1); !bytes.Equal(out, clean) {
		t.Error("graphic control extension not cut back to 4 bytes")
	}

	screen := gifScreenEnd(clean)
	anim := bytes.Replace(clean, []byte("NETSCAPE2.0"), []byte("ANIMEXTS1.0"), 1)
	mustBeClean(t, "image/gif", anim)

	// NETSCAPE2.0 holding only a buffering sub-block (id 2): nothing to
	// keep.
	noLoop := concat(clean[:screen], gifAppExt("NETSCAPE2.0", []byte{2, 0, 0x10, 0, 0}), clean[screen+19:])
	out := mustStrip(t, "image/gif", noLoop, 1)
	if !bytes.Equal(out, concat(clean[:screen], clean[screen+19:])) {
		t.Errorf("NETSCAPE2.0 without loop count: blocks %v", gifList(t, out))
	}
	if err := sameDecoded("image/gif", noLoop, out); err != nil {
		t.Error(err)
	}
}

// TestGIFErrors feeds broken GIFs: each must give an error.
func TestGIFErrors(t *testing.T) {
	clean := animatedGIF(t)
	screen := gifScreenEnd(clean)
	cases := map[string][]byte{
		"empty":            nil,
		"GIF88a":           concat([]byte("GIF88a"), clean[6:]),
		"short header":     clean[:12],
		"no trailer":       clean[:len(clean)-1],
		"cut colour table": clean[:20],
		"unknown block":    concat(clean[:screen], []byte{0x00}, clean[screen:]),
		"no image":         concat(clean[:screen], []byte{0x3b}),
		"GCE size 5":       concat(clean[:screen], []byte{0x21, 0xf9, 5, 0, 0, 0, 0, 0, 0}, clean[screen:]),
		"GCE empty":        concat(clean[:screen], []byte{0x21, 0xf9, 0}, clean[screen:]),
		"huge sub-block":   concat(clean[:screen], []byte{0x21, 0xfe, 0xff, 'a', 'b'}),
		"cut descriptor":   concat(clean[:screen], []byte{0x2c, 0, 0, 0, 0}),
	}
	for name, data := range cases {
		if out, removed, err := Strip("image/gif", data); err == nil {
			t.Errorf("%s: no error (removed %d, %d bytes)", name, removed, len(out))
		}
	}
}
