// Package sniff finds Kafka connections in a packet capture (libpcap or
// pcapng), reassembles their TCP streams, and hands back every request
// and response decoded and paired, with what could not be decoded and
// where the capture has gaps. It is the capture side of `kwire sniff`;
// the codec packages do not import it, so gopacket stays a tool
// dependency.
package sniff

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/gopacket/gopacket/reassembly"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// Kind says what a Record is about.
type Kind string

const (
	Request  Kind = "request"
	Response Kind = "response"
	Open     Kind = "open"  // a Kafka connection was found; Note says from where to where
	Gap      Kind = "gap"   // bytes of a stream are missing from the capture, or were passed over
	Close    Kind = "close" // a connection ended with something left undone; Note says what
	Skip     Kind = "skip"  // a connection that is not decodable Kafka (TLS, say); Note says why
)

// A raw SASL token (after SaslHandshake v0) is a Request or Response
// with Key -1 and a Note giving its size; its bytes are never shown.

// Record is one thing the capture showed about a Kafka connection.
type Record struct {
	Time   time.Time // capture time of the packet that completed it
	Conn   int       // the connection's number, from 1 in order of discovery
	Kind   Kind
	Client string // the client's address, "10.0.0.5:51234"
	Server string
	// Principal is who the connection authenticated as, once a SASL
	// login named a user (never the secret beside it).
	Principal string

	// Key is the API key, -1 when unknown (a response to a request the
	// capture does not hold, say).
	Key           int16
	Version       int16
	CorrelationID int32
	ClientID      *string // the request's (or its connection's first), on its response too
	// ClientInstanceID is the connection's ClientInstanceId (request
	// header v3, KIP-1313); zero when it sent none.
	ClientInstanceID kwire.UUID
	// Latency is a response's time since its request, by capture
	// timestamps; -1 when the capture holds the request after it.
	Latency time.Duration
	Size    int // frame bytes, size prefix included

	// Msg is the decoded body (valid only during the callback: it may
	// alias the capture's buffers); nil when it did not decode.
	Msg  any
	Err  error  // why the frame did not decode or pair
	Note string // anything else worth saying

	// ErrorCodes are the response's non-zero error codes.
	ErrorCodes []kerr.FieldCode
	// Summary is the response's one-line summary (pretty.Summary's),
	// from the walk that found ErrorCodes; empty when that walk failed.
	Summary string
}

// Options tune a Reader; the zero value is usable.
type Options struct {
	// Ports, when not empty, limits the search to connections with one
	// end on these ports, and says that end is the broker.
	Ports []uint16
	// MaxFrame is the largest frame decoded (size prefix value); larger
	// frames are reported by their header and skipped without being
	// buffered. Default kwire.DefaultMaxFrameSize.
	MaxFrame int
	// MaxInFlight bounds the requests awaiting a response on one
	// connection. Default 1024.
	MaxInFlight int
	// Reorder is how long, in capture time, a stream waits for a missing
	// segment before the hole is reported as a gap: longer than a
	// retransmission takes, short enough that the broker's answers to
	// the requests held up behind the hole can wait for them. Default 3s.
	Reorder time.Duration
	// Idle is how long, in capture time, a connection may be silent
	// before its state is dropped. Default 10 minutes.
	Idle time.Duration
	// MaxReorderBytes bounds the out-of-order bytes held per connection
	// (beyond it the oldest hole is reported as a gap). Default 8 MiB.
	MaxReorderBytes int
	// Progress, when not nil, is called about once a second of reading
	// with the bytes of the capture read so far.
	Progress func(read int64)
	// Registry decodes the frames (default messages.Default): a dialect
	// (messages.Registry.Replace) reads a fork's traffic.
	Registry *messages.Registry
}

func (o *Options) defaults() {
	if o.MaxFrame <= 0 {
		o.MaxFrame = kwire.DefaultMaxFrameSize
	}
	if o.Registry == nil {
		o.Registry = messages.Default
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 1024
	}
	if o.Reorder <= 0 {
		o.Reorder = 3 * time.Second
	}
	if o.Idle <= 0 {
		o.Idle = 10 * time.Minute
	}
	if o.MaxReorderBytes <= 0 {
		o.MaxReorderBytes = 8 << 20
	}
}

