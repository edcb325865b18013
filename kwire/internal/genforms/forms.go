package main

// The description of the wire forms the hot loops' fast cases take:
// each length form and fixed width by the functions that write and read
// it (ordinary, compiled and tested Go in kwire/engine_forms.go; the
// generator checks each name is a function there or in
// engine_pointer.go), and the payloads written after a length as
// templates that call them. The generator composes each program code's
// cases in the engine's hot loops (size, encode, decode) from it; nothing
// else in the engine writes a length's bytes in a loop's fast case.

// lengthForm is one way the wire writes a length before a payload, null
// included: the names of its functions in engine_forms.go.
type lengthForm struct {
	// Suffix names the codes that use the form: cString + Suffix; Name is
	// the form as a comment names it.
	Suffix, Name string
	// W is how many bytes Put and PutNull write: a length the fast cases
	// write is short (under 0x7f), so a compact one takes a byte.
	W int
	// Put(at, n) stores a fast length n at at; PutNull(at) stores null.
	Put, PutNull string
	// PutLong(base, n, l) stores any length l at base.at(n) and returns
	// the offset after it: records' lengths, written before one memmove;
	// LongW is the most bytes it writes. "" for a form no payload
	// writes so.
	PutLong string
	LongW   int
	// Size(n) is the wire size of length n; NullSize of null.
	Size     string
	NullSize int
	// Limit is the longest length the form holds, "" for any an int
	// holds (a compact length is a uvarint of 32 bits).
	Limit string
	// Reader(src, off) reads the form at off for the fast cases: the
	// length (-1 null) and the offset after it, or -2 when the form is
	// longer than the fast case reads or the input is short.
	// RecordsReader reads a records length likewise; the cases get a
	// copy of its body when it is marked //genforms:inline.
	Reader, RecordsReader string
}

var (
	compact = lengthForm{
		Suffix: "Compact", Name: "compact (uvarint n+1)", W: 1,
		Put: "compactPut", PutNull: "compactPutNull",
		PutLong: "compactPutLong", LongW: 5,
		Size: "compactSize", NullSize: 1,
		Reader: "compactLength", RecordsReader: "compactRecordsLength",
	}
	classic16 = lengthForm{
		Suffix: "Classic", Name: "classic int16", W: 2,
		Put: "int16Put", PutNull: "int16PutNull",
		Size: "int16Size", NullSize: 2,
		Limit:  "maxInt16String",
		Reader: "int16Length", RecordsReader: "int16Length",
	}
	classic32 = lengthForm{
		Suffix: "Classic", Name: "classic int32", W: 4,
		Put: "int32Put", PutNull: "int32PutNull",
		PutLong: "int32PutLong", LongW: 4,
		Size: "int32Size", NullSize: 4,
		Reader: "int32Length", RecordsReader: "int32Length",
	}
)

// fixedForm is a fixed-width value: W bytes, held in Go as Acc (a
// pointer accessor), written by Put(at, v) and read by Get(src, off)
// (room checked).
type fixedForm struct {
	Codes    string // the program code that takes it
	Kinds    string // the wire types (kinds) compiled to it
	W        int
	Acc      string // the accessor encode loads through
	Put, Get string
	// Store is the accessor decode stores through (Acc when ""), and
	// Accept(d, src, off) a further test of the bytes before the fast
	// case takes them.
	Store, Accept string
}

var fixedForms = []fixedForm{
	{Codes: "cInt32", Kinds: "kInt32, kUint32", W: 4, Acc: "uint32", Put: "put32", Get: "int32Get"},
	{Codes: "cInt16", Kinds: "kInt16, kUint16", W: 2, Acc: "uint16", Put: "put16", Get: "int16Get"},
	{Codes: "cInt64", Kinds: "kInt64, kFloat64", W: 8, Acc: "uint64", Put: "put64", Get: "int64Get"},
	{Codes: "cInt8", Kinds: "kInt8", W: 1, Acc: "uint8", Put: "put8", Get: "int8Get"},
	{Codes: "cBool", Kinds: "kBool", W: 1, Acc: "uint8", Put: "put8", Get: "boolGet", Store: "bool", Accept: "boolAccepted"},
	{Codes: "cUUID", Kinds: "kUUID", W: 16, Acc: "uuid", Put: "putUUID", Get: "uuidGet"},
}

