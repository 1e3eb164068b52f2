//! Command-line tests of kpgn-check (issue 14): the seed's game, the
//! refereed ks-game corpus unfiltered and as each player saw it, the exit
//! statuses, -v, -c and -q, threads, usage and the man page. Faults of
//! every kind planted in generated games are in `kpgn_check_faults`.

use std::fs;

use crate::util::{first_line_then_close, repo_file, Dir};

const TOOL: &str = "kpgn-check";

fn data(name: &str) -> String {
    let path = repo_file(&format!("tests/data/kpgn/{name}"));
    fs::read_to_string(path).expect("read test data")
}

/// The seed's unfiltered game passes, written as it came, with one
/// warning: the attempt e7 of a black pawn (FORMATS.md, point 9); with
/// `--strict` that warning fails it.
#[test]
fn the_seed_game_passes_with_one_warning() {
    let dir = Dir::new("kpgn-check-seed");
    let seed = data("seed-unfiltered.pgn");
    let out = dir.command(TOOL).stdin(&seed).run().code(0);
    assert_eq!(out.out(), seed);
    assert_eq!(
        out.err(),
        "kpgn-check: <stdin>:14: warning: game 1, 2... fxe5: the attempt e7 \
         is impossible even on black's own men\n"
    );
    let out = dir.command(TOOL).arg("--strict").stdin(&seed).run().code(2);
    assert_eq!(out.out(), "");
    assert_eq!(out.err().lines().count(), 1, "{}", out.err());
    assert!(out.err().contains(":14: game 1, 2... fxe5: the attempt e7"));
}

/// The seed's filtered views (FORMATS.md point 12, filtered records):
/// White's, Black's and the problem of 8 plies pass as they are.
#[test]
fn the_seed_views_pass() {
    let dir = Dir::new("kpgn-check-views");
    for name in ["seed-white.pgn", "seed-black-plies8.pgn", "seed-black.pgn"] {
        let view = data(name);
        let out = dir.command(TOOL).stdin(&view).run().code(0);
        assert_eq!(out.out(), view, "{name}");
    }
}

/// Every one of the 3,000 games that ks-game refereed passes, written
/// byte for byte; and so does each as White and as Black saw it, through
/// kpgn-filter.
#[test]
fn every_refereed_game_passes_unfiltered_and_filtered() {
    let dir = Dir::new("kpgn-check-ksgame");
    let corpus = repo_file("tests/data/kpgn/ksgame.pgn");
    let input = fs::read(&corpus).unwrap();
    let out = dir.command(TOOL).arg(&corpus).run().code(0).quiet();
    assert!(out.stdout == input, "the games are not written as they came");
    let count = dir.command(TOOL).arg("-c").arg(&corpus).stdout();
    assert_eq!(count, "3000\n");
    for side in ["-w", "-b"] {
        let view = dir.command("kpgn-filter").arg(side).arg(&corpus).stdout();
        assert_eq!(view.matches("[Filtered ").count(), 3000);
        let out = dir.command(TOOL).arg("-c").stdin(&view).run();
        assert_eq!(out.code(0).quiet().out(), "3000\n", "{side}");
    }
}

const GOOD: &str = "[Event \"good\"]\n\n1. e4 {(:)} e5 {(:)} 2. Qh5 {(:)} \
    Nc6 {(:)} 3. Bc4 {(:)} Nf6 {(:f6)} 4. Qxf7# {(Xf7,CS:)} 1-0\n\n";

