//! The Kriegspiel filter against FORMATS.md, Kriegspiel PGN points 1-11,
//! and against inputs a hostile user would write (issue 13).

use super::read::{BLOCK, OUT_BUFFER};
use super::*;

fn white() -> Config {
    Config { player: Side::White, plies: None, keep_comments: false }
}

fn black() -> Config {
    Config { player: Side::Black, plies: None, keep_comments: false }
}

/// The output, the messages (`line: message`, warnings marked) and
/// whether a game was read.
fn run(config: &Config, input: &str) -> (String, Vec<String>, bool) {
    let (mut out, mut report) = (vec![], vec![]);
    let any = filter_reader(config, input.as_bytes(), &mut out, &mut report)
        .unwrap();
    let messages = report
        .iter()
        .map(|d: &Diagnostic| {
            let kind = match d.severity {
                diag::Severity::Warning => "warning: ",
                diag::Severity::Error => "",
            };
            format!("{}: {kind}{}", d.line, d.message)
        })
        .collect();
    (String::from_utf8(out).unwrap(), messages, any)
}

/// The output of filtering `input`, which must give no message.
fn clean(config: &Config, input: &str) -> String {
    let (out, messages, _) = run(config, input);
    assert_eq!(messages, Vec::<String>::new(), "{input:?}");
    out
}

/// The single error of filtering `input`, which must write nothing.
fn refused(config: &Config, input: &str) -> String {
    let (out, messages, _) = run(config, input);
    assert_eq!(out, "", "{input:?} was written");
    assert_eq!(messages.len(), 1, "{input:?}: {messages:?}");
    messages[0].clone()
}

const TAGS: &str = "[Event \"e\"]\n[Variant \"Kriegspiel (Berkeley)\"]\n";

#[test]
fn the_seed_game_for_white() {
    let input = "[Event \"Skirmish\"]\n[Result \"1-0\"]\n\
        [Variant \"Kriegspiel (Berkeley)\"]\n[Filtered \"no\"]\n\n\
        1. e4 {(:)}\n    f6 {(:)}\n2. e5 {(:)}  \n    fxe5 {(Xe5:e7)}\n\
        3. Qh5+ {(CS:)}\n    g6 {(:)}\n4. Be2 {(:Qf7)}\n    gxh5 {(Xh5:exf4,h5)}\n\
        5. Bxh5# {(Xh5,CS:)}\n";
    let want = "[Event \"Skirmish\"]\n[Result \"1-0\"]\n\
        [Variant \"Kriegspiel (Berkeley)\"]\n[Filtered \"white\"]\n\n\
        1. e4 {(:)}\n    ?? {(:0)}\n2. e5 {(:)}  \n    ?? {(Xe5:1)}\n\
        3. Qh5+ {(CS:)}\n    ?? {(:0)}\n4. Be2 {(:Qf7)}\n    ?? {(Xh5:2)}\n\
        5. Bxh5# {(Xh5,CS:)}\n";
    assert_eq!(clean(&white(), input), want);
}

/// A word where a move belongs is an error for the game, at its line:
/// taken for a move, it would shift every move after it to the other
/// side, and the opponent's moves would be written in clear.
#[test]
fn words_are_not_moves() {
    let game = format!("{TAGS}\n1. e4 {{(:)}} Na6 {{(:)}}\ndraw? d4 *\n");
    assert_eq!(
        refused(&white(), &game),
        "5: expected a move in Kriegspiel SAN, found 'draw?'"
    );
    let (out, messages, _) = run(&white(), "hello world\n");
    assert_eq!(out, "");
    assert_eq!(
        messages,
        ["1: expected a move in Kriegspiel SAN, found 'hello'"]
    );
    for bad in ["Qxz9", "e9", "Px4", "Ke1=Q", "O-O-O-O", "e4e5"] {
        let game = format!("{TAGS}\n1. e4 {{(:)}} {bad} {{(:)}} *\n");
        let message = refused(&black(), &game);
        assert!(message.contains("expected a move"), "{bad}: {message}");
    }
    // In an attempt list too.
    let game = format!("{TAGS}\n1. e4 {{(:)}} e5 {{(:resign)}} *\n");
    assert_eq!(
        refused(&white(), &game),
        "4: illegal attempt 'resign' is not Kriegspiel SAN"
    );
}

