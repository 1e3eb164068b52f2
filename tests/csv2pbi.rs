//! csv2pbi from the command line, and the round trip through pbi2csv.

use chesspipe::lines::LineReader;
use chesspipe::pbi::{self, Item, Parser, Split, Subfields};
use proptest::prelude::*;
use proptest::sample::select;

use crate::util::{first_line_then_close, repo_file, Dir};

const BOM: &str = "\u{feff}";
const MARKER: &str = "\u{feff}#PBI 1.2\n";
const HEADER: &str = "authors,position,stipulation,source_nr,source_title,\
source_date,source_page,references,awards,keymove,status,comment\n";

/// A table as pbi2csv writes it, with values that need escapes.
const TABLE: &str = "authors,position,stipulation,source_nr,source_title,\
source_date,source_page,references,awards,keymove,status,comment
\"Loyd, Samuel; S:t John\",3r4/8/8/8/8/8/8/K1k5,#2,68,Chess Monthly,1858,12,,,Qb7,!,first
\"Bláthy, Ottó; Köhler\",8/8/8/8/8/8/8/K1k5,=2,007,Magyar Sakkvilág,11.8.1966,,\
|Die Schwalbe|1930|; |A|B; C|,1|Pr|Good Companion|1917,,,\"\"\"the\"\" best: 1/2\"
#1,,h#2,,Russ: Miniatures|x,,,,,Sc6?,$,\"two\nlines\"
";

const PBI: &str = "\u{feff}#PBI 1.2
Loyd, Samuel;S\\x3at John:3r4/8/8/8/8/8/8/K1k5:#2:68|Chess Monthly|1858|12:::Qb7:!:first
Bláthy, Ottó;Köhler:8/8/8/8/8/8/8/K1k5:=2:007|Magyar Sakkvilág|11.8.1966|:|Die Schwalbe|1930|;|A|B\\x3b C|:1|Pr|Good Companion|1917:::\"the\" best\\x3a 1/2
\\x231::h#2:|Russ\\x3a Miniatures\\x7cx||:::Sc6?:$:two\\x0alines
";

#[test]
fn converts_a_table() {
    let dir = Dir::new("csv2pbi-table");
    let out = dir.command("csv2pbi").stdin(TABLE).stdout();
    assert_eq!(out, PBI);
    // And back: pbi2csv gives the table again.
    let back = dir.command("pbi2csv").stdin(&out).stdout();
    assert_eq!(back, TABLE);
}

#[test]
fn columns_in_any_order_absent_ones_empty_made_ones_ignored() {
    let dir = Dir::new("csv2pbi-columns");
    let table = "gbr,status,line,authors,fen,file,pieces\n\
                 0000.00,!,7,Kling,8/8,x.pbi,2+2\n";
    let out = dir.command("csv2pbi").stdin(table).stdout();
    assert_eq!(out, format!("{MARKER}Kling:::::::!:\n"));
}

#[test]
fn sample_collection_round_trips() {
    let dir = Dir::new("csv2pbi-sample");
    let sample = repo_file("samples/problems.pbi");
    let original = std::fs::read(&sample).unwrap();
    let csv = dir.command("pbi2csv").arg(&sample).stdout();
    let pbi = dir.command("csv2pbi").stdin(&csv).stdout();
    assert_eq!(dir.command("pbi2csv").stdin(&pbi).stdout(), csv);
    // Through a workbook, the comment lines too.
    dir.command("pbi2csv").arg("-o").arg("s.xlsx").arg(&sample).stdout();
    let pbi = dir.command("csv2pbi").arg("s.xlsx").stdout();
    assert_eq!(dir.command("pbi2csv").stdin(&pbi).stdout(), csv);
    assert_eq!(comment_lines(pbi.as_bytes()), comment_lines(&original));
    // --raw both ways gives the file back, byte for byte.
    let raw = dir.command("pbi2csv").arg("--raw").arg(&sample).stdout();
    let pbi = dir
        .command("csv2pbi")
        .arg("--raw")
        .arg("--comments")
        .arg(&sample)
        .stdin(&raw)
        .run()
        .code(0)
        .quiet()
        .stdout;
    assert!(pbi == original);
    dir.command("pbi2csv")
        .args(["--raw", "-o", "r.xlsx"])
        .arg(&sample)
        .stdout();
    let pbi =
        dir.command("csv2pbi").args(["--raw", "r.xlsx"]).run().code(0).stdout;
    assert!(pbi == original);
}

/// The comment lines of a PBI file.
fn comment_lines(pbi: &[u8]) -> Vec<Vec<u8>> {
    let mut lines = LineReader::new(pbi);
    let mut parser = Parser::new(pbi::Options::default());
    let mut out = vec![];
    while let Some(line) = lines.next_line().unwrap() {
        if let Some(Item::Comment(line)) = parser.line(line, &mut vec![]) {
            out.push(line.content().to_vec());
        }
    }
    out
}

