module github.com/kwirelabs/kwire/interop

go 1.26.0

replace github.com/kwirelabs/kwire => ../

require (
	github.com/kwirelabs/kwire v0.0.0
	github.com/leanovate/gopter v0.2.11
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
)

require (
	github.com/fatih/structtag v1.2.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
)
