package kwire

import (
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// TestTypesAgreeWithTheEngine checks the values this package writes out
// again beside the engine's: its types are converted to the engine's,
// field for field, at every call.
func TestTypesAgreeWithTheEngine(t *testing.T) {
	if VersionRange(public.NoVersions) != NoVersions || VersionRange(public.AllVersions) != AllVersions {
		t.Errorf("NoVersions %v, AllVersions %v; the engine's %v, %v", NoVersions, AllVersions, public.NoVersions, public.AllVersions)
	}
	u := UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	if u.String() != "12345678-9abc-def0-0123-456789abcdef" || u.Base64() != "EjRWeJq83vABI0VniavN7w" {
		t.Errorf("UUID %s, base64 %s", u, u.Base64())
	}
	var back UUID
	if err := back.UnmarshalText([]byte(u.Base64())); err != nil || back != u {
		t.Errorf("UnmarshalText: %v, %v", back, err)
	}
	r, err := ParseVersionRange("3-5")
	if err != nil || r != (VersionRange{3, 5}) || r.String() != "3-5" || !r.Contains(4) || r.Contains(6) || r.Empty() || !NoVersions.Empty() {
		t.Errorf("ParseVersionRange(3-5) = %v, %v", r, err)
	}
	tree := &Node{Name: "root", Type: "struct", Size: 2, Children: []*Node{{Name: "A", Type: "int8", Value: "1", Size: 1}, {Name: "B", Type: "int8", Value: "2", Offset: 1, Size: 1}}}
	engineTree := &public.Node{Name: "root", Type: "struct", Size: 2, Children: []*public.Node{{Name: "A", Type: "int8", Value: "1", Size: 1}, {Name: "B", Type: "int8", Value: "2", Offset: 1, Size: 1}}}
	if got := nodeOf(engineTree); got.Format() != tree.Format() || len(got.Children) != 2 || got.Children[1].Offset != 1 {
		t.Errorf("node copy:\n%s\nwant\n%s", got.Format(), tree.Format())
	}
}

type schemaInner struct {
	X int32 `kafka:"v=0+"`
}

type schemaOuter struct {
	_     struct{}      `kafka:"api=1,versions=0"`
	One   schemaInner   `kafka:"v=0+"`
	Many  []schemaInner `kafka:"v=0+"`
	Names []string      `kafka:"v=0+"`
}

// TestSchemaCopiesOnce checks SchemaOf's copy of the engine's schema: the
// same pointer on every call, a struct reached twice copied once, and
// every field as the engine has it.
func TestSchemaCopiesOnce(t *testing.T) {
	s, err := SchemaOf(schemaOuter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SchemaOf(&schemaOuter{}, 0)
	if s != again || s.Fields[0].Struct == nil || s.Fields[0].Struct != s.Fields[1].Elem.Struct {
		t.Fatalf("SchemaOf copies again: %p %p, inner %p %p", s, again, s.Fields[0].Struct, s.Fields[1].Elem.Struct)
	}
	if s.Fields[2].Elem == nil || s.Fields[2].Elem.Wire != "string" || s.Fields[2].Elem.Struct != nil || s.Fields[1].Wire != "array" {
		t.Errorf("fields: %+v", s.Fields)
	}
	if s.Type.Name() != "schemaOuter" || s.UnknownTags != -1 || len(s.Fields[0].Struct.Fields) != 1 || s.Fields[0].Struct.Fields[0].Name != "X" {
		t.Errorf("schema: %+v", s)
	}
}

// The headers, which frame.go and decoder.go convert to the engine's
// through unsafe, have the engine's layout (init panics otherwise).
func TestHeadersHaveTheEnginesLayout(t *testing.T) {
	if err := engine.SameLayout(reflect.TypeFor[RequestHeader](), reflect.TypeFor[public.RequestHeader]()); err != nil {
		t.Error(err)
	}
	if err := engine.SameLayout(reflect.TypeFor[ResponseHeader](), reflect.TypeFor[public.ResponseHeader]()); err != nil {
		t.Error(err)
	}
}
