package messages_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// The fuzz targets check three things of every frame the fuzzer makes:
//   - an exact decode (kwire.Decoder{Exact: true}) that accepts a frame
//     gives a value that encodes to the frame itself, byte for byte;
//   - a default decode that accepts it gives a value whose encoding an
//     exact decode accepts and writes back unchanged (the canonical form);
//   - the layout trace reaches the decode's verdict, with the same error.
//
// Seeds are committed under testdata/fuzz (the smallest and a random frame
// of every API and version, regenerated with -update-corpus), so every
// go test replays them. Run longer with, e.g.:
//
//	go test ./messages -run '^$' -fuzz FuzzReadRequest -parallel 1 -fuzztime 5000000x
var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/fuzz from FillMinimal and FillRandom")

var exact = kwire.Decoder{Exact: true}

func FuzzReadRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, body, err := messages.ReadRequest(frame)
		_, traceErr := messages.TraceRequest(frame)
		wiretest.SameVerdict(t, frame, err, traceErr)
		if err != nil {
			return
		}
		again, err := kwire.AppendRequestWithHeader(nil, h, body)
		if err != nil {
			t.Fatalf("read but cannot write back: %v", err)
		}
		_, _, exactErr := exact.ReadRequest(frame, messages.Default.RequestFor)
		checkExact(t, frame, again, exactErr)
		if exactErr != nil {
			h2, body2, err := exact.ReadRequest(again, messages.Default.RequestFor)
			if err != nil {
				t.Fatalf("the re-encoding of %x is not exact: %v", frame, err)
			}
			third, err := kwire.AppendRequestWithHeader(nil, h2, body2)
			if err != nil || !bytes.Equal(third, again) {
				t.Fatalf("the canonical form %x does not come back: %x (%v)", again, third, err)
			}
		}
	})
}

// FuzzReadResponse takes the API key and version from the first four
// bytes of its input (a response frame does not say them); the rest is
// the frame.
func FuzzReadResponse(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 4 {
			return
		}
		key, version, frame := int16(binary.BigEndian.Uint16(in)), int16(binary.BigEndian.Uint16(in[2:])), in[4:]
		api, ok := messages.Lookup(key)
		if !ok {
			return
		}
		msg := api.NewResponse()
		h, err := kwire.ReadResponse(frame, msg, version)
		_, traceErr := kwire.TraceResponse(frame, api.NewResponse(), version)
		wiretest.SameVerdict(t, frame, err, traceErr)
		if err != nil {
			return
		}
		again, err := kwire.AppendResponseWithHeader(nil, h, msg, version)
		if err != nil {
			t.Fatalf("read but cannot write back: %v", err)
		}
		_, exactErr := exact.ReadResponse(frame, api.NewResponse(), version)
		checkExact(t, frame, again, exactErr)
		if exactErr != nil {
			msg2 := api.NewResponse()
			h2, err := exact.ReadResponse(again, msg2, version)
			if err != nil {
				t.Fatalf("the re-encoding of %x is not exact: %v", frame, err)
			}
			third, err := kwire.AppendResponseWithHeader(nil, h2, msg2, version)
			if err != nil || !bytes.Equal(third, again) {
				t.Fatalf("the canonical form %x does not come back: %x (%v)", again, third, err)
			}
		}
	})
}

// checkExact: a frame an exact decode accepts comes back byte for byte;
// one it refuses is refused for a spelling the default decode takes.
func checkExact(t *testing.T, frame, again []byte, exactErr error) {
	t.Helper()
	if exactErr == nil {
		if !bytes.Equal(frame, again) {
			t.Fatalf("decode-then-encode changed the frame:\n in: %x\nout: %x", frame, again)
		}
		return
	}
	if !errors.Is(exactErr, kwire.ErrBadVarint) && !errors.Is(exactErr, kwire.ErrValueOutOfRange) && !errors.Is(exactErr, kwire.ErrInvalidLength) {
		t.Fatalf("the default decode reads %x, the exact one refuses it for another reason: %v", frame, exactErr)
	}
}

// TestFuzzCorpus writes the committed seed corpora with -update-corpus;
// otherwise it checks that they are there.
func TestFuzzCorpus(t *testing.T) {
	for _, target := range []string{"FuzzReadRequest", "FuzzReadResponse"} {
		dir := filepath.Join("testdata", "fuzz", target)
		if !*updateCorpus {
			files, err := os.ReadDir(dir)
			if err != nil || len(files) < 1000 {
				t.Errorf("%s holds %d seeds (%v): run go test ./messages -run TestFuzzCorpus -update-corpus", dir, len(files), err)
			}
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, in := range corpusSeeds(t, target == "FuzzReadResponse") {
			file := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// corpusSeeds are the smallest frame and two random ones of every API and
// version, by file name.
func corpusSeeds(t *testing.T, responses bool) map[string][]byte {
	seeds := map[string][]byte{}
	r := rand.New(rand.NewSource(9))
	empty := ""
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for i := 0; i < 3; i++ {
				var msg any
				var err error
				if responses {
					msg = api.NewResponse()
				} else {
					msg = api.NewRequest()
				}
				name := fmt.Sprintf("%s-v%d-minimal", api.Name, v)
				if i == 0 {
					err = kwire.FillMinimal(msg, v)
				} else {
					name = fmt.Sprintf("%s-v%d-random%d", api.Name, v, i)
					err = kwire.FillRandom(r, msg, v, kwire.RandomOptions{MaxLen: 3, MaxDepth: 3})
				}
				if err != nil {
					t.Fatal(err)
				}
				var frame []byte
				if responses {
					frame = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, uint16(api.Key)), uint16(v))
					frame, err = kwire.AppendResponse(frame, msg, v, int32(i))
				} else {
					frame, err = kwire.AppendRequest(nil, msg, v, int32(i), &empty)
				}
				if err != nil {
					t.Fatal(err)
				}
				seeds[name] = frame
			}
		}
	}
	return seeds
}
