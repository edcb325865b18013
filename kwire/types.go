package kwire

import (
	"encoding/json"
	"fmt"
)

// TaggedField is one tagged field as it appears on the wire: its tag
// number and its raw (still encoded) value.
type TaggedField struct {
	Tag  uint32
	Data []byte
}

func (t TaggedField) String() string { return fmt.Sprintf("tag %d: %x", t.Tag, t.Data) }

// UnknownTags holds the tagged fields a struct does not declare, in
// ascending tag order. Put a field of this type in a struct to keep them
// across a decode and re-encode; without one they are skipped.
//
// It is one pointer wide, not a slice: nearly every struct has none, and
// every element of a decoded array carries the field, so a 24-byte slice
// header would triple the size of a struct of a few numbers. The zero
// value holds no fields.
type UnknownTags struct{ fields *[]TaggedField }

// NewUnknownTags holds fields, which must be in ascending tag order (the
// encoder refuses them otherwise). It shares fields' backing array, as a
// slice assignment would.
func NewUnknownTags(fields ...TaggedField) UnknownTags {
	var t UnknownTags
	t.Set(fields...)
	return t
}

// Len is the number of fields held.
func (t UnknownTags) Len() int {
	if t.fields == nil {
		return 0
	}
	return len(*t.fields)
}

// Fields returns the fields held, in tag order, or nil. The slice is the
// one held: change it with Set.
func (t UnknownTags) Fields() []TaggedField {
	if t.fields == nil {
		return nil
	}
	return *t.fields
}

// Set replaces the fields held; no fields leaves t empty (the zero value).
func (t *UnknownTags) Set(fields ...TaggedField) {
	if len(fields) == 0 {
		t.fields = nil
		return
	}
	t.fields = &fields
}

// String formats the fields held, as fmt formats a []TaggedField.
func (t UnknownTags) String() string { return fmt.Sprint(t.Fields()) }

// MarshalJSON writes the fields as a JSON array of {"Tag", "Data"}
// objects (Data in base64), as kwire/pretty does.
func (t UnknownTags) MarshalJSON() ([]byte, error) {
	if t.fields == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(*t.fields)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *UnknownTags) UnmarshalJSON(b []byte) error {
	var fields []TaggedField
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	t.Set(fields...)
	return nil
}
