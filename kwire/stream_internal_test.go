package kwire

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestFrameReaderShrink: after a large frame the reader holds its buffer
// until Shrink, which lets go of it only when nothing is held.
func TestFrameReaderShrink(t *testing.T) {
	big := make([]byte, 4+1<<20)
	binary.BigEndian.PutUint32(big, 1<<20)
	small := []byte{0, 0, 0, 1, 7}
	fr := NewFrameReader(bytes.NewReader(append(append(big, small...), small...)), 0)
	f, err := fr.Next()
	if err != nil || len(f) != len(big) {
		t.Fatalf("big frame: %d bytes, %v", len(f), err)
	}
	if len(fr.buf) < 1<<20 {
		t.Fatalf("buffer %d bytes after a 1 MiB frame", len(fr.buf))
	}
	if _, err := fr.Next(); err != nil { // reads ahead: the last frame is held
		t.Fatal(err)
	}
	fr.Shrink()
	if fr.buf == nil {
		t.Fatal("Shrink let go of a buffer holding a frame")
	}
	if f, err := fr.Next(); err != nil || !bytes.Equal(f, small) {
		t.Fatalf("after Shrink: %x, %v", f, err)
	}
	fr.Shrink()
	if fr.buf != nil {
		t.Fatalf("buffer of %d bytes kept with nothing held", len(fr.buf))
	}
}
