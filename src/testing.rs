//! What the unit tests share: a small random number generator, and a
//! reader that gives its bytes in reads of given sizes.

/// xorshift64*: enough randomness for tests, with no dependency, and the
/// same numbers on every run for a seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A PBI data line (without its line end) shaped like a real one, with
/// now and then something a reader warns about or must look at twice:
/// blank and short items, escapes (valid, bad, and decoding to `,`,
/// `"`, `:`, `;`, `|`), commas and quotes, bad positions and statuses,
/// invalid UTF-8, a colon in the comment, fewer fields.
pub(crate) fn pbi_line(rng: &mut Rng) -> Vec<u8> {
    const NAMES: &[&str] = &[
        "Loyd, Samuel",
        "Kling",
        " Havel, M. ",
        "Шинкман, Вильям",
        "S\\x3at John",
        "",
        " ",
        "L\\x6fyd",
        "a\"b",
        "x,y",
        "\tTab",
        "Bl\\xe1thy",
        "Loyd\\x2c S.",
        // csv2pbi would cut it in two: pbi2csv warns (review F10).
        "Smith\\x3b John",
    ];
    const BOARDS: &[&str] = &[
        "8/8/8/8/8/8/8/K1k5",
        "1R6/8/8/8/8/8/2k5/K7",
        "3R3B/Q7/5sK1/3s4/3SkSR1/2p2p2/2P2P2/8",
        "",
        "8/8",
        "8/8/8/8/8/8/8/8",
        "K7/8/8/8/8/8/8/k7/",
        "PPPPPPPP/PPPPPPPP/8/8/8/8/K7/k7",
        "kN6/8/8/8/8/8/8/6nK",
        "x7/8/8/8/8/8/8/K1k5",
        "9/8/8/8/8/8/8/K1k5",
        "8/8/8/8/8/8/8/K1k5 ",
        "8/8/8/8/8/8/8/K1k\\x35",
    ];
    const STIPS: &[&str] =
        &["#2", "", "h#3", "a,b", "\\x2c", "q\"", "\\q", "s#2 b)"];
    const USED: &[&str] = &[
        "",
        "1|T|1900|",
        "|Ti, tle|1900|3",
        "1|T",
        "1|T|x|y|z",
        " ",
        "1|T\\x3a x|1900|",
        "1|T\\x7c|1|",
        "|\\x22Q\\x22|1|",
        "v 3|Šachy|1|2",
    ];
    const ITEMS: &[&str] = &[
        "|A|1900|",
        "1|B|2|3",
        " |C|1| ",
        "",
        " ",
        "1|D",
        "|E\\x3bF|1|",
        "a,b|c|d|e",
        "1|2|3|4|5",
        "|Ж, ж|1|",
        "\t|x|y|z",
        // A `|` in a title, which csv2pbi would cut at: pbi2csv warns.
        "1|A\\x7cB|2|3",
    ];
    const KEYS: &[&str] = &["", "Qa7-h7", "x,y", "1.Sf3!", "\\x51"];
    const STATUSES: &[&str] =
        &["", "!", "*", "#", "\\x21", "?", "!!", "$", "+"];
    const COMMENTS: &[&str] = &[
        "",
        "plain",
        "a, b",
        "c\\x3a d",
        "e: f",
        "\"q\"",
        "bad \\q",
        "\u{e9}",
        "a;b|c",
        "x\\x0ay",
        "\\xff",
        "tab\there",
        "after S. Loyd",
        "cr\\x0D",
    ];
    // Half the lines take only from the first, usual, entries of each
    // list (the first 3), so that many are clean.
    let usual = rng.below(2) == 0;
    let pick = |rng: &mut Rng, list: &[&str]| {
        let n = if usual { 3 } else { list.len() };
        list[rng.below(n)].to_string()
    };
    let list = |rng: &mut Rng, items: &[&str]| {
        let n = [0, 0, 1, 1, 2, 3][rng.below(6)];
        (0..n).map(|_| pick(rng, items)).collect::<Vec<_>>().join(";")
    };
    let fields = [
        list(rng, NAMES),
        pick(rng, BOARDS),
        pick(rng, STIPS),
        pick(rng, USED),
        list(rng, ITEMS),
        list(rng, ITEMS),
        pick(rng, KEYS),
        pick(rng, STATUSES),
        pick(rng, COMMENTS),
    ];
    let mut line = fields.join(":").into_bytes();
    match rng.below(if usual { 400 } else { 40 }) {
        0 => line.push(0xff),
        1 => line.truncate(rng.below(line.len() + 1)),
        2 => line.extend_from_slice(b"\xc3"),
        _ => {}
    }
    line
}

/// A reader that gives `data` in reads of the sizes `sizes`, in turn (a
/// read is also no larger than the buffer): line ends and records cut
/// across reads.
pub(crate) struct Chunked<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) sizes: Vec<usize>,
    pub(crate) next: usize,
}

impl std::io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()];
        self.next += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
