package imgmeta

import (
	"bytes"
	"encoding/binary"
)

// JPEG marker codes (ITU T.81 table B.1) that the stripper tells apart.
const (
	jpegTEM   = 0x01 // temporary, stands alone
	jpegSOF0  = 0xc0
	jpegDHT   = 0xc4
	jpegJPG   = 0xc8 // reserved for extensions, not a frame
	jpegDAC   = 0xcc
	jpegSOF15 = 0xcf
	jpegRST0  = 0xd0
	jpegRST7  = 0xd7
	jpegSOI   = 0xd8
	jpegEOI   = 0xd9
	jpegSOS   = 0xda
	jpegDQT   = 0xdb
	jpegDNL   = 0xdc
	jpegDRI   = 0xdd
	jpegAPP0  = 0xe0
	jpegAPP14 = 0xee
)

// jpegJFIFDefaults are the version, units and densities written into a
// JFIF header too short to hold its own: version 1.01, no units, 1:1.
var jpegJFIFDefaults = []byte{1, 1, 0, 0, 1, 0, 1}

// stripJPEG walks the marker segments of a JPEG file. It keeps the frame
// and scan headers, tables (DHT, DQT, DAC, DRI, DNL) and the entropy-coded
// data of every scan verbatim, a JFIF APP0 rewritten to its 14-byte header
// without thumbnail, and an Adobe APP14 cut to its 12 bytes (its transform
// byte tells decoders whether 3 or 4 components are RGB, YCbCr, CMYK or
// YCCK). Every other segment is dropped: APP1 (Exif, XMP), APP2 (ICC,
// FlashPix, MPF), APP3 to APP13 (Photoshop, IPTC), APP15, COM, JFXX
// thumbnails, unknown markers, stray bytes between segments, and
// everything after EOI (such as the second image of an MPF file).
//
// Fill bytes (0xFF) before a kept marker are copied with it, so that a
// clean file comes back byte for byte.
func stripJPEG(data []byte) ([]byte, int, error) {
	if len(data) < 2 || data[0] != 0xff || data[1] != jpegSOI {
		return nil, 0, formatError("JPEG", "no SOI marker")
	}
	out := make([]byte, 0, len(data))
	out = append(out, data[:2]...)
	removed := 0
	pos := 2
	seenSOF, seenSOS, seenJFIF := false, false, false
	for {
		// Bytes that are not a marker (nor a marker's fill bytes) between
		// segments are skipped by decoders: drop them.
		junkStart := pos
		for {
			for pos < len(data) && data[pos] != 0xff {
				pos++
			}
			q := pos
			for q < len(data) && data[q] == 0xff {
				q++
			}
			if q >= len(data) {
				return nil, 0, formatError("JPEG", "truncated: no EOI")
			}
			if data[q] != 0 {
				break
			}
			pos = q + 1 // 0xFF 0x00 outside a scan is junk as well
		}
		if pos > junkStart {
			removed++
		}

		segStart := pos // fill bytes included
		for data[pos] == 0xff {
			pos++
		}
		marker := data[pos]
		pos++

		switch {
		case marker == jpegEOI:
			if !seenSOS {
				return nil, 0, formatError("JPEG", "EOI before any scan")
			}
			out = append(out, data[segStart:pos]...)
			if pos < len(data) {
				removed++ // trailing bytes
			}
			return out, removed, nil
		case marker == jpegSOI:
			return nil, 0, formatError("JPEG", "second SOI at offset %d", segStart)
		case marker == jpegTEM || jpegRST0 <= marker && marker <= jpegRST7:
			// A stand-alone marker outside a scan carries nothing.
			removed++
			continue
		}

		// Every other marker starts a segment with a 16-bit length that
		// counts itself.
		if len(data)-pos < 2 {
			return nil, 0, formatError("JPEG", "truncated segment length at offset %d", pos)
		}
		length := int(binary.BigEndian.Uint16(data[pos:]))
		if length < 2 {
			return nil, 0, formatError("JPEG", "segment length %d at offset %d", length, pos)
		}
		if length > len(data)-pos {
			return nil, 0, formatError("JPEG", "segment 0x%02x at offset %d runs past the end", marker, segStart)
		}
		segEnd := pos + length
		payload := data[pos+2 : segEnd]
		segment := data[segStart:segEnd]
		pos = segEnd

		isSOF := jpegSOF0 <= marker && marker <= jpegSOF15 && marker != jpegDHT && marker != jpegJPG && marker != jpegDAC
		if isSOF || marker == jpegSOS || marker == jpegDHT || marker == jpegDQT ||
			marker == jpegDAC || marker == jpegDRI || marker == jpegDNL {
			// A kept segment must be exactly as long as its content says,
			// so that it has no room for anything else.
			if err := jpegCheckSegment(marker, payload); err != nil {
				return nil, 0, err
			}
		}

		switch {
		case isSOF:
			seenSOF = true
			out = append(out, segment...)

		case marker == jpegDHT, marker == jpegDAC, marker == jpegDQT, marker == jpegDRI, marker == jpegDNL:
			out = append(out, segment...)

		case marker == jpegSOS:
			if !seenSOF {
				return nil, 0, formatError("JPEG", "SOS before SOF")
			}
			end, err := jpegScanEnd(data, pos)
			if err != nil {
				return nil, 0, err
			}
			seenSOS = true
			out = append(out, segment...)
			out = append(out, data[pos:end]...)
			pos = end

		case marker == jpegAPP0 && bytes.HasPrefix(payload, []byte("JFIF\x00")) && !seenJFIF:
			seenJFIF = true
			canon := jpegCanonicalJFIF(payload)
			if bytes.Equal(canon[4:], payload) {
				out = append(out, segment...)
			} else {
				out = append(out, canon...)
				removed++ // the thumbnail or extra bytes
			}

		case marker == jpegAPP14 && len(payload) >= 12 && bytes.HasPrefix(payload, []byte("Adobe")):
			if len(payload) == 12 {
				out = append(out, segment...)
			} else {
				out = append(out, 0xff, jpegAPP14, 0, 14)
				out = append(out, payload[:12]...)
				removed++ // bytes after the 12 that decoders read
			}

		default:
			// APP1-APP13, APP15, COM, a JFXX or second JFIF APP0, a short
			// or foreign APP14, and markers no decoder in use reads.
			removed++
		}
	}
}

