package kwire

import "math/rand"

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
	pl, p, err := messagePlan(msg, version, "fill", writeValue)
	if err != nil {
		return err
	}
	if opts.MaxLen <= 0 {
		opts.MaxLen = 8
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 4
	}
	p.value(pl.typ).SetZero()
	f := randomFiller{r: r, opts: opts}
	f.fillStruct(pl, p, 0)
	return nil
}