/// The data lines of a PBI file, as the reader takes them.
fn data_lines(pbi: &[u8]) -> Vec<Vec<u8>> {
    let mut lines = LineReader::new(pbi);
    let mut parser = Parser::new(pbi::Options::default());
    let mut out = vec![];
    while let Some(line) = lines.next_line().unwrap() {
        if let Some(Item::Record(rec)) = parser.line(line, &mut vec![]) {
            out.push(rec.line().content().to_vec());
        }
    }
    out
}

/// A data line as `pbi2csv --raw | csv2pbi --raw` gives it back: the
/// same, but for a used source that had other than 4 subfields, or 4
/// empty ones, which the `source_*` columns cannot tell apart from
/// `nr|title|date|page` (or an empty field).
fn raw_round_trip(line: &[u8]) -> Vec<u8> {
    let (Split::Exact(fields, _) | Split::Extra(fields, _)) = pbi::split(line)
    else {
        panic!("a data line has 9 fields");
    };
    let used = Subfields::split(fields[3]).raw;
    let used = if used.iter().all(|s| s.is_empty()) {
        vec![]
    } else {
        used.join(&b'|')
    };
    let mut out = vec![];
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b':');
        }
        out.extend_from_slice(if i == 3 { &used } else { field });
    }
    out
}

/// Pieces of PBI field text: every reserved character, escapes good and
/// bad, non-ASCII text, what spreadsheets misread, and what looks like
/// the workbook format's own escapes.
const TEXT: &[&str] = &[
    "Loyd",
    "Samuel",
    " ",
    "  ",
    "\t",
    ",",
    "\"",
    "'",
    "#",
    "|",
    ";",
    "\\x3a",
    "\\x3b",
    "\\x7c",
    "\\x5c",
    "\\x0a",
    "\\x0d",
    "\\x0D",
    "\\x85",
    "\\x00",
    "\\x20",
    "\\x09",
    "\\xe9",
    "\\xE9",
    "\\xff",
    "\\x23",
    "\\q",
    "\\x4",
    "\\X3a",
    "\\",
    "=2",
    "+",
    "-",
    "@",
    "007",
    "1/2",
    "3/2020",
    "11.8.1966",
    "Bláthy",
    "Köhler",
    "Куббель",
    "♔♕",
    "𝄞",
    "_x000D_",
    "_x005F_",
    "\u{1}",
    "\u{7f}",
    "\u{80}",
    "\u{9f}",
    "\u{a0}",
    "\u{2029}",
    "\u{feff}",
    "\u{fffe}",
    "\u{ffff}",
];

/// Pieces that are text and also not UTF-8.
const BYTES: &[&[u8]] =
    &[b"\xff", b"M\xfcller", b"\xc2", b"\xe2\x80", b"\x80"];

fn text(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(select(TEXT), 0..max).prop_map(|p| p.concat())
}

/// A list of items separated by `;`, empty ones among them.
fn list(item: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    proptest::collection::vec(item, 0..4).prop_map(|items| items.join(";"))
}

/// A source or an award: mostly 4 subfields, sometimes fewer or more.
fn source() -> impl Strategy<Value = String> {
    let n = prop_oneof![6 => Just(4usize), 1 => 1usize..=6];
    n.prop_flat_map(|n| proptest::collection::vec(text(4), n))
        .prop_map(|s| s.join("|"))
}

fn position() -> impl Strategy<Value = String> {
    let known = select(&[
        "",
        "8/8/8/8/8/8/8/K1k5",
        "rsbqkbsr/pppppppp/8/8/8/8/PPPPPPPP/RSBQKBSR",
        "6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1",
        "11111111/11111111/11111111/11111111/11111111/11111111/11111111/k6K",
        "8/8",
        "8/8/8/8/8/8/8/8",
        "9/8/8/8/8/8/8/8",
    ][..])
    .prop_map(String::from);
    prop_oneof![4 => known, 1 => text(5)]
}

fn status() -> impl Strategy<Value = String> {
    let known = select(&["", "!", "*", "+", "$", "?", "\\x21"][..]);
    prop_oneof![4 => known.prop_map(String::from), 1 => text(3)]
}

/// The comment: text, with colons sometimes (more than 9 fields).
fn comment() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![9 => text(3), 1 => Just(":".into())],
        0..4,
    )
    .prop_map(|p| p.concat())
}

/// One data line without its line end.
fn record() -> impl Strategy<Value = String> {
    (
        list(text(6)),
        position(),
        text(5),
        prop_oneof![1 => Just(String::new()), 4 => source()],
        list(source()),
        list(source()),
        text(4),
        status(),
        comment(),
    )
        .prop_map(|(a, b, c, d, e, f, g, h, i)| {
            [a, b, c, d, e, f, g, h, i].join(":")
        })
}

