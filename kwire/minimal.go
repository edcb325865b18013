package kwire

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"unsafe"
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
	reflect.NewAt(pl.typ, p).Elem().SetZero()
	fillStruct(pl, p, 0)
	return nil
}

// maxFillDepth stops a recursive type from filling forever: past it,
// arrays stay empty and nullable structs null.
const maxFillDepth = 16

func fillStruct(pl *plan, p unsafe.Pointer, depth int) {
	pl.flatDefaults.apply(p) // tagged and absent fields only: numbers on the wire stay zero
	for _, o := range pl.fields {
		fillValue(o, fieldPtr(p, o.offset), depth)
	}
}

func fillValue(o *fieldPlan, fp unsafe.Pointer, depth int) {
	if fill := wireTypes[o.kind].fillMinimal; fill != nil {
		fill(o, fp, depth)
	}
}

// fillMinimalArray gives an array one sample element.
func fillMinimalArray(o *fieldPlan, fp unsafe.Pointer, depth int) {
	n := 1
	if depth >= maxFillDepth {
		n = 0
	}
	s := reflect.MakeSlice(o.typ, n, n)
	*(*sliceHeader)(fp) = sliceHeader{data: s.UnsafePointer(), len: n, cap: n}
	if n == 1 {
		fillValue(o.elem, s.UnsafePointer(), depth+1)
	}
}

// fillMinimalStructPtr makes a nullable struct present.
func fillMinimalStructPtr(o *fieldPlan, fp unsafe.Pointer, depth int) {
	if depth >= maxFillDepth && o.nullable {
		return
	}
	sp := reflect.New(o.sub.typ).UnsafePointer()
	*(*unsafe.Pointer)(fp) = sp
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
