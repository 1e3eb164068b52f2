#!/usr/bin/env python3
"""Replay unfiltered Kriegspiel PGN with python-chess and check it.

Usage: ksgame_check.py [FILE ...]   (standard input when no file)

Independent of ks-game (it does not import the referee). For every game:
- tags: the seven standard ones in order, then a Variant or Rules tag
  "Kriegspiel (Berkeley)", then Filtered "no"; the Result tag equals the
  termination marker;
- move numbers agree with the ply; no movetext line is longer than 79;
- every move is legal in the true position, its `+`/`#` is what the move
  gives, and its SAN is the Kriegspiel SAN: the unique name of that move
  among the moves that look possible on the mover's own view (own men
  alone; pawn captures to any square free of own men), disambiguated by
  the SAN rules (file, else rank, else both);
- every illegal attempt names exactly one move of that own view, carries
  no capture or check mark (pawn captures are always `exd5`), is not
  repeated in its turn, and is illegal in the true position;
- the response codes are exactly the capture square (for en passant the
  captured pawn's square) followed by one C code per man giving check
  (F file, R rank, N knight, L/S the longer/shorter diagonal through the
  king's square, measured by walking the board);
- a game ends at mate, stalemate or insufficient material, if at all
  before its last move, and the result agrees with mate and stalemate.

Prints a summary with the feature counts to stdout; every problem to
stderr as FILE:LINE: message. Exit status 1 when there is a problem.
"""

import re
import sys

import chess

TAGS7 = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}
SAN_RE = re.compile(
    r"^(?:(O-O-O|O-O)"
    r"|([KQRBN])([a-h])?([1-8])?(x)?([a-h][1-8])"
    r"|([a-h])(?:x([a-h][1-8])|([1-8]))(?:=([QRBN]))?)"
    r"([+#])?$")
LETTER = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK,
          "B": chess.BISHOP, "N": chess.KNIGHT}


class Problem(Exception):
    pass


def view_moves(board):
    """Moves that look possible on the own view, built square by square
    (not with python-chess's move generator, unlike the generator)."""
    me = board.turn
    mine = board.occupied_co[me]
    out = []
    for sq in chess.SquareSet(mine):
        p = board.piece_type_at(sq)
        if p == chess.PAWN:
            step = 8 if me == chess.WHITE else -8
            last = 7 if me == chess.WHITE else 0
            start = 1 if me == chess.WHITE else 6
            promos = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT]
            targets = []
            one = sq + step
            if not mine & chess.BB_SQUARES[one]:
                targets.append(one)
                two = sq + 2 * step
                if chess.square_rank(sq) == start and not mine & chess.BB_SQUARES[two]:
                    targets.append(two)
            f = chess.square_file(sq)
            for df in (-1, 1):
                if 0 <= f + df <= 7:
                    to = one + df
                    if not mine & chess.BB_SQUARES[to]:
                        targets.append(to)
            for to in targets:
                if chess.square_rank(to) == last:
                    out += [chess.Move(sq, to, promotion=q) for q in promos]
                else:
                    out.append(chess.Move(sq, to))
        else:
            # Rays stop only at own men: the opponent's are invisible.
            for to in chess.SquareSet(attacks_own_only(p, sq, mine) & ~mine):
                out.append(chess.Move(sq, to))
    king = board.king(me)
    back = 0 if me == chess.WHITE else 7
    if king == chess.square(4, back):
        for rook_file, between, to_file in ((7, (5, 6), 6), (0, (1, 2, 3), 2)):
            has = (board.has_kingside_castling_rights(me) if rook_file == 7
                   else board.has_queenside_castling_rights(me))
            if has and all(not mine & chess.BB_SQUARES[chess.square(f, back)]
                           for f in between):
                out.append(chess.Move(king, chess.square(to_file, back)))
    return out


