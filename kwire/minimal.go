package kwire

import (
	"hash/crc32"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// FillMinimal sets msg (a pointer to a message struct) to the smallest
// legal instance at version: numbers zero, strings and bytes empty (also
// when nullable), every array one sample element, nullable structs
// present, tagged fields and fields the version lacks at their defaults,
// and records fields one empty RecordBatch v2.
func FillMinimal(msg any, version int16) error {
	pl, p, err := messagePlan(msg, version, "fill", writeValue)
	if err != nil {
		return err
	}
	p.value(pl.typ).SetZero()
	fillStruct(pl, p, 0)
	return nil
}

// EmptyRecordBatch returns a RecordBatch v2 holding no records: 61 bytes,
// every field zero but the batch length (49), the magic (2) and the
// CRC-32C over the attributes and everything after them.
func EmptyRecordBatch() []byte {
	b := make([]byte, 61)
	wire.PutInt32(b[8:], 61-12) // batch length: bytes after this field
	b[16] = 2                   // magic
	crc := crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli))
	wire.PutInt32(b[17:], int32(crc))
	return b
}
