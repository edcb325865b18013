// Package capturetest writes packet captures of TCP connections a test
// makes up, for tests of capture readers: SYN handshakes, data cut into
// segments, segments sent out of order, again, or not at all, and the
// capture written as libpcap or pcapng by gopacket's pcapgo.
package capturetest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Packet is one captured packet.
type Packet struct {
	Time time.Time
	Data []byte // Ethernet frame
}

// Capture is a list of packets in capture order.
type Capture struct {
	Packets []Packet
	clock   time.Time
	conns   int
	stream  *pcapgo.Writer // when set, packets are written here, not kept
}

// New starts an empty capture at a fixed time.
func New() *Capture {
	return &Capture{clock: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
}

// Tick advances the capture clock.
func (c *Capture) Tick(d time.Duration) { c.clock = c.clock.Add(d) }

// Now is the capture clock.
func (c *Capture) Now() time.Time { return c.clock }

// Stream starts a capture that writes each packet to w as a libpcap
// file as it is added and keeps none: a capture larger than memory.
func Stream(w io.Writer) *Capture {
	c := New()
	c.stream = pcapgo.NewWriterNanos(w)
	if err := c.stream.WriteFileHeader(65536, layers.LinkTypeEthernet); err != nil {
		panic(err)
	}
	return c
}

// Add appends packets at the current time, each 10µs after the last.
func (c *Capture) Add(pkts ...[]byte) {
	for _, p := range pkts {
		c.clock = c.clock.Add(10 * time.Microsecond)
		if c.stream != nil {
			ci := gopacket.CaptureInfo{Timestamp: c.clock, CaptureLength: len(p), Length: len(p)}
			if err := c.stream.WritePacket(ci, p); err != nil {
				panic(err)
			}
			continue
		}
		c.Packets = append(c.Packets, Packet{Time: c.clock, Data: p})
	}
}

// Conn is one TCP connection between a client and a server address.
type Conn struct {
	c                    *Capture
	client, server       *net.TCPAddr
	clientSeq, serverSeq uint32
}

// Dial makes a connection and, with handshake set, captures its SYN,
// SYN-ACK and ACK.
func (c *Capture) Dial(client, server string, handshake bool) *Conn {
	cl, err := net.ResolveTCPAddr("tcp", client)
	if err != nil {
		panic(err)
	}
	sv, err := net.ResolveTCPAddr("tcp", server)
	if err != nil {
		panic(err)
	}
	c.conns++
	k := &Conn{c: c, client: cl, server: sv, clientSeq: uint32(c.conns) * 0x01000193, serverSeq: uint32(c.conns) * 0x9e3779b1}
	if handshake {
		c.Add(k.segment(true, true, false, nil))
		c.Add(k.segment(false, true, false, nil))
		c.Add(k.segment(true, false, false, nil))
	}
	return k
}

// Client is the client's address.
func (k *Conn) Client() string { return k.client.String() }

// Segments cuts data from one side into segments of at most mss bytes
// (in order, not captured) and advances that side's sequence number.
func (k *Conn) Segments(fromClient bool, data []byte, mss int) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		n := min(mss, len(data))
		out = append(out, k.segment(fromClient, false, false, data[:n]))
		data = data[n:]
	}
	return out
}

// Send captures data from one side, in segments of at most mss bytes.
func (k *Conn) Send(fromClient bool, data []byte, mss int) {
	k.c.Add(k.Segments(fromClient, data, mss)...)
}

// Close captures a FIN from each side and the client's last ACK, as a
// clean close does.
func (k *Conn) Close() {
	k.c.Add(k.segment(true, false, true, nil))
	k.c.Add(k.segment(false, false, true, nil))
	k.c.Add(k.segment(true, false, false, nil))
}

// segment builds one Ethernet/IP/TCP packet and advances the sender's
// sequence number past its payload (and SYN or FIN).
func (k *Conn) segment(fromClient, syn, fin bool, payload []byte) []byte {
	src, dst := k.client, k.server
	seq, ack := &k.clientSeq, k.serverSeq
	if !fromClient {
		src, dst = dst, src
		seq, ack = &k.serverSeq, k.clientSeq
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port), DstPort: layers.TCPPort(dst.Port), Seq: *seq, Ack: ack,
		SYN: syn, FIN: fin, ACK: !(syn && fromClient), PSH: len(payload) > 0, Window: 65535}
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}}
	var ipLayer gopacket.SerializableLayer
	if ip4 := src.IP.To4(); ip4 != nil {
		eth.EthernetType = layers.EthernetTypeIPv4
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: ip4, DstIP: dst.IP.To4(), Flags: layers.IPv4DontFragment}
		tcp.SetNetworkLayerForChecksum(ip)
		ipLayer = ip
	} else {
		eth.EthernetType = layers.EthernetTypeIPv6
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.IP, DstIP: dst.IP}
		tcp.SetNetworkLayerForChecksum(ip)
		ipLayer = ip
	}
	buf := gopacket.NewSerializeBuffer()
	err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ipLayer, tcp, gopacket.Payload(payload))
	if err != nil {
		panic(err)
	}
	*seq += uint32(len(payload))
	if syn || fin {
		*seq++
	}
	return append([]byte(nil), buf.Bytes()...)
}

// Pcap is the capture as a libpcap file.
func (c *Capture) Pcap() []byte {
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65536, layers.LinkTypeEthernet); err != nil {
		panic(err)
	}
	for _, p := range c.Packets {
		ci := gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(p.Data), Length: len(p.Data)}
		if err := w.WritePacket(ci, p.Data); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

// PcapAs is the capture as a libpcap file of another link-layer type:
// each Ethernet header is replaced by that type's (Linux cooked v1 and
// v2 as tcpdump -i any writes them, BSD loopback, raw IP).
func (c *Capture) PcapAs(link layers.LinkType) []byte {
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65536, link); err != nil {
		panic(err)
	}
	for _, p := range c.Packets {
		etype, ip := p.Data[12:14], p.Data[14:]
		var hdr []byte
		switch link {
		case layers.LinkTypeLinuxSLL:
			hdr = append([]byte{0, 0, 0x03, 0x04, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0}, etype...)
		case layers.LinkTypeLinuxSLL2:
			hdr = append(append([]byte(nil), etype...), 0, 0, 0, 0, 0, 1, 0x03, 0x04, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0)
		case layers.LinkTypeNull:
			family := byte(2) // AF_INET, little-endian as written on the capturing host
			if etype[0] == 0x86 {
				family = 30 // AF_INET6 on macOS
			}
			hdr = []byte{family, 0, 0, 0}
		case layers.LinkTypeRaw:
		default:
			panic(fmt.Sprintf("capturetest: no link type %v", link))
		}
		data := append(hdr, ip...)
		ci := gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacket(ci, data); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

// Pcapng is the capture as a pcapng file.
func (c *Capture) Pcapng() []byte {
	var b bytes.Buffer
	w, err := pcapgo.NewNgWriter(&b, layers.LinkTypeEthernet)
	if err != nil {
		panic(err)
	}
	for _, p := range c.Packets {
		ci := gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(p.Data), Length: len(p.Data)}
		if err := w.WritePacket(ci, p.Data); err != nil {
			panic(fmt.Sprintf("pcapng: %v", err))
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	return b.Bytes()
}
