//go:build unix

// scripts/debian-mirror.sh: rust/build.sh and scripts/install-b3sum.sh take
// the Debian mirror from the machine's apt configuration, so that no mirror
// is named in the tree.

package blake3_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDebianMirrorScript(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string // under the apt folder
		env   string            // BLAKE3_DEBIAN_MIRROR
		want  string            // "" means: no mirror, exit status 1
	}{
		{
			name: "deb822: the first deb stanza that is not a security suite, nor disabled",
			files: map[string]string{"sources.list.d/debian.sources": `# a comment
Types: deb-src
URIs: http://src.example/debian
Suites: bookworm

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security

Types: deb
URIs: http://off.example/debian
Suites: bookworm
Enabled: no

Types: deb deb-src
URIs: http://mirror.example/debian/ http://second.example/debian
Suites: bookworm bookworm-updates
Components: main
`},
			want: "http://mirror.example/debian",
		},
		{
			name: "one-line style, with options, sources.list before sources.list.d",
			files: map[string]string{
				"sources.list": `# deb http://commented.example/debian bookworm main
deb [ arch=amd64 signed-by=/k.gpg ] http://security.example/debian-security bookworm-security main
deb-src http://src.example/debian bookworm main
deb [signed-by=/k.gpg] http://mirror.example/debian bookworm main
`,
				"sources.list.d/other.sources": "Types: deb\nURIs: http://later.example/debian\nSuites: trixie\n",
			},
			want: "http://mirror.example/debian",
		},
		{
			name:  "files apt does not read are not read",
			files: map[string]string{"sources.list.d/x.sources.disabled": "Types: deb\nURIs: http://off.example/debian\nSuites: trixie\n"},
		},
		{
			name:  "BLAKE3_DEBIAN_MIRROR wins",
			files: map[string]string{"sources.list": "deb http://mirror.example/debian bookworm main\n"},
			env:   "http://override.example/debian/",
			want:  "http://override.example/debian",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			etc := t.TempDir()
			if err := os.Mkdir(filepath.Join(etc, "sources.list.d"), 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range c.files {
				if err := os.WriteFile(filepath.Join(etc, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("sh", "scripts/debian-mirror.sh")
			cmd.Env = append(os.Environ(), "BLAKE3_APT_ETC="+etc, "BLAKE3_DEBIAN_MIRROR="+c.env)
			out, err := cmd.Output()
			got := strings.TrimSpace(string(out))
			switch {
			case c.want == "" && err == nil:
				t.Errorf("printed %q and succeeded; want exit status 1, no mirror", got)
			case c.want != "" && (err != nil || got != c.want):
				t.Errorf("got %q (%v), want %q", got, err, c.want)
			}
		})
	}
}
