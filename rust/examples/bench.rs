//! The Rust ceiling for scripts/bench.sh: the same blake3 crate, called
//! in-process, at the sizes of the Go benchmarks (one-shots, and a 16 MiB
//! stream written in the Go benchmark's pieces), printed in `go test -bench`
//! format so that one report covers both.
//!
//!   cargo run --release --example bench -- [seconds per cell, default 0.5]

use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 10] = [
    0,
    64,
    256,
    1 << 10,
    4 << 10,
    16 << 10,
    64 << 10,
    1 << 20,
    16 << 20,
    64 << 20,
];

fn size_name(n: usize) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{}MiB", n >> 20)
    } else if n >= 1 << 10 && n % (1 << 10) == 0 {
        format!("{}KiB", n >> 10)
    } else {
        format!("{}B", n)
    }
}

/// Runs f, which hashes `bytes` bytes, until `budget` has passed (at least
/// once), and prints a Go-style line: `Benchmark{group}={label}/impl={name}`
/// with label the size `label` names.
fn bench(group: &str, label: usize, name: &str, bytes: usize, budget: Duration, f: &dyn Fn()) {
    f(); // warm up
    let mut iters: u64 = 0;
    let start = Instant::now();
    while start.elapsed() < budget || iters == 0 {
        f();
        iters += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / iters as f64;
    let mbs = if ns > 0.0 {
        bytes as f64 / ns * 1e3
    } else {
        0.0
    };
    println!(
        "Benchmark{}={}/impl={}-{} \t{}\t{:.1} ns/op\t{:.2} MB/s",
        group,
        size_name(label),
        name,
        std::thread::available_parallelism()
            .map(|p| p.get())
            .unwrap_or(1),
        iters,
        ns,
        mbs
    );
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.5);
    let budget = Duration::from_secs_f64(secs);
    for &n in SIZES.iter() {
        let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        bench("Sum256/size", n, "rust-1core", n, budget, &|| {
            black_box(blake3::hash(black_box(&data)));
        });
        bench("Sum256/size", n, "rust-rayon", n, budget, &|| {
            black_box(
                blake3::Hasher::new()
                    .update_rayon(black_box(&data))
                    .finalize(),
            );
        });
    }
    // BenchmarkStream's rows: 16 MiB through Hasher::update in pieces. The
    // throughput is of the whole stream; the size printed is the piece's.
    const TOTAL: usize = 16 << 20;
    let data: Vec<u8> = (0..TOTAL).map(|i| (i % 251) as u8).collect();
    for &piece in [64usize, 1 << 10, 64 << 10].iter() {
        bench("Stream/piece", piece, "rust-1core", TOTAL, budget, &|| {
            let mut h = blake3::Hasher::new();
            for p in data.chunks(piece) {
                h.update(black_box(p));
            }
            black_box(h.finalize());
        });
    }
}
