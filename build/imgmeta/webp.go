package imgmeta

import (
	"bytes"
	"encoding/binary"
)

// VP8X flag bits that announce metadata chunks.
const (
	webpFlagICC  = 0x20
	webpFlagEXIF = 0x08
	webpFlagXMP  = 0x04
)

// webpChunk is one RIFF chunk: its FourCC and payload (without the padding
// byte).
type webpChunk struct {
	id      string
	payload []byte
}

// stripWebP parses the RIFF container of a WebP file and writes it anew
// with only the chunks that hold the image: VP8 , VP8L, VP8X (with the ICC,
// EXIF and XMP flags cleared), ALPH, ANIM and ANMF (whose own sub-chunks
// are filtered the same way). ICCP, EXIF, XMP  and unknown chunks are
// dropped, as are bytes after the RIFF form. The RIFF size is set to what
// is written and odd chunks get a zero padding byte.
func stripWebP(data []byte) ([]byte, int, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		return nil, 0, formatError("WebP", "bad RIFF/WEBP signature")
	}
	size := binary.LittleEndian.Uint32(data[4:])
	if size < 4 {
		return nil, 0, formatError("WebP", "RIFF size %d", size)
	}
	if uint64(size) > uint64(len(data)-8) {
		return nil, 0, formatError("WebP", "RIFF size %d runs past the end", size)
	}
	removed := 0
	if int(size)+8 < len(data) {
		removed++ // trailing bytes after the RIFF form
	}
	chunks, n, err := webpChunks(data[12 : 8+int(size)])
	if err != nil {
		return nil, 0, err
	}
	removed += n
	if len(chunks) == 0 {
		return nil, 0, formatError("WebP", "no chunks")
	}

	var keep []webpChunk
	switch chunks[0].id {
	case "VP8 ", "VP8L":
		// Simple format: the one image chunk; anything after it is extra.
		if err := webpCheckBitstream(chunks[0]); err != nil {
			return nil, 0, err
		}
		keep = chunks[:1]
		removed += len(chunks) - 1

	case "VP8X":
		vp8x := chunks[0].payload
		if len(vp8x) != 10 {
			return nil, 0, formatError("WebP", "VP8X size %d", len(vp8x))
		}
		flags := vp8x[0] &^ (webpFlagICC | webpFlagEXIF | webpFlagXMP)
		dropped := 0
		keep = append(keep, chunks[0])
		images := 0
		for _, c := range chunks[1:] {
			switch c.id {
			case "ALPH", "ANIM":
				keep = append(keep, c)
			case "VP8 ", "VP8L":
				if err := webpCheckBitstream(c); err != nil {
					return nil, 0, err
				}
				keep = append(keep, c)
				images++
			case "ANMF":
				frame, n, err := webpFrame(c.payload)
				if err != nil {
					return nil, 0, err
				}
				dropped += n
				keep = append(keep, webpChunk{"ANMF", frame})
				images++
			default:
				dropped++ // ICCP, EXIF, XMP , a second VP8X, unknown
			}
		}
		if images == 0 {
			return nil, 0, formatError("WebP", "no image chunk")
		}
		if flags != vp8x[0] {
			keep[0].payload = append([]byte{flags}, vp8x[1:]...)
			if dropped == 0 {
				dropped++ // flags announcing chunks that were not there
			}
		}
		removed += dropped

	default:
		return nil, 0, formatError("WebP", "first chunk is %q", chunks[0].id)
	}

	out := make([]byte, 0, len(data))
	out = append(out, "RIFF\x00\x00\x00\x00WEBP"...)
	out = webpAppendChunks(out, keep)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out, removed, nil
}

// webpChunks splits a sequence of RIFF chunks. It also returns how many
// padding bytes were not zero (each counts as removed, since they are
// written as zero). The padding byte of the last chunk may be missing, as
// some writers leave it out.
func webpChunks(b []byte) ([]webpChunk, int, error) {
	var chunks []webpChunk
	badPads := 0
	for pos := 0; pos < len(b); {
		if len(b)-pos < 8 {
			return nil, 0, formatError("WebP", "truncated chunk header")
		}
		id := string(b[pos : pos+4])
		n := binary.LittleEndian.Uint32(b[pos+4:])
		if uint64(n) > uint64(len(b)-pos-8) {
			return nil, 0, formatError("WebP", "chunk %q size %d runs past the end", id, n)
		}
		start := pos + 8
		pos = start + int(n)
		chunks = append(chunks, webpChunk{id, b[start:pos]})
		if n%2 == 1 && pos < len(b) {
			if b[pos] != 0 {
				badPads++
			}
			pos++
		}
	}
	return chunks, badPads, nil
}

// webpFrame filters the payload of an ANMF chunk: its 16-byte frame header
// followed by sub-chunks, of which ALPH, VP8  and VP8L are kept. It returns
// the new payload and how many things were dropped.
func webpFrame(payload []byte) ([]byte, int, error) {
	if len(payload) < 16 {
		return nil, 0, formatError("WebP", "ANMF size %d", len(payload))
	}
	chunks, removed, err := webpChunks(payload[16:])
	if err != nil {
		return nil, 0, err
	}
	out := append([]byte(nil), payload[:16]...)
	var keep []webpChunk
	images := 0
	for _, c := range chunks {
		switch c.id {
		case "ALPH":
			keep = append(keep, c)
		case "VP8 ", "VP8L":
			if err := webpCheckBitstream(c); err != nil {
				return nil, 0, err
			}
			keep = append(keep, c)
			images++
		default:
			removed++
		}
	}
	if images == 0 {
		return nil, 0, formatError("WebP", "ANMF frame without image")
	}
	return webpAppendChunks(out, keep), removed, nil
}

// webpCheckBitstream checks the start of a VP8 or VP8L bitstream: the VP8
// key-frame start code, or the VP8L signature byte.
func webpCheckBitstream(c webpChunk) error {
	switch c.id {
	case "VP8 ":
		if len(c.payload) < 10 || !bytes.Equal(c.payload[3:6], []byte{0x9d, 0x01, 0x2a}) {
			return formatError("WebP", "VP8 chunk without key-frame start code")
		}
	case "VP8L":
		if len(c.payload) < 5 || c.payload[0] != 0x2f {
			return formatError("WebP", "VP8L chunk without signature")
		}
	}
	return nil
}

// webpAppendChunks appends chunks to out, each with its header and, when
// its size is odd, a zero padding byte.
func webpAppendChunks(out []byte, chunks []webpChunk) []byte {
	for _, c := range chunks {
		out = append(out, c.id...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(c.payload)))
		out = append(out, c.payload...)
		if len(c.payload)%2 == 1 {
			out = append(out, 0)
		}
	}
	return out
}