#[test]
fn move_numbers_agree_with_the_ply() {
    for (movetext, message) in [
        ("1. e4 e5 3. Nf3 *", "4: move number '3.' where '2.' belongs"),
        ("1. e4 1. e5 *", "4: move number '1.' where '1...' belongs"),
        ("1... e4 *", "4: move number '1...' where '1.' belongs"),
        ("1. e4 e5 2... Nf3 *", "4: move number '2...' where '2.' belongs"),
        ("1. e4 7 e5 *", "4: move number '7' where '1...' belongs"),
        // A number before no move (found by a hostile-input review: `2...
        // {SECRET} 0-1` passed, and `--plies 3` cut a game of 3 plies).
        (
            "1. e4 e5 2. Nf3\n2... {x} 0-1",
            "5: a move number that stands before no move",
        ),
        (
            "1. e4 e5 2. Nf3 2... *",
            "4: a move number that stands before no move",
        ),
        ("1. e4 e5\n2.", "5: a move number that stands before no move"),
        ("1. *", "4: a move number that stands before no move"),
    ] {
        assert_eq!(
            refused(&white(), &format!("{TAGS}\n{movetext}\n")),
            message
        );
    }
    // A number without dots is White's: before Black's move it would let
    // a SAN that is no move shift the plies unseen (the leak property
    // found `e5 e5 2 Nf3`, Nf3 written in clear for Black). Now White's
    // move without its number is refused first.
    let game = format!("{TAGS}\n1. e4 e5 e5 2 Nf3 {{(:d4) secret}} *\n");
    assert_eq!(
        refused(&black(), &game),
        "4: white's move 'e5' without its move number '2.': a move left \
         out or put in before it would make it black's"
    );
    let game = format!("{TAGS}\n1. e4 e5 2. Nf3 2 Nc6 {{(:d4) secret}} *\n");
    assert_eq!(
        refused(&black(), &game),
        "4: move number '2' where '2...' belongs"
    );
    let game = format!("{TAGS}\n1. e4 1 e5 *\n");
    assert_eq!(
        refused(&white(), &game),
        "4: move number '1' where '1...' belongs"
    );
    // The marker after such a number still ends the game (found by a
    // hostile-input review: it ran on to the next line of tags).
    let (_, messages, _) =
        run(&white(), &format!("{TAGS}\n1. e4 e5 2. *\n1. d4 *\n"));
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[1].starts_with("5: a game without tags"), "{messages:?}");
    let fine = format!("{TAGS}\n1. e4 1... e5 2 Nf3 2... Nc6 *\n");
    clean(&white(), &fine);
    // From a FEN with Black to move at move 12.
    let fen = "[FEN \"4k3/8/8/8/8/8/8/4K3 b - - 0 12\"]\n";
    let game = format!("{TAGS}{fen}\n12... Ke7 13. Kd2 13... Ke6 *\n");
    assert_eq!(
        clean(&white(), &game),
        format!(
            "{TAGS}[Filtered \"white\"]\n{fen}\n12... ?? 13. Kd2 13... ?? *\n"
        )
    );
}

/// What stands between the opponent's move number and its move is the
/// opponent's and goes; what stands before the number follows the
/// player's own move and stays (FORMATS.md point 11).
#[test]
fn what_follows_the_opponents_number_goes_with_its_move() {
    let game = format!(
        "{TAGS}\n1. e4 {{(:)}} {{mine}} 1... {{theirs}} Na6 {{(:)}} 2. d4 *\n"
    );
    assert_eq!(
        clean(&white(), &game),
        format!("{TAGS}[Filtered \"white\"]\n\n1. e4 {{(:)}} {{mine}} 1... ?? {{(:0)}} 2. d4 *\n")
    );
    let game = format!(
        "{TAGS}\n1. e4 {{(:)}} Nf6 {{(:)}} 2. ; secret\nNg5 {{(:)}} *\n"
    );
    assert_eq!(
        clean(&black(), &game),
        format!("{TAGS}[Filtered \"black\"]\n\n1. ?? {{(:0)}} Nf6 {{(:)}} 2.\n?? {{(:0)}} *\n")
    );
    let game = format!("{TAGS}\n1. e4 {{(:)}} 1...\n%secret\ne5 {{(:)}} *\n");
    assert_eq!(
        clean(&white(), &game),
        format!("{TAGS}[Filtered \"white\"]\n\n1. e4 {{(:)}} 1...\n?? {{(:0)}} *\n")
    );
}

