package kwire

import (
	"math"
	"unsafe"
)

// wireType is the one home of what kwire does with one wire type (kind):
// every consumer that used to switch on the kind looks its entry up here,
// so that a new wire type is one entry, as protobuf-go's pointerCoderFuncs
// are. Each function takes the op and the address of the value.
//
// The compiled programs (program.go) keep their own short cases for the
// common forms: they are the fast path over these entries, held to the
// same bytes by the property and interop tests.
type wireType struct {
	name  string
	fixed int // wire size of a fixed-width type, 0 for the others
	// size and appendTo are the value's wire size and its bytes.
	size     func(o *op, fp unsafe.Pointer) (int, error)
	appendTo func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error)
	// isDefault: the value equals the field's schema default (tagged
	// fields are written only when it does not); isZero: it is Go's zero
	// value (how Go code says "not set").
	isDefault func(o *op, fp unsafe.Pointer) bool
	isZero    func(o *op, fp unsafe.Pointer) bool
}

// wireTypes is indexed by kind. It is filled in init because its
// functions reach back to it through nested values.
var wireTypes [kFixedRun + 1]wireType

func init() {
	fixed := func(n int) func(*op, unsafe.Pointer) (int, error) {
		return func(*op, unsafe.Pointer) (int, error) { return n, nil }
	}
	zero8 := func(_ *op, fp unsafe.Pointer) bool { return *(*uint8)(fp) == 0 }
	zero16 := func(_ *op, fp unsafe.Pointer) bool { return *(*uint16)(fp) == 0 }
	zero32 := func(_ *op, fp unsafe.Pointer) bool { return *(*uint32)(fp) == 0 }
	zero64 := func(_ *op, fp unsafe.Pointer) bool { return *(*uint64)(fp) == 0 }
	zeroPtr := func(_ *op, fp unsafe.Pointer) bool { return *(*unsafe.Pointer)(fp) == nil }
	zeroLen := func(_ *op, fp unsafe.Pointer) bool { return (*sliceHeader)(fp).len == 0 }
	i32Default := func(o *op, fp unsafe.Pointer) bool { return int64(*(*int32)(fp)) == o.def.i }
	u32Default := func(o *op, fp unsafe.Pointer) bool { return int64(*(*uint32)(fp)) == o.def.i }
	i64Default := func(o *op, fp unsafe.Pointer) bool { return *(*int64)(fp) == o.def.i }
	append32 := func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) { return appendInt32(b, *(*int32)(fp)), nil }
	append64 := func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) { return appendInt64(b, *(*int64)(fp)), nil }
	uvarint := wireType{name: "uvarint",
		size: func(_ *op, fp unsafe.Pointer) (int, error) { return uvarintSize(*(*uint32)(fp)), nil },
		appendTo: func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) {
			return appendUvarint(b, *(*uint32)(fp)), nil
		},
		isZero: zero32,
	}

	wireTypes = [...]wireType{
		kInt8: {name: "int8", fixed: 1, size: fixed(1), isZero: zero8,
			appendTo:  func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) { return append(b, *(*uint8)(fp)), nil },
			isDefault: func(o *op, fp unsafe.Pointer) bool { return int64(*(*int8)(fp)) == o.def.i }},
		kInt16: {name: "int16", fixed: 2, size: fixed(2), isZero: zero16,
			appendTo:  func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) { return appendInt16(b, *(*int16)(fp)), nil },
			isDefault: func(o *op, fp unsafe.Pointer) bool { return int64(*(*int16)(fp)) == o.def.i }},
		kInt32: {name: "int32", fixed: 4, size: fixed(4), isZero: zero32, appendTo: append32, isDefault: i32Default},
		kInt64: {name: "int64", fixed: 8, size: fixed(8), isZero: zero64, appendTo: append64, isDefault: i64Default},
		kUint16: {name: "uint16", fixed: 2, size: fixed(2), isZero: zero16,
			appendTo:  func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) { return appendInt16(b, *(*int16)(fp)), nil },
			isDefault: func(o *op, fp unsafe.Pointer) bool { return int64(*(*uint16)(fp)) == o.def.i }},
		kUint32: {name: "uint32", fixed: 4, size: fixed(4), isZero: zero32, appendTo: append32, isDefault: u32Default},
		kFloat64: {name: "float64", fixed: 8, size: fixed(8), isZero: zero64, appendTo: append64,
			isDefault: func(o *op, fp unsafe.Pointer) bool {
				f := *(*float64)(fp)
				return f == o.def.f || (math.IsNaN(f) && math.IsNaN(o.def.f))
			}},
		kBool: {name: "bool", fixed: 1, size: fixed(1), isZero: zero8,
			appendTo: func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) {
				if *(*bool)(fp) {
					return append(b, 1), nil
				}
				return append(b, 0), nil
			},
			isDefault: func(o *op, fp unsafe.Pointer) bool { return *(*bool)(fp) == o.def.b }},
		kVarint: {name: "varint", isZero: zero32, isDefault: i32Default,
			size: func(_ *op, fp unsafe.Pointer) (int, error) { return varintSize(*(*int32)(fp)), nil },
			appendTo: func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) {
				return appendVarint(b, *(*int32)(fp)), nil
			}},
		kVarlong: {name: "varlong", isZero: zero64, isDefault: i64Default,
			size: func(_ *op, fp unsafe.Pointer) (int, error) { return varlongSize(*(*int64)(fp)), nil },
			appendTo: func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) {
				return appendVarlong(b, *(*int64)(fp)), nil
			}},
		kUvarint:   with(uvarint, func(t *wireType) { t.isDefault = u32Default }),
		kUvarint32: with(uvarint, func(t *wireType) { t.isDefault = i32Default }),
		kUUID: {name: "uuid", fixed: 16, size: fixed(16),
			appendTo:  func(b []byte, _ *op, fp unsafe.Pointer) ([]byte, error) { return append(b, (*(*UUID)(fp))[:]...), nil },
			isDefault: func(_ *op, fp unsafe.Pointer) bool { return *(*UUID)(fp) == UUID{} },
			isZero:    func(_ *op, fp unsafe.Pointer) bool { return *(*UUID)(fp) == UUID{} }},
		kString: {name: "string",
			size: func(o *op, fp unsafe.Pointer) (int, error) {
				s := *(*string)(fp)
				return lengthSize(len(s), o.compact, false) + len(s), nil
			},
			appendTo:  func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) { return appendString(b, o, *(*string)(fp)) },
			isDefault: func(o *op, fp unsafe.Pointer) bool { return *(*string)(fp) == o.def.s },
			isZero:    func(_ *op, fp unsafe.Pointer) bool { return *(*string)(fp) == "" }},
		kNullString: {name: "nullable string", isZero: zeroPtr,
			size: func(o *op, fp unsafe.Pointer) (int, error) {
				sp := *(**string)(fp)
				if sp == nil {
					return lengthSize(-1, o.compact, false), nil
				}
				return lengthSize(len(*sp), o.compact, false) + len(*sp), nil
			},
			appendTo: func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) {
				sp := *(**string)(fp)
				if sp == nil {
					if !o.nullable {
						return b, newFieldError(ErrNullNotAllowed, -1, "")
					}
					return appendLength(b, -1, o.compact, false), nil
				}
				return appendString(b, o, *sp)
			},
			isDefault: func(o *op, fp unsafe.Pointer) bool {
				sp := *(**string)(fp)
				if o.def.null {
					return sp == nil
				}
				return sp != nil && *sp == o.def.s
			}},
		kBytes: {name: "bytes", isZero: zeroLen,
			size: func(o *op, fp unsafe.Pointer) (int, error) {
				bs := *(*[]byte)(fp)
				if bs == nil && o.nullable {
					return lengthSize(-1, o.compact, true), nil
				}
				return lengthSize(len(bs), o.compact, true) + len(bs), nil
			},
			appendTo: func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) {
				bs := *(*[]byte)(fp)
				if bs == nil && o.nullable {
					return appendLength(b, -1, o.compact, true), nil
				}
				b = appendLength(b, len(bs), o.compact, true)
				return append(b, bs...), nil
			},
			isDefault: func(o *op, fp unsafe.Pointer) bool {
				bs := *(*[]byte)(fp)
				if o.def.null {
					return bs == nil
				}
				return bs != nil && len(bs) == 0
			}},
		kArray: {name: "array", isZero: zeroLen, size: sizeArray,
			appendTo: func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) {
				return encodeArray(b, o, (*sliceHeader)(fp))
			},
			isDefault: func(o *op, fp unsafe.Pointer) bool {
				h := (*sliceHeader)(fp)
				if o.def.null {
					return h.data == nil
				}
				return h.len == 0
			}},
		kStruct: {name: "struct",
			size:      func(o *op, fp unsafe.Pointer) (int, error) { return sizeStruct(o.sub, fp) },
			appendTo:  func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) { return encodeStruct(b, o.sub, fp) },
			isDefault: func(o *op, fp unsafe.Pointer) bool { return structIsDefault(o.sub, fp, isDefault) },
			isZero:    func(o *op, fp unsafe.Pointer) bool { return structIsDefault(o.sub, fp, isUnset) }},
		kStructPtr: {name: "nullable struct", isZero: zeroPtr, size: sizeStructPtr,
			appendTo: func(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) {
				sp := *(*unsafe.Pointer)(fp)
				if !o.nullable {
					if sp == nil {
						return b, newFieldError(ErrNullNotAllowed, -1, "")
					}
					return encodeStruct(b, o.sub, sp)
				}
				if sp == nil {
					return append(b, 0xff), nil
				}
				return encodeStruct(append(b, 1), o.sub, sp)
			},
			isDefault: func(o *op, fp unsafe.Pointer) bool {
				sp := *(*unsafe.Pointer)(fp)
				if o.def.null {
					return sp == nil
				}
				return sp == nil || structIsDefault(o.sub, sp, isDefault)
			}},
		kFixedRun: {name: "fixed run"}, // only in hot lists, never a value
	}
}