def attacks_own_only(piece, sq, mine):
    dirs = {
        chess.KNIGHT: [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)],
        chess.KING: [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)],
        chess.ROOK: [(1, 0), (-1, 0), (0, 1), (0, -1)],
        chess.BISHOP: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    }
    dirs[chess.QUEEN] = dirs[chess.ROOK] + dirs[chess.BISHOP]
    slide = piece in (chess.ROOK, chess.BISHOP, chess.QUEEN)
    bb = 0
    f0, r0 = chess.square_file(sq), chess.square_rank(sq)
    for df, dr in dirs[piece]:
        f, r = f0 + df, r0 + dr
        while 0 <= f <= 7 and 0 <= r <= 7:
            t = chess.square(f, r)
            bb |= chess.BB_SQUARES[t]
            if not slide or mine & chess.BB_SQUARES[t]:
                break
            f, r = f + df, r + dr
    return bb


def resolve(board, view, token, played):
    """The own-view move a Kriegspiel SAN token names, and the canonical
    token for it (for comparison). Raises Problem."""
    m = SAN_RE.match(token)
    if not m:
        raise Problem(f"not Kriegspiel SAN: {token}")
    castle, piece, dfile, drank, cap, to, pfile, pto, pdest_rank, promo, mark = m.groups()
    if mark and not played:
        raise Problem(f"attempt {token} carries a check mark")
    if cap and not played:
        raise Problem(f"attempt {token} carries a capture mark")
    me = board.turn
    if castle:
        f = 6 if castle == "O-O" else 2
        cands = [v for v in view if board.piece_type_at(v.from_square) == chess.KING
                 and abs(chess.square_file(v.from_square) - chess.square_file(v.to_square)) == 2
                 and chess.square_file(v.to_square) == f]
    elif piece:
        t = chess.parse_square(to)
        cands = [v for v in view if v.to_square == t
                 and board.piece_type_at(v.from_square) == LETTER[piece]
                 and (dfile is None or chess.square_file(v.from_square) == "abcdefgh".index(dfile))
                 and (drank is None or chess.square_rank(v.from_square) == int(drank) - 1)]
    else:
        if pto:
            t = chess.parse_square(pto)
            if chess.square_file(t) == "abcdefgh".index(pfile):
                raise Problem(f"pawn capture along its file: {token}")
        else:
            t = chess.parse_square(pfile + pdest_rank)
        q = LETTER[promo] if promo else None
        cands = [v for v in view if v.to_square == t and v.promotion == q
                 and board.piece_type_at(v.from_square) == chess.PAWN
                 and chess.square_file(v.from_square) == "abcdefgh".index(pfile)]
    if len(cands) != 1:
        raise Problem(f"{token} names {len(cands)} moves of the own view")
    move = cands[0]
    return move, canonical(board, view, move, played)


def canonical(board, view, move, played):
    p = board.piece_type_at(move.from_square)
    fr, to = move.from_square, move.to_square
    if p == chess.KING and abs(chess.square_file(fr) - chess.square_file(to)) == 2:
        s = "O-O" if chess.square_file(to) == 6 else "O-O-O"
    elif p == chess.PAWN:
        if chess.square_file(fr) != chess.square_file(to):
            s = "abcdefgh"[chess.square_file(fr)] + "x" + chess.square_name(to)
        else:
            s = chess.square_name(to)
        if move.promotion:
            s += "=" + chess.piece_symbol(move.promotion).upper()
    else:
        others = {v.from_square for v in view if v.to_square == to
                  and v.from_square != fr and board.piece_type_at(v.from_square) == p}
        d = ""
        if others:
            if chess.square_file(fr) not in {chess.square_file(o) for o in others}:
                d = chess.square_name(fr)[0]
            elif chess.square_rank(fr) not in {chess.square_rank(o) for o in others}:
                d = chess.square_name(fr)[1]
            else:
                d = chess.square_name(fr)
        x = "x" if played and board.is_capture(move) else ""
        s = chess.piece_symbol(p).upper() + d + x + chess.square_name(to)
    if played:
        b = board.copy(stack=False)
        b.push(move)
        s += "#" if b.is_checkmate() else "+" if b.is_check() else ""
    return s


