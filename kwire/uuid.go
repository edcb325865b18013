package kwire

import public "github.com/kwirelabs/kwire/kwire/internal/public"

// ParseUUID reads a UUID in the canonical hex form or Kafka's base64 form
// (see UnmarshalText).
func ParseUUID(s string) (UUID, error) { return public.ParseUUID(s) }