// pageBytes is the size of the reassembler's pages, which its limits
// count (gopacket's reassembly/memory.go).
const pageBytes = 1900

// maxReorderTotal bounds the out-of-order bytes held over all
// connections; past it the reassembler gives up the oldest holes (gaps)
// of the connections it sees packets for.
const maxReorderTotal = 256 << 20

// packetSource is what pcapgo's two readers have in common.
type packetSource interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// countingReader counts the bytes read, for the progress line.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Read reads a whole capture from r and calls emit for every record, in
// capture order per connection. It returns the summary, and an error
// only when r is not a capture it can read or stops being one; a capture
// cut short ends like one that closed.
func Read(r io.Reader, opt Options, emit func(*Record)) (*Stats, error) {
	opt.defaults()
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 1<<20)
	magic, err := br.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("not a capture: %d bytes", len(magic))
	}
	s := newSniffer(opt, emit)
	var src packetSource
	var linkOf func(gopacket.CaptureInfo) layers.LinkType
	switch {
	case bytes.Equal(magic, []byte{0x0a, 0x0d, 0x0d, 0x0a}):
		ng, err := pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{})
		if err != nil {
			return nil, fmt.Errorf("pcapng: %v", err)
		}
		src = ng
		linkOf = func(ci gopacket.CaptureInfo) layers.LinkType {
			if intf, err := ng.Interface(ci.InterfaceIndex); err == nil {
				return intf.LinkType
			}
			return ng.LinkType()
		}
	default:
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("neither pcap nor pcapng: %v", err)
		}
		src = pr
		lt := pr.LinkType()
		linkOf = func(gopacket.CaptureInfo) layers.LinkType { return lt }
	}

	var lastFlush, lastProgress time.Time
	var readErr error
	for {
		data, ci, err := readPacket(src)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		s.stats.Packets++
		s.packet(linkOf(ci), data, ci)
		if ci.Timestamp.Sub(lastFlush) > time.Second || lastFlush.After(ci.Timestamp) {
			lastFlush = ci.Timestamp
			s.asm.FlushWithOptions(reassembly.FlushOptions{T: ci.Timestamp.Add(-opt.Reorder), TC: ci.Timestamp.Add(-opt.Idle)})
		}
		if opt.Progress != nil && s.stats.Packets%4096 == 0 {
			if now := time.Now(); now.Sub(lastProgress) > time.Second {
				lastProgress = now
				opt.Progress(cr.n)
			}
		}
	}
	s.asm.FlushAll()
	s.finish()
	if readErr != nil {
		if errors.Is(readErr, io.ErrUnexpectedEOF) {
			s.stats.Truncated = true
			return s.stats, nil
		}
		return s.stats, fmt.Errorf("after %d packets: %v", s.stats.Packets, readErr)
	}
	return s.stats, nil
}

// readPacket reads the next packet. pcapgo's pcapng reader indexes its
// interfaces with a block's 32-bit interface id converted to int, which
// on 32-bit platforms turns a large id negative and past its bounds
// check (gopacket v1.7.7 ngread.go): a malformed block is an error here,
// never a panic.
func readPacket(src packetSource) (data []byte, ci gopacket.CaptureInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("malformed pcapng block: %v", p)
		}
	}()
	return src.ZeroCopyReadPacketData()
}

// sniffer holds the state of one Read.
type sniffer struct {
	opt   Options
	emit  func(*Record)
	ports map[uint16]bool
	asm   *reassembly.Assembler
	stats *Stats
	conns int
	live  map[*conn]struct{} // connections the reassembler has not completed

	ip4 layers.IPv4
	ip6 layers.IPv6
	tcp layers.TCP
}

func newSniffer(opt Options, emit func(*Record)) *sniffer {
	s := &sniffer{opt: opt, emit: emit, stats: newStats(), live: map[*conn]struct{}{}}
	s.stats.reg = opt.Registry
	if len(opt.Ports) > 0 {
		s.ports = map[uint16]bool{}
		for _, p := range opt.Ports {
			s.ports[p] = true
		}
	}
	s.asm = reassembly.NewAssembler(reassembly.NewStreamPool(s))
	s.asm.MaxBufferedPagesPerConnection = max(opt.MaxReorderBytes/pageBytes, 1)
	s.asm.MaxBufferedPagesTotal = max(maxReorderTotal/pageBytes, s.asm.MaxBufferedPagesPerConnection)
	return s
}

