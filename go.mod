module github.com/iolens/iolens

go 1.26

require (
	github.com/dsnet/compress v0.0.1
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.20.3
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
