#!/usr/bin/env python3
"""Generate a PBI collection shaped like a real one, deterministically.

    bench/gen_pbi.py SIZE_MB [LINE_END] [--seed N] [--stats] > out.pbi

SIZE_MB is in MiB (2^20 bytes). LINE_END is lf (default), cr, crlf, nel,
ls or mixed. The same arguments always give the same bytes.

The records are shaped after real collections rather than kind to a
reader:

- about a third of the lines hold an escape, nearly always `\\x3a` (an
  escaped `:`) in a source title or in the comment;
- author names in many scripts: English, German (ä ö ü ß), Czech
  (č ř š ž ě ů), Hungarian (á é ő ű), and Cyrillic, one to three a record;
- comments that name other composers ("after S. Loyd", "Loyd-Turton
  doubling", "cf. Kubbel 1921"): a search for an author finds the name
  in the comment field of many more lines than in the names field;
- long comments (solutions, notes on the source and the theme) and
  lists of referenced sources and awards;
- positions of problems and studies (2-24 men, S for knights), and a
  rare record with something a reader warns about (a bad escape, an
  unknown status, a short source), as real files have: about one line
  in 20,000; none is an error.

--stats prints to stderr what share of the records has each of these
properties, for BENCHMARKS.md.
"""
import argparse
import random
import sys

ENDS = {"lf": "\n", "cr": "\r", "crlf": "\r\n", "nel": "\u0085", "ls": "\u2028"}

# (family, given) by script; Loyd is the name the benchmark searches for.
AUTHORS = {
    "english": [
        ("Loyd", "Samuel"), ("Healey", "Frank"), ("Meredith", "William"),
        ("Mansfield", "Comins"), ("Dawson", "Thomas Rayner"),
        ("Grimshaw", "Walter"), ("Planck", "Charles"),
        ("White", "Alain Campbell"), ("Wurzburg", "Otto"),
        ("Lipton", "Michael"), ("Rice", "John"), ("Heathcote", "Godfrey"),
        ("Guidelli", "Giorgio"), ("Ellerman", "Arnoldo"),
        ("Mari", "Alberto"), ("Rinck", "Henri"), ("Nunn", "John"),
        ("Lewis", "Michael"), ("Bristol", "Henry"), ("Turton", "Henry"),
        ("Shinkman", "William Anthony"), ("Mackenzie", "Arthur Ford"),
    ],
    "german": [
        ("Kohtz", "Johannes"), ("Kockelkorn", "Carl"),
        ("Speckmann", "Werner"), ("Grasemann", "Herbert"),
        ("Zepler", "Erich"), ("Kraemer", "Ado"), ("Brandis", "Wolfgang"),
        ("Holzhausen", "Walther von"), ("Bayersdorfer", "Adolf"),
        ("Weißauer", "Michael"), ("Müller", "Jürgen"),
        ("Brüggemann", "Wilhelm"), ("Schönberg", "Günter"),
        ("Größer", "Hans-Jörg"), ("Palitzsch", "Friedrich"),
        ("Gülke", "Jörg"), ("Fröberg", "Käthe"), ("Niemeyer", "Ulf"),
    ],
    "czech": [
        ("Havel", "Miroslav"), ("Pospíšil", "Josef"), ("Mach", "Zdeněk"),
        ("Kočí", "Vladimír"), ("Chocholouš", "Jiří"),
        ("Dobruský", "Jan"), ("Kvíčala", "Jan"), ("Pachman", "Luděk"),
        ("Šulc", "Jaroslav"), ("Kučera", "Václav"), ("Hašek", "Josef"),
        ("Fiala", "Vlastimil"), ("Šindelář", "Emil"),
        ("Řehoř", "Bořivoj"), ("Vaňková", "Růžena"),
        ("Žáček", "Přemysl"),
    ],
    "hungarian": [
        ("Bláthy", "Ottó"), ("Lörinc", "Péter"), ("Páros", "György"),
        ("Bakcsi", "György"), ("Kardos", "Tibor"), ("Szöghy", "Ödön"),
        ("Gyarmati", "Győző"), ("Benedek", "Rezső"), ("Lukács", "Péter"),
        ("Fűzfa", "Béla"), ("Ōry", "Zoltán"), ("Visserman", "Gyula"),
        ("Hernitz", "Zvonimír"), ("Kőszegi", "Ferenc"),
        ("Széll", "Dénes"),
    ],
    "cyrillic": [
        ("Шинкман", "Вильям"), ("Куббель", "Леонид"),
        ("Троицкий", "Алексей"), ("Лошинский", "Лев"),
        ("Ровнер", "Дмитрий"), ("Умнов", "Евгений"),
        ("Владимиров", "Яков"), ("Гуляев", "Александр"),
        ("Каспарян", "Генрих"), ("Кофман", "Рафаэль"),
        ("Гурвич", "Абрам"), ("Зелепукин", "Николай"),
        ("Кожакин", "Алексей"), ("Руденко", "Валентин"),
        ("Шедей", "Анатолий"), ("Жуков", "Юрий"),
    ],
}
# How often each script's names are picked.
SCRIPT_WEIGHTS = {"english": 30, "german": 20, "czech": 15, "hungarian": 15,
                  "cyrillic": 20}
