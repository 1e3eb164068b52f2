//! gbr-encode from the command line.

use crate::util::{
    first_line_then_close, repo_file, with_line_end, Dir, LINE_ENDS,
};

/// The seed's two positions (White to move) and Kubbel's study, as FEN
/// lines with further fields, a PBI Forsyth string and a bare board.
const FENS: &str = "\
8/K7/2nn4/8/8/1B1k4/1R6/8 w - - 0 1
8/8/8/8/2kPp3/4Pp2/K4P2/8 b
6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1
";

const CODES: &str = "0116.00\n0000.32\n0323.12\n";

fn gbr() -> (Dir, &'static str) {
    (Dir::new("gbr"), "gbr-encode")
}

#[test]
fn material_codes_by_default() {
    let (dir, tool) = gbr();
    assert_eq!(dir.command(tool).stdin(FENS).stdout(), CODES);
    dir.create("f.fen", FENS);
    assert_eq!(
        dir.command(tool).args(["-f", "code", "f.fen"]).stdout(),
        CODES
    );
}

#[test]
fn position_form_with_side_to_move_and_result() {
    let (dir, tool) = gbr();
    let out = dir.command(tool).args(["-f", "position"]).stdin(FENS).stdout();
    assert_eq!(
        out,
        "a7d3 0116.00 b2b3c6d6 3/3 WTM.\n\
         a2c4 0000.32 .d4e3f2e4f3 4/3 BTM.\n\
         g3g1 0323.12 a3a2e1g8.h6c3c6 4/5.\n"
    );
    let out = dir
        .command(tool)
        .args(["--format", "position", "--result", "win"])
        .stdin(FENS)
        .stdout();
    assert_eq!(
        out,
        "a7d3 0116.00 b2b3c6d6 3/3+.\n\
         a2c4 0000.32 .d4e3f2e4f3 4/3-+.\n\
         g3g1 0323.12 a3a2e1g8.h6c3c6 4/5+.\n"
    );
    let out = dir
        .command(tool)
        .args(["-f", "position", "--result", "draw"])
        .stdin("8/8/8/8/2kPp3/4Pp2/K4P2/8 b - - 0 1\n")
        .stdout();
    assert_eq!(out, "a2c4 0000.32 .d4e3f2e4f3 4/3-=.\n");
}

#[test]
fn study_form() {
    let (dir, tool) = gbr();
    let out = dir
        .command(tool)
        .args(["-f", "study", "--result", "draw"])
        .stdin(FENS)
        .stdout();
    assert_eq!(out, "[=0116.00a7d3]\n[=0000.32a2c4]\n[=0323.12g3g1]\n");
    let out = dir.command(tool).args(["-f", "study"]).stdin(FENS).stdout();
    assert_eq!(out, "[0116.00a7d3]\n[0000.32a2c4]\n[0323.12g3g1]\n");
}

#[test]
fn prefix_writes_code_tab_line() {
    let (dir, tool) = gbr();
    let input = "  8/K7/2nn4/8/8/1B1k4/1R6/8 w\t- - 0 1\r\n";
    let out = dir.command(tool).arg("-p").stdin(input).stdout();
    assert_eq!(out, "0116.00\t  8/K7/2nn4/8/8/1B1k4/1R6/8 w\t- - 0 1\n");
    let out = dir.command(tool).arg("--prefix").stdin(FENS).stdout();
    let first = out.lines().next().unwrap();
    assert_eq!(first, "0116.00\t8/K7/2nn4/8/8/1B1k4/1R6/8 w - - 0 1");
}

#[test]
fn decode_every_form() {
    let (dir, tool) = gbr();
    let input = "\
0116.00
4100
  0000.32\t
[+0020.42c1a1]
[=0323.12g3g1]
a7d3 0116.00 b2b3c6d6 3/3+.

a2c4 0000.32 .d4e3f2e4f3 4/3 WTM.
a2c4 0000.32 d4e3f2e4f3 4/3 BTM
a7d3 0116.00 b2b3d6c6 3/3-=
a1c1 0000.00 1/1.
";
    let out = dir.command(tool).arg("-d").stdin(input).stdout();
    assert_eq!(
        out,
        "KRB-KNN\nKQR-KQ\nKPPP-KPP\nKBBPPPP-KPP c1a1 +\nKBBP-KRNPP g3g1 =\n\
         8/K7/2nn4/8/8/1B1k4/1R6/8 w\n8/8/8/8/2kPp3/4Pp2/K4P2/8 w\n\
         8/8/8/8/2kPp3/4Pp2/K4P2/8 b\n8/K7/2nn4/8/8/1B1k4/1R6/8 b\n\
         8/8/8/8/8/8/8/K1k5\n"
    );
    let out =
        dir.command(tool).args(["--decode", "-p"]).stdin("0002.01\n").stdout();
    assert_eq!(out, "KNN-KP\t0002.01\n");
}

