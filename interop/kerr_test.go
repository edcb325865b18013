package interop

import (
	"fmt"
	"slices"
	"testing"

	fkerr "github.com/twmb/franz-go/pkg/kerr"

	"github.com/kwirelabs/kwire/kwire/kerr"
)

// kerrDepartures is where franz-go's kerr departs from Kafka's own table
// (which kwire/kerr is generated from). The test fails if the list
// changes, so a fix on either side is noticed.
var kerrDepartures = []string{
	// Kafka renamed NOT_LEADER_FOR_PARTITION (KIP-392); franz-go keeps
	// the old name.
	"6 name: franz-go NOT_LEADER_FOR_PARTITION, Kafka NOT_LEADER_OR_FOLLOWER",
	// Kafka's BrokerNotAvailableException is not a RetriableException.
	"8 BROKER_NOT_AVAILABLE retriable: franz-go true, Kafka false",
	// Kafka's ConcurrentTransactionsException is retriable.
	"51 CONCURRENT_TRANSACTIONS retriable: franz-go false, Kafka true",
	// Share sessions (KIP-932): Kafka's exceptions are retriable.
	"122 SHARE_SESSION_NOT_FOUND retriable: franz-go false, Kafka true",
	"123 INVALID_SHARE_SESSION_EPOCH retriable: franz-go false, Kafka true",
}

// TestKerrAgreesWithFranz compares kwire's error-code table with
// franz-go's kerr: the same name and retriable flag for every code both
// know, but for the departures listed above.
func TestKerrAgreesWithFranz(t *testing.T) {
	var departures []string
	both := 0
	for _, c := range kerr.Codes() {
		if c == kerr.None {
			continue
		}
		f := fkerr.TypedErrorForCode(int16(c))
		if f == nil || (f == fkerr.UnknownServerError && c != kerr.UnknownServerError) {
			departures = append(departures, fmt.Sprintf("%d %s: franz-go lacks it", c, c.Name()))
			continue
		}
		both++
		if f.Message != c.Name() {
			departures = append(departures, fmt.Sprintf("%d name: franz-go %s, Kafka %s", c, f.Message, c.Name()))
		}
		if f.Retriable != c.Retriable() {
			departures = append(departures, fmt.Sprintf("%d %s retriable: franz-go %v, Kafka %v", c, c.Name(), f.Retriable, c.Retriable()))
		}
	}
	if !slices.Equal(departures, kerrDepartures) {
		t.Errorf("departures from franz-go's kerr changed:\n got %q\nwant %q", departures, kerrDepartures)
	}
	if both != 137 {
		t.Errorf("%d codes in both tables, want 137 (all but NONE)", both)
	}
}