// payload is what follows a length: its cases in each loop, as templates
// over a lengthForm (.L), the element's form (.E, for arrays of strings)
// and the code (.Code).
type payload struct {
	Name string // the code is "c" + Name + the form's Suffix
	// Match is the test of a field plan o that compiles to the payload,
	// by its first form when o.compact and its second otherwise; Compile
	// sets what else its cases read in the instruction in.
	Match, Compile string
	Forms          []lengthForm
	Elem           []lengthForm // arrays of strings: the elements' form, by Forms' index
	// NoEncode lists forms (by Suffix) whose encode takes the general path.
	NoEncode []string
	// Size, Encode and Decode are the cases' bodies; "" leaves the code
	// to the loop's general path.
	Size, Encode, Decode string
	// OneDecodeCase has decode take every form in one case, its reader
	// picked by the code ({{read}} in Decode): two string cases where one
	// would do cost the loop a register, spilled on every field (Decode
	// rows, interop/README.md).
	OneDecodeCase bool
}

var payloads = []payload{
	{Name: "String", Match: "o.kind == kString", OneDecodeCase: true, Forms: []lengthForm{compact, classic16},
		Size: `{{if .L.Limit}}if l := len(*fp.string()); l <= {{.L.Limit}} {
				n += {{size "l"}} + l
				continue
			}{{else}}l := len(*fp.string())
			n += {{size "l"}} + l
			continue{{end}}`,
		Encode: `s := *p.add(in.off).string()
			if len(s) <= maxInlineCopy && {{fits "n" .L.W "len(s)"}} {
				{{put "base.at(n)" "len(s)"}}
				copyShort(base, n+{{.L.W}}, stringData(s), len(s))
				n, in = n+{{.L.W}}+len(s), advance(in)
				continue
			}`,
		Decode: `{{read}}
			if n == 0 {
				*p.add(in.off).string() = ""
				off, in = next, advance(in)
				continue
			}
			// Not null, in the input, short, room in the arena's chunk.
			if n > 0 && n <= len(src)-next && n <= maxInlineCopy && n <= len(d.strArena) {
				buf := sliceData(d.strArena)
				d.strArena = d.strArena[n:]
				copyShort(buf, 0, sliceData(src[next:]), n)
				*p.add(in.off).string() = buf.stringOf(n)
				off, in = next+n, advance(in)
				continue
			}`},
	{Name: "NullString", Match: "o.kind == kNullString", OneDecodeCase: true, Forms: []lengthForm{compact, classic16},
		Size: `sp := *fp.stringPtr()
			if sp != nil {{if .L.Limit}}&& len(*sp) <= {{.L.Limit}} {{end}}{
				n += {{size "len(*sp)"}} + len(*sp)
				continue
			}
			if sp == nil && in.nullable {
				n += {{.L.NullSize}}
				continue
			}`,
		Encode: `sp := *p.add(in.off).stringPtr()
			if sp == nil {
				if in.nullable && {{fits "n" .L.W ""}} {
					{{putNull "base.at(n)"}}
					n, in = n+{{.L.W}}, advance(in)
					continue
				}
			} else if s := *sp; len(s) <= maxInlineCopy && {{fits "n" .L.W "len(s)"}} {
				{{put "base.at(n)" "len(s)"}}
				copyShort(base, n+{{.L.W}}, stringData(s), len(s))
				n, in = n+{{.L.W}}+len(s), advance(in)
				continue
			}`,
		Decode: `{{read}}
			if n == -1 && in.nullable {
				*p.add(in.off).stringPtr() = nil
				off, in = next, advance(in)
				continue
			}
			if n >= 0 && n <= len(src)-next && n <= maxInlineCopy && n <= len(d.strArena) && len(d.strPtrs) != 0 {
				sp := &d.strPtrs[0]
				d.strPtrs = d.strPtrs[1:]
				if n > 0 {
					buf := sliceData(d.strArena)
					d.strArena = d.strArena[n:]
					copyShort(buf, 0, sliceData(src[next:]), n)
					*sp = buf.stringOf(n)
				}
				*p.add(in.off).stringPtr() = sp
				off, in = next+n, advance(in)
				continue
			}`},
	{Name: "ArrayInt32", Match: "o.kind == kArray && (o.elem.kind == kInt32 || o.elem.kind == kUint32)", Forms: []lengthForm{compact, classic32},
		Size: `h := fp.slice()
			if h.data.isNil() && in.nullable {
				n += {{.L.NullSize}}
				continue
			}
			n += {{size "h.len"}} + 4*h.len
			continue`,
		Encode: `h := p.add(in.off).slice()
			if h.data.isNil() && in.nullable && {{fits "n" .L.W ""}} {
				{{putNull "base.at(n)"}}
				n, in = n+{{.L.W}}, advance(in)
				continue
			}
			if (!h.data.isNil() || !in.nullable) && h.len < 0x7f && {{fits "n" .L.W "4*h.len"}} {
				{{put "base.at(n)" "h.len"}}
				m := n + {{.L.W}}
				for j := range h.len {
					put32(base.at(m+4*j), *h.data.at(4 * j).uint32())
				}
				n, in = m+4*h.len, advance(in)
				continue
			}`,
		Decode: `n, next := {{.L.Reader}}(src, off)
			if n == 0 {
				*p.add(in.off).slice() = sliceHeader{data: pointerOf(&zeroSizedValue)}
				off, in = next, advance(in)
				continue
			}
			if n > 0 && n <= (len(src)-next)/4 && len(d.int32s) >= n {
				vals := d.int32s[:n:n]
				d.int32s = d.int32s[n:]
				from := sliceData(src[next:])
				for j := range vals {
					vals[j] = int32(get32(from.at(4 * j)))
				}
				*p.add(in.off).int32s() = vals
				off, in = next+4*n, advance(in)
				continue
			}`},
	// No classic encode case: one cost the encode loop a register,
	// spilled on every field (Encode Metadata +1.6 %).
	{Name: "ArrayString", Match: "o.kind == kArray && o.elem.kind == kString", Forms: []lengthForm{compact, classic32}, Elem: []lengthForm{compact, classic16}, NoEncode: []string{"Classic"},
		// Written ahead of n, which moves only if every element fit.
		Encode: `h := p.add(in.off).slice()
			if !h.data.isNil() && h.len < 0x7f && {{fits "n" .L.W (printf "%d*h.len" .E.W)}} {
				{{put "base.at(n)" "h.len"}}
				m := n + {{.L.W}}
				for j := range h.len {
					s := *h.data.at(j * int(stringHeaderSize)).string()
					if len(s) > maxInlineCopy || !({{fits "m" .E.W "len(s)"}}) {
						m = -1
						break
					}
					{{eput "base.at(m)" "len(s)"}}
					copyShort(base, m+{{.E.W}}, stringData(s), len(s))
					m += {{.E.W}} + len(s)
				}
				if m >= 0 {
					n, in = m, advance(in)
					continue
				}
			}`},
	{Name: "Bytes", Match: "o.kind == kBytes", Compile: "in.records = o.records", Forms: []lengthForm{compact, classic32},
		Size: `h := fp.slice()
			if h.data.isNil() && in.nullable {
				n += {{.L.NullSize}}
				continue
			}
			n += {{size "h.len"}} + h.len
			continue`,
		// Short byte strings are copied here; long ones (records) get
		// their length here and one memmove at copyLong.
		Encode: `if bs := *p.add(in.off).bytes(); bs != nil && n+{{.L.LongW}}+len(bs) <= c {
				if len(bs) <= maxInlineCopy {
					{{put "base.at(n)" "len(bs)"}}
					copyShort(base, n+{{.L.W}}, sliceData(bs), len(bs))
					n, in = n+{{.L.W}}+len(bs), advance(in)
					continue
				}
				n = {{putLong "base" "n" "len(bs)"}}
				long, in = bs, advance(in)
				goto copyLong
			}`,
		Decode: `{{readRecords}}
			if n >= 0 && n <= len(src)-next && in.records { // records may alias the input
				*p.add(in.off).bytes() = src[next : next+n : next+n]
				off, in = next+n, advance(in)
				continue
			}`},
	{Name: "ArrayStruct", Match: "o.kind == kArray && o.elem.kind == kStruct", Compile: "in.n, in.ref = uint32(o.elemSize), pointerOf(o.elem.sub)", Forms: []lengthForm{compact, classic32},
		Size: `h := fp.slice()
			if h.data.isNil() && in.nullable {
				n += {{.L.NullSize}}
				continue
			}
			n += {{size "h.len"}}
			sub := in.plan()
			for j := 0; j < h.len; j++ {
				s, err := sizeStruct(sub, h.data.add(uintptr(j)*uintptr(in.n)))
				if err != nil {
					return 0, within(withinIndex(err, j), pl.fused[i].name)
				}
				n += s
			}
			continue`,
		// 1 to 126 elements, the common case: the length, then the
		// first element in this loop. Null or empty: the length alone.
		Encode: `h := p.add(in.off).slice()
			if sub := in.plan(); uint(h.len-1) < 0x7e && {{fits "n" .L.W ""}} && sub.skipAbsent && st.depth < stackDepth {
				{{put "base.at(n)" "h.len"}}
				n += {{.L.W}}
				st.push(pl, p, in, h.len)
				pl, p, in = sub, h.data, first(sub.prog)
				continue
			}
			if h.len == 0 && {{fits "n" .L.W ""}} {
				if h.data.isNil() && in.nullable {
					{{putNull "base.at(n)"}}
				} else {
					{{put "base.at(n)" "0"}}
				}
				n, in = n+{{.L.W}}, advance(in)
				continue
			}`,
		// Empty, null and the elements in this loop; any other length,
		// an array the bytes left cannot hold, or one past the stack
		// through the general path.
		Decode: `n, next := {{.L.Reader}}(src, off)
			if n == 0 {
				*p.add(in.off).slice() = sliceHeader{data: pointerOf(&zeroSizedValue)}
				off, in = next, advance(in)
				continue
			}
			if n == -1 && in.nullable {
				*p.add(in.off).slice() = sliceHeader{}
				off, in = next, advance(in)
				continue
			}
			if sub := in.plan(); n > 0 && st.depth < stackDepth && uint64(n)*uint64(max(1, sub.minWire)) <= uint64(len(src)-next) {
				// Enter the array: the parent on the stack, the
				// elements' storage, the first element.
				st.push(pl, p, in, n)
				d.off = next
				data, err := d.structElems(sub, uintptr(in.n), n)
				if err != nil {
					st.depth--
					f := &st.frames[st.depth]
					return st.within(within(err, f.pl.fieldOf(f.in).name))
				}
				f := &st.frames[st.depth-1]
				*f.p.add(f.in.off).slice() = sliceHeader{data: data, len: n, cap: n}
				if sub.hasDefaults {
					sub.applyDefaults(data)
				}
				pl, p, in, off = sub, data, first(sub.prog), next
				continue
			}`},
}

