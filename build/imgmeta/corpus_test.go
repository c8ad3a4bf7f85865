package imgmeta

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusImage is one base64 image found in a transcript line.
type corpusImage struct {
	mediaType string // as the transcript declares it
	data      string // base64
}

// findImages walks a decoded JSON value for images: content blocks
// {"type":"base64","media_type":"image/…","data":"…"} (the source of an
// image block) and tool results {"base64":"…","type":"image/…"} (as in
// toolUseResult.file), wherever they are.
func findImages(v any, found []corpusImage) []corpusImage {
	switch v := v.(type) {
	case map[string]any:
		typ, _ := v["type"].(string)
		if mt, _ := v["media_type"].(string); typ == "base64" && strings.HasPrefix(mt, "image/") {
			if data, ok := v["data"].(string); ok {
				found = append(found, corpusImage{mt, data})
			}
		}
		if data, ok := v["base64"].(string); ok && strings.HasPrefix(typ, "image/") {
			found = append(found, corpusImage{typ, data})
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			found = findImages(v[k], found)
		}
	case []any:
		for _, e := range v {
			found = findImages(e, found)
		}
	}
	return found
}

// corpusStats counts, for one declared media type, what the corpus test
// saw.
type corpusStats struct {
	occurrences, unique      int
	stripped, removed        int
	bytesIn, bytesOut        int
	mislabelled, undecodable int
	badBase64                int
	kinds                    map[string]int // what was removed, by name
}

// TestCorpus strips every base64 image in the transcripts under
// $CCSITE_CORPUS (skipped when unset) and checks that each parses as its
// declared type (or, when the bytes are of another type, as that type),
// that the output strips clean and that Go decodes it to the
// same pixels. It logs, per type, how many images there were and how much
// metadata went.
//
//	CCSITE_CORPUS=/work/shared/corpus go test -run TestCorpus -v ./build/imgmeta/
func TestCorpus(t *testing.T) {
	root := os.Getenv("CCSITE_CORPUS")
	if root == "" {
		t.Skip("CCSITE_CORPUS is not set")
	}
	stats := map[string]*corpusStats{}
	seen := map[[32]byte]bool{}
	files, badLines := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		files++
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 256<<20)
		for line := 1; sc.Scan(); line++ {
			if !bytes.Contains(sc.Bytes(), []byte(`"base64"`)) {
				continue
			}
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				badLines++
				continue
			}
			for _, img := range findImages(v, nil) {
				where := fmt.Sprintf("%s:%d", strings.TrimPrefix(path, root), line)
				corpusCheck(t, where, img, stats, seen)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d .jsonl files; %d lines with \"base64\" that are not valid JSON were skipped", files, badLines)
	for _, mt := range slices.Sorted(maps.Keys(stats)) {
		s := stats[mt]
		t.Logf("%s: %d occurrences, %d unique; %d had metadata, %d items removed (%v); %d → %d bytes; %d mislabelled, %d not decodable by Go, %d not base64",
			mt, s.occurrences, s.unique, s.stripped, s.removed, s.kinds, s.bytesIn, s.bytesOut, s.mislabelled, s.undecodable, s.badBase64)
	}
}

