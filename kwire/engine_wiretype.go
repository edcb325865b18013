package kwire

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/kwirelabs/kwire/kwire/wire"
)

// kind is a field's wire type, decided once from its Go type and tag.
type kind uint8

const (
	kInt8 kind = iota
	kInt16
	kInt32
	kInt64
	kUint16
	kUint32
	kFloat64
	kBool
	kVarint    // int32, zig-zag
	kVarlong   // int64, zig-zag
	kUvarint   // uint32
	kUvarint32 // int32 written as an unsigned varint
	kUUID
	kString     // string
	kNullString // *string
	kBytes      // []byte (also records)
	kArray      // []T
	kStruct     // T
	kStructPtr  // *T, nullable struct with a presence marker
	kFixedRun   // consecutive fixed-width fields, coded as one block
)

// wireType is the one home of what kwire does with one wire type (kind):
// every consumer that used to switch on the kind looks its entry up here,
// as protobuf-go's pointerCoderFuncs are. Each function takes the field
// plan and the address of the value.
//
// A new wire type is a kind constant above and an entry in init below:
// the Go types and keys that pick it (goType, key, keys), resolve for a
// container, whether it can be null, has a length and can be an array
// element, its size, bytes and decode, default and zero tests and their
// flat form (flatCheck), default parsing and storing, minimum wire size,
// both fillers, and the tracer's name and view; a fixed width must be one
// the fused runs copy (1, 2, 4, 8 or 16 bytes). A plan holding a type
// whose entry lacks a needed piece fails to build (lacks). Its fast
// cases in the hot loops, if it is to have them, are an entry in
// genforms/forms.go (a fixed width, or a payload over the length forms),
// from which engine_codec_gen.go is generated.
//
// Code outside this file still keys on kinds in short cases for common
// forms, with these entries (or the general paths) behind them, held to
// the same bytes by the property and interop tests: the compiled
// programs (genforms' compileForm, the fixed runs' bool slots),
// decodeArray's int32 and struct elements (engine_decode.go), encodeArray's
// int32, int64 and struct elements (engine_encode.go), and resetList
// (engine_reset.go), which goes into a struct field's nested plan (kStruct).
type wireType struct {
	// name is the wire type as Schema's Field.Wire, the tracer and errors
	// spell it; wireName, when set, refines it by the field plan's flags.
	name     string
	wireName func(o *fieldPlan) string
	fixed    int // wire size of a fixed-width type, 0 for the others
	// goType tells the Go types the wire type is for. Among wire types
	// of one Go type, key (varint, uvarint) picks the one that has it,
	// "" the one for a field without either. keys are the field keys
	// the type accepts that others refuse.
	goType func(gt reflect.Type) bool
	key    string
	keys   []string
	// resolve completes a container's field plan: its plan or its element.
	resolve func(b *builder, o *fieldPlan, gt reflect.Type, t fieldTag, v int16, flex bool) error
	// canBeNull: the Go type can hold null; lengthPrefixed: the value
	// is written after a length, which compact makes a uvarint;
	// notAnElement: an array cannot hold it, as its Go value is a
	// pointer whose nil is null and array elements are never null.
	canBeNull, lengthPrefixed, notAnElement bool
	// size and appendTo are the value's wire size and its bytes; decode
	// reads them back at d.off into fp (decodeByWireType).
	size     func(o *fieldPlan, fp pointer) (int, error)
	appendTo func(b []byte, o *fieldPlan, fp pointer) ([]byte, error)
	decode   func(d *decodeState, o *fieldPlan, fp pointer) error
	// flatCheck compiles isDefault (isUnset with c.orZero) into flat
	// compares, when the field's default has a flat form (engine_program.go).
	flatCheck func(c *checkList, o *fieldPlan, off uintptr) bool
	// isDefault: the value equals the field's schema default (tagged
	// fields are written only when it does not); isZero: it is Go's zero
	// value (how Go code says "not set").
	isDefault func(o *fieldPlan, fp pointer) bool
	isZero    func(o *fieldPlan, fp pointer) bool
	// minWire is the fewest bytes one value takes on the wire; a nested
	// plan's own minimum comes from subMin.
	minWire func(o *fieldPlan, subMin func(*plan) int) int
	// parseDefault reads the tag's default= text; its errors call the
	// field by name, its wire type as wireTypeName gives it. nil: the
	// type takes no default.
	parseDefault func(name, raw string) (defaultValue, error)
	// nonZeroDefault: the parsed default is not Go's zero value, so
	// decoding must store it. nil: never.
	nonZeroDefault func(o *fieldPlan) bool
	// flattenDefault compiles a field's non-zero default into out (see
	// flatDefaults), the field's struct sitting at base in the one being
	// decoded; setDefault stores one that is not a flat store of bits.
	// nil: the type has no non-zero default.
	flattenDefault func(o *fieldPlan, base uintptr, out *flatDefaults)
	setDefault     func(o *fieldPlan, fp pointer)
	// fillMinimal stores the value FillMinimal gives (nil: Go's zero
	// value); fillRandom stores one FillRandom draws, null when maybeNull.
	fillMinimal func(o *fieldPlan, fp pointer, depth int)
	fillRandom  func(f *randomFiller, o *fieldPlan, fp pointer, depth int, maybeNull bool)
	// traceType is the type a layout trace gives a container's node,
	// whose parts and values its decode reports; nil: a leaf, shown by
	// describe (nil: fmt.Sprint of the Go value).
	traceType func(o *fieldPlan) string
	describe  func(o *fieldPlan, p pointer) string
}

