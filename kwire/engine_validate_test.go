package kwire_test

import (
	"encoding/hex"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
)

// Each type below holds one mistake a user could plausibly make.
type (
	nullablePlainString struct {
		_    struct{} `kafka:"versions=0-3"`
		Name string   `kafka:"v=0+,nullable=0+"`
	}
	fieldBeyondVersions struct {
		_     struct{} `kafka:"versions=0-3"`
		Epoch int32    `kafka:"v=5+"`
	}
	compactInt32 struct {
		_     struct{} `kafka:"versions=0-3,flexible=2+"`
		Count int32    `kafka:"v=0+,compact"`
	}
	nullableOutsideV struct {
		_     struct{} `kafka:"versions=0-3"`
		Topic *string  `kafka:"v=2+,nullable=0+"`
	}
	duplicateTagInV3 struct {
		_    struct{} `kafka:"versions=0-3,flexible=0+"`
		Rack string   `kafka:"v=0+,tag=0,tagged=0+"`
		Zone string   `kafka:"v=3+,tag=0,tagged=3+"`
	}
	taggedWithoutTag struct {
		_    struct{} `kafka:"versions=0-1,flexible=0+"`
		Rack string   `kafka:"v=0+,tagged=0+"`
	}
	tagWithoutTagged struct {
		_    struct{} `kafka:"versions=0-1,flexible=0+"`
		Rack string   `kafka:"v=0+,tag=1"`
	}
	taggedNotFlexible struct {
		_    struct{} `kafka:"versions=0-3,flexible=2+"`
		Rack string   `kafka:"v=0+,tag=0,tagged=1+"`
	}
	varintOnString struct {
		_    struct{} `kafka:"versions=0"`
		Name string   `kafka:"v=0+,varint"`
	}
	uvarintOnInt64 struct {
		_  struct{} `kafka:"versions=0"`
		ID int64    `kafka:"v=0+,uvarint"`
	}
	recordsOnString struct {
		_       struct{} `kafka:"versions=0"`
		Records string   `kafka:"v=0+,records"`
	}
	recordsOnSlice struct {
		_       struct{} `kafka:"versions=0"`
		Records []int32  `kafka:"v=0+,records"`
	}
	defaultNotAnInt struct {
		_       struct{} `kafka:"versions=0-2"`
		Timeout int32    `kafka:"v=1+,default=soon"`
	}
	defaultTooBig struct {
		_     struct{} `kafka:"versions=0"`
		Limit int16    `kafka:"v=0+,default=70000"`
	}
	defaultNullOnString struct {
		_    struct{} `kafka:"versions=0"`
		Name string   `kafka:"v=0+,default=null"`
	}
	// Default errors call a field by its wire type as Schema does.
	defaultNotAFloat struct {
		_     struct{} `kafka:"versions=0"`
		Ratio float64  `kafka:"v=0+,default=half"`
	}
	defaultNotABool struct {
		_    struct{} `kafka:"versions=0"`
		Flag bool     `kafka:"v=0+,default=yes"`
	}
	defaultNotAVarlong struct {
		_      struct{} `kafka:"versions=0"`
		Offset int64    `kafka:"v=0+,varint,default=far"`
	}
	defaultOnNullableBytes struct {
		_    struct{} `kafka:"versions=0"`
		Data []byte   `kafka:"v=0+,nullable=0+,default=x"`
	}
	defaultOnRecords struct {
		_       struct{} `kafka:"versions=0"`
		Records []byte   `kafka:"v=0+,records,default=x"`
	}
	defaultOnUUID struct {
		_  struct{}   `kafka:"versions=0"`
		ID kwire.UUID `kafka:"v=0+,default=0"`
	}
	unknownKey struct {
		_    struct{} `kafka:"versions=0"`
		Name string   `kafka:"v=0+,nulable=0+"`
	}
	unknownMessageKey struct {
		_    struct{} `kafka:"apikey=1000,versions=0"`
		Name string   `kafka:"v=0+"`
	}
	missingV struct {
		_    struct{} `kafka:"versions=0"`
		Name string   `kafka:"nullable=0+"`
	}
	taggedOutsideV struct {
		_    struct{} `kafka:"versions=0-3,flexible=0+"`
		Rack string   `kafka:"v=2+,tag=0,tagged=0+"`
	}
	backwardsRange struct {
		_    struct{} `kafka:"versions=0-3"`
		Name string   `kafka:"v=3-1"`
	}
	keyTwice struct {
		_    struct{} `kafka:"versions=0-3"`
		Name *string  `kafka:"v=0+,nullable=1+,nullable=2+"`
	}
	unknownTagsWrongType struct {
		_           struct{} `kafka:"versions=0,flexible=0+"`
		Name        string   `kafka:"v=0+"`
		UnknownTags map[uint32][]byte
	}
	unknownTagsUnexported struct {
		_    struct{} `kafka:"versions=0,flexible=0+"`
		Name string   `kafka:"v=0+"`
		//lint:ignore U1000 the test is that the codec refuses an unexported one
		unknownTags kwire.UnknownTags
	}
	twoUnknownTags struct {
		_     struct{} `kafka:"versions=0,flexible=0+"`
		Tags  kwire.UnknownTags
		Extra kwire.UnknownTags
	}
	unsupportedGoType struct {
		_     struct{} `kafka:"versions=0"`
		Count int      `kafka:"v=0+"`
	}
	arrayOfNullable struct {
		_     struct{}  `kafka:"versions=0"`
		Names []*string `kafka:"v=0+"`
	}
	arrayOfNullableStructs struct {
		_     struct{}    `kafka:"versions=0"`
		Items []*badInner `kafka:"v=0+"`
	}
	negativeAPIKey struct {
		_ struct{} `kafka:"api=-3,versions=0"`
	}
	noVersions struct {
		_ struct{} `kafka:"api=1000,versions=none"`
	}
	flexibleBeyondVersions struct {
		_ struct{} `kafka:"api=1000,versions=0-3,flexible=4+"`
	}
	unterminatedQuote struct {
		_    struct{} `kafka:"versions=0"`
		Name string   `kafka:"v=0+,default='a,b"`
	}
	flagWithValue struct {
		_     struct{} `kafka:"versions=0"`
		Count int32    `kafka:"v=0+,varint=yes"`
	}
	nullableUUID struct {
		_  struct{}   `kafka:"versions=0-4"`
		ID kwire.UUID `kafka:"v=0+,nullable=4+"`
	}
	// The mistake is in a nested type, in a version only the outer type
	// makes flexible: found at first use of the outer type.
	outerOfBadInner struct {
		_     struct{}   `kafka:"versions=0-5,flexible=4+"`
		Items []badInner `kafka:"v=0+"`
	}
	badInner struct {
		Name string `kafka:"v=0+"`
		Rack string `kafka:"v=0+,tag=0,tagged=3+"`
	}
	// Kafka writes compact lengths only in flexible versions: compact in a
	// classic version would put "ab" on the wire as 03 61 62.
	compactNotFlexible struct {
		_    struct{} `kafka:"versions=0-2,flexible=2+"`
		Name string   `kafka:"v=0+,compact"`
	}
	compactRangeNotFlexible struct {
		_    struct{} `kafka:"versions=0-3,flexible=2+"`
		Name string   `kafka:"v=0+,compact=1+"`
	}
	outerOfCompactInner struct {
		_     struct{}       `kafka:"versions=0-1,flexible=1+"`
		Items []compactInner `kafka:"v=0+"`
	}
	compactInner struct {
		Name string `kafka:"v=0+,compact"`
	}
	arrayNotCompactWhenFlexible struct {
		_     struct{} `kafka:"versions=0-1,flexible=0+"`
		Items []int32  `kafka:"v=0+,compact=none"`
	}
	flexibleEndsEarly struct {
		_ struct{} `kafka:"versions=0-3,flexible=1-2"`
	}
	nullDefaultNotNullable struct {
		_    struct{} `kafka:"versions=0-3"`
		Name *string  `kafka:"v=0+,nullable=1+,default=null"`
	}
	twoMessageTags struct {
		_ struct{} `kafka:"versions=0"`
		_ struct{} `kafka:"versions=0-1"`
	}
	// A forgotten tag: Name was never written, and Validate passed.
	untaggedExported struct {
		_    struct{} `kafka:"versions=0"`
		ID   int32    `kafka:"v=0+"`
		Name string
	}
)

