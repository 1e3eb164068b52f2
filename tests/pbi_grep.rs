//! pbi-grep from the command line.

use bstr::ByteSlice;

use crate::util::{large_collection, with_line_end, Dir, LINE_ENDS};

const BOM: &str = "\u{feff}";

const HEADER: &str = "\u{feff}#PBI 1.2\n# Test collection for pbi-grep.\n";

/// Records, one per line, each with something to select it by.
const RECORDS: [&str; 6] = [
    "Loyd, Samuel:3r4/8/8/8/8/8/8/K1k5:#2:68|Chess Monthly|1858|12:::Qb7:!:first",
    "S\\x3at John;Loyd, Samuel:8/8/8/8/8/8/8/K1k5:#3:|Die Schwalbe|1930|:|Chess Monthly|1860|::Sc6:$:",
    "Kling, Josef:1S6/8/8/8/8/8/8/K1k4R:h#2:1|American Chess\\x3a Nuts|1868|:::::",
    "Bláthy, Ottó:rsbqkbsr/pppppppp/8/8/8/8/PPPPPPPP/RSBQKBSR:#2:|Magyar Sakkvilág|1916|:|Die Schwalbe|1931|;|Fairy Chess Review||:1|Pr|Good Companion|1917:Qd1:*:ÁRVÍZTŰRŐ tükörfúrógép",
    "Kubbel, Leonid:6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1:=:|Shakhmaty v SSSR|1925|:::::",
    "Anonymous::#2:||1900|::::?:no diagram",
];

fn collection(records: &[&str]) -> String {
    let mut out = String::from(HEADER);
    for r in records {
        out.push_str(r);
        out.push('\n');
    }
    out
}

fn all() -> String {
    collection(&RECORDS)
}

/// The records of a PBI output, without its header.
fn selected(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(BOM))
        .map(String::from)
        .collect()
}

fn grep(dir: &Dir, args: &[&str]) -> Vec<String> {
    let out = dir.command("pbi-grep").args(args).stdin(all()).run();
    assert!(out.code == 0 || out.code == 1, "{}\n{}", out.code, out.err());
    selected(&out.out())
}

fn count(dir: &Dir, args: &[&str]) -> usize {
    grep(dir, args).len()
}

#[test]
fn empty_pattern_reproduces_the_file_with_every_line_end() {
    let dir = Dir::new("identity");
    for (name, end) in LINE_ENDS {
        let file = format!("{name}.pbi");
        let bytes = with_line_end(&all(), end);
        dir.create(&file, &bytes);
        let out =
            dir.command("pbi-grep").args(["", &file]).run().code(0).quiet();
        assert_eq!(out.stdout, bytes, "line end {name}");
    }
    let mut mixed = String::new();
    for (i, line) in all().lines().enumerate() {
        mixed.push_str(line);
        mixed.push_str(LINE_ENDS[i % 5].1);
    }
    dir.create("mixed.pbi", &mixed);
    let out = dir.command("pbi-grep").args(["", "mixed.pbi"]).run().code(0);
    assert_eq!(out.stdout, mixed.as_bytes());
}

#[test]
fn pattern_and_inverted_pattern_split_the_records() {
    let dir = Dir::new("split");
    for pattern in ["Loyd", "Schwalbe", "^#2$", "x", "Kubbel|Kling", "K1k"] {
        let yes = grep(&dir, &[pattern]);
        let no = grep(&dir, &["-v", pattern]);
        let mut both: Vec<String> = yes.iter().chain(&no).cloned().collect();
        both.sort();
        let mut want: Vec<String> =
            RECORDS.iter().map(|r| r.to_string()).collect();
        want.sort();
        assert_eq!(both, want, "pattern {pattern}");
        assert!(yes.iter().all(|r| !no.contains(r)), "pattern {pattern}");
    }
}

