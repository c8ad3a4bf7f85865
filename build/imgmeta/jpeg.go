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
	s := &jpegStripper{data: data, out: make([]byte, 0, len(data)), pos: 2}
	s.out = append(s.out, data[:2]...)
	for {
		if err := s.skipJunk(); err != nil {
			return nil, 0, err
		}
		segStart, marker := s.readMarker()

		switch {
		case marker == jpegEOI:
			if !s.seenSOS {
				return nil, 0, formatError("JPEG", "EOI before any scan")
			}
			s.out = append(s.out, data[segStart:s.pos]...)
			if s.pos < len(data) {
				s.removed++ // trailing bytes
			}
			return s.out, s.removed, nil
		case marker == jpegSOI:
			return nil, 0, formatError("JPEG", "second SOI at offset %d", segStart)
		case marker == jpegTEM || jpegRST0 <= marker && marker <= jpegRST7:
			// A stand-alone marker outside a scan carries nothing.
			s.removed++
			continue
		}

		payload, segment, err := s.readSegment(marker, segStart)
		if err != nil {
			return nil, 0, err
		}
		if err := s.keepSegment(marker, payload, segment); err != nil {
			return nil, 0, err
		}
	}
}

// jpegStripper is the state of stripJPEG's walk: the input, what is kept of
// it so far, the count of parts removed, the offset reached and the
// segments seen.
type jpegStripper struct {
	data                       []byte
	out                        []byte
	removed                    int
	pos                        int
	seenSOF, seenSOS, seenJFIF bool
}

// skipJunk moves past the bytes that are not a marker (nor a marker's fill
// bytes) between segments, which decoders skip: they are dropped.
func (s *jpegStripper) skipJunk() error {
	data := s.data
	junkStart := s.pos
	for {
		for s.pos < len(data) && data[s.pos] != 0xff {
			s.pos++
		}
		q := s.pos
		for q < len(data) && data[q] == 0xff {
			q++
		}
		if q >= len(data) {
			return formatError("JPEG", "truncated: no EOI")
		}
		if data[q] != 0 {
			break
		}
		s.pos = q + 1 // 0xFF 0x00 outside a scan is junk as well
	}
	if s.pos > junkStart {
		s.removed++
	}
	return nil
}

// readMarker reads the marker at pos (after skipJunk): it returns where its
// fill bytes start and its code.
func (s *jpegStripper) readMarker() (segStart int, marker byte) {
	segStart = s.pos // fill bytes included
	for s.data[s.pos] == 0xff {
		s.pos++
	}
	marker = s.data[s.pos]
	s.pos++
	return segStart, marker
}

// readSegment reads the rest of a segment that has a length (every marker
// but the stand-alone ones): the 16-bit length counts itself. It returns
// the payload and the whole segment from segStart, and moves past it.
func (s *jpegStripper) readSegment(marker byte, segStart int) (payload, segment []byte, err error) {
	data, pos := s.data, s.pos
	if len(data)-pos < 2 {
		return nil, nil, formatError("JPEG", "truncated segment length at offset %d", pos)
	}
	length := int(binary.BigEndian.Uint16(data[pos:]))
	if length < 2 {
		return nil, nil, formatError("JPEG", "segment length %d at offset %d", length, pos)
	}
	if length > len(data)-pos {
		return nil, nil, formatError("JPEG", "segment 0x%02x at offset %d runs past the end", marker, segStart)
	}
	segEnd := pos + length
	s.pos = segEnd
	return data[pos+2 : segEnd], data[segStart:segEnd], nil
}

// keepSegment keeps what stripJPEG keeps of a segment with a length (and of
// a scan's entropy-coded data after an SOS), and counts the rest removed.
func (s *jpegStripper) keepSegment(marker byte, payload, segment []byte) error {
	isSOF := jpegSOF0 <= marker && marker <= jpegSOF15 && marker != jpegDHT && marker != jpegJPG && marker != jpegDAC
	if isSOF || marker == jpegSOS || marker == jpegDHT || marker == jpegDQT ||
		marker == jpegDAC || marker == jpegDRI || marker == jpegDNL {
		// A kept segment must be exactly as long as its content says,
		// so that it has no room for anything else.
		if err := jpegCheckSegment(marker, payload); err != nil {
			return err
		}
	}

	switch {
	case isSOF:
		s.seenSOF = true
		s.out = append(s.out, segment...)

	case marker == jpegDHT, marker == jpegDAC, marker == jpegDQT, marker == jpegDRI, marker == jpegDNL:
		s.out = append(s.out, segment...)

	case marker == jpegSOS:
		if !s.seenSOF {
			return formatError("JPEG", "SOS before SOF")
		}
		end, err := jpegScanEnd(s.data, s.pos)
		if err != nil {
			return err
		}
		s.seenSOS = true
		s.out = append(s.out, segment...)
		s.out = append(s.out, s.data[s.pos:end]...)
		s.pos = end

	case marker == jpegAPP0 && bytes.HasPrefix(payload, []byte("JFIF\x00")) && !s.seenJFIF:
		s.seenJFIF = true
		canon := jpegCanonicalJFIF(payload)
		if bytes.Equal(canon[4:], payload) {
			s.out = append(s.out, segment...)
		} else {
			s.out = append(s.out, canon...)
			s.removed++ // the thumbnail or extra bytes
		}

	case marker == jpegAPP14 && len(payload) >= 12 && bytes.HasPrefix(payload, []byte("Adobe")):
		if len(payload) == 12 {
			s.out = append(s.out, segment...)
		} else {
			s.out = append(s.out, 0xff, jpegAPP14, 0, 14)
			s.out = append(s.out, payload[:12]...)
			s.removed++ // bytes after the 12 that decoders read
		}

	default:
		// APP1-APP13, APP15, COM, a JFXX or second JFIF APP0, a short
		// or foreign APP14, and markers no decoder in use reads.
		s.removed++
	}
	return nil
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