// wireTypes is indexed by kind. It is filled in init because its
// functions reach back to it through nested values.
var wireTypes [kFixedRun + 1]wireType

func init() {
	fixed := func(n int) func(*fieldPlan, pointer) (int, error) {
		return func(*fieldPlan, pointer) (int, error) { return n, nil }
	}
	zero8 := func(_ *fieldPlan, fp pointer) bool { return *fp.uint8() == 0 }
	zero16 := func(_ *fieldPlan, fp pointer) bool { return *fp.uint16() == 0 }
	zero32 := func(_ *fieldPlan, fp pointer) bool { return *fp.uint32() == 0 }
	zero64 := func(_ *fieldPlan, fp pointer) bool { return *fp.uint64() == 0 }
	zeroPtr := func(_ *fieldPlan, fp pointer) bool { return (*fp.ptr()).isNil() }
	zeroLen := func(_ *fieldPlan, fp pointer) bool { return fp.slice().len == 0 }
	i32Default := func(o *fieldPlan, fp pointer) bool { return int64(*fp.int32()) == o.def.i }
	u32Default := func(o *fieldPlan, fp pointer) bool { return int64(*fp.uint32()) == o.def.i }
	i64Default := func(o *fieldPlan, fp pointer) bool { return *fp.int64() == o.def.i }
	append32 := func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
		return wire.AppendInt32(b, *fp.int32()), nil
	}
	append64 := func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
		return wire.AppendInt64(b, *fp.int64()), nil
	}
	intNonZero := func(o *fieldPlan) bool { return o.def.i != 0 }
	flatInt := flatStore(func(d *defaultValue) uint64 { return uint64(d.i) })
	flatOther := func(o *fieldPlan, base uintptr, out *flatDefaults) {
		out.other = append(out.other, placedDefault{off: base + o.offset, o: o})
	}
	minOne := func(*fieldPlan, func(*plan) int) int { return 1 }
	minLength := func(classic int) func(*fieldPlan, func(*plan) int) int {
		return func(o *fieldPlan, _ func(*plan) int) int {
			if o.compact() {
				return 1
			}
			return classic
		}
	}
	is := func(k reflect.Kind) func(reflect.Type) bool {
		return func(gt reflect.Type) bool { return gt.Kind() == k }
	}
	pointerTo := func(k reflect.Kind) func(reflect.Type) bool {
		return func(gt reflect.Type) bool { return gt.Kind() == reflect.Pointer && gt.Elem().Kind() == k }
	}
	varint := []string{"varint"}
	rand8 := func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) {
		*fp.int8() = int8(f.integer(8))
	}
	rand16 := func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) {
		*fp.int16() = int16(f.integer(16))
	}
	rand32 := func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) {
		*fp.int32() = int32(f.integer(32))
	}
	rand64 := func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) { *fp.int64() = f.integer(64) }
	onlyNull := func(name, raw string) (defaultValue, error) {
		if raw != "null" {
			return defaultValue{}, fmt.Errorf("%q on a %s field: only null can be its default", raw, name)
		}
		return defaultValue{null: true}, nil
	}
	uvarint := wireType{name: "uvarint", key: "uvarint", keys: []string{"uvarint"}, minWire: minOne, decode: (*decodeState).decodeUvarint, fillRandom: rand32, nonZeroDefault: intNonZero, flattenDefault: flatInt, flatCheck: flatNumber,
		parseDefault: unsignedDefault(math.MaxUint32),
		size:         func(_ *fieldPlan, fp pointer) (int, error) { return wire.SizeUvarint(*fp.uint32()), nil },
		appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
			return wire.AppendUvarint(b, *fp.uint32()), nil
		},
		isZero: zero32,
	}

	wireTypes = [...]wireType{
		kInt8: {name: "int8", flatCheck: flatNumber, goType: is(reflect.Int8), fixed: 1, isZero: zero8, fillRandom: rand8,
			parseDefault: signedDefault(8), nonZeroDefault: intNonZero, flattenDefault: flatInt,
			appendTo:  func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) { return append(b, *fp.uint8()), nil },
			isDefault: func(o *fieldPlan, fp pointer) bool { return int64(*fp.int8()) == o.def.i }},
		kInt16: {name: "int16", flatCheck: flatNumber, goType: is(reflect.Int16), fixed: 2, isZero: zero16, fillRandom: rand16,
			parseDefault: signedDefault(16), nonZeroDefault: intNonZero, flattenDefault: flatInt,
			appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
				return wire.AppendInt16(b, *fp.int16()), nil
			},
			isDefault: func(o *fieldPlan, fp pointer) bool { return int64(*fp.int16()) == o.def.i }},
		kInt32: {name: "int32", flatCheck: flatNumber, goType: is(reflect.Int32), fixed: 4, isZero: zero32, appendTo: append32, isDefault: i32Default, fillRandom: rand32,
			parseDefault: signedDefault(32), nonZeroDefault: intNonZero, flattenDefault: flatInt},
		kInt64: {name: "int64", flatCheck: flatNumber, goType: is(reflect.Int64), fixed: 8, isZero: zero64, appendTo: append64, isDefault: i64Default, fillRandom: rand64,
			parseDefault: signedDefault(64), nonZeroDefault: intNonZero, flattenDefault: flatInt},
		kUint16: {name: "uint16", flatCheck: flatNumber, goType: is(reflect.Uint16), fixed: 2, isZero: zero16, fillRandom: rand16,
			parseDefault: unsignedDefault(math.MaxUint16), nonZeroDefault: intNonZero, flattenDefault: flatInt,
			appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
				return wire.AppendInt16(b, *fp.int16()), nil
			},
			isDefault: func(o *fieldPlan, fp pointer) bool { return int64(*fp.uint16()) == o.def.i }},
		kUint32: {name: "uint32", flatCheck: flatNumber, goType: is(reflect.Uint32), fixed: 4, isZero: zero32, appendTo: append32, isDefault: u32Default, fillRandom: rand32,
			parseDefault: unsignedDefault(math.MaxUint32), nonZeroDefault: intNonZero, flattenDefault: flatInt},
		kFloat64: {name: "float64", flatCheck: flatFloat, goType: is(reflect.Float64), fixed: 8, isZero: zero64, appendTo: append64,
			isDefault: func(o *fieldPlan, fp pointer) bool {
				f := *fp.float64()
				return f == o.def.f || (math.IsNaN(f) && math.IsNaN(o.def.f))
			},
			parseDefault: func(name, raw string) (defaultValue, error) {
				f, err := strconv.ParseFloat(raw, 64)
				if err != nil {
					return defaultValue{}, fmt.Errorf("%q is not a valid %s", raw, name)
				}
				return defaultValue{f: f}, nil
			},
			nonZeroDefault: func(o *fieldPlan) bool { return o.def.f != 0 },
			flattenDefault: flatStore(func(d *defaultValue) uint64 { return math.Float64bits(d.f) }),
			fillRandom: func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) {
				*fp.float64() = []float64{0, -1.5, math.MaxFloat64, math.Inf(1), f.r.NormFloat64()}[f.r.Intn(5)]
			}},
		kBool: {name: "bool", flatCheck: flatBool, goType: is(reflect.Bool), fixed: 1, isZero: zero8,
			appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
				return wire.AppendBool(b, *fp.bool()), nil
			},
			isDefault: func(o *fieldPlan, fp pointer) bool { return *fp.bool() == o.def.b },
			parseDefault: func(name, raw string) (defaultValue, error) {
				b, err := strconv.ParseBool(raw)
				if err != nil {
					return defaultValue{}, fmt.Errorf("%q is not a valid %s", raw, name)
				}
				return defaultValue{b: b}, nil
			},
			nonZeroDefault: func(o *fieldPlan) bool { return o.def.b },
			flattenDefault: flatStore(func(d *defaultValue) uint64 {
				if d.b {
					return 1
				}
				return 0
			}),
			fillRandom: func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) { *fp.bool() = f.chance(2) }},
		kVarint: {name: "varint", flatCheck: flatNumber, goType: is(reflect.Int32), key: "varint", keys: varint, decode: (*decodeState).decodeVarint, isZero: zero32, isDefault: i32Default, minWire: minOne, fillRandom: rand32,
			parseDefault: signedDefault(32), nonZeroDefault: intNonZero, flattenDefault: flatInt,
			size: func(_ *fieldPlan, fp pointer) (int, error) { return wire.SizeVarint(*fp.int32()), nil },
			appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
				return wire.AppendVarint(b, *fp.int32()), nil
			}},
		kVarlong: {name: "varlong", flatCheck: flatNumber, goType: is(reflect.Int64), key: "varint", keys: varint, decode: (*decodeState).decodeVarlong, isZero: zero64, isDefault: i64Default, minWire: minOne, fillRandom: rand64,
			parseDefault: signedDefault(64), nonZeroDefault: intNonZero, flattenDefault: flatInt,
			size: func(_ *fieldPlan, fp pointer) (int, error) { return wire.SizeVarlong(*fp.int64()), nil },
			appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
				return wire.AppendVarlong(b, *fp.int64()), nil
			}},
		kUvarint:   with(uvarint, func(t *wireType) { t.goType, t.isDefault = is(reflect.Uint32), u32Default }),
		kUvarint32: with(uvarint, func(t *wireType) { t.goType, t.isDefault = is(reflect.Int32), i32Default }),
		kUUID: {name: "uuid", flatCheck: flatUUID,
			goType: func(gt reflect.Type) bool {
				return gt.Kind() == reflect.Array && gt.Len() == 16 && gt.Elem().Kind() == reflect.Uint8
			},
			fixed: 16,
			appendTo: func(b []byte, _ *fieldPlan, fp pointer) ([]byte, error) {
				return append(b, (*fp.uuid())[:]...), nil
			},
			isDefault:  func(_ *fieldPlan, fp pointer) bool { return *fp.uuid() == UUID{} },
			isZero:     func(_ *fieldPlan, fp pointer) bool { return *fp.uuid() == UUID{} },
			fillRandom: func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) { f.r.Read(fp.uuid()[:]) },
			describe:   func(_ *fieldPlan, p pointer) string { return (*p.uuid()).String() }},
		kString: {name: "string", flatCheck: flatString, goType: is(reflect.String), lengthPrefixed: true, minWire: minLength(2), decode: (*decodeState).decodeString,
			size: func(o *fieldPlan, fp pointer) (int, error) { return stringSize(o, len(*fp.string())) },
			appendTo: func(b []byte, o *fieldPlan, fp pointer) ([]byte, error) {
				return appendString(b, o, *fp.string())
			},
			isDefault: func(o *fieldPlan, fp pointer) bool { return *fp.string() == o.def.s },
			isZero:    func(_ *fieldPlan, fp pointer) bool { return *fp.string() == "" },
			parseDefault: func(name, raw string) (defaultValue, error) {
				if raw == "null" {
					return defaultValue{}, fmt.Errorf("null on a %s field, which cannot be null (use *string)", name)
				}
				return defaultValue{s: raw}, nil
			},
			nonZeroDefault: func(o *fieldPlan) bool { return o.def.s != "" },
			flattenDefault: flatOther,
			setDefault:     func(o *fieldPlan, fp pointer) { *fp.string() = o.def.s },
			fillRandom:     func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, _ bool) { *fp.string() = f.str() },
			describe:       func(o *fieldPlan, p pointer) string { return describeString(o, *p.string()) }},
		kNullString: {name: "nullable_string", flatCheck: flatNullString, goType: pointerTo(reflect.String), canBeNull: true, lengthPrefixed: true, notAnElement: true, isZero: zeroPtr, minWire: minLength(2), decode: (*decodeState).decodeString,
			size: func(o *fieldPlan, fp pointer) (int, error) {
				sp := *fp.stringPtr()
				if sp == nil {
					if !o.nullable {
						return 0, nullNotAllowed()
					}
					return o.length.Size(-1), nil
				}
				return stringSize(o, len(*sp))
			},
			appendTo: func(b []byte, o *fieldPlan, fp pointer) ([]byte, error) {
				sp := *fp.stringPtr()
				if sp == nil {
					if !o.nullable {
						return b, nullNotAllowed()
					}
					return o.length.Append(b, -1), nil
				}
				return appendString(b, o, *sp)
			},
			isDefault: func(o *fieldPlan, fp pointer) bool {
				sp := *fp.stringPtr()
				if o.def.null {
					return sp == nil
				}
				return sp != nil && *sp == o.def.s
			},
			parseDefault: func(_, raw string) (defaultValue, error) {
				if raw == "null" {
					return defaultValue{null: true}, nil
				}
				return defaultValue{s: raw}, nil
			},
			// Without default=null a *string defaults to "", not nil.
			nonZeroDefault: func(o *fieldPlan) bool { return !o.def.null },
			flattenDefault: flatOther,
			setDefault: func(o *fieldPlan, fp pointer) {
				s := o.def.s
				*fp.stringPtr() = &s
			},
			fillMinimal: func(_ *fieldPlan, fp pointer, _ int) {
				s := ""
				*fp.stringPtr() = &s
			},
			fillRandom: func(f *randomFiller, _ *fieldPlan, fp pointer, _ int, maybeNull bool) {
				if !maybeNull {
					s := f.str()
					*fp.stringPtr() = &s
				}
			},
			describe: func(o *fieldPlan, p pointer) string {
				if sp := *p.stringPtr(); sp != nil {
					return describeString(o, *sp)
				}
				return "null"
			}},
		kBytes: {name: "bytes", flatCheck: flatBytes, keys: []string{"records"},
			goType:    func(gt reflect.Type) bool { return gt.Kind() == reflect.Slice && gt.Elem().Kind() == reflect.Uint8 },
			canBeNull: true, lengthPrefixed: true, isZero: zeroLen, minWire: minLength(4), decode: (*decodeState).decodeBytes,
			parseDefault: onlyNull, describe: describeBytes,
			wireName: func(o *fieldPlan) string {
				switch {
				case o.records:
					return "records"
				case o.nullable:
					return "nullable_bytes"
				}
				return "bytes"
			},
			fillMinimal: func(o *fieldPlan, fp pointer, _ int) {
				if o.records {
					*fp.bytes() = EmptyRecordBatch()
				} else {
					*fp.bytes() = []byte{}
				}
			},
			fillRandom: func(f *randomFiller, o *fieldPlan, fp pointer, _ int, maybeNull bool) {
				switch {
				case maybeNull:
				case o.records && f.chance(2):
					*fp.bytes() = EmptyRecordBatch()
				default:
					*fp.bytes() = f.bytes(f.r.Intn(f.opts.MaxLen + 1))
				}
			},
			size: func(o *fieldPlan, fp pointer) (int, error) {
				bs := *fp.bytes()
				if bs == nil && o.nullable {
					return o.length.Size(-1), nil
				}
				return o.length.Size(len(bs)) + len(bs), nil
			},
			appendTo: func(b []byte, o *fieldPlan, fp pointer) ([]byte, error) {
				bs := *fp.bytes()
				if bs == nil && o.nullable {
					return o.length.Append(b, -1), nil
				}
				b = o.length.Append(b, len(bs))
				return append(b, bs...), nil
			},
			isDefault: func(o *fieldPlan, fp pointer) bool {
				bs := *fp.bytes()
				if o.def.null {
					return bs == nil
				}
				return bs != nil && len(bs) == 0
			}},
		kArray: {name: "array", flatCheck: flatArray, keys: []string{"varint", "uvarint"}, resolve: (*builder).resolveArray,
			goType:    func(gt reflect.Type) bool { return gt.Kind() == reflect.Slice && gt.Elem().Kind() != reflect.Uint8 },
			canBeNull: true, lengthPrefixed: true, isZero: zeroLen, size: sizeArray, minWire: minLength(4),
			parseDefault: onlyNull, fillMinimal: fillMinimalArray, fillRandom: (*randomFiller).fillArray,
			decode: (*decodeState).decodeArray,
			traceType: func(o *fieldPlan) string {
				// Arrays of leaves are labelled by their wire type as
				// Kafka's schemas spell it ([]uuid), the others by
				// their Go type.
				if wireTypes[o.elem.kind].traceType == nil {
					return "[]" + o.elem.wireTypeName()
				}
				return goTypeName(o.typ)
			},
			appendTo: func(b []byte, o *fieldPlan, fp pointer) ([]byte, error) {
				return encodeArray(b, o, fp.slice())
			},
			isDefault: func(o *fieldPlan, fp pointer) bool {
				h := fp.slice()
				if o.def.null {
					return h.data.isNil()
				}
				return h.len == 0
			}},
		kStruct: {name: "struct", flatCheck: flatStruct, goType: is(reflect.Struct), resolve: (*builder).resolveStruct,
			size:           func(o *fieldPlan, fp pointer) (int, error) { return sizeStruct(o.sub, fp) },
			appendTo:       func(b []byte, o *fieldPlan, fp pointer) ([]byte, error) { return encodeStruct(b, o.sub, fp) },
			isDefault:      func(o *fieldPlan, fp pointer) bool { return structIsDefault(o.sub, fp, isDefault) },
			isZero:         func(o *fieldPlan, fp pointer) bool { return structIsDefault(o.sub, fp, isUnset) },
			minWire:        func(o *fieldPlan, subMin func(*plan) int) int { return subMin(o.sub) },
			nonZeroDefault: func(o *fieldPlan) bool { return o.sub != nil && len(o.sub.allDefaults) > 0 },
			flattenDefault: func(o *fieldPlan, base uintptr, out *flatDefaults) {
				flattenDefaults(o.sub.allDefaults, base+o.offset, out)
			},
			fillMinimal: func(o *fieldPlan, fp pointer, depth int) { fillStruct(o.sub, fp, depth+1) },
			fillRandom: func(f *randomFiller, o *fieldPlan, fp pointer, depth int, _ bool) {
				f.fillStruct(o.sub, fp, depth+1)
			},
			decode:    func(d *decodeState, o *fieldPlan, fp pointer) error { return d.decodeStructOrTrace(o.sub, fp) },
			traceType: func(o *fieldPlan) string { return goTypeName(o.typ) }},
		kStructPtr: {name: "nullable struct", flatCheck: flatStructPtr, goType: pointerTo(reflect.Struct), resolve: (*builder).resolveStructPtr,
			canBeNull: true, notAnElement: true, isZero: zeroPtr, size: sizeStructPtr,
			parseDefault: onlyNull, fillMinimal: fillMinimalStructPtr, fillRandom: (*randomFiller).fillStructPtr,
			decode:    (*decodeState).decodeStructPtr,
			traceType: func(o *fieldPlan) string { return goTypeName(o.typ.Elem()) },
			appendTo: func(b []byte, o *fieldPlan, fp pointer) ([]byte, error) {
				sp := *fp.ptr()
				if !o.nullable {
					if sp.isNil() {
						return b, nullNotAllowed()
					}
					return encodeStruct(b, o.sub, sp)
				}
				if sp.isNil() {
					return wire.AppendPresence(b, false), nil
				}
				return encodeStruct(wire.AppendPresence(b, true), o.sub, sp)
			},
			isDefault: func(o *fieldPlan, fp pointer) bool {
				sp := *fp.ptr()
				if o.def.null {
					return sp.isNil()
				}
				return sp.isNil() || structIsDefault(o.sub, sp, isDefault)
			},
			minWire: func(o *fieldPlan, subMin func(*plan) int) int {
				if o.nullable {
					return 1 // the presence marker
				}
				return subMin(o.sub)
			}},
		kFixedRun: {name: "fixed run"}, // only in fused lists, never a value
	}
	// What a fixed width decides alone.
	for k := range wireTypes {
		t := &wireTypes[k]
		if n := t.fixed; n > 0 {
			t.size, t.decode = fixed(n), (*decodeState).decodeFixed
			t.minWire = func(*fieldPlan, func(*plan) int) int { return n }
		}
	}
}

