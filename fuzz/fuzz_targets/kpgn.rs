//! The Kriegspiel filter on arbitrary bytes, for both players.
//!
//! The first byte chooses the options (`--keep-comments`, `--plies`) and
//! a batch size; the rest is the input. On two threads, in batches of
//! that size, the output and the messages are those of one thread. The
//! output never shows what the player must not know: a reader of its own
//! ([`hidden`], not the library's tokenizer) finds every opponent move
//! `??`, no variation, and nothing else of the opponent's but the
//! announcements and counts of its Kriegspiel comments (and, with
//! `--keep-comments`, its comments' free text). When nothing is reported
//! about an input, filtering its output again for the same player must
//! give back the same bytes, again without a message.

#![no_main]

use chesspipe::cmd::{kpgn_check, kpgn_filter};
use chesspipe::diag::Diagnostic;
use chesspipe::kpgn::{self, CheckConfig, Config, Side};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&opts, input)) = data.split_first() else { return };
    check(opts, input);
    for player in [Side::White, Side::Black] {
        let config = Config {
            player,
            plies: (opts & 1 != 0).then_some(u64::from(opts >> 2)),
            keep_comments: opts & 2 != 0,
        };
        let (once, report) = filter(&config, input);
        let batch_bytes = 1 + usize::from(opts >> 4) * 16;
        let (mut threaded, mut messages) = (vec![], vec![]);
        kpgn_filter::filter_batches(
            &config,
            2,
            batch_bytes,
            input,
            &mut threaded,
            &mut messages,
        )
        .expect("writing to a Vec never fails");
        assert_eq!(messages, report, "threads: other messages");
        assert!(threaded == once, "threads: other output");
        // A game that cannot be filtered leaves nothing, so every game
        // in the output was filtered, errors elsewhere or not.
        // As the tool reads lines, and with a `;` comment or escape line
        // that runs on over U+0085 and U+2028 to the next LF or CR, as PGN
        // readers that end lines at LF and CR alone read it.
        for lf_only in [false, true] {
            if let Err(leak) = hidden(&once, &config, lf_only) {
                panic!(
                    "leak for {player:?} (LF and CR only: {lf_only}): \
                     {leak}\n--- output:\n{}",
                    String::from_utf8_lossy(&once)
                );
            }
        }
        if !report.is_empty() {
            continue;
        }
        let (twice, again) = filter(&config, &once);
        assert_eq!(again, [], "{:?}", String::from_utf8_lossy(&once));
        assert_eq!(
            String::from_utf8_lossy(&twice),
            String::from_utf8_lossy(&once),
            "not idempotent for {player:?}",
        );
    }
});

/// The referee on the same input: no panic; on two threads, in batches,
/// the output, the messages (games named alike) and the counts of one
/// thread; and every game written is a run of the input's bytes.
fn check(opts: u8, input: &[u8]) {
    let config = CheckConfig {
        strict: opts & 8 != 0,
        invert: opts & 4 != 0,
        quiet: false,
    };
    let (mut once, mut report) = (vec![], vec![]);
    let counts = kpgn::check_reader(&config, input, &mut once, &mut report)
        .expect("writing to a Vec never fails");
    let batch_bytes = 1 + usize::from(opts >> 4) * 16;
    let (mut threaded, mut messages) = (vec![], vec![]);
    let again = kpgn_check::check_batches(
        &config,
        2,
        batch_bytes,
        input,
        &mut threaded,
        &mut messages,
    )
    .expect("writing to a Vec never fails");
    assert_eq!(again, counts, "check threads: other counts");
    assert_eq!(messages, report, "check threads: other messages");
    assert!(threaded == once, "check threads: other output");
    assert!(once.len() <= input.len(), "the referee wrote more than it read");
}