def diag_len(sq, df, dr):
    """Squares on the diagonal through sq with direction (df, dr)."""
    n = 1
    for s in (1, -1):
        f, r = chess.square_file(sq) + s * df, chess.square_rank(sq) + s * dr
        while 0 <= f <= 7 and 0 <= r <= 7:
            n += 1
            f, r = f + s * df, r + s * dr
    return n


def codes_after(before, move, after):
    codes = []
    if before.is_capture(move):
        sq = move.to_square
        if before.is_en_passant(move):
            sq = chess.square(chess.square_file(move.to_square),
                              chess.square_rank(move.from_square))
        codes.append("X" + chess.square_name(sq))
    king = after.king(after.turn)
    checks = []
    for a in after.checkers():
        df = chess.square_file(a) - chess.square_file(king)
        dr = chess.square_rank(a) - chess.square_rank(king)
        if after.piece_type_at(a) == chess.KNIGHT:
            checks.append("CN")
        elif df == 0:
            checks.append("CF")
        elif dr == 0:
            checks.append("CR")
        else:
            sdf, sdr = (1 if df > 0 else -1), (1 if dr > 0 else -1)
            mine = diag_len(king, sdf, sdr)
            other = diag_len(king, sdf, -sdr)
            checks.append("CL" if mine > other else "CS")
    return codes, checks


def games(lines):
    """Yield (first line number, tags [(name, value, line)], movetext lines)."""
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        start = i
        tags = []
        while i < len(lines) and lines[i].startswith("["):
            m = re.match(r'^\[(\w+) "([^"]*)"\]$', lines[i])
            if not m:
                raise Problem(f"{i + 1}: bad tag line")
            tags.append((m.group(1), m.group(2), i + 1))
            i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("["):
            body.append((i + 1, lines[i]))
            i += 1
        yield start + 1, tags, body


def tokens(body):
    """Movetext tokens with their line numbers; comments are one token."""
    out = []
    text = "".join(f"\x00{n}\x00{line}\n" for n, line in body)
    pos, line = 0, 0
    while pos < len(text):
        c = text[pos]
        if c == "\x00":
            end = text.index("\x00", pos + 1)
            line = int(text[pos + 1:end])
            pos = end + 1
        elif c.isspace():
            pos += 1
        elif c == "{":
            end = text.index("}", pos)
            out.append((line, re.sub(r"\x00\d+\x00", "", text[pos:end + 1])))
            pos = end + 1
        else:
            end = pos
            while end < len(text) and not text[end].isspace() and text[end] not in "{\x00":
                end += 1
            out.append((line, text[pos:end]))
            pos = end
    return out


FEATURES = ["promotion", "underpromotion", "en passant", "O-O", "O-O-O",
            "double check", "mate by white", "mate by black", "stalemate",
            "insufficient material", "illegal attempts"]


