package kwire

import (
	"reflect"
	"sync"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// Schema is the shape of a struct type at one version, as the codec sees
// it: the fields on the wire in that version, in wire order, then the
// tagged fields by tag number. It is read from the codec's own plans, so
// it agrees with Marshal and Unmarshal. Tools that show or inspect values
// (JSON, summaries, error scans) work from it rather than from the struct
// tags.
type Schema struct {
	Type     reflect.Type // the struct type
	Version  int16
	Flexible bool
	Fields   []Field
	// UnknownTags is the index in Type of the UnknownTags field, or -1.
	UnknownTags int
}

// Field is one field of a Schema (or, as Field.Elem, an array's element).
type Field struct {
	Name  string
	Index int          // in the Go struct, for reflect.Value.Field; -1 for an array element
	Type  reflect.Type // the Go type
	// Wire is the wire type: int8, int16, int32, int64, uint16, uint32,
	// float64, bool, varint, varlong, uvarint, uuid, string,
	// nullable_string, bytes, nullable_bytes, records, array, struct,
	// nullable struct.
	Wire      string
	Tag       int    // the tagged-field number, -1 for a field in the fixed part
	Nullable  bool   // null is legal in this version
	Records   bool   // a records field: []byte holding record batches
	Compact   bool   // a string, bytes or array with a compact (uvarint) length
	Default   string // the tag's default= text, "" when it has none
	Ignorable bool
	// Elem is an array's element; nil for other fields.
	Elem *Field
	// Struct is the schema of a struct, a nullable struct, or (through
	// Elem) an array of structs; nil for other fields.
	Struct *Schema
}

// SchemaOf returns the schema of msg's type (a struct, a pointer to one,
// or a reflect.Type of either) at version. The version must be one the
// message declares (Describe says which); its flexible versions decide
// compactness and tags. Schemas are cached: callers must not modify them.
func SchemaOf(msg any, version int16) (*Schema, error) {
	s, err := engine.SchemaOf(msg, version)
	if err != nil {
		return nil, err
	}
	return schemaOf(s), nil
}

// schemas holds this package's copy of each engine schema, which the
// engine caches for the program's life, so each is copied once and a
// schema reached twice is the same pointer both times.
var (
	schemas   sync.Map // *public.Schema -> *Schema
	schemasMu sync.Mutex
)

func schemaOf(s *public.Schema) *Schema {
	if c, ok := schemas.Load(s); ok {
		return c.(*Schema)
	}
	schemasMu.Lock()
	defer schemasMu.Unlock()
	copied := map[*public.Schema]*Schema{}
	c := copySchema(s, copied)
	for p, cs := range copied {
		schemas.LoadOrStore(p, cs)
	}
	return c
}

// copySchema copies s and the schemas inside it; copied holds the copies
// made so far, so a recursive type's cycle of pointers is copied as one.
func copySchema(s *public.Schema, copied map[*public.Schema]*Schema) *Schema {
	if s == nil {
		return nil
	}
	if c, ok := schemas.Load(s); ok {
		return c.(*Schema)
	}
	if c, ok := copied[s]; ok {
		return c
	}
	c := &Schema{Type: s.Type, Version: s.Version, Flexible: s.Flexible, UnknownTags: s.UnknownTags}
	copied[s] = c
	c.Fields = make([]Field, len(s.Fields))
	for i := range s.Fields {
		c.Fields[i] = copyField(&s.Fields[i], copied)
	}
	return c
}

func copyField(f *public.Field, copied map[*public.Schema]*Schema) Field {
	c := Field{Name: f.Name, Index: f.Index, Type: f.Type, Wire: f.Wire, Tag: f.Tag, Nullable: f.Nullable,
		Records: f.Records, Compact: f.Compact, Default: f.Default, Ignorable: f.Ignorable,
		Struct: copySchema(f.Struct, copied)}
	if f.Elem != nil {
		e := copyField(f.Elem, copied)
		c.Elem = &e
	}
	return c
}

// MessageInfo is what a message struct's `_ struct{}` tag declares.
type MessageInfo struct {
	APIKey   int16 // -1 when the struct names no API
	Versions VersionRange
	Flexible VersionRange
}

// Describe returns the message facts of msg's type (a struct, a pointer to
// one, or a reflect.Type of either), or an error if its tags are invalid
// at any version it declares (see Validate). It answers what holds at
// every version (the API, which versions exist); SchemaOf answers what
// one version holds.
func Describe(msg any) (MessageInfo, error) {
	m, err := engine.Describe(msg)
	return MessageInfo{APIKey: m.APIKey, Versions: VersionRange(m.Versions), Flexible: VersionRange(m.Flexible)}, err
}
