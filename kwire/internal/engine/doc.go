// Package engine is kwire's codec: it turns a tagged Go struct type into
// plans and runs them to encode, decode, size, trace and fill messages.
// Package kwire is its public face: each kwire function calls the engine
// function of the same name in api.go, trace.go, fill.go, schema.go or
// validate.go, and the types both show users live in kwire/internal/public.
//
// A file a part, in the order a message meets them:
//
//	message.go    what an entry point accepts as a message (messageOf), and
//	              the one helper that finds its plan (messagePlan)
//	cache.go      the plan cache: typeInfos, the one store from a struct
//	              type to its plans, and hotRoots, its fast front
//	tag.go        the kafka struct tag grammar
//	plan.go       a type's plans: one per version, the fields on the wire,
//	              their wire types and offsets; built once, then immutable
//	wiretype.go   the wire-type table: per wire type its size, bytes,
//	              default and zero tests, default parsing, fillers, tracer
//	program.go    a plan compiled to instructions for the loops
//	encode.go     the encode loop; size.go the size loop; decode.go the
//	              decode loop (decodeState, the arena of strings)
//	defaults.go   schema defaults stored before decoding and checked
//	              before writing a tagged field
//	reset.go      what decoding clears first (reset lists)
//	wire.go       varints and lengths; header.go the request and response
//	              headers, read and written once for every caller
//	trace.go      the layout trace; fill.go FillMinimal and FillRandom;
//	              schema.go SchemaOf, Describe; validate.go Validate
//	errors.go     the field path and offset an error carries up the loops
//	pointer.go    the one type that touches unsafe: an address with typed
//	              accessors; no other file imports unsafe
//	api.go        the entry points kwire calls
//
// Each file has its test file of the same name.
package engine

// Maintainer notes (after the package clause, so go doc does not show
// them).
//
// Repeated code that stays, as `duplicates` (run in kwire/) lists it, each
// pair with why it is not one function:
//
//   - codec_gen.go ~ genforms/loops.go and ~ genforms/forms.go: the
//     generated loops are the skeleton with the description's cases
//     written in, one case per code, alike in shape; each case is written
//     out so that it makes no call (a shared helper would be a call per
//     field; interop/README.md has the rows that pin the loops'
//     instruction counts). Edit genforms, never codec_gen.go.
//   - genforms/forms.go's length forms: each form's snippets in the same
//     fields, alike in shape because they are the same pieces of
//     different forms.
//   - decode.go's decodeString ~ decodeBytes: the general path's string
//     and byte-string readers, alike up to the null check; they store
//     different Go types through different accessors.
//   - validate_test.go, wire_test.go, tag_test.go, cache_test.go,
//     wiretype_test.go, program_test.go, encode_test.go: struct
//     declarations alike in shape (kafka tags), each the input of its own
//     tests; sharing them would tie unrelated tests to one type.
//     validate_test.go's table rows are alike likewise.
//   - trace_test.go ~ wire_test.go: the same import block.
