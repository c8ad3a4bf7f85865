package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json/jsontext"
)

// TestUnquote: whatever transcript.AppendString, which value unquotes
// with, takes it unquotes as jsontext does, and it
// takes every valid literal of the pieces below; what jsontext refuses
// (or mends) it leaves to jsontext. Literals are joined at random from
// pieces at each edge: escapes of every kind, surrogates paired and not,
// control bytes, invalid UTF-8, runs around the eight-byte steps.
func TestUnquote(t *testing.T) {
	valid := []string{"", "a", "abcdefgh", "abcdefghijklmnop", "é", "日本語", "🙂", "\x7f", " ~",
		`\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\u0041`, `\u00e9`, `\u2028`, `\uFFFF`, `\ud83d\ude42`, `\uD83D\uDE42`,
		"0123456", "01234567\u00e9", "x\u0080y"}
	invalid := []string{"\x00", "\x1f", "\n", "\xff", "\xc3", "\xe6\x97", `\x`, `\u12`, `\u12G4`, `\ud83d`, `\ude42`,
		`\ud83dx`, `\ud83d\u0041`, `\`, "abcdefg\x01", "\xed\xa0\x80"}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(body string) bool {
		lit := []byte(`"` + body + `"`)
		want, err := jsontext.AppendUnquote(nil, lit)
		got, ok := transcript.AppendString([]byte("prefix:"), lit)
		if ok && (err != nil || !bytes.Equal(got, append([]byte("prefix:"), want...))) {
			t.Fatalf("unquote(%q) = %q, jsontext %q (error %v)", lit, got, want, err)
		}
		return ok
	}
	for i := 0; i < 200000; i++ {
		var b bytes.Buffer
		bad := false
		for n := rng.IntN(6); n >= 0; n-- {
			if rng.IntN(8) == 0 {
				b.WriteString(invalid[rng.IntN(len(invalid))])
				bad = true
			} else {
				b.WriteString(valid[rng.IntN(len(valid))])
			}
		}
		body := b.String()
		if end, _ := stringEnd([]byte(`"`+body+`"`), 0); end != len(body)+2 {
			continue // a bare quote would end the literal before its last byte
		}
		if ok := check(body); !ok && !bad {
			t.Fatalf("unquote refused a valid literal %q", body)
		}
	}
	for _, s := range invalid {
		if check(s) {
			t.Errorf("unquote took %q", s)
		}
	}
}

// BenchmarkUnquote: a tool's output as a transcript holds it (lines of
// code, a newline escape every 60 bytes or so, some non-ASCII), unquoted
// by transcript.AppendString and by jsontext.
func BenchmarkUnquote(b *testing.B) {
	var body bytes.Buffer
	for body.Len() < 16<<10 {
		body.WriteString(`    if err := os.WriteFile(path, data, 0o644); err != nil { // écrit\n`)
		body.WriteString(`\t\treturn fmt.Errorf(\"write %s: %w\", path, err)\n`)
	}
	lit := []byte(`"` + body.String() + `"`)
	dst := make([]byte, 0, len(lit))
	b.Run("unquote", func(b *testing.B) {
		b.SetBytes(int64(len(lit)))
		for b.Loop() {
			if _, ok := transcript.AppendString(dst[:0], lit); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("jsontext", func(b *testing.B) {
		b.SetBytes(int64(len(lit)))
		for b.Loop() {
			jsontext.AppendUnquote(dst[:0], lit)
		}
	})
}

// TestArenaLines: one Redactor taking lines one after the other, each with
// values unquoted into the arena the line before used (escapes, a secret
// in some, the same value again in others, one large enough to outgrow
// the arena), gives each line what a Redactor of its own gives it: no
// value of a line outlives it in what the next one sees.
func TestArenaLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var lines [][]byte
	for i := range 40 {
		// Blocks of their own values, several to a line: a value of the
		// line overwritten by the next would hide its secret.
		var blocks []any
		for n := rng.IntN(4); n >= 0; n-- {
			var b bytes.Buffer
			switch rng.IntN(5) {
			case 0:
				b.WriteString("export STRIPE_KEY=" + stripe + "\n")
			case 1:
				b.WriteString("aws " + awsID + "\tdone\n")
			case 2:
				b.WriteString("plain \"quoted\" text\\with\\backslashes\n")
			case 3:
				b.WriteString(strings.Repeat("line of output é\n", 1+rng.IntN(80000)/16))
			default:
				b.WriteString(fmt.Sprintf("step %d ok\n", i))
			}
			blocks = append(blocks, map[string]any{"type": "text", "text": b.String()})
		}
		l, err := json.Marshal(map[string]any{"type": "assistant", "uuid": "11111111-1111-4111-8111-111111111111",
			"message": map[string]any{"role": "assistant", "content": blocks}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	shared := newRedactor(t)
	for i, l := range lines {
		got := shared.Line("a.jsonl", l)
		want := newRedactor(t).Line("a.jsonl", l)
		if !bytes.Equal(got, want) {
			t.Fatalf("line %d: one Redactor for all gives\n%.300s\nits own gives\n%.300s", i, got, want)
		}
	}
}
