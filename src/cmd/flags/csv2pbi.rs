//! csv2pbi's options.

use std::ffi::OsString;

use super::{string, Opt, Section, Spec};

/// csv2pbi's command line as given, before it is checked.
#[derive(Debug, Default)]
pub struct Args {
    /// `-d`/`--delimiter`.
    pub delimiter: Option<String>,
    /// `--raw`.
    pub raw: bool,
    /// `--comments`.
    pub comments: Option<OsString>,
    /// `-j`/`--threads`.
    pub threads: Option<String>,
    /// The FILE arguments.
    pub files: Vec<OsString>,
}

/// csv2pbi's options, help and man page.
pub static SPEC: Spec<Args> = Spec {
    name: "csv2pbi",
    about: "\
csv2pbi: a spreadsheet (CSV or .xlsx) back to a PBI problem collection

Usage: csv2pbi [OPTIONS] [FILE...]

Reads what pbi2csv writes, after editing: CSV, or a workbook (.xlsx, its
first sheet), with a header row of pbi2csv's column names in any order.
Writes one PBI 1.2 collection: BOM, marker, comment lines, one data line
per row, with \\xHH escapes where PBI needs them.
",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::value(
                Some('d'),
                "delimiter",
                "CHAR",
                "Field delimiter of CSV input, one character; '\\t' means a \
                 tab",
                |a, v| {
                    a.delimiter = Some(string(v)?);
                    Ok(())
                },
            ),
            Opt::switch(
                None,
                "raw",
                "The sheet was written by pbi2csv --raw: values go in as \
                 they stand, after a check",
                |a| a.raw = true,
            ),
            Opt::value(
                None,
                "comments",
                "FILE",
                "The comment lines of the output: those of a PBI file, or \
                 every line of another file [default: a workbook's comments \
                 sheet]",
                |a, v| {
                    a.comments = Some(v);
                    Ok(())
                },
            ),
            threads_option!(
                "Threads: 1 does all on one; more, one reads while another \
                 makes the lines [default: one per core]"
            ),
        ],
    }],
    footer: "",
    positional: files_positional!(),
    man: include_str!("../../../man/csv2pbi.1"),
};