/// The filter's output and its messages.
fn filter(config: &Config, input: &[u8]) -> (Vec<u8>, Vec<Diagnostic>) {
    let (mut out, mut report) = (vec![], vec![]);
    kpgn::filter_reader(config, input, &mut out, &mut report)
        .expect("writing to a Vec never fails");
    (out, report)
}

/// Reads the filter's output for `config` and checks that nothing of the
/// opponent's shows, whose is what by FORMATS.md, Kriegspiel PGN point
/// 11: a move number and what follows it are the move's it numbers, what
/// follows a move is that move's up to the next number or move.
///
/// Games start at a line of tag pairs after movetext; White moves first
/// unless a FEN tag says `b`. Outside comments: no `(` or `)`; each
/// opponent move is `??`; the opponent has no NAG or glyph, and (unless
/// `keep_comments`) no `;` comment, `%` line or comment but its
/// Kriegspiel comment, which holds a count of attempts, not a list, and
/// no free text.
///
/// With `lf_only`, a `;` comment or `%` line runs on over U+0085 and
/// U+2028 to the next LF or CR, as PGN readers that end lines there alone
/// read it: what the tool reads after such a line end must show nothing
/// either way.
fn hidden(out: &[u8], config: &Config, lf_only: bool) -> Result<(), String> {
    let opponent = config.player.opponent();
    let keep = config.keep_comments;
    let mut r = Reader { first: Side::White, plies: 0, owner: None };
    let mut in_tags = true;
    let mut i = 0;
    let mut line_start = true;
    while i < out.len() {
        if std::mem::take(&mut line_start) {
            let (end, next) = line_end(out, i);
            let first = skip_space(out, i, end);
            if out.get(first) == Some(&b'[') && first < end {
                if !in_tags {
                    // The next game.
                    r = Reader { first: Side::White, plies: 0, owner: None };
                    in_tags = true;
                }
                if let Some(side) = fen_side(&out[first..end]) {
                    r.first = side;
                }
                (i, line_start) = (next, true);
                continue;
            }
            // An escape line starts after LF or CR: after U+0085 or
            // U+2028, PGN readers that end lines at LF and CR alone read
            // it as movetext, and so does this reader.
            let escape = out[i] == b'%' && !after_unicode_end(out, i);
            if in_tags && (first == end || escape) {
                (i, line_start) = (next, true);
                continue;
            }
            in_tags = false;
            if escape {
                if r.owner == Some(opponent) && !keep {
                    return Err(leak("an opponent's '%' line", out, i));
                }
                (i, line_start) = (seeming_end(out, i, lf_only), true);
                continue;
            }
        }
        let b = out[i];
        if let Some(n) = line_end_at(out, i, false) {
            (i, line_start) = (i + n, true);
        } else if space_at(out, i) > 0 {
            i += space_at(out, i);
        } else if b == b'{' {
            let close = match out[i..].iter().position(|&c| c == b'}') {
                Some(j) => i + j,
                None => return Err(leak("a comment with no '}'", out, i)),
            };
            if r.owner == Some(opponent) {
                opponent_comment(&out[i + 1..close], keep)
                    .map_err(|what| leak(what, out, i))?;
            }
            i = close + 1;
        } else if b == b';' {
            if r.owner == Some(opponent) && !keep {
                return Err(leak("an opponent's ';' comment", out, i));
            }
            (i, line_start) = (seeming_end(out, i, lf_only), true);
        } else if b == b'(' || b == b')' {
            return Err(leak("a variation", out, i));
        } else if b == b'$' {
            if r.owner == Some(opponent) {
                return Err(leak("an opponent's NAG", out, i));
            }
            i += 1 + out[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
        } else if is_glyph(b) {
            let n = out[i..].iter().take_while(|&&c| is_glyph(c)).count();
            if &out[i..i + n] == b"??" {
                r.a_move(config.player, true).map_err(|w| leak(w, out, i))?;
            } else if r.owner == Some(opponent) {
                return Err(leak("an opponent's glyph", out, i));
            }
            i += n;
        } else if b.is_ascii_digit() && !out[i..].starts_with(b"0-0") {
            // A move number, or a termination marker.
            let mut j = i;
            while j < out.len() && out[j].is_ascii_digit() {
                j += 1;
            }
            if j < out.len() && is_symbol(out[j]) {
                while j < out.len() && is_symbol(out[j]) {
                    j += 1;
                }
            } else {
                while j < out.len() && out[j] == b'.' {
                    j += 1;
                }
                r.owner = Some(r.to_move());
            }
            i = j;
        } else if is_symbol(b) {
            // A move in clear, with its glyphs.
            r.a_move(config.player, false).map_err(|w| leak(w, out, i))?;
            let mut j = i;
            while j < out.len() && is_symbol(out[j]) {
                j += 1;
            }
            while j < out.len() && is_glyph(out[j]) {
                j += 1;
            }
            i = j;
        } else {
            // `*` and whatever else.
            i += 1;
        }
    }
    Ok(())
}

/// Whose the plies and items of one game are.
struct Reader {
    /// Who makes the first move.
    first: Side,
    plies: u64,
    /// Whose the items read now are (no one's before the first move).
    owner: Option<Side>,
}

impl Reader {
    fn to_move(&self) -> Side {
        if self.plies % 2 == 0 {
            self.first
        } else {
            self.first.opponent()
        }
    }

    /// A move, `??` or in clear: the opponent's must be hidden.
    fn a_move(&mut self, player: Side, hidden: bool) -> Result<(), &str> {
        let mover = self.to_move();
        if mover != player && !hidden {
            return Err("an opponent's move in clear");
        }
        self.owner = Some(mover);
        self.plies += 1;
        Ok(())
    }
}

/// A comment of the opponent (`text` between the braces): only its
/// Kriegspiel comment, with a count of attempts and (unless `keep`) no
/// free text.
fn opponent_comment(text: &[u8], keep: bool) -> Result<(), &'static str> {
    let open = skip_all_space(text, 0);
    if text.get(open) != Some(&b'(') {
        return if keep { Ok(()) } else { Err("an opponent's comment") };
    }
    let close = text[open..]
        .iter()
        .position(|&c| c == b')')
        .map(|j| open + j)
        .ok_or("an opponent's Kriegspiel comment without ')'")?;
    let colon = text[open..close]
        .iter()
        .position(|&c| c == b':')
        .map(|j| open + j)
        .ok_or("an opponent's Kriegspiel comment without ':'")?;
    let mut j = colon + 1;
    while j < close {
        match all_space_at(text, j) {
            0 if text[j].is_ascii_digit() => j += 1,
            0 => return Err("an opponent's attempts listed"),
            n => j += n,
        }
    }
    if !keep && skip_all_space(text, close + 1) < text.len() {
        return Err("free text in an opponent's Kriegspiel comment");
    }
    Ok(())
}

