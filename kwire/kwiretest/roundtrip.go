// Package kwiretest checks users' own kwire message structs: a round-trip
// test over every version a type declares, a gopter generator of random
// legal instances, and golden files of a frame and its layout tree. Import
// it from tests only.
package kwiretest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
)

// Option adjusts RoundTrip.
type Option func(*config)

type config struct {
	versions    kwire.VersionRange
	hasVersions bool
	samples     int
	seed        int64
}

// Versions limits RoundTrip to versions lo-hi. A type without a `_`
// struct tag declares every version, so it needs this option.
func Versions(lo, hi int16) Option {
	return func(c *config) { c.versions, c.hasVersions = kwire.VersionRange{Min: lo, Max: hi}, true }
}

// Samples sets how many random instances RoundTrip checks per version
// (default 50).
func Samples(n int) Option { return func(c *config) { c.samples = n } }

// Seed sets the seed of RoundTrip's random instances and bytes (default 1,
// so a failure repeats).
func Seed(s int64) Option { return func(c *config) { c.seed = s } }

// RoundTrip checks the codec's properties for msg's type (a pointer to a
// tagged struct) at every version it declares: its tags are valid; msg
// itself, after the version's projection (fields the version lacks at
// their defaults, nil slices as empty ones), and the smallest legal
// instance, and random legal instances, each satisfy Check; and random
// bytes, alone or after a valid prefix or with a byte flipped, decode to
// an error or a value but never panic. A value of msg's that a version
// cannot carry (a non-default field the version lacks, a null it does not
// allow) is skipped at that version.
func RoundTrip(t testing.TB, msg any, opts ...Option) {
	t.Helper()
	cfg := config{samples: 50, seed: 1}
	for _, o := range opts {
		o(&cfg)
	}
	info, err := kwire.MessageInfoOf(msg)
	if err != nil {
		t.Fatalf("kwiretest: %v", err)
	}
	typ := reflect.TypeOf(msg)
	if typ.Kind() != reflect.Pointer {
		t.Fatalf("kwiretest: RoundTrip needs a pointer to a struct, not %s", typ)
	}
	versions := info.Versions
	if cfg.hasVersions {
		versions = cfg.versions
	} else if versions.Max == kwire.AllVersions.Max {
		t.Fatalf("kwiretest: %s declares no last version (no `_ struct{}` tag with versions=R): pass kwiretest.Versions", typ.Elem())
	}
	r := rand.New(rand.NewSource(cfg.seed))
	for v := versions.Min; v <= versions.Max && v >= versions.Min; v++ {
		fresh := func() any { return reflect.New(typ.Elem()).Interface() }
		var samples []any
		if projected, ok, err := project(msg, fresh(), v); err != nil {
			t.Errorf("%s v%d: the value given: %v", typ.Elem(), v, err)
		} else if ok {
			samples = append(samples, projected)
		}
		minimal := fresh()
		if err := kwire.FillMinimal(minimal, v); err != nil {
			t.Fatalf("kwiretest: %v", err)
		}
		samples = append(samples, minimal)
		for i := 0; i < cfg.samples; i++ {
			m := fresh()
			if err := kwire.FillRandom(r, m, v, kwire.RandomOptions{MaxLen: 1 + i%8}); err != nil {
				t.Fatalf("kwiretest: %v", err)
			}
			samples = append(samples, m)
		}
		for i, m := range samples {
			if err := check(m, v, 4096); err != nil {
				t.Errorf("%s v%d, sample %d: %v\nvalue: %+v", typ.Elem(), v, i, err, m)
				break
			}
		}
		if err := hostileBytes(r, samples[len(samples)-1], fresh, v); err != nil {
			t.Errorf("%s v%d: %v", typ.Elem(), v, err)
		}
	}
}