// captureContext carries a packet's capture info into the reassembler.
type captureContext struct{ ci gopacket.CaptureInfo }

func (c *captureContext) GetCaptureInfo() gopacket.CaptureInfo { return c.ci }

// Link-layer header types this reader unwraps (LINKTYPE_* numbers).
const (
	linkNull     = 0
	linkEthernet = 1
	linkRaw      = 101
	linkLoop     = 108
	linkSLL      = 113
	linkIPv4     = 228
	linkIPv6     = 229
	linkSLL2     = 276
)

// packet unwraps one captured packet down to TCP and feeds the reassembler.
func (s *sniffer) packet(link layers.LinkType, data []byte, ci gopacket.CaptureInfo) {
	ip, ok := networkPayload(link, data)
	if !ok || len(ip) == 0 {
		s.stats.NotTCP++
		return
	}
	var netFlow gopacket.Flow
	var seg []byte
	switch ip[0] >> 4 {
	case 4:
		if s.ip4.DecodeFromBytes(ip, gopacket.NilDecodeFeedback) != nil || s.ip4.Protocol != layers.IPProtocolTCP {
			s.stats.NotTCP++
			return
		}
		if s.ip4.Flags&layers.IPv4MoreFragments != 0 || s.ip4.FragOffset != 0 {
			s.stats.Fragments++
			return
		}
		netFlow, seg = s.ip4.NetworkFlow(), s.ip4.Payload
	case 6:
		if s.ip6.DecodeFromBytes(ip, gopacket.NilDecodeFeedback) != nil || s.ip6.NextHeader != layers.IPProtocolTCP {
			s.stats.NotTCP++
			return
		}
		netFlow, seg = s.ip6.NetworkFlow(), s.ip6.Payload
	default:
		s.stats.NotTCP++
		return
	}
	if s.tcp.DecodeFromBytes(seg, gopacket.NilDecodeFeedback) != nil {
		s.stats.NotTCP++
		return
	}
	if s.ports != nil && !s.ports[uint16(s.tcp.SrcPort)] && !s.ports[uint16(s.tcp.DstPort)] {
		return
	}
	// A context of its own: the reassembler keeps it with segments it
	// queues, and hands it back with them when a hole is given up on.
	s.asm.AssembleWithContext(netFlow, &s.tcp, &captureContext{ci})
}

// networkPayload returns the IP packet inside a link-layer frame.
func networkPayload(link layers.LinkType, b []byte) ([]byte, bool) {
	switch link {
	case linkEthernet:
		if len(b) < 14 {
			return nil, false
		}
		etype, off := binary.BigEndian.Uint16(b[12:]), 14
		for etype == 0x8100 || etype == 0x88a8 { // VLAN tags
			if len(b) < off+4 {
				return nil, false
			}
			etype, off = binary.BigEndian.Uint16(b[off+2:]), off+4
		}
		if etype != 0x0800 && etype != 0x86dd {
			return nil, false
		}
		return b[off:], true
	case linkNull, linkLoop:
		if len(b) < 4 {
			return nil, false
		}
		return b[4:], true
	case linkRaw, linkIPv4, linkIPv6:
		return b, true
	case linkSLL:
		if len(b) < 16 {
			return nil, false
		}
		return b[16:], binary.BigEndian.Uint16(b[14:]) == 0x0800 || binary.BigEndian.Uint16(b[14:]) == 0x86dd
	case linkSLL2:
		if len(b) < 20 {
			return nil, false
		}
		return b[20:], binary.BigEndian.Uint16(b) == 0x0800 || binary.BigEndian.Uint16(b) == 0x86dd
	}
	return nil, false
}

// New is the reassembler's call for a new TCP connection.
func (s *sniffer) New(netFlow, tcpFlow gopacket.Flow, tcp *layers.TCP, ac reassembly.AssemblerContext) reassembly.Stream {
	c := newConn(s, netFlow, tcpFlow, tcp)
	s.live[c] = struct{}{}
	return c
}

// finish ends the connections the reassembler left open.
func (s *sniffer) finish() {
	for c := range s.live {
		c.end()
	}
}
