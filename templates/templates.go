// Package templates embeds the page and partial templates (data only).
package templates

import "embed"

// FS holds every *.html template.
//
//go:embed *.html
var FS embed.FS
