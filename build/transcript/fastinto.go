package transcript

import (
	"bytes"
	"encoding"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// FastInto is Unmarshal(v, out) by the scanner of fastdecode.go, for out a
// pointer to a zero value of a type of a few kinds: string, bool, int,
// int64, float64, jsontext.Value, Content, structs of those, slices of
// those. It reports whether it decoded v: when it returns true, *out is
// exactly what Unmarshal(v, out) leaves and Unmarshal would have returned
// nil; when it returns false, *out is as it was (zero, when FastInto read
// into it) and v is for Unmarshal.
//
// It refuses, besides what the scanner refuses (invalid UTF-8, lone
// surrogates, escaped member names, numbers an int rejects, deep nesting,
// invalid JSON anywhere, trailing data): any other type (maps, interfaces,
// pointers, embedded or unexported fields, types with their own
// unmarshaling, tag options but omitempty and omitzero); a known member
// named twice (json merges a repeated struct or Content, which is not
// worth copying); and a *out that is not zero on entry (json merges into
// what is there).
//
// Tool results are decoded into a few small structs a call, long after the
// line; json finds its way through them by reflection at every call, this
// through a plan made once a type (BenchmarkStructured in build/render).
func FastInto(v []byte, out any) bool {
	return fastInto(v, out, false)
}

// FastIntoValid is FastInto for v that this package's decoding already
// accepted as JSON (a Record's raw member, such as ToolUseResult): the
// strings of the members out has no field for are passed at IndexByte's
// speed, to their closing quote, not checked again; an edit's result
// skips the whole original file that way. Given other bytes, it may
// decode what json would refuse.
func FastIntoValid(v []byte, out any) bool {
	return fastInto(v, out, true)
}

func fastInto(v []byte, out any, valid bool) bool {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	t := rv.Type().Elem()
	p := planOf(t)
	if p == nil {
		return false
	}
	dst := rv.Elem()
	if !isZero(dst) {
		return false
	}
	s := fastScanner{b: v, valid: valid}
	s.space()
	ok := p.decode(&s, dst)
	s.space()
	if !ok || s.i != len(s.b) {
		// *out was zero: it is again as it was.
		dst.SetZero()
		return false
	}
	return true
}

// isZero reports whether v, of a type with a plan, is its type's zero
// value bit for bit: reflect's IsZero takes a float's -0 for zero, which
// json would leave where FastInto writes 0.
func isZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Float64:
		return math.Float64bits(v.Float()) == 0
	case reflect.Struct:
		for i := range v.NumField() {
			if !isZero(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}

// A plan reads one value of its type into v, addressable and zero (slices
// and structs are only ever read once: a repeated member is refused), and
// may leave v anything when it fails.
type plan struct {
	decode func(s *fastScanner, v reflect.Value) bool
}

// plans caches each type's *plan, nil for a type FastInto refuses.
var plans sync.Map // reflect.Type → *plan

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := makePlan(t, map[reflect.Type]bool{})
	plans.Store(t, p)
	return p
}

var (
	contentType  = reflect.TypeFor[Content]()
	valueType    = reflect.TypeFor[jsontext.Value]()
	stringType   = reflect.TypeFor[string]()
	boolType     = reflect.TypeFor[bool]()
	intType      = reflect.TypeFor[int]()
	int64Type    = reflect.TypeFor[int64]()
	float64Type  = reflect.TypeFor[float64]()
	ownUnmarshal = []reflect.Type{
		reflect.TypeFor[json.UnmarshalerFrom](),
		reflect.TypeFor[json.Unmarshaler](),
		reflect.TypeFor[encoding.TextUnmarshaler](),
	}
)

// makePlan returns t's plan, or nil when FastInto does not take t. within
// holds the structs being planned, to refuse a recursive type.
func makePlan(t reflect.Type, within map[reflect.Type]bool) *plan {
	// The types json reads by their own methods: the two the scanner
	// knows first, then any other refused.
	switch t {
	case contentType:
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			return s.content(v.Addr().Interface().(*Content))
		}}
	case valueType:
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			p := v.Addr().Interface().(*jsontext.Value)
			if !s.raw(p) {
				return false
			}
			// json keeps a copy, not v's bytes.
			*p = bytes.Clone(*p)
			return true
		}}
	}
	for _, m := range ownUnmarshal {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return nil
		}
	}
	// Only the predeclared types (a named string type is read the same,
	// but none is needed).
	switch t {
	case stringType:
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			return s.str(v.Addr().Interface().(*string))
		}}
	case boolType:
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			return s.boolean(v.Addr().Interface().(*bool))
		}}
	case intType:
		if intType.Size() != 8 {
			return nil // integer reads 64 bits; json refuses more than int holds
		}
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			return integer(s, v.Addr().Interface().(*int))
		}}
	case int64Type:
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			return integer(s, v.Addr().Interface().(*int64))
		}}
	case float64Type:
		return &plan{func(s *fastScanner, v reflect.Value) bool {
			return s.float(v.Addr().Interface().(*float64))
		}}
	}
	switch t.Kind() {
	case reflect.Slice:
		return slicePlan(t, within)
	case reflect.Struct:
		return structPlan(t, within)
	}
	return nil
}

