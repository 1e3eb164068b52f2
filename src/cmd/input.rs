//! Opening inputs: `-` (or no argument) is stdin, anything else a path.
//!
//! A [`Source`] carries the name that messages use for it: the path as
//! given, or `<stdin>`.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};

use crate::cmd::msg::Messages;
use crate::diag::{describe, Failure};
use crate::lines::LineReader;

/// The name messages give to standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// One input named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`, or no file argument at all).
    Stdin,
    /// A file path, kept as the OS gave it.
    Path(OsString),
}

impl Source {
    /// The sources to read for the given file arguments: stdin when there
    /// are none.
    pub fn from_args(files: Vec<OsString>) -> Vec<Source> {
        if files.is_empty() {
            return vec![Source::Stdin];
        }
        files.into_iter().map(Source::from_arg).collect()
    }

    /// `-` is stdin, anything else a path.
    pub fn from_arg(arg: OsString) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::Path(arg)
        }
    }

    /// The name to use in messages and in pbi2csv's `file` column.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => STDIN_NAME.to_string(),
            Source::Path(p) => display(p),
        }
    }

    /// Opens the source for reading.
    ///
    /// # Errors
    ///
    /// The error of opening the file, e.g. when it does not exist or is a
    /// directory.
    pub fn open(&self) -> io::Result<Box<dyn Read>> {
        self.open_file().map(|(rdr, _)| rdr)
    }

    /// Opens the source for reading, and gives a second handle of the
    /// file too, for a reader that maps it ([`par::run_file_lines`]);
    /// `None` for stdin.
    ///
    /// # Errors
    ///
    /// As [`Source::open`].
    ///
    /// [`par::run_file_lines`]: crate::cmd::par::run_file_lines
    pub fn open_file(&self) -> io::Result<(Box<dyn Read>, Option<File>)> {
        match self {
            Source::Stdin => Ok((Box::new(io::stdin().lock()), None)),
            Source::Path(p) => {
                let file = File::open(p)?;
                if file.metadata()?.is_dir() {
                    return Err(io::Error::other("is a directory"));
                }
                let handle = file.try_clone().ok();
                Ok((Box::new(file), handle))
            }
        }
    }
}

/// A path as text for messages; bytes that are not UTF-8 are shown as
/// U+FFFD.
fn display(p: &OsStr) -> String {
    p.to_string_lossy().into_owned()
}

/// Reads every source in turn through a fresh [`LineReader`]. A source
/// that cannot be opened or read is reported and skipped; a write error
/// ends the run and is returned.
///
/// `each` gets the input's name (for messages and columns), its lines,
/// the file when it is one (to be mapped), and the messages (already
/// naming the input).
pub fn read_all<F>(
    sources: &[Source],
    msgs: &mut Messages,
    mut each: F,
) -> io::Result<()>
where
    F: FnMut(
        &str,
        &mut LineReader<Box<dyn Read>>,
        Option<&File>,
        &mut Messages,
    ) -> Result<(), Failure>,
{
    for source in sources {
        let name = source.name();
        msgs.set_input(&name);
        let (rdr, file) = match source.open_file() {
            Ok(opened) => opened,
            Err(e) => {
                msgs.input_error(describe(&e));
                continue;
            }
        };
        let mut lines = LineReader::new(rdr);
        match each(&name, &mut lines, file.as_ref(), msgs) {
            Ok(()) => {}
            Err(Failure::Read(e)) => {
                msgs.input_error(format_args!("read error: {}", describe(&e)))
            }
            Err(Failure::Write(e)) => return Err(e),
        }
    }
    Ok(())
}
