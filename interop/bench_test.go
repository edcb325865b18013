package interop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"sort"
	"testing"
	"unsafe"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
	kafkaprotocol "github.com/segmentio/kafka-go/protocol"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Benchmarks compare kwire with franz-go's kmsg, IBM/sarama and
// segmentio/kafka-go on the workloads of workloads_test.go, body only
// (BenchmarkEncode, BenchmarkDecode) and, where kafka-go (which only reads
// and writes whole frames) has the message, whole frames
// (BenchmarkEncodeFrame, BenchmarkDecodeFrame). Sub-benchmarks are named
// lib=<library> so that `benchstat -col /lib` puts the libraries side by
// side, kmsg first as the base.
//
// Encoding appends into a reused buffer where the library allows it (kwire,
// kmsg; kafka-go writes into a reset bytes.Buffer; sarama's encode always
// allocates its exact-size output). Decoding starts from a new message
// each time, as a client reading a response does.

func workloadBody(tb testing.TB, w workload) []byte {
	body, err := kwire.Marshal(w.kwire(), w.version)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

func (w workload) newKwire() func() any {
	api, _ := messages.Lookup(w.key)
	if w.resp {
		return api.NewResponse
	}
	return api.NewRequest
}

func (w workload) newKmsg() kmsgMessage {
	var m kmsgMessage
	if w.resp {
		m = kmsg.ResponseForKey(w.key)
	} else {
		m = kmsg.RequestForKey(w.key)
	}
	m.SetVersion(w.version)
	return m
}

// saramaDecoderFor returns a function that decodes into a new sarama
// message of w's type each call: the interface's method table is found
// once, only the data word changes.
func (w workload) saramaDecoderFor() func([]byte) error {
	t := reflect.TypeOf(w.sarama()).Elem()
	tab := saramaIface(reflect.New(t).Interface(), saramaVersionedDecoderType).tab
	vf, _ := t.FieldByName("Version")
	return func(b []byte) error {
		p := reflect.New(t).UnsafePointer() // like new(T) for sarama's T
		*(*int16)(unsafe.Add(p, vf.Offset)) = w.version
		return saramaVersionedDecodeRaw(b, ifaceWords{tab, p}, w.version, nil)
	}
}

func BenchmarkEncode(b *testing.B) { benchEncode(b, workloads) }

func BenchmarkDecode(b *testing.B) { benchDecode(b, workloads) }

// BenchmarkScaling is MetadataResponse v12 at 1, 10, 100 and 1000 topics
// × 20 partitions, encode and decode.
func BenchmarkScaling(b *testing.B) {
	b.Run("Encode", func(b *testing.B) { benchEncode(b, scalingWorkloads) })
	b.Run("Decode", func(b *testing.B) { benchDecode(b, scalingWorkloads) })
}

func benchEncode(b *testing.B, workloads []workload) {
	for _, w := range workloads {
		body := workloadBody(b, w)
		b.Run(w.name+"/lib=kmsg", func(b *testing.B) {
			m := w.kmsg()
			buf := make([]byte, 0, len(body))
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				buf = m.AppendTo(buf[:0])
			}
		})
		b.Run(w.name+"/lib=kwire", func(b *testing.B) {
			m := w.kwire()
			buf := make([]byte, 0, len(body))
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var err error
			for b.Loop() {
				if buf, err = kwire.Append(buf[:0], m, w.version); err != nil {
					b.Fatal(err)
				}
			}
		})
		if w.sarama != nil {
			b.Run(w.name+"/lib=sarama", func(b *testing.B) {
				enc := newSaramaEncoder(w.sarama())
				b.ReportAllocs()
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					if _, err := enc.encode(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchDecode(b *testing.B, workloads []workload) {
	for _, w := range workloads {
		body := workloadBody(b, w)
		b.Run(w.name+"/lib=kmsg", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := w.newKmsg().ReadFrom(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/lib=kwire", func(b *testing.B) {
			newMsg := w.newKwire()
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if err := kwire.Unmarshal(body, newMsg(), w.version); err != nil {
					b.Fatal(err)
				}
			}
		})
		if w.sarama != nil {
			b.Run(w.name+"/lib=sarama", func(b *testing.B) {
				decode := w.saramaDecoderFor()
				b.ReportAllocs()
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					if err := decode(body); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// ---- whole frames, for the workloads kafka-go has ----

// kmsgFormatter and benchClientIDPtr are made once, as a client would.
var (
	kmsgFormatter    = kmsg.NewRequestFormatter(kmsg.FormatterClientID(benchClientID))
	benchClientIDPtr = ptr(benchClientID)
)

// kmsgAppendFrame writes a frame around kmsg's body: RequestFormatter for
// requests; for responses (kmsg has no response formatter) the size, the
// correlation id and, in flexible versions but never for ApiVersions, an
// empty tag section.
func kmsgAppendFrame(buf []byte, m kmsgMessage, resp bool) []byte {
	if !resp {
		return kmsgFormatter.AppendRequest(buf, m.(kmsg.Request), benchCorrelation)
	}
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, benchCorrelation)
	if m.IsFlexible() && m.Key() != 18 {
		buf = append(buf, 0)
	}
	buf = m.AppendTo(buf)
	binary.BigEndian.PutUint32(buf[start:], uint32(len(buf)-start-4))
	return buf
}

// kmsgReadFrame reads a frame's header the way a kmsg user must (kmsg
// has no header reader), doing what kwire's ReadRequest/ReadResponse do:
// check the size prefix, read the key, version and correlation id, keep
// the client id (as a broker does, kfake among them: a string), and read
// the header's tagged fields, then the body.
func kmsgReadFrame(frame []byte, m kmsgMessage, resp bool) error {
	if len(frame) < 8 || int(binary.BigEndian.Uint32(frame)) != len(frame)-4 {
		return errors.New("bad size prefix")
	}
	off := 4 + 4 // size, correlation id
	if !resp {
		off = 4 + 8
		if m.Key() != int16(binary.BigEndian.Uint16(frame[4:])) || m.GetVersion() != int16(binary.BigEndian.Uint16(frame[6:])) {
			return errors.New("another API or version")
		}
		n := int(int16(binary.BigEndian.Uint16(frame[off:])))
		if n >= 0 {
			clientIDSink = string(frame[off+2 : off+2+n])
		}
		off += 2 + max(n, 0)
	}
	if m.IsFlexible() && !(resp && m.Key() == 18) {
		tags, used := binary.Uvarint(frame[off:])
		if used <= 0 {
			return errors.New("bad tag count")
		}
		off += used
		for range tags {
			_, used := binary.Uvarint(frame[off:]) // the tag
			size, used2 := binary.Uvarint(frame[off+used:])
			off += used + used2 + int(size)
		}
	}
	return m.ReadFrom(frame[off:])
}

// clientIDSink keeps the client id kmsgReadFrame reads, so that reading
// it is not optimised away.
var clientIDSink string

func kwireAppendFrame(buf []byte, w workload, m any) ([]byte, error) {
	if w.resp {
		return kwire.AppendResponse(buf, m, w.version, benchCorrelation)
	}
	return kwire.AppendRequest(buf, m, w.version, benchCorrelation, benchClientIDPtr)
}

func kwireReadFrame(frame []byte, w workload, newMsg func() any) error {
	if w.resp {
		_, err := kwire.ReadResponse(frame, newMsg(), w.version)
		return err
	}
	_, _, err := kwire.ReadRequest(frame, func(int16, int16) (any, error) { return newMsg(), nil })
	return err
}

func kafkagoWriteFrame(buf *bytes.Buffer, w workload, m kafkaprotocol.Message) error {
	if w.resp {
		return kafkaprotocol.WriteResponse(buf, w.version, benchCorrelation, m)
	}
	return kafkaprotocol.WriteRequest(buf, w.version, benchCorrelation, benchClientID, m)
}

func kafkagoReadFrame(r *bytes.Reader, w workload) error {
	if w.resp {
		_, _, err := kafkaprotocol.ReadResponse(r, kafkaprotocol.ApiKey(w.key), w.version)
		return err
	}
	_, _, _, _, err := kafkaprotocol.ReadRequest(r)
	return err
}

func workloadFrame(tb testing.TB, w workload) []byte {
	frame, err := kwireAppendFrame(nil, w, w.kwire())
	if err != nil {
		tb.Fatal(err)
	}
	return frame
}

func BenchmarkEncodeFrame(b *testing.B) {
	for _, w := range workloads {
		if w.kafkago == nil {
			continue
		}
		frame := workloadFrame(b, w)
		b.Run(w.name+"/lib=kmsg", func(b *testing.B) {
			m := w.kmsg()
			buf := make([]byte, 0, len(frame))
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				buf = kmsgAppendFrame(buf[:0], m, w.resp)
			}
		})
		b.Run(w.name+"/lib=kwire", func(b *testing.B) {
			m := w.kwire()
			buf := make([]byte, 0, len(frame))
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			var err error
			for b.Loop() {
				if buf, err = kwireAppendFrame(buf[:0], w, m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/lib=kafkago", func(b *testing.B) {
			m := w.kafkago()
			var buf bytes.Buffer
			buf.Grow(len(frame))
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				buf.Reset()
				if err := kafkagoWriteFrame(&buf, w, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeFrame(b *testing.B) {
	for _, w := range workloads {
		if w.kafkago == nil {
			continue
		}
		frame := workloadFrame(b, w)
		b.Run(w.name+"/lib=kmsg", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if err := kmsgReadFrame(frame, w.newKmsg(), w.resp); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/lib=kwire", func(b *testing.B) {
			newMsg := w.newKwire()
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if err := kwireReadFrame(frame, w, newMsg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/lib=kafkago", func(b *testing.B) {
			r := bytes.NewReader(frame)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				r.Reset(frame)
				if err := kafkagoReadFrame(r, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWorkloadsAgree checks that every library's builder makes the same
// message: the same body bytes (sarama's FetchResponse up to the order of
// partitions, which it keeps in a map), the same frames for kafka-go, and
// that each library decodes the canonical bytes back to them.
func TestWorkloadsAgree(t *testing.T) {
	for _, w := range append(workloads[:len(workloads):len(workloads)], scalingWorkloads...) {
		t.Run(w.name, func(t *testing.T) {
			body := workloadBody(t, w)
			require.Equal(t, body, w.kmsg().AppendTo(nil), "kmsg body")

			km := w.newKmsg()
			require.NoError(t, km.ReadFrom(body))
			require.Equal(t, body, km.AppendTo(nil), "kmsg decode then encode")
			kw := w.newKwire()()
			require.NoError(t, kwire.Unmarshal(body, kw, w.version))
			again, err := kwire.Marshal(kw, w.version)
			require.NoError(t, err)
			require.Equal(t, body, again, "kwire decode then encode")

			if w.sarama != nil {
				sb, err := newSaramaEncoder(w.sarama()).encode()
				require.NoError(t, err)
				if w.saramaUnordered {
					sb = sortFetchPartitions(t, sb, w.version)
				}
				require.Equal(t, body, sb, "sarama body")
				require.NoError(t, w.saramaDecoderFor()(body), "sarama decode")
			}

			frame := workloadFrame(t, w)
			require.Equal(t, frame, kmsgAppendFrame(nil, w.kmsg(), w.resp), "kmsg frame")
			require.NoError(t, kmsgReadFrame(frame, w.newKmsg(), w.resp))
			require.NoError(t, kwireReadFrame(frame, w, w.newKwire()))
			if w.kafkago != nil {
				var buf bytes.Buffer
				require.NoError(t, kafkagoWriteFrame(&buf, w, w.kafkago()))
				require.Equal(t, frame, buf.Bytes(), "kafka-go frame")
				require.NoError(t, kafkagoReadFrame(bytes.NewReader(frame), w), "kafka-go read")
			}
			t.Logf("%s: body %d bytes, frame %d bytes", w.name, len(body), len(frame))
		})
	}
}

// sortFetchPartitions puts a FetchResponse's partitions in index order.
func sortFetchPartitions(t *testing.T, b []byte, v int16) []byte {
	var m messages.FetchResponse
	require.NoError(t, kwire.Unmarshal(b, &m, v))
	for i := range m.Responses {
		ps := m.Responses[i].Partitions
		sort.Slice(ps, func(a, b int) bool { return ps[a].PartitionIndex < ps[b].PartitionIndex })
	}
	out, err := kwire.Marshal(&m, v)
	require.NoError(t, err)
	return out
}
