package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// The varints against encoding/binary, an independent implementation of
// the same LEB128 and zig-zag forms (protobuf's uint and sint): the same
// bytes, the same sizes, read back.
func TestVarintsAgreeWithEncodingBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	u32 := []uint32{0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000, 0xfffffff, 0x10000000, math.MaxUint32}
	for range 2000 {
		u32 = append(u32, r.Uint32()>>(r.IntN(32)))
	}
	for _, v := range u32 {
		got, want := AppendUvarint(nil, v), binary.AppendUvarint(nil, uint64(v))
		if !bytes.Equal(got, want) || SizeUvarint(v) != len(want) {
			t.Fatalf("uvarint %d: % x size %d, encoding/binary % x", v, got, SizeUvarint(v), want)
		}
		if back, n := ConsumeUvarint(got); back != v || n != len(got) {
			t.Fatalf("uvarint %d read back as %d, %d bytes", v, back, n)
		}
		s := int32(v)
		got, want = AppendVarint(nil, s), binary.AppendVarint(nil, int64(s))
		if !bytes.Equal(got, want) || SizeVarint(s) != len(want) {
			t.Fatalf("varint %d: % x size %d, encoding/binary % x", s, got, SizeVarint(s), want)
		}
		if back, n := ConsumeVarint(got); back != s || n != len(got) {
			t.Fatalf("varint %d read back as %d, %d bytes", s, back, n)
		}
	}
	u64 := []uint64{0, 1, 0x7f, 0x80, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, math.MaxUint64}
	for range 2000 {
		u64 = append(u64, r.Uint64()>>(r.IntN(64)))
	}
	for _, v := range u64 {
		got, want := AppendUvarint64(nil, v), binary.AppendUvarint(nil, v)
		if !bytes.Equal(got, want) || SizeUvarint64(v) != len(want) {
			t.Fatalf("uvarint64 %d: % x size %d, encoding/binary % x", v, got, SizeUvarint64(v), want)
		}
		if back, n := ConsumeUvarint64(got); back != v || n != len(got) {
			t.Fatalf("uvarint64 %d read back as %d, %d bytes", v, back, n)
		}
		s := int64(v)
		got, want = AppendVarlong(nil, s), binary.AppendVarint(nil, s)
		if !bytes.Equal(got, want) || SizeVarlong(s) != len(want) {
			t.Fatalf("varlong %d: % x size %d, encoding/binary % x", s, got, SizeVarlong(s), want)
		}
		if back, n := ConsumeVarlong(got); back != s || n != len(got) {
			t.Fatalf("varlong %d read back as %d, %d bytes", s, back, n)
		}
	}
}

// Hostile varints: cut short, overflowing the type's bits in the last
// byte, or longer than any value of the type. Overlong ones (0x80 0x00)
// are read, as Kafka's Java reader reads them, and their count tells.
func TestVarintsRefuseHostileBytes(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want error
	}{
		{nil, ErrTruncated},
		{[]byte{0x80}, ErrTruncated},
		{[]byte{0xff, 0xff, 0xff, 0xff}, ErrTruncated},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x10}, ErrOverflow}, // bit 32
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x80}, ErrOverflow}, // a sixth byte
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, ErrOverflow},
	} {
		if _, n := ConsumeUvarint(c.in); !errors.Is(ParseError(n), c.want) {
			t.Errorf("ConsumeUvarint(% x): %d (%v), want %v", c.in, n, ParseError(n), c.want)
		}
		if _, n := ConsumeVarint(c.in); !errors.Is(ParseError(n), c.want) {
			t.Errorf("ConsumeVarint(% x): %d, want %v", c.in, n, c.want)
		}
	}
	if v, n := ConsumeUvarint([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}); v != math.MaxUint32 || n != 5 {
		t.Errorf("the largest uvarint: %d, %d", v, n)
	}
	max64 := binary.AppendUvarint(nil, math.MaxUint64)
	if v, n := ConsumeUvarint64(max64); v != math.MaxUint64 || n != 10 {
		t.Errorf("the largest uvarint64: %d, %d", v, n)
	}
	over := bytes.Clone(max64)
	over[9] = 0x02 // bit 64
	if _, n := ConsumeUvarint64(over); ParseError(n) != ErrOverflow {
		t.Errorf("a uvarint64 of 65 bits: %d", n)
	}
	if v, n := ConsumeUvarint([]byte{0x80, 0x00}); v != 0 || n != 2 || n == SizeUvarint(v) {
		t.Errorf("overlong 0: %d, %d bytes (size %d)", v, n, SizeUvarint(v))
	}
}

