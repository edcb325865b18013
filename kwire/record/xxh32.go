package record

import (
	"encoding/binary"
	"math/bits"
)

// xxh32 is XXH32 with seed 0, the checksum of LZ4 frames: of the frame
// descriptor (one byte of it), and where the frame asks, of each block and
// of the content.
func xxh32(p []byte) uint32 {
	const (
		prime1 uint32 = 2654435761
		prime2 uint32 = 2246822519
		prime3 uint32 = 3266489917
		prime4 uint32 = 668265263
		prime5 uint32 = 374761393
	)
	n := len(p)
	h := prime5
	if n >= 16 {
		round := func(acc, in uint32) uint32 { return bits.RotateLeft32(acc+in*prime2, 13) * prime1 }
		p1 := prime1 // variables wrap where constants would overflow
		v1, v2, v3, v4 := p1+prime2, prime2, uint32(0), 0-p1
		for ; len(p) >= 16; p = p[16:] {
			v1 = round(v1, binary.LittleEndian.Uint32(p[0:]))
			v2 = round(v2, binary.LittleEndian.Uint32(p[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(p[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(p[12:]))
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	}
	h += uint32(n)
	for ; len(p) >= 4; p = p[4:] {
		h += binary.LittleEndian.Uint32(p) * prime3
		h = bits.RotateLeft32(h, 17) * prime4
	}
	for _, c := range p {
		h += uint32(c) * prime5
		h = bits.RotateLeft32(h, 11) * prime1
	}
	h ^= h >> 15
	h *= prime2
	h ^= h >> 13
	h *= prime3
	h ^= h >> 16
	return h
}
