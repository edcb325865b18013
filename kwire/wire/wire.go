// Package wire holds the Kafka protocol's primitive wire forms, each
// defined once: the big-endian fixed widths, bool, the varints (unsigned
// and zig-zag), the three length forms (classic int16 and int32, compact
// uvarint n+1, each with its null), the tagged-field section, the
// nullable struct's presence marker, the size prefix of a frame and the
// fixed start of request and response headers.
//
// It is the layer below package kwire (which encodes whole messages
// from tagged structs) for code that reads or writes a few fields by
// hand: a record batch, a capture decoder, a proxy looking at a header.
// It imports nothing of kwire.
//
// Appenders take a buffer and return it extended, as append does. A
// Consume function reads one value at the start of b and returns it with
// the number of bytes it took; a negative count is an error, which
// ParseError names (ErrTruncated, ErrOverflow, ...). Consumers never
// panic and never allocate, whatever the bytes.
package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// The errors a Consume function reports, as negative counts.
const (
	errCodeTruncated = -1 // b ended first
	errCodeOverflow  = -2 // a varint longer than its type
	errCodeRange     = -3 // a length below -1 or a marker neither 1 nor -1
)

var (
	// ErrTruncated: the input ended inside the value.
	ErrTruncated = errors.New("wire: truncated")
	// ErrOverflow: a varint with more bits than its type holds.
	ErrOverflow = errors.New("wire: varint overflows its type")
	// ErrRange: a value outside what its form allows (a length under
	// -1, a presence marker that is neither 1 nor -1).
	ErrRange = errors.New("wire: value out of range")
)

// ParseError is the error of a negative count from a Consume function,
// nil for a count of zero or more.
func ParseError(n int) error {
	switch {
	case n >= 0:
		return nil
	case n == errCodeTruncated:
		return ErrTruncated
	case n == errCodeOverflow:
		return ErrOverflow
	}
	return ErrRange
}

// Fixed widths, big-endian as Kafka writes every number that is not a
// varint. Unsigned and signed types of a width share their bytes.

