package kwire

import (
	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// Schema is the shape of a struct type at one version, as the codec sees
// it: the fields on the wire in that version, in wire order, then the
// tagged fields by tag number. It is read from the codec's own plans, so
// it agrees with Marshal and Unmarshal. Tools that show or inspect values
// (JSON, summaries, error scans) work from it rather than from the struct
// tags.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.Schema
type Schema = public.Schema

// Field is one field of a Schema (or, as Field.Elem, an array's element).
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.Field
type Field = public.Field

// SchemaOf returns the schema of msg's type (a struct, a pointer to one,
// or a reflect.Type of either) at version. The version must be one the
// message declares (Describe says which); its flexible versions decide
// compactness and tags. Schemas are cached: callers must not modify them.
func SchemaOf(msg any, version int16) (*Schema, error) { return engine.SchemaOf(msg, version) }

// MessageInfo is what a message struct's `_ struct{}` tag declares.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.MessageInfo
type MessageInfo = public.MessageInfo

// Describe returns the message facts of msg's type (a struct, a pointer to
// one, or a reflect.Type of either), or an error if its tags are invalid
// at any version it declares (see Validate). It answers what holds at
// every version (the API, which versions exist); SchemaOf answers what
// one version holds.
func Describe(msg any) (MessageInfo, error) { return engine.Describe(msg) }