/// A Kriegspiel comment follows its move, and a move number stands
/// before a move: White's last move left out, Black's move after its
/// number read as White's, and Black's comment in clear (a red-team
/// review of 2026-11-29); a number written twice let what stood between
/// the two go with the move, a second Kriegspiel comment among it.
#[test]
fn a_kriegspiel_comment_follows_its_move_and_a_number_precedes_one() {
    const BEFORE_MOVE: &str =
        "kriegspiel comment between a move number and its move (it follows \
         the move)";
    const TWICE: &str =
        "a move number after a move number, with no move between them";
    for movetext in [
        "1. e4 {(:)} Qa7 {(:)} 2. {(:)} Rb7 {SECRET plain} *",
        "1. e4 {(:)} 1... {(:Nf3)} e5 *",
    ] {
        let game = format!("{TAGS}\n{movetext}\n");
        assert_eq!(refused(&white(), &game), format!("4: {BEFORE_MOVE}"));
    }
    for between in ["{(:Nb3,Rb6) SECRET}", "{SECRET}", "; SECRET\n", ""] {
        let twice = format!(
            "{TAGS}\n1. e4 {{(:)}} Qa7 {{(:)}} 2. {between} 2. d4 {{(:)}} *\n"
        );
        let message = refused(&white(), &twice);
        assert!(
            message.ends_with(BEFORE_MOVE) || message.ends_with(TWICE),
            "{twice:?}: {message}"
        );
    }
    // Before the number, both stay where they are.
    let fine = format!(
        "{TAGS}\n1. e4 {{(:)}} {{mine}} 1... e5 {{(:Nf3)}} {{theirs}} 2. d4 *\n"
    );
    assert_eq!(
        clean(&white(), &fine),
        format!("{TAGS}[Filtered \"white\"]\n\n1. e4 {{(:)}} {{mine}} 1... ?? {{(:1)}} 2. d4 *\n")
    );
}

/// A record that says it is filtered is filtered again, so that nothing
/// it says is trusted: clean, it comes out as it went in; with an
/// opponent's move or attempts in clear, it is refused.
#[test]
fn the_filtered_tag_is_not_trusted() {
    let filtered = format!(
        "{TAGS}[Filtered \"white\"]\n\n1. e4 {{(:)}} ?? {{(Xe4:2)}} 2. d4 ?? *\n"
    );
    assert_eq!(clean(&white(), &filtered), filtered);
    for spelling in ["white", "White", "WHITE"] {
        let game = format!(
            "{TAGS}[Filtered \"{spelling}\"]\n\n1. e4 {{(:)}} e5 {{(:)}} *\n"
        );
        let message = refused(&white(), &game);
        assert!(message.contains("'e5' is not hidden"), "{message}");
    }
    let listed = format!(
        "{TAGS}[Filtered \"white\"]\n\n1. e4 {{(:)}} ?? {{(:Nc6)}} *\n"
    );
    assert!(refused(&white(), &listed).contains("attempts are listed"));
    for (tags, line) in [
        ("[Filtered \"no\"]\n[Filtered \"white\"]\n", 2),
        ("[Event \"e\"] [Filtered \"white\"] [Filtered \"white\"]\n", 1),
        (" [ Filtered  \"white\" ]\n[Filtered \"no\"]\n", 2),
    ] {
        let game = format!("{tags}\n1. e4 {{(:)}} ?? {{(:0)}} *\n");
        let want = format!("{line}: a second Filtered tag");
        assert_eq!(refused(&white(), &game), want, "{tags}");
    }
    // Two tags on one line, with blanks: still the Filtered tag.
    let game = "[Event \"e\"]  [ Filtered  \"white\" ]\n\n1. e4 e5 *\n";
    assert!(refused(&white(), game).contains("'e5' is not hidden"));
    // Tag names are case-sensitive: `filtered` is some other tag.
    let game = "[filtered \"white\"]\n\n1. e4 e5 *\n";
    assert_eq!(
        clean(&white(), game),
        "[filtered \"white\"]\n[Filtered \"white\"]\n\n1. e4 ?? *\n"
    );
    let game = format!("{TAGS}[Filtered \"black\"]\n\n1. ?? {{(:0)}} e5 *\n");
    assert_eq!(
        refused(&white(), &game),
        "3: game is already filtered for black"
    );
    let game = format!("{TAGS}[Filtered \"both\"]\n\n1. e4 *\n");
    assert_eq!(refused(&white(), &game), "3: unknown Filtered value 'both'");
}

