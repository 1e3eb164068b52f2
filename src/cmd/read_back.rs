//! Whether csv2pbi reads back the lists that pbi2csv writes: pbi2csv's
//! warning about a record whose names, referenced sources or awards
//! would come back changed.
//!
//! pbi2csv writes these lists decoded and joined with `; `, a source's
//! or an award's subfields joined with `|` (TOOLS.md). csv2pbi cuts that
//! text again, as [`write::name_items`] and [`write::source_items`] say,
//! each item's subfields at its first 3 `|`. A decoded name may hold
//! `; `, and a decoded subfield `|` or `; ` (written `\x3b`, `\x7c`):
//! then the cut gives other items. `Smith\x3b John;Kling` comes back as
//! three names, a title `Schach\x7cEcho` moves every later subfield one
//! place. pbi2csv reports such a record (a warning; with `--strict` an
//! error, and the record is left out); `--raw` and `--json` keep it.
//!
//! The check is exact: it cuts the text pbi2csv writes with csv2pbi's
//! own functions and compares the items with the record's. It is made
//! only where it can fail. The raw `;` and `|` of a field separate its
//! items and subfields, so decoded text holds them only where an escape
//! made them; without such an escape the `; ` of the text are exactly
//! the separators, each item has its 3 `|` and none in its first three
//! subfields, and the cut gives every item back. So a line without a `\`
//! in these fields costs the test of a bit, and one with only other
//! escapes a look for `\x3b` and `\x7c`.

use crate::cmd::pbi2csv::{Column, Config};
use crate::diag::{Diagnostic, Report};
use crate::pbi::scan::LineScan;
use crate::pbi::write;
use crate::pbi::{class, escape, list, Field, Record, Subfields};

/// The list fields, their columns, and what an item of each is called.
const LISTS: [(Field, Column, &str, [&str; 4]); 3] = [
    (Field::Names, Column::Authors, "name", ["", "", "", ""]),
    (
        Field::References,
        Column::References,
        "referenced source",
        ["number", "title", "date", "page"],
    ),
    (
        Field::Awards,
        Column::Awards,
        "award",
        ["number", "rank", "tourney", "date"],
    ),
];

/// The bytes that, made by an escape, may change what csv2pbi reads.
const SEPARATORS: &[u8] = b";|";

/// The check of one table's records, with its scratch space.
#[derive(Debug, Default)]
pub struct Lists {
    /// Bit `f` for each list field `f` whose column is written.
    fields: u16,
    /// The text of a list as pbi2csv writes it.
    text: Vec<u8>,
    /// Where each name, or each subfield, ends in `text`.
    ends: Vec<usize>,
}

impl Lists {
    /// The check for the columns of `config`: none with `--raw` or
    /// `--json`, or when no list column is written.
    pub fn new(config: &Config) -> Lists {
        let mut fields = 0;
        if !config.raw && !config.json {
            for (field, column, ..) in LISTS {
                if config.columns.contains(&column) {
                    fields |= 1 << field as usize;
                }
            }
        }
        Lists { fields, ..Lists::default() }
    }

    /// Whether the line that `scan` read, `content`, must be checked by
    /// [`Lists::keep`]: a written list field of it holds an escape of
    /// `;` or `|`. The scan's escapes are all valid (a clean line).
    #[inline(always)]
    pub fn may_change(&self, content: &[u8], scan: &LineScan) -> bool {
        let fields = scan.back_fields() & self.fields;
        fields != 0 && escaped_separators(content, scan, fields)
    }

    /// Reports each written list of `rec` that csv2pbi would read back
    /// changed, as an error when `strict`; returns whether the record is
    /// kept (it is not, when `strict` and one was reported).
    #[inline(always)]
    pub fn keep(
        &mut self,
        rec: &Record<'_>,
        strict: bool,
        report: &mut dyn Report,
    ) -> bool {
        let escaped = LISTS.iter().any(|&(field, ..)| {
            self.fields & 1 << field as usize != 0
                && rec.bits(field) & class::BACKSLASH != 0
        });
        !escaped || self.check(rec, strict, report)
    }

