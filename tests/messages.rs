//! Messages (issue 16): a regex error names its option and shows the
//! pattern; a write error says what failed; control characters of the
//! input and of file names are shown escaped; a line with thousands of
//! bad items gives one warning per kind; every message in the house
//! style.

use std::ffi::OsStr;

use crate::util::{Dir, Output};

/// Panics unless every line of stderr is a message of `tool` in the house
/// style (`tool: ...`, lowercase after the place it names, no final
/// period), but for the usage hint after a usage error.
fn house_style(tool: &str, out: &Output) {
    for line in out.err().lines() {
        if line == format!("Try '{tool} --help' for more information.") {
            continue;
        }
        let text =
            line.strip_prefix(&format!("{tool}: ")).unwrap_or_else(|| {
                panic!("{}: not {tool}'s: {line:?}", out.shown)
            });
        // After `FILE:LINE: ` or `FILE: ` (a name with no space in it).
        let text = match text.split_once(": ") {
            Some((place, rest)) if !place.contains(' ') => rest,
            _ => text,
        };
        let text = text.strip_prefix("warning: ").unwrap_or(text);
        // A word in capitals (PBI, PATTERN) is no capital letter.
        let word = text.split([' ', '\'']).next().unwrap_or("");
        let capitals = word.len() > 1 && !word.chars().any(char::is_lowercase);
        let first = text.chars().next().unwrap_or('x');
        assert!(capitals || !first.is_uppercase(), "{}: {line:?}", out.shown);
        assert!(!text.ends_with('.'), "{}: {line:?}", out.shown);
    }
}

#[test]
fn a_regex_error_names_the_option_and_shows_the_pattern() {
    let dir = Dir::new("messages-regex");
    for (args, said) in [
        (&["-e", "("][..], "-e '(': not a valid regex: unclosed group"),
        (
            &["--author", "["][..],
            "--author '[': not a valid regex: unclosed character class",
        ),
        (&["("][..], "PATTERN '(': not a valid regex: unclosed group"),
        (
            &["-e", "ok", "-e", "a)"][..],
            "-e 'a)': not a valid regex: unopened group",
        ),
        (
            &["--stip", "#2", "--stip", "\x1b\x07("][..],
            "--stip '\\x1b\\x07(': not a valid regex: unclosed group",
        ),
    ] {
        let out = dir.command("pbi-grep").args(args).stdin("").run().code(2);
        let want = format!(
            "pbi-grep: {said}\nTry 'pbi-grep --help' for more information.\n"
        );
        assert_eq!(out.err(), want, "{}", out.shown);
        house_style("pbi-grep", &out);
    }
}

/// `> /dev/full`: every tool says that writing to stdout failed, and
/// why; so do `--help` and `--version`.
#[test]
fn a_write_error_says_what_failed() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let dir = Dir::new("messages-full");
    let pbi = "\u{feff}#PBI 1.2\nLoyd, Samuel:8/8/8/8/8/8/8/K1k5:#2:::::!:\n";
    let pgn = "[Event \"x\"]\n[Result \"*\"]\n\n*\n\n";
    dir.create("c.pbi", pbi);
    dir.create("c.csv", "authors,position\nLoyd,8/8/8/8/8/8/8/K1k5\n");
    dir.create("g.pgn", pgn);
    let full = || std::fs::File::create("/dev/full").unwrap();
    for (tool, args) in [
        ("pbi2csv", &["c.pbi"][..]),
        ("pbi-grep", &["Loyd", "c.pbi"][..]),
        ("gbr-encode", &["c.pbi"][..]),
        ("kpgn-filter", &["-w", "g.pgn"][..]),
        ("kpgn-check", &["g.pgn"][..]),
        ("csv2pbi", &["c.csv"][..]),
        ("pbi2csv", &["--help"][..]),
        ("pbi-grep", &["--version"][..]),
        ("kpgn-check", &["-h"][..]),
    ] {
        let out = dir.command(tool).args(args).stdout_to(full()).run();
        let out = out.code(2);
        let want = format!("{tool}: stdout: no space left on device\n");
        assert_eq!(out.err(), want, "{}", out.shown);
    }
    let out = dir.command("pbi2csv").args(["-o", "/dev/full", "c.pbi"]).run();
    let want = "pbi2csv: /dev/full: no space left on device\n";
    assert_eq!(out.code(2).err(), want);
}