/// A PBI collection: comment lines, then records, each with any of the
/// five line ends.
fn collection(records: usize) -> impl Strategy<Value = Vec<u8>> {
    let end = select(&["\n", "\r", "\r\n", "\u{85}", "\u{2028}"][..]);
    (
        proptest::collection::vec(text(8), 0..4),
        proptest::collection::vec((record(), end), records),
    )
        .prop_map(|(comments, records)| {
            let mut out = String::from(MARKER);
            for c in comments {
                out.push('#');
                out.push_str(&c);
                out.push('\n');
            }
            for (rec, end) in records {
                out.push_str(&rec);
                out.push_str(end);
            }
            out.into_bytes()
        })
}

/// The warnings about a record's text, position and status, without
/// the tool's name, the input and the line.
fn record_warnings(stderr: &str) -> Vec<String> {
    let kinds = [
        "invalid UTF-8",
        "position kept as text",
        "position has no GBR code",
        "unknown status",
    ];
    stderr
        .lines()
        .filter_map(|l| l.split_once(": warning: ").map(|(_, m)| m))
        .filter(|m| kinds.iter().any(|k| m.starts_with(k)))
        .map(String::from)
        .collect()
}

/// The lines of the records that pbi2csv said csv2pbi would read back
/// changed.
fn read_back_warnings(stderr: &str) -> Vec<u64> {
    stderr
        .lines()
        .filter(|l| l.contains(": csv2pbi would read the "))
        .map(|l| {
            let at = l.split(": ").nth(1).expect("FILE:LINE");
            let line = at.rsplit(':').next().expect("LINE");
            line.parse().expect("a line number")
        })
        .collect()
}

/// Each record of a PBI file as `pbi2csv --json` gives it (lists not
/// joined), with its line.
fn json_records(dir: &Dir, pbi: &[u8]) -> Vec<(u64, String)> {
    let json = run(dir, "pbi2csv", &["--json", "-c", "line,default"], pbi);
    String::from_utf8(json)
        .expect("JSON is UTF-8")
        .lines()
        .map(|l| {
            let rest = l.strip_prefix("{\"line\":").expect("the line first");
            let (line, rest) = rest.split_once(',').expect("more keys");
            (line.parse().expect("a line number"), rest.to_string())
        })
        .collect()
}

/// How many cases the round-trip properties run: `PROPTEST_CASES`, or
/// a number that keeps `cargo test` to a few seconds.
fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        // Each case runs the tools a dozen times: shrink briefly.
        max_shrink_iters: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Runs `tool` with `args` on `input`, expecting exit status 0.
fn run(dir: &Dir, tool: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    dir.command(tool).args(args).stdin(input).run().code(0).stdout
}

/// The four round trips of one collection `f`; `workbook` when it can
/// go through a workbook too (all UTF-8).
fn round_trips(f: &[u8], workbook: bool) {
    let dir = Dir::new("csv2pbi-prop");
    dir.create("f.pbi", f);
    let read = dir.command("pbi2csv").arg("f.pbi").run().code(0);
    let csv = read.stdout.clone();
    let made = dir.command("csv2pbi").stdin(&csv).run().code(0);
    let pbi = made.stdout.clone();
    assert!(run(&dir, "pbi2csv", &[], &pbi) == csv, "CSV round trip");
    // csv2pbi warns about a record as pbi2csv does.
    assert_eq!(record_warnings(&made.err()), record_warnings(&read.err()));
    // Each record comes back the same, its lists too (which the CSV shows
    // joined), but for those that pbi2csv said would not: exactly those.
    let warned = read_back_warnings(&read.err());
    let before = json_records(&dir, f);
    let after = json_records(&dir, &pbi);
    assert_eq!(before.len(), after.len());
    for ((line, was), (_, is)) in before.iter().zip(&after) {
        let changed = was != is;
        assert_eq!(warned.contains(line), changed, "line {line}: {was} {is}");
    }
    let data = data_lines(f);
    let want: Vec<Vec<u8>> = data.iter().map(|l| raw_round_trip(l)).collect();
    let raw = run(&dir, "pbi2csv", &["--raw", "f.pbi"], b"");
    let pbi = run(&dir, "csv2pbi", &["--raw"], &raw);
    assert!(data_lines(&pbi) == want, "--raw round trip");
    if !workbook {
        return;
    }
    run(&dir, "pbi2csv", &["-o", "f.xlsx", "f.pbi"], b"");
    let pbi = run(&dir, "csv2pbi", &["f.xlsx"], b"");
    assert!(run(&dir, "pbi2csv", &[], &pbi) == csv, "workbook round trip");
    assert_eq!(comment_lines(&pbi), comment_lines(f));
    run(&dir, "pbi2csv", &["--raw", "-o", "r.xlsx", "f.pbi"], b"");
    let pbi = run(&dir, "csv2pbi", &["--raw", "r.xlsx"], b"");
    assert!(data_lines(&pbi) == want, "--raw workbook round trip");
    assert_eq!(comment_lines(&pbi), comment_lines(f));
}

