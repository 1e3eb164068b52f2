//! What the tools share on the command line: the common options,
//! usage errors, and turning a run's outcome into an exit status.
//!
//! Every tool parses its arguments with lexopt into plain values first,
//! and only then checks them and opens files (ripgrep's low/high args).

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use crate::cmd::msg::Messages;
use crate::cmd::output;
use crate::diag::describe;

/// The help text of the options that every tool has, worded the same in
/// every tool.
pub const COMMON_HELP: &str = "\
Common options:
      --strict         Treat every warning as an error
  -h, --help           Print this help and exit
  -V, --version        Print the version and exit

With no FILE, or when FILE is -, read standard input.";

/// What a command line asks a tool to do.
#[derive(Debug)]
pub enum Command<C> {
    /// Run with this configuration.
    Run(C),
    /// Print the help and exit 0.
    Help,
    /// Print the version and exit 0.
    Version,
}

/// The options every tool shares.
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// `--strict`: every warning is an error.
    pub strict: bool,
}

impl Common {
    /// Takes `arg` if it is a common option. `Ok(Some(_))` asks to stop
    /// parsing and print help or version; `Err(arg)` gives back an
    /// argument that is not a common option.
    pub fn take<'a>(
        &mut self,
        arg: lexopt::Arg<'a>,
    ) -> Result<Option<Command<()>>, lexopt::Arg<'a>> {
        use lexopt::Arg::{Long, Short};
        match arg {
            Short('h') | Long("help") => Ok(Some(Command::Help)),
            Short('V') | Long("version") => Ok(Some(Command::Version)),
            Long("strict") => {
                self.strict = true;
                Ok(None)
            }
            other => Err(other),
        }
    }
}

/// How a run ended, when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Something was written or selected.
    Done,
    /// Input read, but nothing selected (grep's exit status 1).
    NothingSelected,
}

/// Runs a tool: parses the command line, runs the configuration, and
/// chooses the exit status. This is the only place that does.
///
/// Exit status: 0 success, 1 nothing selected, 2 any error (usage, input,
/// a malformed record). A closed stdout ends the run quietly.
pub fn main<C>(
    tool: &'static str,
    help: &str,
    parse: impl FnOnce(lexopt::Parser) -> Result<Command<C>, lexopt::Error>,
    run: impl FnOnce(C, &mut Messages) -> io::Result<Outcome>,
) -> ExitCode {
    let mut msgs = Messages::new(tool);
    let config = match parse(lexopt::Parser::from_env()) {
        Ok(Command::Run(config)) => config,
        Ok(Command::Help) => return print(help, &mut msgs),
        Ok(Command::Version) => {
            let version = format!("{tool} {}", env!("CARGO_PKG_VERSION"));
            return print(&version, &mut msgs);
        }
        Err(err) => {
            msgs.usage(err);
            return ExitCode::from(2);
        }
    };
    match run(config, &mut msgs) {
        Ok(_) if msgs.errored() => ExitCode::from(2),
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::NothingSelected) => ExitCode::from(1),
        Err(err) if output::is_broken_pipe(&err) => {
            ExitCode::from(if msgs.errored() { 2 } else { 0 })
        }
        Err(err) => {
            msgs.error(describe(&err));
            ExitCode::from(2)
        }
    }
}

/// Prints `text` and a line end to stdout; exit 0, or 2 if stdout fails
/// (other than a closed pipe), which is reported.
fn print(text: &str, msgs: &mut Messages) -> ExitCode {
    let mut out = output::stdout_unbuffered();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if !output::is_broken_pipe(&e) => {
            msgs.error(describe(&e));
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// A usage error with a message of our own.
pub fn usage(message: impl Into<String>) -> lexopt::Error {
    lexopt::Error::Custom(message.into().into())
}

/// The most threads `-j` takes: each holds a few batches of input, and
/// beyond the cores of any machine more only cost memory.
pub const MAX_THREADS: usize = 256;

/// The value of `-j`/`--threads`: a number of threads from 1 to
/// [`MAX_THREADS`], or, when not given,
/// [`par::default_threads`](crate::cmd::par::default_threads).
pub fn threads(value: Option<&str>) -> Result<usize, lexopt::Error> {
    let Some(value) = value else {
        return Ok(crate::cmd::par::default_threads());
    };
    match value.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(usage(format!(
            "-j/--threads: expected a whole number from 1 to {MAX_THREADS}, \
             got '{value}'"
        ))),
    }
}

/// The value of `-d`/`--delimiter`: one ASCII character other than a
/// quote or a line end, or the two characters `\t` for a tab.
pub fn delimiter(d: &str) -> Result<u8, lexopt::Error> {
    match d.as_bytes() {
        br"\t" => Ok(b'\t'),
        [b] if b.is_ascii() && *b != b'"' && *b != b'\n' && *b != b'\r' => {
            Ok(*b)
        }
        _ => Err(usage(format!(
            "the delimiter must be one ASCII character other than a quote \
             or a line end, or '\\t' (got '{d}')"
        ))),
    }
}

/// An `OsString` option value as bytes. On Unix every value is bytes; on
/// other systems a value that is not Unicode is a usage error.
pub fn os_bytes(value: OsString) -> Result<Vec<u8>, lexopt::Error> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Ok(value.into_vec())
    }
    #[cfg(not(unix))]
    {
        value
            .into_string()
            .map(String::into_bytes)
            .map_err(|value| lexopt::Error::NonUnicodeValue(value))
    }
}
