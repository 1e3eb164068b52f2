//! What every tool shares on its command line.

use crate::util::Dir;

/// `-j` takes 1 to 256 threads in every tool that has it; anything else,
/// huge numbers included, is a usage error, not an abort (issue 13).
#[test]
fn threads_from_1_to_256_in_every_tool() {
    let dir = Dir::new("threads-usage");
    for (tool, args) in [
        ("pbi2csv", &[][..]),
        ("pbi-grep", &["x"][..]),
        ("gbr-encode", &[][..]),
        ("kpgn-filter", &["-w"][..]),
        ("kpgn-check", &[][..]),
        ("csv2pbi", &[][..]),
    ] {
        for bad in
            ["0", "-1", "two", "", "257", "4294967297", "99999999999999999999"]
        {
            dir.command(tool)
                .args(args)
                .args(["-j", bad])
                .stdin("")
                .run()
                .code(2)
                .says("-j/--threads: expected a whole number from 1 to 256");
        }
        for good in ["1", "256"] {
            let out = dir
                .command(tool)
                .args(args)
                .args(["-j", good])
                .stdin("")
                .run();
            assert!(!out.err().contains("-j/--threads"), "{tool} -j {good}");
        }
    }
}

/// A bad value names the option and says what it takes (issue 16).
#[test]
fn a_bad_value_names_the_option_and_what_it_takes() {
    let dir = Dir::new("option-values");
    for (tool, args, says) in [
        (
            "kpgn-filter",
            &["-w", "--plies", "x"][..],
            "kpgn-filter: --plies: expected a whole number of half-moves \
             (like 8), got 'x'\n",
        ),
        (
            "kpgn-filter",
            &["-w", "-b"],
            "kpgn-filter: -w and -b do not go together: a game is written \
             as one player saw it\n",
        ),
        (
            "kpgn-filter",
            &["--player", "red"],
            "kpgn-filter: invalid value for --player: expected one of \
             white, black, got 'red'\n",
        ),
        (
            "pbi-grep",
            &["--pieces", "7-9"],
            "pbi-grep: --pieces: expected a number of men or a range of \
             them (7, ..7, 8..12, 13..), got '7-9' (use 7..9)\n",
        ),
        (
            "pbi-grep",
            &["--pieces", "9..7"],
            "--pieces: empty range '9..7' (use 7..9)\n",
        ),
        (
            "pbi-grep",
            &["--gbr", "0116.000"],
            "pbi-grep: --gbr: '0116.000' is not a GBR code or the start of \
             one: expected up to 4 digits, then a point and up to 2 (like \
             0023 or 4888.88)\n",
        ),
        (
            "pbi-grep",
            &["--author", "Loyd", "--author", "Kl(ing"],
            "pbi-grep: --author 'Kl(ing': not a valid regex: unclosed \
             group\n",
        ),
        (
            "pbi-grep",
            &["a(\x1b"],
            "pbi-grep: PATTERN 'a(\\x1b': not a valid regex",
        ),
        (
            "pbi2csv",
            &["-d", "ab"],
            "pbi2csv: -d/--delimiter: the delimiter must be one ASCII \
             character other than a quote or a line end, or '\\t', got 'ab'\n",
        ),
        (
            "gbr-encode",
            &["-f", "fen"],
            "gbr-encode: invalid value for --format: expected one of code, \
             position, study, got 'fen'\n",
        ),
    ] {
        dir.command(tool).args(args).stdin("").run().code(2).says(says);
    }
}

/// `--help` and `--version` report a write error as any output does
/// (issue 16).
#[cfg(target_os = "linux")]
#[test]
fn help_and_version_report_a_write_error() {
    use std::process::{Command, Stdio};
    for tool in ["pbi2csv", "pbi-grep", "kpgn-filter"] {
        for arg in ["--help", "-V", "--generate=man"] {
            let full = std::fs::File::create("/dev/full").unwrap();
            let out = Command::new(crate::util::bin(tool))
                .arg(arg)
                .stdout(Stdio::from(full))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{tool} {arg}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("{tool}: stdout: no space left on device\n")
            );
        }
    }
}
