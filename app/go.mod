module github.com/kwirelabs/kwire/app

go 1.26.0

replace github.com/kwirelabs/kwire => ../

require (
	github.com/gopacket/gopacket v1.7.7
	github.com/kwirelabs/kwire v0.0.0-00010101000000-000000000000
	github.com/leanovate/gopter v0.2.11
	github.com/stretchr/testify v1.12.1
	golang.org/x/net v0.59.0
)

require (
	github.com/fatih/structtag v1.2.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
