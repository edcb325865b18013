package kwire

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
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

// maxFillDepth stops a recursive type from filling forever: past it,
// arrays stay empty and nullable structs null.
const maxFillDepth = 16

func fillStruct(pl *plan, p pointer, depth int) {
	pl.flatDefaults.apply(p) // tagged and absent fields only: numbers on the wire stay zero
	for _, o := range pl.fields {
		fillValue(o, p.add(o.offset), depth)
	}
}

func fillValue(o *fieldPlan, fp pointer, depth int) {
	if fill := wireTypes[o.kind].fillMinimal; fill != nil {
		fill(o, fp, depth)
	}
}

// fillMinimalArray gives an array one sample element.
func fillMinimalArray(o *fieldPlan, fp pointer, depth int) {
	n := 1
	if depth >= maxFillDepth {
		n = 0
	}
	s := reflect.MakeSlice(o.typ, n, n)
	*fp.slice() = sliceHeader{data: valuePointer(s), len: n, cap: n}
	if n == 1 {
		fillValue(o.elem, valuePointer(s), depth+1)
	}
}

// fillMinimalStructPtr makes a nullable struct present.
func fillMinimalStructPtr(o *fieldPlan, fp pointer, depth int) {
	if depth >= maxFillDepth && o.nullable {
		return
	}
	sp := valuePointer(reflect.New(o.sub.typ))
	*fp.ptr() = sp
	fillStruct(o.sub, sp, depth+1)
}

// EmptyRecordBatch returns a RecordBatch v2 holding no records: 61 bytes,
// every field zero but the batch length (49), the magic (2) and the
// CRC-32C over the attributes and everything after them.
func EmptyRecordBatch() []byte {
	b := make([]byte, 61)
	binary.BigEndian.PutUint32(b[8:], 61-12) // batch length: bytes after this field
	b[16] = 2                                // magic
	crc := crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli))
	binary.BigEndian.PutUint32(b[17:], crc)
	return b
}
