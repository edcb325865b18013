package kwire

import "encoding/hex"

// UUID is Kafka's 16-byte uuid type, written as its raw bytes.
type UUID [16]byte

// String formats the UUID in the usual 8-4-4-4-12 hex form.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// TaggedField is one tagged field as it appears on the wire: its tag
// number and its raw (still encoded) value.
type TaggedField struct {
	Tag  uint32
	Data []byte
}

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