proptest! {
    #![proptest_config(cases(12))]

    /// `pbi2csv F | csv2pbi | pbi2csv` is `pbi2csv F`, through CSV and
    /// through a workbook, and `--raw` both ways gives back F's data
    /// lines: 12 collections of 300 records by default.
    #[test]
    fn round_trip(f in collection(300)) {
        round_trips(&f, true);
    }
}

proptest! {
    #![proptest_config(cases(4))]

    /// The same through CSV for text that is not UTF-8, which a
    /// workbook cannot hold.
    #[test]
    fn round_trip_of_bytes_that_are_not_utf8(
        f in collection(200),
        at in proptest::collection::vec((any::<prop::sample::Index>(), select(BYTES)), 1..20),
    ) {
        // Put the bytes inside the fields, away from the line ends.
        let mut f = f;
        for (i, bytes) in at {
            let spots: Vec<usize> = (MARKER.len()..f.len())
                .filter(|&k| f[k].is_ascii_alphanumeric())
                .collect();
            if !spots.is_empty() {
                let k = spots[i.index(spots.len())];
                f.splice(k..k, bytes.iter().copied());
            }
        }
        round_trips(&f, false);
    }
}

/// One thread or two: the same output and messages, on a table of many
/// chunks with errors and warnings among the rows.
#[test]
fn threads_change_nothing_but_the_time() {
    let dir = Dir::new("csv2pbi-threads");
    let mut table = String::from(HEADER);
    for i in 0..40_000 {
        let row = match i % 7 {
            0 => "\"Loyd, S; Kling\",8/8,#2,1,Chess: Monthly,1858,1,,,Qb7,ok,\n",
            1 => "A,,#2\n",
            2 => "B;C,,h#2,,,,,|T|1900|; x,,,,\n",
            _ => "\"Loyd, S\",8/8/8/8/8/8/8/K1k5,#2,1,Chess Monthly,1858,1,,,Qb7,!,\n",
        };
        table.push_str(row);
    }
    let path = dir.create("t.csv", table);
    let one = dir.command("csv2pbi").args(["-j", "1"]).arg(&path).run();
    let two = dir.command("csv2pbi").args(["-j", "2"]).arg(&path).run();
    assert_eq!(one.code, 2);
    assert!(one.err().lines().count() > 20_000);
    assert!(one.stdout.len() > 1_000_000);
    assert_eq!(two.code, one.code);
    assert!(two.stdout == one.stdout);
    assert_eq!(two.err(), one.err());
}

#[test]
fn unknown_column_is_an_error_and_the_rows_are_written() {
    let dir = Dir::new("csv2pbi-unknown");
    let out = dir
        .command("csv2pbi")
        .arg("-")
        .stdin("authors,colour,stipulation\nLoyd,red,#2\nKling,blue,#3\n")
        .run()
        .code(2);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:1: unknown column 'colour' (valid: authors,\
         position,stipulation,source_nr,source_title,source_date,\
         source_page,references,awards,keymove,status,comment,file,line,\
         fen,gbr,pieces), ignored\n"
    );
    assert_eq!(
        out.out(),
        format!("{MARKER}Loyd::#2::::::\nKling::#3::::::\n")
    );
    // A column twice: the second is ignored.
    let out = dir
        .command("csv2pbi")
        .stdin("authors,authors\nLoyd,Kling\n")
        .run()
        .code(2)
        .says(":1: column 'authors' twice, as field 1 and 2");
    assert_eq!(out.out(), format!("{MARKER}Loyd::::::::\n"));
    // No column of pbi2csv's: not a table to read.
    let out = dir
        .command("csv2pbi")
        .stdin("name,age\nLoyd,38\n")
        .run()
        .code(2)
        .says("no column of pbi2csv's in the first row (it starts 'name';");
    assert_eq!(out.err().lines().count(), 1);
    assert_eq!(out.out(), MARKER);
    let out = dir.command("csv2pbi").run().code(2);
    assert_eq!(out.err(), "csv2pbi: <stdin>: empty: no header row\n");
}

#[test]
fn ragged_row_is_an_error_and_the_others_are_written() {
    let dir = Dir::new("csv2pbi-ragged");
    dir.create(
        "t.csv",
        "authors,stipulation\nLoyd,#2\nKling\n\"A\nB\",#3,x\nC,#4\n",
    );
    let out = dir.command("csv2pbi").arg("t.csv").run().code(2);
    assert_eq!(
        out.err(),
        "csv2pbi: t.csv:3: expected 2 fields, as in the header row, found 1\n\
         csv2pbi: t.csv:4: expected 2 fields, as in the header row, found 3\n"
    );
    assert_eq!(out.out(), format!("{MARKER}Loyd::#2::::::\nC::#4::::::\n"));
}

