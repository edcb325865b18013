package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// compressible is n bytes of text drawn from a few words.
func compressible(rng *rand.Rand, n int) []byte {
	words := []string{"alpha ", "beta ", "gamma ", "delta ", "0123 ", "x"}
	b := make([]byte, 0, n+8)
	for len(b) < n {
		b = append(b, words[rng.IntN(len(words))]...)
	}
	return b[:n]
}

// lz4Frames are LZ4 frames the way other writers make them: the library's
// writer with each of its options (block and content checksums, content
// size, larger blocks), concatenated frames, and a skippable frame.
func lz4Frames(t *testing.T, plain []byte) map[string][]byte {
	t.Helper()
	write := func(opts ...lz4.Option) []byte {
		var out bytes.Buffer
		w := lz4.NewWriter(&out)
		if err := w.Apply(append(opts, lz4.ConcurrencyOption(1))...); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(plain); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	ours, err := Compress(nil, CodecLZ4, plain)
	if err != nil {
		t.Fatal(err)
	}
	skippable := binary.LittleEndian.AppendUint32(nil, lz4SkippableMagic+3)
	skippable = binary.LittleEndian.AppendUint32(skippable, 5)
	skippable = append(skippable, "hello"...)
	half := len(plain) / 2
	first, _ := Compress(nil, CodecLZ4, plain[:half])
	second, _ := Compress(nil, CodecLZ4, plain[half:])
	return map[string][]byte{
		"ours":            ours,
		"library default": write(),
		"block checksums": write(lz4.BlockChecksumOption(true), lz4.ChecksumOption(true)),
		"content size":    write(lz4.SizeOption(uint64(len(plain)))),
		"4 MiB blocks":    write(lz4.BlockSizeOption(lz4.Block4Mb)),
		"concatenated":    append(append(bytes.Clone(first), skippable...), second...),
	}
}

// LZ4 frames decode to what the library's stream reader makes of them, and
// lz4Claim knows their size before decoding.
func TestLZ4Frames(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 1000, 64 << 10, 64<<10 + 1, 300_000} {
		plain := compressible(rng, n)
		if n%2 == 1 {
			for i := range plain {
				plain[i] = byte(rng.Uint32()) // incompressible: stored blocks
			}
		}
		for name, frame := range lz4Frames(t, plain) {
			c, err := lz4Claim(frame)
			if err != nil || !c.exact() || c.min != int64(n) {
				t.Fatalf("%d bytes, %s: claim %+v, %v", n, name, c, err)
			}
			got, err := Decompress(nil, CodecLZ4, frame, 0)
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("%d bytes, %s: decoded %d bytes, %v", n, name, len(got), err)
			}
		}
	}
}