/// A bad game among good ones: reported at its line with its number and
/// move, left out; `-v` writes it alone, `-c` counts, `-q` is silent, and
/// the exit status is 2.
#[test]
fn a_bad_game_among_good_ones() {
    let bad = "[Event \"bad\"]\n\n1. e4 {(:)} e5 {(:)}\n2. Ke3 {(:)} *\n\n";
    let input = format!("{GOOD}{GOOD}{bad}{GOOD}");
    let dir = Dir::new("kpgn-check-bad");
    dir.create("in.pgn", &input);
    let message = "kpgn-check: in.pgn:12: game 3, 2. Ke3: illegal: the king \
        on e1 cannot reach e3\n";
    let out = dir.command(TOOL).arg("in.pgn").run().code(2);
    assert_eq!(out.out(), GOOD.repeat(3));
    assert_eq!(out.err(), message);
    let out = dir.command(TOOL).args(["-v", "in.pgn"]).run().code(2);
    assert_eq!(out.out(), bad);
    assert_eq!(out.err(), message);
    let out = dir.command(TOOL).args(["-c", "in.pgn"]).run().code(2);
    assert_eq!(out.out(), "3\n");
    let out = dir.command(TOOL).args(["-c", "-v", "in.pgn"]).run().code(2);
    assert_eq!(out.out(), "1\n");
    let out = dir.command(TOOL).args(["-q", "in.pgn"]).run().code(2);
    assert_eq!(out.out(), "");
    assert_eq!(out.err(), message);
    // Good games only: 0, and -q writes nothing.
    let out = dir.command(TOOL).arg("-q").stdin(GOOD.repeat(2)).run();
    assert_eq!(out.code(0).quiet().out(), "");
}

/// What the referee checks beyond legality, each at its line: the check
/// mark, the announcements, an attempt that was legal, the result.
#[test]
fn marks_announcements_attempts_and_results() {
    let dir = Dir::new("kpgn-check-kinds");
    let cases = [
        (
            "4. Qxf7# {(Xf7,CS:)} 1-0",
            "4. Qxf7 {(Xf7,CS:)} 1-0",
            "it mates: write #",
        ),
        (
            "4. Qxf7# {(Xf7,CS:)} 1-0",
            "4. Qxf7# {(Xf7,CF:)} 1-0",
            "announced Xf7,CF, but the move produced Xf7,CS",
        ),
        (
            "4. Qxf7# {(Xf7,CS:)} 1-0",
            "4. Qxf7# {(Xf6,CS:)} 1-0",
            "announced Xf6,CS, but the move produced Xf7,CS",
        ),
        ("Nf6 {(:f6)}", "Nf6 {(:f6,Ke7)}", "the attempt Ke7 is legal"),
        ("4. Qxf7# {(Xf7,CS:)} 1-0", "4. Qxf7# {(Xf7,CS:)} 1/2-1/2", "result"),
    ];
    for (from, to, says) in cases {
        let game = GOOD.replace(from, to);
        assert_ne!(game, GOOD);
        let out = dir.command(TOOL).stdin(&game).run().code(2);
        assert_eq!(out.out(), "", "{to}");
        let err = out.err();
        assert!(err.starts_with("kpgn-check: <stdin>:3: game 1, "), "{err}");
        assert!(err.contains(says), "{to}: {err}");
    }
}

/// A filtered view: the opponent's hidden move may take one of the
/// player's men, never the king (found by a hostile-input review: the
/// capture of White's king on e1 passed, and White played on).
#[test]
fn a_hidden_move_never_takes_the_king() {
    let dir = Dir::new("kpgn-check-king");
    let cases = [
        (
            "[Filtered \"white\"]\n\n1. e4 {(:)} ?? {(Xe1:0)} 2. Qe2 {(:)} *\n",
            "1... ??: a capture announced on e1, where white's king stands",
        ),
        (
            "[Filtered \"black\"]\n\n1. ?? {(Xe8:0)} e5 {(:)} *\n",
            "1. ??: a capture announced on e8, where black's king stands",
        ),
    ];
    for (game, says) in cases {
        let out = dir.command(TOOL).stdin(game).run().code(2);
        assert_eq!(out.out(), "", "{game}");
        out.says(&format!("kpgn-check: <stdin>:3: game 1, {says}"));
        // The same capture on a man that is not the king is possible.
        let queen = game.replace("Xe1", "Xd1").replace("Xe8", "Xd8");
        let queen = queen.replace("Qe2", "Ke2");
        dir.command(TOOL).stdin(&queen[..]).run().code(0);
    }
}

