package site

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/messages"
)

// Stats says what Write wrote.
type Stats struct {
	Pages int   // version pages, not counting the index
	Bytes int64 // all files, the index included
}

// Write writes the whole site into dir: index.html (every API, and the
// minimal-sizes table of every version) and one page per API and version
// of the registry.
func Write(dir string, schemas *Schemas) (Stats, error) {
	var st Stats
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	opts := RenderOptions{Schemas: schemas}
	table, err := sizes.Table()
	if err != nil {
		return st, err
	}
	var newest []*Page
	for _, api := range messages.APIs() {
		var last *Page
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			p, err := Build(api, v)
			if err != nil {
				return st, fmt.Errorf("%s v%d: %w", api.Name, v, err)
			}
			// The index shows the table; each page its own frames. They
			// come from the same FillMinimal instance and must agree.
			if r := table[st.Pages]; r.Key != api.Key || r.Version != v || r.Request != len(p.Request.Frame) || r.Response != len(p.Response.Frame) {
				return st, fmt.Errorf("%s v%d: the page's frames are %d and %d bytes, the minimal-sizes table's row %d says %s v%d: %d and %d",
					api.Name, v, len(p.Request.Frame), len(p.Response.Frame), st.Pages, r.Name, r.Version, r.Request, r.Response)
			}
			n, err := writeFile(filepath.Join(dir, p.FileName()), func(w *bufio.Writer) error { return WritePage(w, p, opts) })
			if err != nil {
				return st, err
			}
			st.Pages++
			st.Bytes += n
			last = p
		}
		newest = append(newest, last)
	}
	n, err := writeFile(filepath.Join(dir, "index.html"), func(w *bufio.Writer) error { return WriteIndex(w, newest, table) })
	st.Bytes += n
	return st, err
}

func writeFile(path string, write func(*bufio.Writer) error) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Close()
		return 0, err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return info.Size(), f.Close()
}
