package kwire

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
)

// UUID is Kafka's 16-byte uuid type, written as its raw bytes.
type UUID [16]byte

// String formats the UUID in the usual 8-4-4-4-12 hex form.
func (u UUID) String() string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// MarshalText writes the UUID in the canonical 8-4-4-4-12 hex form, as
// String does, so encoding/json and friends print a UUID as text rather
// than as 16 numbers.
func (u UUID) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText reads the canonical 8-4-4-4-12 hex form (either case). It
// also reads the 22-character URL-safe base64 form that Kafka's own tools
// print (Java's Uuid.toString, as in `kafka-topics --describe`), so an id
// copied from Kafka's output parses; MarshalText always writes hex.
func (u *UUID) UnmarshalText(text []byte) error {
	p, err := ParseUUID(string(text))
	if err != nil {
		return err
	}
	*u = p
	return nil
}

// ParseUUID reads a UUID in the canonical hex form or Kafka's base64 form
// (see UnmarshalText).
func ParseUUID(s string) (UUID, error) {
	var u UUID
	switch len(s) {
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			break
		}
		hexText := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
		if _, err := hex.Decode(u[:], []byte(hexText)); err != nil {
			break
		}
		return u, nil
	case 22:
		n, err := base64.RawURLEncoding.Strict().Decode(u[:], []byte(s))
		if err != nil || n != 16 {
			break
		}
		return u, nil
	}
	return UUID{}, fmt.Errorf("kwire: %q is not a UUID (want 8-4-4-4-12 hex or Kafka's 22-character base64)", s)
}

// Base64 is the UUID in the form Kafka's Java code prints it: URL-safe
// base64 without padding, 22 characters.
func (u UUID) Base64() string { return base64.RawURLEncoding.EncodeToString(u[:]) }
