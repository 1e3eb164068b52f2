#PBI 1.2
Loyd, Samuel:1B6/3Q4/6Rs/8/4k3/1P2pq2/K7/7B:#2:|Sporting New Yorker|1877|:::Rg6-g2::YACPDB 15316, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Бройт, Г. А.;Куббель, Карл Артур Леонид Иванович:2Q4B/2p5/1qr1p1p1/2b2kS1/1r2p2K/8/4RpS1/sB6:#2:|De Problemist|1928|:::Re2-d2::YACPDB 3232, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
Куббель, Карл Артур Леонид Иванович:4R3/1KB5/2P1Sp2/pS6/r3k2p/7r/3p4/5Q2:#2:148|Magyar Sakkujság|1911-11-10|::|2nd HM|Magyar Sakkujság|:Bc7-g3::YACPDB 13635, from pychess/pychess learn/puzzles/kubbel.yacpdb.json
