//! The line scanner against a naive splitter, on arbitrary bytes, every
//! buffer capacity and reads of every size.
//!
//! The first byte chooses the capacity (1 to 64, or larger), the second
//! seeds the sizes the reader returns; the rest is the input.

#![no_main]

use std::io::{self, Read};

use chesspipe::lines::{
    count_line_ends, last_line_end, line_ends, LineEnd, LineReader,
};
use chesspipe::pbi::scan::{checks_utf8, each_lf_line, LineScan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (capacity, seed, input) = match data {
        [c, s, rest @ ..] => (capacity(*c), *s, rest),
        _ => return,
    };
    let want = naive(input);
    let rdr = Chunked { data: input, state: u32::from(seed) | 1 };
    let mut lines = LineReader::with_capacity(capacity, rdr);
    let mut n = 0;
    while let Some(line) = lines.next_line().expect("reads never fail") {
        let (content, end) = want.get(n).expect("scanner has extra lines");
        assert_eq!(line.content(), content.as_slice(), "line {}", n + 1);
        assert_eq!(line.end(), *end, "line {}", n + 1);
        assert_eq!(line.number(), n as u64 + 1);
        let mut raw = content.clone();
        raw.extend_from_slice(end.as_bytes());
        assert_eq!(line.raw(), raw.as_slice(), "line {}", n + 1);
        n += 1;
    }
    assert_eq!(n, want.len(), "scanner lost lines");
    assert_eq!(lines.had_bom(), input.starts_with(b"\xEF\xBB\xBF"));

    // Again, taking runs of LF, CR LF and CR lines in bulk where it can (as
    // the threads of pbi2csv and pbi-grep do), each run read back by a
    // reader that continues the numbering.
    let rdr = Chunked { data: input, state: u32::from(seed) | 1 };
    let mut lines = LineReader::with_capacity(capacity, rdr);
    let mut got: Vec<(Vec<u8>, LineEnd, u64)> = vec![];
    let size = 1 + usize::from(seed) * 3;
    loop {
        let mut bulk = vec![];
        let first = lines.number() + 1;
        let taken = lines.take_lines(&mut bulk, size).expect("no fail");
        if taken > 0 {
            // Read back as the threads do: in place (PBI) or copied
            // through a reader of the bytes (Kriegspiel PGN).
            if seed & 1 == 0 {
                let copy = bulk.clone();
                let mut again = LineReader::in_place(bulk, first);
                read_back(&mut again, &mut got, true);
                assert_eq!(again.into_buffer(), copy);
            } else {
                read_back(
                    &mut LineReader::continuing(&bulk[..], first),
                    &mut got,
                    true,
                );
            }
            assert_eq!(lines.number(), first + taken - 1);
            continue;
        }
        match lines.next_line().expect("reads never fail") {
            Some(line) => {
                got.push((line.content().to_vec(), line.end(), line.number()))
            }
            None => break,
        }
    }
    same_lines(&got, &want, "bulk takes");

    // Again, as par::run_lines reads: a few lines, then the rest in blocks
    // read straight from the input, each cut after its last whole line and
    // read back in place, numbered by the line ends counted before it.
    let rdr = Chunked { data: input, state: u32::from(seed) | 1 };
    let mut lines = LineReader::with_capacity(capacity, rdr);
    let mut got: Vec<(Vec<u8>, LineEnd, u64)> = vec![];
    for _ in 0..seed % 4 {
        if let Some(line) = lines.next_line().expect("reads never fail") {
            got.push((line.content().to_vec(), line.end(), line.number()));
        }
    }
    let mut first = lines.number() + 1;
    let mut block: Vec<u8> = vec![];
    loop {
        let ended = lines.read_rest(&mut block, size).expect("no fail");
        let cut = if ended {
            block.len()
        } else {
            match last_line_end(&block) {
                Some(cut) => cut,
                None => continue,
            }
        };
        let rest = block.split_off(cut);
        let count = count_line_ends(&block);
        let ends = line_ends(&block);
        assert_eq!(ends.count, count);
        if ends.lf_only {
            assert!(!block.contains(&b'\r'));
        }
        // As pbi2csv and pbi-grep read a batch whose line ends are not
        // counted: by LF, in the scan's pass, up to a line that may end
        // otherwise, and the rest in place from there.
        let mut fused = vec![];
        let mut scan = LineScan::new();
        let (stop, next) = each_lf_line(
            &block,
            first,
            &mut scan,
            Some(b','),
            |_, line, scan, read| {
                // The scan's UTF-8 check, where it made one, is std's.
                let valid = std::str::from_utf8(line.content()).is_ok();
                assert!(scan.utf8().is_none_or(|got| got == valid));
                assert!(!read || !checks_utf8() || scan.utf8().is_some());
                fused.push((
                    line.content().to_vec(),
                    line.end(),
                    line.number(),
                ))
            },
        );
        let mut tail = LineReader::in_place_from(block.clone(), stop, next);
        read_back(&mut tail, &mut fused, false);
        let mut plain = vec![];
        read_back(
            &mut LineReader::in_place(block.clone(), first),
            &mut plain,
            false,
        );
        assert_eq!(fused, plain, "lines read by LF, then in place");
        let with_end = fused.iter().filter(|l| l.1 != LineEnd::None).count();
        assert_eq!(with_end as u64, count);
        let mut again = LineReader::in_place(block, first);
        read_back(&mut again, &mut got, false);
        first += count;
        block = rest;
        if ended {
            break;
        }
    }
    same_lines(&got, &want, "block reads");
});

