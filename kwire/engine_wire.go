package kwire

import (
	"encoding/binary"
	"math/bits"
)

// appendUvarint writes v as an unsigned LEB128 varint.
func appendUvarint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendUvarint64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendVarint writes v zig-zag encoded, as Kafka's varint.
func appendVarint(b []byte, v int32) []byte {
	return appendUvarint(b, uint32(v<<1)^uint32(v>>31))
}

// appendVarlong writes v zig-zag encoded, as Kafka's varlong.
func appendVarlong(b []byte, v int64) []byte {
	return appendUvarint64(b, uint64(v<<1)^uint64(v>>63))
}

func uvarintSize(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }

func uvarint64Size(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func varintSize(v int32) int { return uvarintSize(uint32(v<<1) ^ uint32(v>>31)) }

func varlongSize(v int64) int { return uvarint64Size(uint64(v<<1) ^ uint64(v>>63)) }

func appendInt16(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }

func appendInt32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }

func appendInt64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }
