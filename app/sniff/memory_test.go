package sniff_test

import (
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// TestMemoryBoundedByInFlight streams a 128 MiB capture through a pipe
// (8 connections at once, each producing 256 KiB frames in 1460-byte
// segments) and samples the live heap after a collection every 64
// records: it must stay near the frames in flight (8 × 256 KiB), far
// under the capture's size.
func TestMemoryBoundedByInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 128 MiB through a pipe")
	}
	const conns, frameBytes, perConn = 8, 256 << 10, 64
	clientID := "mem"
	r := rand.New(rand.NewSource(8))
	records := make([]byte, frameBytes)
	r.Read(records)
	frame := func(corr int32) (req, resp []byte) {
		p := &messages.ProduceRequest{Acks: -1, TimeoutMs: 1000, TopicData: []messages.ProduceRequestTopicProduceData{{
			Name: "mem", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: records}}}}}
		req, err := kwire.AppendRequest(nil, p, 9, corr, &clientID)
		require.NoError(t, err)
		pr := &messages.ProduceResponse{}
		require.NoError(t, kwire.FillMinimal(pr, 9))
		resp, err = kwire.AppendResponse(nil, pr, 9, corr)
		require.NoError(t, err)
		return req, resp
	}

	pr, pw := io.Pipe()
	written := 0
	go func() {
		cw := &countingWriter{w: pw}
		c := capturetest.Stream(cw)
		var ks []*capturetest.Conn
		for i := range conns {
			ks = append(ks, c.Dial(fmt.Sprintf("10.4.0.%d:5000%d", i+1, i), "10.4.0.100:9092", true))
		}
		for n := range perConn {
			// Each connection's frame goes out a segment at a time,
			// interleaved with the others', so all are in flight at once.
			var segs [][][]byte
			var resps [][]byte
			for i, k := range ks {
				req, resp := frame(int32(n*conns + i))
				segs = append(segs, k.Segments(true, req, 1460))
				resps = append(resps, resp)
			}
			for j := 0; ; j++ {
				more := false
				for i := range segs {
					if j < len(segs[i]) {
						c.Add(segs[i][j])
						more = true
					}
				}
				if !more {
					break
				}
			}
			for i, k := range ks {
				k.Send(false, resps[i], 1460)
			}
		}
		written = cw.n
		pw.Close()
	}()

	var peak uint64
	var ms runtime.MemStats
	records2, decoded := 0, 0
	stats, err := sniff.Read(pr, sniff.Options{}, func(rec *sniff.Record) {
		if rec.Msg != nil && rec.Err == nil {
			decoded++
		}
		if records2++; records2%64 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	})
	require.NoError(t, err)
	t.Logf("capture %d MiB, %d records, live heap peak %.1f MiB", written>>20, records2, float64(peak)/(1<<20))
	assert.Greater(t, written, 128<<20)
	assert.Equal(t, 2*conns*perConn, decoded)
	assert.EqualValues(t, conns*perConn, stats.Paired)
	assert.Less(t, peak, uint64(24<<20), "live heap peak")
}

type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
