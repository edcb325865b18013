package record

import (
	"bytes"
	"encoding/binary"
)

// Kafka before 0.10 computed the LZ4 frame descriptor's checksum byte over
// the frame magic as well as the descriptor (KAFKA-3160), and the Java client
// still writes it that way for magic 0, while its reader ignores that byte
// for magic 0. The LZ4 library checks it, so magic 0 wrappers are given the
// correct byte before decoding. Written frames always carry the correct one,
// which Java's magic 0 reader ignores anyway.

// withCorrectLZ4HeaderChecksum returns frame, or a copy with the descriptor
// checksum byte set to the right value.
func withCorrectLZ4HeaderChecksum(frame []byte) []byte {
	const magicLen, flgBDLen = 4, 2
	if len(frame) < magicLen+flgBDLen+1 || binary.LittleEndian.Uint32(frame) != lz4FrameMagic {
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
	want := byte(xxh32(frame[magicLen:at]) >> 8)
	if frame[at] == want {
		return frame
	}
	fixed := bytes.Clone(frame)
	fixed[at] = want
	return fixed
}
