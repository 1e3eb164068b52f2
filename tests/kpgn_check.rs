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

/// How the referee's end, as ks-game names it (`tests/data/kpgn/
/// endings.txt`), is told in kpgn-check's messages.
fn ending_text(how: &str) -> &'static str {
    match how {
        "DRAW_INSUFFICIENT" => "drawn by insufficient material",
        "DRAW_STALEMATE" => "in stalemate",
        _ => "in mate",
    }
}

/// Games that the Berkeley referee ended before their record does
/// (`tests/gen/ksgame_endings.py`: a capture or a promotion that leaves
/// each mix of men, a mate, stalemates), each with the move the referee
/// then refused, or ending there with each result. A move after the
/// referee's draw by insufficient material fails at that move, naming
/// the move that ended the game, as a move after a mate or a stalemate
/// does; a win (`1-0`, `0-1`) after the draw fails at the tag or the
/// marker; `1/2-1/2` and `*` pass, and so does every game where the
/// referee ended nothing.
#[test]
fn games_the_referee_ended() {
    let dir = Dir::new("kpgn-check-endings");
    let pgn = repo_file("tests/data/kpgn/endings.pgn");
    let out = dir.command(TOOL).arg(&pgn).run().code(2);
    let err = out.err();
    let (mut failing, mut passing) = (0, 0);
    for row in data("endings.txt").lines() {
        let [n, how, at, refused, result] =
            row.split('\t').collect::<Vec<_>>()[..]
        else {
            panic!("a row of five fields: {row}");
        };
        let game = format!(": game {n}, ");
        let says: Vec<&str> =
            err.lines().filter(|line| line.contains(&game)).collect();
        let ended = ending_text(how);
        let want = if refused != "-" {
            Some(format!(
                "{refused}: the game ended {ended} at {at}: no move can follow"
            ))
        } else if how == "DRAW_INSUFFICIENT"
            && (result == "1-0" || result == "0-1")
        {
            Some(format!(
                "result '{result}', but the game ended {ended} at {at}"
            ))
        } else if how == "DRAW_STALEMATE" && result != "1/2-1/2" {
            Some(format!("result '{result}', but the game ends in stalemate"))
        } else {
            None
        };
        match want {
            Some(want) => {
                failing += 1;
                assert_eq!(says.len(), 1, "game {n}: {err}");
                assert!(says[0].contains(&want), "game {n}: {want}: {err}");
            }
            None => {
                passing += 1;
                assert!(says.is_empty(), "game {n}: {err}");
            }
        }
    }
    assert_eq!(err.lines().count(), failing, "{err}");
    assert!(failing > 30 && passing > 50, "{failing} {passing}");
    let count = dir.command(TOOL).arg("-c").arg(&pgn).run().code(2);
    assert_eq!(count.out(), format!("{passing}\n"));
}

/// A FEN tag whose position already has too few men to mate: the game is
/// drawn before any move (as a mate or a stalemate there leaves no move
/// either). ks-game starts only from the standard position, so it has no
/// word on this; it would call the draw after the first move.
#[test]
fn a_fen_with_insufficient_material_is_drawn_already() {
    let dir = Dir::new("kpgn-check-fen-drawn");
    let game = "[Result \"1-0\"]\n[SetUp \"1\"]\n\
        [FEN \"4k3/8/8/8/8/8/8/4KB2 w - - 0 1\"]\n\n";
    let moves = format!("{game}1. Kd2 {{(:)}} 1-0\n");
    dir.command(TOOL).stdin(&moves).run().code(2).says(
        "kpgn-check: <stdin>:5: game 1, 1. Kd2: the game ended drawn by \
         insufficient material in the FEN tag's position: no move can follow",
    );
    let none = format!("{game}1-0\n");
    dir.command(TOOL).stdin(&none).run().code(2).says(
        "kpgn-check: <stdin>:1: game 1, result '1-0', but the game ended \
         drawn by insufficient material in the FEN tag's position",
    );
    let drawn = none.replace("1-0", "1/2-1/2");
    dir.command(TOOL).stdin(&drawn).run().code(0);
    // Filtered, the player cannot see the other side's men: not judged.
    let view = moves.replace("[Result", "[Filtered \"white\"]\n[Result");
    dir.command(TOOL).stdin(&view).run().code(0);
}

