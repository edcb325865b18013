package kwire_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"

	"github.com/kwirelabs/kwire/internal/wiretest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/kwire"
)

func prefix(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func TestSplitFrameBackToBack(t *testing.T) {
	buf := append(append(wiretest.Frame("first"), wiretest.Frame("second!")...), wiretest.Frame("thi")[:5]...)
	f, used, err := kwire.SplitFrame(buf, 100)
	require.NoError(t, err)
	assert.Equal(t, wiretest.Frame("first"), f)
	assert.Equal(t, 9, used)
	f, used2, err := kwire.SplitFrame(buf[used:], 100)
	require.NoError(t, err)
	assert.Equal(t, wiretest.Frame("second!"), f)
	assert.Equal(t, 11, used2)
	assert.Equal(t, len(f), cap(f), "a frame must not let appends reach the next one")

	// Part of a frame, or part of a prefix: read more.
	for _, part := range [][]byte{buf[used+used2:], buf[:3], nil} {
		_, n, err := kwire.SplitFrame(part, 100)
		assert.ErrorIs(t, err, kwire.ErrIncomplete)
		assert.Zero(t, n)
	}
}

func TestSplitFrameRefusesBadPrefixes(t *testing.T) {
	for _, tc := range []struct {
		prefix int32
		want   error
	}{
		{0, kwire.ErrInvalidLength},
		{-1, kwire.ErrInvalidLength},
		{-1 << 31, kwire.ErrInvalidLength},
		{101, kwire.ErrFrameTooLarge},
		{1<<31 - 1, kwire.ErrFrameTooLarge},
	} {
		// Invalid as soon as the prefix is there, whatever follows.
		_, _, err := kwire.SplitFrame(prefix(tc.prefix), 100)
		require.ErrorIs(t, err, tc.want, "prefix %d", tc.prefix)
		assert.NotErrorIs(t, err, kwire.ErrIncomplete)
		var ke *kwire.Error
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "frame", ke.Op)

		_, err = kwire.NewFrameReader(bytes.NewReader(prefix(tc.prefix)), 100).Next()
		assert.ErrorIs(t, err, tc.want, "reader, prefix %d", tc.prefix)
	}
	_, _, err := kwire.SplitFrame(wiretest.Frame(string(make([]byte, 100))), 100)
	assert.NoError(t, err, "the limit itself is allowed")
}

func TestFrameReaderOneByteAtATime(t *testing.T) {
	frames := [][]byte{wiretest.Frame("a"), wiretest.Frame(string(bytes.Repeat([]byte("xyz"), 5000))), wiretest.Frame("tail")}
	stream := bytes.Join(frames, nil)
	for name, r := range map[string]io.Reader{
		"one byte a read": iotest.OneByteReader(bytes.NewReader(stream)),
		"all at once":     bytes.NewReader(stream),
		"half reads":      iotest.HalfReader(bytes.NewReader(stream)),
	} {
		fr := kwire.NewFrameReader(r, 0)
		for i, want := range frames {
			got, err := fr.Next()
			require.NoError(t, err, "%s: frame %d", name, i)
			require.Equal(t, want, got, "%s: frame %d", name, i)
		}
		_, err := fr.Next()
		assert.ErrorIs(t, err, io.EOF, name)
	}
}

func TestFrameReaderCutShort(t *testing.T) {
	for _, cut := range []int{2, 4, 7} {
		_, err := kwire.NewFrameReader(bytes.NewReader(wiretest.Frame("abcdef")[:cut]), 0).Next()
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d", cut)
	}
	_, err := kwire.NewFrameReader(iotest.ErrReader(io.ErrClosedPipe), 0).Next()
	assert.ErrorIs(t, err, io.ErrClosedPipe)
}

// readSizes records the size of every buffer a reader is offered.
type readSizes struct {
	r       io.Reader
	largest int
}

func (s *readSizes) Read(p []byte) (int, error) {
	s.largest = max(s.largest, len(p))
	return s.r.Read(p)
}

// TestFrameReaderGrowsWithArrivals: a prefix that claims 64 MiB, then a
// trickle, never makes the reader offer (allocate) more than twice what
// arrived; the claimed size alone pins nothing.
func TestFrameReaderGrowsWithArrivals(t *testing.T) {
	stream := append(prefix(64<<20), make([]byte, 10000)...) // then EOF
	rs := &readSizes{r: iotest.HalfReader(bytes.NewReader(stream))}
	_, err := kwire.NewFrameReader(rs, 0).Next()
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.LessOrEqual(t, rs.largest, 2*len(stream)+4096)
}

// chunkReader returns at most 16 KiB a read, as a tls.Conn does (one
// record), and adds up the buffers it is offered, each counted once.
type chunkReader struct {
	r       io.Reader
	seen    map[*byte]bool
	offered int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if end := &p[:cap(p)][cap(p)-1]; !c.seen[end] {
		c.seen[end] = true
		c.offered += cap(p)
	}
	return c.r.Read(p[:min(len(p), 16<<10)])
}

// TestFrameReaderSmallReadsOfALargeFrame: a 1 MiB frame arriving 16 KiB
// a read grows the buffer by doubling, about 2 MiB in all, rather than
// taking a new, larger buffer for every read (9 MiB).
func TestFrameReaderSmallReadsOfALargeFrame(t *testing.T) {
	frame := wiretest.Frame(string(bytes.Repeat([]byte("k"), 1<<20)))
	cr := &chunkReader{r: bytes.NewReader(frame), seen: map[*byte]bool{}}
	got, err := kwire.NewFrameReader(cr, 0).Next()
	require.NoError(t, err)
	require.Equal(t, frame, got)
	assert.LessOrEqual(t, cr.offered, 3*len(frame), "bytes of buffers allocated for one %d-byte frame", len(frame))
}

func TestFrameReaderPeekThenNext(t *testing.T) {
	client := "c"
	req, err := kwire.AppendRequest(nil, wiretest.NewHeartbeat(), 1, 77, &client)
	require.NoError(t, err)
	fr := kwire.NewFrameReader(iotest.OneByteReader(bytes.NewReader(append(req, wiretest.Frame("x")...))), 0)
	head, err := fr.Peek(12)
	require.NoError(t, err)
	require.Len(t, head, 12)
	key, v, corr, err := kwire.PeekRequest(head)
	require.NoError(t, err)
	assert.Equal(t, []int{68, 1, 77}, []int{int(key), int(v), int(corr)})
	got, err := fr.Next()
	require.NoError(t, err)
	assert.Equal(t, req, got)
	head, err = fr.Peek(12) // a frame shorter than asked: all of it
	require.NoError(t, err)
	assert.Equal(t, wiretest.Frame("x"), head)
	_, _, _, err = kwire.PeekRequest(head)
	assert.ErrorIs(t, err, kwire.ErrTruncated, "a 1-byte frame has no room for a request header")
}

// TestFrameReaderAllowEmpty: the raw SASL exchange answers with an
// empty frame, which only a reader told so accepts.
func TestFrameReaderAllowEmpty(t *testing.T) {
	stream := append(prefix(0), wiretest.Frame("next")...)
	_, err := kwire.NewFrameReader(bytes.NewReader(stream), 0).Next()
	require.ErrorIs(t, err, kwire.ErrInvalidLength)
	fr := kwire.NewFrameReader(bytes.NewReader(stream), 0)
	fr.AllowEmpty = true
	got, err := fr.Next()
	require.NoError(t, err)
	assert.Equal(t, prefix(0), got)
	fr.AllowEmpty = false
	got, err = fr.Next()
	require.NoError(t, err)
	assert.Equal(t, wiretest.Frame("next"), got)
}