# Loyd is picked for about 1 record in 40.
LOYD_SHARE = 0.025

TITLES = [
    "Chess Monthly", "Die Schwalbe", "British Chess Magazine",
    "Deutsche Schachzeitung", "Magyar Sakkvilág", "L'Echiquier",
    "Good Companion", "Шахматы в СССР", "The Problemist", "Themes-64",
    "Schweizerische Schachzeitung", "Tidskrift för Schack",
    "Československý šach", "Šachové umění", "Sächsische Schachzeitung",
    "Шахматная композиция", "64 – Шахматное обозрение", "feenschach",
    "StrateGems", "Problemista", "Magyar Sakkélet", "Schach-Echo",
    "New York Commercial Advertiser", "Le Sphinx", "Lasker's Chess Magazine",
    "Rigaer Tageblatt", "Tijdschrift van den NSB", "Národní listy",
]
# Titles as real files write them, with an escaped colon.
TITLES_ESCAPED = [
    "Chess Problems\\x3a Sam Loyd", "Schach-Echo\\x3a Beilage",
    "64\\x3a Шахматное обозрение", "Šachové umění\\x3a příloha",
    "Magyar Sakkvilág\\x3a feladványrovat", "The Problemist\\x3a Supplement",
    "Die Schwalbe\\x3a Heft 1", "Шахматы\\x3a Рига",
    "British Chess Problem Society\\x3a Bulletin",
]
TOURNEYS = ["Die Schwalbe", "Magyar Sakkvilág", "Шахматы в СССР",
            "The Problemist", "Československý šach", "Olympic Tourney",
            "Good Companion", "Loyd Memorial", "Kubbel-MT", "Troitzky-JT"]
RANKS = ["1st Prize", "2nd Prize", "3rd Prize", "Special Prize", "1st HM",
         "2nd HM", "3rd HM", "Comm.", "1. Preis", "2. Preis", "ehrende Erwähnung",
         "dícséret", "čestné uznání", "1-й приз", "почётный отзыв"]
STIPS = ["#2"] * 8 + ["#3"] * 4 + ["#4", "#5", "h#2", "h#2", "h#3",
                                   "h#2 b) -Pf3", "s#2", "s#3", "s#5",
                                   "ser-h#7", "r#3", "+", "+", "=", "="]
STATUSES = [""] * 14 + ["!", "!", "*", "+", "$", "?"]
KEYS = ["Qa7-h7", "Sf3-d4", "Rd1-d5", "Bc4-b5", "Kg2-f3", "Qh7-b7",
        "g7-g8=Q", "Se5-c6", "Bb2-c1", "Rf4-f7", "e2-e4", "Qd1-h5"]
# Ways a comment names another composer; {} is the name.
MENTIONS = [
    "after {}", "cf. {} 1859", "version of a {} problem", "{} theme",
    "{}-Turton doubling", "anticipated by {}", "a {} idea in a new setting",
    "compare {}, Chess Monthly 1857", "dedicated to {}",
    "correction of {}'s original", "{} clearance",
]
# Composers that comments name (Loyd above all, as in real collections).
NAMED = (["Loyd"] * 9 + ["S. Loyd"] * 3 + ["Kubbel", "Куббель", "Kohtz",
         "Kockelkorn", "Grimshaw", "Novotny", "Plachutta", "Bristol",
         "Healey", "Шинкман", "Havel", "Bláthy", "Pospíšil", "Holzhausen",
         "Brunner", "Zepler", "Dawson", "Loshinsky", "Троицкий"])
