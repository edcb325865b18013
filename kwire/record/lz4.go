package record

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"
)

// LZ4 frames are read here rather than through the library's stream
// reader: their block sizes say, without decoding, what each block holds
// (a compressed block's sequences state their literal and match lengths),
// so a batch is sized, checked against its limits and decoded straight into
// its buffer, block by block, with no intermediate copy.

const (
	lz4FrameMagic     = 0x184D2204
	lz4SkippableMagic = 0x184D2A50 // to 0x184D2A5F
	lz4Uncompressed   = 1 << 31    // the block size's flag for a stored block
	lz4MinMatch       = 4
	lz4MaxDistance    = 64 << 10
)

var errLZ4 = errors.New("lz4: malformed frame")

// lz4Frame is a frame's descriptor.
type lz4Frame struct {
	blockMax                       int
	dependent                      bool
	blockChecksum, contentChecksum bool
	contentSize                    int64 // -1 when not given
}

// readLZ4Frame reads the frame (or skippable frame) header at the start of
// src; n is its length, skip whether src holds a skippable frame of n bytes.
func readLZ4Frame(src []byte) (f lz4Frame, n int, skip bool, err error) {
	if len(src) < 4 {
		return f, 0, false, errFrameTruncated
	}
	switch magic := binary.LittleEndian.Uint32(src); {
	case magic&^0xF == lz4SkippableMagic:
		if len(src) < 8 {
			return f, 0, false, errFrameTruncated
		}
		size := binary.LittleEndian.Uint32(src[4:])
		if uint64(size) > uint64(len(src)-8) {
			return f, 0, false, errFrameTruncated
		}
		return f, 8 + int(size), true, nil
	case magic != lz4FrameMagic:
		return f, 0, false, fmt.Errorf("%w: magic %#08x", errLZ4, magic)
	}
	if len(src) < 7 {
		return f, 0, false, errFrameTruncated
	}
	flg, bd := src[4], src[5]
	if flg>>6 != 1 || flg&0x02 != 0 || bd&0x8F != 0 {
		return f, 0, false, fmt.Errorf("%w: descriptor %#02x %#02x", errLZ4, flg, bd)
	}
	if bd>>4 < 4 {
		return f, 0, false, fmt.Errorf("%w: block size code %d", errLZ4, bd>>4)
	}
	f = lz4Frame{
		blockMax:        1 << (8 + 2*(bd>>4)), // 4: 64 KiB ... 7: 4 MiB
		dependent:       flg&0x20 == 0,
		blockChecksum:   flg&0x10 != 0,
		contentChecksum: flg&0x04 != 0,
		contentSize:     -1,
	}
	n = 6
	if flg&0x08 != 0 {
		if len(src) < n+8 {
			return f, 0, false, errFrameTruncated
		}
		f.contentSize = int64(binary.LittleEndian.Uint64(src[n:]) & (1<<63 - 1))
		n += 8
	}
	if flg&0x01 != 0 {
		return f, 0, false, fmt.Errorf("%w: dictionary id (no dictionary is known)", errLZ4)
	}
	if len(src) < n+1 {
		return f, 0, false, errFrameTruncated
	}
	if want := byte(xxh32(src[4:n]) >> 8); src[n] != want {
		return f, 0, false, fmt.Errorf("%w: descriptor checksum %#02x, want %#02x", errLZ4, src[n], want)
	}
	return f, n + 1, false, nil
}

// lz4Blocks walks the frames of src, calling block for each data block
// (stored when raw) and end after each frame's last block, with the frame.
// The sizes are checked against the bytes present and the frame's limits.
func lz4Blocks(src []byte, block func(f lz4Frame, data []byte, raw bool, checksum []byte) error, end func(f lz4Frame, checksum []byte) error) error {
	for len(src) > 0 {
		f, n, skip, err := readLZ4Frame(src)
		if err != nil {
			return err
		}
		src = src[n:]
		if skip {
			continue
		}
		for {
			if len(src) < 4 {
				return errFrameTruncated
			}
			size := binary.LittleEndian.Uint32(src)
			src = src[4:]
			if size == 0 {
				break
			}
			raw := size&lz4Uncompressed != 0
			size &^= lz4Uncompressed
			if int64(size) > int64(f.blockMax) {
				return fmt.Errorf("%w: block of %d bytes (the frame's most is %d)", errLZ4, size, f.blockMax)
			}
			sumLen := 0
			if f.blockChecksum {
				sumLen = 4
			}
			if int(size) > len(src)-sumLen {
				return errFrameTruncated
			}
			if err := block(f, src[:size], raw, src[size:int(size)+sumLen]); err != nil {
				return err
			}
			src = src[int(size)+sumLen:]
		}
		sumLen := 0
		if f.contentChecksum {
			sumLen = 4
		}
		if len(src) < sumLen {
			return errFrameTruncated
		}
		if err := end(f, src[:sumLen]); err != nil {
			return err
		}
		src = src[sumLen:]
	}
	return nil
}

// lz4Claim is the exact size src decodes to: the stored blocks' sizes and
// what the compressed blocks' sequences add up to.
func lz4Claim(src []byte) (sizeClaim, error) {
	var total, frame int64
	err := lz4Blocks(src, func(f lz4Frame, data []byte, raw bool, _ []byte) error {
		n := len(data)
		if !raw {
			if n = lz4BlockSize(data); n < 0 || n > f.blockMax {
				return fmt.Errorf("%w: block sequences", errLZ4)
			}
		}
		frame += int64(n)
		return nil
	}, func(f lz4Frame, _ []byte) error {
		if f.contentSize >= 0 && f.contentSize != frame {
			return fmt.Errorf("%w: content size %d, blocks hold %d", errLZ4, f.contentSize, frame)
		}
		total, frame = total+frame, 0
		return nil
	})
	return exactClaim(total), err
}