#[test]
fn decode_errors_name_the_line() {
    let (dir, tool) = gbr();
    let input = "\
9000.00
0116.00
a7d3 0116.00 b2b3c6d6 3/4+.
a7d3 0116.00 b2b2c6d6 3/3+.
a7d3 0116.00 b2b3c6 3/3+.
hello
[+0020.42c1a1]
";
    let out = dir.command(tool).arg("-d").stdin(input).run().code(2);
    assert_eq!(out.out(), "KRB-KNN\nKBBPPPP-KPP c1a1 +\n");
    out.says("gbr-encode: <stdin>:1: digit 9 in the code")
        .says("<stdin>:3: control count 3/4 does not match the code (3/3)")
        .says("<stdin>:4: two men on b2")
        .says("<stdin>:5: the code needs 4 squares, found 3")
        .says("<stdin>:6: expected a material code");
}

#[test]
fn encode_then_decode_round_trips() {
    let (dir, tool) = gbr();
    dir.create("f.fen", FENS);
    let forms = dir.command(tool).args(["-f", "position", "f.fen"]).stdout();
    let boards = dir.command(tool).arg("-d").stdin(forms).stdout();
    assert_eq!(
        boards,
        "8/K7/2nn4/8/8/1B1k4/1R6/8 w\n8/8/8/8/2kPp3/4Pp2/K4P2/8 b\n\
         6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1\n"
    );
}

#[test]
fn digit_nine_warns_and_strict_makes_it_an_error() {
    let (dir, tool) = gbr();
    // Three white queens.
    let input = "k7/8/8/8/8/8/8/QQQ4K\n";
    let out = dir.command(tool).stdin(input).stdout();
    assert_eq!(out, "9000.00\n");
    let out = dir.command(tool).args(["-f", "position"]).stdin(input).run();
    let out = out.code(0).says("<stdin>:1: warning: digit 9 in the code");
    assert_eq!(out.out(), "h1a8 9000.00 a1b1c1 4/1.\n");
    let out = dir
        .command(tool)
        .args(["-f", "position", "--strict"])
        .stdin(input)
        .run()
        .code(2)
        .says("<stdin>:1: digit 9 in the code");
    assert_eq!(out.out(), "");
    dir.command(tool)
        .arg("-d")
        .stdin("h1a8 9000.00 a1b1c1 4/1.\n")
        .run()
        .code(2)
        .says("digit 9");
}

#[test]
fn every_line_end_and_a_last_line_without_one() {
    let (dir, tool) = gbr();
    for (name, end) in LINE_ENDS {
        let input = with_line_end(FENS, end);
        let out = dir.command(tool).stdin(&input).stdout();
        assert_eq!(out, CODES, "line end {name}");
        let unterminated = &input[..input.len() - end.len()];
        let out = dir.command(tool).stdin(unterminated).stdout();
        assert_eq!(out, CODES, "{name}, no last line end");
    }
    let mut mixed = String::new();
    for (i, line) in FENS.lines().enumerate() {
        mixed.push_str(line);
        mixed.push_str(LINE_ENDS[(i + 2) % LINE_ENDS.len()].1);
    }
    assert_eq!(dir.command(tool).stdin(mixed).stdout(), CODES);
    // A BOM is skipped; blank lines are skipped.
    let input = format!("\u{feff}\n \t\n{FENS}\n");
    assert_eq!(dir.command(tool).stdin(input).stdout(), CODES);
}

