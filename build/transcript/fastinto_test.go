package transcript

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// intoInner and intoAll hold every kind FastInto reads.
type intoInner struct {
	S  string   `json:"s"`
	N  int      `json:"n"`
	SS []string `json:"ss"`
}

type intoAll struct {
	S     string           `json:"s"`
	B     bool             `json:"b"`
	I     int              `json:"i"`
	I64   int64            `json:"i64"`
	F     float64          `json:"f"`
	V     jsontext.Value   `json:"v"`
	C     Content          `json:"c"`
	In    intoInner        `json:"in"`
	SS    []string         `json:"ss"`
	SI    []int            `json:"si"`
	SF    []float64        `json:"sf"`
	SB    []bool           `json:"sb"`
	SV    []jsontext.Value `json:"sv"`
	SC    []Content        `json:"sc"`
	SIn   []intoInner      `json:"sin"`
	SSS   [][]string       `json:"sss"`
	Plain string           // untagged: named "Plain"
	Omit  string           `json:",omitempty"` // named "Omit"
	Z     string           `json:"z,omitzero"`
	Skip  string           `json:"-"` // not read: "Skip" and "-" are unknown
}

// compareInto decodes v with FastInto and with json.Unmarshal, each into a
// new value of out's type, and returns whether the fast path took v and
// what is wrong ("" when nothing is): it must only take what json reads, to
// json's value, and leave its value alone when it refuses.
func compareInto(v []byte, out any) (fast bool, diff string) {
	typ := reflect.TypeOf(out).Elem()
	got, want := reflect.New(typ), reflect.New(typ)
	fast = FastInto(v, got.Interface())
	err := json.Unmarshal(v, want.Interface(), decodeOpts)
	if err == nil && jsontext.Value(v).IsValid() {
		// FastIntoValid, for JSON already accepted, must read it as
		// json does, and take all FastInto takes.
		valid := reflect.New(typ)
		validFast := FastIntoValid(v, valid.Interface())
		if fast && !validFast {
			return fast, "FastIntoValid refused what FastInto takes"
		}
		if validFast {
			if d := recordDiff(valid.Elem().Interface(), want.Elem().Interface()); d != "" {
				return fast, "FastIntoValid: " + d
			}
		}
	}
	switch {
	case fast && err != nil:
		return true, "fast path took what json rejects: " + err.Error()
	case fast:
		return true, recordDiff(got.Elem().Interface(), want.Elem().Interface())
	case !got.Elem().IsZero():
		return false, "fast path refused but changed its value"
	}
	return false, ""
}