#[test]
fn field_options() {
    let dir = Dir::new("fields");
    assert_eq!(count(&dir, &["--author", "^Loyd, Samuel$"]), 2);
    assert_eq!(
        count(&dir, &["--author", "^Samuel"]),
        0,
        "each name is one text"
    );
    assert_eq!(
        count(&dir, &["--author", "S:t"]),
        1,
        "decoded before matching"
    );
    assert_eq!(count(&dir, &["--stip", "^#2$"]), 3);
    assert_eq!(
        count(&dir, &["--source", "^Die Schwalbe$"]),
        2,
        "used and referenced"
    );
    assert_eq!(count(&dir, &["--source", "^Chess Monthly$"]), 2);
    assert_eq!(count(&dir, &["--source", "American Chess: Nuts"]), 1);
    assert_eq!(count(&dir, &["--award", "^Pr$"]), 1);
    assert_eq!(count(&dir, &["--key", "^S"]), 1);
    assert_eq!(count(&dir, &["--comment", "diagram"]), 1);
    assert_eq!(count(&dir, &["--position", "^rsbqkbsr/"]), 1);
    assert_eq!(count(&dir, &["--position", "1858"]), 0);
    assert_eq!(count(&dir, &["1858"]), 1, "a PATTERN searches every field");
    // Plain strings are searched for without the regex, a whole line or
    // field at a time: the same answers, escapes included.
    assert_eq!(count(&dir, &["S:t"]), 1);
    assert_eq!(count(&dir, &["-F", "Chess: Nuts"]), 1);
    assert_eq!(count(&dir, &["--author", "Loyd"]), 2);
    assert_eq!(count(&dir, &["--author", "Loyd, Samuel;"]), 0);
    assert_eq!(count(&dir, &["--source", "Monthly"]), 2);
    assert_eq!(count(&dir, &["-F", "--source", "|"]), 0, "one by one");
    assert_eq!(count(&dir, &["--award", "Companion"]), 1);
}

#[test]
fn and_or_rules() {
    let dir = Dir::new("and-or");
    // The same option twice: either may match.
    assert_eq!(count(&dir, &["--author", "Kling", "--author", "Kubbel"]), 2);
    // Different options: all must match.
    assert_eq!(count(&dir, &["--author", "Loyd", "--stip", "#3"]), 1);
    assert_eq!(count(&dir, &["--author", "Kling", "--stip", "#3"]), 0);
    // -e patterns: any may match; with field options, all must.
    assert_eq!(count(&dir, &["-e", "Kling", "-e", "Kubbel"]), 2);
    assert_eq!(
        count(&dir, &["-e", "Kling", "-e", "Kubbel", "--stip", "="]),
        1
    );
    // With -e or a field option every positional argument is a file.
    let out =
        dir.command("pbi-grep").args(["-e", "Loyd", "Kling"]).run().code(2);
    assert!(out.err().contains("pbi-grep: Kling: no such file or directory"));
}

#[test]
fn status_gbr_and_pieces() {
    let dir = Dir::new("status");
    assert_eq!(count(&dir, &["--status", "!"]), 1);
    assert_eq!(count(&dir, &["--status", "!$*"]), 3);
    assert_eq!(count(&dir, &["--status", ""]), 2);
    assert_eq!(count(&dir, &["--gbr", "4888.88"]), 1);
    assert_eq!(count(&dir, &["--gbr", "0323"]), 1, "Kubbel is 0323.12");
    assert_eq!(count(&dir, &["--gbr", "0300.00"]), 1);
    assert_eq!(count(&dir, &["--gbr", "0"]), 4, "not the empty position");
    assert_eq!(count(&dir, &["--pieces", "3"]), 1);
    assert_eq!(count(&dir, &["--pieces", "..3"]), 2);
    assert_eq!(count(&dir, &["--pieces", "8..12"]), 1);
    assert_eq!(count(&dir, &["--pieces", "13.."]), 1);
    // An empty position never matches --gbr or --pieces, so -v has it.
    let inverted = grep(&dir, &["-v", "--pieces", "0.."]);
    assert_eq!(inverted, vec![RECORDS[5].to_string()]);
    for bad in ["4x", "12345", "1.2", ""] {
        dir.command("pbi-grep")
            .args(["--gbr", bad])
            .run()
            .code(2)
            .says("is not a GBR code");
    }
    dir.command("pbi-grep")
        .args(["--pieces", "9..3"])
        .run()
        .code(2)
        .says("empty range");
}

#[test]
fn ignore_case_non_ascii_and_fixed_strings() {
    let dir = Dir::new("case");
    assert_eq!(count(&dir, &["árvíztűrő"]), 0);
    assert_eq!(count(&dir, &["-i", "árvíztűrő"]), 1);
    assert_eq!(count(&dir, &["-i", "--author", "BLÁTHY"]), 1);
    assert_eq!(count(&dir, &["K1k4R"]), 1);
    assert_eq!(count(&dir, &["-F", "#2"]), 4, "h#2 holds #2");
    assert_eq!(count(&dir, &["K.k"]), 3);
    assert_eq!(count(&dir, &["-F", "K.k"]), 0);
    assert_eq!(count(&dir, &["-F", "-i", "chess monthly"]), 2);
}

