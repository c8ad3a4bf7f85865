package imgmeta

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/image/webp"
)

// marker stands for a secret that metadata might carry: it must never
// survive Strip.
const marker = "sk_live_MARKER123"

// mediaTypes are the four types Strip accepts.
var mediaTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// decodeStill decodes a PNG, JPEG or WebP image (the first frame of a GIF).
func decodeStill(mediaType string, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	switch mediaType {
	case "image/png":
		return png.Decode(r)
	case "image/jpeg":
		return jpeg.Decode(r)
	case "image/gif":
		return gif.Decode(r)
	case "image/webp":
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("no decoder for %s", mediaType)
}

// decodeConfig returns the dimensions an image declares.
func decodeConfig(mediaType string, data []byte) (image.Config, error) {
	r := bytes.NewReader(data)
	switch mediaType {
	case "image/png":
		return png.DecodeConfig(r)
	case "image/jpeg":
		return jpeg.DecodeConfig(r)
	case "image/gif":
		return gif.DecodeConfig(r)
	case "image/webp":
		return webp.DecodeConfig(r)
	}
	return image.Config{}, fmt.Errorf("no decoder for %s", mediaType)
}

// samePixels reports how a and b differ: concrete type, bounds, or the
// first differing pixel. Known image types are compared on their raw
// buffers (and palette); others pixel by pixel through At.
func samePixels(a, b image.Image) error {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return fmt.Errorf("image type %T != %T", a, b)
	}
	if a.Bounds() != b.Bounds() {
		return fmt.Errorf("bounds %v != %v", a.Bounds(), b.Bounds())
	}
	same := true
	switch a := a.(type) {
	case *image.RGBA:
		same = bytes.Equal(a.Pix, b.(*image.RGBA).Pix)
	case *image.NRGBA:
		same = bytes.Equal(a.Pix, b.(*image.NRGBA).Pix)
	case *image.RGBA64:
		same = bytes.Equal(a.Pix, b.(*image.RGBA64).Pix)
	case *image.NRGBA64:
		same = bytes.Equal(a.Pix, b.(*image.NRGBA64).Pix)
	case *image.Gray:
		same = bytes.Equal(a.Pix, b.(*image.Gray).Pix)
	case *image.Gray16:
		same = bytes.Equal(a.Pix, b.(*image.Gray16).Pix)
	case *image.CMYK:
		same = bytes.Equal(a.Pix, b.(*image.CMYK).Pix)
	case *image.Paletted:
		bp := b.(*image.Paletted)
		same = bytes.Equal(a.Pix, bp.Pix) && reflect.DeepEqual(a.Palette, bp.Palette)
	case *image.YCbCr:
		by := b.(*image.YCbCr)
		same = a.SubsampleRatio == by.SubsampleRatio && bytes.Equal(a.Y, by.Y) &&
			bytes.Equal(a.Cb, by.Cb) && bytes.Equal(a.Cr, by.Cr)
	case *image.NYCbCrA:
		by := b.(*image.NYCbCrA)
		same = a.SubsampleRatio == by.SubsampleRatio && bytes.Equal(a.Y, by.Y) &&
			bytes.Equal(a.Cb, by.Cb) && bytes.Equal(a.Cr, by.Cr) && bytes.Equal(a.A, by.A)
	}
	if same {
		// The buffers match (or the type is not known): check every pixel
		// through At as well, which also catches differing strides.
		r := a.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if ca, cb := a.At(x, y), b.At(x, y); !sameColor(ca, cb) {
					return fmt.Errorf("pixel (%d,%d): %v != %v", x, y, ca, cb)
				}
			}
		}
		return nil
	}
	return fmt.Errorf("pixel buffers of %T differ", a)
}

// sameColor compares two colours exactly, as 16-bit RGBA and as values.
func sameColor(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2 && a == b
}

