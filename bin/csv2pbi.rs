//! csv2pbi: a spreadsheet (CSV or .xlsx) back to a PBI problem collection.

use std::ffi::OsString;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common, Outcome};
use chesspipe::cmd::csv2pbi;
use chesspipe::cmd::input::Source;
use chesspipe::cmd::output;

const HELP: &str = "\
csv2pbi: a spreadsheet (CSV or .xlsx) back to a PBI problem collection

Usage: csv2pbi [OPTIONS] [FILE...]

Reads what pbi2csv writes, after editing: CSV, or a workbook (.xlsx, its
first sheet), with a header row of pbi2csv's column names in any order.
Writes one PBI 1.2 collection: BOM, marker, comment lines, one data line
per row, with \\xHH escapes where PBI needs them.

Options:
  -d, --delimiter CHAR Field delimiter of CSV input, one character; '\\t'
                       means a tab
      --raw            The sheet was written by pbi2csv --raw: values go in
                       as they stand, after a check
      --comments FILE  The comment lines of the output: those of a PBI
                       file, or every line of another file [default: a
                       workbook's comments sheet]
  -j, --threads NUM    Threads: 1 does all on one; more, one reads while
                       another makes the lines [default: one per core]
";

/// The command line as given, before it is checked.
#[derive(Default)]
struct Args {
    common: Common,
    delimiter: Option<String>,
    raw: bool,
    comments: Option<OsString>,
    threads: Option<String>,
    files: Vec<OsString>,
}

fn parse(mut parser: lexopt::Parser) -> Result<Command<Args>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut args = Args::default();
    while let Some(arg) = parser.next()? {
        let arg = match args.common.take(arg) {
            Ok(None) => continue,
            Ok(Some(Command::Help)) => return Ok(Command::Help),
            Ok(Some(_)) => return Ok(Command::Version),
            Err(arg) => arg,
        };
        match arg {
            Short('d') | Long("delimiter") => {
                args.delimiter = Some(parser.value()?.string()?);
            }
            Long("raw") => args.raw = true,
            Long("comments") => args.comments = Some(parser.value()?),
            Short('j') | Long("threads") => {
                args.threads = Some(parser.value()?.string()?);
            }
            Value(file) => args.files.push(file),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Command::Run(args))
}

/// Checks the arguments and makes the configuration.
fn config(
    args: Args,
) -> Result<(csv2pbi::Config, Vec<OsString>), lexopt::Error> {
    let delimiter = match &args.delimiter {
        Some(d) => cli::delimiter(d)?,
        None => b',',
    };
    let config = csv2pbi::Config {
        delimiter,
        raw: args.raw,
        strict: args.common.strict,
        comments: args.comments.map(Source::from_arg),
        threads: cli::threads(args.threads.as_deref())?,
    };
    Ok((config, args.files))
}

fn main() -> ExitCode {
    cli::main(
        "csv2pbi",
        &format!("{HELP}\n{}", cli::COMMON_HELP),
        |parser| match parse(parser)? {
            Command::Run(args) => Ok(Command::Run(config(args)?)),
            Command::Help => Ok(Command::Help),
            Command::Version => Ok(Command::Version),
        },
        |(config, files), msgs| {
            let sources = Source::from_args(files);
            let out = output::stdout_unbuffered();
            csv2pbi::run(&config, &sources, msgs, out)?;
            Ok(Outcome::Done)
        },
    )
}
