package kwire

import "reflect"

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

// MessageInfo is what a message struct's `_ struct{}` tag declares.
type MessageInfo struct {
	APIKey   int16 // -1 when the struct names no API
	Versions VersionRange
	Flexible VersionRange
}
