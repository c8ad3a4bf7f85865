package transcript

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A fieldProbe is a JSON value that sets one field, named by path
// (Record.Message.Usage.InputTokens), and nothing else, to a value no
// other probe gives it.
type fieldProbe struct {
	path, json string
}

// fieldProbes returns the probes of every field reachable from t, by
// reflection: whatever field is added to a struct, its probe comes with it.
// It fails t on a kind of field it cannot set, so that a new shape is
// taught here instead of skipped.
func fieldProbes(tb testing.TB, t reflect.Type) []fieldProbe {
	w := probeWalker{tb: tb}
	return w.value(t, t.Name(), nil)
}

type probeWalker struct {
	tb testing.TB
	n  int // numbers given so far: each probe's number is another
}

var (
	probeContent = reflect.TypeFor[Content]()
	probeValue   = reflect.TypeFor[jsontext.Value]()
)

// value returns the probes of a value of type t at path; within lists the
// structs being walked, so that a recursive type (a Block's Content holds
// Blocks) is walked once.
func (w *probeWalker) value(t reflect.Type, path string, within []reflect.Type) []fieldProbe {
	one := func(v string) []fieldProbe { return []fieldProbe{{path, v}} }
	switch t {
	case probeValue: // kept as written
		return one(`{"probe":` + strconv.Quote(path) + `}`)
	case probeContent: // a string, any other value, or blocks
		ps := []fieldProbe{{path + "(string)", strconv.Quote(path)}, {path + "(raw)", `{"probe":` + strconv.Quote(path) + `}`}}
		for _, p := range w.value(reflect.TypeFor[Block](), path+"[0]", within) {
			ps = append(ps, fieldProbe{p.path, "[" + p.json + "]"})
		}
		return ps
	}
	switch t.Kind() {
	case reflect.String:
		return one(strconv.Quote(path))
	case reflect.Bool:
		return one("true")
	case reflect.Int, reflect.Int64:
		w.n++
		return one(strconv.Itoa(1000 + w.n))
	case reflect.Float64:
		w.n++
		return one(strconv.Itoa(1000+w.n) + ".5")
	case reflect.Pointer:
		return w.value(t.Elem(), path, within)
	case reflect.Slice:
		return w.wrap(w.value(t.Elem(), path+"[0]", within), "[", "]")
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			break
		}
		return w.wrap(w.value(t.Elem(), path+`["probe"]`, within), `{"probe":`, "}")
	case reflect.Struct:
		if slices.Contains(within, t) {
			return one("{}")
		}
		return w.structure(t, path, append(within, t))
	}
	w.tb.Fatalf("%s: no probe for a %v: teach fieldProbes this type", path, t)
	return nil
}

func (w *probeWalker) wrap(ps []fieldProbe, open, close string) []fieldProbe {
	for i := range ps {
		ps[i].json = open + ps[i].json + close
	}
	return ps
}

// structure returns a probe for each field of a struct, as an object of
// one member: the field's json name (its own name when untagged). An
// embedded unknown-members field (",embed", ",unknown", ",inline") is
// probed with a member of a name no field has.
func (w *probeWalker) structure(t reflect.Type, path string, within []reflect.Type) []fieldProbe {
	var ps []fieldProbe
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _ := f.Tag.Lookup("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fpath := path + "." + f.Name
		if name == "" && f.Type == probeValue && slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool {
			return o == "embed" || o == "unknown" || o == "inline"
		}) {
			ps = append(ps, fieldProbe{fpath, `{"probeUnknown":` + strconv.Quote(fpath) + `}`})
			continue
		}
		if name == "" {
			name = f.Name
		}
		for _, p := range w.value(f.Type, fpath, within) {
			ps = append(ps, fieldProbe{p.path, `{` + strconv.Quote(name) + `:` + p.json + `}`})
		}
	}
	return ps
}

// TestFastDecodeEveryField sets each field of Record, and of every struct
// reachable from it, alone, and requires the fast path to take the line
// and decode it as json does. A field added to a struct without its case
// in fastdecode.go is skipped (or kept in an Extra) by the fast path and
// fails here by name.
func TestFastDecodeEveryField(t *testing.T) {
	probes := fieldProbes(t, reflect.TypeFor[Record]())
	if len(probes) < 100 {
		t.Fatalf("%d probes of Record, want one a field", len(probes))
	}
	for _, p := range probes {
		line := []byte(p.json)
		var want Record
		if json.Unmarshal(line, &want, decodeOpts) != nil || reflect.ValueOf(want).IsZero() {
			t.Errorf("%s: json reads nothing of the probe %s: a bad probe", p.path, line)
			continue
		}
		fast, diff := compareFast(line)
		switch {
		case !fast:
			t.Errorf("%s: the fast path refused %s", p.path, line)
		case diff != "":
			t.Errorf("%s: the fast path loses it (%s): no case for it in fastdecode.go? (%s)", p.path, diff, line)
		}
	}
}

// TestFastIntoEveryField does the same for FastInto, whose plans are made
// from the struct by reflection, on a struct of every kind it reads.
func TestFastIntoEveryField(t *testing.T) {
	for _, p := range fieldProbes(t, reflect.TypeFor[intoAll]()) {
		fast, diff := compareInto([]byte(p.json), new(intoAll))
		switch {
		case !fast:
			t.Errorf("%s: FastInto refused %s", p.path, p.json)
		case diff != "":
			t.Errorf("%s: FastInto loses it (%s): %s", p.path, diff, p.json)
		}
	}
}