func TestFixedWidths(t *testing.T) {
	b := AppendInt8(nil, -2)
	b = AppendInt16(b, -3)
	b = AppendUint16(b, 0xfedc)
	b = AppendInt32(b, -4)
	b = AppendUint32(b, 0xfedcba98)
	b = AppendInt64(b, -5)
	b = AppendFloat64(b, -1.5)
	b = AppendBool(b, true)
	b = AppendBool(b, false)
	want := []byte{0xfe, 0xff, 0xfd, 0xfe, 0xdc, 0xff, 0xff, 0xff, 0xfc, 0xfe, 0xdc, 0xba, 0x98,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb}
	want = binary.BigEndian.AppendUint64(want, math.Float64bits(-1.5))
	want = append(want, 1, 0)
	if !bytes.Equal(b, want) {
		t.Fatalf("% x\nwant % x", b, want)
	}
	i8, n := ConsumeInt8(b)
	i16, m := ConsumeInt16(b[n:])
	n += m
	u16, m := ConsumeUint16(b[n:])
	n += m
	i32, m := ConsumeInt32(b[n:])
	n += m
	u32, m := ConsumeUint32(b[n:])
	n += m
	i64, m := ConsumeInt64(b[n:])
	n += m
	f, m := ConsumeFloat64(b[n:])
	n += m
	t1, s1, m := ConsumeBool(b[n:])
	n += m
	t2, s2, m := ConsumeBool(b[n:])
	n += m
	if i8 != -2 || i16 != -3 || u16 != 0xfedc || i32 != -4 || u32 != 0xfedcba98 || i64 != -5 || f != -1.5 || !t1 || t2 || !s1 || !s2 || n != len(b) {
		t.Fatalf("read back %d %d %x %d %x %d %v %v %v (%d of %d bytes)", i8, i16, u16, i32, u32, i64, f, t1, t2, n, len(b))
	}
	if v, strict, _ := ConsumeBool([]byte{2}); !v || strict {
		t.Errorf("bool byte 2: %v strict %v, want true, not strict", v, strict)
	}
	// Each reader on every input one byte short.
	for w, f := range map[int]func([]byte) int{
		1: func(b []byte) int { _, n := ConsumeInt8(b); return n },
		2: func(b []byte) int { _, n := ConsumeInt16(b); return n },
		4: func(b []byte) int { _, n := ConsumeInt32(b); return n },
		8: func(b []byte) int { _, n := ConsumeInt64(b); return n },
	} {
		if n := f(make([]byte, w-1)); ParseError(n) != ErrTruncated {
			t.Errorf("width %d from %d bytes: %d", w, w-1, n)
		}
		if n := f(make([]byte, w)); n != w {
			t.Errorf("width %d from %d bytes: %d", w, w, n)
		}
	}
	p := make([]byte, 4)
	PutInt32(p, -2)
	if Int32(p) != -2 || Uint32(p) != 0xfffffffe || Int16(p) != -1 || Uint16(p[2:]) != 0xfffe {
		t.Errorf("PutInt32: % x", p)
	}
	p = make([]byte, 8)
	PutInt16(p, -2)
	PutUint32(p[2:], 0xfffffffd)
	if !bytes.Equal(p, []byte{0xff, 0xfe, 0xff, 0xff, 0xff, 0xfd, 0, 0}) {
		t.Errorf("PutInt16, PutUint32: % x", p)
	}
	PutInt64(p, -3)
	if Int64(p) != -3 || !bytes.Equal(p, AppendInt64(nil, -3)) {
		t.Errorf("PutInt64: % x", p)
	}
}