func with(t wireType, change func(*wireType)) wireType {
	change(&t)
	return t
}

func sizeArray(o *op, fp unsafe.Pointer) (int, error) {
	h := (*sliceHeader)(fp)
	if h.data == nil && o.nullable {
		return lengthSize(-1, o.compact, true), nil
	}
	n := lengthSize(h.len, o.compact, true)
	if s := o.elem.kind.fixedSize(); s > 0 {
		return n + s*h.len, nil
	}
	size := wireTypes[o.elem.kind].size
	for i := 0; i < h.len; i++ {
		s, err := size(o.elem, unsafe.Add(h.data, uintptr(i)*o.elemSize))
		if err != nil {
			return 0, withinIndex(err, i)
		}
		n += s
	}
	return n, nil
}

func sizeStructPtr(o *op, fp unsafe.Pointer) (int, error) {
	sp := *(*unsafe.Pointer)(fp)
	marker := 0
	if o.nullable {
		marker = 1
	}
	if sp == nil {
		if !o.nullable {
			return 0, newFieldError(ErrNullNotAllowed, -1, "")
		}
		return marker, nil
	}
	s, err := sizeStruct(o.sub, sp)
	return marker + s, err
}

// The per-value entry points every consumer calls.

func (k kind) String() string { return wireTypes[k].name }

// fixedSize is the wire size of fixed-width kinds, 0 for the others.
func (k kind) fixedSize() int { return wireTypes[k].fixed }

// encodeValue appends one field or array element stored at fp.
func encodeValue(b []byte, o *op, fp unsafe.Pointer) ([]byte, error) {
	return wireTypes[o.kind].appendTo(b, o, fp)
}

// sizeValue is the number of bytes encodeValue would append.
func sizeValue(o *op, fp unsafe.Pointer) (int, error) { return wireTypes[o.kind].size(o, fp) }

// isDefault reports whether the value at fp equals the field's schema
// default. Tagged fields are written only when this is false.
func isDefault(o *op, fp unsafe.Pointer) bool { return wireTypes[o.kind].isDefault(o, fp) }

// isZero reports whether the value at fp is Go's zero value (for a nested
// struct: every field unset).
func isZero(o *op, fp unsafe.Pointer) bool { return wireTypes[o.kind].isZero(o, fp) }