#[test]
fn count_quiet_and_exit_status() {
    let dir = Dir::new("count");
    dir.create("a.pbi", all());
    dir.create("b.pbi", all());
    let out =
        dir.command("pbi-grep").args(["-c", "Loyd", "a.pbi", "b.pbi"]).run();
    assert_eq!(out.code(0).out(), "4\n");
    let out = dir.command("pbi-grep").args(["-c", "Nobody", "a.pbi"]).run();
    assert_eq!(out.code(1).out(), "0\n");
    let out = dir.command("pbi-grep").args(["-q", "Loyd", "a.pbi"]).run();
    assert_eq!(out.code(0).out(), "");
    let out = dir.command("pbi-grep").args(["-q", "Nobody", "a.pbi"]).run();
    assert_eq!(out.code(1).out(), "");
    // Nothing selected: the header alone, a valid empty collection.
    let out = dir.command("pbi-grep").args(["Nobody", "a.pbi"]).run();
    assert_eq!(out.code(1).out(), HEADER);
}

#[test]
fn several_files_missing_file_and_stdin() {
    let dir = Dir::new("files");
    dir.create("a.pbi", collection(&RECORDS[..2]));
    dir.create(
        "b.pbi",
        format!("{BOM}#PBI 1.2\n# other header, dropped\n{}\n", RECORDS[2]),
    );
    let out = dir
        .command("pbi-grep")
        .args(["", "a.pbi", "missing.pbi", "b.pbi"])
        .run();
    let out =
        out.code(2).says("pbi-grep: missing.pbi: no such file or directory");
    assert_eq!(out.out(), collection(&RECORDS[..3]));
    let plain =
        dir.command("pbi-grep").arg("Loyd").stdin(all()).run().code(0).out();
    let dash = dir
        .command("pbi-grep")
        .args(["Loyd", "-"])
        .stdin(all())
        .run()
        .code(0)
        .out();
    assert_eq!(plain, dash);
    assert_eq!(selected(&plain).len(), 2);
}

#[test]
fn bad_input_is_reported_and_the_rest_selected() {
    let dir = Dir::new("bad");
    let input =
        format!("{HEADER}{}\nbroken:line\n{}\n", RECORDS[0], RECORDS[2]);
    let out = dir.command("pbi-grep").arg("").stdin(input).run().code(2);
    assert_eq!(out.err(), "pbi-grep: <stdin>:4: expected 9 fields, found 2\n");
    assert_eq!(selected(&out.out()), vec![RECORDS[0], RECORDS[2]]);
    // Not PBI at all: nothing is written.
    let out =
        dir.command("pbi-grep").arg("").stdin("just text\n").run().code(2);
    assert_eq!(out.out(), "");
    // A marker without a line end is written with LF.
    let out =
        dir.command("pbi-grep").arg("").stdin(format!("{BOM}#PBI 1.2")).run();
    assert_eq!(out.code(1).out(), format!("{BOM}#PBI 1.2\n"));
}

#[test]
fn escapes_and_invalid_utf8_pass_through() {
    let dir = Dir::new("bytes");
    let mut input = HEADER.as_bytes().to_vec();
    input.extend_from_slice(b"M\xfcller:8/8/8/8/8/8/8/K1k5:#2::::::\r\n");
    let out = dir
        .command("pbi-grep")
        .arg("--stip")
        .arg("#2")
        .stdin(&input)
        .run()
        .code(0);
    assert!(out.err().contains("warning: invalid UTF-8"));
    assert_eq!(out.stdout, input);
}

#[test]
fn help_version_and_usage_errors() {
    let dir = Dir::new("usage");
    let help = dir.command("pbi-grep").arg("--help").stdout();
    for opt in [
        "--author",
        "--stip",
        "--source",
        "--award",
        "--key",
        "--comment",
        "--position",
        "--status",
        "--gbr",
        "--pieces",
        "--ignore-case",
        "--fixed-strings",
        "--invert-match",
        "--count",
        "--quiet",
        "--strict",
    ] {
        assert!(help.contains(opt), "--help lacks {opt}");
    }
    let version = dir.command("pbi-grep").arg("-V").stdout();
    assert_eq!(version, format!("pbi-grep {}\n", env!("CARGO_PKG_VERSION")));
    dir.command("pbi-grep")
        .run()
        .code(2)
        .says("a PATTERN or a selection option is needed");
    dir.command("pbi-grep")
        .args(["--colour", "x"])
        .run()
        .code(2)
        .says("invalid option '--colour'");
    dir.command("pbi-grep")
        .args(["("])
        .run()
        .code(2)
        .says("PATTERN '(': not a valid regex: unclosed group");
    let page =
        std::fs::read_to_string(crate::util::repo_file("man/pbi-grep.1"))
            .unwrap();
    for word in help.split_whitespace().filter(|w| w.starts_with("--")) {
        let word = word.trim_end_matches(',');
        let mdoc = format!("Fl {}", word[1..].replace('-', "\\-"));
        assert!(
            page.contains(&mdoc),
            "man/pbi-grep.1 does not mention {word}"
        );
    }
}