// project returns msg as version v carries it: decoded from its own
// encoding. ok is false when v cannot carry msg at all.
func project(msg, into any, v int16) (projected any, ok bool, err error) {
	b, err := kwire.Marshal(msg, v)
	switch {
	case errors.Is(err, kwire.ErrFieldNotInVersion), errors.Is(err, kwire.ErrNullNotAllowed), errors.Is(err, kwire.ErrValueOutOfRange):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	if err := kwire.Unmarshal(b, into, v); err != nil {
		return nil, false, fmt.Errorf("its own encoding does not decode: %w\nbytes %x", err, b)
	}
	return into, true, nil
}

// Check runs the codec's properties on one legal value at version (msg is
// a pointer to a tagged struct): Size agrees with Marshal; encoding is
// deterministic and appends cleanly after other bytes; Unmarshal gives back
// an equal value (reflect.DeepEqual), which encodes to the same bytes;
// strict prefixes of the encoding (32 of them, spread evenly; RoundTrip
// tries every one), and the encoding with a byte more, decode to a
// *kwire.Error and never panic. Use it in gopter properties over Gen.
func Check(msg any, version int16) error { return check(msg, version, 32) }

// check is Check trying at most maxCuts prefixes.
func check(msg any, version int16, maxCuts int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	fresh := func() any { return reflect.New(reflect.TypeOf(msg).Elem()).Interface() }
	b, err := kwire.Marshal(msg, version)
	if err != nil {
		return fmt.Errorf("marshal: %w", err)
	}
	if n, err := kwire.Size(msg, version); err != nil || n != len(b) {
		return fmt.Errorf("kwire.Size says %d (%v), Marshal wrote %d bytes", n, err, len(b))
	}
	again, err := kwire.Append([]byte("prefix"), msg, version)
	if err != nil || string(again[:6]) != "prefix" || !bytes.Equal(again[6:], b) {
		return fmt.Errorf("a second encoding differs (%v):\n first %x\nsecond %x", err, b, again[min(6, len(again)):])
	}
	back := fresh()
	if err := kwire.Unmarshal(b, back, version); err != nil {
		return fmt.Errorf("unmarshal: %w\nbytes %x", err, b)
	}
	if !reflect.DeepEqual(msg, back) {
		return fmt.Errorf("the decoded value differs\n    in: %+v\n   out: %+v\nbytes %x", msg, back, b)
	}
	if b2, err := kwire.Marshal(back, version); err != nil || !bytes.Equal(b, b2) {
		return fmt.Errorf("re-encoding the decoded value differs (%v):\n first %x\nsecond %x", err, b, b2)
	}
	step := 1 + len(b)/maxCuts
	for cut := 0; cut < len(b); cut += step {
		if err := decodeErr(b[:cut], fresh(), version); err != nil {
			return fmt.Errorf("the first %d of %d bytes: %w", cut, len(b), err)
		}
	}
	if err := decodeErr(append(b[:len(b):len(b)], 0), fresh(), version); err != nil {
		return fmt.Errorf("one byte more: %w", err)
	}
	return nil
}

// decodeErr decodes bytes that must not decode: it returns nil when
// Unmarshal fails as it should, with a *kwire.Error.
func decodeErr(data []byte, into any, version int16) error {
	err := decodeNoPanic(data, into, version)
	if err == nil {
		return fmt.Errorf("decoded without error: %x", data)
	}
	if _, isPanic := err.(panicError); isPanic {
		return err
	}
	return nil
}

type panicError struct{ error }

// decodeNoPanic is Unmarshal, with a panic turned into a panicError and an
// error of another type than *kwire.Error also an error.
func decodeNoPanic(data []byte, into any, version int16) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError{fmt.Errorf("kwire.Unmarshal panicked on %x: %v", data, p)}
		}
	}()
	err = kwire.Unmarshal(data, into, version)
	var ke *kwire.Error
	if err != nil && !errors.As(err, &ke) {
		return panicError{fmt.Errorf("kwire.Unmarshal returned %T, not a *kwire.Error: %v", err, err)}
	}
	return err
}

// hostileBytes feeds random bytes, a valid encoding's prefix followed by
// random bytes, and the encoding with one byte changed, to Unmarshal.
func hostileBytes(r *rand.Rand, valid any, fresh func() any, version int16) error {
	enc, err := kwire.Marshal(valid, version)
	if err != nil {
		return err
	}
	for i := 0; i < 64; i++ {
		junk := make([]byte, r.Intn(96))
		r.Read(junk)
		mixed := append(append([]byte(nil), enc[:r.Intn(len(enc)+1)]...), junk...)
		flipped := append([]byte(nil), enc...)
		if len(flipped) > 0 {
			flipped[r.Intn(len(flipped))] ^= byte(1 + r.Intn(255))
		}
		for _, data := range [][]byte{junk, mixed, flipped} {
			if err, isPanic := decodeNoPanic(data, fresh(), version).(panicError); isPanic {
				return err
			}
		}
	}
	return nil
}