fn same_lines(
    got: &[(Vec<u8>, LineEnd, u64)],
    want: &[(Vec<u8>, LineEnd)],
    how: &str,
) {
    assert_eq!(got.len(), want.len(), "{how} lost or added lines");
    for (k, ((content, end, number), w)) in got.iter().zip(want).enumerate() {
        assert_eq!((content, end), (&w.0, &w.1), "{how}: line {}", k + 1);
        assert_eq!(*number, k as u64 + 1, "{how}");
    }
}

/// Every line of `again`; taken in `bulk`, they end with LF, CR LF or CR.
fn read_back<R: Read>(
    again: &mut LineReader<R>,
    got: &mut Vec<(Vec<u8>, LineEnd, u64)>,
    bulk: bool,
) {
    while let Some(line) = again.next_line().expect("no fail") {
        assert!(
            !bulk
                || matches!(
                    line.end(),
                    LineEnd::Lf | LineEnd::CrLf | LineEnd::Cr
                )
        );
        got.push((line.content().to_vec(), line.end(), line.number()));
    }
}

/// 1 to 64 for most bytes, so that lines straddle refills; a few larger
/// sizes up to the default.
fn capacity(b: u8) -> usize {
    match b {
        0..=191 => 1 + usize::from(b % 64),
        192..=254 => 64 + 16 * usize::from(b - 192),
        255 => chesspipe::lines::DEFAULT_CAPACITY,
    }
}

/// Splits at every line end, one byte at a time.
fn naive(input: &[u8]) -> Vec<(Vec<u8>, LineEnd)> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let mut out = vec![];
    let (mut start, mut i) = (0, 0);
    while i < input.len() {
        let rest = &input[i..];
        let end = if rest.starts_with(b"\r\n") {
            Some(LineEnd::CrLf)
        } else if rest[0] == b'\r' {
            Some(LineEnd::Cr)
        } else if rest[0] == b'\n' {
            Some(LineEnd::Lf)
        } else if rest.starts_with(b"\xC2\x85") {
            Some(LineEnd::Nel)
        } else if rest.starts_with(b"\xE2\x80\xA8") {
            Some(LineEnd::Ls)
        } else {
            None
        };
        match end {
            Some(end) => {
                let len = [1, 1, 2, 2, 3][LineEnd::ALL
                    .iter()
                    .position(|&e| e == end)
                    .expect("a line end")];
                out.push((input[start..i].to_vec(), end));
                i += len;
                start = i;
            }
            None => i += 1,
        }
    }
    if start < input.len() {
        out.push((input[start..].to_vec(), LineEnd::None));
    }
    out
}

/// A reader that returns between 1 and 16 bytes per read, sometimes more,
/// and now and then `Interrupted` (which the scanner must retry).
struct Chunked<'a> {
    data: &'a [u8],
    state: u32,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // xorshift32: the sizes follow from the seed byte alone.
        self.state ^= self.state << 13;
        self.state ^= self.state >> 17;
        self.state ^= self.state << 5;
        let r = self.state as usize;
        if self.data.is_empty() || buf.is_empty() {
            return Ok(0);
        }
        let want = match r % 32 {
            0 => return Err(io::ErrorKind::Interrupted.into()),
            1 => buf.len(),
            n => n % 16 + 1,
        };
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