// TestValidateNamesEveryMistake runs Validate on one mistake per type and
// checks its exact message, then that MessageInfoOf, Marshal, Unmarshal and
// FillRandom report the same error at their first use of the type, whatever
// the version asked for.
func TestValidateNamesEveryMistake(t *testing.T) {
	cases := []struct {
		msg  any
		want string
	}{
		{&nullablePlainString{}, `kwire: plan kwire_test.nullablePlainString.Name: invalid kafka struct tag: key "nullable" at version 0: type string cannot be null (null needs *string, []byte, a slice or a pointer to a struct)`},
		{&fieldBeyondVersions{}, `kwire: plan kwire_test.fieldBeyondVersions.Epoch: invalid kafka struct tag: key "v" at version 5: v=5+ is outside the message's versions=0-3`},
		{&compactInt32{}, `kwire: plan kwire_test.compactInt32.Count: invalid kafka struct tag: key "compact" at version 0: type int32 has no length to make compact (compact is for strings, bytes and arrays)`},
		{&nullableOutsideV{}, `kwire: plan kwire_test.nullableOutsideV.Topic: invalid kafka struct tag: key "nullable" at version 0: nullable=0+ starts before the field is on the wire (v=2+)`},
		{&duplicateTagInV3{}, `kwire: plan kwire_test.duplicateTagInV3.Zone: invalid kafka struct tag: key "tag" at version 3: tag 0 is also the tag of Rack`},
		{&taggedWithoutTag{}, `kwire: plan kwire_test.taggedWithoutTag.Rack: invalid kafka struct tag: key "tagged": without tag=N: say the tag number`},
		{&tagWithoutTagged{}, `kwire: plan kwire_test.tagWithoutTagged.Rack: invalid kafka struct tag: key "tag": without tagged=R: say in which versions the field is tagged`},
		{&taggedNotFlexible{}, `kwire: plan kwire_test.taggedNotFlexible.Rack: invalid kafka struct tag: key "tagged" at version 1: tagged in a version that is not flexible (tagged fields exist only in flexible versions)`},
		{&varintOnString{}, `kwire: plan kwire_test.varintOnString.Name: invalid kafka struct tag: key "varint" at version 0: varint on string (it applies to int32 or int64, or a slice of them)`},
		{&uvarintOnInt64{}, `kwire: plan kwire_test.uvarintOnInt64.ID: invalid kafka struct tag: key "uvarint" at version 0: uvarint on int64 (it applies to uint32 or int32, or a slice of them)`},
		{&recordsOnString{}, `kwire: plan kwire_test.recordsOnString.Records: invalid kafka struct tag: key "records" at version 0: records needs a []byte field, not string`},
		{&recordsOnSlice{}, `kwire: plan kwire_test.recordsOnSlice.Records: invalid kafka struct tag: key "records" at version 0: records needs a []byte field, not []int32`},
		{&defaultNotAnInt{}, `kwire: plan kwire_test.defaultNotAnInt.Timeout: invalid kafka struct tag: key "default" at version 1: "soon" is not a valid int32`},
		{&defaultTooBig{}, `kwire: plan kwire_test.defaultTooBig.Limit: invalid kafka struct tag: key "default" at version 0: "70000" is not a valid int16`},
		{&defaultNullOnString{}, `kwire: plan kwire_test.defaultNullOnString.Name: invalid kafka struct tag: key "default" at version 0: null on a string field, which cannot be null (use *string)`},
		{&defaultNotAFloat{}, `kwire: plan kwire_test.defaultNotAFloat.Ratio: invalid kafka struct tag: key "default" at version 0: "half" is not a valid float64`},
		{&defaultNotABool{}, `kwire: plan kwire_test.defaultNotABool.Flag: invalid kafka struct tag: key "default" at version 0: "yes" is not a valid bool`},
		{&defaultNotAVarlong{}, `kwire: plan kwire_test.defaultNotAVarlong.Offset: invalid kafka struct tag: key "default" at version 0: "far" is not a valid varlong`},
		{&defaultOnNullableBytes{}, `kwire: plan kwire_test.defaultOnNullableBytes.Data: invalid kafka struct tag: key "default" at version 0: "x" on a nullable_bytes field: only null can be its default`},
		{&defaultOnRecords{}, `kwire: plan kwire_test.defaultOnRecords.Records: invalid kafka struct tag: key "default" at version 0: "x" on a records field: only null can be its default`},
		{&defaultOnUUID{}, `kwire: plan kwire_test.defaultOnUUID.ID: invalid kafka struct tag: key "default" at version 0: a uuid field takes no default`},
		{&unknownKey{}, `kwire: plan kwire_test.unknownKey.Name: invalid kafka struct tag: key "nulable": unknown key (field keys: v, nullable, compact, tag, tagged, default, ignorable, varint, uvarint, records)`},
		{&unknownMessageKey{}, `kwire: plan kwire_test.unknownMessageKey._: invalid kafka struct tag: key "apikey": unknown key (struct keys on the _ field: api, versions, flexible, reqheader, respheader)`},
		{&missingV{}, `kwire: plan kwire_test.missingV.Name: invalid kafka struct tag: key "v": missing: a field needs the versions it is on the wire in (v=0+, v=3-5, v=none)`},
		{&taggedOutsideV{}, `kwire: plan kwire_test.taggedOutsideV.Rack: invalid kafka struct tag: key "tagged" at version 0: tagged=0+ reaches a version the field is not on the wire in (v=2+)`},
		{&backwardsRange{}, `kwire: plan kwire_test.backwardsRange.Name: invalid kafka struct tag: key "v": version range "3-1" is backwards`},
		{&keyTwice{}, `kwire: plan kwire_test.keyTwice.Name: invalid kafka struct tag: key "nullable": given twice`},
		{&unknownTagsWrongType{}, `kwire: plan kwire_test.unknownTagsWrongType.UnknownTags: invalid kafka struct tag: type map[uint32][]uint8: a field named UnknownTags must have type kwire.UnknownTags`},
		{&unknownTagsUnexported{}, `kwire: plan kwire_test.unknownTagsUnexported.unknownTags: invalid kafka struct tag: an unexported UnknownTags field is never filled: export it`},
		{&twoUnknownTags{}, `kwire: plan kwire_test.twoUnknownTags.Extra: invalid kafka struct tag: a second UnknownTags field`},
		{&unsupportedGoType{}, `kwire: plan kwire_test.unsupportedGoType.Count: invalid kafka struct tag: at version 0: unsupported Go type int`},
		{&arrayOfNullable{}, `kwire: plan kwire_test.arrayOfNullable.Names: invalid kafka struct tag: at version 0: []*string: arrays of nullable elements are not part of the protocol`},
		{&arrayOfNullableStructs{}, `kwire: plan kwire_test.arrayOfNullableStructs.Items: invalid kafka struct tag: at version 0: []*kwire_test.badInner: arrays of nullable elements are not part of the protocol`},
		{&negativeAPIKey{}, `kwire: plan kwire_test.negativeAPIKey._: invalid kafka struct tag: key "api": negative API key -3`},
		{&noVersions{}, `kwire: plan kwire_test.noVersions._: invalid kafka struct tag: key "versions": a message needs at least one version`},
		{&flexibleBeyondVersions{}, `kwire: plan kwire_test.flexibleBeyondVersions._: invalid kafka struct tag: key "flexible": flexible=4+ is outside versions=0-3 (write flexible=none)`},
		{&unterminatedQuote{}, `kwire: plan kwire_test.unterminatedQuote.Name: invalid kafka struct tag: key "default": unterminated quote`},
		{&flagWithValue{}, `kwire: plan kwire_test.flagWithValue.Count: invalid kafka struct tag: key "varint": takes no value`},
		{&nullableUUID{}, `kwire: plan kwire_test.nullableUUID.ID: invalid kafka struct tag: key "nullable" at version 4: type kwire.UUID cannot be null (null needs *string, []byte, a slice or a pointer to a struct)`},
		{&outerOfBadInner{}, `kwire: plan kwire_test.badInner.Rack: invalid kafka struct tag: key "tagged" at version 3: tagged in a version that is not flexible (tagged fields exist only in flexible versions)`},
		{&compactNotFlexible{}, `kwire: plan kwire_test.compactNotFlexible.Name: invalid kafka struct tag: key "compact" at version 0: compact in a version that is not flexible (Kafka writes compact lengths only in flexible versions)`},
		{&compactRangeNotFlexible{}, `kwire: plan kwire_test.compactRangeNotFlexible.Name: invalid kafka struct tag: key "compact" at version 1: compact in a version that is not flexible (Kafka writes compact lengths only in flexible versions)`},
		{&outerOfCompactInner{}, `kwire: plan kwire_test.compactInner.Name: invalid kafka struct tag: key "compact" at version 0: compact in a version that is not flexible (Kafka writes compact lengths only in flexible versions)`},
		{&arrayNotCompactWhenFlexible{}, `kwire: plan kwire_test.arrayNotCompactWhenFlexible.Items: invalid kafka struct tag: key "compact" at version 0: compact=none leaves the array non-compact in a flexible version (an array is compact in every flexible version; only strings and bytes opt out)`},
		{&flexibleEndsEarly{}, `kwire: plan kwire_test.flexibleEndsEarly._: invalid kafka struct tag: key "flexible": flexible=1-2 ends before versions=0-3 does (a message stays flexible from its first flexible version on: write flexible=1+)`},
		{&nullDefaultNotNullable{}, `kwire: plan kwire_test.nullDefaultNotNullable.Name: invalid kafka struct tag: key "default" at version 0: null, but the field is not nullable in this version (nullable= must hold wherever the field is on the wire)`},
		{&twoMessageTags{}, `kwire: plan kwire_test.twoMessageTags._: invalid kafka struct tag: a second message tag (one _ field carries api, versions and flexible)`},
		{&untaggedExported{}, `kwire: plan kwire_test.untaggedExported.Name: invalid kafka struct tag: an exported field without a kafka tag is never on the wire: tag it (v=0+), or write kafka:"-" to keep it off`},
	}
	require.GreaterOrEqual(t, len(cases), 20)
	for _, c := range cases {
		name := reflect.TypeOf(c.msg).Elem().Name()
		t.Run(name, func(t *testing.T) {
			err := kwire.Validate(c.msg)
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			var ke *kwire.Error
			require.True(t, errors.As(err, &ke))
			assert.ErrorIs(t, err, kwire.ErrInvalidSpec)

			info, derr := kwire.MessageInfoOf(c.msg)
			assert.Equal(t, kwire.MessageInfo{}, info)
			assert.EqualError(t, derr, c.want)
			// Version 0 is valid for every type here (bar noVersions), and
			// the mistakes sit in other versions too: still reported.
			_, merr := kwire.Marshal(c.msg, 0)
			assert.EqualError(t, merr, c.want)
			assert.EqualError(t, kwire.Unmarshal([]byte{0}, c.msg, 0), c.want)
			_, serr := kwire.Size(c.msg, 0)
			assert.EqualError(t, serr, c.want)
		})
	}
}

