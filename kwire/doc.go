// Package kwire encodes and decodes the Apache Kafka wire protocol from
// tagged Go structs.
//
// A message is a struct whose fields carry `kafka:"..."` tags. The first
// time a type is seen kwire builds a plan for it (one per type and
// version: the fields on the wire, their wire types and offsets), caches
// it, and runs it for every Marshal, Unmarshal and Size.
//
// # Struct-level tag
//
// A blank field `_ struct{}` carries the message's facts:
//
//	_ struct{} `kafka:"api=68,versions=0-1,flexible=0+"`
//
// api is the API key (optional for non-API structures), versions the
// valid version range, flexible the versions that use compact encodings
// and tagged fields. A struct without this field accepts every version
// and is never flexible on its own; nested structs take the flexibility
// of the message that contains them.
//
// # Field tags
//
//	v=R            versions in which the field is on the wire (required for
//	               a field to be encoded; a field without a kafka tag is
//	               not encoded, `kafka:"-"` likewise)
//	nullable=R     versions in which null (nil pointer, nil slice, nil
//	               []byte) is legal
//	compact        compact encoding in every version; compact=R in the
//	               versions R; compact=none never (the request header's
//	               ClientID). Without the key: the message's flexible
//	               versions.
//	tag=N          tagged field number N ...
//	tagged=R       ... in the versions R (must be flexible versions)
//	default=X      the schema default: null, true, false, an integer
//	               (decimal or 0x hex), a float, or a bare string;
//	               default='X' quotes a string holding commas or quotes,
//	               with '' for one quote: default='a,b', default='it''s'
//	               (a " is written \" inside the Go struct tag)
//	ignorable      a non-default value in a version without the field is
//	               dropped instead of being an error
//	varint         int32 as a zig-zag varint, int64 as a zig-zag varlong
//	uvarint        uint32 (or int32) as an unsigned varint
//	records        a []byte field holding record batches (wire form of
//	               nullable bytes; Unmarshal may alias the input)
//
// A version range R is `0+`, `3-5`, `7` or `none`.
//
// # Validation
//
// The first time a type is used as a message (Marshal, Unmarshal, Size,
// Describe, FillMinimal, ...) its tags, and those of every struct inside
// it, are checked at every version it declares, not only the version at
// hand: an unknown key, null on a type that cannot hold it, compact on a
// number, a tag number used twice in one version, a tagged field in a
// version that is not flexible, a default that does not parse, and so on.
// The error wraps ErrInvalidSpec and names the type, the field, the key
// and the first version the mistake matters in:
//
//	kwire: plan main.Heartbeat.Name: invalid kafka struct tag: key "nullable" at version 0: type string cannot be null (...)
//
// Validate runs the same check on its own, for a test. Package
// kwire/kwiretest goes further for a user's own structs: a round trip at
// every version, a gopter generator, and golden frames.
//
// # The API by concept
//
// Each concept has its file:
//
//	bodies         Marshal, Append, Size, Unmarshal (api.go); Decoder, with
//	               an allocation bound and exact reading (decoder.go)
//	frames         AppendRequest, AppendResponse, ReadRequest, ReadResponse,
//	               PeekRequest, PeekResponse (frame.go); RequestHeader,
//	               ResponseHeader and their versions (header.go)
//	stream framing SplitFrame, FrameReader (stream.go)
//	pairing        Tracker: responses matched to requests (pair.go)
//	negotiation    IntersectVersions, HighestCommonVersion,
//	               AppendUnsupportedAPIVersions (negotiate.go)
//	fillers        FillMinimal, EmptyRecordBatch (minimal.go), FillRandom
//	               (random.go)
//	introspection  SchemaOf, Describe (schema.go), Walk (walk.go), Validate
//	               (validate.go), LayoutRequest, TraceRequest and the Node
//	               tree (layout.go)
//	errors         Error and the sentinels (errors.go)
//
// The codec behind these functions is the engine, kwire/internal/engine,
// which holds (the plan cache, plans, the wire-type table, the
// encode, decode and size loops, the tracer, the fillers; its doc.go maps
// it a file a line). The types kwire shows that the engine uses too are
// defined in kwire/internal/public and written out again here, field for
// field, so that go doc shows them; a call converts between the two
// (free for the flat structs and the headers, which have the engine's
// layout; a copy for a Layout tree, made once per schema for SchemaOf),
// and the engine's errors reach callers as *Error.
//
// A request or response header that is cut short or malformed is an
// *Error with Op "frame", the header's type, the field and its offset,
// alike from ReadRequest, TraceRequest and, for the part it reads,
// PeekRequest (the engine's header.go holds the one reader of each
// header).
//
// Go types give the rest: int8, int16, int32, int64, uint16, uint32,
// float64, bool, string, *string (nullable), []byte, UUID, slices of any
// of these, structs, and pointers to structs (nullable structs, written
// with an int8 presence marker: 1 present, -1 null). A field of type
// UnknownTags keeps tagged fields the struct does not know, in tag order,
// so that a decode followed by an encode gives back the same bytes.
package kwire

// Maintainer notes (after the package clause, so go doc does not show
// them to users).
//
// Repeated code that stays, as `duplicates` (run in kwire/) lists it, each
// pair with why it is not one function (the engine's are in
// internal/engine/doc.go):
//
//   - internal/public/errors.go ~ record/errors.go and ~ pretty/parse.go:
//     lists of different sentinels alike only in shape (errors.New per
//     name); the ones record shares with kwire are kwire's own values.
//   - types.go ~ internal/public/types.go, schema.go ~
//     internal/public/schema.go, header.go ~ internal/public/header.go,
//     errors.go ~ internal/public/errors.go, layout.go ~
//     internal/public/node.go: each public type the engine uses is
//     written out twice, field for field, as the engine's type and as
//     kwire's, because go doc shows no fields or methods of an alias and
//     the engine cannot import kwire. UnknownTags' Len, Fields and Set
//     and NewUnknownTags are written twice too: the engine calls them on
//     its type, and kwire's could reach the engine's only through unsafe
//     (String and the JSON methods are kwire's alone).
