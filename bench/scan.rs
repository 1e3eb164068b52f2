//! Throughput of the shared line scanner alone: counts the lines and
//! bytes of a file read through `LineReader`. Run by `bench/scan.sh`.
//!
//!     cargo run --release --example scan -- FILE

use std::fs::File;
use std::process::ExitCode;
use std::time::Instant;

use chesspipe::lines::LineReader;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: scan FILE");
        return ExitCode::from(2);
    };
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("scan: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let mut rdr = LineReader::new(file);
    let (mut lines, mut bytes) = (0u64, 0u64);
    loop {
        match rdr.next_line() {
            Ok(Some(line)) => {
                lines += 1;
                bytes += line.raw().len() as u64;
            }
            Ok(None) => break,
            Err(e) => {
                eprintln!("scan: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{lines} lines, {bytes} bytes, {secs:.3} s, {:.2} GB/s, buffer {} KiB",
        bytes as f64 / secs / 1e9,
        rdr.capacity() / 1024
    );
    ExitCode::SUCCESS
}
