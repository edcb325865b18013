package kwire

import (
	"math/rand"

	"github.com/kwirelabs/kwire/kwire/internal/engine"
	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// RandomOptions bounds FillRandom.
//
// Its fields and methods are documented where it is defined:
// go doc github.com/kwirelabs/kwire/kwire/internal/public.RandomOptions
type RandomOptions = public.RandomOptions

// FillRandom sets msg (a pointer to a message struct) to a random legal
// instance at version, for property tests and fuzzing: nulls only where the
// version allows them, empty and long values, edge-case numbers, tagged
// fields sometimes set, unknown tagged fields sometimes present. Fields the
// version lacks hold their defaults, as Unmarshal leaves them, so a
// round trip gives back an equal value.
func FillRandom(r *rand.Rand, msg any, version int16, opts RandomOptions) error {
	return engine.FillRandom(r, msg, version, opts)
}