// Each length form at its boundaries, null included: the bytes Kafka's
// own writers give (written out here), the size, and the length read back.
func TestLengthForms(t *testing.T) {
	for _, c := range []struct {
		f    LengthForm
		n    int
		want []byte
	}{
		{Int16Length, -1, []byte{0xff, 0xff}},
		{Int16Length, 0, []byte{0, 0}},
		{Int16Length, math.MaxInt16, []byte{0x7f, 0xff}},
		{Int32Length, -1, []byte{0xff, 0xff, 0xff, 0xff}},
		{Int32Length, 3, []byte{0, 0, 0, 3}},
		{Int32Length, math.MaxInt32, []byte{0x7f, 0xff, 0xff, 0xff}},
		{CompactLength, -1, []byte{0}},
		{CompactLength, 0, []byte{1}},
		{CompactLength, 0x7e, []byte{0x7f}},
		{CompactLength, 0x7f, []byte{0x80, 0x01}},
		{CompactLength, 0x3ffe, []byte{0xff, 0x7f}},
		{CompactLength, 0x3fff, []byte{0x80, 0x80, 0x01}},
	} {
		got := c.f.Append(nil, c.n)
		if !bytes.Equal(got, c.want) || c.f.Size(c.n) != len(got) {
			t.Errorf("%v %d: % x size %d, want % x", c.f, c.n, got, c.f.Size(c.n), c.want)
		}
		if n, m := c.f.Consume(got); n != int64(c.n) || m != len(got) {
			t.Errorf("%v %d read back as %d, %d bytes", c.f, c.n, n, m)
		}
		if int64(c.n) > c.f.Max() {
			t.Errorf("%v: %d over Max %d", c.f, c.n, c.f.Max())
		}
	}
	// Any negative n is null.
	if got := CompactLength.Append(nil, -7); !bytes.Equal(got, []byte{0}) {
		t.Errorf("compact -7: % x", got)
	}
	// The largest compact length, beyond an int32.
	big := AppendUvarint(nil, math.MaxUint32)
	if n, m := CompactLength.Consume(big); n != math.MaxUint32-1 || m != 5 || CompactLength.Max() != n {
		t.Errorf("largest compact: %d, %d", n, m)
	}
	// A classic length under -1 is out of range; ConsumeRaw returns it.
	for _, f := range []LengthForm{Int16Length, Int32Length} {
		b := f.Append(nil, 0)
		for i := range b {
			b[i] = 0xff
		}
		b[len(b)-1] = 0xfe
		if _, m := f.Consume(b); ParseError(m) != ErrRange {
			t.Errorf("%v -2: %d", f, m)
		}
		if n, m := f.ConsumeRaw(b); n != -2 || m != len(b) {
			t.Errorf("%v raw -2: %d, %d", f, n, m)
		}
		if _, m := f.Consume(b[:len(b)-1]); ParseError(m) != ErrTruncated {
			t.Errorf("%v cut: %d", f, m)
		}
	}
	if _, m := CompactLength.Consume([]byte{0x80}); ParseError(m) != ErrTruncated {
		t.Errorf("compact cut: %d", m)
	}
	if _, m := CompactLength.Consume([]byte{0xff, 0xff, 0xff, 0xff, 0x1f}); ParseError(m) != ErrOverflow {
		t.Errorf("compact of 33 bits: %d", m)
	}
}

func TestStrings(t *testing.T) {
	for _, f := range []LengthForm{Int16Length, Int32Length, CompactLength} {
		b := f.AppendString(nil, "ab")
		b = f.Append(b, -1)
		s, null, n := f.ConsumeString(b)
		if string(s) != "ab" || null || n != f.Size(2)+2 {
			t.Errorf("%v: %q %v %d", f, s, null, n)
		}
		if s, null, m := f.ConsumeString(b[n:]); s != nil || !null || m != f.Size(-1) {
			t.Errorf("%v null: %q %v %d", f, s, null, m)
		}
		// A length past the end of the input.
		if _, _, m := f.ConsumeString(b[:n-1]); ParseError(m) != ErrTruncated {
			t.Errorf("%v cut: %d", f, m)
		}
	}
	if id, null, n := ConsumeClientID([]byte{0, 1, 'x', 9}); string(id) != "x" || null || n != 3 {
		t.Errorf("client id: %q %v %d", id, null, n)
	}
}

