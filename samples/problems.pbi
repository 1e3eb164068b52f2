#PBI 1.2
# chesspipe sample collection: real published chess compositions, for tests
# and demonstrations of the chesspipe tools. Compiled 2026 from public
# machine-readable sources (listed below); not computer-tested by us.
#
# Field conventions used in this file:
#  names      - "Family, Given" as in YACPDB; names taken from Popeye input
#               were put in that order. Non-Latin names are kept in the
#               script of the source (e.g. Cyrillic). Several authors are
#               separated by ";".
#  position   - Forsyth from rank 8 down, KQRBSP white, kqrbsp black, S = knight.
#               White to move in direct mates, selfmates and studies; in
#               helpmates Black moves first. Castling and en passant rights
#               cannot be expressed; no record here depends on them.
#  stipulation- #n mate in n, h#n helpmate, s#n selfmate, + study (White to
#               play and win), = study (White to play and draw).
#  used source- nr|title|date|page; date as YYYY, YYYY-MM or YYYY-MM-DD.
#               nr is the problem number in the source when known.
#  referenced - later publications of the same problem, same subformat.
#  awards     - nr|rank|tourney|date; ranks in English (Popeye's German
#               "1. Preis", "3. ehrende Erwähnung" became "1st Prize", "3rd HM").
#  keymove    - White's first move in long algebraic form without move
#               number (Qa7-h7, g7-g8=Q), as in the YACPDB/Popeye solution
#               text; converted from short form where the source gives only
#               that (noted in the comment). Empty for helpmates.
#  status     - always empty: none of the sources states computer testing.
#  comment    - where the record was taken from (YACPDB id and file, Popeye
#               input file, Olive collection, web page).
#
# Sources:
#  - YACPDB (Yet Another Chess Problem Database, yacpdb.org) records as
#    packaged by PyChess: repository pychess/pychess, files
#    learn/puzzles/{loyd,kubbel,troicki,reti,horwitz,dawson}.yacpdb.json
#  - Popeye solver example input: repository thomas-maeder/popeye,
#    file BEISPIEL/intell.inp (orthodox helpmates with author and source)
#  - Olive (chess problem editor) collections: repository
#    dturevski/olive-gui, files collections/ivanov_albert.olv and
#    collections/Broodings-50.olv
#  - Studies: Chess Programming Wiki (repository
#    peregrineshahin/ChessProgrammingWiki, Behting_Study.md); Wikipedia
#    "Réti endgame study"; Tim Krabbé, "The discovery of the Saavedra".
Loyd, Samuel:3R3B/Q7/5sK1/3s4/3SkSR1/2p2p2/2P2P2/8:#2:|New York Commercial Advertiser|1897|::|Comm.|Commercial Advertiser|1897:Qa7-h7::YACPDB 15290, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:1s1k2q1/1Q2p3/4p1B1/6S1/8/8/8/3K4:#2:53|La Stratégie|1867-10-15|246:::Bg6-e8::YACPDB 15300, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:3K4/5S2/2B2p2/3R4/4kP2/4P3/1B1q4/5Q2:#2:v 119|Le Sphinx|1866-10-01|157:::Bb2-c1::YACPDB 15301, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:7B/2R1KsQ1/1p1PP3/3k4/2S5/r3p1S1/4s3/1q6:#2:|Philadelphia Evening Bulletin|1858|:::Qg7-a1::YACPDB 15309, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:8/8/3p1p2/1S2p3/4kSQ1/5s2/2K3B1/8:#2:v 91|The Musical World|1860-02-04|:::Bg2-h1::YACPDB 15311, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:1B6/3Q4/6Rs/8/4k3/1P2pq2/K7/7B:#2:|Sporting New Yorker|1877|:::Rg6-g2::YACPDB 15316, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Бройт, Г. А.;Куббель, Карл Артур Леонид Иванович:2Q4B/2p5/1qr1p1p1/2b2kS1/1r2p2K/8/4RpS1/sB6:#2:|De Problemist|1928|:::Re2-d2::YACPDB 3232, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
Куббель, Карл Артур Леонид Иванович:4R3/1KB5/2P1Sp2/pS6/r3k2p/7r/3p4/5Q2:#2:148|Magyar Sakkujság|1911-11-10|::|2nd HM|Magyar Sakkujság|:Bc7-g3::YACPDB 13635, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
Куббель, Карл Артур Леонид Иванович:4R3/B3q1sB/5S2/Rr4Pp/1P1b1k1P/1Q3S2/4P1sP/1K6:#2:4051|Skakbladet|1935-10|::|1st Prize|Skakbladet|1935:Sf3-e5::YACPDB 13639, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
Куббель, Карл Артур Леонид Иванович:4s3/Qp5R/2pp4/1S1kp1S1/2p5/4B3/4PP2/RK1s2b1:#2:94|Задачи и этюды|1928|::|Special Prize|Задачи и этюды, 4-й конкурс (#2)|1928:Rh7-h1::YACPDB 13642, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
Куббель, Карл Артур Леонид Иванович:r7/2QP2R1/4Sk1p/3P4/6P1/3sK3/8/8:#2:|Tägliche Rundschau|1908|::|2nd Prize|Tägliche Rundschau|1908-1909:Se6-f4::YACPDB 13643, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
Троицкий, Алексей Алексеевич:8/8/3p4/R1S5/B1p5/k1P5/3p4/2bK4:#3:439|Шахматный журнал|1893-08|233:::Kd1-c2::YACPDB 211836, from pychess/pychess learn/puzzles/troicki.yacpdb.json
Троицкий, Алексей Алексеевич:8/4pkPp/7B/3K4/8/8/8/8:#4:|Новое время (Санкт-Петербург)|1895-02-21|:::g7-g8=Q::YACPDB 280012, from pychess/pychess learn/puzzles/troicki.yacpdb.json
Троицкий, Алексей Алексеевич:8/P7/1p6/1P6/8/5p2/7p/5K1k:#6:|Tidskrift för Schack|1917|:::a7-a8=R::YACPDB 126841, from pychess/pychess learn/puzzles/troicki.yacpdb.json
Réti, Richard:8/1K2p3/1p5B/5Q2/3k4/pB1p4/4p3/4b3:#3:III|Neuigkeits-Welt-Blatt|1909-02-18|:::Qf5-e6::YACPDB 52280, from pychess/pychess learn/puzzles/reti.yacpdb.json
Réti, Richard:8/2Q5/3pp1s1/3S1p2/3k1p2/1PS5/1P6/5K2:#3:677|Časopis českých šachistů|1910-06|:::Sc3-e4::YACPDB 117474, from pychess/pychess learn/puzzles/reti.yacpdb.json
Gold, Sámuel;Réti, Richard;Steiner, Siegmund:8/r1s2pp1/p2Q4/P2p4/K2k3S/4p3/4PS2/8:#3:2784|Neues Wiener Tagblatt|1908|:::Ka4-a3::YACPDB 265247, from pychess/pychess learn/puzzles/reti.yacpdb.json
Horwitz, Bernhard:2K5/6R1/8/3S1k2/8/2S5/3P4/8:#4:221|The Chess Player's Chronicle|1844|:::Kc8-d7::YACPDB 62483, from pychess/pychess learn/puzzles/horwitz.yacpdb.json
Horwitz, Bernhard:2B5/8/3K4/p7/pk1S1p2/1p3P2/PP2PP2/8:#4:91|Illustrirte Zeitung|1845-11-01|288:::a2-a3::YACPDB 62486, from pychess/pychess learn/puzzles/horwitz.yacpdb.json
Horwitz, Bernhard:8/8/8/1SS5/2p5/1p6/pk1K4/8:#6:60|The Chess Monthly|1880-08|383:::Sc5-a4::YACPDB 77512, from pychess/pychess learn/puzzles/horwitz.yacpdb.json
Carr, W.;Dawson, Thomas Rayner:3K3B/pBR1pp1Q/3pk3/1p6/q4P1b/1bpP2p1/4Srp1/3s4:#2:|The Chess Amateur|1909|:::d3-d4::YACPDB 3929, from pychess/pychess learn/puzzles/dawson.yacpdb.json
Dawson, Thomas Rayner:5S1s/4p3/4P2p/RQq1p1k1/r2p2P1/r1p2R1K/p4S2/1b6:#2:2304|Good Companions|1919-10|::|2nd Prize|Magee jr. Theme Tourney|:Qb5-f1::YACPDB 5051, from pychess/pychess learn/puzzles/dawson.yacpdb.json
Dawson, Thomas Rayner:5R2/1BQ5/2q5/8/bp1k2KR/1P2b3/PSp5/4ssB1:#2:3340|British Chess Magazine|1933-10|::|Prize, 2nd half-year|British Chess Magazine|1933:Rf8-d8::YACPDB 5058, from pychess/pychess learn/puzzles/dawson.yacpdb.json
Telkes, Imre:3sr3/5PPP/3s3B/1k4p1/5b2/7K/8/8:h#3:|Deutsche Märchenschachzeitung|1932|:::::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp
Ebersz, Kornel:7K/B7/1p5k/1S3p1q/8/8/8/8:h#5:|Western Daily Mercury|1921|:::::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp\x3b author given as Dr. Kornel Ebersz
Boros, Sandor:8/4p1s1/p7/3p4/4p3/p1Kbp3/r1sS1p2/k1qrb3:h#4:|Magyar Sakkvilag|1943|::|3rd HM|Magyar Sakkvilag|1943:::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp
Niemann, John:1k6/6p1/8/8/8/7p/7P/7K:h#9:|Schachmatt|1948|:::::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp
Sztankovszky, Imre:8/8/8/8/k6S/4K3/1P2p2p/8:h#5:|feenschach|1952|::|1st Prize|feenschach 3rd Theme Tourney|1952:::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp
Maslar, Zdravko:8/8/8/8/8/1k6/5sB1/2K5:h#8:9647|Schach-Echo|1978-06|:::::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp
Caillaud, Michel:k1s5/1s6/8/8/7p/5p1S/5p2/5K1R:h#4:|Szachisty|1993|::|1st Prize|Szachisty|1993:::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp\x3b Popeye input asks for set play too
Abdurahmanović, Fadil:1b4b1/S5K1/8/4p3/r7/k3sq2/3p4/8:h#5:9487|Die Schwalbe|1997-02|:::::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp\x3b Die Schwalbe issue 163
Ring, Ulrich:8/4p3/5p1k/4p3/4b3/1b1p4/3P1K2/8:h#7:|feenschach|1991|::|1st Prize|feenschach|1991:::from Popeye example input thomas-maeder/popeye BEISPIEL/intell.inp
Иванов, Альберт Федотович:2b5/1kP5/1Pq5/K7/3R4/8/8/Q6B:#2:|Военный вестник|1959|:::Rd4-d8::from Olive collection dturevski/olive-gui collections/ivanov_albert.olv
Иванов, Альберт Федотович;Чулаков, А.:8/1B6/2Sp4/K4p2/2pSkp2/2Qb4/3R1P2/8:#2:|Советская Молдавия|1962-12-02|:::Sd4-e6::from Olive collection dturevski/olive-gui collections/ivanov_albert.olv
Иванов, Альберт Федотович:8/8/7P/8/8/5K1p/7k/8:#4:|Советская Молдавия|1963-01-06|:::h6-h7::from Olive collection dturevski/olive-gui collections/ivanov_albert.olv
Јаневски, Живко:8/RQ4p1/2SpBpP1/2k2Kp1/1Sp3rr/B3p2b/qp1P2p1/1s6:s#3:50/1|Broodings|2009-02|:::Ra7-a6::from Olive collection dturevski/olive-gui collections/Broodings-50.olv\x3b key given there as 1.Ra6
Chlubna, Friedrich:5s2/3R1Qp1/4Sb1p/1S6/8/3pk3/1p1p2B1/1r1s1K2:s#6:|Sinfonie Scacchistiche|1995|:50/2|Broodings|2009-02|::Rd7-d5::from Olive collection dturevski/olive-gui collections/Broodings-50.olv\x3b key given there as 1.Rd5
Barbier, Georges Emile;Saavedra, Fernando:8/8/1KP5/3r4/8/8/8/k7:+:|Glasgow Weekly Citizen|1895|:::c6-c7::Saavedra position\x3b FEN as quoted in a redhotpawn.com forum thread, history from Tim Krabbé's page The discovery of the Saavedra
Réti, Richard:7K/8/k1P5/7p/8/8/8/8:=:|Kagans Neueste Schachnachrichten|1921|:|Richard Réti\x3a Sämtliche Studien|1931|::Kh8-g7::position and source as in the Wikipedia article Réti endgame study (copy on IPFS) and many engine test files\x3b one column (bstephen.me.uk, Feb 2011) dates it 1922\x3b Sämtliche Studien is A. Mandler's collection
Bētiņš, Kārlis:8/8/7p/3KSS1k/2p4p/8/3P2p1/8:+:|Bohemia|1906|:::Kd5-c6::Behting study (Carl Behting)\x3b from peregrineshahin/ChessProgrammingWiki content/Behting_Study.md, which gives bm Kc6