#[test]
fn text_outside_games_is_left_out_and_never_held() {
    let game = format!("{TAGS}\n1. e4 {{(:)}} e5 {{(:)}} *\n");
    let input = format!(
        "\n\n%header\n{{a file comment}}\n\n{game}\n\n{{between}}\n\n{game}"
    );
    let (out, messages, any) = run(&white(), &input);
    let filtered = clean(&white(), &game);
    assert_eq!(out, format!("{filtered}\n\n{filtered}"));
    assert_eq!(
        messages,
        [
            "4: warning: text outside a game is left out",
            "12: warning: text outside a game is left out"
        ]
    );
    assert!(any);
    // Input with no game writes nothing.
    for none in ["\n\n\n", "{c}\n% x\n", "", "  \u{a0}\n"] {
        let (out, _, any) = run(&white(), none);
        assert_eq!((out.as_str(), any), ("", false), "{none:?}");
    }
}

/// A game that starts where a comment outside games closes gets its
/// Filtered tag like any other (found by the fuzz target's leak oracle:
/// it was written with no tag line, running into the game before it).
#[test]
fn a_game_after_a_comment_that_closes_on_its_line_gets_the_tag() {
    let game = format!("{TAGS}\n1. e4 e5 *\n");
    let input = format!("{game}{{c\r\n}} 1. d4 {{(:)}} d5 {{(:e6) x}} *\r\n");
    let (out, messages, _) = run(&black(), &input);
    assert_eq!(messages, ["5: warning: text outside a game is left out"]);
    let first = clean(&black(), &game);
    let second =
        "[Filtered \"black\"]\r\n\r\n 1. ?? {(:0)} d5 {(:e6) x} *\r\n";
    assert_eq!(out, format!("{first}{second}"));
    // Filtered again, it stays as it is.
    assert_eq!(clean(&black(), second), second);
}

/// A reader of `n` lines of `line`, made as they are read.
struct Repeat {
    line: &'static [u8],
    left: usize,
    at: usize,
}

impl io::Read for Repeat {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() && self.left > 0 {
            buf[n] = self.line[self.at];
            n += 1;
            self.at += 1;
            if self.at == self.line.len() {
                self.at = 0;
                self.left -= 1;
            }
        }
        Ok(n)
    }
}

/// Memory stays flat on input with no game: blank lines, comments and
/// escape lines are not collected (issue 13: 20 million blank lines took
/// 827 MB).
#[test]
fn memory_is_flat_outside_games() {
    for line in [&b"\n"[..], b"{ a comment }\r\n", b"%escape\n", b"  \t\n"] {
        let config = white();
        let mut filter = Filter::new(&config);
        let mut lines = LineReader::new(Repeat { line, left: 300_000, at: 0 });
        let (mut out, mut report) = (vec![], vec![]);
        filter.lines(&mut lines, &mut out, None, &mut report, true).unwrap();
        assert!(out.is_empty() && !filter.any());
        assert!(filter.input.capacity() < 4 * BLOCK, "{line:?}");
        assert!(report.len() <= 1);
    }
}

