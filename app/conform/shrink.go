package conform

import (
	"bytes"
	"reflect"

	"github.com/leanovate/gopter"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// shrinker is a gopter shrinker of api's requests at version v: each
// candidate is the request with one thing made smaller (an array
// emptied, then one element dropped; a string, byte slice or unknown
// tagged section emptied; a number zeroed; a bool cleared), fixed up by
// fix (prepare, so a candidate is as safe as its source), largest
// reductions first. Candidates that encode as their source does are left
// out.
func shrinker(api messages.API, v int16, fix func(messages.API, any, int16)) gopter.Shrinker {
	return func(value any) gopter.Shrink {
		orig, err := kwire.Marshal(value, v)
		if err != nil {
			return gopter.NoShrink
		}
		k := 0
		seen := map[string]bool{string(orig): true}
		return func() (any, bool) {
			for {
				clone := api.NewRequest()
				if err := kwire.Unmarshal(orig, clone, v); err != nil {
					return nil, false
				}
				s, err := kwire.SchemaOf(clone, v)
				if err != nil {
					return nil, false
				}
				var cuts []func()
				collectCuts(reflect.ValueOf(clone).Elem(), s, &cuts)
				if k >= len(cuts) {
					return nil, false
				}
				cuts[k]()
				k++
				fix(api, clone, v)
				enc, err := kwire.Marshal(clone, v)
				if err != nil || seen[string(enc)] || bytes.Equal(enc, orig) {
					continue
				}
				seen[string(enc)] = true
				return clone, true
			}
		}
	}
}

// collectCuts appends, for v (of schema s), the reductions shrinker
// tries, each as a function that makes it.
func collectCuts(v reflect.Value, s *kwire.Schema, cuts *[]func()) {
	if s.UnknownTags >= 0 {
		if ut := v.Field(s.UnknownTags); ut.Interface().(kwire.UnknownTags).Len() > 0 {
			*cuts = append(*cuts, func() { ut.Set(reflect.Zero(ut.Type())) })
		}
	}
	for i := range s.Fields {
		f := &s.Fields[i]
		fv := v.Field(f.Index)
		switch {
		case f.Records:
			// A records field is a batch prepare chose or bytes a shrink
			// would only make invalid.
		case f.Elem != nil && fv.Len() > 0:
			*cuts = append(*cuts, func() { fv.Set(reflect.MakeSlice(fv.Type(), 0, 0)) })
			for j := 0; j < fv.Len() && fv.Len() > 1; j++ {
				*cuts = append(*cuts, func() { fv.Set(reflect.AppendSlice(fv.Slice(0, j), fv.Slice(j+1, fv.Len()))) })
			}
		case f.Struct != nil && fv.Kind() == reflect.Pointer:
			if !fv.IsNil() {
				collectCuts(fv.Elem(), f.Struct, cuts)
			}
		case f.Struct != nil:
			collectCuts(fv, f.Struct, cuts)
		case fv.Kind() == reflect.String && fv.Len() > 0:
			*cuts = append(*cuts, func() { fv.SetString("") })
		case fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.String && !fv.IsNil() && fv.Elem().Len() > 0:
			*cuts = append(*cuts, func() { fv.Elem().SetString("") })
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Uint8 && fv.Len() > 0:
			*cuts = append(*cuts, func() { fv.SetBytes([]byte{}) })
		case fv.Kind() == reflect.Bool && fv.Bool():
			*cuts = append(*cuts, func() { fv.SetBool(false) })
		case fv.CanInt() && fv.Int() != 0:
			*cuts = append(*cuts, func() { fv.SetInt(0) })
		case fv.CanUint() && fv.Uint() != 0:
			*cuts = append(*cuts, func() { fv.SetUint(0) })
		case fv.CanFloat() && fv.Float() != 0:
			*cuts = append(*cuts, func() { fv.SetFloat(0) })
		}
	}
	// Then inside each element of the arrays of structs, after the cuts
	// that drop elements whole.
	for i := range s.Fields {
		f := &s.Fields[i]
		if f.Elem == nil || f.Elem.Struct == nil {
			continue
		}
		fv := v.Field(f.Index)
		for j := 0; j < fv.Len(); j++ {
			collectCuts(fv.Index(j), f.Elem.Struct, cuts)
		}
	}
}
