package kwire

import "testing"

// TestValueTypes checks the protocol's value types and the LayoutNode tree's
// format.
func TestValueTypes(t *testing.T) {
	if !NoVersions.Empty() || NoVersions.String() != "none" || AllVersions.String() != "0+" || !AllVersions.Contains(0x7fff) {
		t.Errorf("NoVersions %v, AllVersions %v", NoVersions, AllVersions)
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
	tree := &LayoutNode{Name: "root", Type: "struct", Size: 2, Children: []*LayoutNode{{Name: "A", Type: "int8", Value: "1", Size: 1}, {Name: "B", Type: "int8", Value: "2", Offset: 1, Size: 1}}}
	const want = "root struct [0x0000, 2B]\n+-- A int8 = 1 [0x0000, 1B]\n+-- B int8 = 2 [0x0001, 1B]\n"
	if got := tree.Format(); got != want {
		t.Errorf("Format:\n%s\nwant\n%s", got, want)
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

// TestSchemaBuiltOnce checks SchemaOf's cache: the same pointer on every
// call, a struct reached twice built once, and every field as the plan
// has it.
func TestSchemaBuiltOnce(t *testing.T) {
	s, err := SchemaOf(schemaOuter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SchemaOf(&schemaOuter{}, 0)
	if s != again || s.Fields[0].Struct == nil || s.Fields[0].Struct != s.Fields[1].Elem.Struct {
		t.Fatalf("SchemaOf builds again: %p %p, inner %p %p", s, again, s.Fields[0].Struct, s.Fields[1].Elem.Struct)
	}
	if s.Fields[2].Elem == nil || s.Fields[2].Elem.Wire != "string" || s.Fields[2].Elem.Struct != nil || s.Fields[1].Wire != "array" {
		t.Errorf("fields: %+v", s.Fields)
	}
	if s.Type.Name() != "schemaOuter" || s.UnknownTags != -1 || len(s.Fields[0].Struct.Fields) != 1 || s.Fields[0].Struct.Fields[0].Name != "X" {
		t.Errorf("schema: %+v", s)
	}
}