/// A game that failed keeps none of its input while the rest of it is
/// read to find its end: a file that is no PGN (one long game without
/// tags, refused at its first word) took as much memory as its size. The
/// messages after it keep their lines (the line where a comment opened
/// after the fault, which a line of tag pairs then cut, among them), and
/// the games after it are read as before.
#[test]
fn a_game_that_failed_is_not_held() {
    // 2.3 MB, against a buffer of less than 4 blocks (256 KiB).
    let n = 40_000;
    let head = format!("{TAGS}\n1. e4 {{(:)}} hello\n");
    let line =
        &b"2. Nf3 {(:)} Nc6 {(:Ra8xh8)} 3. Bb5 {(:) text (} 4. a3\n"[..];
    // The fault on line 4, then n lines, then a comment open on the next.
    let open = format!("5. a4 {{open\n{TAGS}rest");
    let closed = format!(
        "{open} }} *\n\n{TAGS}\n1. d4 {{(:)}} d5 {{(:)}} *\n\n\
         {TAGS}\n1. c4 {{(:)}} c5 {{(:)}}\n2. b4 {{(:)}} word *\n"
    );
    let hello = "4: expected a move in Kriegspiel SAN, found 'hello'";
    let word = "expected a move in Kriegspiel SAN, found 'word'";
    let never = "the comment open at this line is never closed in this \
                 input: the rest of the input was read as part of it and \
                 left out";
    let second = format!("{TAGS}\n1. d4 {{(:)}} d5 {{(:)}} *\n");
    let cases = [
        (&closed, [hello.into(), format!("{}: {word}", n + 19)], &second[..]),
        (&open, [hello.into(), format!("{}: {never}", n + 5)], ""),
    ];
    for (tail, want, written) in cases {
        let input = || {
            let body = Repeat { line, left: n, at: 0 };
            let rdr = io::Read::chain(head.as_bytes(), body);
            LineReader::new(io::Read::chain(rdr, tail.as_bytes()))
        };
        let messages = |report: &[Diagnostic]| -> Vec<String> {
            let line = |d: &Diagnostic| format!("{}: {}", d.line, d.message);
            report.iter().map(line).collect()
        };
        let config = white();
        let mut filter = Filter::new(&config);
        let (mut out, mut report) = (vec![], vec![]);
        filter.lines(&mut input(), &mut out, None, &mut report, true).unwrap();
        assert_eq!(messages(&report), want);
        // The blank line after a game written follows it.
        let want_out = if written.is_empty() {
            String::new()
        } else {
            format!("{}\n", clean(&white(), written))
        };
        assert_eq!(String::from_utf8(out).unwrap(), want_out);
        assert!(filter.input.capacity() < 4 * BLOCK);

        // The referee, which judges nothing after a game's first fault (a
        // warning about Nc6's attempt, after it, was given).
        let config =
            CheckConfig { strict: false, invert: false, quiet: false };
        let mut check = Check::check(&config);
        let (mut out, mut report) = (vec![], vec![]);
        check.lines(&mut input(), &mut out, None, &mut report, true).unwrap();
        assert_eq!(messages(&report), want);
        let want_out = if written.is_empty() { "" } else { "\n" };
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out, format!("{written}{want_out}"));
        assert!(check.input.capacity() < 4 * BLOCK);

        // With -v the games that fail are written, byte for byte, and
        // the first is not held either: written as it is read, once it
        // failed (a file that is no PGN took twice its size). The rest
        // that the line of tag pairs cut is its own, not written.
        let config = CheckConfig { strict: false, invert: true, quiet: false };
        let mut check = Check::check(&config);
        let (mut out, mut report, mut wrote) = (vec![], vec![], vec![]);
        let wtr: &mut dyn io::Write = &mut wrote;
        check
            .lines(&mut input(), &mut out, Some(wtr), &mut report, true)
            .unwrap();
        assert_eq!(messages(&report), want);
        let mut want_out = vec![];
        let first = Repeat { line, left: n, at: 0 };
        io::Read::read_to_end(
            &mut io::Read::chain(head.as_bytes(), first),
            &mut want_out,
        )
        .unwrap();
        want_out.extend_from_slice(b"5. a4 {open\n");
        if !written.is_empty() {
            let third = tail.rsplit_once("*\n\n").unwrap().1;
            want_out.extend_from_slice(third.as_bytes());
        }
        assert!(
            wrote == want_out,
            "{}",
            String::from_utf8_lossy(&wrote[wrote.len().saturating_sub(300)..])
        );
        assert!(check.input.capacity() < 4 * BLOCK);
        assert!(out.capacity() < 4 * OUT_BUFFER);
    }
}

/// A game that failed with a comment open in it, which holds a `{`, is not
/// held either (found by a review: `{(:) {x` and 100 MB of text with no
/// `}` took 105 MB): the `{` is its fault as soon as it is read, and the
/// comment's line is kept for the messages. Nor one that failed with a
/// variation open (`hello (1... e5` and 100 MB with no `)` took 100 MB),
/// or a comment open in a variation: the line where the outermost opened
/// is kept.
#[test]
fn a_game_that_failed_in_an_open_comment_is_not_held() {
    let line =
        &b"and so on, for many lines of text, none of which closes it\n"[..];
    let second = format!("{TAGS}\n1. d4 {{(:)}} d5 {{(:)}} *\n");
    let config = white();
    let brace = "'{' inside a comment";
    let word = "expected a move in Kriegspiel SAN, found 'hello'";
    let heads = [
        ("{(:) {x", "} }", brace),
        ("{(:)} hello (1... e5", ")", word),
        ("{(:)} hello (1... e5 {x", "} )", word),
        ("{(:)} hello (1... e5 (2. d4) (", "))", word),
    ];
    for (open, close, first) in heads {
        let head = format!("{TAGS}\n1. e4 {open}\n");
        let cases = [
            // What closes it, then a game.
            (
                format!("{close} *\n\n{second}"),
                &[4][..],
                clean(&config, &second),
            ),
            // A line of tag pairs cuts it: the rest names the line where
            // it opened.
            (format!("{TAGS}\n1. d4 d5 *\n"), &[4, 4][..], String::new()),
        ];
        for (tail, lines, written) in cases {
            let body = Repeat { line, left: 40_000, at: 0 };
            let rdr = io::Read::chain(head.as_bytes(), body);
            let mut input =
                LineReader::new(io::Read::chain(rdr, tail.as_bytes()));
            let mut filter = Filter::new(&config);
            let (mut out, mut report) = (vec![], vec![]);
            filter
                .lines(&mut input, &mut out, None, &mut report, true)
                .unwrap();
            let at: Vec<u64> = report.iter().map(|d| d.line).collect();
            assert_eq!(at, lines, "{open}: {report:?}");
            assert!(report[0].message.starts_with(first), "{report:?}");
            assert_eq!(String::from_utf8(out).unwrap(), written, "{open}");
            assert!(filter.input.capacity() < 4 * BLOCK, "{open}");
        }
    }
}

