//! pbi-grep's options.

use std::ffi::OsString;
use std::ops::RangeInclusive;

use super::{shown, string, Opt, Section, Spec};
use crate::cmd::cli;
use crate::cmd::pbi_grep::{self, Mode, PatternOptions, Target};

/// pbi-grep's command line as given, before it is checked.
#[derive(Debug, Default)]
pub struct Args {
    /// `-e`/`--regexp`, in order.
    pub regexps: Vec<String>,
    /// The field options, in order.
    pub fields: Vec<(Target, String)>,
    /// `--status`.
    pub status: Option<String>,
    /// `--gbr`: the code or its start.
    pub gbr: Option<Vec<u8>>,
    /// `--pieces`.
    pub pieces: Option<RangeInclusive<u32>>,
    /// `-i`, `-F`, `-w`, `-x`.
    pub pattern_opts: PatternOptions,
    /// `-v`/`--invert-match`.
    pub invert: bool,
    /// `-c`/`--count`.
    pub count: bool,
    /// `-q`/`--quiet`.
    pub quiet: bool,
    /// `-l` or `-L`, the last one given.
    pub list: Option<Mode>,
    /// `-m`/`--max-count`.
    pub max: Option<u64>,
    /// `-j`/`--threads`.
    pub threads: Option<String>,
    /// The PATTERN, if no selection option is given, and the FILEs.
    pub positional: Vec<OsString>,
}

/// A field option: a regex on one field.
macro_rules! field {
    ($long:literal, $target:expr, $help:literal) => {
        Opt::value(None, $long, "REGEX", $help, |a, v| {
            a.fields.push(($target, string(v)?));
            Ok(())
        })
    };
}

/// pbi-grep's options, help and man page.
pub static SPEC: Spec<Args> = Spec {
    name: "pbi-grep",
    about: "\
pbi-grep: select records of PBI collections, output still PBI

Usage: pbi-grep [OPTIONS] PATTERN [FILE...]
       pbi-grep [OPTIONS] (-e PATTERN | FIELD OPTION)... [FILE...]

Regexes match the decoded text of each field; each author, and each
subfield of a source or award, is a text of its own. Different options
must all match; the same option given twice: either may match.
",
    sections: &[
        Section {
            title: "Selection",
            opts: &[
                Opt::value(
                    Some('e'),
                    "regexp",
                    "PATTERN",
                    "Match any text of the record (repeatable)",
                    |a, v| {
                        a.regexps.push(string(v)?);
                        Ok(())
                    },
                ),
                field!("author", Target::Author, "Match an author name"),
                field!("stip", Target::Stipulation, "Match the stipulation"),
                field!(
                    "source",
                    Target::Source,
                    "Match a subfield of the used or a referenced source"
                ),
                field!("award", Target::Award, "Match a subfield of an award"),
                field!("key", Target::Keymove, "Match the keymove"),
                field!("comment", Target::Comment, "Match the comment"),
                field!(
                    "position",
                    Target::Position,
                    "Match the position as written"
                ),
                Opt::value(
                    None,
                    "status",
                    "CHARS",
                    "Status is one of CHARS ('' selects an empty status)",
                    |a, v| {
                        a.status = Some(string(v)?);
                        Ok(())
                    },
                ),
                Opt::value(
                    None,
                    "gbr",
                    "CODE",
                    "The GBR material code starts with CODE",
                    |a, v| {
                        let code = pbi_grep::gbr_prefix(&string(v)?);
                        a.gbr = Some(code.map_err(cli::usage)?);
                        Ok(())
                    },
                ),
                Opt::value(
                    None,
                    "pieces",
                    "RANGE",
                    "Men on the board, kings included: 7, ..7, 8..12, 13..",
                    |a, v| {
                        let range = pbi_grep::parse_range(&string(v)?);
                        a.pieces = Some(range.map_err(cli::usage)?);
                        Ok(())
                    },
                ),
                Opt::switch(
                    Some('i'),
                    "ignore-case",
                    "Match case-insensitively",
                    |a| a.pattern_opts.ignore_case = true,
                ),
                Opt::switch(
                    Some('F'),
                    "fixed-strings",
                    "Patterns are plain strings, not regexes",
                    |a| a.pattern_opts.fixed_strings = true,
                ),
                Opt::switch(
                    Some('w'),
                    "word-regexp",
                    "A match must be a whole word: no letter, digit or _ just \
                     before or after it",
                    |a| a.pattern_opts.word = true,
                ),
                Opt::switch(
                    Some('x'),
                    "text-regexp",
                    "A match must be a whole text: an author, a subfield, a \
                     field",
                    |a| a.pattern_opts.whole = true,
                ),
                Opt::switch(
                    Some('v'),
                    "invert-match",
                    "Select the records that do not match",
                    |a| a.invert = true,
                ),
            ],
        },
        Section {
            title: "Output",
            opts: &[
                Opt::switch(
                    Some('c'),
                    "count",
                    "Print only the number of selected records",
                    |a| a.count = true,
                ),
                Opt::switch(
                    Some('q'),
                    "quiet",
                    "Print nothing and stop at the first selected record; the \
                     exit status tells",
                    |a| a.quiet = true,
                ),
                Opt::switch(
                    Some('l'),
                    "files-with-matches",
                    "Print only the names of the inputs with a selected record",
                    |a| a.list = Some(Mode::FilesWith),
                ),
                Opt::switch(
                    Some('L'),
                    "files-without-match",
                    "Print only the names of the PBI inputs without a selected \
                     record",
                    |a| a.list = Some(Mode::FilesWithout),
                ),
                Opt::value(
                    Some('m'),
                    "max-count",
                    "NUM",
                    "Stop after NUM selected records, over all inputs",
                    |a, v| {
                        let max = v.to_str().and_then(|n| n.parse().ok());
                        a.max = Some(max.ok_or_else(|| {
                            cli::usage(format!(
                                "expected a whole number of records, got '{}'",
                                shown(&v)
                            ))
                        })?);
                        Ok(())
                    },
                ),
                threads_option!("Threads for a large input [default: one per core]"),
            ],
        },
    ],
    footer: "Exit status: 0 records selected (with -L: a name written), 1 \
             none, 2 an error.\n",
    positional: |a, v| {
        a.positional.push(v);
        Ok(())
    },
    man: include_str!("../../../man/pbi-grep.1"),
};
