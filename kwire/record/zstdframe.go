package record

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A zstd frame's header may state its content size, and its blocks' headers
// state their sizes: what a batch holds is known, or bounded, before any
// of it is decoded. Producers that compress a batch in one call (franz-go,
// librdkafka, this package) write the content size; Java's, which streams,
// does not.

const (
	zstdFrameMagic     = 0xFD2FB528
	zstdSkippableMagic = 0x184D2A50 // to 0x184D2A5F
	zstdMaxBlock       = 128 << 10
)

var errZstd = errors.New("zstd: malformed frame")

// zstdClaim walks the frames of src: a frame that states its content size
// adds exactly that (checked against what its blocks can hold); one that
// does not adds at least its raw and RLE blocks' sizes and at most a full
// block for each compressed one.
func zstdClaim(src []byte) (sizeClaim, error) {
	var c sizeClaim
	for len(src) > 0 {
		if len(src) < 4 {
			return c, errFrameTruncated
		}
		magic := binary.LittleEndian.Uint32(src)
		if magic&^0xF == zstdSkippableMagic {
			if len(src) < 8 {
				return c, errFrameTruncated
			}
			size := binary.LittleEndian.Uint32(src[4:])
			if uint64(size) > uint64(len(src)-8) {
				return c, errFrameTruncated
			}
			src = src[8+int(size):]
			continue
		}
		if magic != zstdFrameMagic {
			return c, fmt.Errorf("%w: magic %#08x", errZstd, magic)
		}
		fc, n, err := zstdFrameClaim(src)
		if err != nil {
			return c, err
		}
		c.min, c.max, c.guess = c.min+fc.min, c.max+fc.max, c.guess+fc.guess
		src = src[n:]
	}
	return c, nil
}

// zstdFrameClaim reads the frame at the start of src, returning what it
// claims and its length.
func zstdFrameClaim(src []byte) (c sizeClaim, n int, err error) {
	if len(src) < 5 {
		return c, 0, errFrameTruncated
	}
	fhd := src[4]
	if fhd&0x08 != 0 {
		return c, 0, fmt.Errorf("%w: reserved descriptor bit", errZstd)
	}
	single := fhd&0x20 != 0
	p := 5
	window := int64(0)
	if !single {
		if len(src) < p+1 {
			return c, 0, errFrameTruncated
		}
		wd := src[p]
		p++
		base := int64(1) << (10 + wd>>3)
		window = base + base/8*int64(wd&7)
	}
	p += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if single && fcsLen == 0 {
		fcsLen = 1
	}
	if len(src) < p+fcsLen {
		return c, 0, errFrameTruncated
	}
	fcs := int64(-1)
	switch fcsLen {
	case 1:
		fcs = int64(src[p])
	case 2:
		fcs = int64(binary.LittleEndian.Uint16(src[p:])) + 256
	case 4:
		fcs = int64(binary.LittleEndian.Uint32(src[p:]))
	case 8:
		fcs = int64(binary.LittleEndian.Uint64(src[p:]) & (1<<62 - 1))
	}
	p += fcsLen
	if single {
		window = max(fcs, 1<<10) // as decoders take it: the minimum window at least
	}
	blockMax := min(window, zstdMaxBlock)
	var compressed int64
	for last := false; !last; {
		if len(src) < p+3 {
			return c, 0, errFrameTruncated
		}
		h := uint32(src[p]) | uint32(src[p+1])<<8 | uint32(src[p+2])<<16
		p += 3
		last = h&1 != 0
		size := int64(h >> 3)
		switch h >> 1 & 3 {
		case 0: // raw
			c.min += size
			c.max += size
		case 1: // RLE: one byte, repeated
			c.min += size
			c.max += size
			size = 1
		case 2:
			if size > blockMax {
				return c, 0, fmt.Errorf("%w: block of %d bytes (the frame's most is %d)", errZstd, size, blockMax)
			}
			c.max += blockMax
			compressed += size
		default:
			return c, 0, fmt.Errorf("%w: reserved block type", errZstd)
		}
		if int64(len(src)-p) < size {
			return c, 0, errFrameTruncated
		}
		p += int(size)
	}
	if fhd&0x04 != 0 { // content checksum
		p += 4
		if len(src) < p {
			return c, 0, errFrameTruncated
		}
	}
	if fcs >= 0 {
		if fcs < c.min || fcs > c.max {
			return c, 0, fmt.Errorf("%w: content size %d, blocks hold %d to %d", errZstd, fcs, c.min, c.max)
		}
		return exactClaim(fcs), p, nil
	}
	c.guess = min(c.min+4*compressed, c.max)
	return c, p, nil
}
