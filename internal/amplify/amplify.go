// Package amplify crafts the bodies of the decoder's amplification scan:
// for every API, version and side (request or response), and for every
// array on the wire in that version, a body whose bytes are mostly that
// array's smallest elements. Whatever a decoder spends per element beyond
// what the element's bytes justify shows up as a ratio to the input.
//
// It is shared by the main module's live-memory test and the interop
// module's comparison with franz-go's kmsg (an internal package, so both
// can import it and nothing else can).
package amplify

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Case is one (API, version, side, array) combination and its body.
type Case struct {
	API      messages.API
	Version  int16
	Response bool
	Path     []string // field names from the message down to the array; each array on the way holds one element
	Body     []byte   // the body (no frame): the message with the array holding many minimal elements
	Elements int      // how many elements the array holds
}

func (c Case) String() string {
	side := "Request"
	if c.Response {
		side = "Response"
	}
	return fmt.Sprintf("%s%s v%d %s", c.API.Name, side, c.Version, strings.Join(c.Path, "."))
}

// New returns a new zero message of the case's API and side.
func (c Case) New() any {
	if c.Response {
		return c.API.NewResponse()
	}
	return c.API.NewRequest()
}

// Each calls fn with every case, each body about size bytes long. Bodies
// are built one at a time, so a scan holds one in memory.
func Each(size int, fn func(Case) error) error {
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, resp := range []bool{false, true} {
				c := Case{API: api, Version: v, Response: resp}
				paths, err := arrayPaths(c)
				if err != nil {
					return fmt.Errorf("%s: %w", c, err)
				}
				for _, path := range paths {
					c.Path = path
					if err := c.craft(size); err != nil {
						return fmt.Errorf("%s: %w", c, err)
					}
					if err := fn(c); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// arrayPaths lists the arrays on the wire in the case's smallest instance,
// read from its layout tree, so that only fields of this version count.
func arrayPaths(c Case) ([][]string, error) {
	msg := c.New()
	if err := kwire.FillMinimal(msg, c.Version); err != nil {
		return nil, err
	}
	var root *kwire.LayoutNode
	var err error
	if c.Response {
		_, root, err = kwire.LayoutResponse(msg, c.Version, 0)
	} else {
		empty := ""
		_, root, err = kwire.LayoutRequest(msg, c.Version, 0, &empty)
	}
	if err != nil {
		return nil, err
	}
	body := root.Children[len(root.Children)-1]
	var paths [][]string
	var walk func(n *kwire.LayoutNode, at []string)
	walk = func(n *kwire.LayoutNode, at []string) {
		for _, ch := range n.Children {
			here := append(append([]string(nil), at...), ch.Name)
			switch {
			case strings.HasPrefix(ch.Type, "[]"):
				paths = append(paths, here)
				for _, el := range ch.Children {
					if el.Value == "struct" {
						walk(el, here)
					}
				}
			case ch.Value == "struct":
				walk(ch, here)
			}
		}
	}
	walk(body, nil)
	return paths, nil
}

// craft fills c.Body: the smallest instance, with the array at c.Path
// holding as many copies of its one element as make about size bytes.
func (c *Case) craft(size int) error {
	msg := c.New()
	if err := kwire.FillMinimal(msg, c.Version); err != nil {
		return err
	}
	arr := reflect.ValueOf(msg).Elem()
	for i, name := range c.Path {
		arr = arr.FieldByName(name)
		if !arr.IsValid() {
			return fmt.Errorf("no field %s", name)
		}
		if arr.Kind() == reflect.Pointer {
			arr = arr.Elem()
		}
		if i < len(c.Path)-1 && arr.Kind() == reflect.Slice {
			arr = arr.Index(0)
		}
	}
	if arr.Kind() != reflect.Slice || arr.Len() != 1 {
		return fmt.Errorf("%s is not a one-element array", strings.Join(c.Path, "."))
	}
	elem := arr.Index(0)
	one, err := kwire.Marshal(msg, c.Version)
	if err != nil {
		return err
	}
	arr.Set(reflect.Append(arr, elem))
	two, err := kwire.Marshal(msg, c.Version)
	if err != nil {
		return err
	}
	per := max(1, len(two)-len(one))
	n := max(1, (size-len(one))/per+1)
	many := reflect.MakeSlice(arr.Type(), n, n)
	for i := 0; i < n; i++ {
		many.Index(i).Set(elem)
	}
	arr.Set(many)
	c.Elements = n
	c.Body, err = kwire.Marshal(msg, c.Version)
	return err
}

// Cost is what one decode of a body cost.
type Cost struct {
	Alloc uint64 // bytes allocated during the call
	Live  uint64 // bytes still reachable from the result after a GC
}

// Measure runs decode once and reports what it allocated and what its
// result keeps alive. It collects garbage before and after, so it is slow;
// run it on one goroutine.
func Measure(decode func() (any, error)) (Cost, error) {
	var before, after, settled runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := decode()
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&settled)
	runtime.KeepAlive(v)
	c := Cost{Alloc: after.TotalAlloc - before.TotalAlloc}
	if settled.HeapAlloc > before.HeapAlloc {
		c.Live = settled.HeapAlloc - before.HeapAlloc
	}
	return c, err
}

// Footprint is the memory the value at v (a pointer) occupies, however it
// is laid out: the structs behind pointers, the elements of slices, the
// strings behind *string and the bytes of strings and byte slices. A
// decoder can do no better than this; what it keeps beyond is waste.
func Footprint(v any) uint64 {
	rv := reflect.ValueOf(v)
	return uint64(rv.Type().Elem().Size()) + inner(rv.Elem())
}

// inner is what v refers to, not counting v itself.
func inner(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.String:
		return uint64(v.Len())
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return uint64(v.Type().Elem().Size()) + inner(v.Elem())
	case reflect.Slice:
		n := uint64(v.Len()) * uint64(v.Type().Elem().Size())
		for i := 0; i < v.Len(); i++ {
			n += inner(v.Index(i))
		}
		return n
	case reflect.Struct:
		var n uint64
		for i := 0; i < v.NumField(); i++ {
			n += inner(v.Field(i))
		}
		return n
	}
	return 0
}