/// A move after a mate or a stalemate is told as such (found by a
/// review: it was "illegal: it would leave the white king in check, or
/// the square is taken"), on the path of comments written with spaces
/// too, and in a FEN tag's position; a FEN tag that is no legal position
/// is reported at its line (it was at the first move's).
#[test]
fn moves_after_the_end_and_a_fen_that_is_no_position() {
    let dir = Dir::new("kpgn-check-after-mate");
    let cases = [
        (
            "1. f3 {(:)} e5 {(:)} 2. g4 {(:)} Qh4# {(CS:)} 3. a3 {(:)} 0-1\n",
            "<stdin>:1: game 1, 3. a3: the game ended in mate at 2... Qh4#: \
             no move can follow",
        ),
        (
            "1. f3 { ( : ) } e5\n2. g4 {( :)} Qh4# { (CS : ) }\n3. a3 0-1\n",
            "<stdin>:3: game 1, 3. a3: the game ended in mate at 2... Qh4#: \
             no move can follow",
        ),
        (
            "[SetUp \"1\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\"]\n\n\
             1... Kg8 {(:)} 1/2-1/2\n",
            "<stdin>:4: game 1, 1... Kg8: the game ended in stalemate in the \
             FEN tag's position: no move can follow",
        ),
        (
            "[Event \"e\"]\n[SetUp \"1\"]\n\
             [FEN \"4k3/8/8/8/8/8/8/4KK2 w - - 0 1\"]\n\n1. Kd2 {(:)} *\n",
            "<stdin>:3: game 1, the FEN tag is no legal position: illegal \
             position: too many kings",
        ),
    ];
    for (game, says) in cases {
        let out = dir.command(TOOL).stdin(game).run().code(2);
        assert_eq!(out.err(), format!("kpgn-check: {says}\n"), "{game}");
    }
}

/// The Result tag and the termination marker must be the same (the PGN
/// standard, 8.1.1.7: the tag's value "is always exactly the same as the
/// game termination marker"), `*` included: a win with `*`, or `*` with
/// a win, is an error at the marker, naming both. kpgn-filter's prefixes
/// write `*` in both. A game without one of the two is not judged.
#[test]
fn the_result_tag_and_the_marker_agree() {
    let dir = Dir::new("kpgn-check-result-marker");
    let game = |tag: &str, marker: &str| {
        format!("[Result \"{tag}\"]\n\n1. e4 {{(:)}} e5 {{(:)}}\n{marker}\n")
    };
    for (tag, marker) in [("1-0", "0-1"), ("*", "1-0"), ("1/2-1/2", "*")] {
        let out = dir.command(TOOL).stdin(game(tag, marker)).run().code(2);
        assert_eq!(
            out.err(),
            format!(
                "kpgn-check: <stdin>:4: game 1, the Result tag says '{tag}', \
                 the termination marker '{marker}': they must be the same\n"
            )
        );
    }
    for result in ["1-0", "0-1", "1/2-1/2", "*"] {
        dir.command(TOOL).stdin(game(result, result)).run().code(0);
        // Without a marker (the game ends with the input), or a tag.
        dir.command(TOOL).stdin(game(result, "")).run().code(0);
        let bare = format!("1. e4 {{(:)}} e5 {{(:)}} {result}\n");
        dir.command(TOOL).stdin(bare).run().code(0);
    }
    // A prefix of a refereed game, as kpgn-filter cuts it, passes.
    let corpus = repo_file("tests/data/kpgn/ksgame.pgn");
    let cut = dir
        .command("kpgn-filter")
        .args(["-w", "--plies", "7"])
        .arg(&corpus)
        .stdout();
    let out = dir.command(TOOL).arg("-c").stdin(&cut).run();
    assert_eq!(out.code(0).quiet().out(), "3000\n");
}

