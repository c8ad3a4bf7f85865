package imgmeta

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// pngSignature opens every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// pngIEND is the canonical, empty IEND chunk with its CRC.
const pngIEND = "\x00\x00\x00\x00IEND\xae\x42\x60\x82"

// pngKeep lists the chunks copied to the output: the critical chunks, the
// transparency chunk, and ancillary chunks that hold only numbers about
// colour, pixel size or animation (APNG). Every other chunk is dropped: the
// text chunks (tEXt, iTXt, zTXt), eXIf, iCCP (its profile carries a name
// and descriptions), tIME, hIST, sPLT (named), private chunks and any chunk
// this list does not know.
var pngKeep = map[string]bool{
	"IHDR": true, "PLTE": true, "IDAT": true, "IEND": true,
	"tRNS": true,
	"gAMA": true, "cHRM": true, "sRGB": true, "sBIT": true, "pHYs": true,
	"bKGD": true,
	"acTL": true, "fcTL": true, "fdAT": true,
}

// stripPNG walks the chunks of a PNG file, keeping the whitelisted ones
// verbatim (their CRC is checked) and stopping at IEND; bytes after IEND
// are dropped. An unknown critical chunk is an error: without it no decoder
// can draw the image, so it is not metadata.
func stripPNG(data []byte) ([]byte, int, error) {
	if !bytes.HasPrefix(data, []byte(pngSignature)) {
		return nil, 0, formatError("PNG", "bad signature")
	}
	out := make([]byte, 0, len(data))
	out = append(out, pngSignature...)
	removed := 0
	pos := len(pngSignature)
	seenIDAT := false
	for first := true; ; first = false {
		if len(data)-pos < 12 {
			return nil, 0, formatError("PNG", "truncated chunk at offset %d (no IEND)", pos)
		}
		n := binary.BigEndian.Uint32(data[pos:])
		typ := string(data[pos+4 : pos+8])
		if n > 1<<31-1 {
			return nil, 0, formatError("PNG", "chunk %q length %d too large", typ, n)
		}
		if uint64(n) > uint64(len(data)-pos-12) {
			return nil, 0, formatError("PNG", "chunk %q at offset %d runs past the end", typ, pos)
		}
		if !pngValidType(typ) {
			return nil, 0, formatError("PNG", "bad chunk type %q at offset %d", typ, pos)
		}
		if first && (typ != "IHDR" || n != 13) {
			return nil, 0, formatError("PNG", "first chunk is %q of length %d, not IHDR", typ, n)
		}
		end := pos + 12 + int(n)
		chunk := data[pos:end]
		pos = end

		if typ == "IEND" {
			if !seenIDAT {
				return nil, 0, formatError("PNG", "no IDAT chunk")
			}
			if string(chunk) != pngIEND {
				removed++ // data inside IEND, or a wrong CRC: write it anew
			}
			out = append(out, pngIEND...)
			break
		}
		if !pngKeep[typ] {
			if pngCritical(typ) {
				return nil, 0, formatError("PNG", "unknown critical chunk %q", typ)
			}
			removed++
			continue
		}
		body := chunk[4 : 8+n]
		if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(chunk[8+n:]) {
			return nil, 0, formatError("PNG", "bad CRC in chunk %q", typ)
		}
		if typ == "IDAT" {
			seenIDAT = true
		}
		out = append(out, chunk...)
	}
	if pos < len(data) {
		removed++ // trailing bytes after IEND
	}
	return out, removed, nil
}

// pngValidType reports whether typ is four ASCII letters, as the PNG
// specification requires of a chunk type.
func pngValidType(typ string) bool {
	for i := 0; i < len(typ); i++ {
		c := typ[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// pngCritical reports whether a chunk type is critical (upper-case first
// letter): a decoder must understand it to draw the image.
func pngCritical(typ string) bool {
	return 'A' <= typ[0] && typ[0] <= 'Z'
}
