//go:build !blake3_noembed && !blake3_nonative && !android

package libs

import _ "embed"

//go:embed linux_amd64/libblake3_purego.so
var embedded []byte

func init() { Library = embedded }
