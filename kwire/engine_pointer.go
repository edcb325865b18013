package kwire

import (
	"fmt"
	"reflect"
	"unsafe"
)

// pointer is an address inside a Go value (a message, a field of it, an
// array element) or inside a buffer being written. It is the engine's one
// spelling of unsafe memory access: fields are reached by add with an
// offset the plan took from reflect, and read and written through the
// typed accessors below, each of which names the Go type the plan found
// at that place. No other file of the engine converts an address.
type pointer struct{ p unsafe.Pointer }

// pointerOf is the address of v.
func pointerOf[T any](v *T) pointer { return pointer{unsafe.Pointer(v)} }

// valuePointer is the address a reflect.Value of pointer kind holds.
func valuePointer(v reflect.Value) pointer { return pointer{v.UnsafePointer()} }

// sliceData is the address of s's first element.
func sliceData[T any](s []T) pointer { return pointer{unsafe.Pointer(unsafe.SliceData(s))} }

// stringData is the address of s's first byte.
func stringData(s string) pointer { return pointer{unsafe.Pointer(unsafe.StringData(s))} }

func (p pointer) isNil() bool { return p.p == nil }

// add is the address off bytes past p: a field at its offset, an element
// at its index times the stride.
func (p pointer) add(off uintptr) pointer { return pointer{unsafe.Add(p.p, off)} }

// at is add for an int offset (a position in a buffer).
func (p pointer) at(n int) pointer { return pointer{unsafe.Add(p.p, n)} }

// as is p as a pointer to T: for the engine's own compiled data kept
// behind an untyped reference (instr.ref).
func as[T any](p pointer) *T { return (*T)(p.p) }

// advance is the element after p in an array of T.
func advance[T any](p *T) *T { return (*T)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(*p))) }

// indexIn is p's index in the array of T that starts at first.
func indexIn[T any](first, p *T) int {
	return int((uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(first))) / unsafe.Sizeof(*p))
}

// The typed accessors: p as a pointer to a Go value of that type.

func (p pointer) int8() *int8               { return (*int8)(p.p) }
func (p pointer) uint8() *uint8             { return (*uint8)(p.p) }
func (p pointer) bool() *bool               { return (*bool)(p.p) }
func (p pointer) int16() *int16             { return (*int16)(p.p) }
func (p pointer) uint16() *uint16           { return (*uint16)(p.p) }
func (p pointer) int32() *int32             { return (*int32)(p.p) }
func (p pointer) uint32() *uint32           { return (*uint32)(p.p) }
func (p pointer) int64() *int64             { return (*int64)(p.p) }
func (p pointer) uint64() *uint64           { return (*uint64)(p.p) }
func (p pointer) float64() *float64         { return (*float64)(p.p) }
func (p pointer) word() *uintptr            { return (*uintptr)(p.p) }
func (p pointer) uuid() *UUID               { return (*UUID)(p.p) }
func (p pointer) string() *string           { return (*string)(p.p) }
func (p pointer) stringPtr() **string       { return (**string)(p.p) }
func (p pointer) bytes() *[]byte            { return (*[]byte)(p.p) }
func (p pointer) int32s() *[]int32          { return (*[]int32)(p.p) }
func (p pointer) strings() *[]string        { return (*[]string)(p.p) }
func (p pointer) slice() *sliceHeader       { return (*sliceHeader)(p.p) }
func (p pointer) unknownTags() *UnknownTags { return (*UnknownTags)(p.p) }

// unknownFields is the one word of the UnknownTags at p, its fields (nil
// when it holds none): checkLayout checks that an UnknownTags is that word.
func (p pointer) unknownFields() **[]TaggedField     { return (**[]TaggedField)(p.p) }
func (p pointer) ptr() *pointer                      { return (*pointer)(p.p) }
func (p pointer) block8() *[8]byte                   { return (*[8]byte)(p.p) }
func (p pointer) value(t reflect.Type) reflect.Value { return reflect.NewAt(t, p.p).Elem() }

// stringOf is the n bytes at p as a string; they must never change.
func (p pointer) stringOf(n int) string { return unsafe.String((*byte)(p.p), n) }

// bytesOf is the slice of n bytes and capacity c at p, put together
// without the checks of unsafe.Slice and reslicing: the caller keeps
// n <= c.
func (p pointer) bytesOf(n, c int) []byte {
	return *(*[]byte)(unsafe.Pointer(&sliceHeader{p, n, c}))
}

