package export

import (
	"io"

	"ccsite/build/session"
)

// Format is one of a session's other forms, written beside its page as
// <page without .html><Ext> and linked from it. A new format is a Format
// in Formats and the function that writes it.
type Format struct {
	Name string // as the page's link names it: "Markdown", "JSON"
	Ext  string // ".md"
	Type string // its media type, for the link: "text/markdown"
	// Agents says sub-agent pages get it too.
	Agents bool
	// Optional formats are written only when asked for (--json).
	Optional bool
	Write    func(w io.Writer, s *session.Session, project string) error
}

// Formats are the export formats, in the order pages link them.
func Formats() []Format {
	return []Format{
		{Name: "Markdown", Ext: ".md", Type: "text/markdown", Agents: true, Write: Markdown},
		{Name: "JSON", Ext: ".json", Type: "application/json", Optional: true, Write: func(w io.Writer, s *session.Session, _ string) error { return JSON(w, s) }},
	}
}
