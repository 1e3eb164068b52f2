#!/usr/bin/env python3
"""Deterministic generator of unfiltered Kriegspiel PGN for benchmarks.

Usage: gen_kpgn.py [--shape real|tidy] [--semicolons] SIZE_MB [SEED] > games.pgn

Writes at least SIZE_MB megabytes (10**6 bytes) of games in the seed's
Kriegspiel PGN. The same arguments always give the same bytes. The moves
are legal chess (python-chess plays them at random, so that pgn-extract
and pgn-reader's validate can replay every game); the announcements are
the ones the Berkeley referee makes (captures, checks and their
direction). Two shapes:

real (the default): laid out as files written by people and by export
  tools are. Tags: the seven standard ones, a Rules or Variant tag, a
  Filtered "no" tag in most games, then some of TimeControl, WhiteElo,
  BlackElo, PlyCount, Termination, Annotator. Movetext wrapped word by
  word into lines of at most 79 characters (they fit in 80 columns), so
  that comments run across lines. Most Kriegspiel comments carry free
  text after {(<announcements>:<attempts>)}: a few words or, now and
  then, several sentences, some of it UTF-8. NAGs ($1 after a move, $14
  after its comment), glyphs, extra {...} comments, `%` escape lines at
  the start of a line (in movetext and, rarely, before a game), comments
  before the first move, and a variation (RAV) in most games, sometimes
  nested, whose moves are legal and carry their own Kriegspiel comments. Most games follow the export
  convention of a move number `N...` before a Black move that follows a
  comment; the others write it after a variation and at random, as the
  seed's examples do. A quarter of the games write comments with spaces
  inside the braces, `{ (:) text }`, and variations as `( 12. Nf3 ... )`;
  the others `{(:) text}` and `(12. Nf3 ...)`. Illegal attempts are moves
  that the mover's own men alone allow (the board the player sees) but
  the true position does not: blocked paths, pawn captures onto empty
  squares, pinned men, the king into check. Piece moves are written in
  Kriegspiel SAN, disambiguated on the player's board (seed 002,
  III.B.1), so now and then a move is more specific than chess SAN.
  The X code of an en passant capture names the captured pawn's square.

  --semicolons: `;` comments to the end of the line as well, where the
  default writes the same text as a {...} comment (the same random
  draws: the two files differ only there). Not the default because
  pgn-extract 19.04 (Debian 12) does not read `;` comments ("Unknown
  character ;") and then loses the rest of the game, so the corpus that
  every tool is timed on leaves them out. pgn-reader and python-chess
  read them.

tidy: the first corpus: the seven standard tags, a Rules or Variant
  tag, a Filtered "no" tag, then movetext in export layout (lines of at
  most 79 characters) where every move carries its Kriegspiel comment
  {(<announcements>:<illegal attempts>)}, some a free comment, a NAG or
  a glyph, each kept whole on one line. Its illegal attempts are SAN of
  the mover's own pieces that the move generator rejects (random target
  squares, so some are impossible moves). It writes the same bytes as
  the generator did before the real shape existed.

Why one script with two shapes: both play games and announce captures
and checks the same way (check_codes), and the tidy corpus stays
available, byte for byte, for comparisons with earlier runs.
bench/verify_kpgn_corpus.py checks a corpus with python-chess.
"""

import random
import sys

try:
    import chess
except ImportError:
    sys.exit("gen_kpgn.py: needs python-chess: pip install chess")

POOL = 120
FILES = "abcdefgh"

REMARKS = [
    "a careful probe",
    "the referee is silent",
    "White hunts the king",
    "Black tries the pawn captures first",
    "nothing announced, so the queen is probably safe",
    "a risky try on the long diagonal",
    "the king walks into the centre",
    "probing for pawn captures",
]


def check_codes(board):
    """The referee's check announcements after a move: one per checker."""
    if not board.is_check():
        return []
    king = board.king(board.turn)
    codes = []
    for sq in board.checkers():
        kf, kr = chess.square_file(king), chess.square_rank(king)
        f, r = chess.square_file(sq), chess.square_rank(sq)
        if board.piece_type_at(sq) == chess.KNIGHT:
            codes.append("CN")
        elif f == kf:
            codes.append("CF")
        elif r == kr:
            codes.append("CR")
        else:
            # The long diagonal through the king is the one with more
            # squares; the other is the short one.
            same = min(kf, kr) + min(7 - kf, 7 - kr)
            other = min(kf, 7 - kr) + min(7 - kf, kr)
            along_same = (f - kf) == (r - kr)
            mine, theirs = (same, other) if along_same else (other, same)
            codes.append("CL" if mine >= theirs else "CS")
    return codes


