package kwire_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

type varints struct {
	_    struct{} `kafka:"versions=0"`
	I32  int32    `kafka:"v=0+,varint"`
	I64  int64    `kafka:"v=0+,varint"`
	U32  uint32   `kafka:"v=0+,uvarint"`
	UI32 int32    `kafka:"v=0+,uvarint"`
}

// TestVarintLimits pins zig-zag varints, varlongs and uvarints at their
// edges to the bytes Kafka's ByteUtils writes.
func TestVarintLimits(t *testing.T) {
	cases := []struct {
		in   varints
		want string
	}{
		{varints{}, "00 00 00 00"},
		{varints{I32: -1, I64: -1, U32: 1, UI32: 1}, "01 01 01 01"},
		{varints{I32: 1, I64: 1, U32: 127, UI32: 128}, "02 02 7f 8001"},
		{varints{I32: 63, I64: -64, U32: 16383, UI32: 16384}, "7e 7f ff7f 808001"},
		{varints{I32: 64, I64: 64}, "8001 8001 00 00"},
		{varints{I32: math.MaxInt32, I64: math.MaxInt64, U32: math.MaxUint32, UI32: -1},
			"feffffff0f feffffffffffffffff01 ffffffff0f ffffffff0f"},
		{varints{I32: math.MinInt32, I64: math.MinInt64}, "ffffffff0f ffffffffffffffffff01 00 00"},
	}
	for _, c := range cases {
		got, err := kwire.Marshal(&c.in, 0)
		require.NoError(t, err)
		assert.Equal(t, strings.ReplaceAll(c.want, " ", ""), hex.EncodeToString(got), "%+v", c.in)
		var back varints
		require.NoError(t, kwire.Unmarshal(got, &back, 0))
		assert.Equal(t, c.in, back)
	}
}

func TestVarintMalformed(t *testing.T) {
	var v varints
	// A 32-bit varint of six bytes, and one whose fifth byte overflows.
	for _, in := range []string{"808080808000 00 00 00", "ffffffff1f 00 00 00", "00 ffffffffffffffffff02 00 00"} {
		err := kwire.Unmarshal(wiretest.Hex(t, in), &v, 0)
		assert.ErrorIs(t, err, kwire.ErrBadVarint, in)
	}
	err := kwire.Unmarshal(wiretest.Hex(t, "00 00 80"), &v, 0)
	assert.ErrorIs(t, err, kwire.ErrTruncated)
}

type nullables struct {
	_       struct{} `kafka:"versions=0-1,flexible=1+"`
	Str     *string  `kafka:"v=0+,nullable=0+"`
	Bytes   []byte   `kafka:"v=0+,nullable=0+"`
	Ints    []int32  `kafka:"v=0+,nullable=0+"`
	Plain   string   `kafka:"v=0+"`
	NoNulls []int32  `kafka:"v=0+"`
}

// TestNullAndEmpty: null and empty are different bytes, classic and
// compact, and each comes back as it went in.
func TestNullAndEmpty(t *testing.T) {
	empty := ""
	cases := []struct {
		v    int16
		in   nullables
		want string
	}{
		{0, nullables{}, "ffff ffffffff ffffffff 0000 00000000"},
		{0, nullables{Str: &empty, Bytes: []byte{}, Ints: []int32{}, NoNulls: []int32{}}, "0000 00000000 00000000 0000 00000000"},
		{1, nullables{}, "00 00 00 01 01 00"},
		{1, nullables{Str: &empty, Bytes: []byte{}, Ints: []int32{}, NoNulls: []int32{}}, "01 01 01 01 01 00"},
	}
	for _, c := range cases {
		got, err := kwire.Marshal(&c.in, c.v)
		require.NoError(t, err)
		assert.Equal(t, strings.ReplaceAll(c.want, " ", ""), hex.EncodeToString(got))
		var back nullables
		require.NoError(t, kwire.Unmarshal(got, &back, c.v))
		assert.Equal(t, c.in.Str == nil, back.Str == nil)
		assert.Equal(t, c.in.Bytes == nil, back.Bytes == nil)
		assert.Equal(t, c.in.Ints == nil, back.Ints == nil)
	}
	// A nil slice in a field that cannot be null is written as empty:
	// in Go a nil slice is an empty one. Reading a null there is an error.
	err := kwire.Unmarshal(wiretest.Hex(t, "ffff ffffffff ffffffff 0000 ffffffff"), new(nullables), 0)
	assert.ErrorIs(t, err, kwire.ErrNullNotAllowed)
	err = kwire.Unmarshal(wiretest.Hex(t, "ffff ffffffff ffffffff ffff 00000000"), new(nullables), 0)
	assert.ErrorIs(t, err, kwire.ErrNullNotAllowed)
	var kerr *kwire.Error
	require.ErrorAs(t, err, &kerr)
	assert.Equal(t, "Plain", kerr.Path)
	assert.Equal(t, 10, kerr.Offset)
}

