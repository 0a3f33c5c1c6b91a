//go:build !blake3_noembed && !blake3_nonative

package libs

import _ "embed"

//go:embed windows_amd64/blake3_purego.dll
var embedded []byte

func init() { Library = embedded }