#[test]
fn threads_change_nothing_but_the_time() {
    let dir = Dir::new("pbi-grep-threads");
    // About 1.5 MB: several batches of 256 KiB for the workers.
    let big = dir.create("big.pbi", large_collection(21, 10_000));
    let other = dir.create("other.pbi", large_collection(22, 3_000));
    for args in [
        vec![""],
        vec!["--author", "Loyd"],
        vec!["-v", "--author", "Loyd"],
        vec!["-c", "-i", "--source", "schwalbe"],
        vec!["--strict", "--pieces", "..7"],
        vec!["--gbr", "0", "--status", "!"],
    ] {
        let run = |threads: &str| {
            dir.command("pbi-grep")
                .args(["-j", threads])
                .args(&args)
                .arg(&big)
                .arg(&other)
                .run()
        };
        let one = run("1");
        assert_eq!(one.code, 2, "the damaged lines are errors");
        assert!(one.err().lines().count() > 500, "{args:?}");
        for threads in ["2", "5"] {
            let many = run(threads);
            assert_eq!(many.code, one.code, "-j {threads} {args:?}");
            assert!(many.stdout == one.stdout, "-j {threads} {args:?}");
            assert_eq!(many.err(), one.err(), "-j {threads} {args:?}");
        }
    }
    // -q stops at the first selected record, with the same answer.
    for pattern in ["Loyd", "Nobody at all"] {
        let quiet = |threads: &str| {
            dir.command("pbi-grep")
                .args(["-q", "-j", threads, "--author", pattern])
                .arg(&big)
                .run()
        };
        let (one, two) = (quiet("1"), quiet("2"));
        assert!(one.stdout.is_empty() && two.stdout.is_empty());
        assert_eq!((one.code, one.err()), (two.code, two.err()), "{pattern}");
    }
}

#[test]
fn every_line_gives_its_warnings_whatever_the_pattern() {
    let dir = Dir::new("all-warnings");
    let input = format!(
        "{HEADER}{}\n{}\n{}\n{}\n{}\n",
        RECORDS[0],
        // An unknown status, and no Loyd anywhere.
        "Kling, Josef:1S6/8/8/8/8/8/8/K1k4R:h#2:1|Chess Nuts|1868|::::??:",
        // Too few fields: an error, Loyd or not.
        "Kubbel, Leonid:8/8:#2",
        // A bad escape, and Loyd only in the comment.
        "Kling, Josef:8/8/8/8/8/8/8/K1k5:#2:|Chess Monthly|1858|:::::after Loyd\\q",
        // Loyd only when decoded.
        "Lo\\x79d, Samuel:8/8/8/8/8/8/8/K1k5:#3::::::",
    );
    let run = |args: &[&str]| {
        let out = dir.command("pbi-grep").args(args).stdin(&*input).run();
        let out = out.code(2);
        (selected(&out.out()), out.err())
    };
    let status = "<stdin>:4: warning: unknown status '??' kept\n";
    let short = "<stdin>:5: expected 9 fields, found 3\n";
    let escape = "<stdin>:6: warning: '\\q' in the comment field is not an \
                  escape (\\xHH), kept as written\n";
    let loyds =
        vec![RECORDS[0].to_string(), input.lines().nth(6).unwrap().into()];
    let msgs = |m: &[&str]| {
        m.iter().map(|m| format!("pbi-grep: {m}")).collect::<String>()
    };
    let all = msgs(&[status, short, escape]);
    // Issue 17: a plain string and a regex report the same.
    assert_eq!(run(&["--author", "Loyd"]), (loyds.clone(), all.clone()));
    assert_eq!(run(&["--author", "Loy[d]"]), (loyds.clone(), all.clone()));
    let (found, err) = run(&["Loyd"]);
    assert_eq!((found.len(), err), (3, all.clone()));
    assert_eq!(run(&["Loy[d]"]).1, all);
    assert_eq!(run(&["-v", "--author", "Loyd"]).1, all);
    assert_eq!(run(&["-c", "Nobody"]).1, all);
    // Left out under --strict: the status is not "kept".
    let strict = all
        .replace("warning: ", "")
        .replace("'??' kept", "'??'")
        .replace(", kept as written", "");
    assert_eq!(run(&["--strict", "--author", "Loyd"]), (loyds, strict));
}