// corpusCheck strips one corpus image and checks the result.
func corpusCheck(t *testing.T, where string, img corpusImage, stats map[string]*corpusStats, seen map[[32]byte]bool) {
	s := stats[img.mediaType]
	if s == nil {
		s = &corpusStats{kinds: map[string]int{}}
		stats[img.mediaType] = s
	}
	s.occurrences++
	data, err := base64.StdEncoding.DecodeString(img.data)
	if err != nil {
		// Not an image at all (the corpus's own secret redaction has cut
		// into some base64 strings): nothing to strip.
		s.badBase64++
		t.Logf("%s: %s: bad base64: %v", where, img.mediaType, err)
		return
	}
	sum := sha256.Sum256(data)
	if seen[sum] {
		return
	}
	seen[sum] = true
	s.unique++
	s.bytesIn += len(data)

	mediaType := img.mediaType
	out, removed, err := Strip(mediaType, data)
	if err != nil {
		sniffed := http.DetectContentType(data)
		if sniffed == mediaType || !slices.Contains(mediaTypes, sniffed) {
			t.Errorf("%s: %s (sniffed %s, %d bytes): %v", where, mediaType, sniffed, len(data), err)
			return
		}
		// Declared as one type, the bytes are another: Strip refuses it
		// as declared (the caller will not publish it) but must handle it
		// as what it is.
		s.mislabelled++
		t.Logf("%s: declared %s, bytes are %s: %v", where, mediaType, sniffed, err)
		mediaType = sniffed
		out, removed, err = Strip(mediaType, data)
		if err != nil {
			t.Errorf("%s: as %s: %v", where, mediaType, err)
			return
		}
	}
	s.bytesOut += len(out)
	if e := checkResult(mediaType, data, out, removed, nil); e != nil {
		t.Errorf("%s: %v", where, e)
	}
	if removed > 0 {
		s.stripped++
		s.removed += removed
		for _, k := range metadataKinds(mediaType, data) {
			s.kinds[k]++
		}
	}
	if _, err := decodeStill(mediaType, data); err != nil {
		// Go cannot read it (an animated WebP, say): the structure checks
		// above are all there is.
		s.undecodable++
		t.Logf("%s: Go cannot decode the %s input: %v", where, mediaType, err)
		return
	}
	if err := sameDecoded(mediaType, data, out); err != nil {
		t.Errorf("%s: %s: %v", where, mediaType, err)
	}
}

// metadataKinds names what Strip takes out of a well-formed image, for the
// log: PNG chunk types, JPEG segments (APPn with their identifier), GIF
// extensions, WebP chunks, and "trailing" bytes.
func metadataKinds(mediaType string, data []byte) (kinds []string) {
	defer func() {
		if recover() != nil {
			kinds = append(kinds, "(unlisted)")
		}
	}()
	switch mediaType {
	case "image/png":
		for pos := 8; pos+12 <= len(data); {
			n := int(uint32(data[pos])<<24 | uint32(data[pos+1])<<16 | uint32(data[pos+2])<<8 | uint32(data[pos+3]))
			typ := string(data[pos+4 : pos+8])
			pos += 12 + n
			if typ == "IEND" {
				if pos < len(data) {
					kinds = append(kinds, "trailing")
				}
				break
			}
			if !pngKeep[typ] {
				kinds = append(kinds, typ)
			}
		}
	case "image/jpeg":
		for _, s := range jpegSegments(nopTB{}, data) {
			payload := data[s.start+4 : s.end]
			switch {
			case s.marker == 0xfe:
				kinds = append(kinds, "COM")
			case s.marker >= 0xe0 && s.marker <= 0xef:
				id, _, _ := bytes.Cut(payload[:min(len(payload), 16)], []byte{0})
				name := fmt.Sprintf("APP%d %q", s.marker-0xe0, id)
				if s.marker == 0xe0 && string(id) == "JFIF" && len(payload) == 14 ||
					s.marker == 0xee && string(id[:min(len(id), 5)]) == "Adobe" && len(payload) == 12 {
					continue // kept as is
				}
				kinds = append(kinds, name)
			}
			if s.marker == 0xd9 && s.end < len(data) {
				kinds = append(kinds, "trailing")
			}
		}
	case "image/gif":
		for _, b := range gifList(nopTB{}, data) {
			switch b {
			case "image", "ext f9", "trailer", "app NETSCAPE2.0", "app ANIMEXTS1.0":
			default:
				kinds = append(kinds, b)
			}
		}
	case "image/webp":
		chunks, _, _ := webpChunks(data[12:])
		for _, c := range chunks {
			switch c.id {
			case "VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF":
			default:
				kinds = append(kinds, c.id)
			}
		}
	}
	return kinds
}

// nopTB lets the test parsers run outside a test: a failure panics, and
// metadataKinds recovers.
type nopTB struct{ testing.TB }

func (nopTB) Helper()                   {}
func (nopTB) Fatal(args ...any)         { panic(fmt.Sprint(args...)) }
func (nopTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
