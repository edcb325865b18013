module github.com/kwirelabs/kwire

go 1.26

require (
	github.com/fatih/structtag v1.2.0 // indirect
	github.com/leanovate/gopter v0.2.11 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
