package interop

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// kmsg writes a tagged field in every flexible version of its message
// when it differs from its default; Kafka's schemas give each tagged
// field its own versions. Where kmsg has a tagged field in a version whose
// schema does not, kmsg writes a tag that a Kafka peer (and kwire) reads
// as an unknown tagged field. The random kmsg filler sets tagged fields
// only in the versions kwire's tags give them, so this table is where
// these departures are checked: the test fails if the list changes, in
// particular if kmsg stops writing one of them. Each entry: the message at
// one version, the kmsg field's path, its tag. See README.md.
var kmsgTaggedDepartures = []string{
	"BrokerHeartbeatRequest v0: CordonedLogDirs (tag 1)",
	"BrokerHeartbeatRequest v0: OfflineLogDirs (tag 0)",
	"BrokerHeartbeatRequest v1: CordonedLogDirs (tag 1)",
	"FetchRequest v12: ReplicaState (tag 1)",
	"FetchRequest v12: Topics[0].Partitions[0].HighWatermark (tag 1)",
	"FetchRequest v12: Topics[0].Partitions[0].ReplicaDirectoryID (tag 0)",
	"FetchRequest v13: ReplicaState (tag 1)",
	"FetchRequest v13: Topics[0].Partitions[0].HighWatermark (tag 1)",
	"FetchRequest v13: Topics[0].Partitions[0].ReplicaDirectoryID (tag 0)",
	"FetchRequest v14: ReplicaState (tag 1)",
	"FetchRequest v14: Topics[0].Partitions[0].HighWatermark (tag 1)",
	"FetchRequest v14: Topics[0].Partitions[0].ReplicaDirectoryID (tag 0)",
	"FetchRequest v15: Topics[0].Partitions[0].HighWatermark (tag 1)",
	"FetchRequest v15: Topics[0].Partitions[0].ReplicaDirectoryID (tag 0)",
	"FetchRequest v16: Topics[0].Partitions[0].HighWatermark (tag 1)",
	"FetchRequest v16: Topics[0].Partitions[0].ReplicaDirectoryID (tag 0)",
	"FetchRequest v17: Topics[0].Partitions[0].HighWatermark (tag 1)",
	"FetchResponse v12: Brokers (tag 0)",
	"FetchResponse v13: Brokers (tag 0)",
	"FetchResponse v14: Brokers (tag 0)",
	"FetchResponse v15: Brokers (tag 0)",
	"FetchSnapshotRequest v0: Topics[0].Partitions[0].ReplicaDirectoryID (tag 0)",
	"FetchSnapshotResponse v0: NodeEndpoints (tag 0)",
	"ProduceResponse v9: Brokers (tag 0)",
	"ProduceResponse v9: Topics[0].Partitions[0].CurrentLeader (tag 0)",
	"VoteResponse v0: NodeEndpoints (tag 0)",
}

func TestKmsgTaggedFieldsBeyondTheSchema(t *testing.T) {
	meta, err := kmsgMeta()
	if err != nil {
		t.Fatal(err)
	}
	both, _, _ := sides(t)
	var found []string
	for _, s := range both {
		if !s.api.IsFlexible(s.v) {
			continue
		}
		km := s.kmsgMsg()
		root := reflect.ValueOf(km).Elem()
		kmsgMinimal(root, meta, 0)
		km.SetVersion(s.v)
		base := km.AppendTo(nil)
		f := &kmsgFiller{version: s.v, tagged: kwireTaggedFields(reflect.TypeOf(s.kwireMsg()).Elem())}
		var walk func(rv reflect.Value, depth int, path string)
		walk = func(rv reflect.Value, depth int, path string) {
			rt := rv.Type()
			for i := 0; i < rt.NumField(); i++ {
				sf := rt.Field(i)
				if !sf.IsExported() || sf.Type == kmsgTagsType || (depth == 0 && sf.Name == "Version") {
					continue
				}
				fv := rv.Field(i)
				m := kmsgField(meta, rt, sf)
				if m.tag >= 0 {
					if f.taggedIn(sf.Name, depth, m.tag) {
						continue
					}
					// kwire's schema lacks it here: does kmsg write it?
					saved := reflect.New(fv.Type()).Elem()
					saved.Set(fv)
					if perturb(fv) && !bytes.Equal(km.AppendTo(nil), base) {
						found = append(found, fmt.Sprintf("%s: %s%s (tag %d)", s, path, sf.Name, m.tag))
					}
					fv.Set(saved)
					if !bytes.Equal(km.AppendTo(nil), base) {
						t.Fatalf("%s: %s%s was not restored", s, path, sf.Name)
					}
					continue
				}
				switch {
				case fv.Kind() == reflect.Struct:
					walk(fv, depth+1, path+sf.Name+".")
				case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.Struct:
					walk(fv.Elem(), depth+1, path+sf.Name+".")
				case fv.Kind() == reflect.Slice && fv.Len() > 0 && fv.Index(0).Kind() == reflect.Struct:
					walk(fv.Index(0), depth+1, path+sf.Name+"[0].")
				}
			}
		}
		walk(root, 0, "")
	}
	slices.Sort(found)
	if !slices.Equal(found, kmsgTaggedDepartures) {
		t.Errorf("kmsg's tagged fields outside Kafka's tagged versions changed:\nfound:\n\t%s\ntable:\n\t%s",
			strings.Join(found, "\n\t"), strings.Join(kmsgTaggedDepartures, "\n\t"))
	}
	t.Logf("%d (message, version, field) cases where kmsg writes a tagged field Kafka's schema lacks", len(found))
}

// perturb moves v off its value: a number up by one, a bool flipped, a
// string extended, a nil pointer or empty slice given one zero element,
// a struct by its first field that moves. It reports whether it did.
func perturb(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			return true
		}
		return perturb(v.Elem())
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			return true
		}
		return perturb(v.Index(0))
	case reflect.Array:
		return v.Len() > 0 && perturb(v.Index(0))
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && perturb(v.Field(i)) {
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}
