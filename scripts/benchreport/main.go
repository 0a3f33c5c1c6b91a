// Command benchreport turns `go test -bench` output (BenchmarkSum256 and
// BenchmarkStream from the blake3 package, plus the Rust ceiling printed in
// the same format by rust/examples/bench.rs) into a markdown table of median
// throughputs with the ratios the project targets, and an SVG chart of
// throughput against input size. scripts/bench.sh runs it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// line matches e.g. "BenchmarkSum256/size=1KiB/impl=auto-2  1000  950 ns/op  1077.9 MB/s".
// A 0-byte benchmark has no MB/s; its "throughput" is then hashes per
// second, shown in the table as the time per hash.
var line = regexp.MustCompile(`^Benchmark(\w+)/(size|piece)=(\w+)/impl=([\w.-]+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?`)

type key struct{ bench, size, impl string }

func main() {
	mdPath := flag.String("md", "docs/benchmarks.md", "markdown output")
	svgPath := flag.String("svg", "docs/throughput.svg", "SVG output")
	machine := flag.String("machine", "", "machine description for the report")
	flag.Parse()
	samples := map[key][]float64{}
	for _, path := range flag.Args() {
		if err := read(path, samples); err != nil {
			log.Fatal(err)
		}
	}
	if len(samples) == 0 {
		log.Fatal("benchreport: no benchmark lines in the input")
	}
	med := map[key]float64{}
	for k, v := range samples {
		med[k] = median(v)
	}
	var md strings.Builder
	writeMarkdown(&md, med, samples, *machine)
	if err := os.WriteFile(*mdPath, []byte(md.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	var svg strings.Builder
	writeSVG(&svg, med)
	if err := os.WriteFile(*svgPath, []byte(svg.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Print(md.String())
}

func read(path string, samples map[key][]float64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[6], 64)
		if err != nil {
			return err
		}
		mbs := 1e9 / ns // hashes per second, for the 0-byte row
		if ns == 0 {
			continue // a loop the compiler emptied says nothing
		}
		if m[7] != "" && sizeBytes(m[3]) > 0 {
			if mbs, err = strconv.ParseFloat(m[7], 64); err != nil {
				return err
			}
		}
		k := key{m[1], m[3], m[4]}
		samples[k] = append(samples[k], mbs)
	}
	return sc.Err()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// sizeBytes parses the size names the benchmarks use (64B, 4KiB, 16MiB).
func sizeBytes(s string) float64 {
	for _, u := range []struct {
		suffix string
		mul    float64
	}{{"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			f, _ := strconv.ParseFloat(n, 64)
			return f * u.mul
		}
	}
	return 0
}

// order lists the sizes (or pieces) and implementations of one benchmark.
func order(med map[key]float64, bench string) (sizes, impls []string) {
	seenS, seenI := map[string]bool{}, map[string]bool{}
	for k := range med {
		if k.bench != bench {
			continue
		}
		if !seenS[k.size] {
			seenS[k.size] = true
			sizes = append(sizes, k.size)
		}
		if !seenI[k.impl] {
			seenI[k.impl] = true
			impls = append(impls, k.impl)
		}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizeBytes(sizes[i]) < sizeBytes(sizes[j]) })
	rank := map[string]int{"auto": 0, "auto-1core": 1, "native-1core": 2, "go": 3, "zeebo": 4, "lukechampine": 5,
		"sha256": 6, "rust-1core": 7, "rust-rayon": 8}
	sort.Slice(impls, func(i, j int) bool { return rank[impls[i]] < rank[impls[j]] })
	return sizes, impls
}

// ratio formats a/b, or "–" when either is missing.
func ratio(med map[key]float64, bench, size, a string, b ...string) string {
	x, ok := med[key{bench, size, a}]
	if !ok || x == 0 {
		return "–"
	}
	best := 0.0
	for _, n := range b {
		best = math.Max(best, med[key{bench, size, n}])
	}
	if best == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", x/best)
}

func writeMarkdown(w io.Writer, med map[key]float64, samples map[key][]float64, machine string) {
	fmt.Fprintf(w, "# Benchmarks\n\nMedian throughput in MB/s (10^6 bytes/s) over the rounds of one run of `scripts/bench.sh`")
	if machine != "" {
		fmt.Fprintf(w, " on %s", machine)
	}
	fmt.Fprintf(w, ". Rounds per cell: %d. The 0 B row gives the time per hash instead.\n\n", maxRounds(samples))
	fmt.Fprintln(w, "`auto` is this package as users get it (size dispatch, every core); `auto-1core` the same capped to one thread;")
	fmt.Fprintln(w, "`native-1core` the library through the FFI with no dispatch; `go` this package forced onto its Go path;")
	fmt.Fprintln(w, "`rust-*` the same blake3 crate called in-process from Rust (rust/examples/bench.rs), the ceiling.")
	fmt.Fprintln(w)
	for _, bench := range []string{"Sum256", "Stream"} {
		sizes, impls := order(med, bench)
		if len(sizes) == 0 {
			continue
		}
		label := "size"
		if bench == "Stream" {
			label = "piece (16 MiB stream)"
		}
		fmt.Fprintf(w, "## %s\n\n| %s |", bench, label)
		for _, im := range impls {
			fmt.Fprintf(w, " %s |", im)
		}
		ratios := []string{"1core / best(zeebo, luke)", "1core / zeebo", "native-1core / rust-1core", "auto / auto-1core", "auto / rust-rayon", "auto / luke"}
		if bench == "Stream" {
			ratios = []string{"auto-1core / zeebo", "auto-1core / rust-1core", "auto-1core / one-shot 16MiB auto-1core"}
		}
		for _, r := range ratios {
			fmt.Fprintf(w, " %s |", r)
		}
		fmt.Fprint(w, "\n|---|")
		for range len(impls) + len(ratios) {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
		for _, s := range sizes {
			fmt.Fprintf(w, "| %s |", s)
			for _, im := range impls {
				if v, ok := med[key{bench, s, im}]; ok && sizeBytes(s) == 0 {
					fmt.Fprintf(w, " %.0f ns |", 1e9/v)
				} else if ok {
					fmt.Fprintf(w, " %.0f |", v)
				} else {
					fmt.Fprint(w, " – |")
				}
			}
			if bench == "Sum256" {
				fmt.Fprintf(w, " %s | %s | %s | %s | %s | %s |\n",
					ratio(med, bench, s, "auto-1core", "zeebo", "lukechampine"),
					ratio(med, bench, s, "auto-1core", "zeebo"),
					ratio(med, bench, s, "native-1core", "rust-1core"),
					ratio(med, bench, s, "auto", "auto-1core"),
					ratio(med, bench, s, "auto", "rust-rayon"),
					ratio(med, bench, s, "auto", "lukechampine"))
			} else {
				oneShot := med[key{"Sum256", "16MiB", "auto-1core"}]
				r := "–"
				if v := med[key{bench, s, "auto-1core"}]; oneShot > 0 && v > 0 {
					r = fmt.Sprintf("%.2fx", v/oneShot)
				}
				fmt.Fprintf(w, " %s | %s | %s |\n", ratio(med, bench, s, "auto-1core", "zeebo"), ratio(med, bench, s, "auto-1core", "rust-1core"), r)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "![throughput against input size](throughput.svg)")
}

func maxRounds(samples map[key][]float64) int {
	n := 0
	for _, v := range samples {
		n = max(n, len(v))
	}
	return n
}

// writeSVG plots one-shot throughput against size, log-log, one line per
// implementation.
func writeSVG(w io.Writer, med map[key]float64) {
	const W, H, L, R, T, B = 760.0, 440.0, 70.0, 150.0, 30.0, 50.0
	sizes, impls := order(med, "Sum256")
	var xs []float64
	for _, s := range sizes {
		if b := sizeBytes(s); b > 0 {
			xs = append(xs, b)
		}
	}
	if len(xs) == 0 {
		return
	}
	ymax := 1.0
	for k, v := range med {
		if k.bench == "Sum256" {
			ymax = math.Max(ymax, v)
		}
	}
	x0, x1 := math.Log2(xs[0]), math.Log2(xs[len(xs)-1])
	y0, y1 := 1.0, math.Log10(ymax)+0.1 // 10 MB/s .. max
	px := func(b float64) float64 { return L + (math.Log2(b)-x0)/(x1-x0)*(W-L-R) }
	py := func(v float64) float64 {
		return T + (1-(math.Log10(math.Max(v, 10))-y0)/(y1-y0))*(H-T-B)
	}
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for d := math.Ceil(y0); d <= y1; d++ {
		y := py(math.Pow(10, d))
		fmt.Fprintf(w, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.0f" y="%.1f" text-anchor="end">%g MB/s</text>`+"\n", L, W-R, y, y, L-5, y+4, math.Pow(10, d))
	}
	for i, s := range sizes {
		x := px(xs[min(i, len(xs)-1)])
		if sizeBytes(s) == 0 {
			continue
		}
		fmt.Fprintf(w, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#eee"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x, x, T, H-B, x, H-B+16, s)
	}
	colors := []string{"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#1f77b4", "#2ca02c", "#7f7f7f", "#17becf", "#e377c2"}
	for i, im := range impls {
		var pts []string
		for _, s := range sizes {
			if b := sizeBytes(s); b > 0 {
				if v, ok := med[key{"Sum256", s, im}]; ok {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(b), py(v)))
				}
			}
		}
		c := colors[i%len(colors)]
		fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c, strings.Join(pts, " "))
		fmt.Fprintf(w, `<text x="%.0f" y="%.0f" fill="%s">%s</text>`+"\n", W-R+10, T+16*float64(i+1), c, im)
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" text-anchor="middle">input size (one-shot Sum256, log scale)</text>`+"\n", (W-R+L)/2, H-10)
	fmt.Fprintln(w, "</svg>")
}
