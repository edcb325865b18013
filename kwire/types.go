package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// TaggedField is one tagged field as it appears on the wire: its tag
// number and its raw (still encoded) value.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.TaggedField
type TaggedField = public.TaggedField

// UnknownTags holds the tagged fields a struct does not declare, in
// ascending tag order. Put a field of this type in a struct to keep them
// across a decode and re-encode; without one they are skipped.
//
// It is one pointer wide, not a slice: nearly every struct has none, and
// every element of a decoded array carries the field, so a 24-byte slice
// header would triple the size of a struct of a few numbers. The zero
// value holds no fields.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.UnknownTags
type UnknownTags = public.UnknownTags

// NewUnknownTags holds fields, which must be in ascending tag order (the
// encoder refuses them otherwise). It shares fields' backing array, as a
// slice assignment would.
func NewUnknownTags(fields ...TaggedField) UnknownTags { return public.NewUnknownTags(fields...) }
