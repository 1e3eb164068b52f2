//! pbi2csv: a PBI problem collection to CSV, for spreadsheets.

use std::ffi::OsString;
use std::io;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common, Outcome};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::pbi2csv::{self, Column};

const HELP: &str = "\
pbi2csv: a PBI problem collection to CSV

Usage: pbi2csv [OPTIONS] [FILE...]

One header row, then one row per record, RFC 4180 quoting, LF row ends.
Default columns: authors, position, stipulation, source_nr, source_title,
source_date, source_page, references, awards, keymove, status, comment.

Options:
  -c, --columns LIST   Comma-separated columns, in the order wanted; besides
                       the default ones: file, line, fen, gbr, pieces
  -d, --delimiter CHAR Field delimiter, one character; '\\t' means a tab
      --no-header      Write no header row
      --raw            Every field exactly as in the file (no decoding)
      --bom            Start the output with a UTF-8 byte order mark
  -j, --threads NUM    Threads for a large input [default: one per core]
";

/// The command line as given, before it is checked.
#[derive(Default)]
struct Args {
    common: Common,
    columns: Option<String>,
    delimiter: Option<String>,
    no_header: bool,
    raw: bool,
    bom: bool,
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
            Short('c') | Long("columns") => {
                args.columns = Some(parser.value()?.string()?);
            }
            Short('d') | Long("delimiter") => {
                args.delimiter = Some(parser.value()?.string()?);
            }
            Long("no-header") => args.no_header = true,
            Long("raw") => args.raw = true,
            Long("bom") => args.bom = true,
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
fn config(args: &Args) -> Result<pbi2csv::Config, lexopt::Error> {
    let mut config = pbi2csv::Config {
        header: !args.no_header,
        raw: args.raw,
        bom: args.bom,
        strict: args.common.strict,
        threads: cli::threads(args.threads.as_deref())?,
        ..pbi2csv::Config::default()
    };
    if let Some(list) = &args.columns {
        config.columns = columns(list)?;
    }
    if let Some(d) = &args.delimiter {
        config.delimiter = delimiter(d)?;
    }
    Ok(config)
}

fn columns(list: &str) -> Result<Vec<Column>, lexopt::Error> {
    list.split(',')
        .map(|name| {
            Column::from_name(name.trim()).ok_or_else(|| {
                cli::usage(format!(
                    "unknown column '{name}' (valid: {})",
                    Column::names()
                ))
            })
        })
        .collect()
}

fn delimiter(d: &str) -> Result<u8, lexopt::Error> {
    match d.as_bytes() {
        br"\t" => Ok(b'\t'),
        [b] if b.is_ascii() && *b != b'"' && *b != b'\n' && *b != b'\r' => {
            Ok(*b)
        }
        _ => Err(cli::usage(format!(
            "the delimiter must be one ASCII character other than a quote \
             or a line end, or '\\t' (got '{d}')"
        ))),
    }
}

fn main() -> ExitCode {
    cli::main(
        "pbi2csv",
        &format!("{HELP}\n{}", cli::COMMON_HELP),
        |parser| match parse(parser)? {
            Command::Run(args) => {
                let config = config(&args)?;
                Ok(Command::Run((config, args.files)))
            }
            Command::Help => Ok(Command::Help),
            Command::Version => Ok(Command::Version),
        },
        |(config, files), msgs| {
            let sources = Source::from_args(files);
            // csv::Writer buffers on its own (64 KiB): no BufWriter here.
            pbi2csv::run(&config, &sources, msgs, io::stdout().lock())?;
            Ok(Outcome::Done)
        },
    )
}
