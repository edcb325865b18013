package kwire

import (
	"encoding/hex"
	"fmt"
)

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
type UnknownTags []TaggedField

func (t TaggedField) String() string { return fmt.Sprintf("tag %d: %x", t.Tag, t.Data) }