// The fixed widths' cases.
const (
	fixedSize = `n += {{.F.W}}
			continue`
	fixedEncode = `if {{fits "n" .F.W ""}} {
				{{fput "base.at(n)" (printf "*p.add(in.off).%s()" .F.Acc)}}
				n, in = n+{{.F.W}}, advance(in)
				continue
			}`
	fixedDecode = `if len(src)-off >= {{.F.W}}{{if .F.Accept}} && {{faccept "d" "src" "off"}}{{end}} {
				*p.add(in.off).{{or .F.Store .F.Acc}}() = {{fget "src" "off"}}
				off, in = off+{{.F.W}}, advance(in)
				continue
			}`
)

// codeOrder numbers the codes: cStruct (the loops' own, a nested
// struct) and each fixed width's and payload form's. The jump tables'
// blocks follow it; this order measured no register move at the loops'
// head, which others cost on every field (Encode rows, +1 %).
var codeOrder = []string{
	"cInt8", "cBool", "cInt16", "cInt32", "cInt64",
	"cStringCompact", "cStringClassic", "cNullStringCompact", "cNullStringClassic",
	"cBytesCompact", "cBytesClassic", "cArrayStructCompact", "cArrayStructClassic",
	"cArrayInt32Compact", "cArrayInt32Classic", "cStruct",
	"cArrayStringCompact", "cArrayStringClassic", "cUUID",
}
