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

// TypeName spells the field's Go type without its package, as the layout
// trees (LayoutNode.Type) name structs and arrays of them: []T, *T, T.
func (f *Field) TypeName() string { return goTypeName(f.Type) }

// SchemaOf returns the schema of msg's type (a struct, a pointer to one,
// or a reflect.Type of either) at version. The version must be one the
// message declares (MessageInfoOf says which); its flexible versions decide
// compactness and tags. Schemas are cached: callers must not modify them.
func SchemaOf(msg any, version int16) (*Schema, error) {
	t, _, err := messageOf(msg, "schema", typeOnly)
	if err != nil {
		return nil, err
	}
	_, pl, err := rootPlan(t, version, "schema")
	if err != nil {
		return nil, err
	}
	return schemaOfPlan(pl), nil
}

// MessageInfo is what a message struct's `_ struct{}` tag declares.
type MessageInfo struct {
	APIKey   int16 // -1 when the struct names no API
	Versions VersionRange
	Flexible VersionRange
	// RequestHeaders and ResponseHeaders are the header versions the
	// message's versions travel with as a request and as a response: the
	// struct's reqheader= and respheader= tables, or where it states
	// none, Kafka's derived ones (see HeaderVersions).
	RequestHeaders, ResponseHeaders HeaderVersions
}

// MessageInfoOf returns the message facts of msg's type (a struct, a pointer to
// one, or a reflect.Type of either), or an error if its tags are invalid
// at any version it declares (see Validate). It answers what holds at
// every version (the API, which versions exist); SchemaOf answers what
// one version holds.
func MessageInfoOf(msg any) (MessageInfo, error) {
	t, _, err := messageOf(msg, "plan", typeOnly)
	if err != nil {
		return MessageInfo{}, err
	}
	if err := validType(t); err != nil {
		return MessageInfo{}, err
	}
	ti := infoFor(t)
	return MessageInfo{APIKey: ti.msg.apiKey, Versions: ti.msg.versions, Flexible: ti.msg.flexible,
		RequestHeaders: ti.msg.request, ResponseHeaders: ti.msg.response}, nil
}
