//! The PBI reader on arbitrary bytes, with and without `--strict`: every
//! accessor of every record, and `split` against its own definition.

#![no_main]

use chesspipe::diag::Diagnostic;
use chesspipe::gbr::Men;
use chesspipe::lines::Line;
use chesspipe::lines::LineReader;
use chesspipe::pbi::scan::LineScan;
use chesspipe::pbi::{self, escape, Field, Item, Options, Parser, Record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for strict in [false, true] {
        read(data, strict);
    }
});

fn read(data: &[u8], strict: bool) {
    // A small buffer, so that lines straddle refills.
    let mut lines = LineReader::with_capacity(16, data);
    let mut parser = Parser::new(Options { strict });
    let mut diagnostics: Vec<Diagnostic> = vec![];
    let mut scan = LineScan::new();
    while let Some(line) = lines.next_line().expect("reads never fail") {
        check_split(line.content());
        clean(&parser, &line, &mut scan);
        match parser.line(line, &mut diagnostics) {
            Some(Item::Record(rec)) => record(&rec),
            Some(Item::Marker(l) | Item::Comment(l)) => {
                assert_eq!(l.raw(), line.raw());
            }
            None => {}
        }
    }
    let is_pbi = parser.finish(&mut diagnostics);
    assert_eq!(is_pbi, parser.is_pbi());
    for d in &diagnostics {
        assert!(!d.message.is_empty());
    }
}

/// The fast way agrees with the general one: a line that the scan finds
/// clean is one that `Parser::line` reads as a record with no diagnostic,
/// and its record is the same.
fn clean(parser: &Parser, line: &Line<'_>, scan: &mut LineScan) {
    for also in [Some(b','), None] {
        if !scan.read(line.content(), also) {
            return;
        }
        let Some(found) = parser.clean(line, scan, false) else { return };
        let mut general = parser.clone();
        let mut diagnostics: Vec<Diagnostic> = vec![];
        let Some(Item::Record(rec)) = general.line(*line, &mut diagnostics)
        else {
            panic!("a clean line is a record");
        };
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let fast = parser.record_of(*line, &found);
        assert_eq!(format!("{fast:?}"), format!("{rec:?}"));
    }
}

/// Exact and Extra: the fields joined with `:` are the line; Short: the
/// line has that many fields, fewer than 9.
fn check_split(content: &[u8]) {
    let colons = content.iter().filter(|&&b| b == b':').count();
    match pbi::split(content) {
        pbi::Split::Exact(fields, shape)
        | pbi::Split::Extra(fields, shape) => {
            assert!(colons >= 8);
            assert_eq!(fields.join(&b':'), content);
            assert_eq!(shape.high, content.iter().any(|&b| b >= 0x80));
            // Where the used source's first 3 pipes are.
            let used = fields[3];
            let at: Vec<usize> =
                (0..used.len()).filter(|&i| used[i] == b'|').take(3).collect();
            assert_eq!(&shape.used[..at.len()], &at[..]);
            for (i, field) in fields.iter().enumerate() {
                let pipes = field.iter().filter(|&&b| b == b'|').count();
                assert_eq!(usize::from(shape.pipes[i]), pipes.min(255));
                assert_eq!(shape.bits[i], bits(field), "field {i}");
            }
        }
        pbi::Split::Short(n) => {
            assert!(colons < 8);
            assert_eq!(n, colons + 1);
        }
    }
}

/// The class bits of a field, one byte at a time (bytes of 0x80 or more
/// are noted for the whole line, in `Shape::high`).
fn bits(field: &[u8]) -> u8 {
    use chesspipe::pbi::class::*;
    field.iter().fold(0, |acc, &b| {
        acc | match b {
            b';' => SEMICOLON,
            b'|' => PIPE,
            b'\\' => BACKSLASH,
            b'"' => QUOTE,
            b',' => COMMA,
            b'\t' => TAB,
            b':' => COLON,
            _ => 0,
        }
    })
}

/// Calls every accessor; checks what can be checked.
fn record(rec: &Record<'_>) {
    let raws = Field::ALL.map(|f| rec.raw(f));
    assert_eq!(raws.join(&b':'), rec.line().content());
    assert_eq!(rec.number(), rec.line().number());
    for f in Field::ALL {
        let decoded = rec.decoded(f);
        if !rec.has_escapes() {
            assert_eq!(&*decoded, rec.raw(f));
        } else {
            assert_eq!(&*decoded, &*escape::decode(rec.raw(f)));
        }
        let mut out = vec![];
        rec.decode_into(rec.raw(f), &mut out);
        assert_eq!(out, &*decoded);
        let _ = (rec.bits(f), rec.pipes(f));
    }
    for name in rec.names() {
        assert!(!name.is_empty());
        let _ = rec.text(name);
    }
    subfields(rec.used_source());
    rec.references().for_each(subfields);
    rec.awards().for_each(subfields);
    let _ = rec.position();
    match (rec.men(), rec.board().as_ref()) {
        (Some(men), Some(board)) => {
            assert_eq!(*men, Men::of(board));
            let fen = board.fen();
            assert_eq!(fen.len(), {
                let mut v = vec![];
                board.write_fen(&mut v);
                v.len()
            });
        }
        (None, None) => {}
        (men, board) => panic!("men {men:?} but board {board:?}"),
    }
}

fn subfields(s: pbi::Subfields<'_>) {
    let (mut raw, mut decoded) = (vec![], vec![]);
    s.write_raw(&mut raw);
    s.write_decoded(&mut decoded);
    for i in 0..4 {
        let _ = s.get(i);
    }
    assert!(s.written >= 1);
}
