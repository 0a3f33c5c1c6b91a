//! The Rust ceiling for scripts/bench.sh: the same blake3 crate, called
//! in-process, at the sizes of the Go benchmarks (one-shots, and a 16 MiB
//! stream written in the Go benchmark's pieces), printed in `go test -bench`
//! format so that one report covers both.
//!
//!   cargo run --release --example bench -- [seconds per cell, default 0.5]
//!
//! scripts/cores-check.sh runs it in a second way, after the seconds:
//!
//!   bench SECONDS cores SIZE...   blake3::hash (rust-1core) and update_rayon
//!                                 (rust-rayon) at each size in bytes
//!   bench SECONDS rayon SIZE...   update_rayon alone (rust-rayon-Ncores,
//!                                 rust-rayon-1core)
//!
//! as BenchmarkCores rows. update_rayon runs on rayon's global pool, whose
//! size RAYON_NUM_THREADS sets; the rows name the size the pool has (N, and
//! the -N suffix), so a sweep can check that it was honoured.

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
/// with label the size `label` names, and the machine's parallelism as the
/// -N suffix.
fn bench(group: &str, label: usize, name: &str, bytes: usize, budget: Duration, f: &dyn Fn()) {
    let procs = std::thread::available_parallelism()
        .map(|p| p.get())
        .unwrap_or(1);
    bench_procs(group, label, name, procs, bytes, budget, f);
}

/// bench with the -N suffix given.
fn bench_procs(
    group: &str,
    label: usize,
    name: &str,
    procs: usize,
    bytes: usize,
    budget: Duration,
    f: &dyn Fn(),
) {
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
        procs,
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
    let mode = std::env::args().nth(2);
    if let Some(mode) = mode {
        cores(&mode, budget);
        return;
    }
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

/// The BenchmarkCores rows of scripts/cores-check.sh (see the top): `mode`
/// is "cores" or "rayon", and the sizes follow it on the command line.
fn cores(mode: &str, budget: Duration) {
    let sizes: Vec<usize> = std::env::args()
        .skip(3)
        .map(|s| s.parse().expect("bench: a size in bytes"))
        .collect();
    let max = sizes.iter().copied().max().unwrap_or(0);
    // The pattern of the Go benchmarks, filled once: each size is a prefix.
    let data: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
    let threads = rayon_core::current_num_threads();
    for &n in sizes.iter() {
        let data = &data[..n];
        let rayon = || {
            black_box(
                blake3::Hasher::new()
                    .update_rayon(black_box(data))
                    .finalize(),
            );
        };
        match mode {
            "cores" => {
                bench("Cores/size", n, "rust-1core", n, budget, &|| {
                    black_box(blake3::hash(black_box(data)));
                });
                bench("Cores/size", n, "rust-rayon", n, budget, &rayon);
            }
            "rayon" => {
                let name = match threads {
                    1 => "rust-rayon-1core".to_string(),
                    t => format!("rust-rayon-{}cores", t),
                };
                bench_procs("Cores/size", n, &name, threads, n, budget, &rayon);
            }
            _ => panic!("bench: unknown mode {:?} (cores or rayon)", mode),
        }
    }
}