// signedDefault parses a default of a signed integer of the given bits.
func signedDefault(bits int) func(string, string) (defaultValue, error) {
	return func(name, raw string) (defaultValue, error) {
		n, err := strconv.ParseInt(raw, 0, bits)
		if err != nil {
			// Kafka writes some int defaults in hex as unsigned bit
			// patterns, e.g. 0xffffffff for an int32.
			u, uerr := strconv.ParseUint(raw, 0, bits)
			if uerr != nil {
				return defaultValue{}, fmt.Errorf("%q is not a valid %s", raw, name)
			}
			n = int64(u) << (64 - bits) >> (64 - bits)
		}
		return defaultValue{i: n}, nil
	}
}

// flatStore compiles a number's default: its bits, stored at the width
// of its Go type (a varint's too).
func flatStore(bits func(d *defaultValue) uint64) func(*fieldPlan, uintptr, *flatDefaults) {
	return func(o *fieldPlan, base uintptr, out *flatDefaults) {
		out.fixed = append(out.fixed, fixedDefault{off: base + o.offset, size: uint8(o.typ.Size()), bits: bits(&o.def)})
	}
}

// unsignedDefault parses a default of an unsigned integer up to max.
func unsignedDefault(max uint64) func(string, string) (defaultValue, error) {
	return func(name, raw string) (defaultValue, error) {
		n, err := strconv.ParseUint(raw, 0, 32)
		if err != nil || n > max {
			return defaultValue{}, fmt.Errorf("%q is not a valid %s", raw, name)
		}
		return defaultValue{i: int64(n)}, nil
	}
}

