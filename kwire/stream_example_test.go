package kwire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/kwirelabs/kwire/kwire"
)

// SplitFrame cuts frames out of bytes that arrive in pieces.
func ExampleSplitFrame() {
	a, _ := kwire.AppendResponse(nil, &Heartbeat{GroupID: "a"}, 1, 1)
	b, _ := kwire.AppendResponse(nil, &Heartbeat{GroupID: "b"}, 1, 2)
	buf := append(append([]byte(nil), a...), b[:5]...) // the second frame is still arriving
	for {
		frame, used, err := kwire.SplitFrame(buf, kwire.DefaultMaxFrameSize)
		if errors.Is(err, kwire.ErrIncomplete) {
			fmt.Println("need more bytes; holding", len(buf))
			break
		}
		if err != nil {
			panic(err)
		}
		corr, _ := kwire.PeekResponse(frame)
		fmt.Println("frame", corr, used)
		buf = buf[used:]
	}
	// Output:
	// frame 1 19
	// need more bytes; holding 5
}

func ExampleNewFrameReader() {
	var stream bytes.Buffer
	for corr := int32(1); corr <= 2; corr++ {
		frame, _ := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, corr, nil)
		stream.Write(frame)
	}
	frames := kwire.NewFrameReader(&stream, 0)
	frame, err := frames.Next()
	for ; err == nil; frame, err = frames.Next() {
		_, _, corr, _ := kwire.PeekRequest(frame)
		fmt.Println(corr, len(frame))
	}
	fmt.Println(err == io.EOF) // a clean end, between frames
	// Output:
	// 1 25
	// 2 25
	// true
}

// A broker reads the request header first and may refuse the request
// before reading its body.
func ExampleFrameReader_Peek() {
	frame, _ := kwire.AppendRequest(nil, &Heartbeat{GroupID: "g"}, 1, 9, nil)
	frames := kwire.NewFrameReader(bytes.NewReader(frame), 0)
	head, err := frames.Peek(12)
	if err != nil {
		panic(err)
	}
	key, version, corr, err := kwire.PeekRequest(head)
	fmt.Println(key, version, corr, err)
	whole, err := frames.Next() // the same frame, whole
	fmt.Println(len(whole), err)
	// Output:
	// 68 1 9 <nil>
	// 25 <nil>
}
