module github.com/kwirelabs/kwire

go 1.26.0

require (
	github.com/fatih/structtag v1.2.0
	github.com/klauspost/compress v1.20.4
	github.com/leanovate/gopter v0.2.11
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
