package interop

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kmsg's structs carry no machine-readable version information; its
// generator writes it as a trailing comment on the field instead:
//
//	TopicID [16]byte // v10+
//	IncludeClusterAuthorizedOperations bool // v8-v10
//	ReplicaDirectoryID [16]byte // tag 0
//
// A field without such a comment is in every version of its message. A
// tagged field's comment names its tag but not its versions (kmsg writes a
// tagged field in every flexible version when it differs from its default).
// kmsgFieldMeta is what the comment says.
type kmsgFieldMeta struct {
	versions kwire.VersionRange
	tag      int // -1 when not tagged
}

// kmsgMeta maps "StructName.FieldName" to the field's comment facts. It is
// read from kmsg's own source, found through the running binary's file
// table (or `go list` when the binary was built with -trimpath).
var kmsgMeta = sync.OnceValues(func() (map[string]kmsgFieldMeta, error) {
	dir, err := kmsgDir()
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "generated.go"), nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	meta := map[string]kmsgFieldMeta{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fld := range st.Fields.List {
				m := kmsgFieldMeta{versions: kwire.AllVersions, tag: -1}
				if fld.Comment != nil {
					c := strings.TrimSpace(fld.Comment.Text())
					switch {
					case strings.HasPrefix(c, "tag "):
						n, err := strconv.Atoi(strings.TrimPrefix(c, "tag "))
						if err != nil {
							return nil, fmt.Errorf("%s: bad tag comment %q", ts.Name.Name, c)
						}
						m.tag = n
					case strings.HasPrefix(c, "v"):
						r, err := kwire.ParseVersionRange(strings.ReplaceAll(strings.TrimPrefix(c, "v"), "-v", "-"))
						if err != nil {
							return nil, fmt.Errorf("%s: bad version comment %q: %v", ts.Name.Name, c, err)
						}
						m.versions = r
					}
				}
				for _, name := range fld.Names {
					meta[ts.Name.Name+"."+name.Name] = m
				}
			}
		}
	}
	if len(meta) < 1000 {
		return nil, fmt.Errorf("only %d kmsg fields parsed from %s", len(meta), dir)
	}
	return meta, nil
})

func kmsgDir() (string, error) {
	pc := reflect.ValueOf(kmsg.RequestForKey).Pointer()
	if fn := runtime.FuncForPC(pc); fn != nil {
		file, _ := fn.FileLine(pc)
		if filepath.IsAbs(file) {
			return filepath.Dir(file), nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/twmb/franz-go/pkg/kmsg").Output()
	if err != nil {
		return "", fmt.Errorf("locating kmsg source: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// kmsgField returns the comment facts of field sf of kmsg struct type t.
func kmsgField(meta map[string]kmsgFieldMeta, t reflect.Type, sf reflect.StructField) kmsgFieldMeta {
	if m, ok := meta[t.Name()+"."+sf.Name]; ok {
		return m
	}
	return kmsgFieldMeta{versions: kwire.AllVersions, tag: -1}
}
