module github.com/kwirelabs/kwire/cmd

go 1.26.0

replace (
	github.com/kwirelabs/kwire => ../
	github.com/kwirelabs/kwire/app => ../app
)

require (
	github.com/kwirelabs/kwire v0.0.0-00010101000000-000000000000
	github.com/kwirelabs/kwire/app v0.0.0-00010101000000-000000000000
	github.com/prometheus/client_golang v1.25.0
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/fatih/structtag v1.2.0 // indirect
	github.com/gopacket/gopacket v1.7.7 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	golang.org/x/net v0.59.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
