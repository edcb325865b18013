package interop

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/messages"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// minimalSizesFile is the main module's table of minimal-instance sizes
// (written by `go generate ./messages`).
const minimalSizesFile = "../messages/testdata/minimal-sizes.tsv"

// TestKmsgMinimalSizes checks every row of the minimal-sizes table against
// the frames kmsg makes of its own smallest instance (kmsgMinimal, the
// instance checkMinimal compares byte for byte with kwire's body): the
// request frame is kmsg's RequestFormatter with an empty client ID, the
// response frame kmsg's body behind the response header franz-go's client
// reads (tags after the correlation ID when the version is flexible, never
// for ApiVersions). Rows kmsg cannot give are departures: versions kmsg
// lacks, and the frames frameExclusions lists, still checked so that the
// list cannot go stale.
func TestKmsgMinimalSizes(t *testing.T) {
	meta, err := kmsgMeta()
	if err != nil {
		t.Fatalf("reading kmsg's source: %v", err)
	}
	f, err := os.Open(minimalSizesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := sizes.ReadTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	agree := 0
	var departures []string
	for _, r := range rows {
		api, ok := messages.Lookup(r.Key)
		if !ok || api.Name != r.Name {
			t.Errorf("%s: key %d (%s) is not in the registry", minimalSizesFile, r.Key, r.Name)
			continue
		}
		row := fmt.Sprintf("%s (%d) v%d", r.Name, r.Key, r.Version)
		kreq := kmsg.RequestForKey(r.Key)
		if kreq == nil || r.Version > kreq.MaxVersion() {
			departures = append(departures, row+": not compared, kmsg has no such version")
			continue
		}
		var diffs []string
		req := kmsgMinimalMsg(side{api, r.Version, false}, meta).(kmsg.Request)
		reqFrame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("")).AppendRequest(nil, req, 0)
		if prefix := int(reqFrame[0])<<24 | int(reqFrame[1])<<16 | int(reqFrame[2])<<8 | int(reqFrame[3]); len(reqFrame) != r.Request || prefix != len(reqFrame)-4 {
			diffs = append(diffs, fmt.Sprintf("request: kmsg's frame is %d bytes (size prefix %d), the table says %d", len(reqFrame), prefix, r.Request))
		}
		resp := kmsgMinimalMsg(side{api, r.Version, true}, meta)
		respFrame := 4 + 4 + len(resp.AppendTo(nil)) // size prefix, correlation ID, body
		if resp.IsFlexible() && r.Key != 18 {
			respFrame++ // the header's empty tag section
		}
		if respFrame != r.Response {
			diffs = append(diffs, fmt.Sprintf("response: kmsg's frame is %d bytes, the table says %d", respFrame, r.Response))
		}
		reason, listed := frameExclusions[exclusion{r.Key, r.Version, false}]
		switch {
		case listed && len(diffs) == 0:
			t.Errorf("%s: listed in frameExclusions (%s), but kmsg's frame sizes now agree with the table: remove it", row, reason)
		case listed:
			departures = append(departures, fmt.Sprintf("%s: %s (%s)", row, strings.Join(diffs, "; "), reason))
		case len(diffs) > 0:
			t.Errorf("%s: %s", row, strings.Join(diffs, "; "))
		default:
			agree++
		}
	}
	t.Logf("%d of %d rows of %s agree with kmsg's minimal frames, request and response; departures:\n\t%s",
		agree, len(rows), minimalSizesFile, strings.Join(departures, "\n\t"))
}
