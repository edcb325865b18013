package kwire

import (
	"math/rand"
	"reflect"
	"testing"
)

// fillNode contains itself twice: the fillers must stop.
type fillNode struct {
	_        struct{}   `kafka:"versions=0-1,flexible=1+"`
	Name     *string    `kafka:"v=0+,nullable=1+"`
	Children []fillNode `kafka:"v=0+"`
	Next     *fillNode  `kafka:"v=0+,nullable=0+"`
	Tagged   int32      `kafka:"v=1+,tag=0,tagged=1+,default=5"`
}

// FillMinimal gives every array one element and every nullable struct a
// value until maxFillDepth, then stops; what it gives is legal at the
// version (it encodes) and decodes back equal.
func TestFillMinimalStopsAndRoundTrips(t *testing.T) {
	for v := int16(0); v <= 1; v++ {
		var m fillNode
		if err := FillMinimal(&m, v); err != nil {
			t.Fatal(err)
		}
		levels := 0
		for n := &m; len(n.Children) == 1; n = &n.Children[0] {
			levels++
		}
		if levels == 0 || levels > maxFillDepth {
			t.Errorf("v%d: %d levels of Children, want 1 to %d", v, levels, maxFillDepth)
		}
		if m.Next == nil || m.Name == nil || *m.Name != "" || m.Tagged != 5 {
			t.Errorf("v%d: Next %v, Name %v, Tagged %d; want present, \"\", 5", v, m.Next, m.Name, m.Tagged)
		}
		roundTrip(t, &m, v)
	}
}

// FillRandom draws null only where the version allows it (Name is
// nullable from v1) and a value that decodes back equal.
func TestFillRandomIsLegalAndRoundTrips(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	nulls := 0
	for i := 0; i < 300; i++ {
		v := int16(i % 2)
		var m fillNode
		if err := FillRandom(r, &m, v, RandomOptions{MaxLen: 3, MaxDepth: 3}); err != nil {
			t.Fatal(err)
		}
		if m.Name == nil {
			if v == 0 {
				t.Fatalf("v0: null Name, which v0 cannot carry")
			}
			nulls++
		}
		roundTrip(t, &m, v)
	}
	if nulls == 0 {
		t.Error("300 draws and never a null Name at v1")
	}
}

func roundTrip(t *testing.T, m *fillNode, v int16) {
	t.Helper()
	b, err := Marshal(m, v)
	if err != nil {
		t.Fatalf("v%d: %v", v, err)
	}
	var back fillNode
	if err := Unmarshal(b, &back, v); err != nil {
		t.Fatalf("v%d: %v", v, err)
	}
	if !reflect.DeepEqual(*m, back) {
		t.Errorf("v%d: decoded %+v, filled %+v", v, back, *m)
	}
}
