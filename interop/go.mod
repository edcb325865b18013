module github.com/kwirelabs/kwire/interop

go 1.26.0

replace github.com/kwirelabs/kwire => ../

require (
	github.com/kwirelabs/kwire v0.0.0
	github.com/leanovate/gopter v0.2.11
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
)

require github.com/fatih/structtag v1.2.0 // indirect
