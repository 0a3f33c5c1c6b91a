// Exposes the exact blake3 crate version, read from the committed Cargo.lock,
// as BLAKE3_CRATE_VERSION so the library can report it without hard-coding it.
use std::fs;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = fs::read_to_string("Cargo.lock").expect("Cargo.lock must be present");
    let mut version = None;
    let mut in_blake3 = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            in_blake3 = false;
        } else if line == "name = \"blake3\"" {
            in_blake3 = true;
        } else if in_blake3 && line.starts_with("version = ") {
            version = Some(line.trim_start_matches("version = ").trim_matches('"').to_string());
            break;
        }
    }
    let version = version.expect("blake3 not found in Cargo.lock");
    println!("cargo:rustc-env=BLAKE3_CRATE_VERSION={}", version);
}