/// No byte of the input or of a file name can drive the terminal or
/// forge a message line: control characters are shown as `\xHH`.
#[test]
fn control_characters_are_shown_escaped() {
    let dir = Dir::new("messages-control");
    let name = "no\x1b[2Jsuch\nx.pbi:1: forged";
    let out = dir.command("pbi2csv").arg(name).run().code(2);
    let want = "pbi2csv: no\\x1b[2Jsuch\\x0ax.pbi:1: forged: \
                no such file or directory\n";
    assert_eq!(out.err(), want);
    // In the input: a status and a bad escape, each quoted.
    let pbi =
        "\u{feff}#PBI 1.2\nA:8/8/8/8/8/8/8/K1k5:#2:::::\x1b[31m:\\\x07x\n";
    let out = dir.command("pbi2csv").stdin(pbi).run();
    let err = out.err();
    assert!(!err.contains(['\x1b', '\x07']), "{err:?}");
    assert!(err.contains("'\\x1b[31m'"), "{err:?}");
    assert!(err.contains("'\\\\x07x'"), "{err:?}");
    assert_eq!(err.lines().count(), 2, "{err:?}");
    house_style("pbi2csv", &out);
    // In an option's value.
    let out = dir.command("pbi2csv").args(["-c", "a\x1bb\nc"]).run().code(2);
    assert!(out
        .err()
        .starts_with("pbi2csv: -c/--columns: unknown column 'a\\x1bb\\x0ac'"));
    assert_eq!(out.err().lines().count(), 2, "{}", out.err());
    // A file that is read: its name in every message about it.
    let name = "bad\x1bname.pbi";
    dir.create(name, "not pbi\n");
    let out = dir.command("pbi-grep").args(["x", name]).run().code(2);
    assert_eq!(out.err(), "pbi-grep: bad\\x1bname.pbi:1: not a PBI file\n");
}

/// One warning per kind for a line with thousands of bad items (a line
/// with 100,000 bad references printed 100,000 warnings), in every tool
/// that reads PBI.
#[test]
fn a_line_of_many_bad_items_gives_one_warning_per_kind() {
    let dir = Dir::new("messages-many");
    let refs = vec!["a|b"; 100_000].join(";");
    let awards = vec!["1|2|3|4|5"; 1000].join(";");
    let pbi = format!(
        "\u{feff}#PBI 1.2\nA:8/8/8/8/8/8/8/K1k5:#2::{refs}:{awards}:::\n"
    );
    dir.create("many.pbi", &pbi);
    for (tool, args) in [
        ("pbi2csv", &[][..]),
        ("pbi-grep", &["-c", "A"][..]),
        ("gbr-encode", &[][..]),
    ] {
        let out = dir.command(tool).args(args).arg("many.pbi").run().code(0);
        let want = format!(
            "{tool}: many.pbi:2: warning: referenced source 1 has 2 \
             subfields, expected 4: the missing ones are empty (and 99999 \
             more)\n\
             {tool}: many.pbi:2: warning: award 1 has 5 subfields, expected \
             4: the rest belongs to the last (and 999 more)\n"
        );
        assert_eq!(out.err(), want, "{}", out.shown);
        house_style(tool, &out);
    }
}

