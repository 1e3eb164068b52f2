//! What the tools share on the command line: running a tool by its
//! table of options, usage errors, the values several tools take, and
//! turning a run's outcome into an exit status.
//!
//! Every tool parses its arguments with lexopt, by its table
//! ([`flags`]), into plain values first, and only then checks them and
//! opens files (ripgrep's low/high args).

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use crate::cmd::flags::{self, Generate, Spec};
use crate::cmd::msg::Messages;
use crate::cmd::output;
use crate::diag::{describe, shown};

pub use crate::cmd::flags::Common;

/// What a command line asks a tool to do.
#[derive(Debug)]
pub enum Command<C> {
    /// Run with this configuration.
    Run(C),
    /// Print the help and exit 0.
    Help,
    /// Print the version and exit 0.
    Version,
    /// Print the man page or a completion script and exit 0.
    Generate(Generate),
}

impl<C> Command<C> {
    /// The same command with the configuration of a run made by `f`.
    ///
    /// # Errors
    ///
    /// The error of `f`.
    pub fn and_then<D, E>(
        self,
        f: impl FnOnce(C) -> Result<D, E>,
    ) -> Result<Command<D>, E> {
        Ok(match self {
            Command::Run(c) => Command::Run(f(c)?),
            Command::Help => Command::Help,
            Command::Version => Command::Version,
            Command::Generate(kind) => Command::Generate(kind),
        })
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

/// Runs a tool: parses the command line by the tool's table, checks
/// the arguments and makes the configuration (`check`), runs it, and
/// chooses the exit status. This is the only place that does.
///
/// Exit status: 0 success, 1 nothing selected, 2 any error (usage, input,
/// a malformed record). A closed stdout ends the run quietly.
pub fn main<A: Default, C>(
    spec: &Spec<A>,
    check: impl FnOnce(A, Common) -> Result<C, lexopt::Error>,
    run: impl FnOnce(C, &mut Messages) -> io::Result<Outcome>,
) -> ExitCode {
    let tool = spec.name;
    let mut msgs = Messages::new(tool);
    let command = flags::parse(spec, lexopt::Parser::from_env())
        .and_then(|command| command.and_then(|(a, c)| check(a, c)));
    let config = match command {
        Ok(Command::Run(config)) => config,
        Ok(Command::Help) => return print(&spec.help(), &mut msgs),
        Ok(Command::Version) => {
            let version = format!("{tool} {}\n", env!("CARGO_PKG_VERSION"));
            return print(&version, &mut msgs);
        }
        Ok(Command::Generate(kind)) => {
            return print(&spec.generate(kind), &mut msgs)
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

/// Prints `text` to stdout: exit 0, or, when stdout fails (other than a
/// closed pipe), a message saying so and exit 2, as for any output.
fn print(text: &str, msgs: &mut Messages) -> ExitCode {
    let mut out = output::stdout_unbuffered();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
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
             got '{}'",
            shown(value.as_bytes(), 40)
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
            "-d/--delimiter: the delimiter must be one ASCII character other \
             than a quote or a line end, or '\\t', got '{}'",
            shown(d.as_bytes(), 40)
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