    /// [`Lists::keep`] for a record with a `\` in a written list.
    #[cold]
    #[inline(never)]
    fn check(
        &mut self,
        rec: &Record<'_>,
        strict: bool,
        report: &mut dyn Report,
    ) -> bool {
        let mut keep = true;
        for (field, column, item, subfields) in LISTS {
            let raw = rec.raw(field);
            if self.fields & 1 << field as usize == 0
                || !escape::escapes_any(raw, SEPARATORS)
            {
                continue;
            }
            let why = match field {
                Field::Names => self.names(raw),
                _ => self.sources(raw, item, subfields),
            };
            let Some(why) = why else { continue };
            let message = format!(
                "{why}: csv2pbi would read the {column} column back \
                 changed (--raw or --json keeps it)"
            );
            let n = rec.number();
            report.report(match strict {
                true => Diagnostic::error(n, message),
                false => Diagnostic::warning(n, message),
            });
            keep &= !strict;
        }
        keep
    }

    /// Why csv2pbi would read the names of the field `raw` back changed;
    /// `None` when it would not.
    fn names(&mut self, raw: &[u8]) -> Option<String> {
        let (text, ends) = (&mut self.text, &mut self.ends);
        text.clear();
        ends.clear();
        for (i, name) in list(raw).enumerate() {
            if i > 0 {
                text.extend_from_slice(b"; ");
            }
            escape::decode_into(name, text);
            ends.push(text.len());
        }
        let mut cut = write::name_items(text);
        let same = (0..ends.len())
            .all(|k| cut.next() == Some(piece(text, ends, k, 1)))
            && cut.next().is_none();
        if same {
            return None;
        }
        // Only a name holding `; ` is cut.
        let holds = |k: &usize| has_separator(piece(text, ends, *k, 1));
        let k = (0..ends.len()).find(holds).unwrap_or(0);
        Some(format!("name {} holds '; '", k + 1))
    }

    /// Why csv2pbi would read the sources or awards of the field `raw`
    /// back changed; `None` when it would not. `item` names an item,
    /// `subfields` its subfields.
    fn sources(
        &mut self,
        raw: &[u8],
        item: &str,
        subfields: [&str; 4],
    ) -> Option<String> {
        let (text, ends) = (&mut self.text, &mut self.ends);
        text.clear();
        ends.clear();
        for (i, source) in list(raw).map(Subfields::split).enumerate() {
            if i > 0 {
                text.extend_from_slice(b"; ");
            }
            for (j, s) in source.raw.iter().enumerate() {
                if j > 0 {
                    text.push(b'|');
                }
                escape::decode_into(s, text);
                ends.push(text.len());
            }
        }
        let items = ends.len() / 4;
        let mut cut = write::source_items(text);
        let same = (0..items).all(|i| {
            cut.next().is_some_and(|back| {
                let back = Subfields::split(back).raw;
                (0..4).all(|j| back[j] == piece(text, ends, 4 * i + j, 4))
            })
        }) && cut.next().is_none();
        if same {
            return None;
        }
        // A `|` in one of the first three subfields, or a `; `.
        let pipe = (0..4 * items)
            .filter(|k| k % 4 < 3)
            .find(|&k| piece(text, ends, k, 4).contains(&b'|'));
        if let Some(k) = pipe {
            let (i, j) = (k / 4 + 1, subfields[k % 4]);
            return Some(format!("{item} {i} holds '|' in its {j}"));
        }
        let semicolon =
            (0..4 * items).find(|&k| has_separator(piece(text, ends, k, 4)));
        Some(match semicolon {
            Some(k) => format!("{item} {} holds '; '", k / 4 + 1),
            None => format!("a {item} holds '; ' or '|'"),
        })
    }
}

/// Piece `k` of `text`, which `ends` cut into groups of `per` pieces:
/// the groups joined with `; `, the pieces of a group with `|`.
fn piece<'t>(
    text: &'t [u8],
    ends: &[usize],
    k: usize,
    per: usize,
) -> &'t [u8] {
    let start = match k {
        0 => 0,
        k if k % per == 0 => ends[k - 1] + 2,
        k => ends[k - 1] + 1,
    };
    &text[start..ends[k]]
}

/// Whether `text` holds `; `.
fn has_separator(text: &[u8]) -> bool {
    text.windows(2).any(|w| w == b"; ")
}