func AppendInt8(b []byte, v int8) []byte       { return append(b, byte(v)) }
func AppendInt16(b []byte, v int16) []byte     { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func AppendUint16(b []byte, v uint16) []byte   { return binary.BigEndian.AppendUint16(b, v) }
func AppendInt32(b []byte, v int32) []byte     { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func AppendUint32(b []byte, v uint32) []byte   { return binary.BigEndian.AppendUint32(b, v) }
func AppendInt64(b []byte, v int64) []byte     { return binary.BigEndian.AppendUint64(b, uint64(v)) }
func AppendUint64(b []byte, v uint64) []byte   { return binary.BigEndian.AppendUint64(b, v) }
func AppendFloat64(b []byte, v float64) []byte { return AppendUint64(b, math.Float64bits(v)) }

// AppendBool writes a bool as Kafka does: one byte, 1 or 0.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// PutInt16, PutInt32, PutUint32 and PutInt64 store v in the first bytes
// of b, for a field written after what it depends on (a frame's size
// prefix, a batch's length and CRC) or into a header laid out in place.

func PutInt16(b []byte, v int16)   { binary.BigEndian.PutUint16(b, uint16(v)) }
func PutInt32(b []byte, v int32)   { binary.BigEndian.PutUint32(b, uint32(v)) }
func PutUint32(b []byte, v uint32) { binary.BigEndian.PutUint32(b, v) }
func PutInt64(b []byte, v int64)   { binary.BigEndian.PutUint64(b, uint64(v)) }

// Int16, Uint16, Int32, Uint32, Int64 and Uint64 read a fixed width at
// the start of b, which the caller has checked is long enough (they
// panic as a slice index does otherwise). The Consume forms check.

func Int16(b []byte) int16   { return int16(binary.BigEndian.Uint16(b)) }
func Uint16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
func Int32(b []byte) int32   { return int32(binary.BigEndian.Uint32(b)) }
func Uint32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }
func Int64(b []byte) int64   { return int64(binary.BigEndian.Uint64(b)) }
func Uint64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func ConsumeInt8(b []byte) (int8, int) {
	if len(b) < 1 {
		return 0, errCodeTruncated
	}
	return int8(b[0]), 1
}

func ConsumeInt16(b []byte) (int16, int) {
	if len(b) < 2 {
		return 0, errCodeTruncated
	}
	return Int16(b), 2
}

func ConsumeUint16(b []byte) (uint16, int) {
	if len(b) < 2 {
		return 0, errCodeTruncated
	}
	return Uint16(b), 2
}

func ConsumeInt32(b []byte) (int32, int) {
	if len(b) < 4 {
		return 0, errCodeTruncated
	}
	return Int32(b), 4
}

func ConsumeUint32(b []byte) (uint32, int) {
	if len(b) < 4 {
		return 0, errCodeTruncated
	}
	return Uint32(b), 4
}

func ConsumeInt64(b []byte) (int64, int) {
	if len(b) < 8 {
		return 0, errCodeTruncated
	}
	return Int64(b), 8
}

func ConsumeFloat64(b []byte) (float64, int) {
	if len(b) < 8 {
		return 0, errCodeTruncated
	}
	return math.Float64frombits(Uint64(b)), 8
}

// ConsumeBool reads a bool as Kafka's Java reader does: any byte but 0 is
// true. Strict reports whether the byte was one AppendBool writes.
func ConsumeBool(b []byte) (v, strict bool, n int) {
	if len(b) < 1 {
		return false, false, errCodeTruncated
	}
	return b[0] != 0, b[0] <= 1, 1
}

// Varints: unsigned LEB128, 7 bits a byte, low first, the high bit set on
// every byte but the last. Kafka's varint and varlong are the zig-zag
// forms of int32 and int64 (0, -1, 1, -2, ... as 0, 1, 2, 3, ...).

// MaxUvarintLen is the longest varint of 32 bits; MaxUvarint64Len of 64.
const (
	MaxUvarintLen   = 5
	MaxUvarint64Len = 10
)

func AppendUvarint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func AppendUvarint64(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendVarint writes v zig-zag encoded, as Kafka's varint.
func AppendVarint(b []byte, v int32) []byte { return AppendUvarint(b, ZigZag32(v)) }

// AppendVarlong writes v zig-zag encoded, as Kafka's varlong.
func AppendVarlong(b []byte, v int64) []byte { return AppendUvarint64(b, ZigZag64(v)) }

func SizeUvarint(v uint32) int   { return (bits.Len32(v|1) + 6) / 7 }
func SizeUvarint64(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }
func SizeVarint(v int32) int     { return SizeUvarint(ZigZag32(v)) }
func SizeVarlong(v int64) int    { return SizeUvarint64(ZigZag64(v)) }

func ZigZag32(v int32) uint32   { return uint32(v<<1) ^ uint32(v>>31) }
func ZigZag64(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func UnZigZag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
func UnZigZag64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// consumeUvarintBits reads an unsigned varint that must fit in width
// bits (32 or 64). Its last possible byte may carry only the bits left:
// a varint that overflows is an error (errCodeOverflow), never a wrapped
// value, where Kafka's Java reader drops the extra bits. A varint longer
// than it needs to be (0x80 0x00 for 0) is read, as Java reads it; a
// caller that refuses it compares n with SizeUvarint64(v).
func consumeUvarintBits(b []byte, width uint) (uint64, int) {
	var v uint64
	for i, shift := 0, uint(0); ; i, shift = i+1, shift+7 {
		if i >= len(b) {
			return 0, errCodeTruncated
		}
		c := b[i]
		if shift+7 > width && c>>(width-shift) != 0 {
			return 0, errCodeOverflow
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
	}
}

// ConsumeUvarint reads an unsigned varint of 32 bits.
func ConsumeUvarint(b []byte) (uint32, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint32(b[0]), 1
	}
	v, n := consumeUvarintBits(b, 32)
	return uint32(v), n
}

// ConsumeUvarint64 reads an unsigned varint of 64 bits.
func ConsumeUvarint64(b []byte) (uint64, int) { return consumeUvarintBits(b, 64) }

// ConsumeVarint reads Kafka's varint (a zig-zag int32).
func ConsumeVarint(b []byte) (int32, int) {
	u, n := ConsumeUvarint(b)
	return UnZigZag32(u), n
}

// ConsumeVarlong reads Kafka's varlong (a zig-zag int64).
func ConsumeVarlong(b []byte) (int64, int) {
	u, n := ConsumeUvarint64(b)
	return UnZigZag64(u), n
}

// LengthForm is one of the ways Kafka writes the length before a string,
// a byte string or an array, null (a length of -1) included.
type LengthForm uint8

const (
	// Int16Length is a classic string's: an int16, -1 for null.
	Int16Length LengthForm = iota + 1
	// Int32Length is a classic byte string's or array's: an int32, -1
	// for null.
	Int32Length
	// CompactLength is every length's in a flexible version: a uvarint
	// of n+1, 0 for null.
	CompactLength
)

// String is the form's name, as a layout prints it.
func (f LengthForm) String() string {
	switch f {
	case Int16Length:
		return "int16"
	case Int32Length:
		return "int32"
	case CompactLength:
		return "uvarint"
	}
	return "LengthForm(?)"
}

// Max is the longest length the form holds.
func (f LengthForm) Max() int64 {
	switch f {
	case Int16Length:
		return math.MaxInt16
	case Int32Length:
		return math.MaxInt32
	}
	return math.MaxUint32 - 1
}

// Append writes length n, or null for any n < 0. n must be at most Max.
func (f LengthForm) Append(b []byte, n int) []byte {
	switch {
	case f == CompactLength:
		return AppendUvarint(b, uint32(max(n, -1)+1))
	case f == Int32Length:
		return AppendInt32(b, int32(max(n, -1)))
	}
	return AppendInt16(b, int16(max(n, -1)))
}

// Size is the number of bytes Append writes for n.
func (f LengthForm) Size(n int) int {
	switch f {
	case CompactLength:
		return SizeUvarint(uint32(max(n, -1) + 1))
	case Int32Length:
		return 4
	}
	return 2
}

// Consume reads a length: -1 is null; a length under -1 is
// errCodeRange. The length is an int64 because a compact one reaches
// 2^32-2, more than an int holds on a 32-bit machine; the caller checks
// it against the bytes left before it allocates for it.
func (f LengthForm) Consume(b []byte) (int64, int) {
	n, m := f.ConsumeRaw(b)
	if m >= 0 && n < -1 {
		return 0, errCodeRange
	}
	return n, m
}

// ConsumeRaw is Consume without the range check: a classic length under
// -1 is returned as it stands, for a reader that names it in its error.
func (f LengthForm) ConsumeRaw(b []byte) (int64, int) {
	switch f {
	case CompactLength:
		u, m := ConsumeUvarint(b)
		return int64(u) - 1, m
	case Int32Length:
		v, m := ConsumeInt32(b)
		return int64(v), m
	}
	v, m := ConsumeInt16(b)
	return int64(v), m
}

// ConsumeString reads a string (or byte string) in form f: its bytes,
// aliasing b, and whether it is null.
func (f LengthForm) ConsumeString(b []byte) (s []byte, null bool, n int) {
	l, m := f.Consume(b)
	switch {
	case m < 0:
		return nil, false, m
	case l == -1:
		return nil, true, m
	case l > int64(len(b)-m):
		return nil, false, errCodeTruncated
	}
	return b[m : m+int(l) : m+int(l)], false, m + int(l)
}

// AppendString writes s after its length in form f.
func (f LengthForm) AppendString(b []byte, s string) []byte {
	return append(f.Append(b, len(s)), s...)
}

// The tagged-field section that ends every struct of a flexible version:
// a uvarint count, then per field a uvarint tag, a uvarint size and that
// many bytes, in rising tag order.

// EmptyTaggedFields is the section with no field: one zero count.
const EmptyTaggedFields byte = 0

// AppendTaggedField writes one field of the section (the count is the
// caller's, AppendUvarint).
func AppendTaggedField(b []byte, tag uint32, data []byte) []byte {
	return append(AppendTaggedFieldHead(b, tag, len(data)), data...)
}

// AppendTaggedFieldHead writes the tag and the size of a field of n
// bytes, for a writer that then writes the bytes itself.
func AppendTaggedFieldHead(b []byte, tag uint32, n int) []byte {
	return AppendUvarint(AppendUvarint(b, tag), uint32(n))
}

// SizeTaggedField is the size of a field of n bytes with that tag.
func SizeTaggedField(tag uint32, n int) int {
	return SizeUvarint(tag) + SizeUvarint(uint32(n)) + n
}

// ConsumeTaggedField reads one field of the section: its tag and its
// bytes, aliasing b.
func ConsumeTaggedField(b []byte) (tag uint32, data []byte, n int) {
	tag, m := ConsumeUvarint(b)
	if m < 0 {
		return 0, nil, m
	}
	size, k := ConsumeUvarint(b[m:])
	if k < 0 {
		return 0, nil, k
	}
	m += k
	if uint64(size) > uint64(len(b)-m) {
		return 0, nil, errCodeTruncated
	}
	return tag, b[m : m+int(size) : m+int(size)], m + int(size)
}

// ConsumeTaggedFields steps over a whole section, count and fields,
// returning how many fields it holds.
func ConsumeTaggedFields(b []byte) (count int, n int) {
	if len(b) > 0 && b[0] == EmptyTaggedFields {
		return 0, 1
	}
	c, n := ConsumeUvarint(b)
	if n < 0 {
		return 0, n
	}
	if uint64(c) > uint64(len(b)-n) { // each field takes two bytes at least
		return 0, errCodeTruncated
	}
	for range c {
		_, _, k := ConsumeTaggedField(b[n:])
		if k < 0 {
			return 0, k
		}
		n += k
	}
	return int(c), n
}

// The int8 before a nullable struct: 1 when the struct follows, -1 when
// it is null.
const (
	Present int8 = 1
	Null    int8 = -1
)

// AppendPresence writes the marker.
func AppendPresence(b []byte, present bool) []byte {
	if present {
		return AppendInt8(b, Present)
	}
	return AppendInt8(b, Null)
}

// ConsumePresence reads the marker as Kafka's Java reader does: a
// negative byte is null, any other present. Strict reports whether it
// was 1 or -1, the markers AppendPresence writes.
func ConsumePresence(b []byte) (present, strict bool, n int) {
	m, n := ConsumeInt8(b)
	if n < 0 {
		return false, false, n
	}
	return m >= 0, m == Present || m == Null, n
}

// Frames. Every request and response is an int32 size and that many
// bytes; the size counts what follows it.

// FrameSizeLen is the size prefix's length.
const FrameSizeLen = 4

// AppendFrameStart reserves the size prefix of a frame that starts at
// len(b); FinishFrame fills it in once the frame is written.
func AppendFrameStart(b []byte) (out []byte, start int) {
	return append(b, 0, 0, 0, 0), len(b)
}

// FinishFrame writes the size of the frame whose prefix is at b[start:].
func FinishFrame(b []byte, start int) {
	PutInt32(b[start:], int32(len(b)-start-FrameSizeLen))
}

// ConsumeFrameSize reads a frame's size prefix. A negative size is
// errCodeRange.
func ConsumeFrameSize(b []byte) (int32, int) {
	size, n := ConsumeInt32(b)
	if n >= 0 && size < 0 {
		return 0, errCodeRange
	}
	return size, n
}

// RequestHead is the start every request header version shares: the API
// key, the API version and the correlation id (header v1 and v2 go on
// with the client id, v2 with a tagged-field section).
type RequestHead struct {
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
}

// RequestHeadLen is the length of a RequestHead on the wire.
const RequestHeadLen = 8

// AppendRequestHead writes h.
func AppendRequestHead(b []byte, h RequestHead) []byte {
	return AppendUint64(b, h.packed())
}

// packed is h as the one big-endian int64 its bytes make.
func (h RequestHead) packed() uint64 {
	return uint64(uint16(h.APIKey))<<48 | uint64(uint16(h.APIVersion))<<32 | uint64(uint32(h.CorrelationID))
}

// PutRequestHead stores h in b[:RequestHeadLen], over the head of a
// request already written.
func PutRequestHead(b []byte, h RequestHead) {
	binary.BigEndian.PutUint64(b, h.packed())
}

// ConsumeRequestHead reads the head at the start of b, a request frame's
// body (the size prefix is not part of it).
func ConsumeRequestHead(b []byte) (RequestHead, int) {
	if len(b) < RequestHeadLen {
		return RequestHead{}, errCodeTruncated
	}
	head := Uint64(b)
	return RequestHead{APIKey: int16(head >> 48), APIVersion: int16(head >> 32), CorrelationID: int32(head)}, RequestHeadLen
}

// ConsumeClientID reads the client id of request header v1 and v2: a
// classic nullable string, in every version, flexible or not.
func ConsumeClientID(b []byte) (id []byte, null bool, n int) {
	return Int16Length.ConsumeString(b)
}

// ConsumeResponseCorrelationID reads the correlation id that starts
// every response header version (v1 goes on with a tagged-field
// section).
func ConsumeResponseCorrelationID(b []byte) (int32, int) { return ConsumeInt32(b) }
