package kwire

// FieldInfo is one field of a message at one version as kwire's plan
// encodes it: the schema as the codec sees it, for reference pages and
// tools. Fields the version lacks are left out.
type FieldInfo struct {
	Name      string
	GoType    string // the Go type without package names: []TopicPartitions, *string
	Type      string // wire type, as Field.Wire: int32, string, nullable_string, array, struct, uuid, records ...
	Elem      string // for arrays: the element's wire type
	Nullable  bool   // null is legal in this version
	Compact   bool   // compact (uvarint) length, for strings, bytes and arrays
	Tag       int    // the tag number of a tagged field, -1 otherwise
	Default   string // the tag's default= text, "" when it has none
	Ignorable bool
	Fields    []FieldInfo // of a struct, or of an array's struct elements
}

// Fields returns the fields of msg's type (a message struct or a pointer
// to one) at version: first those in wire order, then the tagged ones in
// tag order.
func Fields(msg any, version int16) ([]FieldInfo, error) {
	s, err := SchemaOf(msg, version)
	if err != nil {
		return nil, err
	}
	return schemaFields(s, 0), nil
}

// maxFieldDepth stops recursive types (a struct holding itself).
const maxFieldDepth = 32

// schemaFields flattens a Schema into FieldInfo values.
func schemaFields(s *Schema, depth int) []FieldInfo {
	if depth > maxFieldDepth {
		return nil
	}
	out := make([]FieldInfo, 0, len(s.Fields))
	for i := range s.Fields {
		f := &s.Fields[i]
		fi := FieldInfo{Name: f.Name, GoType: goTypeName(f.Type), Type: f.Wire, Nullable: f.Nullable, Compact: f.Compact,
			Tag: f.Tag, Default: f.Default, Ignorable: f.Ignorable}
		sub := f.Struct
		if f.Elem != nil {
			fi.Elem = f.Elem.Wire
			sub = f.Elem.Struct
		}
		if sub != nil {
			fi.Fields = schemaFields(sub, depth+1)
		}
		out = append(out, fi)
	}
	return out
}