// bits is the n-byte (1, 2, 4 or 8) unsigned value at p.
func (p pointer) bits(n uintptr) uint64 {
	switch n {
	case 1:
		return uint64(*(*uint8)(p.p))
	case 2:
		return uint64(*(*uint16)(p.p))
	case 4:
		return uint64(*(*uint32)(p.p))
	}
	return *(*uint64)(p.p)
}

// zero clears the n bytes at p, which hold no pointers: a word or less
// in one store.
func (p pointer) zero(n uintptr) {
	switch n {
	case 8:
		*(*uint64)(p.p) = 0
	case 4:
		*(*uint32)(p.p) = 0
	case 2:
		*(*uint16)(p.p) = 0
	case 1:
		*(*uint8)(p.p) = 0
	default:
		clear(unsafe.Slice((*byte)(p.p), n))
	}
}

// put16, put32 and put64 store v big-endian at p, which must have room.
// The byte stores compile to one swapped store, as binary.BigEndian's do.
func put16(p pointer, v uint16) {
	b := (*[2]byte)(p.p)
	b[0], b[1] = byte(v>>8), byte(v)
}

func put32(p pointer, v uint32) {
	b := (*[4]byte)(p.p)
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

func put64(p pointer, v uint64) {
	b := (*[8]byte)(p.p)
	b[0], b[1], b[2], b[3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	b[4], b[5], b[6], b[7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

// get16, get32 and get64 load a big-endian value at p.
func get16(p pointer) uint16 {
	b := (*[2]byte)(p.p)
	return uint16(b[0])<<8 | uint16(b[1])
}

func get32(p pointer) uint32 {
	b := (*[4]byte)(p.p)
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func get64(p pointer) uint64 {
	b := (*[8]byte)(p.p)
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// copyShort copies l bytes (at most maxInlineCopy) from src to base+at
// without a call or a loop over words: in two 16- or 8-byte blocks,
// the second overlapping the first rather than reaching past l, or byte
// by byte under 8. It forms base+at only when there is a byte to copy:
// at may be the end of the buffer, and a pointer one past an allocation
// is invalid (checkptr, under -race, says so).
func copyShort(base pointer, at int, src pointer, l int) {
	if l == 0 {
		return
	}
	// Written on unsafe.Pointer, not through pointer's methods, so that
	// it inlines into the loops: as a call it cost every short string
	// (the Encode Heartbeat row, interop/README.md, issue #18).
	dst, from := unsafe.Add(base.p, at), src.p
	switch {
	case l >= 16:
		*(*[16]byte)(dst) = *(*[16]byte)(from)
		*(*[16]byte)(unsafe.Add(dst, l-16)) = *(*[16]byte)(unsafe.Add(from, l-16))
	case l >= 8:
		*(*[8]byte)(dst) = *(*[8]byte)(from)
		*(*[8]byte)(unsafe.Add(dst, l-8)) = *(*[8]byte)(unsafe.Add(from, l-8))
	default:
		for i := range l {
			*(*byte)(unsafe.Add(dst, i)) = *(*byte)(unsafe.Add(from, i))
		}
	}
}

// The layout of Go's strings, slices and interfaces, as the engine reads
// and writes them: a pointer word, then int words. The sizes and offsets
// come from these types, and checkLayout holds them to the runtime's own
// values once at start-up, so that no offset inside a Go value is a
// literal that holds on one word size only.

// sliceHeader is the runtime layout of any Go slice.
type sliceHeader struct {
	data pointer
	len  int
	cap  int
}

// stringHeader is the runtime layout of a Go string.
type stringHeader struct {
	data pointer
	len  int
}

// eface is the runtime layout of an empty interface.
type eface struct {
	typ  goType
	data pointer
}

// interfaceOf is the runtime layout of *v.
func interfaceOf(v *any) *eface { return (*eface)(unsafe.Pointer(v)) }

const (
	ptrSize = unsafe.Sizeof(pointer{}) // a pointer word
	intSize = unsafe.Sizeof(int(0))    // a length word

	// uint64Align is what Go aligns a uint64 to: 8, or 4 on 32-bit
	// machines, whose 8-byte loads are two 4-byte ones.
	uint64Align = unsafe.Alignof(uint64(0))

	stringLenOff = unsafe.Offsetof(stringHeader{}.len)
	sliceLenOff  = unsafe.Offsetof(sliceHeader{}.len)
	sliceSize    = unsafe.Sizeof(sliceHeader{})
	ifaceTypeOff = unsafe.Offsetof(eface{}.typ)
	ifaceDataOff = unsafe.Offsetof(eface{}.data)

	stringHeaderSize = unsafe.Sizeof("")
	taggedFieldSize  = unsafe.Sizeof(TaggedField{})
)

func init() {
	if err := checkLayout(); err != nil {
		panic(err)
	}
}

// checkLayout compares the header types above with real strings, slices
// and interfaces.
func checkLayout() error {
	s := "layout"
	sh := (*stringHeader)(unsafe.Pointer(&s))
	b := make([]byte, 3, 5)
	bh := (*sliceHeader)(unsafe.Pointer(&b))
	x := new(int)
	var i any = x
	ih := interfaceOf(&i)
	switch {
	case unsafe.Sizeof(s) != unsafe.Sizeof(stringHeader{}) || sh.data != stringData(s) || sh.len != len(s):
		return fmt.Errorf("kwire: a string is not laid out as stringHeader (%d bytes)", unsafe.Sizeof(s))
	case unsafe.Sizeof(b) != sliceSize || bh.data != sliceData(b) || bh.len != len(b) || bh.cap != cap(b):
		return fmt.Errorf("kwire: a slice is not laid out as sliceHeader (%d bytes)", unsafe.Sizeof(b))
	case unsafe.Sizeof(i) != unsafe.Sizeof(eface{}) || ih.data != pointerOf(x):
		return fmt.Errorf("kwire: an interface is not laid out as eface (%d bytes)", unsafe.Sizeof(i))
	case unsafe.Sizeof(UnknownTags{}) != ptrSize:
		return fmt.Errorf("kwire: UnknownTags is not one pointer word")
	}
	return nil
}

// goType is a runtime type, as the runtime's allocation entry point for
// reflect takes it: the decoder allocates through it, which the runtime
// keeps for codecs (go.dev/issue/67401), a zeroed array of a type without
// building a reflect.Value or putting a slice header on the heap. The
// public ways cost more per allocation than a small message's whole
// decode can spare (interop/README.md, issue #25): reflect.Value.Grow on
// an empty slice, even with its *[]T type looked up once per plan, about
// 230 instructions more per array, reflect.New of a named type about 150
// more per value, +4 to +24 % on the small decode rows.
type goType struct{ p unsafe.Pointer }

// runtimeType is the runtime type behind t.
func runtimeType(t reflect.Type) goType {
	return goType{(*eface)(unsafe.Pointer(&t)).data.p} // an interface's second word
}

// id is a number that tells runtime types apart.
func (t goType) id() uintptr { return uintptr(t.p) }

// newValue allocates a zeroed value of type t: an array of one, which the
// runtime allocates as it would the one value.
func newValue(t goType) pointer { return newArray(t, 1) }

// newArray allocates n zeroed values of type t.
func newArray(t goType, n int) pointer { return pointer{unsafeNewArray(t.p, n)} }

//go:linkname unsafeNewArray reflect.unsafe_NewArray
func unsafeNewArray(typ unsafe.Pointer, n int) unsafe.Pointer

// first is the address of s's first element (or where it would be).
func first[T any](s []T) *T { return unsafe.SliceData(s) }

// elemAt is the i-th T of the array at p.
func elemAt[T any](p pointer, i int) *T {
	return (*T)(unsafe.Add(p.p, uintptr(i)*unsafe.Sizeof(*new(T))))
}

// uint32sOf and uint64sOf are the n values at p as a slice.
func (p pointer) uint32sOf(n int) []uint32 { return unsafe.Slice((*uint32)(p.p), n) }
func (p pointer) uint64sOf(n int) []uint64 { return unsafe.Slice((*uint64)(p.p), n) }

// noEscape returns p hidden from escape analysis, for a call through a
// function value that would otherwise move what p points at to the heap;
// the callee must not keep p past the call. Escape analysis follows the
// pointer unsafe.Add is given, not the offset, so p goes in as the
// offset from nil: one expression, a pointer again with no call between
// (a stack move in between would leave a uintptr held in memory stale).
func noEscape[T any](p *T) *T {
	return (*T)(unsafe.Add(nil, uintptr(unsafe.Pointer(p))))
}