/// LINE in a message is the line where the row starts, counting every
/// line end of FORMATS.md: CR LF, CR, the blank lines skipped, and the
/// line ends inside the quoted values before the row (review F2 on
/// 2874efb: CR LF rows were numbered a line early, CR rows all 1).
#[test]
fn rows_are_numbered_by_the_line_they_start_on() {
    let dir = Dir::new("csv2pbi-row-lines");
    // `/` is a row end, `|` a line end inside a quoted value: A on line
    // 2, B on 3 and 4, a blank line, C on 6, D on 7, E on 8 and 9 (U+0085
    // ends a line), F on 10 and 11 (U+2028 too), G on 12.
    let rows = "authors,status/A,x/\"B|b\",x//C,x/D,x,more/\"E\u{85}e\",x/\
                \"F\u{2028}f\",x/G,x/";
    for (end, inside, more) in [
        ("\n", "\n", 0),
        ("\r\n", "\r\n", 0),
        ("\r", "\r", 0),
        ("\r", "\r\n", 0),
        // LF CR is two line ends.
        ("\r\n", "\n\r", 1),
    ] {
        let table = rows.replace('/', end).replace('|', inside);
        dir.create("t.csv", &table);
        let out = dir.command("csv2pbi").arg("t.csv").run().code(2);
        let at = |line: u64| line + if line > 3 { more } else { 0 };
        let status = "warning: unknown status 'x' kept";
        let want = format!(
            "csv2pbi: t.csv:{}: {status}\n\
             csv2pbi: t.csv:{}: {status}\n\
             csv2pbi: t.csv:{}: {status}\n\
             csv2pbi: t.csv:{}: expected 2 fields, as in the header row, \
             found 3\n\
             csv2pbi: t.csv:{}: {status}\n\
             csv2pbi: t.csv:{}: the authors value holds U+2028 (line \
             separator), which PBI cannot hold: it ends a line, and \\xHH \
             reaches only U+00FF\n\
             csv2pbi: t.csv:{}: {status}\n",
            at(2),
            at(3),
            at(6),
            at(7),
            at(8),
            at(10),
            at(12)
        );
        assert_eq!(out.err(), want, "{end:?} {inside:?}");
    }
}

/// A quote that opens a value and is never closed makes the rest of the
/// input that value, rows and all: the row is an error, at the line of
/// that quote, that says how far it runs; it is left out, with --raw too
/// (review F1 on 2874efb: rows B and C went into A's comment, exit 0,
/// no message; --raw blamed a line end in the comment).
#[test]
fn a_quote_never_closed_is_an_error_at_its_line() {
    let dir = Dir::new("csv2pbi-unclosed");
    let k = "8/8/8/8/8/8/8/K6k";
    let table = format!(
        "authors,position,comment\nZ,{k},\"fine\nand closed\"\n\
         A,{k},\"oops\nB,{k},ok\r\nC,{k},ok\n"
    );
    dir.create("t.csv", &table);
    let want = "csv2pbi: t.csv:4: a quoted field opened here is never \
                closed: its row runs to the end of the input (line 6): row \
                left out\n";
    let out = dir.command("csv2pbi").arg("t.csv").run().code(2);
    assert_eq!(out.err(), want);
    assert_eq!(
        out.out(),
        format!("{MARKER}Z:{k}:::::::fine\\x0aand closed\n")
    );
    // --raw: the same error, and no other (the row was never made).
    let table = table.replace("\nand closed", " and closed");
    dir.create("r.csv", &table);
    let out = dir.command("csv2pbi").args(["--raw", "r.csv"]).run().code(2);
    assert_eq!(
        out.err(),
        want.replace("t.csv:4", "r.csv:3").replace("6", "5")
    );
    assert_eq!(out.out(), format!("{MARKER}Z:{k}:::::::fine and closed\n"));
    // In the header row: the input is skipped, the next one read.
    dir.create("h.csv", "authors,\"comment\nA,x\n");
    let out = dir.command("csv2pbi").args(["h.csv", "r.csv"]).run().code(2);
    assert!(out.err().starts_with(
        "csv2pbi: h.csv:1: a quoted field opened here is never closed: the \
         header row runs to the end of the input (line 2): input skipped\n\
         csv2pbi: r.csv:3: "
    ));
}

