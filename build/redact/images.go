package redact

import (
	"encoding/base64"
	"strings"

	"ccsite/build/imgmeta"
)

// image removes the metadata of a base64 image (text chunks, EXIF, XMP,
// comments: anything a camera, an editor or a screenshot tool wrote
// beside the pixels). It returns the new base64 and the rule to count,
// or "" when the image was clean. An image that cannot be read is
// withheld: its bytes could hold anything.
func (r *Redactor) image(o jsonObject, key, data string) (string, string) {
	if !r.opts.Secrets {
		return data, ""
	}
	mediaType := o.mediaType
	if key == "base64" {
		mediaType = o.typ
	}
	if strings.ContainsAny(data, "\r\n") {
		data = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, data)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "", "image-withheld"
	}
	clean, removed, err := imgmeta.Strip(mediaType, raw)
	switch {
	case err != nil:
		return "", "image-withheld"
	case removed == 0:
		return data, ""
	}
	return base64.StdEncoding.EncodeToString(clean), "image-metadata"
}