/// Found by a review: `kpgn-check -v` writes a failing game as it is read,
/// its start moving on (the bytes before gone); a game without tags after
/// a game left open is not written, and the message that says so must
/// name the line where it starts, not where reading went on.
#[test]
fn a_game_that_v_leaves_out_is_named_at_its_start() {
    let config = CheckConfig { strict: false, invert: true, quiet: false };
    let lines = |input: &str| {
        let (mut out, mut report) = (vec![], vec![]);
        check_reader(&config, input.as_bytes(), &mut out, &mut report)
            .unwrap();
        let at: Vec<u64> = report.iter().map(|d| d.line).collect();
        (String::from_utf8(out).unwrap(), at)
    };
    let first = "[Event \"e\"]\n\n1. e4 (\n[Event \"x\"]\n) 1-0\n";
    // Then a game without tags that fails at once, short or long.
    let long = "e4 e5 Nf3 Nc6 d4 exd5 and many more words\n".repeat(3_000);
    for rest in ["hello\n".to_string(), format!("hello\n{long}")] {
        let (out, at) = lines(&format!("{first}{rest}"));
        assert_eq!(out, "[Event \"e\"]\n\n1. e4 (\n");
        assert_eq!(at, [3, 6, 6]);
    }
}

/// Found by a review: a game that failed let the `{` of its open comment
/// go with the block read; reading on, the search for a `{` inside the
/// comment started one byte past where reading went on, and a line of
/// tag pairs right there made it panic. Then the comment's second reading
/// must start where reading went on, at the line the comment opened.
#[test]
fn a_comment_let_go_at_a_block_end_is_read_on() {
    let blanks = "\n".repeat(65_529);
    let input = format!("{blanks}5{{\n[S \"\"]\n");
    let (out, messages, _) = run(&white(), &input);
    assert_eq!(out, "");
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].starts_with("65530: move number '5'"), "{messages:?}");
    assert!(
        messages[1].starts_with("65530: the comment open"),
        "{messages:?}"
    );
    let config = CheckConfig { strict: false, invert: false, quiet: false };
    let (mut out, mut report) = (vec![], vec![]);
    check_reader(&config, input.as_bytes(), &mut out, &mut report).unwrap();
    assert_eq!(report.len(), 2, "{report:?}");
    // A game after it, quoted: the comment's line is where it opened.
    let input = format!("{blanks}5{{ {{\n}} *\n\n{TAGS}\n1. e4 {{(:)}} *\n");
    let (out, messages, _) = run(&white(), &input);
    assert_eq!(out, "");
    assert!(
        messages
            .iter()
            .any(|m| m.contains("may quote it, opened at line 65530")),
        "{messages:?}"
    );
}

const CUT: &str = "which starts with '[': what follows";

