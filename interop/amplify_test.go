package interop

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwirelabs/kwire/internal/amplify"
	"github.com/kwirelabs/kwire/kwire"
)

// maxAllocVsKmsg is the bound on kwire's allocation against
// kmsg's, decoding the same bytes.
const maxAllocVsKmsg = 1.5

// maxOverFootprint bounds kwire's allocation against the footprint of
// the value it decodes (amplify.Footprint): what a decoder allocates
// beyond the value itself is waste.
const maxOverFootprint = 1.25

// TestAllocationAgainstKmsg runs the amplification scan (every API,
// version, side and array, each body about 32 KiB of that array's
// smallest elements) through kwire and kmsg. kwire must allocate at most
// 1.25 times the footprint of the value it decodes, and at most 1.5 times
// what kmsg allocates, in every case.
func TestAllocationAgainstKmsg(t *testing.T) {
	type row struct {
		c                      amplify.Case
		kwire, kmsg, footprint uint64
	}
	var rows []row
	skipped := map[string]int{}
	err := amplify.Each(scanSize(), func(c amplify.Case) error {
		newKmsg := func() kmsgMessage {
			if c.Response {
				return kmsg.ResponseForKey(c.API.Key)
			}
			return kmsg.RequestForKey(c.API.Key)
		}
		if km := newKmsg(); km == nil || c.Version > km.MaxVersion() {
			skipped["kmsg lacks the API or version"]++
			return nil
		}
		kmCost, kmErr := amplify.Measure(func() (any, error) {
			m := newKmsg()
			m.SetVersion(c.Version)
			return m, m.ReadFrom(c.Body)
		})
		if kmErr != nil {
			skipped["kmsg cannot read the body"]++
			return nil
		}
		var msg any // made inside the measure, as kmsg's message is
		kwCost, err := amplify.Measure(func() (any, error) { msg = c.New(); return msg, kwire.Unmarshal(c.Body, msg, c.Version) })
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		rows = append(rows, row{c: c, kwire: kwCost.Alloc, kmsg: kmCost.Alloc, footprint: amplify.Footprint(msg)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 1000 {
		t.Fatalf("only %d cases compared (%v)", len(rows), skipped)
	}
	ratio := func(r row) float64 { return float64(r.kwire) / float64(r.kmsg) }
	sort.Slice(rows, func(i, j int) bool { return ratio(rows[i]) > ratio(rows[j]) })
	worstOver := 0.0
	for _, r := range rows {
		over := float64(r.kwire) / float64(r.footprint)
		worstOver = max(worstOver, over)
		if over > maxOverFootprint {
			t.Errorf("%s: kwire allocates %d bytes, %.2f× the %d of the value it decodes (kmsg %d)", r.c, r.kwire, over, r.footprint, r.kmsg)
		}
		if ratio(r) > maxAllocVsKmsg {
			t.Errorf("%s: kwire allocates %d bytes, kmsg %d (%.2f×) for %d bytes", r.c, r.kwire, r.kmsg, ratio(r), len(r.c.Body))
		}
	}
	t.Logf("worst kwire allocation over its value's footprint %.2f×", worstOver)
	worst := rows[0]
	var worstIn row
	for _, r := range rows {
		if float64(r.kwire)/float64(len(r.c.Body)) > float64(worstIn.kwire)/float64(max(1, len(worstIn.c.Body))) {
			worstIn = r
		}
	}
	t.Logf("%d cases compared (%v); worst kwire/kmsg %.2f× (%s); worst kwire allocation %.2f× its input (%s; kmsg %.2f×)",
		len(rows), skipped, ratio(worst), worst.c,
		float64(worstIn.kwire)/float64(len(worstIn.c.Body)), worstIn.c, float64(worstIn.kmsg)/float64(len(worstIn.c.Body)))
	for _, r := range rows[:10] {
		t.Logf("%.2f× %s (kwire %d, kmsg %d bytes)", ratio(r), r.c, r.kwire, r.kmsg)
	}
}

// scanSize is the body size of each case: KWIRE_AMPLIFY_SIZE, else 32 KiB.
func scanSize() int {
	if n, err := strconv.Atoi(os.Getenv("KWIRE_AMPLIFY_SIZE")); err == nil && n > 0 {
		return n
	}
	return 32 << 10
}
