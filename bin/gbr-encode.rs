//! gbr-encode: the GBR code of each position, one per line; or, with
//! `--decode`, what each code stands for.

use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common};
use chesspipe::cmd::gbr_encode::{self, Args, Config};

const HELP: &str = "\
gbr-encode: GBR codes of chess positions

Usage: gbr-encode [OPTIONS] [FILE...]

Each input line holds a position: a FEN (the board field, optionally
followed by the other FEN fields) or a PBI Forsyth string. For a PBI
file, the position of each data record is used. One line is written
per position.

Options:
  -f, --format FORM    The form to write: code (0116.00, the
                       default), position (a7d3 0116.00 b2b3c6d6 3/3+.)
                       or study ([+0020.42c1a1])
      --result RESULT  The verdict written into the position and study
                       forms: win or draw
  -p, --prefix         Write the code, a tab, then the input line
  -d, --decode         Read codes in any form and write what they stand
                       for (KRB-KNN, a FEN board, kings and verdict)
  -j, --threads NUM    Threads for a large input of positions or codes
                       [default: one per core]
";

fn main() -> ExitCode {
    cli::main("gbr-encode", &help(), parse, gbr_encode::run)
}

fn help() -> String {
    format!("{HELP}\n{}", cli::COMMON_HELP)
}

fn parse(
    mut parser: lexopt::Parser,
) -> Result<Command<Config>, lexopt::Error> {
    use lexopt::prelude::*;

    let mut common = Common::default();
    let mut args = Args::default();
    while let Some(arg) = parser.next()? {
        let arg = match common.take(arg) {
            Ok(None | Some(Command::Run(()))) => continue,
            Ok(Some(Command::Help)) => return Ok(Command::Help),
            Ok(Some(Command::Version)) => return Ok(Command::Version),
            Err(arg) => arg,
        };
        match arg {
            Short('f') | Long("format") => args.format = Some(parser.value()?),
            Long("result") => args.result = Some(parser.value()?),
            Short('p') | Long("prefix") => args.prefix = true,
            Short('d') | Long("decode") => args.decode = true,
            Short('j') | Long("threads") => {
                args.threads = Some(parser.value()?.string()?);
            }
            Value(file) => args.files.push(file),
            _ => return Err(arg.unexpected()),
        }
    }
    args.strict = common.strict;
    args.check().map(Command::Run)
}
