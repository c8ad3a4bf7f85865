package leakgen

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"html"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"unicode/utf16"
)

// picture is a small image with a little colour, different each time.
func (g *gen) picture() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 24, 16))
	r, gr, b := uint8(g.r.IntN(256)), uint8(g.r.IntN(256)), uint8(g.r.IntN(256))
	for y := 0; y < 16; y++ {
		for x := 0; x < 24; x++ {
			img.Set(x, y, color.NRGBA{r + uint8(x*5), gr + uint8(y*7), b, 255})
		}
	}
	return img
}

func zlibBytes(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	binary.Write(&b, binary.BigEndian, crc.Sum32())
	return b.Bytes()
}

// pngWith is a PNG whose metadata holds texts: a tEXt Comment, a zTXt
// Description and a compressed iTXt XMP packet.
func (g *gen) pngWith(texts [3]string) []byte {
	var b bytes.Buffer
	png.Encode(&b, g.picture())
	data := b.Bytes()
	// The signature (8 bytes) and IHDR (25) come first.
	var chunks []byte
	chunks = append(chunks, pngChunk("tEXt", []byte("Comment\x00"+texts[0]))...)
	chunks = append(chunks, pngChunk("zTXt", append([]byte("Description\x00\x00"), zlibBytes(texts[1])...))...)
	xmp := `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` +
		`xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/">` +
		`<dc:description><rdf:Alt><rdf:li xml:lang="x-default">` + html.EscapeString(texts[2]) +
		`</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
	chunks = append(chunks, pngChunk("iTXt", append([]byte("XML:com.adobe.xmp\x00\x01\x00\x00\x00"), zlibBytes(xmp)...))...)
	out := append([]byte{}, data[:33]...)
	out = append(out, chunks...)
	return append(out, data[33:]...)
}

// jpegWith is a JPEG whose metadata holds texts: a COM segment, the EXIF
// ImageDescription (ASCII) and the EXIF XPComment (UTF-16LE).
func (g *gen) jpegWith(texts [3]string) []byte {
	var b bytes.Buffer
	jpeg.Encode(&b, g.picture(), &jpeg.Options{Quality: 80})
	data := b.Bytes()
	seg := func(marker byte, payload []byte) []byte {
		out := []byte{0xFF, marker, 0, 0}
		binary.BigEndian.PutUint16(out[2:], uint16(len(payload)+2))
		return append(out, payload...)
	}
	// TIFF, little-endian: IFD0 with two entries, then their values.
	desc := append([]byte(texts[1]), 0)
	var xp []byte
	for _, u := range utf16.Encode([]rune(texts[2])) {
		xp = binary.LittleEndian.AppendUint16(xp, u)
	}
	xp = append(xp, 0, 0)
	const ifd = 8
	valStart := uint32(ifd + 2 + 2*12 + 4)
	var t bytes.Buffer
	t.WriteString("II*\x00")
	binary.Write(&t, binary.LittleEndian, uint32(ifd))
	binary.Write(&t, binary.LittleEndian, uint16(2))
	entry := func(tag, typ uint16, count, off uint32) {
		binary.Write(&t, binary.LittleEndian, tag)
		binary.Write(&t, binary.LittleEndian, typ)
		binary.Write(&t, binary.LittleEndian, count)
		binary.Write(&t, binary.LittleEndian, off)
	}
	entry(0x010E, 2, uint32(len(desc)), valStart)                 // ImageDescription, ASCII
	entry(0x9C9C, 1, uint32(len(xp)), valStart+uint32(len(desc))) // XPComment, BYTE (UCS-2)
	binary.Write(&t, binary.LittleEndian, uint32(0))
	t.Write(desc)
	t.Write(xp)
	exif := append([]byte("Exif\x00\x00"), t.Bytes()...)
	out := append([]byte{}, data[:2]...) // SOI
	out = append(out, seg(0xE1, exif)...)
	out = append(out, seg(0xFE, []byte(texts[0]))...)
	return append(out, data[2:]...)
}

// PNG is a small PNG whose tEXt, zTXt and compressed iTXt (XMP) chunks hold
// texts: for tests of a scanner.
func PNG(texts [3]string) []byte { return newGen(1).pngWith(texts) }

// JPEG is a small JPEG whose COM segment, EXIF ImageDescription and EXIF
// XPComment (UTF-16LE) hold texts: for tests of a scanner.
func JPEG(texts [3]string) []byte { return newGen(1).jpegWith(texts) }