/// Issue 17: pbi-grep and pbi2csv print the same messages for the same
/// file (but for the tool's name), with plain strings and with regexes,
/// selected or not, on one thread and more.
#[test]
fn issue17_pbi_grep_and_pbi2csv_give_the_same_messages() {
    let dir = Dir::new("same-messages");
    // About 1.5 MB with every kind of damage and every line end.
    let big = dir.create("big.pbi", large_collection(24, 10_000));
    let csv = dir.command("pbi2csv").arg(&big).run();
    assert_eq!(csv.code, 2);
    let want = csv.err().replace("pbi2csv: ", "");
    assert!(want.lines().count() > 1000);
    assert!(want.contains("warning: position kept as text"));
    assert!(want.contains("warning: invalid UTF-8"));
    for args in [
        vec!["--author", "Loyd"],
        vec!["--author", "Loy[d]"],
        vec!["Schwalbe"],
        vec!["Schwalb[e]"],
        vec!["-F", "S:t"],
        vec!["-c", "Nobody at all"],
        vec!["-v", "-c", "--comment", "x3a"],
        vec!["-i", "loyd"],
        vec![""],
    ] {
        for threads in ["1", "2", "3"] {
            let out = dir
                .command("pbi-grep")
                .args(["-j", threads])
                .args(&args)
                .arg(&big)
                .run();
            assert_eq!(out.code, 2, "{args:?}");
            let got = out.err().replace("pbi-grep: ", "");
            assert!(got == want, "{args:?} -j {threads}");
        }
    }
}

#[test]
fn plain_strings_select_what_regexes_select() {
    let dir = Dir::new("plain-and-regex");
    // About 1.5 MB, with escapes, short lines and every line end; in
    // every third LF line, Loyd and Schwalbe are written with an escape.
    let lines: Vec<Vec<u8>> = large_collection(23, 10_000)
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| match i % 3 {
            0 => line
                .replace("Loyd", r"Lo\x79d")
                .replace("Schwalbe", r"Schw\x61lbe"),
            _ => line.to_vec(),
        })
        .collect();
    let text = lines.join(&b'\n');
    assert!(
        text.find(r"Lo\x79d").is_some() && text.find(r"Schw\x61lbe").is_some()
    );
    let big = dir.create("big.pbi", text);
    for (plain, regex) in [
        (vec!["--author", "Loyd"], vec!["--author", "L[o]yd"]),
        (vec!["Schwalbe"], vec!["Schwalb[e]"]),
        (
            vec!["--source", "1858", "--stip", "#2"],
            vec!["--source", "185[8]", "--stip", "#2"],
        ),
        (vec!["-F", "--comment", "a.b"], vec!["--comment", "a\\.b"]),
    ] {
        for threads in ["1", "2"] {
            let run = |args: &[&str]| {
                let out = dir
                    .command("pbi-grep")
                    .args(["-j", threads])
                    .args(args)
                    .arg(&big)
                    .run();
                (out.code, out.stdout)
            };
            assert!(run(&plain) == run(&regex), "{plain:?} -j {threads}");
        }
    }
}

