package main

// The help texts reproduce b3sum 1.8.1's clap output (which clap wraps at
// 100 columns), plus this implementation's --no-progress and --backend
// options.

// shortHelp is printed for -h.
const shortHelp = "" +
	"Usage: b3sum [OPTIONS] [FILE]...\n" +
	"\n" +
	"Arguments:\n" +
	"  [FILE]...  Files to hash, or checkfiles to check\n" +
	"\n" +
	"Options:\n" +
	"      --keyed                 Use the keyed mode, reading the 32-byte key from stdin\n" +
	"      --derive-key <CONTEXT>  Use the key derivation mode, with the given context string\n" +
	"  -l, --length <LEN>          The number of output bytes, before hex encoding [default: 32]\n" +
	"      --seek <SEEK>           The starting output byte offset, before hex encoding [default: 0]\n" +
	"      --num-threads <NUM>     The maximum number of threads to use\n" +
	"      --no-mmap               Disable memory mapping\n" +
	"      --no-names              Omit filenames in the output\n" +
	"      --raw                   Write raw output bytes to stdout, rather than hex\n" +
	"      --tag                   Output BSD-style checksums: BLAKE3 ([FILE]) = [HASH]\n" +
	"  -c, --check                 Read BLAKE3 sums from the [FILE]s and check them\n" +
	"      --quiet                 Skip printing OK for each checked file\n" +
	"      --no-progress           Never show a progress line on stderr\n" +
	"      --backend               Print the hashing backend: native library or Go\n" +
	"  -h, --help                  Print help (see more with '--help')\n" +
	"  -V, --version               Print version\n"

// longHelp is printed for --help.
const longHelp = "" +
	"Usage: b3sum [OPTIONS] [FILE]...\n" +
	"\n" +
	"Arguments:\n" +
	"  [FILE]...\n" +
	"          Files to hash, or checkfiles to check\n" +
	"          \n" +
	"          When no file is given, or when - is given, read standard input.\n" +
	"\n" +
	"Options:\n" +
	"      --keyed\n" +
	"          Use the keyed mode, reading the 32-byte key from stdin\n" +
	"\n" +
	"      --derive-key <CONTEXT>\n" +
	"          Use the key derivation mode, with the given context string\n" +
	"          \n" +
	"          Cannot be used with --keyed.\n" +
	"\n" +
	"  -l, --length <LEN>\n" +
	"          The number of output bytes, before hex encoding\n" +
	"          \n" +
	"          [default: 32]\n" +
	"\n" +
	"      --seek <SEEK>\n" +
	"          The starting output byte offset, before hex encoding\n" +
	"          \n" +
	"          [default: 0]\n" +
	"\n" +
	"      --num-threads <NUM>\n" +
	"          The maximum number of threads to use\n" +
	"          \n" +
	"          By default, this is the number of logical cores. If this flag is omitted, or if its value\n" +
	"          is 0, RAYON_NUM_THREADS is also respected.\n" +
	"\n" +
	"      --no-mmap\n" +
	"          Disable memory mapping\n" +
	"          \n" +
	"          Currently this also disables multithreading.\n" +
	"\n" +
	"      --no-names\n" +
	"          Omit filenames in the output\n" +
	"\n" +
	"      --raw\n" +
	"          Write raw output bytes to stdout, rather than hex\n" +
	"          \n" +
	"          --no-names is implied. In this case, only a single input is allowed.\n" +
	"\n" +
	"      --tag\n" +
	"          Output BSD-style checksums: BLAKE3 ([FILE]) = [HASH]\n" +
	"\n" +
	"  -c, --check\n" +
	"          Read BLAKE3 sums from the [FILE]s and check them\n" +
	"\n" +
	"      --quiet\n" +
	"          Skip printing OK for each checked file\n" +
	"          \n" +
	"          Must be used with --check.\n" +
	"\n" +
	"      --no-progress\n" +
	"          Never show a progress line on stderr\n" +
	"          \n" +
	"          By default, progress (bytes, rate, ETA) is shown on stderr when it is a terminal and\n" +
	"          hashing takes more than about a second. This option is not in the Rust b3sum.\n" +
	"\n" +
	"      --backend\n" +
	"          Print the hashing backend: native library or Go\n" +
	"          \n" +
	"          One line on stdout: the native BLAKE3 library (version, SIMD, where it was loaded from)\n" +
	"          or the Go path and why the library is not used. --version prints only the version, as\n" +
	"          the Rust b3sum does, and this line on stderr when stderr is a terminal. This option is\n" +
	"          not in the Rust b3sum.\n" +
	"\n" +
	"  -h, --help\n" +
	"          Print help (see a summary with '-h')\n" +
	"\n" +
	"  -V, --version\n" +
	"          Print version\n"
