//! Messages to the user and the exit status they lead to.
//!
//! Format readers do not print: they hand a [`Diagnostic`] to a
//! [`Report`]. The tool's [`Messages`] prints it as
//! `tool: file:line: message` (lowercase, no final period, as the GNU
//! coding standards ask) and remembers that an error happened, so that
//! `main` can choose the exit status.

use std::fmt;
use std::io::{self, Write};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Processing goes on, the exit status is unchanged.
    Warning,
    /// The record (or line, or game) is skipped; the tool exits 2 at the
    /// end.
    Error,
}

/// One message about the input, at a line of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The line it is about, counted from 1; 0 when it is about the input
    /// as a whole.
    pub line: u64,
    /// The message, lowercase, no final period.
    pub message: String,
}

impl Diagnostic {
    /// A warning at `line`.
    pub fn warning(line: u64, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            line,
            message: message.into(),
        }
    }

    /// An error at `line`.
    pub fn error(line: u64, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, line, message: message.into() }
    }
}

/// Where a format reader sends its diagnostics.
pub trait Report {
    /// Takes one diagnostic about the current input.
    fn report(&mut self, diagnostic: Diagnostic);
}

/// Collects diagnostics, for tests and for callers that print later.
impl Report for Vec<Diagnostic> {
    fn report(&mut self, diagnostic: Diagnostic) {
        self.push(diagnostic);
    }
}

/// A tool's messages on stderr.
#[derive(Debug)]
pub struct Messages {
    tool: &'static str,
    input: String,
    errored: bool,
}

impl Messages {
    /// Messages of the tool named `tool`.
    pub fn new(tool: &'static str) -> Messages {
        Messages { tool, input: String::new(), errored: false }
    }

    /// Names the input that the following diagnostics are about.
    pub fn set_input(&mut self, name: &str) {
        self.input.clear();
        self.input.push_str(name);
    }

    /// Whether any error was reported: the tool must exit 2.
    pub fn errored(&self) -> bool {
        self.errored
    }

    /// Prints `tool: input: message` as an error (a file that cannot be
    /// opened or read).
    pub fn input_error(&mut self, message: impl fmt::Display) {
        self.errored = true;
        let input = self.input.clone();
        self.print(format_args!("{input}: {message}"));
    }

    /// Prints `tool: message` as an error (bad usage, write errors).
    pub fn error(&mut self, message: impl fmt::Display) {
        self.errored = true;
        self.print(format_args!("{message}"));
    }

    fn print(&self, message: fmt::Arguments<'_>) {
        // Nothing sensible is left to do if stderr itself fails.
        let _ = writeln!(io::stderr().lock(), "{}: {message}", self.tool);
    }
}

impl Report for Messages {
    fn report(&mut self, d: Diagnostic) {
        if d.severity == Severity::Error {
            self.errored = true;
        }
        let kind = match d.severity {
            Severity::Warning => "warning: ",
            Severity::Error => "",
        };
        let input = &self.input;
        if d.line == 0 {
            self.print(format_args!("{input}: {kind}{}", d.message));
        } else {
            self.print(format_args!(
                "{input}:{}: {kind}{}",
                d.line, d.message
            ));
        }
    }
}
