package amplify

import (
	"flag"
	"fmt"
	"sort"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

var report = flag.Bool("report", false, "print the worst cases of the amplification scan")

// scanSize is the body size of each case: big enough that the message's
// fixed part is noise, small enough that 2,000-odd cases run in seconds.
const scanSize = 32 << 10

// maxLive is the bound on what a decoded message may keep alive,
// as a multiple of its input.
const maxLive = 16

// maxWaste is how far what a message keeps alive may exceed its own
// footprint where that footprint alone passes maxLive: Go structs with
// 24-byte slices and 16-byte strings for 1-byte empty arrays and strings,
// and one struct for every version of a message, can be 28 times their
// input before a decoder wastes a byte.
const maxWaste = 1.25

type result struct {
	c                  Case
	alloc, live, floor float64 // per input byte
}

// TestLiveMemoryIsBounded decodes every case and checks what the decoded
// message keeps alive against its input. (Allocation against kmsg is
// checked in the interop module, which has kmsg.)
func TestLiveMemoryIsBounded(t *testing.T) {
	var results []result
	err := Each(scanSize, func(c Case) error {
		var msg any // made inside the measure: its root struct is part of the footprint
		cost, err := Measure(func() (any, error) { msg = c.New(); return msg, kwire.Unmarshal(c.Body, msg, c.Version) })
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		in := float64(len(c.Body))
		results = append(results, result{c: c,
			alloc: float64(cost.Alloc) / in, live: float64(cost.Live) / in, floor: float64(Footprint(msg)) / in})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 1200 {
		t.Fatalf("only %d cases: the scan lost arrays", len(results))
	}
	sort.Slice(results, func(i, j int) bool { return results[i].live > results[j].live })
	worstAlloc, worstWaste, structural := results[0], results[0], 0
	for _, r := range results {
		if r.alloc > worstAlloc.alloc {
			worstAlloc = r
		}
		if r.live/r.floor > worstWaste.live/worstWaste.floor {
			worstWaste = r
		}
		switch {
		case r.live <= maxLive:
		case r.floor > maxLive/maxWaste:
			structural++
			if r.live > maxWaste*r.floor {
				t.Errorf("%s (%d elements, %d bytes): keeps %.1f× its input alive, %.2f× its own footprint", r.c, r.c.Elements, len(r.c.Body), r.live, r.live/r.floor)
			}
		default:
			t.Errorf("%s (%d elements, %d bytes): keeps %.1f× its input alive, more than %d×", r.c, r.c.Elements, len(r.c.Body), r.live, maxLive)
		}
	}
	t.Logf("%d cases; worst live %.2f× (%s), worst allocation %.2f× (%s), worst live/footprint %.2f (%s); %d cases whose Go value alone is over %.1f× its input",
		len(results), results[0].live, results[0].c, worstAlloc.alloc, worstAlloc.c,
		worstWaste.live/worstWaste.floor, worstWaste.c, structural, maxLive/maxWaste)
	if *report {
		for _, r := range results[:40] {
			t.Logf("live %6.2f× alloc %6.2f× footprint %6.2f× %s", r.live, r.alloc, r.floor, r.c)
		}
	}
}

// The audit's worst case: StreamsGroupDescribeResponse v0, whose members
// alternate more element types than the decoder had slabs, kept 224× its
// input alive (16 MiB in, 3.76 GB live).
func TestStreamsGroupDescribeResponseV0(t *testing.T) {
	api, ok := messages.Lookup(89)
	if !ok || api.Name != "StreamsGroupDescribe" {
		t.Fatalf("API 89 is %q", api.Name)
	}
	c := Case{API: api, Version: 0, Response: true, Path: []string{"Groups"}}
	if err := c.craft(1 << 20); err != nil {
		t.Fatal(err)
	}
	msg := c.New()
	cost, err := Measure(func() (any, error) { return msg, kwire.Unmarshal(c.Body, msg, c.Version) })
	if err != nil {
		t.Fatal(err)
	}
	live := float64(cost.Live) / float64(len(c.Body))
	t.Logf("%s: %d bytes in, %.2f× live, %.2f× allocated, footprint %.2f×", c, len(c.Body), live,
		float64(cost.Alloc)/float64(len(c.Body)), float64(Footprint(msg))/float64(len(c.Body)))
	if live > maxLive {
		t.Errorf("keeps %.1f× its input alive", live)
	}
}