/// A line of tag pairs in an open comment or variation ends the game,
/// which fails; what follows it, up to the `}` or `)`, and on to the end
/// the game would have had, is the rest of that game and goes with it: it
/// never becomes a game of its own, which would show the hidden text (the
/// opponent's comment or analysis) to the player (issue 13).
#[test]
fn a_line_of_tag_pairs_in_an_open_comment_is_not_a_game() {
    let next = "[Event \"next\"]\n\n1. d4 {(:)} d5 {(:)} *\n";
    let next_white =
        "[Event \"next\"]\n[Filtered \"white\"]\n\n1. d4 {(:)} ?? {(:0)} *\n";
    // The opponent's comment holds a game: Nf3 and Bb5 must not show.
    let input = format!(
        "{TAGS}\n1. e4 {{(:)}} e5 {{(:) plan:\n[Plan \"x\"]\n1. Nf3 Nc6 2. Bb5 *\n\
         }} 2. Nf3 {{(:)}} Nc6 {{(:)}} *\n\n{next}"
    );
    let (out, messages, _) = run(&white(), &input);
    assert_eq!(out, next_white);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].starts_with("4: comment not closed before line 5,"));
    assert!(messages[0].contains(CUT), "{messages:?}");
    // The player's own comment swallows the `}` of the opponent's: the
    // opponent's e5, its attempt and its text must not show. Read to the
    // `}` that balances it (which never comes), the comment may quote the
    // next game too, which is left out.
    let input = format!(
        "{TAGS}\n1. e4 {{(:) hi\n[X \"y\"]\n1. {{}} e5 {{(:d4) secret}} \
         2. Nf3 {{(:)}} Nc6 {{(:)}} *\n\n{next}"
    );
    let (out, messages, _) = run(&white(), &input);
    assert_eq!(out, "");
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(
        messages[1].contains(": a game inside a comment that may quote it"),
        "{messages:?}"
    );
    // A variation (removed for both players) holds a game.
    let input = format!(
        "{TAGS}\n1. e4 {{(:)}} e5 {{(:)}} (1... c5 {{(:)}}\n[X \"y\"]\n\
         1. d4 d6 2. c4 *)\n2. Nf3 {{(:)}} *\n\n{next}"
    );
    let (out, messages, _) = run(&white(), &input);
    assert_eq!(out, next_white);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].starts_with("4: variation not closed before line 5,"));
    // Tag lines one after another in the comment, and the `[` line in a
    // variation that is no tag pairs.
    let input = format!(
        "{TAGS}\n1. e4 {{(:)}} e5 {{(:)}} (1... c5 {{ x\n[A \"1\"]\n[B \"2\"]\n\
         1. d4 }}\n[diagram]\n1. c4 *) *\n\n{next}"
    );
    let (out, messages, _) = run(&black(), &input);
    assert_eq!(
        out,
        "[Event \"next\"]\n[Filtered \"black\"]\n\n1. ?? {(:0)} d5 {(:)} *\n"
    );
    assert_eq!(messages.len(), 1, "{messages:?}");
    // Never closed (the `}` of the next game's first comment would close
    // it): the rest of the input is the rest of the game, and the end of
    // the input says so.
    let input = format!(
        "{TAGS}\n1. e4 {{(:)}} e5 {{never closed\n[Event \"next\"]\n\n1. d4 d5 *\n"
    );
    let (out, messages, _) = run(&white(), &input);
    assert_eq!(out, "");
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].starts_with("4: comment not closed before line 5,"));
    assert_eq!(
        messages[1],
        "4: the comment open at this line is never closed in this input: the \
         rest of the input was read as part of it and left out"
    );
    // A `[` line that is no tag pairs is comment text.
    let input = format!("{TAGS}\n1. e4 {{see\n[diagram]\n}} e5 *\n");
    assert_eq!(
        clean(&white(), &input),
        format!(
            "{TAGS}[Filtered \"white\"]\n\n1. e4 {{see\n[diagram]\n}} ?? *\n"
        )
    );
}

#[test]
fn variations_glyphs_and_nags_go() {
    let game = format!(
        "{TAGS}\n1. e4! $1 {{(:)}} (1. d4 {{x}} (1. c4)) e5?! $2 {{(Xe4:d5) note}} {{more}} ; last\n2. Nf3 *\n"
    );
    assert_eq!(
        clean(&white(), &game),
        format!("{TAGS}[Filtered \"white\"]\n\n1. e4! $1 {{(:)}} ?? {{(Xe4:1)}}\n2. Nf3 *\n")
    );
    let keep = Config { keep_comments: true, ..black() };
    assert_eq!(
        clean(&keep, &game),
        format!("{TAGS}[Filtered \"black\"]\n\n1. ?? {{(:0)}} e5?! $2 {{(Xe4:d5) note}} {{more}} ; last\n2. ?? *\n")
    );
}

