/*!
The text formats of chess composition, read and written as streams:
PBI problem collections, GBR codes, and Kriegspiel PGN.

This crate is the format library behind the chesspipe tools (`pbi2csv`,
`pbi-grep`, `gbr-encode`, `kpgn-filter`); any program can use it the same
way. Everything reads from an [`io::Read`](std::io::Read) one line or one
game at a time, lends what it read without copying where it can, and
never holds a whole input: memory stays flat whatever the input's size.
Nothing here prints or exits: a reader tells of a problem in its input
with a [`diag::Diagnostic`] (line, severity, text) handed to a
[`diag::Report`], for the caller to print, count or ignore.

| module | what it offers |
| --- | --- |
| [`lines`] | [`LineReader`](lines::LineReader): any input as lines, at every line end PBI allows (LF, CR, CR LF, U+0085, U+2028), mixed and split across reads |
| [`pbi`] | the PBI reader: header, comment lines, records of 9 fields, `\xHH` escapes, lists, sources and awards |
| [`board`] | boards from FEN board fields and PBI Forsyth strings |
| [`gbr`] | GBR codes: material code, extended position form, study code, written and decoded |
| [`kpgn`] | Kriegspiel PGN: games one at a time, and a game as one player saw it |
| [`diag`] | diagnostics about the input, and why reading stopped |

The formats are those of the specifications in the project's
`shared/seeds/`, read as `FORMATS.md` says where they are ambiguous.

# Reading a PBI collection

The PBI reader is a push parser: you drive the line reader and hand it
each line. A record's fields borrow from the line; a field is decoded
(`\x3a` is `:`) only when asked.

```
use chesspipe::lines::LineReader;
use chesspipe::pbi::{Field, Item, Options, Parser};

let input = "\u{feff}#PBI 1.2\n\
    Loyd, Samuel:1R6/8/8/8/8/8/2k5/K7:#2:|Le Sphinx|1866|::::!:\n\
    Kubbel\\x3a L.:8/8/8/8/8/8/8/K1k5:=:::::?:unsound\r\n";
let mut lines = LineReader::new(input.as_bytes());
let mut parser = Parser::new(Options::default());
let mut diagnostics = Vec::new();
let mut rows = Vec::new();
while let Some(line) = lines.next_line()? {
    if let Some(Item::Record(rec)) = parser.line(line, &mut diagnostics) {
        let author = rec.decoded(Field::Names).into_owned();
        let title = rec.used_source().get(1).into_owned();
        rows.push((rec.number(), author, title));
    }
}
assert!(parser.finish(&mut diagnostics));
assert!(diagnostics.is_empty());
assert_eq!(rows[0], (2, b"Loyd, Samuel".to_vec(), b"Le Sphinx".to_vec()));
assert_eq!(rows[1], (3, b"Kubbel: L.".to_vec(), b"".to_vec()));
# Ok::<(), std::io::Error>(())
```

# GBR codes

A position from a FEN board field (or a PBI Forsyth string) is encoded
into a buffer you keep, so that encoding millions of positions allocates
nothing per position; [`gbr::decode`] reads any of the three forms back.

```
use chesspipe::board::Board;
use chesspipe::gbr::{self, Form, ToMove, Verdict};

let board = Board::parse(b"8/K7/2nn4/8/8/1B1k4/1R6/8").unwrap();
board.check_material().unwrap();
let mut code = Vec::new();
gbr::encode(&board, Form::Code, Verdict::None, ToMove::Unknown, &mut code);
assert_eq!(code, b"0116.00");

code.clear();
gbr::encode(&board, Form::Position, Verdict::Win, ToMove::White, &mut code);
assert_eq!(code, b"a7d3 0116.00 b2b3c6d6 3/3+.");

let mut fen = Vec::new();
gbr::decode(&code, &mut fen).unwrap();
assert_eq!(fen, b"8/K7/2nn4/8/8/1B1k4/1R6/8 w");
```

# A Kriegspiel game as one player saw it

[`kpgn::filter_reader`] reads every game of an input and writes each as
the player saw it: the opponent's moves become `??`, their illegal
attempts a count, their comments go; the referee's announcements stay.
A game that cannot be filtered is reported and left out.

```
use chesspipe::kpgn::{self, Config, Side};

let game = "[Event \"Skirmish\"]\n[Variant \"Kriegspiel (Berkeley)\"]\n\n\
    1. e4 {(:)} f6 {(:)} 2. e5 {(:)} fxe5 {(Xe5:e7) a probe} *\n";
let config = Config { player: Side::White, plies: None, keep_comments: false };
let (mut out, mut diagnostics) = (Vec::new(), Vec::new());
let any = kpgn::filter_reader(&config, game.as_bytes(), &mut out, &mut diagnostics)?;
assert!(any && diagnostics.is_empty());
assert_eq!(
    String::from_utf8(out).unwrap(),
    "[Event \"Skirmish\"]\n[Variant \"Kriegspiel (Berkeley)\"]\n\
     [Filtered \"white\"]\n\n\
     1. e4 {(:)} ?? {(:0)} 2. e5 {(:)} ?? {(Xe5:1)} *\n"
);
# Ok::<(), std::io::Error>(())
```
*/

#![deny(missing_docs)]

pub mod board;
pub mod diag;
pub mod gbr;
pub mod kpgn;
pub mod lines;
pub mod pbi;

// The tools built on the library (one module per tool, and what only the
// tools share). Not the crate's API: it is the inside of the binaries in
// `bin/`, public only so that they, the tests and the fuzz targets can
// reach it.
#[doc(hidden)]
pub mod cmd;

mod decimal;

#[cfg(test)]
mod testing;