/// Quoted values that hold line ends, and are closed, are values like
/// any other, up to the very end of the input; with --raw such a value is
/// an error of its own row alone.
#[test]
fn a_quoted_value_with_line_ends_is_read_when_closed() {
    let dir = Dir::new("csv2pbi-closed");
    for end in ["\n", "\r\n", "\r"] {
        let table = "authors,comment/A,\"one/two\"/B,\"say \"\"hi\"\"/\"/\
                     C,\"last/\"\"\"";
        let table = table.replace('/', end);
        let out = dir.command("csv2pbi").stdin(&table).run().code(0);
        let end = end.replace('\r', "\\x0d").replace('\n', "\\x0a");
        assert_eq!(
            out.out(),
            format!(
                "{MARKER}A::::::::one{end}two\nB::::::::say \"hi\"{end}\n\
                 C::::::::last{end}\"\n"
            )
        );
        assert_eq!(out.err(), "");
        let out =
            dir.command("csv2pbi").arg("--raw").stdin(&table).run().code(2);
        assert_eq!(out.out(), MARKER);
        assert_eq!(
            out.err(),
            "csv2pbi: <stdin>:2: the comment value holds a line end, which \
             PBI cannot hold\n\
             csv2pbi: <stdin>:4: the comment value holds a line end, which \
             PBI cannot hold\n\
             csv2pbi: <stdin>:6: the comment value holds a line end, which \
             PBI cannot hold\n"
        );
    }
}

/// A message quotes a first row that is no header, or an unknown
/// column, cut short; a first row too long for a header is not read to
/// its end (review F3 on 2874efb: a 1 MB first row made a 1 MB message,
/// 30 MB of NUL 120 MB of them).
#[test]
fn a_first_row_that_is_no_header_is_quoted_cut_short() {
    let dir = Dir::new("csv2pbi-long-first-row");
    let hint = "a table written with --no-header cannot be read): input \
                skipped\n";
    let a40 = "a".repeat(40);
    let out = dir.command("csv2pbi").stdin("a".repeat(10_000)).run().code(2);
    assert_eq!(
        out.err(),
        format!(
            "csv2pbi: <stdin>:1: no column of pbi2csv's in the first row \
             (it starts '{a40}...'; {hint}"
        )
    );
    // Past 64 KiB no header is read to its end.
    let zeros = vec![0u8; 30_000_000];
    let out = dir.command("csv2pbi").stdin(zeros).run().code(2);
    assert_eq!(
        out.err(),
        format!(
            "csv2pbi: <stdin>:1: no header: the first row runs past 64 KiB \
             (it starts '{}...'; {hint}",
            "\\x00".repeat(40)
        )
    );
    let table = format!("\n\r\nauthors,{}\nA,b\n", "c".repeat(1000));
    let out = dir.command("csv2pbi").stdin(table).run().code(2);
    assert!(out.err().starts_with(&format!(
        "csv2pbi: <stdin>:3: unknown column '{}...' (valid: authors,",
        "c".repeat(40)
    )));
    assert_eq!(out.out(), format!("{MARKER}A::::::::\n"));
}

#[test]
fn invalid_utf8_is_carried_through_with_a_warning() {
    let dir = Dir::new("csv2pbi-utf8");
    let table = b"authors,stipulation\nM\xfcller,#2\nKling,#3\n";
    let out = dir.command("csv2pbi").stdin(table).run().code(0);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:2: warning: invalid UTF-8, carried through \
         unchanged\n"
    );
    let want = [MARKER.as_bytes(), b"M\xfcller::#2::::::\nKling::#3::::::\n"];
    assert_eq!(out.stdout, want.concat());
    // --strict: an error; the row is left out.
    let out =
        dir.command("csv2pbi").arg("--strict").stdin(table).run().code(2);
    assert_eq!(out.err(), "csv2pbi: <stdin>:2: invalid UTF-8\n");
    assert_eq!(out.out(), format!("{MARKER}Kling::#3::::::\n"));
}

#[test]
fn position_and_status_warn_as_in_pbi2csv() {
    let dir = Dir::new("csv2pbi-warnings");
    let table =
        "authors,position,status\nA,8/8/8,!\nB,8/8/8/8/8/8/8/K1k5,ok\n\
                 C,,?\n";
    let out = dir.command("csv2pbi").stdin(table).run().code(0);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:2: warning: position kept as text: 3 ranks in the \
         position, expected 8\n\
         csv2pbi: <stdin>:3: warning: unknown status 'ok' kept\n"
    );
    assert_eq!(
        out.out(),
        format!(
            "{MARKER}A:8/8/8::::::!:\nB:8/8/8/8/8/8/8/K1k5::::::ok:\nC:::::::?:\n"
        )
    );
    // The same warnings as pbi2csv's, on the same records.
    let back = dir.command("pbi2csv").stdin(out.out()).run().code(0);
    assert_eq!(back.err().replace("pbi2csv", "csv2pbi"), out.err());
    let out =
        dir.command("csv2pbi").arg("--strict").stdin(table).run().code(2);
    assert_eq!(out.out(), format!("{MARKER}C:::::::?:\n"));
    // The row is left out: the status was not kept.
    assert!(out.err().contains("<stdin>:3: unknown status 'ok'\n"));
}