/// `-l` and `-L` write the names of the inputs with and without a
/// selected record, as grep's; the exit status is 0 when a name is
/// written (issue 16).
#[test]
fn files_with_and_without_a_selected_record() {
    let dir = Dir::new("files-with");
    dir.create("a.pbi", collection(&RECORDS[..2]));
    dir.create("b.pbi", collection(&RECORDS[2..]));
    dir.create("not.pbi", "plain text\n");
    let run = |args: &[&str]| {
        let out = dir
            .command("pbi-grep")
            .args(args)
            .args(["a.pbi", "-", "not.pbi", "b.pbi", "missing.pbi"])
            .stdin(collection(&RECORDS[4..5]))
            .run()
            .code(2)
            .says("pbi-grep: not.pbi:1: not a PBI file\n")
            .says("pbi-grep: missing.pbi: no such file or directory\n");
        out.out()
    };
    assert_eq!(run(&["-l", "Loyd"]), "a.pbi\n");
    assert_eq!(run(&["-l", "--stip", "="]), "<stdin>\nb.pbi\n");
    assert_eq!(run(&["-l", "-i", "schwalbe"]), "a.pbi\nb.pbi\n");
    // Only PBI inputs are listed as without.
    assert_eq!(run(&["-L", "Loyd"]), "<stdin>\nb.pbi\n");
    // The last of -l and -L counts.
    assert_eq!(run(&["-L", "-l", "Kling"]), "b.pbi\n");
    assert_eq!(run(&["-l", "-L", "Kling"]), "a.pbi\n<stdin>\n");
    let code = |args: &[&str]| {
        dir.command("pbi-grep").args(args).args(["a.pbi", "b.pbi"]).run().code
    };
    assert_eq!((code(&["-l", "Loyd"]), code(&["-l", "Nobody"])), (0, 1));
    assert_eq!((code(&["-L", "Loyd"]), code(&["-L", "e"])), (0, 1));
    // A name is written byte for byte, for xargs.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"odd\xff name.pbi");
        std::fs::write(dir.path("").join(name), all()).unwrap();
        let out = dir.command("pbi-grep").args(["-l", "Loyd"]).arg(name).run();
        assert_eq!(out.code(0).stdout, b"odd\xff name.pbi\n");
    }
    // -l reads no further in an input once it has a record, also when
    // threads find it past the first batch.
    let mut big = large_collection(16, 20_000).replace("Loyd", "Lloyd");
    big.extend_from_slice(RECORDS[0].as_bytes());
    big.push(b'\n');
    dir.create("big.pbi", &big);
    dir.create("early.pbi", big.replacen("Lloyd", "Loyd", 1));
    for threads in ["1", "2"] {
        let out = dir
            .command("pbi-grep")
            .args(["-l", "-j", threads, "Loyd", "big.pbi", "a.pbi"])
            .run()
            .code(2);
        assert_eq!(out.out(), "big.pbi\na.pbi\n");
        let out = dir
            .command("pbi-grep")
            .args(["-l", "-j", threads, "Loyd", "early.pbi"])
            .run();
        // The first record is selected before any line is reported.
        assert_eq!(out.code(0).quiet().out(), "early.pbi\n");
    }
}

/// `-m NUM` stops after NUM selected records, over all inputs: nothing
/// after the NUM-th is read, reported or opened (issue 16).
#[test]
fn max_count_stops_after_num_records() {
    let dir = Dir::new("max-count");
    dir.create("a.pbi", all());
    let out = dir
        .command("pbi-grep")
        .args(["-m", "2", "-e", "Loyd", "a.pbi", "missing.pbi"])
        .run()
        .code(0)
        .quiet();
    assert_eq!(selected(&out.out()), RECORDS[..2]);
    assert!(out.out().starts_with(HEADER));
    let out = dir
        .command("pbi-grep")
        .args(["-c", "-m", "3", "", "a.pbi", "a.pbi"])
        .run();
    assert_eq!(out.code(0).out(), "3\n");
    // Over all inputs: the two of stdin, then the first of a.pbi.
    let out = dir
        .command("pbi-grep")
        .args(["-m", "3", "Loyd", "-", "a.pbi"])
        .stdin(all())
        .run();
    assert_eq!(
        selected(&out.code(0).out()),
        [RECORDS[0], RECORDS[1], RECORDS[0]]
    );
    // -m 0 selects nothing: the output is the header alone (review F4 on
    // 2874efb: it was empty, which pbi2csv took for no PBI file).
    let out = dir.command("pbi-grep").args(["-m", "0", "", "a.pbi"]).run();
    assert_eq!(out.code(1).quiet().out(), HEADER);
    let out = dir
        .command("pbi-grep")
        .args(["-m", "0", "", "missing.pbi", "a.pbi", "missing.pbi"])
        .run()
        .code(2);
    assert_eq!(out.out(), HEADER);
    assert_eq!(out.err().lines().count(), 1, "the first missing file alone");
    let csv = dir.command("pbi2csv").stdin(HEADER).run().code(0).quiet();
    assert_eq!(csv.out().lines().count(), 1, "the CSV header alone");
    let out =
        dir.command("pbi-grep").args(["-c", "-m", "0", "", "a.pbi"]).run();
    assert_eq!(out.code(1).quiet().out(), "0\n");
    // A bad line after the last record wanted is not read; one before is.
    let mut bad = collection(&RECORDS[..1]);
    bad.push_str("short:line\n");
    bad.push_str(&RECORDS[1..].join("\n"));
    bad.push('\n');
    bad.push_str("another:short\n");
    dir.create("bad.pbi", &bad);
    let out =
        dir.command("pbi-grep").args(["-m", "2", "Loyd", "bad.pbi"]).run();
    assert_eq!(
        out.code(2).err(),
        "pbi-grep: bad.pbi:4: expected 9 fields, found 2\n"
    );
    // -m 0 reads no data line, the header's blank lines yes.
    let blank = format!("{HEADER}  \n# more\nshort:line\n");
    let out =
        dir.command("pbi-grep").args(["-m", "0", ""]).stdin(&blank).run();
    let out = out.code(1);
    assert_eq!(out.out(), format!("{HEADER}# more\n"));
    assert_eq!(
        out.err(),
        "pbi-grep: <stdin>:3: warning: blank line skipped\n"
    );
    // Past the first batch, -m still stops at its record: its output is
    // the start of the whole output, with 1500 records.
    dir.create("big.pbi", large_collection(17, 20_000));
    let run = |args: &[&str]| dir.command("pbi-grep").args(args).run();
    let all_of = run(&["-j", "2", "Loyd", "big.pbi"]).stdout;
    let first = run(&["-j", "2", "-m", "1500", "Loyd", "big.pbi"]).stdout;
    assert!(all_of.len() > first.len() && all_of.starts_with(&first));
    dir.create("first.pbi", &first);
    assert_eq!(run(&["-c", "", "first.pbi"]).out(), "1500\n");
    dir.command("pbi-grep")
        .args(["-m", "x", "Loyd"])
        .run()
        .code(2)
        .says("pbi-grep: -m/--max-count: expected a whole number of records, got 'x'\n");
}