type classicString struct {
	_ struct{} `kafka:"versions=0-1,flexible=1+"`
	S string   `kafka:"v=0+"`
}

func TestInt16StringLimit(t *testing.T) {
	ok := classicString{S: strings.Repeat("x", math.MaxInt16)}
	b, err := kwire.Marshal(&ok, 0)
	require.NoError(t, err)
	assert.Len(t, b, 2+math.MaxInt16)

	long := classicString{S: strings.Repeat("x", math.MaxInt16+1)}
	_, err = kwire.Marshal(&long, 0)
	assert.ErrorIs(t, err, kwire.ErrValueOutOfRange)
	b, err = kwire.Marshal(&long, 1) // compact strings have no such limit
	require.NoError(t, err)
	var back classicString
	require.NoError(t, kwire.Unmarshal(b, &back, 1))
	assert.Equal(t, long, back)

	// A negative length other than -1 is a bad length.
	assert.ErrorIs(t, kwire.Unmarshal(wiretest.Hex(t, "fffe"), &back, 0), kwire.ErrInvalidLength)
}

type tagged struct {
	_           struct{} `kafka:"versions=0-2,flexible=1+"`
	A           int32    `kafka:"v=0+"`
	Five        int32    `kafka:"v=1+,tag=5,tagged=1+,default=-1"`
	Late        string   `kafka:"v=2+,tag=7,tagged=2+"`
	UnknownTags kwire.UnknownTags
}

func TestUnknownTagsKeptInOrder(t *testing.T) {
	// A=1; tags 3 (unknown), 5 (Five=2), 10 (unknown, 2 bytes).
	in := wiretest.Hex(t, "00000001 03 03 01 aa 05 04 00000002 0a 02 bbcc")
	var m tagged
	require.NoError(t, kwire.Unmarshal(in, &m, 1))
	assert.Equal(t, int32(2), m.Five)
	assert.Equal(t, kwire.NewUnknownTags(kwire.TaggedField{Tag: 3, Data: []byte{0xaa}}, kwire.TaggedField{Tag: 10, Data: []byte{0xbb, 0xcc}}), m.UnknownTags)
	out, err := kwire.Marshal(&m, 1)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(in), hex.EncodeToString(out))

	// A tagged field at its default is not written; absent, it decodes
	// to its default.
	m = tagged{A: 1, Five: -1}
	out, err = kwire.Marshal(&m, 1)
	require.NoError(t, err)
	assert.Equal(t, "0000000100", hex.EncodeToString(out))
	var back tagged
	require.NoError(t, kwire.Unmarshal(out, &back, 1))
	assert.Equal(t, int32(-1), back.Five)
}

func TestBadTags(t *testing.T) {
	var m tagged
	cases := map[string]string{
		"descending":            "00000001 02 0a 00 03 00",
		"repeated":              "00000001 02 03 00 03 00",
		"known outside version": "00000001 01 07 01 00", // tag 7 is tagged from v2
		"size too small":        "00000001 01 05 02 0000",
	}
	for name, in := range cases {
		err := kwire.Unmarshal(wiretest.Hex(t, in), &m, 1)
		if name == "size too small" {
			assert.ErrorIs(t, err, kwire.ErrTruncated, name)
			continue
		}
		assert.ErrorIs(t, err, kwire.ErrBadTag, name)
	}
	// Unknown tags given out of order are refused on encode.
	m = tagged{UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 9}, kwire.TaggedField{Tag: 8})}
	_, err := kwire.Marshal(&m, 1)
	assert.ErrorIs(t, err, kwire.ErrBadTag)
	// A kept entry with a known field's tag (the field arrived holding its
	// default) is written while the field holds its default; a value set
	// since replaces it.
	m = tagged{Five: -1, UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 5, Data: []byte{0xff, 0xff, 0xff, 0xff}})}
	b, err := kwire.Marshal(&m, 1)
	require.NoError(t, err)
	assert.Equal(t, "00000000"+"01"+"0504"+"ffffffff", hex.EncodeToString(b))
	m.Five = 3
	b, err = kwire.Marshal(&m, 1)
	require.NoError(t, err)
	assert.Equal(t, "00000000"+"01"+"0504"+"00000003", hex.EncodeToString(b))
	n, err := kwire.Size(&m, 1)
	require.NoError(t, err)
	assert.Equal(t, len(b), n)
}

