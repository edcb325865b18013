package kwire

import (
	"math/rand"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// RandomOptions bounds FillRandom.
type RandomOptions struct {
	MaxLen   int // longest array, string or byte slice; 0 means 8
	MaxDepth int // deepest nesting of structs before arrays stay empty; 0 means 4
}

// FillRandom sets msg (a pointer to a message struct) to a random legal
// instance at version, for property tests and fuzzing: nulls only where the
// version allows them, empty and long values, edge-case numbers, tagged
// fields sometimes set, unknown tagged fields sometimes present. Fields the
// version lacks hold their defaults, as Unmarshal leaves them, so a
// round trip gives back an equal value.
func FillRandom(r *rand.Rand, msg any, version int16, opts RandomOptions) error {
	return engine.FillRandom(r, msg, version, public.RandomOptions(opts))
}