/// `-q` exits 0 at the first record selected, before a later input that
/// is missing is opened, as `grep -q` does (issue 16).
#[test]
fn quiet_stops_before_a_missing_input() {
    let dir = Dir::new("quiet-missing");
    dir.create("a.pbi", all());
    let run = |args: &[&str]| dir.command("pbi-grep").args(args).run();
    run(&["-q", "Loyd", "a.pbi", "missing.pbi"]).code(0).quiet();
    run(&["-q", "Nobody", "a.pbi", "missing.pbi"])
        .code(2)
        .says("missing.pbi: no such file or directory");
    run(&["-q", "Loyd", "missing.pbi", "a.pbi"])
        .code(2)
        .says("missing.pbi: no such file or directory");
}

/// `-w`: the match is a whole word; `-x`: it is a whole text (an author,
/// a subfield, a field). Both keep the plain-string search away, which
/// would find the string anywhere (issue 16).
#[test]
fn whole_words_and_whole_texts() {
    let dir = Dir::new("word-text");
    assert_eq!(count(&dir, &["Sam"]), 2);
    assert_eq!(count(&dir, &["-w", "Sam"]), 0);
    assert_eq!(count(&dir, &["-w", "Samuel"]), 2);
    assert_eq!(count(&dir, &["-w", "-F", "Loyd,"]), 2);
    assert_eq!(count(&dir, &["-w", "Chess"]), 4);
    assert_eq!(count(&dir, &["-w", "--source", "Chess"]), 4);
    assert_eq!(count(&dir, &["-w", "Ches"]), 0);
    assert_eq!(count(&dir, &["-w", "-i", "árvíztűrő"]), 1);
    assert_eq!(count(&dir, &["-w", "tükör"]), 0, "not a word of its own");
    assert_eq!(count(&dir, &["--author", "Loyd"]), 2);
    assert_eq!(count(&dir, &["-x", "--author", "Loyd"]), 0);
    assert_eq!(count(&dir, &["-x", "--author", "Loyd, Samuel"]), 2);
    assert_eq!(count(&dir, &["-x", "--author", "S:t John"]), 1, "decoded");
    assert_eq!(count(&dir, &["-x", "--source", "Chess Monthly"]), 2);
    assert_eq!(count(&dir, &["-x", "--source", "193."]), 2);
    assert_eq!(count(&dir, &["-x", "-F", "--source", "193."]), 0);
    assert_eq!(count(&dir, &["-x", "#2"]), 3, "h#2 is not #2");
    assert_eq!(count(&dir, &["-x", "-w", "#2"]), 3, "-x wins");
    assert_eq!(count(&dir, &["-x", "-v", "#2"]), 3);
}

