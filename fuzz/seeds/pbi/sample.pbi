#PBI 1.2
Loyd, Samuel:3R3B/Q7/5sK1/3s4/3SkSR1/2p2p2/2P2P2/8:#2:|New York Commercial Advertiser|1897|::|Comm.|Commercial Advertiser|1897:Qa7-h7::YACPDB 15290, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:1s1k2q1/1Q2p3/4p1B1/6S1/8/8/8/3K4:#2:53|La Stratégie|1867-10-15|246:::Bg6-e8::YACPDB 15300, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:3K4/5S2/2B2p2/3R4/4kP2/4P3/1B1q4/5Q2:#2:v 119|Le Sphinx|1866-10-01|157:::Bb2-c1::YACPDB 15301, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:7B/2R1KsQ1/1p1PP3/3k4/2S5/r3p1S1/4s3/1q6:#2:|Philadelphia Evening Bulletin|1858|:::Qg7-a1::YACPDB 15309, from pychess/pychess learn/puzzles/loyd.yacpdb.json
Loyd, Samuel:8/8/3p1p2/1S2p3/4kSQ1/5s2/2K3B1/8:#2:v 91|The Musical World|1860-02-04|:::Bg2-h1::YACPDB 15311, from pychess/pychess learn/puzzles/loyd.yacpdb.json
