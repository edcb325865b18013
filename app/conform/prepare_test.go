package conform

import (
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// TestPrepareIsSafe: every request a default run may send (its API read
// only or acting on what it names), random at every version, names after
// prepare only the checker's topics, groups and transactions, asks as a
// client (replica id -1), waits at most maxWaitMs and asks for at most
// maxCount partitions or replicas.
func TestPrepareIsSafe(t *testing.T) {
	e := newEnv("kwire-conform-")
	e.topicID = kwire.UUID{9}
	r := rand.New(rand.NewSource(1))
	for _, api := range messages.APIs() {
		if classOf(api) == destructive {
			continue
		}
		for v := api.MinVersion; v <= api.MaxStable(); v++ {
			for range 20 {
				req := api.NewRequest()
				if err := kwire.FillRandom(r, req, v, kwire.RandomOptions{MaxLen: 3}); err != nil {
					t.Fatal(err)
				}
				e.prepare(api, req, v)
				s, err := kwire.SchemaOf(req, v)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkSafe(reflect.ValueOf(req).Elem(), s, "", api.Name+fmt.Sprintf(" v%d", v)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// names and exempt are written apart from prepare's nameKind: a field
// whose name says it names a topic, group or transaction (or a Name of
// an element of such an array) must hold the checker's.
var (
	names  = regexp.MustCompile(`(?i)topic|group|transactional`)
	exempt = regexp.MustCompile(`(?i)instance|epoch`)
)

func namesSomething(field, parent string) bool {
	if field == "Name" || field == "Names" {
		return names.MatchString(parent) && !exempt.MatchString(parent)
	}
	return names.MatchString(field) && !exempt.MatchString(field)
}

func checkSafe(v reflect.Value, s *kwire.Schema, parent, path string) error {
	for i := range s.Fields {
		f := &s.Fields[i]
		fv := v.Field(f.Index)
		p := path + "." + f.Name
		kind := ""
		if namesSomething(f.Name, parent) {
			kind = "name"
		}
		switch {
		case f.Struct != nil && f.Elem == nil:
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if err := checkSafe(fv, f.Struct, f.Name, p); err != nil {
				return err
			}
		case f.Elem != nil && f.Elem.Struct != nil:
			for j := 0; j < fv.Len(); j++ {
				if err := checkSafe(fv.Index(j), f.Elem.Struct, f.Name, fmt.Sprintf("%s[%d]", p, j)); err != nil {
					return err
				}
			}
		case kind != "" && fv.Kind() == reflect.String && !strings.HasPrefix(fv.String(), "kwire-conform-"):
			return fmt.Errorf("%s = %q, not the checker's", p, fv.String())
		case kind != "" && fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.String && !fv.IsNil() && !strings.HasPrefix(fv.Elem().String(), "kwire-conform-"):
			return fmt.Errorf("%s = %q, not the checker's", p, fv.Elem().String())
		case kind != "" && fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			for j := 0; j < fv.Len(); j++ {
				if !strings.HasPrefix(fv.Index(j).String(), "kwire-conform-") {
					return fmt.Errorf("%s[%d] = %q, not the checker's", p, j, fv.Index(j).String())
				}
			}
		case fv.CanInt() && f.Name == "ReplicaID" && fv.Int() != -1:
			return fmt.Errorf("%s = %d, not a client's -1", p, fv.Int())
		case fv.CanInt() && isWait(f.Name) && (fv.Int() < 0 || fv.Int() > maxWaitMs):
			return fmt.Errorf("%s = %d, a wait past %d ms", p, fv.Int(), maxWaitMs)
		case fv.CanInt() && isCount(f.Name) && fv.Int() > maxCount:
			return fmt.Errorf("%s = %d, past %d", p, fv.Int(), maxCount)
		}
	}
	return nil
}
