package transcript

import (
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Content is a message's or tool result's content: a JSON string (held as a
// single text block with IsString set) or an array of blocks. A value of any
// other shape is kept in Raw.
type Content struct {
	Blocks   []Block
	IsString bool
	Raw      jsontext.Value
}

// UnmarshalJSONFrom decodes a string, an array of blocks, null, or anything
// else (kept raw).
func (c *Content) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		c.IsString = true
		c.Blocks = []Block{{Type: "text", Text: tok.String()}}
		return nil
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			var b Block
			if err := json.UnmarshalDecode(dec, &b); err != nil {
				return err
			}
			c.Blocks = append(c.Blocks, b)
		}
		_, err := dec.ReadToken()
		return err
	case 'n':
		_, err := dec.ReadToken()
		return err
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		c.Raw = v.Clone()
		return nil
	}
}

// MarshalJSONTo writes the content back as a string or an array.
func (c Content) MarshalJSONTo(enc *jsontext.Encoder) error {
	if c.Raw != nil {
		return enc.WriteValue(c.Raw)
	}
	if c.IsString && len(c.Blocks) == 1 {
		return enc.WriteToken(jsontext.String(c.Blocks[0].Text))
	}
	if c.Blocks == nil {
		return enc.WriteToken(jsontext.Null)
	}
	return json.MarshalEncode(enc, c.Blocks)
}

// Text joins the text of the content's text blocks with blank lines.
func (c Content) Text() string {
	if len(c.Blocks) == 1 && c.Blocks[0].Type == "text" {
		return c.Blocks[0].Text
	}
	var parts []string
	for _, b := range c.Blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Has reports whether any block has type t.
func (c Content) Has(t string) bool {
	for _, b := range c.Blocks {
		if b.Type == t {
			return true
		}
	}
	return false
}

// KnownBlock reports whether t is a content block type this package types;
// a block of another type keeps its other members in Block.Extra.
func KnownBlock(t string) bool { return knownBlocks[t] }

var knownBlocks = map[string]bool{
	"text": true, "thinking": true, "redacted_thinking": true, "tool_use": true,
	"server_tool_use": true, "tool_result": true, "web_search_tool_result": true,
	"image": true, "document": true, "tool_reference": true,
}

// rawString returns v's string value when v is a JSON string, else "".
func rawString(v jsontext.Value) string {
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s, decodeOpts); err != nil {
		return ""
	}
	return s
}

func unmarshal(v jsontext.Value, out any) error {
	return json.Unmarshal(v, out, decodeOpts)
}

// Unmarshal decodes JSON from a transcript with the same leniency as the
// record decoder (invalid UTF-8 and repeated names accepted).
func Unmarshal(v []byte, out any) error { return json.Unmarshal(v, out, decodeOpts) }

// IsZero reports content that is absent (so JSON output can omit it).
func (c Content) IsZero() bool { return c.Blocks == nil && c.Raw == nil }