func with(t wireType, change func(*wireType)) wireType {
	change(&t)
	return t
}

func sizeArray(o *fieldPlan, fp pointer) (int, error) {
	h := fp.slice()
	if h.data.isNil() && o.nullable {
		return o.length.Size(-1), nil
	}
	n := o.length.Size(h.len)
	if s := o.elem.kind.fixedSize(); s > 0 {
		return n + s*h.len, nil
	}
	size := wireTypes[o.elem.kind].size
	for i := 0; i < h.len; i++ {
		s, err := size(o.elem, h.data.add(uintptr(i)*o.elemSize))
		if err != nil {
			return 0, withinIndex(err, i)
		}
		n += s
	}
	return n, nil
}

func sizeStructPtr(o *fieldPlan, fp pointer) (int, error) {
	sp := *fp.ptr()
	marker := 0
	if o.nullable {
		marker = 1
	}
	if sp.isNil() {
		if !o.nullable {
			return 0, nullNotAllowed()
		}
		return marker, nil
	}
	s, err := sizeStruct(o.sub, sp)
	return marker + s, err
}

// stringHeaderSize is the wire size of a string of n bytes in field o, or
// checkStringLength's error.
func stringSize(o *fieldPlan, n int) (int, error) {
	if err := checkStringLength(o, n); err != nil {
		return 0, err
	}
	return o.length.Size(n) + n, nil
}

