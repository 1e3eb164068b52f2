//! The CSV writer of the tools against the `csv` crate's, on the same
//! rows: is keeping our own writer worth it? Run by `bench/csv_writer.sh`.
//!
//!     cargo run --release --example csv_writer -- ROWS.csv [ROUNDS]
//!
//! Reads ROWS.csv (pbi2csv's output for a collection) into memory with the
//! `csv` reader, then writes every row ROUNDS times (default 5) into a
//! sink with each writer: `csv::Writer` (64 KiB buffer, one reused
//! `ByteRecord`, `write_byte_record`, as the csv crate's docs advise),
//! `csv::Writer` field by field (`write_field`, no record to fill), and
//! `CsvWriter` (field by field, as pbi2csv calls it). Checks that both
//! write the same bytes, then prints the time per row and the throughput
//! of each.

use std::fs::File;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use chesspipe::cmd::output::CsvWriter;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: csv_writer ROWS.csv [ROUNDS]");
        return ExitCode::from(2);
    };
    let rounds = args
        .next()
        .and_then(|r| r.to_str().and_then(|r| r.parse().ok()))
        .unwrap_or(5u32);
    let rows = match read_rows(File::open(&path)) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("csv_writer: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let (ours, theirs) = (write_ours(&rows), write_csv(&rows));
    if ours != theirs {
        eprintln!("csv_writer: the two writers wrote different bytes");
        return ExitCode::from(1);
    }
    let bytes = ours.len() as f64;
    println!(
        "{} rows, {} bytes of CSV, {rounds} rounds",
        rows.len(),
        ours.len()
    );
    let best = |name: &str, write: &dyn Fn(&mut dyn Write)| {
        let mut fastest = Duration::MAX;
        for _ in 0..rounds {
            let start = Instant::now();
            write(&mut io::sink());
            fastest = fastest.min(start.elapsed());
        }
        let secs = fastest.as_secs_f64();
        println!(
            "{name:<12} {:7.1} ns/row {:8.0} MB/s",
            secs * 1e9 / rows.len() as f64,
            bytes / secs / 1e6
        );
        secs
    };
    let csv_secs = best("csv::Writer", &|w| {
        let mut wtr = csv::WriterBuilder::new()
            .buffer_capacity(64 * 1024)
            .from_writer(w);
        let mut record = csv::ByteRecord::new();
        for row in rows.iter() {
            record.clear();
            for field in row {
                record.push_field(field);
            }
            wtr.write_byte_record(&record).unwrap();
        }
        wtr.flush().unwrap();
    });
    best("write_field", &|w| {
        let mut wtr = csv::WriterBuilder::new()
            .buffer_capacity(64 * 1024)
            .from_writer(w);
        for row in rows.iter() {
            for field in row {
                wtr.write_field(field).unwrap();
            }
            wtr.write_record(None::<&[u8]>).unwrap();
        }
        wtr.flush().unwrap();
    });
    let our_secs = best("CsvWriter", &|w| {
        let mut wtr = CsvWriter::new(w, b',');
        for row in rows.iter() {
            for field in row {
                wtr.field(field);
            }
            wtr.end_row().unwrap();
        }
        wtr.flush().unwrap();
    });
    println!(
        "CsvWriter takes {:.2}x the time of csv::Writer",
        our_secs / csv_secs
    );
    ExitCode::SUCCESS
}

/// Rows whose fields lie one after the other in one buffer, as pbi2csv's
/// fields lie in the line they come from (a `Vec` per field would make
/// the benchmark measure the cache misses of chasing pointers).
struct Rows {
    bytes: Vec<u8>,
    /// Where each field ends in `bytes`.
    ends: Vec<usize>,
    /// Where each row's fields end in `ends`.
    rows: Vec<usize>,
}

impl Rows {
    fn len(&self) -> usize {
        self.rows.len()
    }

    /// Each row as an iterator of its fields.
    fn iter(&self) -> impl Iterator<Item = impl Iterator<Item = &[u8]>> {
        (0..self.rows.len()).map(move |r| {
            let first = if r == 0 { 0 } else { self.rows[r - 1] };
            (first..self.rows[r]).map(move |f| {
                let start = if f == 0 { 0 } else { self.ends[f - 1] };
                &self.bytes[start..self.ends[f]]
            })
        })
    }
}

fn read_rows(file: io::Result<File>) -> csv::Result<Rows> {
    let mut rdr =
        csv::ReaderBuilder::new().has_headers(false).from_reader(file?);
    let mut rows = Rows { bytes: vec![], ends: vec![], rows: vec![] };
    for record in rdr.byte_records() {
        for field in &record? {
            rows.bytes.extend_from_slice(field);
            rows.ends.push(rows.bytes.len());
        }
        rows.rows.push(rows.ends.len());
    }
    Ok(rows)
}

fn write_ours(rows: &Rows) -> Vec<u8> {
    let mut wtr = CsvWriter::new(vec![], b',');
    for row in rows.iter() {
        for field in row {
            wtr.field(field);
        }
        wtr.end_row().unwrap();
    }
    wtr.flush().unwrap();
    std::mem::take(wtr.get_mut())
}

fn write_csv(rows: &Rows) -> Vec<u8> {
    let mut wtr = csv::Writer::from_writer(vec![]);
    for row in rows.iter() {
        wtr.write_record(row).unwrap();
    }
    wtr.into_inner().unwrap()
}