THEMES = ["model mates", "echo", "Grimshaw on d5", "Novotny on e4",
          "changed mates", "half-pin", "battery play", "line opening",
          "switchback", "pawn promotion to four pieces", "ideal mate",
          "Bristol clearance", "Indian theme", "Roman decoy",
          "tempo play", "fleck theme", "белая батарея", "skrytá hrozba",
          "Schnittpunkt-Kombination", "indirekte Batterie"]
NOTES = [
    "computer tested, C+", "computer tested with Popeye 4.87",
    "dual after 1...Rxd4", "the original had a white pawn on h2",
    "source gives 1866, the column is dated 1867",
    "also in A. C. White, Sam Loyd and his chess problems, 1913",
    "reprinted with a misprint on f5", "quoted from the author's own collection",
    "unsound as printed; corrected by the author in the next issue",
    "прекрасная задача", "krásná úloha", "szép feladvány",
    "schönes Problem", "first published anonymously",
]


def pick_author(rng, scripts):
    if rng.random() < LOYD_SHARE:
        return "Loyd, Samuel"
    script = rng.choices(scripts, weights=[SCRIPT_WEIGHTS[s] for s in scripts])[0]
    while True:
        family, given = rng.choice(AUTHORS[script])
        if family != "Loyd":
            break
    if rng.random() < 0.03:
        return family  # a bare family name
    return f"{family}, {given}"


