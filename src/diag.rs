//! How the format readers tell of trouble in their input.
//!
//! A reader never prints. It hands a [`Diagnostic`] (the line, how bad,
//! the text) to a [`Report`], and stops an input early with a
//! [`Failure`] when reading it or writing what it made fails. Printing a
//! diagnostic, and choosing the exit status it leads to, are the
//! caller's business; a `Vec<Diagnostic>` collects them for a program
//! that wants to look at them itself.

use std::io;

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
    /// The game it is about, counted from 1 in its input, for readers of
    /// games that name them (`game 17, 12... Qxh5: ...`).
    pub game: Option<u64>,
}

impl Diagnostic {
    /// A warning at `line`.
    pub fn warning(line: u64, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            line,
            message: message.into(),
            game: None,
        }
    }

    /// An error at `line`.
    pub fn error(line: u64, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            line,
            message: message.into(),
            game: None,
        }
    }

    /// The message as it is shown: `game N, ` before it when it names a
    /// game.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self.game {
            Some(n) => format!("game {n}, {}", self.message).into(),
            None => self.message.as_str().into(),
        }
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

/// Why reading one input stopped early.
#[derive(Debug)]
pub enum Failure {
    /// The input could not be read: report it, go on with the next one.
    Read(io::Error),
    /// The output could not be written: stop everything.
    Write(io::Error),
}

/// An I/O error as a GNU-style message: lowercase, without Rust's
/// "(os error N)".
pub fn describe(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error") {
        Some(i) => &text[..i],
        None => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text.to_string(),
    }
}

/// The message about a temporary file that cannot be made in `dir`, the
/// temporary directory (`TMPDIR`, by default `/tmp`), which the tools
/// use for a workbook: it names the directory, so that it is not taken
/// for the input or the output.
pub fn temp_dir_error(dir: &std::path::Path, e: &io::Error) -> String {
    format!(
        "cannot make a temporary file in {} (TMPDIR): {}",
        dir.display(),
        describe(e)
    )
}

/// Another crate's error message in the house style: each part between
/// `": "` begins lowercase (but for a word all in capitals, such as
/// `EOCD`), and there is no final period. `Zip error: Could not find
/// EOCD.` becomes `zip error: could not find EOCD`.
pub fn house_style(text: &str) -> String {
    let text = text.trim_end().trim_end_matches('.');
    let parts: Vec<String> = text
        .split(": ")
        .map(|part| {
            let word = part.split(' ').next().unwrap_or("");
            let acronym = word.chars().filter(|c| c.is_alphabetic()).count()
                > 1
                && !word.chars().any(char::is_lowercase);
            let mut chars = part.chars();
            match chars.next() {
                Some(first) if !acronym => {
                    first.to_lowercase().chain(chars).collect()
                }
                _ => part.to_string(),
            }
        })
        .collect();
    parts.join(": ")
}

/// Bytes of the input as they may appear in a message: at most `max`
/// characters (then `...`), control characters and bytes that are not
/// UTF-8 shown as `\xHH`, so that no input can drive the terminal or
/// forge a line of its own in a message.
pub fn shown(bytes: &[u8], max: usize) -> String {
    use bstr::ByteSlice;
    use std::fmt::Write;
    let mut text = String::new();
    for (n, (start, end, c)) in bytes.char_indices().enumerate() {
        if n == max {
            text.push_str("...");
            break;
        }
        if c == '\u{FFFD}' || c.is_control() {
            for b in &bytes[start..end] {
                let _ = write!(text, "\\x{b:02x}");
            }
        } else {
            text.push(c);
        }
    }
    text
}

/// Text for a message with its control characters shown as `\xHH` (each
/// byte of them), as [`shown`] shows them: a message that quotes input or
/// a file name cannot drive the terminal or forge a line of its own.
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write;
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                let _ = write!(out, "\\x{b:02x}");
            }
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(escaped("plain, ünïcode"), "plain, ünïcode");
        assert_eq!(escaped("a\x1b[2Jb\nc\td"), "a\\x1b[2Jb\\x0ac\\x09d");
        assert_eq!(escaped("nel\u{85}"), "nel\\xc2\\x85");
        // As `shown` shows them, but for text that is already UTF-8.
        assert_eq!(escaped("\u{fffd}"), "\u{fffd}");
        assert_eq!(shown(b"a\x1b\xff", 10), "a\\x1b\\xff");
    }

    #[test]
    fn other_crates_messages_in_the_house_style() {
        assert_eq!(
            house_style(
                "Zip error: invalid Zip archive: Could not find EOCD."
            ),
            "zip error: invalid Zip archive: could not find EOCD"
        );
        assert_eq!(house_style("EOCD missing"), "EOCD missing");
        assert_eq!(house_style("I/O error"), "I/O error");
        assert_eq!(house_style("A b"), "a b");
        assert_eq!(house_style(""), "");
    }
}
