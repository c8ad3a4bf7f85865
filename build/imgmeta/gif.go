package imgmeta

// GIF block introducers and extension labels.
const (
	gifExtension      = 0x21
	gifImage          = 0x2c
	gifTrailer        = 0x3b
	gifGraphicControl = 0xf9
	gifApplication    = 0xff
)

// stripGIF walks the blocks of a GIF file. It keeps the header, logical
// screen descriptor and global colour table, every image (descriptor,
// local colour table and LZW data) and graphic control extension (frame
// delay, disposal, transparency), and a NETSCAPE2.0 or ANIMEXTS1.0
// application extension cut to its loop-count sub-block. Comments, plain
// text extensions, every other application extension (XMP, ICC profiles)
// and bytes after the trailer are dropped.
func stripGIF(data []byte) ([]byte, int, error) {
	if len(data) < 13 || string(data[:6]) != "GIF87a" && string(data[:6]) != "GIF89a" {
		return nil, 0, formatError("GIF", "bad signature")
	}
	pos := 13
	if flags := data[10]; flags&0x80 != 0 {
		pos += 3 << (flags&7 + 1) // global colour table
	}
	if pos > len(data) {
		return nil, 0, formatError("GIF", "truncated global colour table")
	}
	out := make([]byte, 0, len(data))
	out = append(out, data[:pos]...)
	removed, frames := 0, 0
	for {
		if pos >= len(data) {
			return nil, 0, formatError("GIF", "truncated: no trailer")
		}
		switch data[pos] {
		case gifTrailer:
			if frames == 0 {
				return nil, 0, formatError("GIF", "no image")
			}
			out = append(out, gifTrailer)
			if pos+1 < len(data) {
				removed++ // trailing bytes
			}
			return out, removed, nil

		case gifImage:
			p := pos + 10
			if p > len(data) {
				return nil, 0, formatError("GIF", "truncated image descriptor")
			}
			if flags := data[pos+9]; flags&0x80 != 0 {
				p += 3 << (flags&7 + 1) // local colour table
			}
			p++ // LZW minimum code size
			if p > len(data) {
				return nil, 0, formatError("GIF", "truncated image descriptor")
			}
			_, end, err := gifSubBlocks(data, p, 0)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, data[pos:end]...)
			pos = end
			frames++

		case gifExtension:
			if pos+2 > len(data) {
				return nil, 0, formatError("GIF", "truncated extension")
			}
			label := data[pos+1]
			// Only the first blocks of an extension are looked at.
			blocks, end, err := gifSubBlocks(data, pos+2, 8)
			if err != nil {
				return nil, 0, err
			}
			whole := data[pos:end]
			pos = end
			var keep []byte
			switch label {
			case gifGraphicControl:
				if len(blocks) == 0 || len(blocks[0]) != 4 {
					return nil, 0, formatError("GIF", "graphic control extension without its 4-byte block")
				}
				keep = append([]byte{gifExtension, gifGraphicControl, 4}, blocks[0]...)
				keep = append(keep, 0)
			case gifApplication:
				keep = gifLoopExtension(blocks)
			}
			switch {
			case keep == nil:
				removed++ // comment, plain text, other application data
			case string(keep) == string(whole):
				out = append(out, whole...)
			default:
				out = append(out, keep...)
				removed++ // extra sub-blocks
			}

		default:
			return nil, 0, formatError("GIF", "unknown block 0x%02x at offset %d", data[pos], pos)
		}
	}
}

// gifLoopExtension returns the canonical form of a looping application
// extension (identifier block, then the 3-byte loop-count sub-block), or nil
// when blocks are not such an extension or hold no loop count.
func gifLoopExtension(blocks [][]byte) []byte {
	if len(blocks) == 0 {
		return nil
	}
	if id := string(blocks[0]); id != "NETSCAPE2.0" && id != "ANIMEXTS1.0" {
		return nil
	}
	for _, b := range blocks[1:] {
		if len(b) == 3 && b[0] == 1 {
			ext := []byte{gifExtension, gifApplication, 11}
			ext = append(ext, blocks[0]...)
			ext = append(ext, 3)
			ext = append(ext, b...)
			return append(ext, 0)
		}
	}
	return nil
}

// gifSubBlocks reads the data sub-blocks that start at pos (each a length
// byte and that many bytes, ended by a zero length) and returns the offset
// just past the terminator. It also returns the bytes of the first collect
// blocks.
func gifSubBlocks(data []byte, pos int, collect int) ([][]byte, int, error) {
	var blocks [][]byte
	for {
		if pos >= len(data) {
			return nil, 0, formatError("GIF", "truncated data sub-blocks")
		}
		n := int(data[pos])
		pos++
		if n == 0 {
			return blocks, pos, nil
		}
		if n > len(data)-pos {
			return nil, 0, formatError("GIF", "truncated data sub-block")
		}
		if len(blocks) < collect {
			blocks = append(blocks, data[pos:pos+n])
		}
		pos += n
	}
}