def check_game(tags, body, stats):
    names = [t[0] for t in tags]
    if names[:7] != TAGS7:
        raise Problem(f"tags start {names[:7]}, not the seven standard ones")
    if len(tags) < 9 or tags[7][0] not in ("Variant", "Rules") \
            or tags[7][1] != "Kriegspiel (Berkeley)" \
            or tags[8][:2] != ("Filtered", "no"):
        raise Problem("eighth and ninth tags are not Variant/Rules and Filtered \"no\"")
    result_tag = tags[6][1]
    for n, line in body:
        if len(line) > 79:
            raise Problem(f"line {n} has {len(line)} characters")
    board = chess.Board()
    feats = set()
    toks = tokens(body)
    i = 0
    marker = None
    while i < len(toks):
        n, t = toks[i]
        if t in RESULTS:
            marker = t
            if i != len(toks) - 1:
                raise Problem(f"line {n}: text after the termination marker")
            break
        ply = len(board.move_stack)
        if ply % 2 == 0:
            if t != f"{ply // 2 + 1}.":
                raise Problem(f"line {n}: expected move number {ply // 2 + 1}., got {t}")
            i += 1
            n, t = toks[i]
        if board.is_game_over():
            raise Problem(f"line {n}: move {t} after the game ended")
        if i + 1 >= len(toks) or not toks[i + 1][1].startswith("{("):
            raise Problem(f"line {n}: move {t} has no Kriegspiel comment")
        comment = toks[i + 1][1]
        m = re.fullmatch(r"\{\(([^:]*):([^)]*)\)\}", comment)
        if not m:
            raise Problem(f"line {n}: bad comment {comment}")
        codes = m.group(1).split(",") if m.group(1) else []
        attempts = m.group(2).split(",") if m.group(2) else []
        view = view_moves(board)
        try:
            move, want = resolve(board, view, t, True)
        except Problem as e:
            raise Problem(f"line {n}: {e}")
        if not board.is_legal(move):
            raise Problem(f"line {n}: {t} is illegal in the true position")
        if t != want:
            raise Problem(f"line {n}: {t} should be written {want}")
        seen = set()
        for a in attempts:
            try:
                am, awant = resolve(board, view, a, False)
            except Problem as e:
                raise Problem(f"line {n}: attempt: {e}")
            if a != awant:
                raise Problem(f"line {n}: attempt {a} should be written {awant}")
            if board.is_legal(am):
                raise Problem(f"line {n}: attempt {a} is legal in the true position")
            if am in seen:
                raise Problem(f"line {n}: attempt {a} repeated")
            seen.add(am)
        if attempts:
            feats.add("illegal attempts")
            stats["attempts"] += len(attempts)
        before = board.copy(stack=False)
        if before.is_en_passant(move):
            feats.add("en passant")
        if before.is_kingside_castling(move):
            feats.add("O-O")
        if before.is_queenside_castling(move):
            feats.add("O-O-O")
        if move.promotion:
            feats.add("promotion")
            if move.promotion != chess.QUEEN:
                feats.add("underpromotion")
        board.push(move)
        xs, cs = codes_after(before, move, board)
        got_x = [c for c in codes if c.startswith("X")]
        got_c = [c for c in codes if c.startswith("C")]
        if codes != got_x + got_c or got_x != xs or sorted(got_c) != sorted(cs):
            raise Problem(f"line {n}: {t} {comment}: codes should be {','.join(xs + cs)}")
        if len(cs) == 2:
            feats.add("double check")
        stats["plies"] += 1
        i += 2
    if marker is None:
        raise Problem("no termination marker")
    if marker != result_tag:
        raise Problem(f"termination marker {marker}, Result tag {result_tag}")
    if board.is_checkmate():
        want = "0-1" if board.turn == chess.WHITE else "1-0"
        feats.add("mate by white" if want == "1-0" else "mate by black")
    elif board.is_stalemate():
        want = "1/2-1/2"
        feats.add("stalemate")
    elif board.is_insufficient_material():
        want = "1/2-1/2"
        feats.add("insufficient material")
    else:
        want = None
    if want and marker != want:
        raise Problem(f"the game ends in {'mate' if board.is_checkmate() else 'a draw'}, "
                      f"result {marker}")
    for f in feats:
        stats[f] += 1


def main():
    files = sys.argv[1:] or ["-"]
    stats = {f: 0 for f in FEATURES}
    stats.update(games=0, plies=0, attempts=0)
    bad = 0
    for name in files:
        text = sys.stdin.read() if name == "-" else open(name, encoding="utf-8").read()
        for start, tags, body in games(text.split("\n")):
            stats["games"] += 1
            try:
                check_game(tags, body, stats)
            except Problem as e:
                bad += 1
                sys.stderr.write(f"{name}:{start}: {e}\n")
    print(f"games: {stats['games']}, bad: {bad}, plies: {stats['plies']}, "
          f"illegal attempts: {stats['attempts']}")
    for f in FEATURES:
        print(f"  games with {f}: {stats[f]}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