#[test]
fn no_game_exits_1() {
    let dir = Dir::new("kpgn-check-none");
    dir.command(TOOL).run().code(1).quiet();
    let out = dir.command(TOOL).stdin("\n\n%escape\n").run().code(1).quiet();
    assert_eq!(out.out(), "");
    let out = dir.command(TOOL).arg("-c").run().code(1).quiet();
    assert_eq!(out.out(), "0\n");
}

#[test]
fn a_missing_input_is_an_error_and_the_others_are_read() {
    let dir = Dir::new("kpgn-check-missing");
    dir.create("good.pgn", GOOD);
    let out = dir.command(TOOL).args(["nope.pgn", "good.pgn"]).run().code(2);
    assert_eq!(out.out(), GOOD);
    assert!(out.err().starts_with("kpgn-check: nope.pgn: "), "{}", out.err());
}

/// An input of many batches with faults among the games, on one thread
/// and on several: the same bytes out, the same messages, the games
/// numbered in the input (not in their batch).
#[test]
fn threads_give_what_one_thread_gives() {
    let corpus = data("ksgame.pgn");
    let mut games: Vec<String> =
        corpus.split_inclusive("\n\n[Event").map(String::from).collect();
    assert_eq!(games.len(), 3000);
    for k in [1234, 2998] {
        // Each game starts with its tags; a knight move that no knight can
        // make, at the start of the movetext.
        let game = &mut games[k - 1];
        let at = game.find("\n\n1. ").unwrap() + 2;
        game.replace_range(at..at + 3, "1. Nd4 {(:)} ");
    }
    let input = games.concat();
    assert!(input.len() > 12 * 256 * 1024);
    let dir = Dir::new("kpgn-check-threads");
    dir.create("in.pgn", &input);
    let one = dir.command(TOOL).args(["-j", "1", "in.pgn"]).run().code(2);
    let err = one.err();
    assert!(err.contains(": game 1234, 1. Nd4: "), "{err}");
    assert!(err.contains(": game 2998, 1. Nd4: "), "{err}");
    for threads in ["2", "3"] {
        let many =
            dir.command(TOOL).args(["-j", threads, "in.pgn"]).run().code(2);
        assert!(many.stdout == one.stdout, "-j {threads}: other output");
        assert_eq!(many.err(), err, "-j {threads}");
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = Dir::new("kpgn-check-pipe");
    let path = dir.create("big.pgn", GOOD.repeat(30_000));
    let (first, out) = first_line_then_close(TOOL, [path.as_os_str()]);
    assert_eq!(first, "[Event \"good\"]\n");
    out.code(0).quiet();
}

#[test]
fn help_version_usage_and_the_man_page() {
    let dir = Dir::new("kpgn-check-usage");
    let help = dir.command(TOOL).arg("--help").stdout();
    let page = fs::read_to_string(repo_file("man/kpgn-check.1")).unwrap();
    for (long, short) in [
        ("--invert-match", "-v"),
        ("--count", "-c"),
        ("--quiet", "-q"),
        ("--threads", "-j"),
        ("--strict", ""),
    ] {
        assert!(help.contains(long), "--help lacks {long}");
        let mdoc = format!("Fl {}", &long[1..]);
        assert!(page.contains(&mdoc), "the man page lacks {long}");
        if !short.is_empty() {
            assert!(help.contains(&format!("{short}, {long}")), "{short}");
            let mdoc = format!("Fl {} , Fl {}", &short[1..], &long[1..]);
            assert!(page.contains(&mdoc), "the man page lacks {short}");
        }
    }
    let version = dir.command(TOOL).arg("-V").stdout();
    assert_eq!(version, format!("kpgn-check {}\n", env!("CARGO_PKG_VERSION")));
    dir.command(TOOL).arg("--frobnicate").run().code(2).says(
        "kpgn-check: invalid option '--frobnicate'\n\
         Try 'kpgn-check --help' for more information.",
    );
}
