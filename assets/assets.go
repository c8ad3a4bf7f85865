// Package assets embeds the site's stylesheet and script (data only).
package assets

import "embed"

// FS holds the files copied to the site's assets folder.
//
//go:embed *.css *.js
var FS embed.FS
