package sniff_test

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// fuzzSeeds are small captures of every kind the tests make: several
// connections, reordered and retransmitted segments, a SASL v0 login
// with raw tokens, a capture starting mid-stream. Small, so the fuzzer
// runs and minimizes quickly.
func fuzzSeeds(t testing.TB) [][]byte {
	exs := someExchanges(t, 4)
	s := newSeen(t)
	c := interleaved(t, exs, s)
	mid := *c
	mid.Packets = c.Packets[len(c.Packets)/3:]
	seq := capturetest.New()
	k := seq.Dial("10.3.0.1:40000", "10.3.0.2:9092", true)
	sequential(seq, k, exs, 9)
	sasl := capturetest.New()
	k = sasl.Dial("10.3.0.3:40001", "10.3.0.2:9092", true)
	hs, err := kwire.AppendRequest(nil, &messages.SaslHandshakeRequest{Mechanism: "PLAIN"}, 0, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	hsr, err := kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{"PLAIN"}}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	k.Send(true, hs, 1460)
	k.Send(false, hsr, 1460)
	k.Send(true, []byte("\x00\x00\x00\x09\x00alice\x00pw"), 1460)
	k.Send(false, []byte{0, 0, 0, 0}, 1460)
	return [][]byte{c.Pcap(), c.Pcapng(), mid.Pcap(), seq.Pcap(), seq.Pcapng(), sasl.Pcap()}
}

// readAll reads a capture the way kwire sniff does, formatting every
// record, and fails only by panicking.
func readAll(data []byte) {
	var line []byte
	sniff.Read(bytes.NewReader(data), sniff.Options{MaxFrame: 1 << 16}, func(r *sniff.Record) {
		e := trafficlog.Event{Time: r.Time, Conn: r.Conn, Dir: trafficlog.Dir(r.Kind), Key: r.Key, Version: r.Version,
			CorrelationID: r.CorrelationID, ClientID: r.ClientID, Msg: r.Msg, Err: r.Err, Note: r.Note}
		line = trafficlog.AppendJSON(line[:0], e)
	})
}

func FuzzRead(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		readAll(data)
	})
}

// TestMutatedCaptures flips bytes past the file header of each seed (so
// mostly in packet headers and Kafka frames), drops and duplicates
// ranges, and reads each result: nothing may panic or hang.
func TestMutatedCaptures(t *testing.T) {
	r := rand.New(rand.NewSource(20))
	for _, seed := range fuzzSeeds(t) {
		for range 150 {
			m := append([]byte(nil), seed...)
			switch r.Intn(3) {
			case 0:
				for range 1 + r.Intn(20) {
					i := 24 + r.Intn(len(m)-24)
					m[i] ^= byte(1 + r.Intn(255))
				}
			case 1:
				i := 24 + r.Intn(len(m)-24)
				j := min(len(m), i+r.Intn(400))
				m = append(m[:i], m[j:]...)
			case 2:
				i := 24 + r.Intn(len(m)-24)
				j := min(len(m), i+r.Intn(400))
				m = append(m[:j], append(append([]byte(nil), m[i:j]...), m[j:]...)...)
			}
			readAll(m)
		}
	}
}