/// The messages of malformed input in every tool, in the house style.
#[test]
fn messages_of_bad_input_are_in_the_house_style() {
    let dir = Dir::new("messages-style");
    dir.create("bad.xlsx", b"PK\x03\x04 not a zip archive at all");
    dir.create("bad.pgn", "[Event \"x\"]\n[White \"a\"]\n\n1. e5 Zz9 *\n\n");
    dir.create("bad.pbi", "\u{feff}#PBI 1.2\nA:9/8:#2:|x:1|2:::QQ:?!x:\n");
    for (tool, args) in [
        ("csv2pbi", &["bad.xlsx"][..]),
        ("kpgn-filter", &["-w", "bad.pgn"][..]),
        ("kpgn-check", &["bad.pgn"][..]),
        ("pbi2csv", &["bad.pbi", "missing.pbi", "."][..]),
        ("gbr-encode", &["bad.pbi", "bad.pgn"][..]),
        ("pbi2csv", &["--no-such-option"][..]),
    ] {
        let out = dir.command(tool).args(args).run();
        assert!(!out.stderr.is_empty(), "{}", out.shown);
        house_style(tool, &out);
    }
}

/// Runs `tool` with `args` on `path` (which it maps, on two threads),
/// then `after`, and truncates `path` once the tool has written `lead`
/// bytes and waits on the full pipe: what it then reads of the file is
/// gone.
fn shrunk_while_read(
    tool: &str,
    args: &[&str],
    [path, after]: [&std::path::Path; 2],
    lead: usize,
) -> Output {
    use std::io::Read;
    let args = args.iter().map(OsStr::new);
    let args = args.chain([path.as_os_str(), after.as_os_str()]);
    let how = ", the file truncated as it runs";
    crate::util::while_running(tool, args, how, |mut stdout| {
        let mut first = vec![0; lead];
        stdout.read_exact(&mut first).expect("read the first bytes");
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(4096))
            .expect("truncate the input");
        let mut rest = vec![];
        stdout.read_to_end(&mut rest).expect("read the rest");
        rest
    })
}

#[test]
fn a_file_that_shrinks_while_mapped_is_a_read_error_not_a_crash() {
    // A read of a mapped page past a file's new end raises SIGBUS, which
    // ended the tool with "Bus error" and nothing said of the input, and
    // then (the handler ending the tool) left the inputs after it unread.
    let dir = Dir::new("shrinks");
    let game =
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 {(:)} e5 {(:Nf3) text} \
                2. Nf3 {(:)} Nc6 {(:)} *\n\n";
    let pgn = dir.create("games.pgn", game.repeat(400_000));
    let after_pgn = dir.create(
        "after.pgn",
        "[Event \"after\"]\n\n1. d4 {(:)} d5 {(:)} 2. c4 {(:)} *\n",
    );
    let sample = std::fs::read_to_string(crate::util::repo_file(
        "samples/problems.pbi",
    ))
    .expect("the sample collection");
    let (head, records): (Vec<&str>, Vec<&str>) =
        sample.lines().partition(|l| l.starts_with(['#', '\u{feff}']));
    let pbi =
        format!("{}\n{}", head[0], (records.join("\n") + "\n").repeat(2_000));
    let pbi = dir.create("problems.pbi", pbi);
    let after_pbi =
        dir.create("after.pbi", format!("{}\n{}\n", head[0], records[0]));
    for (tool, args, path, after, lead) in [
        // pbi2csv reads its first 256 KiB as a stream, then maps.
        ("kpgn-filter", ["-w", "-j2"], &pgn, &after_pgn, 1),
        ("pbi2csv", ["-j2", "--raw"], &pbi, &after_pbi, 1 << 20),
    ] {
        let out = shrunk_while_read(tool, &args, [path, after], lead).code(2);
        let says = format!(
            "{tool}: {}: read error: the file shrank while it was read",
            path.display()
        );
        assert!(out.err().starts_with(&says), "{}\n{}", out.shown, out.err());
        assert_eq!(out.err().lines().count(), 1, "{}", out.err());
        house_style(tool, &out);
        // The next input is read, and written whole.
        let header: &[&str] =
            if tool == "pbi2csv" { &["--no-header"] } else { &[] };
        let mut alone = dir.command(tool);
        let alone = alone.args(args).args(header).arg(after).run().code(0);
        let tail = &out.stdout[out.stdout.len().saturating_sub(300)..];
        assert!(
            out.stdout.ends_with(&alone.stdout),
            "{}: the input after it is not written whole: {}",
            out.shown,
            String::from_utf8_lossy(tail)
        );
    }
}