// TestValidateFirstUseOfAFreshType checks the first use itself, before
// Validate has seen the type: a marshal at a good version still fails.
func TestValidateFirstUseOfAFreshType(t *testing.T) {
	type freshDuplicate struct {
		_ struct{} `kafka:"versions=0-3,flexible=0+"`
		A int32    `kafka:"v=0+,tag=1,tagged=0+"`
		B int32    `kafka:"v=3+,tag=1,tagged=3+"`
	}
	_, err := kwire.Marshal(&freshDuplicate{}, 0)
	assert.EqualError(t, err, `kwire: plan kwire_test.freshDuplicate.B: invalid kafka struct tag: key "tag" at version 3: tag 1 is also the tag of A`)
}

// compactOnlyWhereFlexible uses compact as Kafka can: a string that stays
// classic in a flexible version (v2) and is compact from v3, an array
// whose compact range is its message's flexible versions.
type compactOnlyWhereFlexible struct {
	_     struct{} `kafka:"versions=0-3,flexible=2+"`
	Name  string   `kafka:"v=0+,compact=3+"`
	Items []int32  `kafka:"v=0+,compact=2+"`
	Owner *string  `kafka:"v=0+,nullable=0+,compact=none,default=null"`
}

func TestValidateAcceptsGoodTypes(t *testing.T) {
	for _, m := range []any{&wiretest.Heartbeat{}, reflect.TypeOf(wiretest.HeartbeatTopic{}), &quotedDefaults{}, &compactOnlyWhereFlexible{}} {
		assert.NoError(t, kwire.Validate(m))
	}
}

// compact=R moves a string's length form only inside the flexible
// versions: an int16 length at v1 (classic) and v2 (flexible, outside R),
// a uvarint from v3; the array is compact wherever the message is
// flexible, and compact=none keeps the nullable string classic.
func TestCompactRangeInsideFlexible(t *testing.T) {
	m := compactOnlyWhereFlexible{Name: "ab", Items: []int32{}}
	for v, want := range map[int16]string{
		1: "00026162" + "00000000" + "ffff",
		2: "00026162" + "01" + "ffff" + "00",
		3: "036162" + "01" + "ffff" + "00",
	} {
		b, err := kwire.Marshal(&m, v)
		require.NoError(t, err)
		assert.Equal(t, want, hex.EncodeToString(b), "version %d", v)
	}
}