// checkStringLength refuses a string of n bytes that o's length cannot
// hold: a classic length is an int16. Size asks it, so that it fails
// where Append (appendString, engine_encode.go) does, with the same error.
func checkStringLength(o *fieldPlan, n int) error {
	if o.length == wire.Int16Length && n > maxInt16String {
		return newFieldError(ErrValueOutOfRange, -1, "string of %d bytes is longer than an int16 length allows", n)
	}
	return nil
}

// nullNotAllowed is the error of a null (a nil pointer) in a field that
// cannot be null in the version: encoding and sizing give the same one.
func nullNotAllowed() error { return newFieldError(ErrNullNotAllowed, -1, "") }

// The per-value entry points every consumer calls.

// wireTypeName is o's wire type as Schema, the tracer and error text
// call it: the one name of a wire type.
func (o *fieldPlan) wireTypeName() string {
	t := &wireTypes[o.kind]
	if t.wireName != nil {
		return t.wireName(o)
	}
	return t.name
}

// fixedSize is the wire size of fixed-width kinds, 0 for the others.
func (k kind) fixedSize() int { return wireTypes[k].fixed }

// encodeValue appends one field or array element stored at fp.
func encodeValue(b []byte, o *fieldPlan, fp pointer) ([]byte, error) {
	return wireTypes[o.kind].appendTo(b, o, fp)
}

