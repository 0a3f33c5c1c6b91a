//! The Rust ceiling for scripts/bench.sh: the same blake3 crate, called
//! in-process, at the sizes of the Go benchmarks, printed in `go test -bench`
//! format so that one report covers both.
//!
//!   cargo run --release --example bench -- [seconds per cell, default 0.5]

use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 10] = [0, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20];

fn size_name(n: usize) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{}MiB", n >> 20)
    } else if n >= 1 << 10 && n % (1 << 10) == 0 {
        format!("{}KiB", n >> 10)
    } else {
        format!("{}B", n)
    }
}

/// Runs f until `budget` has passed (at least once), and prints a Go-style line.
fn bench(name: &str, n: usize, budget: Duration, f: &dyn Fn()) {
    f(); // warm up
    let mut iters: u64 = 0;
    let start = Instant::now();
    while start.elapsed() < budget || iters == 0 {
        f();
        iters += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / iters as f64;
    let mbs = if ns > 0.0 { n as f64 / ns * 1e3 } else { 0.0 };
    println!(
        "BenchmarkSum256/size={}/impl={}-{} \t{}\t{:.1} ns/op\t{:.2} MB/s",
        size_name(n),
        name,
        std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1),
        iters,
        ns,
        mbs
    );
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.5);
    let budget = Duration::from_secs_f64(secs);
    for &n in SIZES.iter() {
        let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        bench("rust-1core", n, budget, &|| {
            black_box(blake3::hash(black_box(&data)));
        });
        bench("rust-rayon", n, budget, &|| {
            black_box(blake3::Hasher::new().update_rayon(black_box(&data)).finalize());
        });
    }
}
