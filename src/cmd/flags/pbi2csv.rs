//! pbi2csv's options.

use std::ffi::OsString;

use super::{string, Opt, Section, Spec};

/// pbi2csv's command line as given, before it is checked.
#[derive(Debug, Default)]
pub struct Args {
    /// `-c`/`--columns`.
    pub columns: Option<String>,
    /// `-d`/`--delimiter`.
    pub delimiter: Option<String>,
    /// `--no-header`.
    pub no_header: bool,
    /// `--raw`.
    pub raw: bool,
    /// `--bom`.
    pub bom: bool,
    /// `--json`.
    pub json: bool,
    /// `-o`/`--output`.
    pub output: Option<OsString>,
    /// `-j`/`--threads`.
    pub threads: Option<String>,
    /// The FILE arguments.
    pub files: Vec<OsString>,
}

/// pbi2csv's options, help and man page.
pub static SPEC: Spec<Args> = Spec {
    name: "pbi2csv",
    about: "\
pbi2csv: a PBI problem collection to CSV

Usage: pbi2csv [OPTIONS] [FILE...]

One header row, then one row per record, RFC 4180 quoting, LF row ends;
or, with --json, one JSON object per record and line.
Default columns: authors, position, stipulation, source_nr, source_title,
source_date, source_page, references, awards, keymove, status, comment.
",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::value(
                Some('c'),
                "columns",
                "LIST",
                "Comma-separated columns, in the order wanted: names, default \
                 (the default ones) and all; besides the default ones: file, \
                 line, fen, gbr, pieces",
                |a, v| {
                    a.columns = Some(string(v)?);
                    Ok(())
                },
            ),
            Opt::value(
                Some('d'),
                "delimiter",
                "CHAR",
                "Field delimiter, one character; '\\t' means a tab",
                |a, v| {
                    a.delimiter = Some(string(v)?);
                    Ok(())
                },
            ),
            Opt::switch(None, "no-header", "Write no header row", |a| {
                a.no_header = true
            }),
            Opt::switch(
                None,
                "raw",
                "Every field exactly as in the file (no decoding)",
                |a| a.raw = true,
            ),
            Opt::switch(
                None,
                "bom",
                "Start the output with a UTF-8 byte order mark",
                |a| a.bom = true,
            ),
            Opt::switch(
                None,
                "json",
                "JSON Lines instead of CSV: one object per record, lists as \
                 arrays, sources and awards as objects",
                |a| a.json = true,
            ),
            Opt::value(
                Some('o'),
                "output",
                "FILE",
                "Write to FILE instead of standard output; a name ending in \
                 .xlsx writes a workbook of text cells",
                |a, v| {
                    a.output = Some(v);
                    Ok(())
                },
            ),
            threads_option!("Threads for a large input [default: one per core]"),
        ],
    }],
    footer: "",
    positional: files_positional!(),
    man: include_str!("../../../man/pbi2csv.1"),
};
