package render

import (
	"reflect"
	"testing"

	"ccsite/build/markup"
	"ccsite/build/session"

	"github.com/go-json-experiment/json/jsontext"
)

// writeToolTwice is writeTool as it was, decoding the result twice: once
// for its type and original file, once (hunksOf) for its patch.
func (c *viewCtx) writeToolTwice(t *ToolView, in session.Input, tur jsontext.Value) {
	t.Kind = "file"
	p := in.Str("file_path")
	t.Summary = p
	v := FileView{Path: p}
	var res struct {
		Type         string `json:"type"`
		OriginalFile string `json:"originalFile"`
	}
	_ = structured(tur, &res)
	content := in.Str("content")
	hunks := hunksOf(tur)
	switch {
	case res.Type == "update" && len(hunks) > 0:
		v.Note = "updated"
		c.setDiff(&v, hunks)
	case res.Type == "update" && res.OriginalFile != "":
		v.Note = "updated"
		c.setDiff(&v, markup.DiffStrings(res.OriginalFile, content, 1))
	default:
		if res.Type == "create" {
			v.Note = "new file"
		}
		v.Code = c.b.MD.Highlighter().Lines("", p, content, 1)
		v.Lines = max(lineCount(content), 1)
		v.Long, v.Size = folded(len(content), v.Lines, collapseLines)
	}
	t.Data = v
}

// TestWriteToolOneDecode: writeTool, which decodes a result once (twice
// when a member has the wrong type), gives what it gave decoding it twice,
// on results whole, partial, damaged, of every wrong type.
func TestWriteToolOneDecode(t *testing.T) {
	c := &viewCtx{b: &Builder{MD: markup.New(markup.NewHighlighter())}}
	in := session.Input{"file_path": jsontext.Value(`"/src/a.go"`), "content": jsontext.Value(`"package a\n\nfunc B() {}\n"`)}
	patch := `[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":3,"lines":["-package a","+package a","+","+func B() {}"]}]`
	for _, tur := range []string{
		``, `null`, `"Error: failed"`, `[]`, `{}`,
		`{"type":"create","filePath":"/src/a.go","content":"package a\n"}`,
		`{"type":"update","structuredPatch":` + patch + `,"originalFile":"package a\n"}`,
		`{"type":"update","structuredPatch":[],"originalFile":"package a\n"}`,
		`{"type":"update","structuredPatch":null,"originalFile":"package z\n"}`,
		`{"type":"update","originalFile":"package z\n"}`,
		`{"type":"update","structuredPatch":"not a patch","originalFile":"package z\n"}`,
		`{"type":"update","structuredPatch":` + patch + `,"originalFile":5}`,
		`{"type":5,"structuredPatch":` + patch + `,"originalFile":"package z\n"}`,
		`{"originalFile":"package z\n","type":["update"],"structuredPatch":` + patch + `}`,
		`{"type":"update","structuredPatch":[{"oldStart":"1"}],"originalFile":"package z\n"}`,
		`{"type":"update","structuredPatch":[{"lines":[1]}],"originalFile":"package z\n"}`,
		`{"type":"update","type":"create","structuredPatch":` + patch + `}`,
		`{"type":"update","structuredPatch":` + patch + `,"structuredPatch":[]}`,
		`{"type":"update","structuredPatch":` + patch + `,"originalFile":"package z\n"` + `,}`,
		`{"type":"update","structuredPatch":` + patch + `} x`,
		"{\"type\":\"update\",\"originalFile\":\"package \xff\n\"}",
	} {
		var got, want ToolView
		c.writeTool(&got, &session.ToolCall{}, in, jsontext.Value(tur))
		c.writeToolTwice(&want, in, jsontext.Value(tur))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tur, got.Data, want.Data)
		}
	}
}