#[test]
fn bad_positions_are_errors_naming_the_line() {
    let (dir, tool) = gbr();
    let input: &[u8] = b"\
8/K7/2nn4/8/8/1B1k4/1R6/8 w
8/8/8/8/8/8/8/8
k7/8/8/8/8/8/8/K6K
k7/8/8/8/8/P7/PPPPPPPP/K7
8/K7/2nn4/8/8/1B1k4/1R6/8
k7/8/8/8/8/8/8/K8
k7/8/8/8/8/8/K7
k7/8/8/8/8/8/8/K6x
k7/8/8/8/8/8/8/K6\xff
8/8/8/8/2kPp3/4Pp2/K4P2/8 b
";
    dir.create("f.fen", input);
    let out = dir.command(tool).arg("f.fen").run().code(2);
    assert_eq!(out.out(), "0116.00\n0116.00\n0000.32\n");
    out.says("gbr-encode: f.fen:2: no white king\n")
        .says("gbr-encode: f.fen:3: 2 white kings\n")
        .says("gbr-encode: f.fen:4: 9 white pawns (at most 8)\n")
        .says("gbr-encode: f.fen:6: rank 1 covers more than 8 squares")
        .says("gbr-encode: f.fen:7: 7 ranks in the position, expected 8")
        .says("gbr-encode: f.fen:8: unknown letter 'x' at column 18")
        .says("gbr-encode: f.fen:9: unexpected byte 0xff");
    // The other forms check the same.
    let out = dir.command(tool).args(["-f", "study", "f.fen"]).run();
    let out = out.code(2).says("f.fen:2: no white king");
    assert_eq!(out.out().lines().count(), 3);
}

#[test]
fn invalid_utf8_after_the_board_is_carried_through() {
    let (dir, tool) = gbr();
    let input = b"8/K7/2nn4/8/8/1B1k4/1R6/8 w - - 0 1 \xe9t\xe9\n";
    let out = dir.command(tool).arg("-p").stdin(&input[..]).run().code(0);
    let mut want = b"0116.00\t".to_vec();
    want.extend_from_slice(&input[..]);
    assert_eq!(out.quiet().stdout, want);
}

#[test]
fn stdin_via_dash_and_no_argument() {
    let (dir, tool) = gbr();
    dir.create("a.fen", "8/K7/2nn4/8/8/1B1k4/1R6/8\n");
    assert_eq!(dir.command(tool).stdin(FENS).stdout(), CODES);
    let out =
        dir.command(tool).args(["a.fen", "-", "a.fen"]).stdin(FENS).stdout();
    assert_eq!(out, format!("0116.00\n{CODES}0116.00\n"));
    dir.command(tool)
        .arg("-")
        .stdin("8/8/8/8/8/8/8/8\n")
        .run()
        .code(2)
        .says("gbr-encode: <stdin>:1: no white king");
}

#[test]
fn missing_file_between_two_good_ones() {
    let (dir, tool) = gbr();
    dir.create("a.fen", "8/K7/2nn4/8/8/1B1k4/1R6/8\n");
    dir.create("b.fen", "8/8/8/8/2kPp3/4Pp2/K4P2/8\n");
    let out = dir.command(tool).args(["a.fen", "nope.fen", "b.fen"]).run();
    let out = out.code(2).says("gbr-encode: nope.fen: no such file");
    assert_eq!(out.out(), "0116.00\n0000.32\n");
    let out = dir.command(tool).args(["a.fen", ".", "b.fen"]).run();
    assert_eq!(
        out.code(2).says("gbr-encode: .: ").out(),
        "0116.00\n0000.32\n"
    );
}

const COLLECTION: &str = "\u{feff}#PBI 1.2
# a comment
Loyd:8/K7/2nn4/8/8/1B1k4/1R6/8:#2:::::!:
Nobody::#2:::::!:
Kingless:8/8/8/8/8/8/8/8:#2:::::!:
Bad:8/8/8/x7/8/8/8/8:#2:::::!:
Short:8/8
Pawns:8/8/8/8/2kPp3/4Pp2/K4P2/8:h#2:::::!:
";

#[test]
fn pbi_input_uses_the_position_field() {
    let (dir, tool) = gbr();
    dir.create("c.pbi", COLLECTION);
    let out = dir.command(tool).arg("c.pbi").run().code(2);
    assert_eq!(out.out(), "0116.00\n0000.32\n");
    let out = out
        .says("c.pbi:5: no white king\n")
        .says("c.pbi:6: unknown letter 'x' at column 7 of the position\n")
        .says("c.pbi:7: expected 9 fields, found 2");
    assert!(!out.err().contains(":4:"), "an empty position is skipped");
    assert!(!out.err().contains("warning"), "{}", out.err());
    let out = dir.command(tool).args(["-p", "-f", "study", "c.pbi"]).run();
    assert_eq!(
        out.code(2).out(),
        "[0116.00a7d3]\tLoyd:8/K7/2nn4/8/8/1B1k4/1R6/8:#2:::::!:\n\
         [0000.32a2c4]\tPawns:8/8/8/8/2kPp3/4Pp2/K4P2/8:h#2:::::!:\n"
    );
    // Every line end; PBI and FEN inputs mix in one run.
    for (name, end) in LINE_ENDS {
        let input = with_line_end(COLLECTION, end);
        let out = dir.command(tool).arg("-").stdin(input).run().code(2);
        assert_eq!(out.out(), "0116.00\n0000.32\n", "line end {name}");
    }
    dir.create("f.fen", FENS);
    let out = dir.command(tool).args(["f.fen", "c.pbi"]).run().code(2);
    assert_eq!(out.out(), format!("{CODES}0116.00\n0000.32\n"));
    // The PBI reader's own warnings stay warnings.
    let good = "#PBI 1.2\nLoyd:8/K7/2nn4/8/8/1B1k4/1R6/8:#2:::::!:\n";
    let out = dir.command(tool).stdin(good).run().code(0);
    let out = out.says("<stdin>:1: warning: no byte order mark");
    assert_eq!(out.out(), "0116.00\n");
    dir.command(tool).arg("--strict").stdin(good).run().code(2);
}