// sameGIF compares every frame of two GIFs and their timing, disposal,
// loop count and screen.
func sameGIF(a, b *gif.GIF) error {
	if len(a.Image) != len(b.Image) {
		return fmt.Errorf("%d frames != %d", len(a.Image), len(b.Image))
	}
	for i := range a.Image {
		if err := samePixels(a.Image[i], b.Image[i]); err != nil {
			return fmt.Errorf("frame %d: %v", i, err)
		}
	}
	if !reflect.DeepEqual(a.Delay, b.Delay) {
		return fmt.Errorf("delays %v != %v", a.Delay, b.Delay)
	}
	if !reflect.DeepEqual(a.Disposal, b.Disposal) {
		return fmt.Errorf("disposal %v != %v", a.Disposal, b.Disposal)
	}
	if a.LoopCount != b.LoopCount {
		return fmt.Errorf("loop count %d != %d", a.LoopCount, b.LoopCount)
	}
	if a.BackgroundIndex != b.BackgroundIndex {
		return fmt.Errorf("background %d != %d", a.BackgroundIndex, b.BackgroundIndex)
	}
	if a.Config.Width != b.Config.Width || a.Config.Height != b.Config.Height ||
		!reflect.DeepEqual(a.Config.ColorModel, b.Config.ColorModel) {
		return fmt.Errorf("screen %+v != %+v", a.Config, b.Config)
	}
	return nil
}

// sameDecoded decodes before and after (every frame of a GIF) and reports
// how they differ.
func sameDecoded(mediaType string, before, after []byte) error {
	if mediaType == "image/gif" {
		a, err := gif.DecodeAll(bytes.NewReader(before))
		if err != nil {
			return fmt.Errorf("decoding the input: %v", err)
		}
		b, err := gif.DecodeAll(bytes.NewReader(after))
		if err != nil {
			return fmt.Errorf("decoding the output: %v", err)
		}
		return sameGIF(a, b)
	}
	a, err := decodeStill(mediaType, before)
	if err != nil {
		return fmt.Errorf("decoding the input: %v", err)
	}
	b, err := decodeStill(mediaType, after)
	if err != nil {
		return fmt.Errorf("decoding the output: %v", err)
	}
	return samePixels(a, b)
}

// mustStrip strips in, which holds metadata, and checks what holds for any
// such image: no error, removed is want (any count above 0 when want is
// -1), the marker is gone, and stripping again changes nothing.
func mustStrip(t *testing.T, mediaType string, in []byte, want int) []byte {
	t.Helper()
	orig := bytes.Clone(in)
	out, removed, err := Strip(mediaType, in)
	if err != nil {
		t.Fatalf("Strip: %v", err)
	}
	if !bytes.Equal(in, orig) {
		t.Fatal("Strip modified its input")
	}
	if want >= 0 && removed != want || want < 0 && removed <= 0 {
		t.Errorf("removed = %d, want %d", removed, want)
	}
	if bytes.Contains(out, []byte(marker)) {
		t.Errorf("marker %q survived at offset %d", marker, bytes.Index(out, []byte(marker)))
	}
	again, removed2, err := Strip(mediaType, out)
	if err != nil || removed2 != 0 || !bytes.Equal(again, out) {
		t.Errorf("stripping the output again: removed %d, err %v", removed2, err)
	}
	return out
}

// mustBeClean checks that a clean image comes back unchanged, as the same
// slice, with removed 0.
func mustBeClean(t *testing.T, mediaType string, in []byte) {
	t.Helper()
	out, removed, err := Strip(mediaType, in)
	if err != nil {
		t.Fatalf("Strip of a clean image: %v", err)
	}
	if removed != 0 {
		t.Errorf("clean image: removed = %d, want 0", removed)
	}
	if len(out) != len(in) || len(in) > 0 && &out[0] != &in[0] {
		t.Error("clean image: output is not the input itself")
	}
}

// readTestdata reads a file from testdata.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gradient returns a w×h image with colour and alpha changing across it.
func gradient(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.SetNRGBA(x, y, color.NRGBA{
				R: uint8(x * 255 / max(w-1, 1)),
				G: uint8(y * 255 / max(h-1, 1)),
				B: uint8((x*7 + y*13) % 256),
				A: uint8(255 - (x*y)%200),
			})
		}
	}
	return m
}

// concat joins byte slices.
func concat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}