/// The side to move of a line's FEN tag (the second field of its value,
/// `b` for Black), if it has one. (A FEN that the reader cannot read is
/// an error for the game, which then writes nothing.)
fn fen_side(line: &[u8]) -> Option<Side> {
    let mut side = None;
    let mut i = 0;
    while let Some(j) = line[i..].iter().position(|&c| c == b'[') {
        i += j + 1;
        let name = skip_space(line, i, line.len());
        let mut k = name;
        while k < line.len()
            && (line[k].is_ascii_alphanumeric() || line[k] == b'_')
        {
            k += 1;
        }
        let is_fen = &line[name..k] == b"FEN";
        k = skip_space(line, k, line.len());
        if line.get(k) != Some(&b'"') {
            continue;
        }
        let start = k + 1;
        k = start;
        while k < line.len() && line[k] != b'"' {
            k += if line[k] == b'\\' { 2 } else { 1 };
        }
        let value = &line[start..k.min(line.len())];
        if is_fen {
            // Fields apart as shakmaty, which the reader reads the FEN
            // with, takes them: spaces or underscores.
            let mut fields = value
                .split(|&c| c == b' ' || c == b'_')
                .filter(|f| !f.is_empty());
            side = Some(match fields.nth(1) {
                Some(b"b") => Side::Black,
                _ => Side::White,
            });
        }
        i = k.min(line.len());
    }
    side
}