// A frame whose blocks depend on the ones before (the library writes none)
// reads its matches from the earlier output.
func TestLZ4DependentBlocks(t *testing.T) {
	frame := binary.LittleEndian.AppendUint32(nil, lz4FrameMagic)
	desc := []byte{0x40, 0x40} // version 1, dependent blocks; 64 KiB blocks
	frame = append(frame, desc...)
	frame = append(frame, byte(xxh32(desc)>>8))
	frame = binary.LittleEndian.AppendUint32(frame, lz4Uncompressed|8)
	frame = append(frame, "abcdefgh"...)
	// A match of 8 bytes, 8 back (in the first block), then the literal z.
	block := []byte{0x04, 8, 0, 0x10, 'z'}
	frame = binary.LittleEndian.AppendUint32(frame, uint32(len(block)))
	frame = append(frame, block...)
	frame = binary.LittleEndian.AppendUint32(frame, 0)
	got, err := Decompress(nil, CodecLZ4, frame, 0)
	if err != nil || string(got) != "abcdefghabcdefghz" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// Damage the checksums, sizes and sequences say is there is refused, with
// ErrCorrupt or ErrTruncated, before any output is made where the headers
// show it.
func TestLZ4Damage(t *testing.T) {
	plain := compressible(rand.New(rand.NewPCG(1, 9)), 5000)
	frames := lz4Frames(t, plain)
	sums := frames["block checksums"]
	for _, tc := range []struct {
		name  string
		frame []byte
		want  error
	}{
		{"descriptor checksum", flip(frames["ours"], 6), ErrCorrupt},
		{"bad magic", flip(frames["ours"], 0), ErrCorrupt},
		{"block checksum", flip(sums, len(sums)-9), ErrCorrupt},
		{"content checksum", flip(sums, len(sums)-1), ErrCorrupt},
		{"cut", frames["ours"][:len(frames["ours"])-3], ErrTruncated},
		{"content size", flip(frames["content size"], 6+3), ErrCorrupt},
	} {
		if tc.name == "content size" {
			f := tc.frame
			f[6+8] = byte(xxh32(f[4:6+8]) >> 8) // keep the descriptor checksum right
		}
		if _, err := Decompress(nil, CodecLZ4, tc.frame, 0); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		// Into a buffer with room, the size guessed rather than walked.
		if _, err := Decompress(make([]byte, 0, 1<<16), CodecLZ4, tc.frame, 0); !errors.Is(err, tc.want) {
			t.Errorf("%s, into room: %v, want %v", tc.name, err, tc.want)
		}
	}
	// Sequences that run past their block.
	for _, block := range [][]byte{{0xf0}, {0xf0, 255}, {0x30, 'a'}, {0x10, 'a', 1}, {0x1f, 'a', 1, 0}} {
		if n := lz4BlockSize(block); n != -1 {
			t.Errorf("block %x: size %d, want -1", block, n)
		}
	}
}

func flip(b []byte, at int) []byte {
	b = bytes.Clone(b)
	b[at] ^= 0x21
	return b
}

// zstd frames that state their content size claim it exactly; streamed
// frames (Java's producer writes those) claim bounds their blocks set.
func TestZstdClaim(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{0, 1, 300, 200_000, 1 << 20} {
		plain := compressible(rng, n)
		oneShot, _ := Compress(nil, CodecZstd, plain)
		streamed := zstdStreamed(t, plain)
		for name, frame := range map[string][]byte{"one shot": oneShot, "streamed": streamed, "two frames": append(bytes.Clone(oneShot), streamed...)} {
			c, err := zstdClaim(frame)
			if err != nil {
				t.Fatalf("%d bytes, %s: %v", n, name, err)
			}
			want := int64(n)
			if name == "two frames" {
				want *= 2
			}
			if name == "one shot" && (!c.exact() || c.min != want) || c.min > want || c.max < want {
				t.Fatalf("%d bytes, %s: claim %+v for %d", n, name, c, want)
			}
			got, err := Decompress(nil, CodecZstd, frame, 0)
			if err != nil || int64(len(got)) != want || !bytes.Equal(got[:n], plain) {
				t.Fatalf("%d bytes, %s: decoded %d bytes, %v", n, name, len(got), err)
			}
		}
	}
	// A content size its blocks cannot hold is refused before decoding: a
	// single-segment frame stating 200 bytes, with one raw block of 100.
	lie := binary.LittleEndian.AppendUint32(nil, zstdFrameMagic)
	lie = append(lie, 0x20, 200)
	h := uint32(1 | 100<<3) // last, raw, 100 bytes
	lie = append(lie, byte(h), byte(h>>8), byte(h>>16))
	lie = append(lie, make([]byte, 100)...)
	if _, err := Decompress(nil, CodecZstd, lie, 0); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("lying content size: %v", err)
	}
	lie[5] = 100
	if got, err := Decompress(nil, CodecZstd, lie, 0); err != nil || len(got) != 100 {
		t.Fatalf("the same frame stating its size: %d bytes, %v", len(got), err)
	}
}

// Decompress writes into the caller's buffer, allocating nothing, when the
// buffer has room for what the data declares.
func TestDecompressIntoCallersBuffer(t *testing.T) {
	plain := compressible(rand.New(rand.NewPCG(2, 2)), 50_000)
	for _, codec := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		src, err := Compress(nil, codec, plain)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 3, 3+len(plain)+1)
		copy(buf, "abc")
		out, err := Decompress(buf, codec, src, 0)
		if err != nil || !bytes.Equal(out[3:], plain) || string(out[:3]) != "abc" || &out[0] != &buf[0] {
			t.Fatalf("%v: %d bytes, %v (same array: %v)", codec, len(out), err, &out[0] == &buf[0])
		}
		if codec == CodecGzip || raceEnabled {
			// The gzip reader allocates its own state on first use of a
			// pooled decoder, and under the race detector sync.Pool drops
			// decoders at random.
			continue
		}
		if n := testing.AllocsPerRun(20, func() { _, _ = Decompress(buf[:0], codec, src, 0) }); n != 0 {
			t.Errorf("%v: %v allocations into a buffer with room", codec, n)
		}
	}
}

func zstdStreamWriter(w io.Writer) *zstd.Encoder {
	enc, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return enc
}

// A Reader sizes an LZ4 batch from the last one's expansion: a batch that
// expands more than guessed is decoded again into its exact size, one that
// expands less fits, and every batch reads whole, with or without a Budget.
func TestLZ4GuessFromLastBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	var set []byte
	var want [][]byte
	for i, v := range [][]byte{random, compressible(rng, 3000), bytes.Repeat([]byte("a"), 60_000), random, compressible(rng, 200_000), {}} {
		batch, err := Build([]Record{{Value: v}}, WithCodec(CodecLZ4), WithBaseOffset(int64(i)))
		if err != nil {
			t.Fatal(err)
		}
		set = append(set, batch...)
		want = append(want, v)
	}
	for _, budget := range []*Budget{nil, NewBudget(1 << 20)} {
		r := &Reader{Budget: budget}
		for pass := range 2 {
			r.Reset(set)
			for i, v := range want {
				b, err := r.Next()
				if err != nil {
					t.Fatalf("budget %v, pass %d, batch %d: %v", budget != nil, pass, i, err)
				}
				recs, err := b.Records()
				if err != nil || len(recs) != 1 || !bytes.Equal(recs[0].Value, v) {
					t.Fatalf("budget %v, pass %d, batch %d: %d records, %v", budget != nil, pass, i, len(recs), err)
				}
				b.Release()
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("after the set: %v", err)
			}
		}
	}
}
