//! pbi2csv: a PBI problem collection to CSV, for spreadsheets.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common, Outcome};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::output;
use chesspipe::cmd::pbi2csv::{self, Column};
use chesspipe::diag::describe;

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
  -o, --output FILE    Write to FILE instead of standard output; a name
                       ending in .xlsx writes a workbook of text cells
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
    output: Option<OsString>,
    files: Vec<OsString>,
}

/// Where the table goes.
enum Output {
    Stdout,
    Csv(PathBuf),
    Workbook(PathBuf),
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
            Short('o') | Long("output") => args.output = Some(parser.value()?),
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
        config.delimiter = cli::delimiter(d)?;
    }
    Ok(config)
}

/// Where `-o` sends the table: a name ending in `.xlsx` (in any case) is
/// a workbook, for which a delimiter or a BOM means nothing.
fn output(args: &Args) -> Result<Output, lexopt::Error> {
    let Some(path) = &args.output else { return Ok(Output::Stdout) };
    if path == "-" {
        return Ok(Output::Stdout);
    }
    let path = PathBuf::from(path);
    let xlsx = path
        .extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("xlsx"));
    if !xlsx {
        return Ok(Output::Csv(path));
    }
    if args.delimiter.is_some() || args.bom {
        return Err(cli::usage(
            "--delimiter and --bom are for CSV: a workbook (-o FILE.xlsx) \
             has neither",
        ));
    }
    Ok(Output::Workbook(path))
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

fn main() -> ExitCode {
    cli::main(
        "pbi2csv",
        &format!("{HELP}\n{}", cli::COMMON_HELP),
        |parser| match parse(parser)? {
            Command::Run(args) => {
                let config = config(&args)?;
                let output = output(&args)?;
                Ok(Command::Run((config, output, args.files)))
            }
            Command::Help => Ok(Command::Help),
            Command::Version => Ok(Command::Version),
        },
        |(config, output, files), msgs| {
            let sources = Source::from_args(files);
            // The CSV writer buffers on its own (64 KiB): no BufWriter.
            match output {
                Output::Stdout => {
                    let out = output::stdout_unbuffered();
                    pbi2csv::run(&config, &sources, msgs, out)?;
                }
                Output::Csv(path) => {
                    let out = File::create(&path).map_err(|e| {
                        let e = describe(&e);
                        io::Error::other(format!("{}: {e}", path.display()))
                    })?;
                    let out =
                        output::Named::new(out, path.display().to_string());
                    pbi2csv::run(&config, &sources, msgs, out)?;
                }
                Output::Workbook(path) => {
                    pbi2csv::run_workbook(&config, &sources, msgs, &path)?;
                }
            }
            Ok(Outcome::Done)
        },
    )
}