def attempts(board, rng):
    """Up to three illegal attempts: moves of the mover's pieces that
    look possible to a player who cannot see the other side."""
    legal = {m.uci() for m in board.legal_moves}
    tries = []
    pieces = [
        (sq, p) for sq, p in board.piece_map().items() if p.color == board.turn
    ]
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3])):
        sq, piece = rng.choice(pieces)
        to = rng.randrange(64)
        if to == sq or chess.Move(sq, to).uci() in legal:
            continue
        name = chess.square_name(to)
        if piece.piece_type == chess.PAWN:
            frm = FILES[chess.square_file(sq)]
            if frm != name[0]:
                tries.append(f"{frm}x{name}")
            else:
                tries.append(name)
        else:
            letter = piece.symbol().upper()
            tries.append(f"{letter}{chess.square_name(sq)[0]}{name}")
    return tries


def play(rng):
    """One random legal game: a list of (SAN, announcements, attempts)
    and its result."""
    board = chess.Board()
    moves = []
    length = rng.randrange(30, 140)
    while len(moves) < length and not board.is_game_over():
        legal = list(board.legal_moves)
        captures = [m for m in legal if board.is_capture(m)]
        move = rng.choice(captures if captures and rng.random() < 0.4 else legal)
        tries = attempts(board, rng)
        san = board.san(move)
        codes = []
        if board.is_capture(move):
            codes.append("X" + chess.square_name(move.to_square))
        board.push(move)
        codes += check_codes(board)
        moves.append((san, ",".join(codes), ",".join(tries)))
    if board.is_game_over():
        result = board.result()
    else:
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return moves, result


def render(n, game, rng, out):
    moves, result = game
    rules = rng.choice(["Rules", "Variant"])
    out.append(
        f'[Event "Kriegspiel Berkeley {n // 50 + 1}"]\n'
        f'[Site "UC Berkeley"]\n'
        f'[Date "2004.{n % 12 + 1:02}.{n % 28 + 1:02}"]\n'
        f'[Round "{n % 9 + 1}"]\n'
        f'[White "Player{rng.randrange(1000)}"]\n'
        f'[Black "Player{rng.randrange(1000)}"]\n'
        f'[Result "{result}"]\n'
        f'[{rules} "Kriegspiel (Berkeley)"]\n'
        f'[Filtered "no"]\n\n'
    )
    line = ""
    items = []
    for ply, (san, codes, tries) in enumerate(moves):
        if ply % 2 == 0:
            items.append(f"{ply // 2 + 1}.")
        elif rng.random() < 0.1:
            items.append(f"{ply // 2 + 1}...")
        glyph = rng.choice(["!", "?", "!?", "?!"]) if rng.random() < 0.03 else ""
        items.append(san + glyph)
        if rng.random() < 0.05:
            items.append(f"${rng.randrange(1, 20)}")
        remark = ""
        if rng.random() < 0.15:
            remark = " " + rng.choice(REMARKS)
        items.append(f"{{({codes}:{tries}){remark}}}")
        if rng.random() < 0.02:
            items.append("{" + rng.choice(REMARKS) + "}")
    items.append(result)
    lines = []
    for item in items:
        # Comments may be split across lines, like any export does.
        if line and len(line) + 1 + len(item) > 79:
            lines.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    lines.append(line)
    out.append("\n".join(lines))
    out.append("\n\n")


# ---------------------------------------------------------------- real shape

REAL_POOL = 240
WIDTH = 79