// sizeValue is the number of bytes encodeValue would append.
func sizeValue(o *fieldPlan, fp pointer) (int, error) { return wireTypes[o.kind].size(o, fp) }

// isDefault reports whether the value at fp equals the field's schema
// default. Tagged fields are written only when this is false.
func isDefault(o *fieldPlan, fp pointer) bool { return wireTypes[o.kind].isDefault(o, fp) }

// isZero reports whether the value at fp is Go's zero value (for a nested
// struct: every field unset).
func isZero(o *fieldPlan, fp pointer) bool { return wireTypes[o.kind].isZero(o, fp) }

// kindOf is the wire type of a field of Go type gt with tag t.
func kindOf(gt reflect.Type, t fieldTag) (kind, bool) {
	key := ""
	switch {
	case t.varint:
		key = "varint"
	case t.uvarint:
		key = "uvarint"
	}
	found, ok := kind(0), false
	for k := range wireTypes {
		w := &wireTypes[k]
		if w.goType == nil || !w.goType(gt) {
			continue
		}
		if w.key == key {
			return kind(k), true
		}
		if w.key == "" {
			found, ok = kind(k), true
		}
	}
	return found, ok
}

// lacks names the pieces every wire type needs that w has not. A plan
// holding a field of w fails to build with them named, rather than run
// without them (a missing flatCheck once turned off the flat checks of
// every plan holding the type, and nothing said so).
func (w *wireType) lacks() []string {
	var missing []string
	for _, piece := range []struct {
		name string
		has  bool
	}{
		{"name", w.name != ""}, {"goType", w.goType != nil}, {"size", w.size != nil},
		{"appendTo", w.appendTo != nil}, {"decode", w.decode != nil}, {"isDefault", w.isDefault != nil}, {"isZero", w.isZero != nil},
		{"minWire", w.minWire != nil}, {"flatCheck", w.flatCheck != nil}, {"fillRandom", w.fillRandom != nil},
	} {
		if !piece.has {
			missing = append(missing, piece.name)
		}
	}
	return missing
}

// accepts reports whether a field of this wire type may carry the key.
func (w *wireType) accepts(key string) bool { return slices.Contains(w.keys, key) }

// minWire is the fewest bytes one value of this field plan takes on the wire.
func (o *fieldPlan) minWire() int {
	return wireTypes[o.kind].minWire(o, func(sub *plan) int { return sub.minWire })
}

// parseDefault reads a default= text for field o.
func parseDefault(o *fieldPlan, raw string) (defaultValue, error) {
	parse := wireTypes[o.kind].parseDefault
	if parse == nil {
		return defaultValue{}, fmt.Errorf("a %s field takes no default", o.wireTypeName())
	}
	return parse(o.wireTypeName(), raw)
}

// hasNonZeroDefault reports whether decoding must store o's default
// rather than leave Go's zero value.
func hasNonZeroDefault(o *fieldPlan) bool {
	nonZero := wireTypes[o.kind].nonZeroDefault
	return nonZero != nil && nonZero(o)
}
