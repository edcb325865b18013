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
// and tagged fields (from one version on, N+, or none). A struct without
// this field accepts every version and is never flexible on its own;
// nested structs take the flexibility of the message that contains them.
//
// reqheader= and respheader= state the header versions the message's
// versions travel with as a request and as a response, as a Kafka 4.5
// schema's headerVersions does: ranges from 0 up, RANGE:HEADER separated
// by slashes, the last open-ended (reqheader=0:0/1-2:1/3+:2). Validate
// holds them to Kafka's rules (see HeaderVersions); without them the
// header is Kafka's derived one (RequestHeaderVersion,
// ResponseHeaderVersion). kwire gen writes them on every request and
// response.
//
// # Field tags
//
//	v=R            versions in which the field is on the wire (required;
//	               `kafka:"-"` keeps an exported field off the wire, and
//	               an exported field with no kafka tag is ErrInvalidSpec,
//	               so a forgotten tag cannot drop a field unseen;
//	               unexported fields are never on the wire)
//	nullable=R     versions in which null (nil pointer, nil slice, nil
//	               []byte) is legal
//	compact        compact lengths in the versions R of compact=R, which
//	               must be flexible versions: a string or bytes that stays
//	               classic in some flexible versions (compact=3+ in a
//	               message flexible from 2), compact=none never (the
//	               request header's ClientID). Without the key: the
//	               message's flexible versions; a bare compact is
//	               compact=0+, for a message flexible in every version. An
//	               array is compact in every flexible version (Kafka
//	               overrides only strings and bytes).
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
// MessageInfoOf, FillMinimal, ...) its tags, and those of every struct inside
// it, are checked at every version it declares, not only the version at
// hand: an unknown key, null on a type that cannot hold it, compact on a
// number or in a version that is not flexible, a tag number used twice in
// one version, a tagged field in a version that is not flexible, a
// default that does not parse or a null default where the field cannot
// be null, and so on.
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
//	introspection  SchemaOf, MessageInfoOf (schema.go), Walk (walk.go), Validate
//	               (validate.go), LayoutRequest, TraceRequest and the LayoutNode
//	               tree (layout.go)
//	errors         Error and the sentinels (errors.go)
//
// A request or response header that is cut short or malformed is an
// *Error with Op "frame", the header's type, the field and its offset,
// alike from ReadRequest, TraceRequest and, for the part it reads,
// PeekRequest (one reader of each header serves them all).
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
// The files. The public API is one concept a file (see "The API by
// concept" above); each entry point there is the implementation, finding
// the message's plan and running the loops on it. The codec behind them
// is unexported, in the files named engine_*.go, in the order a message
// meets them:
//
//	engine_message.go    what an entry point accepts as a message
//	                     (messageOf), and the one helper that finds its
//	                     plan (messagePlan)
//	engine_cache.go      the plan cache: typeInfos, the one store from a
//	                     struct type to its plans, and hotRoots, its fast
//	                     front
//	engine_tag.go        the kafka struct tag grammar
//	engine_plan.go       a type's plans: one per version, the fields on the
//	                     wire, their wire types and offsets; built once,
//	                     then immutable
//	engine_wiretype.go   the wire-type table: per wire type its size,
//	                     bytes, default and zero tests, default parsing,
//	                     fillers, tracer
//	engine_program.go    a plan compiled to instructions for the loops
//	engine_codec_gen.go  the hot loops over the instructions (sizeStruct,
//	                     encodeStruct, decodeStruct), generated by
//	                     internal/genforms (the go:generate line is in
//	                     engine_gen.go); each case names its form
//	engine_forms.go      the wire forms as the loops' fast cases write and
//	                     read them (a short length put, a null put, a
//	                     size, a fast reader; the fixed widths' loads),
//	                     the functions genforms' description names
//	engine_encode.go     the general encode path (sizing's is sizeValue, in
//	                     engine_wiretype.go; engine_size.go holds the one
//	                     error sizing shares with encode); engine_decode.go
//	                     the general decode
//	                     path (decodeState, the arena of strings) and the
//	                     levels a decode passes through: decodeStruct (the
//	                     loop), decodeInstrOutOfLine (an instruction the
//	                     loop hands out), decodeFusedField (one field of
//	                     plan.fused), decodeByWireType (one value, by the
//	                     wire-type table), decodeStructGeneral (a struct
//	                     field by field) and, for the tracer,
//	                     decodeOrTrace and decodeStructOrTrace
//	engine_defaults.go   schema defaults stored before decoding and checked
//	                     before writing a tagged field
//	engine_reset.go      what decoding clears first (reset lists)
//	engine_header.go     the request and response headers, read and
//	                     written once for every caller
//
// The primitive wire forms (fixed widths, varints, the length forms, the
// tagged-field section, the presence marker, the frame's size prefix)
// are package kwire/wire's, which the engine calls and which imports
// nothing of kwire, for the packages that read or write a few fields by
// hand.
//	engine_trace.go      the layout tracer; engine_fill.go the fillers'
//	                     walks; engine_schema.go the Schema cache;
//	                     engine_validate.go the whole-type check
//	engine_errors.go     the field path and offset an error carries up the
//	                     loops, and the *Error it becomes
//	engine_pointer.go    the one type that touches unsafe: an address with
//	                     typed accessors; no other file imports unsafe
//	engine_api.go        what the entry points share: the frame's size
//	                     prefix, the start of a decode, their errors
//
// Each engine file but engine_codec_gen.go and engine_gen.go has its
// test file of the same name.
//
// Repeated code that stays, as `duplicates` (run in kwire/) lists it, each
// pair with why it is not one function:
//
//   - errors.go ~ record/errors.go and ~ pretty/parse.go: lists of
//     different sentinels alike only in shape (errors.New per name); the
//     ones record shares with kwire are kwire's own values.
//   - engine_codec_gen.go ~ internal/genforms/loops.go and ~
//     internal/genforms/forms.go: the generated loops are the skeleton
//     with the description's cases written in, one case per code, alike
//     in shape; each case is written out so that it makes no call (a
//     shared helper would be a call per field; interop/README.md has the
//     rows that pin the loops' instruction counts). Edit genforms, never
//     engine_codec_gen.go.
//   - internal/genforms/forms.go's length forms: each form's function
//     names in the same fields, alike in shape because they are the same
//     pieces of different forms; engine_forms.go's functions of the three
//     length forms likewise.
//   - engine_decode.go's decodeString ~ decodeBytes: the general path's
//     string and byte-string readers, alike up to the null check; they
//     store different Go types through different accessors.
//   - engine_validate_test.go, engine_wire_test.go, engine_tag_test.go,
//     engine_cache_test.go, engine_wiretype_test.go,
//     engine_program_test.go, engine_encode_test.go: struct declarations
//     alike in shape (kafka tags), each the input of its own tests;
//     sharing them would tie unrelated tests to one type.
//     engine_validate_test.go's table rows are alike likewise.
//   - engine_trace_test.go ~ engine_wire_test.go: the same import block.