# Free text of comments: fragments joined into a few words or, now and
# then, several sentences. No `{`, `}` (they would end the comment), no
# `[` or `%` (a wrapped line may start with any word, and neither should
# look like a tag or an escape line to a reader that checks line starts).
PHRASES = [
    "probing the long diagonal",
    "nothing announced",
    "the referee is silent",
    "a pawn try on the queenside",
    "White hunts the king",
    "Black's king is somewhere on the kingside",
    "trying every pawn capture first",
    "the queen is probably safe",
    "a risky try",
    "illegal, so the e-file is blocked",
    "the knight looks for the king",
    "a capture here means the bishop is gone",
    "the king walks into the centre",
    "probing for pawn captures",
    "consolidating",
    "no check, so the diagonal is open",
    "the rook swings over",
    "guessing where the queen went",
    "a quiet move to gather information",
    "Black announces nothing and waits",
    "the opponent must have castled",
    "a sacrifice in the dark",
    "time trouble",
    "less than a minute on the clock",
    "two tries before the legal move",
    "the referee says no",
    "a try that gives away information",
    "White is up a piece, probably",
    "mate threat if f7 is weak",
    "careful",
    "a typical Kriegspiel opening",
    "the pawn shield is intact",
    "a blunder",
    "hoping for a capture",
    "the bishop pair",
    "exchanging to simplify",
    "an ambush on the back rank",
    "the king is safe for now",
    "both sides feel around the centre",
    "the last pawn try failed",
    "the same try as two moves ago (again)",
    "really?",
    "hmm; the referee again",
    'the so-called "blind" defence',
    "Königsangriff",
    "échec au roi, très risqué",
    "Läufer geopfert",
    "10:32 left",
    "see the game from round 3",
]

OPENERS = [
    "Game played on the Berkeley server.",
    "Blitz, 3 minutes each.",
    "Annotated by the winner.",
    "Both players new to Kriegspiel.",
    "From the club championship; the referee was a program.",
    "Rematch after a long game the day before.",
]

ESCAPES = [
    "% exported by the Berkeley Kriegspiel server",
    "% referee log 2004, batch 17",
    "% checked by hand",
    "% timestamps removed",
]

LINE_COMMENTS = [
    "the referee announced nothing here",
    "slow move, 40 seconds",
    "White's clock: 1:12",
    "here Black could try the g-pawn",
    "typo in the original score corrected",
]


def free_text(rng):
    """A few words, or now and then several sentences."""
    if rng.random() < 0.93:
        k = rng.randint(1, 2)
        return ", ".join(rng.choice(PHRASES) for _ in range(k))
    sentences = []
    for _ in range(rng.randint(2, 4)):
        k = rng.randint(1, 3)
        words = ", ".join(rng.choice(PHRASES) for _ in range(k))
        sentences.append(words[0].upper() + words[1:] + ".")
    return " ".join(sentences)


class Ply:
    """One half-move: its Kriegspiel SAN, the referee's announcements,
    the illegal attempts before it and the variations (lists of Ply)
    that stand instead of it."""

    __slots__ = ("san", "codes", "tries", "subs")

    def __init__(self, san, codes, tries, subs):
        self.san, self.codes, self.tries, self.subs = san, codes, tries, subs


def own_view(board):
    """The board the mover sees: their own men only."""
    view = board.copy(stack=False)
    for sq, piece in board.piece_map().items():
        if piece.color != board.turn:
            view.remove_piece_at(sq)
    view.ep_square = None
    return view


def pawn_capture_san(board, move):
    frm = FILES[chess.square_file(move.from_square)]
    san = f"{frm}x{chess.square_name(move.to_square)}"
    if move.promotion:
        san += "=" + chess.piece_symbol(move.promotion).upper()
    return san


def strip_suffix(san):
    return san.rstrip("+#")


def real_attempts(board, view, rng):
    """Illegal attempts before a move: moves the mover's own men allow
    on the player's board that the true position does not (the player
    cannot tell), in Kriegspiel SAN without check or capture marks
    (pawn captures excepted), the most recent first."""
    n = rng.choice([0] * 12 + [1] * 5 + [2] * 3 + [3, 3, 4, 5])
    if n == 0:
        return []
    legal = set(board.legal_moves)
    cands = []
    for move in view.generate_pseudo_legal_moves():
        if move.promotion not in (None, chess.QUEEN) or move in legal:
            continue
        cands.append(strip_suffix(view.san(move)))
    us = board.turn
    last = 7 if us == chess.WHITE else 0
    for sq in view.pieces(chess.PAWN, us):
        for to in chess.SquareSet(chess.BB_PAWN_ATTACKS[us][sq]):
            if view.piece_at(to) is not None:
                continue
            promo = chess.QUEEN if chess.square_rank(to) == last else None
            move = chess.Move(sq, to, promo)
            if move not in legal:
                cands.append(pawn_capture_san(board, move))
    if not cands:
        return []
    return rng.sample(cands, min(n, len(cands)))


