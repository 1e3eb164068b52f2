//! pbi2csv: a PBI problem collection to CSV, for spreadsheets.

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Common, Outcome};
use chesspipe::cmd::flags::pbi2csv::{Args, SPEC};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::output;
use chesspipe::cmd::pbi2csv::{self, Column};
use chesspipe::diag::describe;

/// Where the table goes.
enum Output {
    Stdout,
    Csv(PathBuf),
    Workbook(PathBuf),
}

/// Checks the arguments and makes the configuration.
fn config(
    args: &Args,
    common: &Common,
) -> Result<pbi2csv::Config, lexopt::Error> {
    let mut config = pbi2csv::Config {
        header: !args.no_header,
        raw: args.raw,
        bom: args.bom,
        strict: common.strict,
        threads: cli::threads(args.threads.as_deref())?,
        json: args.json,
        ..pbi2csv::Config::default()
    };
    if args.json && (args.delimiter.is_some() || args.bom || args.raw) {
        return Err(cli::usage(
            "--delimiter, --bom and --raw are for CSV: --json writes JSON \
             values, decoded",
        ));
    }
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
    if args.json {
        return Err(cli::usage("--json writes JSON Lines, not a workbook"));
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
    Column::list(list).map_err(|e| cli::usage(format!("-c/--columns: {e}")))
}

fn main() -> ExitCode {
    cli::main(
        &SPEC,
        |args, common| {
            let config = config(&args, &common)?;
            let output = output(&args)?;
            Ok((config, output, args.files))
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
