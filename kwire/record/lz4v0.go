package record

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Kafka before 0.10 computed the LZ4 frame descriptor's checksum byte over
// the frame magic as well as the descriptor (KAFKA-3160), and the Java client
// still writes it that way for magic 0, while its reader ignores that byte
// for magic 0. The LZ4 library checks it, so magic 0 wrappers are given the
// correct byte before decoding. Written frames always carry the correct one,
// which Java's magic 0 reader ignores anyway.

var lz4FrameMagic = []byte{0x04, 0x22, 0x4d, 0x18}

// withCorrectLZ4HeaderChecksum returns frame, or a copy with the descriptor
// checksum byte set to the right value.
func withCorrectLZ4HeaderChecksum(frame []byte) []byte {
	const magicLen, flgBDLen = 4, 2
	if len(frame) < magicLen+flgBDLen+1 || !bytes.HasPrefix(frame, lz4FrameMagic) {
		return frame
	}
	descLen := flgBDLen
	flg := frame[magicLen]
	if flg&0x08 != 0 { // content size present
		descLen += 8
	}
	if flg&0x01 != 0 { // dictionary id present
		descLen += 4
	}
	at := magicLen + descLen
	if len(frame) <= at {
		return frame
	}
	want := byte(xxh32Short(frame[magicLen:at]) >> 8)
	if frame[at] == want {
		return frame
	}
	fixed := bytes.Clone(frame)
	fixed[at] = want
	return fixed
}

const (
	xxhPrime1 uint32 = 2654435761
	xxhPrime2 uint32 = 2246822519
	xxhPrime3 uint32 = 3266489917
	xxhPrime4 uint32 = 668265263
	xxhPrime5 uint32 = 374761393
)

// xxh32Short is XXH32 with seed 0 for inputs under 16 bytes (a frame
// descriptor is at most 14), where the algorithm needs no stripes.
func xxh32Short(p []byte) uint32 {
	h := xxhPrime5 + uint32(len(p))
	for ; len(p) >= 4; p = p[4:] {
		h += binary.LittleEndian.Uint32(p) * xxhPrime3
		h = bits.RotateLeft32(h, 17) * xxhPrime4
	}
	for _, c := range p {
		h += uint32(c) * xxhPrime5
		h = bits.RotateLeft32(h, 11) * xxhPrime1
	}
	h ^= h >> 15
	h *= xxhPrime2
	h ^= h >> 13
	h *= xxhPrime3
	h ^= h >> 16
	return h
}
