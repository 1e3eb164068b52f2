//! A tool's messages on stderr, and whether they add up to an error.
//!
//! The format readers hand [`Diagnostic`]s to a [`Report`]; [`Messages`]
//! is the tools' report: it prints each one as `tool: file:line: message`
//! (lowercase, no final period, as the GNU coding standards ask) and
//! remembers that an error happened, so that `main` can choose the exit
//! status.

use std::fmt;
use std::io::{self, Write};

use crate::diag::{escaped, Diagnostic, Report, Severity};

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

    /// Prints `tool: message` as a usage error, and on a line of its own
    /// where to read how the tool is used.
    pub fn usage(&mut self, message: impl fmt::Display) {
        self.error(message);
        let tool = self.tool;
        let _ = writeln!(
            io::stderr().lock(),
            "Try '{tool} --help' for more information."
        );
    }

    /// Prints `tool: message`, every control character in it shown
    /// escaped (`\x1b`): the messages quote input and file names, and
    /// none of them may drive the terminal or forge a message line.
    fn print(&self, message: fmt::Arguments<'_>) {
        let text = match message.as_str() {
            Some(text) => std::borrow::Cow::Borrowed(text),
            None => message.to_string().into(),
        };
        let text = escaped(&text);
        // Nothing sensible is left to do if stderr itself fails.
        let _ = writeln!(io::stderr().lock(), "{}: {text}", self.tool);
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
            self.print(format_args!("{input}: {kind}{}", d.text()));
        } else {
            self.print(format_args!("{input}:{}: {kind}{}", d.line, d.text()));
        }
    }
}