func TestTaggedFields(t *testing.T) {
	b := AppendUvarint(nil, 2)
	b = AppendTaggedField(b, 0, []byte{1, 2})
	b = AppendTaggedField(b, 300, nil)
	if want := []byte{2, 0, 2, 1, 2, 0xac, 0x02, 0}; !bytes.Equal(b, want) {
		t.Fatalf("% x, want % x", b, want)
	}
	if SizeTaggedField(0, 2)+SizeTaggedField(300, 0)+1 != len(b) {
		t.Errorf("sizes %d + %d + 1, want %d", SizeTaggedField(0, 2), SizeTaggedField(300, 0), len(b))
	}
	tag, data, n := ConsumeTaggedField(b[1:])
	if tag != 0 || !bytes.Equal(data, []byte{1, 2}) || n != 4 {
		t.Errorf("first field: %d % x %d", tag, data, n)
	}
	if c, n := ConsumeTaggedFields(b); c != 2 || n != len(b) {
		t.Errorf("section: %d fields, %d bytes", c, n)
	}
	if c, n := ConsumeTaggedFields([]byte{EmptyTaggedFields, 7}); c != 0 || n != 1 {
		t.Errorf("empty section: %d, %d", c, n)
	}
	// Hostile: a count larger than the bytes, a size past the end, a
	// section cut inside a field.
	for _, in := range [][]byte{{}, {0x7f, 0, 0}, {1, 0, 5, 1}, {1, 0x80}, b[:len(b)-1]} {
		if _, n := ConsumeTaggedFields(in); n >= 0 {
			t.Errorf("section % x: %d, want an error", in, n)
		}
	}
	if _, _, n := ConsumeTaggedField([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f}); ParseError(n) != ErrTruncated {
		t.Errorf("a field of 4 GiB in 6 bytes: %d", n)
	}
}

func TestPresence(t *testing.T) {
	b := AppendPresence(AppendPresence(nil, true), false)
	if !bytes.Equal(b, []byte{1, 0xff}) {
		t.Fatalf("% x", b)
	}
	for _, c := range []struct {
		b               byte
		present, strict bool
	}{{1, true, true}, {0xff, false, true}, {0, true, false}, {2, true, false}, {0x80, false, false}} {
		p, s, n := ConsumePresence([]byte{c.b})
		if p != c.present || s != c.strict || n != 1 {
			t.Errorf("marker %#x: present %v strict %v (%d)", c.b, p, s, n)
		}
	}
	if _, _, n := ConsumePresence(nil); ParseError(n) != ErrTruncated {
		t.Errorf("no marker: %d", n)
	}
}

func TestFramesAndHeads(t *testing.T) {
	b, start := AppendFrameStart([]byte{9})
	b = AppendRequestHead(b, RequestHead{APIKey: 18, APIVersion: -2, CorrelationID: -3})
	b = Int16Length.AppendString(b, "id")
	FinishFrame(b, start)
	want := []byte{9, 0, 0, 0, 12, 0, 18, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xfd, 0, 2, 'i', 'd'}
	if !bytes.Equal(b, want) {
		t.Fatalf("% x\nwant % x", b, want)
	}
	size, n := ConsumeFrameSize(b[1:])
	if size != 12 || n != FrameSizeLen {
		t.Fatalf("size %d, %d", size, n)
	}
	h, m := ConsumeRequestHead(b[1+n:])
	if h != (RequestHead{18, -2, -3}) || m != RequestHeadLen {
		t.Fatalf("head %+v, %d", h, m)
	}
	if c, m := ConsumeResponseCorrelationID(b[1+n+4:]); c != -3 || m != 4 {
		t.Errorf("correlation id %d, %d", c, m)
	}
	PutRequestHead(b[1+n:], RequestHead{APIKey: -1, APIVersion: 7, CorrelationID: 5})
	if h, _ := ConsumeRequestHead(b[1+n:]); h != (RequestHead{-1, 7, 5}) || !bytes.Equal(b[1+n+RequestHeadLen:], want[1+n+RequestHeadLen:]) {
		t.Errorf("PutRequestHead: % x", b)
	}
	if _, n := ConsumeFrameSize([]byte{0x80, 0, 0, 0}); ParseError(n) != ErrRange {
		t.Errorf("negative size: %d", n)
	}
	if _, n := ConsumeRequestHead(b[5:12]); ParseError(n) != ErrTruncated {
		t.Errorf("cut head: %d", n)
	}
}

// No consumer panics or reads past its count on any input.
func FuzzConsumers(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{2, 0, 2, 1, 2, 0xac, 0x02, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(name string, n int) {
			if n > len(b) {
				t.Fatalf("%s took %d of %d bytes", name, n, len(b))
			}
		}
		_, n := ConsumeUvarint(b)
		check("uvarint", n)
		_, n = ConsumeVarlong(b)
		check("varlong", n)
		for _, lf := range []LengthForm{Int16Length, Int32Length, CompactLength} {
			_, _, n = lf.ConsumeString(b)
			check(lf.String(), n)
		}
		_, n = ConsumeTaggedFields(b)
		check("tagged fields", n)
		_, _, n = ConsumePresence(b)
		check("presence", n)
		_, n = ConsumeRequestHead(b)
		check("head", n)
	})
}
