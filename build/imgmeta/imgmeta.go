// Package imgmeta removes metadata from the images that transcripts carry
// (pasted screenshots, images read by tools) before they are published.
//
// Each format is parsed with a whitelist: only the chunks or segments that
// the decoders need to draw the pixels (and a few purely numeric colour or
// animation chunks) are kept, byte for byte; everything else, known or not,
// is dropped. Text chunks, EXIF, XMP, ICC profiles, comments, thumbnails
// and bytes after the end of the image all go.
//
// The parsers never decode pixel data: they walk the container structure
// only, so they are fast and allocate little more than the output.
package imgmeta

import "fmt"

// Strip returns the image with every metadata chunk or segment removed
// (text, EXIF, XMP, ICC profiles, comments, thumbnails, trailing bytes):
// the decoded pixels are identical. mediaType is "image/png",
// "image/jpeg", "image/gif" or "image/webp". removed counts what was taken out
// (0: the input was already clean; out may then be data itself).
// An error means the image could not be parsed as that type (or the type is
// not one of those four): the caller must then not publish the bytes.
//
// When removed is 0, out is data itself. When it is not, out is a new slice
// and data is left unchanged.
func Strip(mediaType string, data []byte) (out []byte, removed int, err error) {
	var strip func([]byte) ([]byte, int, error)
	switch mediaType {
	case "image/png":
		strip = stripPNG
	case "image/jpeg":
		strip = stripJPEG
	case "image/gif":
		strip = stripGIF
	case "image/webp":
		strip = stripWebP
	default:
		return nil, 0, fmt.Errorf("imgmeta: unsupported media type %q", mediaType)
	}
	out, removed, err = strip(data)
	if err != nil {
		return nil, 0, err
	}
	if removed == 0 {
		// Nothing was taken out: hand back the original bytes, so that a
		// clean image is published exactly as it came.
		return data, 0, nil
	}
	return out, removed, nil
}

// formatError builds the error returned for an image that cannot be parsed.
func formatError(format, msg string, args ...any) error {
	return fmt.Errorf("imgmeta: invalid %s: %s", format, fmt.Sprintf(msg, args...))
}
