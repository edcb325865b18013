package kwire

import "reflect"

// FieldInfo is one field of a message at one version as kwire's plan
// encodes it: the schema as the codec sees it, for reference pages and
// tools. Fields the version lacks are left out.
type FieldInfo struct {
	Name      string
	GoType    string // the Go type without package names: []TopicPartitions, *string
	Type      string // wire type: int32, string, nullable string, array, struct, uuid, records ...
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
	pl, _, err := messagePlan(msg, version, "fields")
	if err != nil {
		return nil, err
	}
	return planFields(pl, 0), nil
}

// maxFieldDepth stops recursive types (a struct holding itself).
const maxFieldDepth = 32

func planFields(pl *plan, depth int) []FieldInfo {
	if depth > maxFieldDepth {
		return nil
	}
	defaults := map[string]string{}
	for _, fs := range infoFor(pl.typ).fields {
		if fs.tag.defaultRaw != nil {
			defaults[fs.sf.Name] = *fs.tag.defaultRaw
		}
	}
	out := make([]FieldInfo, 0, len(pl.fields)+len(pl.tagged))
	add := func(o *op, tag int) {
		fi := FieldInfo{Name: o.name, GoType: shortTypeName(o.typ), Type: o.wireTypeName(), Nullable: o.nullable, Tag: tag,
			Default: defaults[o.name], Ignorable: o.ignorable}
		switch o.kind {
		case kString, kNullString, kBytes, kArray:
			fi.Compact = o.compact
		}
		sub := o.sub
		if o.kind == kArray {
			fi.Elem = o.elem.wireTypeName()
			sub = o.elem.sub
		}
		if sub != nil {
			fi.Fields = planFields(sub, depth+1)
		}
		out = append(out, fi)
	}
	for i := range pl.fields {
		add(&pl.fields[i], -1)
	}
	for i := range pl.tagged {
		add(&pl.tagged[i], int(pl.tagged[i].tag))
	}
	return out
}

// shortTypeName writes a Go type without its package: []T, *T, T.
func shortTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		return "[]" + shortTypeName(t.Elem())
	case reflect.Pointer:
		return "*" + shortTypeName(t.Elem())
	}
	if t == uuidType {
		return "UUID"
	}
	return t.Name()
}