#[test]
fn what_pbi_cannot_hold_is_an_error() {
    let dir = Dir::new("csv2pbi-unwritable");
    let table =
        "authors,position,comment\nA,8/8:x,\nB,,one\u{2028}two\nC,,ok\n";
    let out = dir.command("csv2pbi").stdin(table).run().code(2);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:2: the position value holds ':', which would end \
         the field\n\
         csv2pbi: <stdin>:3: the comment value holds U+2028 (line \
         separator), which PBI cannot hold: it ends a line, and \\xHH \
         reaches only U+00FF\n"
    );
    assert_eq!(out.out(), format!("{MARKER}C::::::::ok\n"));
}

#[test]
fn raw_values_are_checked_and_go_in_as_they_stand() {
    let dir = Dir::new("csv2pbi-raw");
    let table = "authors,stipulation,source_title,source_page,comment\n\
                 S\\x3at John,#2,T,p|q,a:b\nA,h#2:x,,,\nB,,T|U,,\n\
                 \"C\nD\",,,,\nE,,,,\\q\n";
    let out = dir.command("csv2pbi").arg("--raw").stdin(table).run().code(2);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:2: warning: more than 9 fields: the rest of the \
         line is the comment\n\
         csv2pbi: <stdin>:2: warning: used source has 5 subfields, expected \
         4: the rest belongs to the last\n\
         csv2pbi: <stdin>:3: the stipulation value holds ':', which would \
         end the field (--raw: escape it as \\xHH)\n\
         csv2pbi: <stdin>:4: the source_title value holds '|', which would \
         start the next subfield (--raw: escape it as \\xHH)\n\
         csv2pbi: <stdin>:5: the authors value holds a line end, which PBI \
         cannot hold\n\
         csv2pbi: <stdin>:7: warning: '\\q' in the comment field is not an \
         escape (\\xHH), kept as written\n"
    );
    assert_eq!(
        out.out(),
        format!("{MARKER}S\\x3at John::#2:|T||p|q:::::a:b\nE::::::::\\q\n")
    );
}

#[test]
fn lists_warn_about_what_was_probably_meant_otherwise() {
    let dir = Dir::new("csv2pbi-lists");
    let table = "authors,references,awards\nLoyd;Kling,Chess Monthly,\
                 \"1|Pr|T|1900; 2\"\n";
    let out = dir.command("csv2pbi").stdin(table).run().code(0);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:2: warning: authors: a ';' with no space after it \
         is kept as text (names are separated by '; ')\n\
         csv2pbi: <stdin>:2: warning: references: 1 subfields, expected 4 \
         (nr|title|date|page): the missing ones are empty\n\
         csv2pbi: <stdin>:2: warning: awards: text after '; ' without 3 '|' \
         of its own is kept in the last subfield before it\n"
    );
    assert_eq!(
        out.out(),
        format!(
            "{MARKER}Loyd\\x3bKling::::Chess Monthly|||:1|Pr|T|1900\\x3b 2:::\n"
        )
    );
    // --strict leaves the row out: nothing is "kept" (review F6).
    let out =
        dir.command("csv2pbi").arg("--strict").stdin(table).run().code(2);
    assert_eq!(
        out.err(),
        "csv2pbi: <stdin>:2: authors: a ';' with no space after it (names \
         are separated by '; ')\n\
         csv2pbi: <stdin>:2: references: 1 subfields, expected 4 \
         (nr|title|date|page)\n\
         csv2pbi: <stdin>:2: awards: text after '; ' without 3 '|' of its \
         own\n"
    );
    assert_eq!(out.out(), MARKER);
}

#[test]
fn delimiters_bom_and_row_ends() {
    let dir = Dir::new("csv2pbi-delimiters");
    let want = format!("{MARKER}Loyd, S::#2::::::\nKling::#3::::::\n");
    for (args, table) in [
        (vec![], "authors,stipulation\r\n\"Loyd, S\",#2\r\nKling,#3\r\n"),
        (vec![], "authors,stipulation\r\"Loyd, S\",#2\rKling,#3"),
        (vec!["-d", ";"], "authors;stipulation\nLoyd, S;#2\nKling;#3\n"),
        (vec!["-d", "\\t"], "authors\tstipulation\nLoyd, S\t#2\nKling\t#3\n"),
    ] {
        let out = dir.command("csv2pbi").args(&args).stdin(table).stdout();
        assert_eq!(out, want, "{args:?} {table:?}");
        let bom = format!("{BOM}{table}");
        let out = dir.command("csv2pbi").args(&args).stdin(bom).stdout();
        assert_eq!(out, want, "BOM {args:?} {table:?}");
    }
    dir.command("csv2pbi")
        .args(["-d", "ab"])
        .run()
        .code(2)
        .says("the delimiter must be one ASCII character");
}