// jpegCanonicalJFIF returns the whole APP0 segment (marker, length and
// 14-byte payload) for a JFIF header: identifier, version, units and
// densities copied from payload, thumbnail size 0 and no thumbnail.
func jpegCanonicalJFIF(payload []byte) []byte {
	seg := []byte{0xff, jpegAPP0, 0, 16, 'J', 'F', 'I', 'F', 0}
	if len(payload) >= 12 {
		seg = append(seg, payload[5:12]...)
	} else {
		seg = append(seg, jpegJFIFDefaults...)
	}
	return append(seg, 0, 0)
}

// jpegScanEnd returns the offset just past the entropy-coded data of a scan
// that starts at pos: the first 0xFF (of a run of fill bytes) that begins a
// marker other than RSTn. 0xFF followed by 0x00 is a stuffed data byte.
func jpegScanEnd(data []byte, pos int) (int, error) {
	for {
		i := bytes.IndexByte(data[pos:], 0xff)
		if i < 0 {
			return 0, formatError("JPEG", "truncated scan data: no EOI")
		}
		pos += i
		q := pos + 1
		for q < len(data) && data[q] == 0xff {
			q++
		}
		if q >= len(data) {
			return 0, formatError("JPEG", "truncated scan data: no EOI")
		}
		if m := data[q]; m != 0 && !(jpegRST0 <= m && m <= jpegRST7) {
			return pos, nil
		}
		pos = q + 1
	}
}

// jpegCheckSegment checks that the payload of a frame, scan or table
// segment is well formed and exactly as long as its fields require, as
// decoders check too (ITU T.81 B.2 and B.2.4).
func jpegCheckSegment(marker byte, p []byte) error {
	bad := func(what string) error {
		return formatError("JPEG", "bad %s segment (%d bytes)", what, len(p))
	}
	switch {
	case marker == jpegSOS:
		// Ns, Ns×(Cs, Td/Ta), Ss, Se, Ah/Al.
		if len(p) < 1 || p[0] < 1 || p[0] > 4 || len(p) != 1+2*int(p[0])+3 {
			return bad("SOS")
		}
	case marker == jpegDQT:
		// Tables of Pq/Tq and 64 values of 8 or 16 bits.
		for len(p) > 0 {
			pq, tq := p[0]>>4, p[0]&15
			n := 1 + 64*(int(pq)+1)
			if pq > 1 || tq > 3 || len(p) < n {
				return bad("DQT")
			}
			p = p[n:]
		}
	case marker == jpegDHT:
		// Tables of Tc/Th, 16 counts and that many values.
		for len(p) > 0 {
			if len(p) < 17 || p[0]>>4 > 1 || p[0]&15 > 3 {
				return bad("DHT")
			}
			n := 17
			for _, c := range p[1:17] {
				n += int(c)
			}
			if n > 17+256 || len(p) < n {
				return bad("DHT")
			}
			p = p[n:]
		}
	case marker == jpegDAC:
		if len(p)%2 != 0 {
			return bad("DAC")
		}
	case marker == jpegDRI, marker == jpegDNL:
		if len(p) != 2 {
			return bad("DRI/DNL")
		}
	default: // SOFn: P, Y, X, Nf, Nf×(C, H/V, Tq).
		if len(p) < 6 || p[5] < 1 || len(p) != 6+3*int(p[5]) {
			return bad("SOF")
		}
	}
	return nil
}
