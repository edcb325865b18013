package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/klauspost/compress/snappy"
)

// Kafka's Java client writes snappy through xerial's SnappyOutputStream: an
// 8-byte magic, int32 version and int32 minimum compatible version (both 1),
// then blocks of at most 32 KiB, each an int32 length and a raw snappy block.
// Other clients (librdkafka, sarama, franz-go) may write one raw snappy
// block instead; readers must take both.

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const (
	xerialHeaderLen = 16
	xerialBlockSize = 32 << 10
)

var errSnappyTruncated = errors.New("xerial block extends past the end")

func appendXerialSnappy(dst, src []byte) []byte {
	dst = append(dst, xerialMagic...)
	dst = binary.BigEndian.AppendUint32(dst, 1) // version
	dst = binary.BigEndian.AppendUint32(dst, 1) // minimum compatible version
	for len(src) > 0 {
		n := min(len(src), xerialBlockSize)
		lenAt := len(dst)
		dst = binary.BigEndian.AppendUint32(dst, 0)
		dst = slices.Grow(dst, snappy.MaxEncodedLen(n))
		block := snappy.Encode(dst[len(dst):cap(dst)], src[:n])
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(block)))
		dst = dst[:len(dst)+len(block)]
		src = src[n:]
	}
	return dst
}

// snappyClaim sums the decoded lengths the blocks of xerial-framed or raw
// snappy src state up front.
func snappyClaim(src []byte) (sizeClaim, error) {
	switch {
	case len(src) == 0:
		return exactClaim(0), nil // how some writers (franz-go) compress nothing
	case !bytes.HasPrefix(src, xerialMagic):
		n, err := snappy.DecodedLen(src)
		return exactClaim(int64(n)), err
	}
	var total int64
	err := forEachXerialBlock(src, func(block []byte) error {
		n, err := snappy.DecodedLen(block)
		total += int64(n)
		return err
	})
	return exactClaim(total), err
}

// decodeSnappy appends the decoded form of xerial-framed or raw snappy src
// to dst, which snappyClaim has given the room.
func decodeSnappy(dst, src []byte) ([]byte, error) {
	switch {
	case len(src) == 0:
		return dst, nil
	case !bytes.HasPrefix(src, xerialMagic):
		return appendSnappyBlock(dst, src)
	}
	var err error
	err = forEachXerialBlock(src, func(block []byte) error {
		dst, err = appendSnappyBlock(dst, block)
		return err
	})
	return dst, err
}

// forEachXerialBlock calls fn with each raw snappy block of a xerial stream.
func forEachXerialBlock(src []byte, fn func(block []byte) error) error {
	for len(src) > 0 {
		// xerial's reader accepts concatenated streams, each with a header.
		if bytes.HasPrefix(src, xerialMagic) {
			if len(src) < xerialHeaderLen {
				return errSnappyTruncated
			}
			src = src[xerialHeaderLen:]
			continue
		}
		if len(src) < 4 {
			return errSnappyTruncated
		}
		n := binary.BigEndian.Uint32(src)
		if uint64(n) > uint64(len(src)-4) {
			return errSnappyTruncated
		}
		if err := fn(src[4 : 4+n]); err != nil {
			return err
		}
		src = src[4+n:]
	}
	return nil
}

func appendSnappyBlock(dst, block []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return dst, err
	}
	dst = slices.Grow(dst, n)
	out, err := snappy.Decode(dst[len(dst):len(dst)+n], block)
	if err != nil {
		return dst, err
	}
	if len(out) != n || (n > 0 && &out[0] != &dst[len(dst) : len(dst)+n][0]) {
		return dst, errors.New("snappy decoded length disagrees with its header")
	}
	return dst[:len(dst)+n], nil
}
