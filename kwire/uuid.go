package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// UUID is Kafka's 16-byte uuid type, written as its raw bytes.
type UUID [16]byte

// String formats the UUID in the usual 8-4-4-4-12 hex form.
func (u UUID) String() string { return public.UUID(u).String() }

// MarshalText writes the UUID in the canonical 8-4-4-4-12 hex form, as
// String does, so encoding/json and friends print a UUID as text rather
// than as 16 numbers.
func (u UUID) MarshalText() ([]byte, error) { return public.UUID(u).MarshalText() }

// UnmarshalText reads the canonical 8-4-4-4-12 hex form (either case). It
// also reads the 22-character URL-safe base64 form that Kafka's own tools
// print (Java's Uuid.toString, as in `kafka-topics --describe`), so an id
// copied from Kafka's output parses; MarshalText always writes hex.
func (u *UUID) UnmarshalText(text []byte) error { return (*public.UUID)(u).UnmarshalText(text) }

// ParseUUID reads a UUID in the canonical hex form or Kafka's base64 form
// (see UnmarshalText).
func ParseUUID(s string) (UUID, error) {
	u, err := public.ParseUUID(s)
	return UUID(u), err
}

// Base64 is the UUID in the form Kafka's Java code prints it: URL-safe
// base64 without padding, 22 characters.
func (u UUID) Base64() string { return public.UUID(u).Base64() }