// lz4Guess is what src likely decodes to, read from the block headers
// alone: writers fill every block but a frame's last, whose size is guessed
// at ratio sixteenths of its compressed bytes. max is what the blocks can
// hold at most, each its frame's block size or, at LZ4's densest (a
// 255-byte length run per input byte), about 255 times its bytes. Walking
// every block's sequences for the exact size (lz4Claim) costs about a
// third of decoding them: when the most src can hold is within the limit,
// the batch is decoded into the guess instead, and a guess too small is
// caught by the decoder, which never writes past its buffer.
func lz4Guess(src []byte, ratio int64) (c sizeClaim, err error) {
	var frame, frameMax, lastBlock int64
	err = lz4Blocks(src, func(f lz4Frame, data []byte, raw bool, _ []byte) error {
		if raw {
			frame += int64(len(data))
			frameMax += int64(len(data))
			lastBlock = 0
			return nil
		}
		frame += int64(f.blockMax)
		frameMax += min(int64(f.blockMax), 255*int64(len(data))+lz4MinMatch)
		lastBlock = min(int64(f.blockMax), ratio*int64(len(data))/16)
		return nil
	}, func(f lz4Frame, _ []byte) error {
		if lastBlock > 0 {
			frame += lastBlock - int64(f.blockMax) // the last compressed block at its guess
		}
		if f.contentSize >= 0 {
			frame = f.contentSize
		}
		c.guess += min(frame, frameMax)
		c.max += frameMax
		frame, frameMax, lastBlock = 0, 0, 0
		return nil
	})
	return c, err
}

// lz4NextRatio is the ratio, in sixteenths, a Reader guesses its next LZ4
// batch at after one that decoded n bytes from compressed: an eighth over,
// so that batches of a partition alike in their compression fit.
func lz4NextRatio(n, compressed int) int64 {
	if compressed == 0 {
		return 0
	}
	return min(int64(n)*18/int64(compressed)+1, 255*16)
}

// lz4BlockSize is the size an LZ4 block decodes to, from its sequences'
// lengths, or -1 if the sequences do not fit the block or it does not end
// with literals as the format requires.
func lz4BlockSize(b []byte) int {
	n, i := 0, 0
	for i < len(b) {
		token := b[i]
		i++
		lit := int(token >> 4)
		if lit == 15 {
			for {
				if i == len(b) {
					return -1
				}
				c := b[i]
				i++
				lit += int(c)
				if c != 255 {
					break
				}
			}
		}
		if lit > len(b)-i {
			return -1
		}
		i += lit
		n += lit
		if i == len(b) {
			return n // the last sequence is literals alone
		}
		if len(b)-i < 2 {
			return -1
		}
		i += 2 // the match offset, which the decoder checks
		match := int(token&15) + lz4MinMatch
		if token&15 == 15 {
			for {
				if i == len(b) {
					return -1
				}
				c := b[i]
				i++
				match += int(c)
				if c != 255 {
					break
				}
			}
		}
		n += match
	}
	return -1
}

// decodeLZ4 appends the frames of src, decoded, to dst, which lz4Claim has
// given the room; it fails with errLZ4Room when a block needs more room
// than dst has (a guess too small, lz4Guess).
func decodeLZ4(dst, src []byte) ([]byte, error) {
	frameStart := len(dst)
	err := lz4Blocks(src, func(f lz4Frame, data []byte, raw bool, sum []byte) error {
		if f.blockChecksum && binary.LittleEndian.Uint32(sum) != xxh32(data) {
			return fmt.Errorf("%w: block checksum", errLZ4)
		}
		if raw {
			if len(data) > cap(dst)-len(dst) {
				return errLZ4Room
			}
			dst = append(dst, data...)
			return nil
		}
		var n int
		var err error
		room := dst[len(dst):cap(dst)]
		if f.dependent && len(dst) > frameStart {
			n, err = lz4.UncompressBlockWithDict(data, room, dst[max(frameStart, len(dst)-lz4MaxDistance):])
		} else {
			n, err = lz4.UncompressBlock(data, room)
		}
		if err != nil {
			// The decoder says the same of a block that does not fit as of
			// a corrupt one: the block's sequences tell which.
			if need := lz4BlockSize(data); need > len(room) && need <= f.blockMax {
				return errLZ4Room
			}
			return fmt.Errorf("%w: %w", errLZ4, err)
		}
		if n > f.blockMax {
			return fmt.Errorf("%w: block of %d bytes decoded (the frame's most is %d)", errLZ4, n, f.blockMax)
		}
		dst = dst[:len(dst)+n]
		return nil
	}, func(f lz4Frame, sum []byte) error {
		if f.contentSize >= 0 && f.contentSize != int64(len(dst)-frameStart) {
			return fmt.Errorf("%w: content size %d, blocks hold %d", errLZ4, f.contentSize, len(dst)-frameStart)
		}
		if f.contentChecksum && binary.LittleEndian.Uint32(sum) != xxh32(dst[frameStart:]) {
			return fmt.Errorf("%w: content checksum", errLZ4)
		}
		frameStart = len(dst)
		return nil
	})
	return dst, err
}

// errLZ4Room: a block needs more room than the buffer has.
var errLZ4Room = errors.New("lz4: block does not fit the buffer")