def kriegspiel_san(board, view, move):
    """SAN disambiguated on the player's board (seed 002, III.B.1), with
    the capture and check marks of the true position."""
    san = board.san(move)
    piece = board.piece_type_at(move.from_square)
    if piece in (chess.PAWN, chess.KING):
        return san
    suffix = san[len(strip_suffix(san)):]
    seen = strip_suffix(view.san(move))
    if board.is_capture(move):
        seen = seen[:-2] + "x" + seen[-2:]
    return seen + suffix


def codes_after(board, move):
    """Push move; return the referee's announcements for it."""
    codes = []
    if board.is_capture(move):
        sq = move.to_square
        if board.is_en_passant(move):
            sq = chess.square(
                chess.square_file(move.to_square),
                chess.square_rank(move.from_square),
            )
        codes.append("X" + chess.square_name(sq))
    board.push(move)
    codes += check_codes(board)
    return ",".join(codes)


# Chance per half-move of a variation beside it, by depth (main line 0).
SUB_CHANCE = [0.022, 0.02, 0.02]


def play_line(board, length, rng, depth, first=None):
    """Random legal play from board (which it changes): a list of Ply."""
    plies = []
    while len(plies) < length and not board.is_game_over():
        legal = list(board.legal_moves)
        if first is not None and not plies:
            move = first
        else:
            captures = [m for m in legal if board.is_capture(m)]
            pick = captures if captures and rng.random() < 0.4 else legal
            move = rng.choice(pick)
        subs = []
        if depth < len(SUB_CHANCE) and rng.random() < SUB_CHANCE[depth]:
            others = [m for m in legal if m != move]
            if others:
                alt = rng.choice(others)
                n = rng.randint(2, 14) if depth == 0 else rng.randint(1, 6)
                subs.append(play_line(board.copy(), n, rng, depth + 1, alt))
        view = own_view(board)
        tries = real_attempts(board, view, rng)
        san = kriegspiel_san(board, view, move)
        codes = codes_after(board, move)
        plies.append(Ply(san, codes, ",".join(tries), subs))
    return plies


def play_real(rng):
    """One random legal game with variations, and its result."""
    board = chess.Board()
    plies = play_line(board, rng.randrange(30, 140), rng, 0)
    if board.is_game_over():
        result = board.result()
    else:
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return plies, result


class Style:
    """How one game is written: spaces inside braces and parentheses,
    and when Black's moves get a move number."""

    # `;` comments: off unless --semicolons (pgn-extract 19.04 rejects
    # them; see the module doc).
    semicolons = False

    def __init__(self, rng):
        self.loose = rng.random() < 0.25
        self.export = rng.random() < 0.75


def comment_tokens(text, style, head=""):
    """A {...} comment as tokens that the line breaker may split
    between words; head (the Kriegspiel part) stays with the brace."""
    words = text.split()
    first = head if head else words.pop(0)
    if style.loose:
        if not words:
            return ["{ " + first + " }"]
        return ["{ " + first] + words[:-1] + [words[-1] + " }"]
    if not words:
        return ["{" + first + "}"]
    return ["{" + first] + words[:-1] + [words[-1] + "}"]


NL = None  # a token that ends the line


def line_comment(text, style):
    """A `;` comment to the end of the line with --semicolons, else the
    same text as a {...} comment (the same random draws either way, so
    the two corpora differ only there)."""
    if style.semicolons:
        return ["; " + text, NL]
    return comment_tokens(text, style)


def emit_line(toks, plies, start, rng, style, depth):
    """Append the tokens of a line of play that starts at half-move
    start (0 is White's first)."""
    number = True
    for k, ply in enumerate(plies):
        p = start + k
        if p % 2 == 0:
            toks.append(f"{p // 2 + 1}.")
        elif number or rng.random() < 0.1:
            toks.append(f"{p // 2 + 1}...")
        number = False
        san = ply.san
        if rng.random() < 0.03:
            san += rng.choice(["!", "?", "!?", "?!", "!!", "??"])
        toks.append(san)
        if rng.random() < 0.06:
            toks.append(f"${rng.randint(1, 6)}")
        text = free_text(rng) if rng.random() < 0.65 else ""
        toks += comment_tokens(text, style, f"({ply.codes}:{ply.tries})")
        number = style.export
        if rng.random() < 0.04:
            toks.append(f"${rng.randint(10, 19)}")
        if rng.random() < 0.02:
            toks += comment_tokens(free_text(rng), style)
        r = rng.random()
        if r < 0.012:
            toks += line_comment(rng.choice(LINE_COMMENTS), style)
        elif r < 0.016:
            toks += [NL, rng.choice(ESCAPES), NL]
        for sub in ply.subs:
            if depth == 0 and rng.random() < 0.1:
                continue
            inner = []
            emit_line(inner, sub, p, rng, style, depth + 1)
            if style.loose:
                toks += ["("] + inner + [")"]
            else:
                inner[0] = "(" + inner[0]
                toks += inner
                if toks[-1] is NL:
                    toks.append(")")
                else:
                    toks[-1] += ")"
            number = True