/// Whether a field of `fields` (bits), in the clean line `content` that
/// `scan` read, holds an escape of `;` or `|`: the scan says where its
/// `\` are, and each starts a valid escape.
#[cold]
#[inline(never)]
fn escaped_separators(content: &[u8], scan: &LineScan, fields: u16) -> bool {
    let mut fields = fields;
    while fields != 0 {
        let f = fields.trailing_zeros() as usize;
        fields &= fields - 1;
        let (start, end) = scan.field(f);
        for at in scan.backs(start, end) {
            // Two hex digits, the letters made lower-case.
            let code = [content[at + 2] | 0x20, content[at + 3] | 0x20];
            if &code == b"3b" || &code == b"7c" {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::lines::LineReader;
    use crate::pbi::{self, Item, Parser};

    /// The record of one data line.
    fn with_record<T>(line: &str, f: impl FnOnce(&Record<'_>) -> T) -> T {
        let text = format!("#PBI 1.2\n{line}\n");
        let mut lines = LineReader::new(text.as_bytes());
        let mut parser = Parser::new(pbi::Options::default());
        while let Some(l) = lines.next_line().unwrap() {
            if let Some(Item::Record(rec)) = parser.line(l, &mut vec![]) {
                return f(&rec);
            }
        }
        panic!("no record in {line:?}")
    }

    /// What pbi2csv says of the line with every column.
    fn check_line(line: &str, strict: bool) -> (bool, Vec<Diagnostic>) {
        let config = Config {
            columns: Column::ALL.iter().map(|c| c.0).collect(),
            ..Config::default()
        };
        let mut lists = Lists::new(&config);
        let mut diagnostics = vec![];
        let keep =
            with_record(line, |rec| lists.keep(rec, strict, &mut diagnostics));
        (keep, diagnostics)
    }

    #[test]
    fn names_and_subfields_that_csv2pbi_would_cut_are_reported() {
        // The reproducers of review F10 and its addendum.
        let (keep, said) = check_line(
            r"Smith\x3b John;Kling, Josef:8/8/8/8/8/8/8/K6k:#2:|||:|A\x3b B|1900|\x7c; x|y|z|w::::",
            false,
        );
        assert!(keep);
        let messages: Vec<_> = said.iter().map(|d| &d.message[..]).collect();
        assert_eq!(
            messages,
            ["name 1 holds '; ': csv2pbi would read the authors column \
              back changed (--raw or --json keeps it)"]
        );
        assert_eq!(said[0].line, 2);
        let (keep, said) = check_line(
            r"A:8/8/8/8/8/8/8/K6k:#2:|||:1|Schach\x7cEcho|1960|5:2|Pr|Turnier A\x7cB|1961:::",
            true,
        );
        assert!(!keep);
        let messages: Vec<_> = said.iter().map(|d| &d.message[..]).collect();
        assert_eq!(
            messages,
            [
                "referenced source 1 holds '|' in its title: csv2pbi would \
                 read the references column back changed (--raw or --json \
                 keeps it)",
                "award 1 holds '|' in its tourney: csv2pbi would read the \
                 awards column back changed (--raw or --json keeps it)",
            ]
        );
        assert!(said
            .iter()
            .all(|d| d.severity == crate::diag::Severity::Error));
    }

    #[test]
    fn what_csv2pbi_reads_back_is_not_reported() {
        for line in [
            // `;` with no space after it stays in the name.
            r"Smith\x3bJohn;Kling::::::::",
            // `; ` at the start of a name after the first.
            r"Kling;\x3b x::::::::",
            // `|` in the last subfield, `; ` in a title.
            r"::::1|A\x3b B|1900|5\x7c6:|Pr|T|1\x7c2:::",
            // An escaped space at the start, `#` and `\` in a name.
            r"\x20Kling;\x23Loyd\x5c::::::::",
            // Escapes of other bytes.
            r"Bl\xe1thy;S\x3at John::::1|\x3a|2|3:::: \x3b",
        ] {
            let (keep, said) = check_line(line, true);
            assert!(keep && said.is_empty(), "{line}: {said:?}");
        }
    }

    #[test]
    fn only_the_columns_written_are_checked() {
        let line = r"A\x3b B::::::::";
        let mut diagnostics = vec![];
        for (columns, raw, json, warns) in [
            ("authors", false, false, true),
            ("comment,references", false, false, false),
            ("authors", true, false, false),
            ("authors", false, true, false),
        ] {
            let config = Config {
                columns: Column::list(columns).unwrap(),
                raw,
                json,
                ..Config::default()
            };
            let mut lists = Lists::new(&config);
            diagnostics.clear();
            with_record(line, |rec| lists.keep(rec, false, &mut diagnostics));
            assert_eq!(
                !diagnostics.is_empty(),
                warns,
                "{columns} {raw} {json}"
            );
        }
    }

    /// Pieces of decoded text.
    const PIECES: &[&str] =
        &["a", " ", ";", "; ", "|", "\t", "#", "\\", "x", "é"];

    fn text(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..max)
            .prop_map(|p| p.concat())
    }

    /// A list field whose items, decoded, are `items` (none empty): each
    /// written with every ASCII character escaped.
    fn field(items: &[String]) -> String {
        let escaped: Vec<String> = items
            .iter()
            .map(|i| {
                i.chars()
                    .map(|c| match c.is_ascii() {
                        true => format!("\\x{:02x}", c as u32),
                        false => c.to_string(),
                    })
                    .collect()
            })
            .collect();
        escaped.join(";")
    }

    /// What csv2pbi reads back of the list text pbi2csv writes of a
    /// names field (`sources` false) or a field of references.
    fn read_back(field: &str, sources: bool) -> Vec<Vec<u8>> {
        let line = if sources {
            format!("::::{field}::::")
        } else {
            format!("{field}::::::::")
        };
        let joined = with_record(&line, |rec| {
            let items: Vec<Vec<u8>> = if sources {
                rec.references()
                    .map(|s| {
                        let mut out = vec![];
                        s.write_decoded(&mut out);
                        out
                    })
                    .collect()
            } else {
                rec.names().map(|n| rec.text(n).into_owned()).collect()
            };
            items.join(&b"; "[..])
        });
        let mut written = vec![];
        if sources {
            write::sources(&joined, &mut written).unwrap();
        } else {
            write::names(&joined, &mut written).unwrap();
        }
        let line = match sources {
            true => [&b"::::"[..], &written, b"::::"].concat(),
            false => [&written[..], b"::::::::"].concat(),
        };
        let line = String::from_utf8(line).unwrap();
        with_record(&line, |rec| {
            if sources {
                rec.references()
                    .flat_map(|s| (0..4).map(move |i| s.get(i).into_owned()))
                    .collect()
            } else {
                rec.names().map(|n| rec.text(n).into_owned()).collect()
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// A list is reported exactly when writing pbi2csv's text of it
        /// with csv2pbi's functions and reading that gives other items.
        #[test]
        fn reported_exactly_when_read_back_changed(
            names in proptest::collection::vec(text(6), 1..4),
            sources in proptest::collection::vec(
                proptest::collection::vec(text(4), 4), 1..4),
        ) {
            let names: Vec<String> =
                names.into_iter().filter(|n| !n.is_empty()).collect();
            let names_field = field(&names);
            let want: Vec<Vec<u8>> =
                names.iter().map(|n| n.clone().into_bytes()).collect();
            let changed = read_back(&names_field, false) != want;
            let (_, said) = check_line(&format!("{names_field}::::::::"), false);
            prop_assert_eq!(!said.is_empty(), changed, "{:?}", names);

            let items: Vec<String> = sources.iter().map(|s| s.join("|")).collect();
            // Each item written with its 3 `|` raw, its subfields escaped.
            let sources_field = sources
                .iter()
                .map(|s| {
                    let subs: Vec<String> = s.iter().map(|t| field(std::slice::from_ref(t))).collect();
                    subs.join("|")
                })
                .collect::<Vec<_>>()
                .join(";");
            let want: Vec<Vec<u8>> = sources
                .iter()
                .flatten()
                .map(|t| t.clone().into_bytes())
                .collect();
            let changed = read_back(&sources_field, true) != want;
            let line = format!("::::{sources_field}::::");
            let (_, said) = check_line(&line, false);
            prop_assert_eq!(!said.is_empty(), changed, "{:?}", items);
        }
    }
}