type versioned struct {
	_         struct{} `kafka:"versions=0-2"`
	Always    int32    `kafka:"v=0+"`
	New       int32    `kafka:"v=1+,default=-1"`
	Droppable int64    `kafka:"v=2,ignorable"`
	NullLater *string  `kafka:"v=0+,nullable=1+"`
}

func TestVersionRules(t *testing.T) {
	s := "x"
	// A field the version lacks must hold its default (or zero) ...
	_, err := kwire.Marshal(&versioned{New: 5, NullLater: &s}, 0)
	assert.ErrorIs(t, err, kwire.ErrFieldNotInVersion)
	var kerr *kwire.Error
	require.ErrorAs(t, err, &kerr)
	assert.Equal(t, "New", kerr.Path)
	for _, ok := range []int32{-1, 0} {
		_, err = kwire.Marshal(&versioned{New: ok, NullLater: &s}, 0)
		assert.NoError(t, err)
	}
	// ... unless it is ignorable.
	b, err := kwire.Marshal(&versioned{Droppable: 7, NullLater: &s}, 1)
	require.NoError(t, err)
	var back versioned
	require.NoError(t, kwire.Unmarshal(b, &back, 1))
	assert.Equal(t, int64(0), back.Droppable)
	assert.Equal(t, int32(0), back.New, "on the wire in v1")
	require.NoError(t, kwire.Unmarshal(wiretest.Hex(t, "00000000 0001 78"), &back, 0))
	assert.Equal(t, int32(-1), back.New, "a field the version lacks decodes to its default")

	// Null where the version does not allow it.
	_, err = kwire.Marshal(&versioned{}, 0)
	assert.ErrorIs(t, err, kwire.ErrNullNotAllowed)
	_, err = kwire.Marshal(&versioned{}, 1)
	assert.NoError(t, err)

	// Versions outside the message's range.
	for _, v := range []int16{-1, 3} {
		_, err = kwire.Marshal(&versioned{}, v)
		assert.ErrorIs(t, err, kwire.ErrUnsupportedVersion)
		assert.ErrorIs(t, kwire.Unmarshal(nil, &back, v), kwire.ErrUnsupportedVersion)
	}
}

func TestTrailingAndTruncated(t *testing.T) {
	var m versioned
	assert.ErrorIs(t, kwire.Unmarshal(wiretest.Hex(t, "00000001 0000 ff"), &m, 0), kwire.ErrTrailingBytes)
	err := kwire.Unmarshal(wiretest.Hex(t, "00000001 0005 78"), &m, 0)
	assert.ErrorIs(t, err, kwire.ErrInvalidLength)
	err = kwire.Unmarshal(wiretest.Hex(t, "000000"), &m, 0)
	assert.ErrorIs(t, err, kwire.ErrTruncated)
	var kerr *kwire.Error
	require.ErrorAs(t, err, &kerr)
	assert.Equal(t, "Always", kerr.Path)
	assert.Equal(t, 0, kerr.Offset)
	assert.Contains(t, err.Error(), "kwire: unmarshal kwire_test.versioned.Always at offset 0: truncated input")
}

type outer struct {
	_      struct{} `kafka:"versions=0"`
	Topics []topic  `kafka:"v=0+"`
}

type topic struct {
	Name       string  `kafka:"v=0+"`
	Partitions []int32 `kafka:"v=0+"`
}

// TestHugeLengthIsNotAllocated: a length of two billion in a tiny input
// is refused before anything is allocated for it.
func TestHugeLengthIsNotAllocated(t *testing.T) {
	in := wiretest.Hex(t, "7fffffff 00000000")
	allocs := testing.AllocsPerRun(20, func() {
		err := kwire.Unmarshal(in, new(outer), 0)
		if !errors.Is(err, kwire.ErrInvalidLength) {
			t.Fatalf("got %v", err)
		}
	})
	assert.Less(t, allocs, 10.0)
	var big struct {
		_ struct{} `kafka:"versions=0,flexible=0"`
		S string   `kafka:"v=0+"`
		B []byte   `kafka:"v=0+"`
	}
	assert.ErrorIs(t, kwire.Unmarshal(wiretest.Hex(t, "ffffffff0f"), &big, 0), kwire.ErrInvalidLength)
	assert.ErrorIs(t, kwire.Unmarshal(wiretest.Hex(t, "01 feffffff07"), &big, 0), kwire.ErrInvalidLength)
}

type presence struct {
	_     struct{} `kafka:"versions=0-1"`
	Inner *topic   `kafka:"v=0+,nullable=1+"`
}