// intoCases are values for FastInto into an intoAll, each with whether it
// must take it (fast) or leave it to json; either way the value must be
// json's.
var intoCases = []struct {
	v    string
	fast bool
}{
	{`{}`, true},
	{`{"s":"a","b":true,"i":-3,"i64":9007199254740993,"f":2.5,"v":{"k":[1,2]},"c":"text","in":{"s":"x","n":1,"ss":["p"]},` +
		`"ss":["a","b"],"si":[1,-2],"sf":[0.5,1e3],"sb":[true,false],"sv":[1,"x",null,{}],"sc":["t",[{"type":"text","text":"u"}],null,7],` +
		`"sin":[{"s":"y"},{}],"sss":[["a"],[],null],"Plain":"p","Omit":"o","z":"zz"}`, true},
	{" \t\r\n{ \"s\" :\t\"a\" ,\n\"ss\" : [ \"x\" , \"y\" ] , \"v\" : [ 1 , 2 ] , \"in\" : { \"n\" : 2 } }\r\n\t ", true},
	{`{"c":[{"type":"tool_result","content":[{"type":"text","text":"x"}],"zz":1},null]}`, true},
	{`{"c":{"not":"blocks"}}`, true},
	{`{"c":5}`, true},

	// null for every kind: zero, nil, "null" for a jsontext.Value,
	// nothing for a Content.
	{`{"s":null,"b":null,"i":null,"i64":null,"f":null,"v":null,"c":null,"in":null,"ss":null,"si":null,"sf":null,"sb":null,"sv":null,"sc":null,"sin":null,"sss":null,"Plain":null}`, true},
	{`{"in":{"s":null,"n":null,"ss":null}}`, true},
	// null elements: zero elements, "null" for a jsontext.Value.
	{`{"ss":[null,"a"],"si":[null,1],"sf":[null],"sb":[null,true],"sv":[null],"sc":[null],"sin":[null,{"s":"x"}],"sss":[null,[null]]}`, true},
	// Empty arrays: empty slices, not nil.
	{`{"ss":[],"si":[],"sf":[],"sb":[],"sv":[],"sc":[],"sin":[],"sss":[[]],"in":{"ss":[]},"c":[]}`, true},
	{`null`, true}, // a zero struct, as json leaves it

	// A known name twice: json replaces or merges; refused.
	{`{"s":"a","s":"b"}`, false},
	{`{"s":"a","s":null}`, false},
	{`{"b":true,"b":false}`, false},
	{`{"i":1,"i":2}`, false},
	{`{"v":1,"v":2}`, false},
	{`{"c":"x","c":null}`, false},
	{`{"c":[{}],"c":[{}]}`, false},
	{`{"in":{"s":"a"},"in":{"n":1}}`, false},
	{`{"in":{"s":"a","s":"b"}}`, false},
	{`{"ss":["a"],"ss":["b"]}`, false},
	{`{"sin":[{"n":1,"n":2}]}`, false},
	{`{"Plain":"a","Plain":"b"}`, false},
	// An unknown name twice, or a field's own once in each of two
	// objects: fine.
	{`{"zz":1,"zz":2,"s":"a","zz":{"zz":3,"zz":4}}`, true},
	{`{"sin":[{"s":"a"},{"s":"b"}],"in":{"s":"c"}}`, true},

	// Names: matched exactly (no case folding), the Go name when
	// untagged; "-" ignores a field; escaped names refused, but only
	// those the fast path would have to match.
	{`{"S":"a","IN":{},"plain":"p","PLAIN":"q","omit":"o","Z":"z"}`, true},
	{`{"Skip":"x","-":"y","B":true}`, true},
	{`{"":"x","s ":"y"," s":"z","é":1}`, true},
	{`{"\u0073":"a"}`, false},
	{`{"z\u007a":1}`, false},
	{`{"zz":{"\u0073":1,"a\"b":2}}`, true},
	{`{"v":{"\u0073":1}}`, true},

	// Wrong types: json rejects the value.
	{`{"s":1}`, false},
	{`{"s":true}`, false},
	{`{"s":["a"]}`, false},
	{`{"s":{}}`, false},
	{`{"b":"true"}`, false},
	{`{"b":0}`, false},
	{`{"b":[]}`, false},
	{`{"i":"1"}`, false},
	{`{"i":true}`, false},
	{`{"i":{}}`, false},
	{`{"i64":"1"}`, false},
	{`{"f":"1.5"}`, false},
	{`{"f":[]}`, false},
	{`{"in":[]}`, false},
	{`{"in":"x"}`, false},
	{`{"in":1}`, false},
	{`{"ss":{}}`, false},
	{`{"ss":"a"}`, false},
	{`{"ss":[1]}`, false},
	{`{"ss":[["a"]]}`, false},
	{`{"si":["1"]}`, false},
	{`{"si":[1.5]}`, false},
	{`{"sb":[1]}`, false},
	{`{"sin":[1]}`, false},
	{`{"sin":{}}`, false},
	{`{"sss":["a"]}`, false},
	{`{"in":{"n":"1"}}`, false},
	{`[]`, false},
	{`"x"`, false},
	{`1`, false},

	// Numbers: an int takes an integer in range only; -0 is 0 for an
	// int, negative zero for a float.
	{`{"i":1.0}`, false},
	{`{"i":1e2}`, false},
	{`{"i":1E2}`, false},
	{`{"i64":1.5}`, false},
	{`{"i":9223372036854775807,"i64":-9223372036854775808}`, true},
	{`{"i":9223372036854775808}`, false},
	{`{"i64":-9223372036854775809}`, false},
	{`{"i":-0,"i64":-0,"f":-0,"si":[-0],"sf":[-0.0]}`, true},
	{`{"f":1e400}`, false},
	{`{"f":-1e400}`, false},
	{`{"f":1e-400,"sf":[123456789012345678901234567890,0.1,2.5E-3]}`, true},
	{`{"i":01}`, false},
	{`{"i":+1}`, false},
	{`{"f":.5}`, false},
	{`{"f":1.}`, false},
	{`{"f":1e}`, false},
	{`{"i":-}`, false},

	// Strings: escapes decoded; invalid UTF-8 and lone surrogates,
	// which json replaces by U+FFFD, refused wherever they are.
	{`{"s":"a\nb\tc\"d\\e\/f\bg\fh\ri\u00e9\u0000\ud83d\ude00","ss":["\u20AC"]}`, true},
	{`{"s":"héllo — 日本語 😀 ` + "\uFFFD" + `"}`, true},
	{"{\"s\":\"a\xffb\"}", false},
	{"{\"ss\":[\"a\xffb\"]}", false},
	{"{\"v\":\"a\xffb\"}", false},
	{"{\"zz\":\"a\xffb\"}", false},
	{"{\"s\xff\":\"b\"}", false},
	{"{\"s\":\"\xed\xa0\x80\"}", false},
	{`{"s":"\ud800"}`, false},
	{`{"s":"\udc00"}`, false},
	{`{"s":"\ud800\u0041"}`, false},
	{`{"in":{"s":"\ud800"}}`, false},
	{`{"zz":"\udc00\ud800"}`, false},
	{`{"c":"\ud800"}`, false},
	{"{\"s\":\"a\x01\"}", false},
	{`{"s":"\x41"}`, false},

	// Invalid JSON anywhere, trailing data.
	{`{"s":"a",}`, false},
	{`{"s" "a"}`, false},
	{`{"s":"a" "b":1}`, false},
	{`{"zz":[1,]}`, false},
	{`{"zz":{"a":1,}}`, false},
	{`{"zz":tru}`, false},
	{`{"zz":nul}`, false},
	{`{"sin":[{"s":"a"},]}`, false},
	{`{`, false},
	{`{"s":"a"`, false},
	{`{"s":`, false},
	{``, false},
	{` `, false},
	{`{} x`, false},
	{`{}{}`, false},
	{`{},`, false},
	{`{}` + " \t\r\n", true},
	{"\n\t {}", true},
	{`{"zz":"a"}` + "\x00", false},

	// Nesting: the scanner reads up to maxFastDepth.
	{`{"zz":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}`, true},
	{`{"v":` + strings.Repeat(`{"a":`, 400) + "1" + strings.Repeat("}", 400) + `}`, true},
	{`{"zz":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false},
	{`{"v":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, false},
	{`{"zz":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, false},
	{`{"sss":[` + strings.Repeat("[", 3) + `]]]]}`, false},
}

// TestFastIntoCases checks FastInto against json on each case into an
// intoAll, and that it takes the values it must take.
func TestFastIntoCases(t *testing.T) {
	for _, tc := range intoCases {
		fast, diff := compareInto([]byte(tc.v), new(intoAll))
		if diff != "" {
			t.Errorf("%.200q: %s", tc.v, diff)
		}
		if fast != tc.fast {
			t.Errorf("%.200q: fast path taken = %v, want %v", tc.v, fast, tc.fast)
		}
	}
}

// TestFastIntoValues checks what FastInto gives on a few values by hand,
// beside json: the comparisons above would pass if both went wrong.
func TestFastIntoValues(t *testing.T) {
	into := func(v string) intoAll {
		t.Helper()
		var out intoAll
		if !FastInto([]byte(v), &out) {
			t.Fatalf("%q: refused", v)
		}
		return out
	}
	a := into(`{"s":"a\u00e9","b":true,"i":-3,"i64":9007199254740993,"f":-0,"v": [1, 2] ,"c":"t",` +
		`"in":{"s":"x","n":1},"ss":["p",null],"sin":[null,{"n":2}],"sss":[],"Plain":"p","Omit":"o","z":"zz","Skip":"k"}`)
	eq(t, "S", a.S, "aé")
	eq(t, "B", a.B, true)
	eq(t, "I", a.I, -3)
	eq(t, "I64", a.I64, 9007199254740993)
	eq(t, "F sign", math.Signbit(a.F), true)
	eq(t, "V", string(a.V), "[1, 2]")
	eq(t, "C", a.C.Text()+fmt.Sprint(a.C.IsString), "ttrue")
	eq(t, "In", fmt.Sprintf("%+v", a.In), "{S:x N:1 SS:[]}")
	eq(t, "In.SS nil", a.In.SS == nil, true)
	eq(t, "SS", fmt.Sprintf("%q", a.SS), `["p" ""]`)
	eq(t, "SIn", fmt.Sprintf("%+v", a.SIn), "[{S: N:0 SS:[]} {S: N:2 SS:[]}]")
	eq(t, "SSS empty", a.SSS != nil && len(a.SSS) == 0, true)
	eq(t, "SI nil", a.SI == nil, true)
	eq(t, "Plain Omit Z Skip", a.Plain+a.Omit+a.Z+a.Skip, "pozz")
	n := into(`{"v":null,"sv":[null],"c":null,"in":null,"ss":null}`)
	eq(t, "null V", string(n.V), "null")
	eq(t, "null element V", fmt.Sprintf("%q", n.SV), `["null"]`)
	eq(t, "null Content", n.C.IsZero(), true)
	eq(t, "null SS", n.SS == nil, true)

	// The value is json's copy, not v's bytes.
	v := []byte(`{"v":"abc"}`)
	var out intoAll
	if !FastInto(v, &out) {
		t.Fatal("refused")
	}
	v[6] = 'X'
	eq(t, "V copied", string(out.V), `"abc"`)
}

// TestV2BehaviourInto pins what json.Unmarshal does with decodeOpts on
// structs and slices, which FastInto copies.
func TestV2BehaviourInto(t *testing.T) {
	dec := func(v string) (intoAll, error) {
		var out intoAll
		err := json.Unmarshal([]byte(v), &out, decodeOpts)
		return out, err
	}
	ok := func(v string) intoAll {
		t.Helper()
		out, err := dec(v)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		return out
	}
	eq(t, "no case folding", ok(`{"S":"a","PLAIN":"b"}`).S+ok(`{"S":"a","PLAIN":"b"}`).Plain, "")
	eq(t, "Go name", ok(`{"Plain":"b"}`).Plain, "b")
	eq(t, "- ignored", ok(`{"Skip":"b","-":"c"}`).Skip, "")
	eq(t, "escaped name", ok(`{"\u0073":"a"}`).S, "a")
	eq(t, "[] slice", ok(`{"ss":[]}`).SS != nil, true)
	eq(t, "null slice", ok(`{"ss":null}`).SS == nil, true)
	eq(t, "null struct", fmt.Sprintf("%+v", ok(`{"in":null}`).In), "{S: N:0 SS:[]}")
	eq(t, "null Value", string(ok(`{"v":null}`).V), "null")
	// What FastInto refuses: a repeated struct merges, a repeated
	// slice is replaced, json merges into what *out holds.
	eq(t, "merged struct", fmt.Sprintf("%+v", ok(`{"in":{"s":"a"},"in":{"n":1}}`).In), "{S:a N:1 SS:[]}")
	eq(t, "replaced slice", fmt.Sprint(ok(`{"ss":["a","b"],"ss":["c"]}`).SS), "[c]")
	out := intoAll{S: "kept", SS: []string{"x", "y"}}
	if err := json.Unmarshal([]byte(`{"i":1,"ss":["z"]}`), &out, decodeOpts); err != nil {
		t.Fatal(err)
	}
	eq(t, "merged into *out", fmt.Sprintf("%s %d %v", out.S, out.I, out.SS), "kept 1 [z]")
	// A wrong type fails the whole value, json reading on.
	if _, err := dec(`{"s":1}`); err == nil {
		t.Error("json reads a number into a string")
	}
}

// TestFastIntoNonZero: FastInto refuses a *out that is not zero (json
// merges into it) and leaves it as it was.
func TestFastIntoNonZero(t *testing.T) {
	for _, out := range []intoAll{
		{S: "x"}, {I: 1}, {F: math.Copysign(0, -1)}, {SS: []string{}}, {V: jsontext.Value{}},
		{In: intoInner{N: 1}}, {SIn: []intoInner{{}}}, {C: Content{IsString: true}},
	} {
		before := fmt.Sprintf("%#v", out)
		if FastInto([]byte(`{"i":2,"ss":["a"]}`), &out) {
			t.Errorf("%s: taken", before)
		}
		if after := fmt.Sprintf("%#v", out); after != before {
			t.Errorf("%s: changed to %s", before, after)
		}
	}
}

type (
	named      string
	withMethod struct{ S string }
	recursive  struct{ Kids []recursive }
	unexported struct{ s string }
	embedded   struct{ intoInner }
	twoNames   struct {
		A string
		B string `json:"A"`
	}
	unsupported struct{ any }
)

func (w *withMethod) UnmarshalJSON([]byte) error { return nil }

// TestFastIntoUnsupported: any type FastInto does not read is refused at
// once, even on {}, and its value left alone.
func TestFastIntoUnsupported(t *testing.T) {
	for _, out := range []any{
		new(struct {
			M map[string]string `json:"m"`
		}),
		new(struct {
			X any `json:"x"`
		}),
		new(struct {
			P *string `json:"p"`
		}),
		new(struct {
			N named `json:"n"`
		}),
		new(struct {
			U uint `json:"u"`
		}),
		new(struct {
			F float32 `json:"f"`
		}),
		new(struct {
			I int32 `json:"i"`
		}),
		new(struct {
			A [2]int `json:"a"`
		}),
		new(struct {
			T time.Time `json:"t"`
		}),
		new(struct {
			W withMethod `json:"w"`
		}),
		new(struct {
			W []withMethod `json:"w"`
		}),
		new(withMethod),
		new(recursive),
		new(unexported),
		new(embedded),
		new(twoNames),
		new(unsupported),
		new(struct {
			S string `json:"s,string"`
		}),
		new(struct {
			I int `json:"i,string"`
		}),
		new(struct {
			In intoInner `json:"in,inline"`
		}),
		new(struct {
			X jsontext.Value `json:",unknown"`
		}),
		new(struct {
			S string `json:"s,nocase"`
		}),
		new(struct {
			S string `json:"s,case:ignore"`
		}),
		new(struct {
			S string `json:"s,strictcase"`
		}),
		new(struct {
			F float64 `json:"f,format:nonfinite"`
		}),
		new(struct {
			S string `json:"'s'"`
		}),
		new(map[string]string),
		new(any),
		new(*intoAll),
	} {
		if FastInto([]byte(`{}`), out) {
			t.Errorf("%T: taken", out)
		}
		if !reflect.ValueOf(out).Elem().IsZero() {
			t.Errorf("%T: changed", out)
		}
	}
	// Not a pointer, a nil pointer.
	if FastInto([]byte(`{}`), intoAll{}) || FastInto([]byte(`{}`), (*intoAll)(nil)) || FastInto([]byte(`{}`), nil) {
		t.Error("taken")
	}
	// Top-level values of the supported kinds.
	for _, tc := range []struct {
		v   string
		out any
	}{{`"a"`, new(string)}, {`[1,2]`, new([]int)}, {`true`, new(bool)}, {` 2.5 `, new(float64)}, {`[{"s":"x"}]`, new([]intoInner)}} {
		fast, diff := compareInto([]byte(tc.v), tc.out)
		if !fast || diff != "" {
			t.Errorf("%s into %T: fast %v, %s", tc.v, tc.out, fast, diff)
		}
	}
}

// intoGen writes random values for an intoAll: its members mostly of the
// right type, some null, repeated, unknown, of odd names.
type intoGen struct{ recordGen }

var intoSchema = map[string][][2]string{
	"all": {{"s", "str"}, {"b", "bool"}, {"i", "int"}, {"i64", "int"}, {"f", "float"}, {"v", "raw"},
		{"c", "content"}, {"in", "inner"}, {"ss", "[str"}, {"si", "[int"}, {"sf", "[float"}, {"sb", "[bool"},
		{"sv", "[raw"}, {"sc", "[content"}, {"sin", "[inner"}, {"sss", "[[str"}, {"Plain", "str"},
		{"Omit", "str"}, {"z", "str"}, {"Skip", "str"}},
	"inner": {{"s", "str"}, {"n", "int"}, {"ss", "[str"}},
}

func (g intoGen) object(kind string) string {
	var parts []string
	for _, m := range intoSchema[kind] {
		if g.chance(0.5) {
			parts = append(parts, `"`+m[0]+`"`+g.ws()+":"+g.ws()+g.value(m[1]))
			if g.chance(0.02) {
				parts = append(parts, `"`+m[0]+`":`+g.value(m[1]))
			}
		}
	}
	for g.chance(0.1) {
		name := g.pick("zz", "S", "PLAIN", "-", "", `\u0073`, "é")
		parts = append(parts, `"`+name+`":`+g.recordGen.value("raw", 0))
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return "{" + g.ws() + strings.Join(parts, ","+g.ws()) + g.ws() + "}"
}

func (g intoGen) value(kind string) string {
	if g.chance(0.03) {
		return g.pick("null", "1", `"x"`, "[]", "{}", "true")
	}
	if elem, ok := strings.CutPrefix(kind, "["); ok {
		var xs []string
		for g.chance(0.6) {
			xs = append(xs, g.ws()+g.value(elem)+g.ws())
		}
		return "[" + strings.Join(xs, ",") + "]"
	}
	if kind == "inner" {
		return g.object(kind)
	}
	return g.recordGen.value(kind, 1)
}

// TestFastIntoGenerated compares the two paths on random values.
func TestFastIntoGenerated(t *testing.T) {
	g := intoGen{recordGen{rand.New(rand.NewPCG(5, 6))}}
	n, valid, fast := 10000, 0, 0
	if testing.Short() {
		n = 1000
	}
	for range n {
		v := []byte(g.object("all"))
		took, diff := compareInto(v, new(intoAll))
		if diff != "" {
			t.Fatalf("%s: %s", v, diff)
		}
		if took {
			fast++
		}
		if json.Unmarshal(v, new(intoAll), decodeOpts) == nil {
			valid++
		}
	}
	t.Logf("%d values, %d read by json, %d by the fast path", n, valid, fast)
	if fast < valid/2 {
		t.Errorf("the fast path took %d of the %d values json reads, want at least half", fast, valid)
	}
}

// FuzzFastInto checks that whenever FastInto takes a value into an
// intoAll, json reads it too and to the same value, and that it leaves
// the value alone when it refuses.
func FuzzFastInto(f *testing.F) {
	for _, tc := range intoCases {
		f.Add([]byte(tc.v))
	}
	g := intoGen{recordGen{rand.New(rand.NewPCG(7, 8))}}
	for range 300 {
		f.Add([]byte(g.object("all")))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if _, diff := compareInto(v, new(intoAll)); diff != "" {
			t.Fatalf("%q: %s", v, diff)
		}
	})
}