/// A line whose last item is removed ends where what is kept ends: the
/// blanks after the removed item, on its line, go with it (the blank
/// after `c5` here ended the line after a removed variation). Blanks
/// after an item kept stay as read.
#[test]
fn a_line_ends_with_what_is_kept() {
    let game = format!(
        "{TAGS}\n1. e4 {{(:)}} e5 {{(:)}} (1... c5 \n%% x\n) 2. Nf3 {{(:)}} Nc6 $1  \n\
         3. d4 {{(:)}} d5 {{(:)}}  \n*\n"
    );
    assert_eq!(
        clean(&white(), &game),
        format!(
            "{TAGS}[Filtered \"white\"]\n\n1. e4 {{(:)}} ?? {{(:0)}}\n\
             2. Nf3 {{(:)}} ??\n3. d4 {{(:)}} ?? {{(:0)}}  \n*\n"
        )
    );
}

#[test]
fn plies_cut_the_game_and_its_result() {
    let game = "[Result \"1-0\"]\n\n1. e4 {(:)} e5 {(:)} ; said\n2. Nf3 {(:)} Nc6 1-0\n\n";
    let cut =
        |n, config: Config| clean(&Config { plies: Some(n), ..config }, game);
    assert_eq!(
        cut(2, white()),
        "[Result \"*\"]\n[Filtered \"white\"]\n\n1. e4 {(:)} ?? {(:0)} *\n\n"
    );
    assert_eq!(
        cut(2, black()),
        "[Result \"*\"]\n[Filtered \"black\"]\n\n1. ?? {(:0)} e5 {(:)} ; said\n*\n\n"
    );
    assert_eq!(
        cut(0, white()),
        "[Result \"*\"]\n[Filtered \"white\"]\n\n*\n\n"
    );
    assert_eq!(cut(4, white()), clean(&white(), game));
    // A second Result tag, which the cut would leave as it is (found by a
    // hostile-input review), is refused with --plies (only).
    let two = format!("[Result \"1-0\"]\n{game}");
    let config = Config { plies: Some(2), ..white() };
    assert_eq!(
        refused(&config, &two),
        "2: a second Result tag, which --plies would leave as it is"
    );
    clean(&white(), &two);
    // A `;` comment or an escape line that ends with blanks keeps them,
    // and the marker goes on a line of its own after it (found by a
    // hostile-input review: ` *` was written into the comment).
    for (item, end) in [(" ; said  ", "\n"), ("\n%said \t", "\r\n")] {
        let game = format!(
            "[E \"1\"]{end}{end}1. e4 {{(:)}}{item}{end}1... e5 *{end}"
        );
        let want = format!(
            "[E \"1\"]{end}[Filtered \"white\"]{end}{end}1. e4 {{(:)}}{item}{end}*{end}"
        );
        let config = Config { plies: Some(1), ..white() };
        assert_eq!(clean(&config, &game), want, "{item:?}");
    }
}

/// The output is written a buffer's worth at a time and the input read a
/// block at a time: across both, a game that cannot be filtered (here
/// after part of it was written out) leaves nothing, and every other
/// game is as filtered on its own.
#[test]
fn batched_output_is_each_game_filtered_alone() {
    let games = [
        "[A \"1\"]\n\n1. e4 {(:)} e5 {(Xe4:d5) x} 2. d4 *\n\n",
        "[B \"2\"]\n1. e4 e5\n{(:)} {(:)} 2. d4 *\n\n",
        "[C \"3\"]\n1. d4 (1. c4) d5 ; y\n2. c4 *\n\n",
        "[Filtered \"black\"]\n1. ?? e5 *\n\n",
        "[D \"4\"]\r\n1. e4 {a long comment that runs\r\nacross lines} e5 *\r\n\r\n",
    ];
    for config in [
        Config { player: Side::White, plies: None, keep_comments: false },
        Config { player: Side::Black, plies: Some(3), keep_comments: true },
    ] {
        let (mut want, mut want_errors) = (vec![], vec![]);
        let mut input = String::new();
        for k in 0..10_000 {
            let game = games[k % games.len()];
            input.push_str(game);
            let (mut alone, mut errors) = (vec![], vec![]);
            filter_reader(&config, game.as_bytes(), &mut alone, &mut errors)
                .unwrap();
            if errors.is_empty() {
                want.extend_from_slice(&alone);
            }
            want_errors.extend(errors.into_iter().map(|d| d.message));
        }
        let (mut got, mut errors) = (vec![], vec![]);
        let read =
            filter_reader(&config, input.as_bytes(), &mut got, &mut errors);
        assert!(read.unwrap());
        assert!(want.len() > 2 * OUT_BUFFER && input.len() > 4 * BLOCK);
        assert!(got == want, "{config:?}");
        let errors: Vec<String> =
            errors.into_iter().map(|d| d.message).collect();
        assert_eq!(errors, want_errors);
        assert!(!errors.is_empty());
    }
}