#[test]
fn stdin_several_files_and_a_missing_one() {
    let dir = Dir::new("csv2pbi-files");
    dir.create("a.csv", "authors\nA\n");
    dir.create("b.csv", "stipulation,authors\n#2,B\n");
    let want = format!("{MARKER}A::::::::\n");
    assert_eq!(dir.command("csv2pbi").stdin("authors\nA\n").stdout(), want);
    assert_eq!(
        dir.command("csv2pbi").arg("-").stdin("authors\nA\n").stdout(),
        want
    );
    let out = dir
        .command("csv2pbi")
        .args(["a.csv", "nope.csv", "b.csv"])
        .run()
        .code(2);
    assert_eq!(out.err(), "csv2pbi: nope.csv: no such file or directory\n");
    assert_eq!(out.out(), format!("{MARKER}A::::::::\nB::#2::::::\n"));
}

#[test]
fn a_workbook_on_stdin_and_its_comment_lines() {
    let dir = Dir::new("csv2pbi-stdin-workbook");
    let pbi = format!("{MARKER}# one\n#two\nA::#2::::::\n");
    dir.create("a.pbi", &pbi);
    dir.command("pbi2csv").args(["-o", "a.xlsx", "a.pbi"]).stdout();
    let book = std::fs::read(dir.path("a.xlsx")).unwrap();
    assert_eq!(dir.command("csv2pbi").stdin(&book).stdout(), pbi);
    // Two workbooks: the comment lines of both, then the records.
    let out =
        dir.command("csv2pbi").args(["a.xlsx", "-"]).stdin(&book).stdout();
    assert_eq!(
        out,
        format!(
            "{MARKER}# one\n#two\n# one\n#two\nA::#2::::::\nA::#2::::::\n"
        )
    );
}

#[test]
fn comments_option() {
    let dir = Dir::new("csv2pbi-comments");
    dir.create("c.pbi", format!("{MARKER}# from c\n\nX::::::::\n# data\n"));
    dir.create("c.txt", "first\n\n# second\r\n  \n");
    let table = "authors\nA\n";
    let out = dir
        .command("csv2pbi")
        .args(["--comments", "c.pbi"])
        .stdin(table)
        .stdout();
    assert_eq!(out, format!("{MARKER}# from c\nA::::::::\n"));
    let out = dir
        .command("csv2pbi")
        .args(["--comments", "c.txt"])
        .stdin(table)
        .stdout();
    assert_eq!(out, format!("{MARKER}# first\n# second\nA::::::::\n"));
    let out = dir
        .command("csv2pbi")
        .args(["--comments", "nope.txt"])
        .stdin(table)
        .run()
        .code(2);
    assert_eq!(out.err(), "csv2pbi: nope.txt: no such file or directory\n");
    assert_eq!(out.out(), format!("{MARKER}A::::::::\n"));
}

#[test]
fn closed_stdout_is_quiet() {
    let dir = Dir::new("csv2pbi-head");
    let mut big = String::from(HEADER);
    for _ in 0..60_000 {
        big.push_str("\"Loyd, S\",8/8/8/8/8/8/8/K1k5,#2,1,Chess Monthly,1858,1,,,Qb7,!,\n");
    }
    let path = dir.create("big.csv", big);
    let (first, out) = first_line_then_close("csv2pbi", [&path]);
    assert_eq!(first, MARKER);
    out.code(0).quiet();
}

#[test]
fn help_version_and_bad_usage() {
    let dir = Dir::new("csv2pbi-usage");
    let help = dir.command("csv2pbi").arg("--help").stdout();
    for option in ["--delimiter", "--raw", "--comments", "--strict"] {
        assert!(help.contains(option), "--help lacks {option}");
    }
    assert_eq!(dir.command("csv2pbi").arg("-h").stdout(), help);
    let version = dir.command("csv2pbi").arg("-V").stdout();
    assert_eq!(version, format!("csv2pbi {}\n", env!("CARGO_PKG_VERSION")));
    dir.command("csv2pbi")
        .arg("--frobnicate")
        .run()
        .code(2)
        .says("invalid option '--frobnicate'")
        .says("Try 'csv2pbi --help'");
    dir.command("csv2pbi")
        .arg("--comments")
        .run()
        .code(2)
        .says("missing argument");
}

#[test]
fn man_page_names_every_option() {
    let page = std::fs::read_to_string(repo_file("man/csv2pbi.1")).unwrap();
    let help = Dir::new("man").command("csv2pbi").arg("--help").stdout();
    for word in help.split_whitespace().filter(|w| w.starts_with('-')) {
        let word = word.trim_end_matches([',', ':', '.', ';']);
        let mdoc = format!("Fl {}", word[1..].replace('-', "\\-"));
        assert!(page.contains(&mdoc), "man/csv2pbi.1 does not mention {word}");
    }
    for (_, column) in chesspipe::cmd::pbi2csv::Column::ALL {
        assert!(page.contains(column), "man page lacks {column}");
    }
}