/// Where the line at `i` ends, and where the next starts.
fn line_end(out: &[u8], mut i: usize) -> (usize, usize) {
    while i < out.len() {
        if let Some(n) = line_end_at(out, i, false) {
            return (i, i + n);
        }
        i += 1;
    }
    (out.len(), out.len())
}

/// Where the line at `i` seems to a person to end, and the next to
/// start: after a line end, or after a character that a terminal or a
/// program that splits lines may show as one (VT, FF, FS, GS, RS,
/// U+2029, a byte 85 after ASCII: NEL in Latin-1). A `;` comment or `%`
/// line read to there: what follows shows as movetext, and is read so.
fn seeming_end(out: &[u8], mut i: usize, lf_only: bool) -> usize {
    while i < out.len() {
        if let Some(n) = line_end_at(out, i, lf_only) {
            return i + n;
        }
        match out[i..] {
            [0x0B | 0x0C | 0x1C..=0x1E, ..] => return i + 1,
            [0xE2, 0x80, 0xA9, ..] => return i + 3,
            [0x85, ..] if i > 0 && out[i - 1] < 0x80 => return i + 1,
            _ => i += 1,
        }
    }
    out.len()
}

/// Whether the line at `i` starts after U+0085 or U+2028.
fn after_unicode_end(out: &[u8], i: usize) -> bool {
    out[..i].ends_with(&[0xC2, 0x85])
        || out[..i].ends_with(&[0xE2, 0x80, 0xA8])
}

/// The length of the line end at `i`: LF, CR, CR LF, U+0085, U+2028; the
/// first three only if `lf_only`.
fn line_end_at(out: &[u8], i: usize, lf_only: bool) -> Option<usize> {
    match out[i..] {
        [b'\r', b'\n', ..] => Some(2),
        [b'\r' | b'\n', ..] => Some(1),
        [0xC2, 0x85, ..] if !lf_only => Some(2),
        [0xE2, 0x80, 0xA8, ..] if !lf_only => Some(3),
        _ => None,
    }
}

/// The length of the white space on a line at `i`: space, tab, VT, FF,
/// U+00A0, U+FEFF.
fn space_at(out: &[u8], i: usize) -> usize {
    match out[i..] {
        [b' ' | b'\t' | 0x0B | 0x0C, ..] => 1,
        [0xC2, 0xA0, ..] => 2,
        [0xEF, 0xBB, 0xBF, ..] => 3,
        _ => 0,
    }
}

/// The length of white space or a line end at `i`.
fn all_space_at(out: &[u8], i: usize) -> usize {
    match space_at(out, i) {
        0 => line_end_at(out, i, false).unwrap_or(0),
        n => n,
    }
}

fn skip_space(out: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && space_at(out, i) > 0 {
        i += space_at(out, i);
    }
    i
}

fn skip_all_space(out: &[u8], mut i: usize) -> usize {
    while i < out.len() && all_space_at(out, i) > 0 {
        i += all_space_at(out, i);
    }
    i
}

/// PGN's symbol characters: moves, numbers, termination markers.
fn is_symbol(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_+#=:/-".contains(&b)
}

fn is_glyph(b: u8) -> bool {
    b == b'!' || b == b'?'
}

/// What leaked, and where.
fn leak(what: &str, out: &[u8], at: usize) -> String {
    let from = at.saturating_sub(40);
    let to = (at + 40).min(out.len());
    format!(
        "{what} at byte {at}: {:?}",
        String::from_utf8_lossy(&out[from..to])
    )
}