func TestNullableStructMarker(t *testing.T) {
	b, err := kwire.Marshal(&presence{}, 1)
	require.NoError(t, err)
	assert.Equal(t, "ff", hex.EncodeToString(b))
	b, err = kwire.Marshal(&presence{Inner: &topic{Name: "a"}}, 1)
	require.NoError(t, err)
	assert.Equal(t, "01000161"+"00000000", hex.EncodeToString(b))
	b, err = kwire.Marshal(&presence{Inner: &topic{Name: "a"}}, 0) // not nullable in v0: no marker
	require.NoError(t, err)
	assert.Equal(t, "000161"+"00000000", hex.EncodeToString(b))
	_, err = kwire.Marshal(&presence{}, 0)
	assert.ErrorIs(t, err, kwire.ErrNullNotAllowed)
	// As Kafka's Java reader: a negative marker is null, any other present.
	var p presence
	require.NoError(t, kwire.Unmarshal(wiretest.Hex(t, "80"), &p, 1))
	assert.Nil(t, p.Inner)
	require.NoError(t, kwire.Unmarshal(wiretest.Hex(t, "02000161"+"00000000"), &p, 1))
	assert.Equal(t, "a", p.Inner.Name)
	// An exact decode takes only the markers encoding writes.
	exact := kwire.Decoder{Exact: true}
	for _, in := range []string{"80", "00000161" + "00000000", "02000161" + "00000000"} {
		err := exact.Unmarshal(wiretest.Hex(t, in), new(presence), 1)
		assert.ErrorIs(t, err, kwire.ErrInvalidLength, in)
		var ke *kwire.Error
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, 0, ke.Offset)
		assert.Equal(t, "Inner", ke.Path)
	}
	require.NoError(t, exact.Unmarshal(wiretest.Hex(t, "ff"), new(presence), 1))
}

func TestVersionRangeParse(t *testing.T) {
	for in, want := range map[string]kwire.VersionRange{
		"0+": {Min: 0, Max: 0x7fff}, "3-5": {Min: 3, Max: 5}, "7": {Min: 7, Max: 7}, "none": kwire.NoVersions,
	} {
		got, err := kwire.ParseVersionRange(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.Equal(t, in, got.String())
	}
	for _, bad := range []string{"", "x", "5-3", "-1", "1-", "+"} {
		_, err := kwire.ParseVersionRange(bad)
		assert.Error(t, err, bad)
	}
}

// Unknown tags cost what they hold: one takes its list's header and one
// 32-byte entry, and a section of many takes one list of 32-byte entries
// (rounded up to the allocator's 8 KiB page), never regrown.
func TestUnknownTagsAllocation(t *testing.T) {
	// The least of five runs: TotalAlloc counts the whole process, and
	// tests running in parallel allocate too.
	allocated := func(in []byte) uint64 {
		var m tagged
		require.NoError(t, kwire.Unmarshal(in, &m, 1)) // the plan is built once
		least := uint64(math.MaxUint64)
		for range 5 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			require.NoError(t, kwire.Unmarshal(in, &m, 1))
			runtime.ReadMemStats(&after)
			least = min(least, after.TotalAlloc-before.TotalAlloc)
		}
		return least
	}
	one := allocated(wiretest.Hex(t, "00000001 01 03 00"))
	assert.LessOrEqual(t, one, uint64(24+32), "one empty unknown tag")

	const n = 10_000
	in := binary.AppendUvarint(wiretest.Hex(t, "00000001"), n)
	for tag := range n {
		in = binary.AppendUvarint(in, uint64(100+tag))
		in = append(in, 0)
	}
	many := allocated(in)
	assert.LessOrEqual(t, many, uint64(32*n+8192+24), "%d empty unknown tags in %d bytes", n, len(in))
	t.Logf("one empty unknown tag: %d bytes; %d: %d bytes for %d input bytes (%.1f×)", one, n, many, len(in), float64(many)/float64(len(in)))
}

// UnknownTags reads back the JSON it writes; none is an empty list, and
// reading an empty list leaves the zero value.
func TestUnknownTagsJSON(t *testing.T) {
	tags := kwire.NewUnknownTags(kwire.TaggedField{Tag: 3, Data: []byte{0xaa}}, kwire.TaggedField{Tag: 9, Data: []byte{}})
	b, err := json.Marshal(tags)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"Tag":3,"Data":"qg=="},{"Tag":9,"Data":""}]`, string(b))
	var back kwire.UnknownTags
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, tags.Fields(), back.Fields())

	b, err = json.Marshal(kwire.UnknownTags{})
	require.NoError(t, err)
	assert.Equal(t, "[]", string(b))
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, kwire.UnknownTags{}, back)
}
