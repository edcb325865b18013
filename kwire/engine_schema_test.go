package kwire_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
)

type schemaPart struct {
	Index     int32   `kafka:"v=0+"`
	ErrorCode int16   `kafka:"v=0+"`
	Replicas  []int32 `kafka:"v=0+"`
}

type schemaTopic struct {
	Name       string       `kafka:"v=0+"`
	ID         kwire.UUID   `kafka:"v=2+"`
	Partitions []schemaPart `kafka:"v=0+"`
}

type schemaMsg struct {
	_        struct{}      `kafka:"api=1000,versions=0-3,flexible=2+"`
	Throttle int32         `kafka:"v=1+"`
	Topics   []schemaTopic `kafka:"v=0+"`
	Leader   *schemaPart   `kafka:"v=0+,nullable=0+"`
	Rack     *string       `kafka:"v=2+,tag=1,tagged=2+,nullable=2+,default=null"`
	Note     string        `kafka:"v=3+,tag=0,tagged=3+"`
	Unknown  kwire.UnknownTags
}

func TestSchemaByVersion(t *testing.T) {
	names := func(s *kwire.Schema) string {
		var n []string
		for _, f := range s.Fields {
			n = append(n, f.Name+":"+f.Wire)
		}
		return strings.Join(n, " ")
	}
	for v, want := range map[int16]string{
		0: "Topics:array Leader:nullable struct",
		1: "Throttle:int32 Topics:array Leader:nullable struct",
		2: "Throttle:int32 Topics:array Leader:nullable struct Rack:nullable_string",
		3: "Throttle:int32 Topics:array Leader:nullable struct Note:string Rack:nullable_string",
	} {
		s, err := kwire.SchemaOf(&schemaMsg{}, v)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(s); got != want {
			t.Errorf("v%d: %s, want %s", v, got, want)
		}
		if s.Flexible != (v >= 2) || s.UnknownTags != 6 {
			t.Errorf("v%d: flexible %v, unknown index %d", v, s.Flexible, s.UnknownTags)
		}
		topic := s.Fields[0].Elem
		if v > 0 {
			topic = s.Fields[1].Elem
		}
		if topic == nil || topic.Struct == nil || (names(topic.Struct) == "Name:string ID:uuid Partitions:array") != (v >= 2) {
			t.Errorf("v%d: topic element schema %+v", v, topic)
		}
	}
	s, _ := kwire.SchemaOf(reflect.TypeOf(schemaMsg{}), 3)
	if f := s.Fields[3]; f.Tag != 0 || s.Fields[4].Tag != 1 || s.Fields[0].Tag != -1 || !s.Fields[4].Nullable {
		t.Errorf("tags: %+v", s.Fields)
	}
	if _, err := kwire.SchemaOf(&schemaMsg{}, 4); err == nil {
		t.Error("SchemaOf accepted version 4")
	}
	if _, err := kwire.SchemaOf(3, 0); err == nil {
		t.Error("SchemaOf accepted an int")
	}
}

