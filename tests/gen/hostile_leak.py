#!/usr/bin/env python3
"""Hostile variants of refereed Kriegspiel games, and a checker of what
kpgn-filter writes for them (independent of the crate: its own reader of
the output).

Usage: hostile_leak.py [--filter PATH] [--cases N] [--seed S] [--keep DIR]
                       [--pipeline] [--multi]

--pipeline also runs kpgn-check on each case: a case with a fault must
not pass it, and filtering what passes gives what filtering the case
gives. --multi instead makes inputs of 2 to 6 games (some without tags,
some without move numbers or termination marker, some with faults),
sometimes in two files, runs kpgn-check on them and kpgn-filter on what
passes: no marker of the opponent's may show.

Each case takes a game of tests/data/kpgn/ksgame.pgn, a player and
options, and writes the game with hostile layout: every kind of white
space and line end (LF, CR, CR LF, U+0085, U+2028, tab, VT, FF, U+00A0)
between tokens, inside Kriegspiel comments, right after `{` and before
`}`; numbers glued to moves, `N...` or not for Black, `01.`; glyphs glued
and apart, NAGs glued and apart; comments, `;` comments (holding `}`,
`{`, `(`, `[`), `%` lines in every gap; variations with comments and
nested variations; free text in Kriegspiel comments; FEN starts with
Black to move; Filtered tags in several spellings. Every comment carries
a unique marker; the case knows whose each item is (FORMATS.md,
Kriegspiel PGN point 11).

Faults that must make the game refused: a word where a move goes, a wrong
move number, a Kriegspiel comment that does not parse, a line of tag
pairs inside a comment or variation, a NUL or invalid byte between
tokens, an unusual space, a Filtered tag naming the opponent. Then
the output must be empty and the status 2.

The check of an accepted game: the output's tags are the input's with
Filtered naming the player; its movetext, read token by token, is exactly
what the case expects: the player's items as written, each opponent move
`??`, each opponent Kriegspiel comment `{(codes:count)}` (its free text
only with --keep-comments), no other opponent item (but its comments
with --keep-comments), no variation, and with --plies the cut and `*`.
Markers of the opponent's never appear anywhere (the leak check proper).
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "tests", "data", "kpgn", "ksgame.pgn")

LINE_ENDS = ["\n", "\r\n", "\r", "\u0085", "\u2028"]
BLANKS = [" ", "\t", "\x0b", "\x0c", "\u00a0", "  ", " \u00a0", "\t "]


# ---- the corpus ----

def read_corpus():
    text = open(CORPUS, encoding="utf-8").read()
    games = []
    chunks = re.split(r"\n\n(?=\[)", text.strip("\n"))
    for chunk in chunks:
        head, _, moves = chunk.partition("\n\n")
        tags = re.findall(r'^\[(\w+) "([^"]*)"\]$', head, re.M)
        words = re.findall(r"\{[^}]*\}|\S+", moves)
        plies = []
        result = "*"
        for w in words:
            if re.fullmatch(r"\d+\.", w):
                continue
            if w in ("1-0", "0-1", "1/2-1/2", "*"):
                result = w
                continue
            if w.startswith("{"):
                m = re.fullmatch(r"\{\(([^:]*):([^)]*)\)\}", w)
                codes = [c for c in m.group(1).split(",") if c]
                atts = [a for a in m.group(2).split(",") if a]
                plies[-1]["codes"] = codes
                plies[-1]["atts"] = atts
                continue
            plies.append({"san": w, "codes": [], "atts": []})
        games.append({"tags": tags, "plies": plies, "result": result})
    return games


# ---- building a case ----

class Tok:
    """One item of the movetext: kind, text as written, whose (W, B,
    None before the first move, V in a variation), and for moves the ply."""

    def __init__(self, kind, text, who, ply=None, kc=None):
        self.kind = kind  # num move kc com semi esc nag glyph var end
        self.text = text
        self.who = who
        self.ply = ply
        self.kc = kc  # (codes, atts, free) of a Kriegspiel comment


class Case:
    def __init__(self, rng, game, n):
        self.rng = rng
        self.game = game
        self.n = n
        self.marks = 0
        self.player = rng.choice("WB")
        self.keep = rng.random() < 0.2
        self.plies = None
        if rng.random() < 0.25:
            self.plies = rng.randrange(0, len(game["plies"]) + 2)
        self.black_first = rng.random() < 0.15
        self.fault = None
        self.filtered_tag = rng.choice(
            ["no", "no", "absent", "absent", "empty", "No", "player"])
        self.style = rng.random()
        # A record without move numbers (which nothing requires).
        self.nonumbers = rng.random() < 0.1

    def marker(self, who):
        self.marks += 1
        return "Mk%dx%d%sZ" % (self.n, self.marks, who or "N")

    def side(self, ply):
        first = "B" if self.black_first else "W"
        other = "W" if first == "B" else "B"
        return first if ply % 2 == 0 else other

    def fullmove(self, ply):
        return 1 + (ply + (1 if self.black_first else 0)) // 2


def free_text(rng, case, who):
    """Free text with a marker, sometimes hostile: parentheses, colons,
    brackets, `;`, `%` after a line end, line ends of every kind."""
    m = case.marker(who)
    pieces = [m]
    for _ in range(rng.randrange(0, 3)):
        pieces.append(rng.choice([
            "(x:y)", "[Event \"no\"] tag?", "; not a line comment",
            "%not an escape", rng.choice(LINE_ENDS) + "%" + m + "e",
            rng.choice(LINE_ENDS) + "[x] no tag" + rng.choice(LINE_ENDS),
            "e4 e5 Nf3", "1. d4 ??", "$1 !?", "(", ")", "{", ":", "Qh5",
            "\u00a0", "\t", rng.choice(LINE_ENDS), "caf\u00e9", "1-0",
            "*", m + "q",
        ]))
    rng.shuffle(pieces)
    return " ".join(pieces)


def kcomment_text(rng, codes, atts, free, hostile):
    """`{(codes:atts) free}`, with white space in odd places if hostile."""
    def ws():
        if not hostile or rng.random() < 0.6:
            return ""
        return rng.choice(BLANKS + LINE_ENDS + ["\n  ", " \r\n\t"])
    parts = ["{", ws(), "(", ws()]
    for i, c in enumerate(codes):
        if i:
            parts += [ws(), ",", ws()]
        parts.append(c)
    parts += [ws(), ":", ws()]
    for i, a in enumerate(atts):
        if i:
            parts += [ws(), ",", ws()]
        parts.append(a)
    parts += [ws(), ")"]
    if free:
        parts += [rng.choice([" ", "", "\n", " \u00a0"]), free]
    parts += [ws(), "}"]
    return "".join(parts)


def variation(rng, case, depth=0):
    """A variation with markers, comments and nested variations."""
    m = case.marker("V")
    inner = rng.choice([
        "1... d5 {%s} 2. c4" % m,
        "e5 {(:d6) %s} Nf3" % m,
        "2. Nf3 ; %s ) }\n Nc6" % m,
        "{(Xe5:Nc3) %s} Qh5" % m,
        "Nf3 $1 !? {%s}" % m,
        "e8=Q+ {%s (Xe5:)}" % m,
        "O-O-O {%s} 0-0" % m,
    ])
    if depth < 2 and rng.random() < 0.4:
        inner += " " + variation(rng, case, depth + 1)
    if rng.random() < 0.3:
        inner += " {(CF:) " + case.marker("V") + ")}"
    return "(" + inner + ")"


def build(case):
    """The list of tokens of the case's movetext, with owners."""
    rng = case.rng
    toks = []
    hostile = case.style < 0.7
    # Before the first move: comments that belong to no one.
    if rng.random() < 0.3:
        toks.append(Tok("com", "{%s}" % case.marker(None), None))
    if rng.random() < 0.1:
        toks.append(Tok("semi", "; %s" % case.marker(None), None))
    for ply, p in enumerate(case.game["plies"]):
        side = case.side(ply)
        full = case.fullmove(ply)
        # Items before the number: the previous mover's.
        prev = case.side(ply - 1) if ply > 0 else None
        if ply > 0:
            gap_items(rng, case, toks, prev, 0.15)
        need_number = side == "W" or ply == 0 or rng.random() < 0.3
        between = []
        if rng.random() < 0.12:
            between = gap_list(rng, case, side)
            need_number = True
        if case.nonumbers:
            need_number = False
            between = []
        if need_number:
            if side == "W":
                num = rng.choice(["%d." % full] * 6 + ["%d" % full, "0%d." % full])
            else:
                num = rng.choice(["%d..." % full] * 5 + ["%d.." % full,
                                  "%d...." % full])
            toks.append(Tok("num", num, side))
            toks.extend(between)
        san = p["san"]
        pre = case.filtered_tag == "player" and side != case.player
        if pre:
            san = "??"
        elif rng.random() < 0.1:
            san += rng.choice(["!", "?", "!!", "??", "!?", "?!"])
        toks.append(Tok("move", san, side, ply))
        if rng.random() < 0.1:
            toks.append(Tok("glyph", rng.choice(["!", "?", "!!", "!?", "?!"]), side))
        if rng.random() < 0.1:
            toks.append(Tok("nag", "$%d" % rng.randrange(0, 200), side))
        free = free_text(rng, case, side) if rng.random() < 0.3 else ""
        kc = (p["codes"], p["atts"], free)
        atts = [str(len(p["atts"]))] if pre else p["atts"]
        if rng.random() < 0.95:
            toks.append(Tok("kc", kcomment_text(rng, p["codes"], atts,
                                                free, hostile), side, ply, kc))
    last = case.side(len(case.game["plies"]) - 1)
    gap_items(rng, case, toks, last, 0.3)
    toks.append(Tok("end", case.game["result"], last))
    if rng.random() < 0.2:
        toks.append(Tok("com", "{%s}" % case.marker(last), last))
    return toks


