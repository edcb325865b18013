package kwiretest_test

import (
	"fmt"
	"os"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
)

// Greeting is a user's own message.
type Greeting struct {
	_           struct{}   `kafka:"api=1000,versions=0-2,flexible=2+"`
	ID          kwire.UUID `kafka:"v=0+"`
	Names       []string   `kafka:"v=0+"`
	Nick        *string    `kafka:"v=1+,nullable=1+,default=null"`
	Mood        string     `kafka:"v=2+,tag=0,tagged=2+"`
	UnknownTags kwire.UnknownTags
}

// In a test, one line checks a type at every version it declares:
//
//	func TestGreeting(t *testing.T) {
//		kwiretest.RoundTrip(t, &Greeting{Names: []string{"ann"}})
//		kwiretest.GoldenRequest(t, "greeting_v2", &Greeting{Mood: "sunny"}, 2) // testdata/greeting_v2.golden
//	}
//
// Gen and Check make properties of one's own, with gopter.
func Example() {
	params := gopter.DefaultTestParametersWithSeed(1)
	properties := gopter.NewProperties(params)
	for v := int16(0); v <= 2; v++ {
		properties.Property(fmt.Sprintf("Greeting v%d round-trips", v), prop.ForAll(
			func(g *Greeting) (bool, error) {
				err := kwiretest.Check(g, v)
				return err == nil, err
			},
			kwiretest.Gen(&Greeting{}, v)))
	}
	properties.Property("a name list survives", prop.ForAll(
		func(g *Greeting) bool {
			b, _ := kwire.Marshal(g, 1)
			var back Greeting
			return kwire.Unmarshal(b, &back, 1) == nil && len(back.Names) == len(g.Names)
		},
		kwiretest.Gen(&Greeting{}, 1)))
	properties.Run(gopter.NewFormatedReporter(false, 80, os.Stdout))
	// Output:
	// + Greeting v0 round-trips: OK, passed 100 tests.
	// + Greeting v1 round-trips: OK, passed 100 tests.
	// + Greeting v2 round-trips: OK, passed 100 tests.
	// + a name list survives: OK, passed 100 tests.
}
