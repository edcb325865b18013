package conform

import (
	"fmt"
	"html/template"
	"io"

	"github.com/kwirelabs/kwire/app/site"
)

var htmlPage = template.Must(template.New("conform").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kwire conform · {{.R.Addr}}</title>
<style>{{.CSS}}
td.pass{background:#c9ebc4}td.fail{background:#f5bfd6}td.skip{color:#777}td.info{color:#555}
</style>
</head>
<body>
<h1>kwire conform</h1>
<dl class="facts">
<dt>broker</dt><dd>{{.R.Addr}}</dd>
<dt>seed</dt><dd>{{.R.Seed}} (kwire conform -seed {{.R.Seed}} -n {{.R.N}} repeats this run)</dd>
<dt>release</dt><dd>{{.R.Release}}</dd>
<dt>checks</dt><dd>{{.Pass}} passed, {{.Fail}} failed, {{.Skip}} skipped, in {{.Elapsed}}</dd>
</dl>
<h2>API × version</h2>
<table class="index">
<thead><tr><th>API</th><th>key</th><th>version</th><th>verdict</th></tr></thead>
<tbody>{{range .Cells}}
<tr><td>{{.API}}</td><td class="num">{{.Key}}</td><td class="num">{{.Version}}</td><td class="{{.Class}}">{{.Text}}</td></tr>{{end}}
</tbody>
</table>
{{if .Failures}}<h2>failures</h2>{{end}}{{range .Failures}}
<section class="side">
<h3 class="title">{{.API}} v{{.Version}} {{.Check}}</h3>
<p class="note">{{.Detail}}</p>
{{if .Request}}<h4>request{{if .Shrunk}} (shrunk in {{.Shrunk}} steps){{end}}: <code>kwire send -k {{.Key}} -v {{.Version}}</code> takes it</h4>
<pre class="json">{{printf "%s" .Request}}</pre>{{end}}
{{if .Layout}}<h4>answer</h4>
<pre class="tree">{{.Layout}}</pre>{{else if .Response}}<h4>answer (hex)</h4><pre class="json">{{.Response}}</pre>{{end}}
</section>{{end}}
</body>
</html>
`))

type htmlCell struct {
	API, Version, Class, Text string
	Key                       int16
}

// WriteHTML writes the report as a page in the style of kwire's
// reference site: the API × version table, then every failure with its
// request and its answer's layout marked where it departs.
func (r *Report) WriteHTML(w io.Writer) error {
	var cells []htmlCell
	for _, c := range r.cells() {
		v := "-"
		if c.version >= 0 {
			v = fmt.Sprint(c.version)
		}
		add := func(class, text string) {
			cells = append(cells, htmlCell{API: c.api, Key: c.key, Version: v, Class: class, Text: text})
		}
		switch {
		case len(c.failed) > 0:
			add("fail", fmt.Sprintf("FAIL %v (%d passed)", c.failed, c.passed))
		case c.skipped != "":
			add("skip", "skipped ("+c.skipped+")")
		case c.passed > 0:
			add("pass", fmt.Sprintf("pass (%d checks)", c.passed))
		}
		for _, i := range c.info {
			add("info", i)
		}
	}
	var failures []Result
	for _, x := range r.Results {
		if x.Verdict == Fail {
			failures = append(failures, x)
		}
	}
	return htmlPage.Execute(w, map[string]any{
		"R": r, "CSS": site.CSS(), "Cells": cells, "Failures": failures,
		"Pass": r.Count(Pass), "Fail": r.Count(Fail), "Skip": r.Count(Skip), "Elapsed": r.Elapsed.Round(1e6),
	})
}
