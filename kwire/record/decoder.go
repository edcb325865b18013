package record

import "github.com/kwirelabs/kwire/kwire/wire"

// decoder reads the fields of one structure from b. The first failure sticks:
// later reads return zero values, so parsing code can read a whole structure
// and check once. Every length is checked against the bytes that remain
// before anything is sliced or allocated.
type decoder struct {
	b   []byte
	pos int

	failPos  int
	failWhat string
	failErr  error
}

func (d *decoder) ok() bool { return d.failErr == nil }

func (d *decoder) fail(pos int, sentinel error, what string) {
	if d.failErr == nil {
		d.failPos, d.failWhat, d.failErr = pos, what, sentinel
	}
}

// take returns the next n bytes, or nil after recording ErrTruncated.
func (d *decoder) take(n int, what string) []byte {
	if d.failErr != nil {
		return nil
	}
	if n > len(d.b)-d.pos {
		d.fail(d.pos, ErrTruncated, what)
		return nil
	}
	p := d.b[d.pos : d.pos+n : d.pos+n]
	d.pos += n
	return p
}

func (d *decoder) int8(what string) int8 {
	if p := d.take(1, what); p != nil {
		return int8(p[0])
	}
	return 0
}

func (d *decoder) int32(what string) int32 {
	if p := d.take(4, what); p != nil {
		return wire.Int32(p)
	}
	return 0
}

func (d *decoder) uint32(what string) uint32 {
	if p := d.take(4, what); p != nil {
		return wire.Uint32(p)
	}
	return 0
}

func (d *decoder) int64(what string) int64 {
	if p := d.take(8, what); p != nil {
		return wire.Int64(p)
	}
	return 0
}

func (d *decoder) varint(what string) int32 {
	if d.failErr != nil {
		return 0
	}
	v, n := wire.ConsumeVarint(d.b[d.pos:])
	if n < 0 {
		d.varintFailed(n, what)
		return 0
	}
	d.pos += n
	return v
}

func (d *decoder) varlong(what string) int64 {
	if d.failErr != nil {
		return 0
	}
	v, n := wire.ConsumeVarlong(d.b[d.pos:])
	if n < 0 {
		d.varintFailed(n, what)
		return 0
	}
	d.pos += n
	return v
}

// varintFailed reports a failed varint; n is wire's error code.
func (d *decoder) varintFailed(n int, what string) {
	if wire.ParseError(n) == wire.ErrTruncated {
		d.fail(d.pos, ErrTruncated, what)
	} else {
		d.fail(d.pos, ErrBadVarint, what)
	}
}

// lengthBytes slices n bytes after a length prefix read at lenPos; -1 is
// null, other negatives and lengths past the end are ErrInvalidLength.
func (d *decoder) lengthBytes(n int32, lenPos int, what string) []byte {
	if d.failErr != nil || n == -1 {
		return nil
	}
	if n < -1 || int(n) > len(d.b)-d.pos {
		d.fail(lenPos, ErrInvalidLength, what)
		return nil
	}
	p := d.b[d.pos : d.pos+int(n) : d.pos+int(n)]
	d.pos += int(n)
	return p
}

// varBytes reads varint-length-prefixed bytes (records v2).
func (d *decoder) varBytes(what string) []byte {
	at := d.pos
	return d.lengthBytes(d.varint(what), at, what)
}

// int32Bytes reads int32-length-prefixed bytes (legacy messages).
func (d *decoder) int32Bytes(what string) []byte {
	at := d.pos
	return d.lengthBytes(d.int32(what), at, what)
}