/// A Rules or Variant tag that names rules other than Berkeley Kriegspiel
/// fails the game at the tag: the English ruleset of ks-game announces
/// en passant on the target square (`exd6 {(Xd6:)}`, which Berkeley
/// refuses), Wild 16 and "any?" ask other questions. The spellings of
/// Berkeley and of plain Kriegspiel pass; the seed's and the corpus's
/// `Kriegspiel (Berkeley)`, in either tag, pass in
/// `every_refereed_game_passes_unfiltered_and_filtered`.
#[test]
fn other_rules_are_not_refereed_as_berkeley() {
    let dir = Dir::new("kpgn-check-rules");
    let game = |tag: &str, value: &str| {
        format!(
            "[Event \"e\"]\n[{tag} \"{value}\"]\n[SetUp \"1\"]\n\
             [FEN \"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1\"]\n\n\
             1. exd6 {{(Xd5:)}} *\n"
        )
    };
    for value in [
        "Kriegspiel (Berkeley)",
        "kriegspiel (berkeley)",
        "Kriegspiel  (Berkeley) ",
        "Kriegspiel",
        "Berkeley",
        "Berkeley Kriegspiel",
        "?",
        "",
    ] {
        for tag in ["Rules", "Variant"] {
            dir.command(TOOL).stdin(game(tag, value)).run().code(0);
        }
    }
    for value in [
        "Kriegspiel (English)",
        "Kriegspiel (Wild 16)",
        "Kriegspiel (Berkeley + Any)",
        "Kriegspiel (Cincinnati)",
        "Crazyhouse",
        "Standard",
    ] {
        for tag in ["Rules", "Variant"] {
            let out = dir.command(TOOL).stdin(game(tag, value)).run().code(2);
            assert_eq!(
                out.err(),
                format!(
                    "kpgn-check: <stdin>:2: game 1, the {tag} tag says \
                     '{value}': kpgn-check referees Berkeley Kriegspiel \
                     only\n"
                )
            );
        }
    }
    // The review's game, right under the English rules: refused at the
    // tag, not with "the move produced Xd5".
    let english =
        game("Variant", "Kriegspiel (English)").replace("Xd5", "Xd6");
    dir.command(TOOL)
        .stdin(english)
        .run()
        .code(2)
        .says(":2: game 1, the Variant tag says 'Kriegspiel (English)'");
    // A filtered view too.
    let view = "[Rules \"Wild 16\"]\n[Filtered \"white\"]\n\n1. e4 {(:)} *\n";
    dir.command(TOOL)
        .stdin(view)
        .run()
        .code(2)
        .says("kpgn-check: <stdin>:1: game 1, the Rules tag says 'Wild 16'");
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

/// Records of a review of the referee (its truth from ks-game, the
/// Berkeley referee, and python-chess; on earlier builds each passed):
/// an attempt listed twice (ks-game refuses to be asked it again: a
/// warning, a fault with `--strict`), a count in place of the attempts,
/// and in filtered records what the player could see to be impossible:
/// a capture by a pawn's move along its file, an en passant capture from
/// a rank it cannot be made from, the move among its own attempts, a
/// double check of two codes of one kind, castling out of an announced
/// check, a man other than the king moving out of a double check.
#[test]
fn what_the_player_could_see_is_judged() {
    let dir = Dir::new("kpgn-check-review");
    let game = |tags: &str, moves: &str| {
        format!("[Event \"r\"]\n{tags}\n1. {moves} *\n")
    };
    let white = "[Filtered \"white\"]\n";
    let twice = game("", "e4 {(:dxe3,dxe3)}");
    let out = dir.command(TOOL).stdin(&twice).run().code(0);
    assert_eq!(out.out(), twice);
    assert_eq!(
        out.err(),
        "kpgn-check: <stdin>:3: warning: game 1, 1. e4: the attempt dxe3 is \
         listed twice: the referee lists a move tried once, and refuses to \
         be asked it again\n"
    );
    dir.command(TOOL).arg("--strict").stdin(&twice).run().code(2);
    // Written alike in the two ways a castling may be, and apart (both
    // nonsense too, with the bishop and knight between king and rook).
    let castled = game("", "e4 {(:O-O,0-0)}");
    let out = dir.command(TOOL).stdin(castled).run().code(0);
    assert!(out.err().contains("the attempt 0-0 is listed twice"));
    let apart = game("", "e4 {(:O-O,O-O-O)}");
    let out = dir.command(TOOL).stdin(apart).run().code(0);
    assert!(!out.err().contains("listed twice"), "{}", out.err());
    let cases = [
        (
            "",
            "e4 {(:2)} e5 {(:)}",
            "1. e4: a count of attempts (2) in a record not filtered",
        ),
        (
            white,
            "e4 {(:2)} ?? {(:0)}",
            "1. e4: a count of attempts (2) on the player's own move",
        ),
        (
            white,
            "e4 {(Xe4:)} ?? {(:0)}",
            "a pawn's move along its file takes nothing",
        ),
        (
            white,
            "e4 {(:)} ?? {(:0)} 2. exd5 {(Xd4:)} ?? {(:0)}",
            "2. exd5: a capture announced on d4, but the move goes to d5",
        ),
        (
            white,
            "e4 {(:e4)} ?? {(:0)}",
            "1. e4: the attempt e4 is the move played",
        ),
        (
            white,
            "e4 {(:)} ?? {(:0)} 2. d4 {(:)} ?? {(CN,CN:0)}",
            "2... ??: a double check announced with two C codes of one kind",
        ),
        ("", "e4 {(CL,CL:)} e5 {(:)}", "two C codes of one kind"),
    ];
    for (tags, moves, says) in cases {
        let out = dir.command(TOOL).stdin(game(tags, moves)).run().code(2);
        assert_eq!(out.out(), "", "{moves}");
        assert!(out.err().contains(says), "{moves}: {}", out.err());
    }
    for (name, says) in [
        ("view-castling-out-of-check.pgn", ":16: game 1, 14. O-O: castling out of the check announced"),
        ("view-double-check-not-king.pgn", ":18: game 1, 20. Nd2: only the king can move out of the double check announced"),
    ] {
        let out = dir.command(TOOL).stdin(data(name)).run().code(2);
        assert!(out.err().contains(says), "{name}: {}", out.err());
    }
}

/// A move that two of the player's men could make on their own men
/// (`Rd1` with rooks on a1 and h1) is chess SAN where the opponent's men
/// left one of them the move; a filtered record reads it both ways until
/// a later move rules one out (the view of a game that passed failed at
/// the next move of the other rook).
#[test]
fn a_move_two_men_could_make_is_read_both_ways() {
    let dir = Dir::new("kpgn-check-ambiguous");
    let game = |moves: &str| {
        format!(
            "[Event \"a\"]\n[SetUp \"1\"]\n[FEN \"6k1/8/8/8/8/8/4K3/Rn5R w - - 0 1\"]\n\n\
             1. Rd1 {{(:)}} Kh8 {{(:)}} 2. {moves} Kg8 {{(:)}} *\n"
        )
    };
    // The a1 rook, which only the reading the true position gives left
    // there, and the rook on d1, which either reading has.
    for second in ["Ra2 {(:)}", "Rd3 {(:)}"] {
        let record = game(second);
        dir.command(TOOL).stdin(&record).run().code(0).quiet();
        let view =
            dir.command("kpgn-filter").arg("-w").stdin(&record).stdout();
        let out = dir.command(TOOL).stdin(&view).run();
        assert_eq!(out.code(0).quiet().out(), view, "{second}");
    }
    // Possible in neither reading.
    let view =
        dir.command("kpgn-filter").arg("-w").stdin(game("Rg2 {(:)}")).stdout();
    let out = dir.command(TOOL).stdin(&view).run().code(2);
    assert!(
        out.err().contains("2. Rg2: impossible even on the player's own men"),
        "{}",
        out.err()
    );
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