def wrap(toks):
    """Lines of at most WIDTH characters, broken between tokens."""
    lines = []
    line = ""
    for tok in toks:
        if tok is NL:
            if line:
                lines.append(line)
                line = ""
        elif line and len(line) + 1 + len(tok) > WIDTH:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    if line:
        lines.append(line)
    return lines


def render_real(n, game, rng, out):
    plies, result = game
    style = Style(rng)
    white, black = rng.randrange(1000), rng.randrange(1000)
    if rng.random() < 0.005:
        out.append(rng.choice(ESCAPES) + "\n")
    tags = [
        f'[Event "Kriegspiel Berkeley {n // 50 + 1}"]',
        '[Site "UC Berkeley"]',
        f'[Date "2004.{n % 12 + 1:02}.{n % 28 + 1:02}"]',
        f'[Round "{n % 9 + 1}"]',
        f'[White "Player{white}"]',
        f'[Black "Player{black}"]',
        f'[Result "{result}"]',
        f'[{rng.choice(["Rules", "Variant"])} "Kriegspiel (Berkeley)"]',
    ]
    if rng.random() < 0.9:
        tags.append('[Filtered "no"]')
    if rng.random() < 0.6:
        tags.append(f'[TimeControl "{rng.choice(["180", "300+5", "900"])}"]')
    if rng.random() < 0.5:
        tags.append(f'[WhiteElo "{1200 + white}"]')
        tags.append(f'[BlackElo "{1200 + black}"]')
    if rng.random() < 0.4:
        tags.append(f'[PlyCount "{len(plies)}"]')
    if rng.random() < 0.3:
        tags.append(f'[Termination "{rng.choice(["normal", "time forfeit"])}"]')
    if rng.random() < 0.1:
        tags.append(f'[Annotator "Player{white}"]')
    out.append("\n".join(tags))
    out.append("\n\n")
    toks = []
    r = rng.random()
    if r < 0.1:
        toks += comment_tokens(rng.choice(OPENERS) + " " + free_text(rng), style)
    elif r < 0.13:
        toks += line_comment(rng.choice(OPENERS), style)
    emit_line(toks, plies, 0, rng, style, 0)
    toks.append(result)
    out.append("\n".join(wrap(toks)))
    out.append("\n\n")


USAGE = "usage: gen_kpgn.py [--shape real|tidy] [--semicolons] SIZE_MB [SEED]"


def main():
    args = []
    shape = "real"
    argv = sys.argv[1:]
    while argv:
        arg = argv.pop(0)
        if arg == "--shape" and argv:
            shape = argv.pop(0)
        elif arg.startswith("--shape="):
            shape = arg[len("--shape="):]
        elif arg == "--semicolons":
            Style.semicolons = True
        elif arg.startswith("-") and arg != "-" and not arg[1:2].isdigit():
            sys.exit(USAGE)
        else:
            args.append(arg)
    if shape not in ("real", "tidy") or len(args) not in (1, 2):
        sys.exit(USAGE)
    if shape == "tidy" and Style.semicolons:
        sys.exit("gen_kpgn.py: --semicolons is for the real shape")
    size = int(float(args[0]) * 1_000_000)
    rng = random.Random(int(args[1]) if len(args) == 2 else 1)
    if shape == "real":
        pool = [play_real(rng) for _ in range(REAL_POOL)]
        draw = render_real
    else:
        pool = [play(rng) for _ in range(POOL)]
        draw = render
    written = 0
    n = 0
    stdout = sys.stdout.buffer
    while written < size:
        out = []
        for _ in range(100):
            draw(n, pool[rng.randrange(len(pool))], rng, out)
            n += 1
        data = "".join(out).encode()
        stdout.write(data)
        written += len(data)


if __name__ == "__main__":
    main()