def gap_list(rng, case, who):
    out = []
    for _ in range(rng.randrange(1, 3)):
        r = rng.random()
        if r < 0.35:
            out.append(Tok("com", "{%s %s}" % (case.marker(who), free_text(rng, case, who)), who))
        elif r < 0.55:
            t = rng.choice(["", "}", "{", "(", ")", "[x]", "{(:e4)}"])
            out.append(Tok("semi", ";%s %s" % (t, case.marker(who)), who))
        elif r < 0.7:
            out.append(Tok("esc", "%%%s" % case.marker(who), who))
        elif r < 0.8:
            out.append(Tok("nag", "$%d" % rng.randrange(0, 300), who))
        elif r < 0.85:
            out.append(Tok("glyph", rng.choice(["!", "?", "!!", "!?", "?!"]), who))
        else:
            out.append(Tok("var", variation(rng, case), "V"))
    return out


def gap_items(rng, case, toks, who, p):
    if rng.random() < p:
        toks.extend(gap_list(rng, case, who))


def sep(rng, case, a, b):
    """The white space between tokens a and b."""
    if b.kind == "esc" or a.kind in ("semi", "esc"):
        le = rng.choice(LINE_ENDS)
        if b.kind == "esc":
            # `%` in the first column.
            pre = rng.choice(["", " ", "\t"]) if a.kind not in ("semi", "esc") else ""
            return pre + le
        return le + rng.choice(["", "", " ", "\t", "\u00a0"])
    hostile = case.style < 0.7
    if a.kind == "end" or b.kind == "uncl":
        # What follows the marker on its line belongs to the game.
        return rng.choice([" ", "", "\t", "\u00a0"])
    if a.kind == "num" and a.text.endswith(".") and b.kind == "move" and rng.random() < 0.3:
        return ""
    if a.kind == "move" and b.kind in ("kc", "com", "nag") and rng.random() < 0.2:
        return ""
    if a.kind in ("kc", "com") and rng.random() < 0.1:
        return ""
    if not hostile:
        return " " if rng.random() < 0.9 else "\n"
    r = rng.random()
    if r < 0.55:
        return " "
    if r < 0.75:
        return rng.choice(BLANKS)
    if r < 0.95:
        le = rng.choice(LINE_ENDS)
        return rng.choice(["", " "]) + le + rng.choice(["", "", "  ", "\u00a0", "\t"])
    return rng.choice(BLANKS) + rng.choice(LINE_ENDS) + rng.choice(LINE_ENDS) + rng.choice(BLANKS)