def board(rng):
    """A problem or study position: one king a side and 0-22 other men."""
    squares = [None] * 64
    free = list(range(64))
    rng.shuffle(free)
    squares[free.pop()] = "K"
    squares[free.pop()] = "k"
    pawns = {"P": 0, "p": 0}
    for _ in range(rng.choice([1, 3, 5, 7, 8, 9, 10, 11, 12, 14, 16, 22])):
        sq = free.pop()
        piece = rng.choice("QRRBBSSPPPP")
        if rng.random() < 0.5:
            piece = piece.lower()
        if piece in "Pp" and (sq // 8 in (0, 7) or pawns[piece] == 8):
            white = piece == "P"
            piece = rng.choice("QRBS")
            piece = piece if white else piece.lower()
        if piece in "Pp":
            pawns[piece] += 1
        squares[sq] = piece
    ranks = []
    for r in range(7, -1, -1):
        out, empty = "", 0
        for f in range(8):
            p = squares[r * 8 + f]
            if p is None:
                empty += 1
            else:
                if empty:
                    out += str(empty)
                    empty = 0
                out += p
        if empty:
            out += str(empty)
        ranks.append(out)
    return "/".join(ranks)


def date(rng):
    year = rng.randint(1845, 2024)
    kind = rng.random()
    if kind < 0.5:
        return str(year)
    if kind < 0.75:
        return f"{year}-{rng.randint(1, 12):02d}"
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def source(rng, escaped):
    title = rng.choice(TITLES_ESCAPED if escaped else TITLES)
    nr = rng.choice(["", str(rng.randint(1, 9999)), f"v {rng.randint(1, 400)}"])
    page = rng.choice(["", "", str(rng.randint(1, 600))])
    return f"{nr}|{title}|{date(rng)}|{page}"


def solution(rng):
    """Solution text of a few moves, as comments often carry."""
    files, ranks = "abcdefgh", "12345678"
    sq = lambda: rng.choice(files) + rng.choice(ranks)
    parts = [f"1.{rng.choice('QRBSK')}{sq()}!"]
    if rng.random() < 0.6:
        parts.append(f"(2.{rng.choice('QRBS')}{sq()}#)")
    for _ in range(rng.randint(1, 6)):
        parts.append(f"1...{rng.choice('QRBSK')}x{sq()} "
                     f"2.{rng.choice('QRBS')}{sq()}#")
    return " ".join(parts)


def comment(rng, escaped):
    parts = []
    roll = rng.random()
    if roll < 0.22:
        parts.append(rng.choice(MENTIONS).format(rng.choice(NAMED)))
    if rng.random() < 0.35:
        parts.append(rng.choice(THEMES))
    if rng.random() < 0.3:
        parts.append(solution(rng))
    if rng.random() < 0.3:
        parts.append(rng.choice(NOTES))
    if escaped:
        # What real files escape: a colon in running text.
        parts.append(rng.choice([
            "cook\\x3a 1.Qd4", "Solution\\x3a " + solution(rng),
            "Note\\x3a " + rng.choice(NOTES), "Thema\\x3a " + rng.choice(THEMES),
            "source\\x3a " + rng.choice(TITLES), "key\\x3a " + rng.choice(KEYS),
        ]))
    rng.shuffle(parts)
    return "; ".join(parts)


def flaw(rng, fields):
    """Something a reader warns about, never an error."""
    kind = rng.randrange(4)
    if kind == 0:
        fields[8] += " \\q"  # not an escape
    elif kind == 1:
        fields[7] = "#"  # unknown status
    elif kind == 2:
        fields[3] = f"{rng.randint(1, 99)}|{rng.choice(TITLES)}"  # 2 subfields
    else:
        fields[8] += ": a colon in the comment"  # a tenth field


def record(rng, stats):
    """One data line (without its line end), and what it holds."""
    scripts = list(AUTHORS)
    names = ";".join(pick_author(rng, scripts)
                     for _ in range(rng.choice([1, 1, 1, 1, 2, 2, 3])))
    # An escape in about a third of the lines: split between the used
    # source's title and the comment, now and then both.
    roll = rng.random()
    esc_source = roll < 0.16
    esc_comment = 0.13 < roll < 0.34
    used = source(rng, esc_source) if rng.random() < 0.97 or esc_source else ""
    refs = ";".join(source(rng, False)
                    for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3, 5])))
    awards = ";".join(
        f"{rng.choice(['', str(rng.randint(1, 9))])}|{rng.choice(RANKS)}|"
        f"{rng.choice(TOURNEYS)}|{rng.randint(1850, 2024)}"
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2])))
    stip = rng.choice(STIPS)
    key = "" if stip.startswith(("h#", "ser")) else rng.choice(KEYS + [""])
    fields = [names, board(rng), stip, used, refs, awards, key,
              rng.choice(STATUSES), comment(rng, esc_comment)]
    if rng.random() < 1 / 20000:
        flaw(rng, fields)
        stats["flawed"] += 1
    line = ":".join(fields)
    stats["records"] += 1
    stats["bytes"] += len(line.encode())
    stats["escape"] += "\\" in line
    stats["loyd_names"] += "Loyd" in names
    stats["loyd_comment"] += "Loyd" in fields[8]
    stats["loyd_elsewhere"] += "Loyd" in ":".join(fields[1:8])
    stats["non_ascii"] += not line.isascii()
    stats["cyrillic"] += any("\u0400" <= c <= "\u04ff" for c in names)
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("size_mb", type=float)
    ap.add_argument("end", nargs="?", default="lf", choices=[*ENDS, "mixed"])
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--stats", action="store_true")
    a = ap.parse_args()
    size = int(a.size_mb * 1024 * 1024)
    rng = random.Random(a.seed)
    stats = dict.fromkeys(["records", "bytes", "escape", "loyd_names",
                           "loyd_comment", "loyd_elsewhere", "non_ascii",
                           "cyrillic", "flawed"], 0)
    # A pool of distinct records, written in a new seeded order each time
    # round: fast, deterministic, and no short period for a branch
    # predictor to learn.
    pool = [record(rng, stats) for _ in range(60000)]
    if a.stats:
        n = stats["records"]
        for k, v in stats.items():
            if k not in ("records", "bytes"):
                print(f"{k}: {v} of {n} records ({100 * v / n:.1f}%)",
                      file=sys.stderr)
        print(f"mean line: {stats['bytes'] / n:.0f} bytes", file=sys.stderr)
    ends = list(ENDS.values()) if a.end == "mixed" else [ENDS[a.end]]
    out = sys.stdout.buffer
    header = ("\ufeff#PBI 1.2" + ends[0] + "# generated by bench/gen_pbi.py"
              + ends[-1])
    out.write(header.encode())
    written = len(header.encode())
    i = 0
    while written < size:
        lines = [(r + ends[(i + k) % len(ends)]).encode()
                 for k, r in enumerate(rng.sample(pool, len(pool)))]
        i += len(lines)
        block = b"".join(lines)
        if written + len(block) > size:
            # Whole lines up to the size.
            cut = 0
            for line in lines:
                if written + cut + len(line) > size:
                    break
                cut += len(line)
            block = block[:cut]
            if not block:
                break
        out.write(block)
        written += len(block)

if __name__ == "__main__":
    main()