func TestWalkPaths(t *testing.T) {
	msg := &schemaMsg{
		Topics: []schemaTopic{
			{Name: "a", Partitions: []schemaPart{{Index: 0}, {Index: 1, ErrorCode: 6}}},
			{Name: "b"},
		},
		Leader: &schemaPart{ErrorCode: 3},
	}
	var got []string
	err := kwire.Walk(msg, 0, func(p *kwire.Path, f *kwire.Field, v reflect.Value) error {
		got = append(got, p.String())
		if f.Name == "Leader" {
			return kwire.SkipChildren
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "Topics Topics[0].Name Topics[0].Partitions Topics[0].Partitions[0].Index Topics[0].Partitions[0].ErrorCode " +
		"Topics[0].Partitions[0].Replicas Topics[0].Partitions[1].Index Topics[0].Partitions[1].ErrorCode " +
		"Topics[0].Partitions[1].Replicas Topics[1].Name Topics[1].Partitions Leader"
	if strings.Join(got, " ") != want {
		t.Errorf("paths:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}

	got = nil
	_ = kwire.Walk(msg, 2, func(p *kwire.Path, f *kwire.Field, v reflect.Value) error {
		if f.Name == "ErrorCode" {
			got = append(got, p.Names()+"@"+string(rune('0'+p.Depth())))
		}
		return nil
	})
	if strings.Join(got, " ") != "Topics.Partitions.ErrorCode@2 Topics.Partitions.ErrorCode@2 Leader.ErrorCode@1" {
		t.Errorf("names: %q", got)
	}

	stop := kwire.Walk(msg, 0, func(p *kwire.Path, f *kwire.Field, v reflect.Value) error { return kwire.ErrTruncated })
	if stop != kwire.ErrTruncated {
		t.Errorf("Walk returned %v, want the callback's error", stop)
	}
	if err := kwire.Walk((*schemaMsg)(nil), 0, func(*kwire.Path, *kwire.Field, reflect.Value) error { return nil }); err == nil {
		t.Error("Walk accepted a nil pointer")
	}
}

type schemaTree struct {
	Name     string       `kafka:"v=0+"`
	Children []schemaTree `kafka:"v=0+"`
}

// A type that contains itself gives a schema that points back to itself.
func TestSchemaRecursive(t *testing.T) {
	s, err := kwire.SchemaOf(schemaTree{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Fields[1].Elem.Struct != s {
		t.Fatal("the element schema of Children is not the tree's own schema")
	}
	tree := schemaTree{Name: "root", Children: []schemaTree{{Name: "a", Children: []schemaTree{{Name: "b"}}}}}
	var got []string
	_ = kwire.Walk(&tree, 0, func(p *kwire.Path, f *kwire.Field, v reflect.Value) error {
		if f.Name == "Name" {
			got = append(got, p.String()+"="+v.String())
		}
		return nil
	})
	if strings.Join(got, " ") != "Name=root Children[0].Name=a Children[0].Children[0].Name=b" {
		t.Errorf("%q", got)
	}
}

type schemaRace struct {
	_     struct{}      `kafka:"versions=0-9,flexible=5+"`
	A     int32         `kafka:"v=0+"`
	Parts []schemaTopic `kafka:"v=3+"`
}

// Schemas are built on first use from any goroutine; run with -race.
func TestSchemaConcurrentFirstUse(t *testing.T) {
	done := make(chan *kwire.Schema, 20)
	for i := 0; i < 20; i++ {
		go func(v int16) {
			s, err := kwire.SchemaOf(&schemaRace{}, v)
			if err != nil {
				t.Error(err)
			}
			done <- s
		}(int16(i % 10))
	}
	byVersion := map[int16]*kwire.Schema{}
	for i := 0; i < 20; i++ {
		s := <-done
		if prev, ok := byVersion[s.Version]; ok && prev != s {
			t.Errorf("v%d: two schemas for one plan", s.Version)
		}
		byVersion[s.Version] = s
	}
}

type typeNameTopic struct{}

// Field.TypeName spells a type without its package, as the layout trees
// name structs.
func TestFieldTypeName(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{int32(0), "int32"},
		{"", "string"},
		{[]byte(nil), "[]uint8"},
		{(*string)(nil), "*string"},
		{[]typeNameTopic(nil), "[]typeNameTopic"},
		{[]*typeNameTopic(nil), "[]*typeNameTopic"},
		{kwire.UUID{}, "UUID"},
		{struct{ A int }{}, "struct"},
		{[]struct{ A int }(nil), "[]struct"},
		{map[string]int(nil), "map[string]int"},
	}
	for _, c := range cases {
		f := kwire.Field{Type: reflect.TypeOf(c.v)}
		if got := f.TypeName(); got != c.want {
			t.Errorf("TypeName of %T = %q, want %q", c.v, got, c.want)
		}
	}
}