def serialize(case, toks):
    rng = case.rng
    le = rng.choice(LINE_ENDS) if case.style < 0.5 else "\n"
    tags = []
    for k, v in case.game["tags"]:
        if k == "Filtered":
            continue
        tags.append((k, v))
    rules_at = [i for i, (k, _) in enumerate(tags) if k in ("Rules", "Variant")]
    ftag = None
    if case.filtered_tag == "no":
        ftag = "no"
    elif case.filtered_tag == "empty":
        ftag = ""
    elif case.filtered_tag == "No":
        ftag = "No"
    elif case.filtered_tag == "player":
        ftag = rng.choice(["white", "White", "WHITE"]) if case.player == "W" \
            else rng.choice(["black", "Black"])
    if ftag is not None:
        tags.insert(rules_at[0] + 1 if rules_at else len(tags), ("Filtered", ftag))
    if case.black_first:
        tags.append(("SetUp", "1"))
        tags.append(("FEN", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"))
    lines = []
    for k, v in tags:
        ind = rng.choice(["", "", "", " ", "\u00a0"]) if case.style < 0.3 else ""
        inner = rng.choice([" ", "  ", "\t"]) if case.style < 0.3 else " "
        lines.append('%s[%s%s"%s"]' % (ind, k, inner, v))
    head = le.join(lines) + le + le
    body = toks[0].text
    for a, b in zip(toks, toks[1:]):
        body += sep(rng, case, a, b) + b.text
    body += le
    return head + body


# ---- what the output must be ----

def squeeze(s):
    return re.sub(r"[\s\u00a0\u0085\u2028\x0b\x0c]+", "", s)


def expected(case, toks):
    """The kept items, squeezed, in order; and whether the game is cut."""
    opp = "B" if case.player == "W" else "W"
    out = []
    cut = case.plies
    nply = len(case.game["plies"])
    if cut is not None and cut >= nply:
        cut = None
    # The index where the cut comes: the number (or move, if no number)
    # of ply `cut`.
    cut_at = None
    if cut is not None:
        for i, t in enumerate(toks):
            if t.kind == "move" and t.ply == cut:
                j = i
                if i > 0 and toks[i - 1].kind == "num":
                    j = i - 1
                else:
                    k = i - 1
                    while k >= 0 and toks[k].kind not in ("num", "move"):
                        k -= 1
                    if k >= 0 and toks[k].kind == "num" and toks[k].who == t.who:
                        j = k
                cut_at = j
                break
    for i, t in enumerate(toks):
        if cut_at is not None and i == cut_at:
            out.append("*")
            break
        if t.kind == "var":
            continue
        if t.who == opp:
            if t.kind == "move":
                out.append("??")
            elif t.kind == "kc":
                codes, atts, free = t.kc
                n = len(atts)
                s = "{(" + ",".join(codes) + ":" + str(n) + ")"
                if case.keep and free:
                    s += free
                out.append(squeeze(s + "}"))
            elif t.kind in ("com", "semi", "esc") and case.keep:
                out.append(squeeze(t.text))
            elif t.kind in ("num", "end"):
                out.append(squeeze(t.text))
            continue
        out.append(squeeze(t.text))
    return out, cut_at is not None


SPACE_RE = "[ \t\x0b\x0c\u00a0\r\n\u0085\u2028]"


def read_output(text):
    """(tags, movetext items squeezed) of one game's output."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u0085", "\n").replace("\u2028", "\n")
    lines = text.split("\n")
    tags = []
    i = 0
    while i < len(lines):
        l = lines[i].strip(" \t\u00a0")
        if l.startswith("["):
            for m in re.finditer(r'\[\s*(\w+)\s*"((?:[^"\\]|\\.)*)"\s*\]', l):
                tags.append((m.group(1), m.group(2)))
            i += 1
            continue
        if l == "" or lines[i].startswith("%"):
            i += 1
            continue
        break
    mt = "\n".join(lines[i:])
    items = []
    j = 0
    at_start = True
    while j < len(mt):
        c = mt[j]
        if c == "\n":
            at_start = True
            j += 1
            continue
        if c in " \t\x0b\x0c\u00a0":
            j += 1
            continue
        if c == "%" and at_start:
            e = mt.find("\n", j)
            e = len(mt) if e < 0 else e
            items.append(squeeze(mt[j:e]))
            j = e
            continue
        at_start = False
        if c == "{":
            e = mt.find("}", j)
            if e < 0:
                items.append("<<unclosed " + mt[j:] + ">>")
                break
            items.append(squeeze(mt[j:e + 1]))
            j = e + 1
            continue
        if c == ";":
            e = mt.find("\n", j)
            e = len(mt) if e < 0 else e
            items.append(squeeze(mt[j:e]))
            j = e
            continue
        m = re.compile(r"[^\s\u00a0\x0b\x0c{};()]+").match(mt, j)
        if not m:
            items.append(c)
            j += 1
            continue
        w = m.group(0)
        j = m.end()
        # A number glued to what follows.
        nm = re.match(r"(\d+\.+)([^.].*)", w)
        if nm and not re.fullmatch(r"\d+(/\d+)?-\d+(/\d+)?", w):
            items.append(nm.group(1))
            items.append(nm.group(2))
        else:
            items.append(w)
    # Glued move+nag: split `$`.
    res = []
    for it in items:
        if not it.startswith(("{", ";", "%")) and "$" in it[1:]:
            k = it.index("$")
            res.append(it[:k])
            res.append(it[k:])
        else:
            res.append(it)
    return tags, res


def check_case(case, toks, inp, out, err, rc):
    """A problem with the output, or None."""
    opp = "B" if case.player == "W" else "W"
    # The leak check proper: no marker of the opponent's, ever (but its
    # free comments' with --keep-comments), no marker of a variation.
    for m in re.findall(r"Mk\d+x\d+([WBNV])Z", out):
        if m == "V":
            return "variation marker in output"
        if m == opp and not case.keep:
            return "opponent marker in output"
    if case.fault:
        if out:
            return "fault %s: output written" % case.fault
        if rc != 2:
            return "fault %s: status %d" % (case.fault, rc)
        return None
    if rc != 0:
        return "status %d: %s" % (rc, err.strip()[:300])
    tags, items = read_output(out)
    ft = [v.lower() for k, v in tags if k == "Filtered"]
    want = "white" if case.player == "W" else "black"
    if ft != [want]:
        return "Filtered tags %r" % ft
    exp, cut = expected(case, toks)
    # Glued items in the input are split the same way by read_output only
    # if they are tokens of their own; compare squeezed concatenations
    # where they differ only by gluing.
    if items != exp:
        # Glyphs glued to the player's moves stay glued; compare the
        # concatenation as a fallback for layout-only differences.
        if "".join(items) == "".join(exp):
            return None
        k = 0
        while k < min(len(items), len(exp)) and items[k] == exp[k]:
            k += 1
        return "items differ at %d: got %r want %r" % (
            k, items[max(0, k - 2):k + 3], exp[max(0, k - 2):k + 3])
    if cut:
        r = [v for k, v in tags if k == "Result"]
        if r != ["*"]:
            return "cut but Result %r" % r
    return None


# ---- faults ----

FAULTS = [
    "word", "number", "badkc", "tagincomment", "taginvar", "nul",
    "badbyte", "oddspace", "filtered_opp", "second_kc", "open_var",
    "unclosed", "bom_mid", "close_paren", "semicolon_kc",
]


def add_fault(case, toks):
    rng = case.rng
    f = rng.choice(FAULTS)
    opp = "B" if case.player == "W" else "W"
    movs = [i for i, t in enumerate(toks) if t.kind == "move"]
    if not movs:
        return
    i = rng.choice(movs)
    t = toks[i]
    if f == "word":
        toks.insert(i + 1, Tok("move", rng.choice(["draw?", "hello", "Qxz9", "e9", "exd6e.p.", "e8Q", "Ke", "=Q"]), t.who))
    elif f == "number":
        nums = [k for k, x in enumerate(toks) if x.kind == "num"]
        if not nums:
            return
        k = rng.choice(nums)
        x = toks[k]
        n = int(re.match(r"\d+", x.text).group(0))
        x.text = rng.choice(["%d." % (n + 1), "%d..." % (n + 1),
                             ("%d..." % n) if x.who == "W" else ("%d." % n),
                             "%d" % (n + 1)])
    elif f == "badkc":
        toks.insert(i + 1, Tok("com", rng.choice(["{(Xz9:)}", "{(:draw?)}", "{(CQ:)}", "{(:e4 SECRET)}", "{ (:e4,,e5)}", "{(: e4"
                                                   " %s)}" % case.marker(t.who)]), t.who))
        # remove the move's own kc to avoid the second-comment fault being the reason
    elif f == "tagincomment":
        toks.insert(i + 1, Tok("com", "{%s\n[Event \"x\"]\n%s}" % (case.marker(t.who), case.marker(t.who)), t.who))
    elif f == "taginvar":
        toks.insert(i + 1, Tok("var", "(1... d5\n[Event \"x\"]\n" + case.marker("V") + ")", "V"))
    elif f == "nul":
        t.text = t.text + rng.choice(["\x00", " \x00 "])
    elif f == "badbyte":
        t.text = t.text + " " + rng.choice(["\udcff", "\ufeff", "\u200b", "\u2029", "\u3000", "\u00ad"])
    elif f == "oddspace":
        kcs = [k for k, x in enumerate(toks) if x.kind == "kc"]
        if not kcs:
            return
        x = toks[rng.choice(kcs)]
        x.text = "{" + rng.choice(["\u200b", "\ufeff", "\u3000", "\u2009", "\u202f"]) + x.text[1:]
    elif f == "filtered_opp":
        case.filtered_override = "opponent"
    elif f == "second_kc":
        if i + 1 < len(toks) and toks[i + 1].kind == "kc":
            toks.insert(i + 2, Tok("kc", "{(:)}", t.who, t.ply, ([], [], "")))
        else:
            return
    elif f == "open_var":
        toks.insert(i + 1, Tok("var", "(1... d5 {%s}" % case.marker("V"), "V"))
    elif f == "unclosed":
        toks.append(Tok("uncl", "{" + case.marker(toks[-1].who), toks[-1].who))
        f = "unclosed"
    elif f == "bom_mid":
        t.text = t.text + " \ufeff"
    elif f == "close_paren":
        toks.insert(i + 1, Tok("var", ")", "V"))
    elif f == "semicolon_kc":
        # `;` hides the `}` of a comment that then runs on.
        toks.insert(i + 1, Tok("com", "{ ; %s }" % case.marker(t.who), t.who))
        return  # not a fault: the `;` is inside the comment
    case.fault = f


def encode(s):
    return s.encode("utf-8", "surrogateescape")


def run_filter(exe, case, data):
    args = [exe, "-w" if case.player == "W" else "-b"]
    if case.keep:
        args.append("--keep-comments")
    if case.plies is not None:
        args += ["--plies", str(case.plies)]
    p = subprocess.run(args, input=data, capture_output=True)
    return p.stdout, p.stderr, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--filter", default=os.path.join(ROOT, "target", "release", "kpgn-filter"))
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault-rate", type=float, default=0.2)
    ap.add_argument("--keep", default=None)
    ap.add_argument("--pipeline", action="store_true")
    ap.add_argument("--multi", action="store_true")
    args = ap.parse_args()
    if args.multi:
        return 1 if multi(args) else 0
    games = read_corpus()
    rng = random.Random(args.seed)
    problems = 0
    faults = 0
    passed = {}
    for n in range(args.cases):
        game = rng.choice(games)
        case = Case(rng, game, n)
        case.filtered_override = None
        toks = build(case)
        if rng.random() < args.fault_rate:
            add_fault(case, toks)
        if case.fault:
            faults += 1
        inp = serialize(case, toks)
        if case.filtered_override == "opponent":
            opp = "black" if case.player == "W" else "white"
            inp = re.sub(r'\[Filtered\s*"[^"]*"\]', '[Filtered "%s"]' % opp, inp, count=1)
            if "[Filtered" not in inp:
                inp = '[Filtered "%s"]\n' % opp + inp
        data = encode(inp)
        out, err, rc = run_filter(args.filter, case, data)
        outs = out.decode("utf-8", "surrogateescape")
        problem = check_case(case, toks, inp, outs, err.decode("utf-8", "replace"), rc)
        if not problem and args.pipeline:
            chk = args.filter.replace("kpgn-filter", "kpgn-check")
            cargs = [chk] + (["--strict"] if rng.random() < 0.5 else [])
            p = subprocess.run(cargs, input=data, capture_output=True)
            passed[p.returncode] = passed.get(p.returncode, 0) + 1
            if p.returncode == 0 and case.fault:
                problem = "kpgn-check passed a game with fault %s" % case.fault
            elif p.returncode == 0:
                out2, err2, rc2 = run_filter(args.filter, case, p.stdout)
                if (out2, rc2) != (out, rc):
                    problem = "filter after kpgn-check differs"
        if problem:
            problems += 1
            print("case %d (seed %d): %s" % (n, args.seed, problem))
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                base = os.path.join(args.keep, "case%d" % n)
                open(base + ".pgn", "wb").write(data)
                open(base + ".out", "wb").write(out)
                open(base + ".err", "wb").write(err)
                open(base + ".args", "w").write(
                    "%s keep=%s plies=%s fault=%s\n" % (case.player, case.keep, case.plies, case.fault))
    print("%d cases, %d with a fault, %d problems" % (args.cases, faults, problems))
    if args.pipeline:
        print("kpgn-check statuses: %r" % passed)
    return 1 if problems else 0



# ---- many games in one input, through the referee ----

def multi(args):
    """Inputs of several cases (some without tags, some cut short, some
    with faults), refereed by kpgn-check, the games that pass filtered:
    no marker of the opponent's may show. Returns the number of
    problems."""
    games = read_corpus()
    rng = random.Random(args.seed)
    chk = args.filter.replace("kpgn-filter", "kpgn-check")
    problems = 0
    for n in range(args.cases):
        player = rng.choice("WB")
        opp = "B" if player == "W" else "W"
        parts = []
        files = []
        for k in range(rng.randrange(2, 7)):
            case = Case(rng, rng.choice(games), n * 10 + k)
            case.player = player
            case.keep = False
            case.plies = None
            case.filtered_override = None
            case.black_first = False
            case.filtered_tag = "no"
            case.nonumbers = rng.random() < 0.5
            toks = build(case)
            if rng.random() < 0.3:
                add_fault(case, toks)
            if rng.random() < 0.4:
                # Cut short: no termination marker, maybe fewer plies.
                while toks and toks[-1].kind in ("end", "com", "uncl"):
                    toks.pop()
                m = [i for i, t in enumerate(toks) if t.kind == "move"]
                if m and rng.random() < 0.5:
                    del toks[m[rng.randrange(len(m))]:]
                if not toks:
                    continue
            text = serialize(case, toks)
            if rng.random() < 0.4:
                # No tags: the movetext alone.
                text = re.split(r"(?:\r\n|\r|\n|\u0085|\u2028){2}", text, 1)[-1]
            parts.append(text)
        sep = [rng.choice(["", "\n", "\n\n", "{c}\n", "%x\n", "\r\n"]) for _ in parts]
        data = "".join(p + s for p, s in zip(parts, sep))
        split = rng.random() < 0.3
        d = tempfile.mkdtemp(prefix="hmulti")
        paths = []
        if split:
            cut = rng.randrange(1, len(parts)) if len(parts) > 1 else 1
            chunks = ["".join(p + s for p, s in zip(parts[:cut], sep[:cut])),
                      "".join(p + s for p, s in zip(parts[cut:], sep[cut:]))]
            if rng.random() < 0.5 and chunks[0].endswith("\n"):
                chunks[0] = chunks[0].rstrip("\n")
        else:
            chunks = [data]
        for i, c in enumerate(chunks):
            path = os.path.join(d, "in%d.pgn" % i)
            open(path, "wb").write(encode(c))
            paths.append(path)
        cargs = [chk] + (["--strict"] if rng.random() < 0.5 else []) + \
            [rng.choice(["-j1", "-j2"])] + paths
        p = subprocess.run(cargs, capture_output=True)
        f = subprocess.run([args.filter, "-w" if player == "W" else "-b"],
                           input=p.stdout, capture_output=True)
        out = f.stdout.decode("utf-8", "surrogateescape")
        bad = [m.group(0) for m in re.finditer(r"Mk\d+x\d+([WBNV])Z", out)
               if m.group(1) in ("V", opp)]
        if bad:
            problems += 1
            print("multi %d: leak %s; inputs in %s" % (n, bad[:3], d))
        else:
            for path in paths:
                os.unlink(path)
            os.rmdir(d)
    print("%d multi-game inputs, %d problems" % (args.cases, problems))
    return problems


if __name__ == "__main__":
    sys.exit(main())
