// Command kafkaproxy is the smallest decoding Kafka proxy, built from
// kwire's pieces: it relays one broker, prints every request and response,
// and clamps ApiVersions so clients send only what kwire reads. `kwire
// proxy` is the full tool (every broker of a cluster, addresses rewritten).
//
//	go run ./examples/kafkaproxy 127.0.0.1:19092 broker:9092
package main

import (
	"log"
	"net"
	"os"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

func main() {
	ln, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	for {
		client, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		broker, err := net.Dial("tcp", os.Args[2])
		if err != nil {
			log.Print(err)
			client.Close()
			continue
		}
		tracker := messages.NewTracker(1024) // pairs each response with its request
		go relay(client, broker, func(frame []byte) []byte {
			tracker.Request(frame)
			h, req, err := messages.ReadRequest(frame)
			log.Printf("-> %d %s %v", h.CorrelationID, pretty.Summary(req, h.APIVersion), err)
			return frame
		})
		go relay(broker, client, func(frame []byte) []byte {
			sent, h, resp, err := tracker.ReadResponse(frame)
			log.Printf("<- %d %s %s %v", h.CorrelationID, time.Since(sent.Sent), pretty.Summary(resp, sent.APIVersion), err)
			if av, ok := resp.(*messages.ApiVersionsResponse); ok && av.Clamp(nil) {
				frame, _ = kwire.AppendResponseWithHeader(nil, h, av, sent.APIVersion)
			}
			return frame
		})
	}
}

// relay passes frames from src to dst, each through see first.
func relay(src, dst net.Conn, see func(frame []byte) []byte) {
	defer src.Close()
	defer dst.Close()
	frames := kwire.NewFrameReader(src, 0)
	for {
		frame, err := frames.Next()
		if err != nil {
			return
		}
		if _, err := dst.Write(see(frame)); err != nil {
			return
		}
	}
}