/// Inputs of PBI 1.1 and 1.2 merged: the marker written is one every
/// record is valid under, 1.2 (a 1.1 record is a valid 1.2 record, not
/// the other way round); alone, or with 1.1 files only, a 1.1 file
/// keeps its marker (issue 16).
#[test]
fn merged_versions_get_a_marker_all_records_are_valid_under() {
    let dir = Dir::new("versions");
    let old = "\u{feff}#PBI 1.1\r\n# old\r\nKling, Josef:8/8/8/8/8/8/8/K1k5:#2::::::\r\n";
    dir.create("old.pbi", old);
    dir.create("old2.pbi", old.replace("Kling", "Loyd"));
    dir.create("new.pbi", all());
    let obsolete = old.replace("1.1", "1.0");
    dir.create("obsolete.pbi", &obsolete);
    let run = |args: &[&str]| dir.command("pbi-grep").args(args).run().out();
    assert_eq!(run(&["", "old.pbi"]), old);
    assert_eq!(
        run(&["", "old.pbi", "old2.pbi"]),
        format!("{old}Loyd, Josef:8/8/8/8/8/8/8/K1k5:#2::::::\r\n")
    );
    let merged = run(&["", "old.pbi", "new.pbi"]);
    assert!(
        merged.starts_with("\u{feff}#PBI 1.2\r\n# old\r\nKling"),
        "{merged}"
    );
    assert_eq!(selected(&merged).len(), 7);
    // The version that decides is the inputs', not the records selected.
    assert!(run(&["Kling", "old.pbi", "new.pbi"])
        .starts_with("\u{feff}#PBI 1.2\r\n"));
    assert!(run(&["", "obsolete.pbi", "new.pbi"])
        .starts_with("\u{feff}#PBI 1.2\r\n"));
    assert!(run(&["", "obsolete.pbi", "old.pbi"])
        .starts_with("\u{feff}#PBI 1.0\r\n"));
    // A 1.2 first input keeps its marker; a missing or non-PBI later
    // input changes nothing.
    assert!(run(&["", "new.pbi", "old.pbi"]).starts_with(HEADER));
    assert!(run(&["", "old.pbi", "missing.pbi"])
        .starts_with("\u{feff}#PBI 1.1\r\n"));
    // Standard input, which cannot be read ahead, may be 1.2.
    let out =
        dir.command("pbi-grep").args(["", "old.pbi", "-"]).stdin(old).run();
    assert!(out.out().starts_with("\u{feff}#PBI 1.2\r\n"));
    let out =
        dir.command("pbi-grep").args(["", "-", "old2.pbi"]).stdin(old).run();
    assert!(out.out().starts_with("\u{feff}#PBI 1.1\r\n"));
    // With --strict, an input it skips adds no version.
    dir.create("nobom.pbi", all().trim_start_matches('\u{feff}'));
    let out = dir
        .command("pbi-grep")
        .args(["--strict", "", "old.pbi", "nobom.pbi"])
        .run();
    assert!(out.out().starts_with("\u{feff}#PBI 1.1\r\n"), "{}", out.out());
}

#[test]
fn a_selected_data_line_that_starts_with_hash_stays_a_record() {
    // Found by a review of the PBI tools (helper 35): after the first
    // data line, a line that starts with `#` is a data line (FORMATS.md,
    // PBI 2); selected first, it came right after the marker in the
    // output, where it reads as a comment line, and `pbi-grep | pbi2csv`
    // lost it with no message. Its `#` is written `\x23` now, which reads
    // as the same record; a `#` line after the first one written stays
    // as it is.
    let dir = Dir::new("pbi-grep-hash-line");
    let hash = "#B, Hans:8/8/8/8/8/8/8/K6k:#2::::::";
    let later = "#C:8/8/8/8/8/8/8/K6k:#3::::::";
    let input =
        format!("{HEADER}A:8/8/8/8/8/8/8/K6k:#2::::::\n{hash}\n{later}\n");
    // Past the first batch too, where the workers read (-j2): the two
    // lines after 400 KB of records that are not selected.
    let filler = "Filler, Fritz:8/8/8/8/8/8/8/K6k:#5::::::\n".repeat(10_000);
    let big = format!("{HEADER}{filler}{hash}\n{later}\n");
    let escaped = format!("\\x23{}", &hash[1..]);
    for (name, text) in [("small.pbi", &input), ("big.pbi", &big)] {
        let file = dir.create(name, text);
        for threads in ["1", "2"] {
            let out = dir
                .command("pbi-grep")
                .args(["-j", threads, "--stip", "^#[23]$", "--author", "^#"])
                .arg(&file)
                .run();
            let out = out.code(0).out();
            let data: Vec<&str> = out.lines().skip(2).collect();
            assert_eq!(data, [escaped.as_str(), later], "{name} -j{threads}");
            // Read back: the records' authors, as in the input.
            let authors = dir
                .command("pbi2csv")
                .args(["-c", "authors"])
                .stdin(out)
                .run()
                .code(0)
                .out();
            assert_eq!(authors, "authors\n\"#B, Hans\"\n#C\n", "{name}");
        }
    }
}