// slicePlan reads an array as json does into a nil slice: null leaves it
// nil, [] makes it empty (not nil), each element is read into a zero one.
func slicePlan(t reflect.Type, within map[reflect.Type]bool) *plan {
	elem := makePlan(t.Elem(), within)
	if elem == nil {
		return nil
	}
	empty := reflect.MakeSlice(t, 0, 0)
	return &plan{func(s *fastScanner, v reflect.Value) bool {
		if s.null() {
			v.SetZero()
			return true
		}
		n := 0
		ok := s.array(func() bool {
			if n == v.Cap() {
				v.Grow(1) // new capacity is zero
			}
			v.SetLen(n + 1)
			n++
			return elem.decode(s, v.Index(n-1))
		})
		if ok && n == 0 {
			v.Set(empty)
		}
		return ok
	}}
}

// field is a struct field json reads: its member name, its index, its plan.
type field struct {
	name  string
	index int
	plan  *plan
}

// structPlan reads an object into a struct as json does with decodeOpts:
// a member whose name is a field's exactly (no case folding) is read into
// it, any other is skipped; null zeroes the struct.
func structPlan(t reflect.Type, within map[reflect.Type]bool) *plan {
	if within[t] || t.NumField() > 64 {
		return nil
	}
	within[t] = true
	defer delete(within, t)
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous || !f.IsExported() {
			return nil
		}
		tag, tagged := f.Tag.Lookup("json")
		if tag == "-" {
			continue // ignored: its name is an unknown one
		}
		name, opts, _ := strings.Cut(tag, ",")
		// Single quotes allow any name, and change nothing otherwise;
		// not worth parsing.
		if strings.HasPrefix(name, "'") {
			return nil
		}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "", "omitempty", "omitzero": // for json.Marshal only
			default:
				return nil // string, inline, unknown, case:, format:, …
			}
		}
		if !tagged || name == "" {
			name = f.Name
		}
		p := makePlan(f.Type, within)
		if p == nil {
			return nil
		}
		for _, g := range fields {
			if g.name == name {
				return nil // json refuses the type
			}
		}
		fields = append(fields, field{name, i, p})
	}
	return &plan{func(s *fastScanner, v reflect.Value) bool {
		if s.null() {
			v.SetZero()
			return true
		}
		var seen uint64
		return s.object(func(name []byte) bool {
			for i := range fields {
				f := &fields[i]
				if string(name) != f.name {
					continue
				}
				if seen&(1<<i) != 0 {
					return false // json would merge or replace
				}
				seen |= 1 << i
				return f.plan.decode(s, v.Field(f.index))
			}
			return s.skip()
		})
	}}
}