#[test]
fn closed_stdout_is_quiet() {
    let dir = Dir::new("gbr-head");
    let path = dir.create("big.fen", FENS.repeat(100_000));
    let (first, out) = first_line_then_close("gbr-encode", [&path]);
    assert_eq!(first, "0116.00\n");
    out.code(0).quiet();
}

#[test]
fn help_version_and_bad_usage() {
    let (dir, tool) = gbr();
    let help = dir.command(tool).arg("--help").stdout();
    for option in [
        "--format",
        "--result",
        "--prefix",
        "--decode",
        "--threads",
        "--strict",
        "--help",
        "--version",
    ] {
        assert!(help.contains(option), "--help lacks {option}");
    }
    assert_eq!(dir.command(tool).arg("-h").stdout(), help);
    let version = dir.command(tool).arg("-V").stdout();
    assert_eq!(version, format!("gbr-encode {}\n", env!("CARGO_PKG_VERSION")));
    dir.command(tool)
        .arg("--frobnicate")
        .run()
        .code(2)
        .says("invalid option '--frobnicate'")
        .says("Try 'gbr-encode --help'");
    dir.command(tool).arg("-f").run().code(2).says("missing argument");
    let usage = |args: &[&str], says: &str| {
        dir.command(tool).args(args).stdin(FENS).run().code(2).says(says);
    };
    usage(&["-f", "fen"], "invalid value for --format");
    usage(
        &["-f", "position", "--result", "loss"],
        "invalid value for --result",
    );
    usage(&["--result", "win"], "--result needs --format position");
    usage(&["-d", "-f", "study"], "do not go with --decode");
    usage(&["-j", "0"], "-j/--threads: expected a whole number from 1 to 256");
}

/// Issue 17: threads change nothing but the time, for every form, with
/// bad positions among the good, and lines of every shape.
#[test]
fn threads_change_nothing_but_the_time() {
    let (dir, tool) = gbr();
    let good = FENS.lines().collect::<Vec<_>>();
    let mut text = String::new();
    for i in 0..60_000 {
        let line = match i % 97 {
            0 => "8/8 w",
            1 => "KK6/8/8/8/8/8/8/7k b",
            2 => "   ",
            3 => "\tqqqqqqqq/qqqqqqqq/8/8/8/8/K7/k7 w ; comment",
            _ => good[i % good.len()],
        };
        text.push_str(line);
        text.push_str(if i % 1000 == 999 { "\r\n" } else { "\n" });
    }
    let file = dir.create("big.fen", &text);
    for args in [vec![], vec!["-f", "position"], vec!["-p"], vec!["--strict"]]
    {
        let run = |threads: &str| {
            dir.command(tool)
                .args(["-j", threads])
                .args(&args)
                .arg(&file)
                .run()
        };
        let one = run("1");
        assert_eq!(one.code, 2, "{args:?}");
        assert!(one.err().lines().count() > 1000, "{args:?}");
        for threads in ["2", "3"] {
            let many = run(threads);
            assert_eq!(many.code, one.code, "{args:?}");
            assert!(many.stdout == one.stdout, "{args:?} -j {threads}");
            assert_eq!(many.err(), one.err(), "{args:?} -j {threads}");
        }
    }
}

#[test]
fn man_page_names_every_option() {
    let page = std::fs::read_to_string(repo_file("man/gbr-encode.1")).unwrap();
    let help = Dir::new("man").command("gbr-encode").arg("--help").stdout();
    for word in help.split_whitespace().filter(|w| w.starts_with("--")) {
        let word = word.trim_end_matches(',');
        let mdoc = format!("Fl {}", word[1..].replace('-', "\\-"));
        assert!(page.contains(&mdoc), "man page does not mention {word}");
    }
}
