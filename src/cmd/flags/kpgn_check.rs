//! kpgn-check's options.

use std::ffi::OsString;

use super::{string, Opt, Section, Spec};

/// kpgn-check's command line as given, before it is checked.
#[derive(Debug, Default)]
pub struct Args {
    /// `-v`/`--invert-match`.
    pub invert: bool,
    /// `-c`/`--count`.
    pub count: bool,
    /// `-q`/`--quiet`.
    pub quiet: bool,
    /// `-j`/`--threads`.
    pub threads: Option<String>,
    /// The FILE arguments.
    pub files: Vec<OsString>,
}

/// kpgn-check's options, help and man page.
pub static SPEC: Spec<Args> = Spec {
    name: "kpgn-check",
    about: "\
kpgn-check: referee Kriegspiel records; write those that could have happened

Usage: kpgn-check [OPTIONS] [FILE...]

Replays every game, unfiltered or filtered, with the rules of chess: each
move must be legal and marked + or # as it checks or mates, each illegal
attempt illegal, each announcement what the move produced. The games that
pass are written byte for byte; a game that fails is reported at the line
of the first thing wrong. An attempt impossible even on the mover's own
men is a warning.
",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::switch(
                Some('v'),
                "invert-match",
                "Write the games that fail instead",
                |a| a.invert = true,
            ),
            Opt::switch(
                Some('c'),
                "count",
                "Print only the number of games that pass",
                |a| a.count = true,
            ),
            Opt::switch(
                Some('q'),
                "quiet",
                "Print nothing; the exit status tells",
                |a| a.quiet = true,
            ),
            threads_option!(
                "Threads for a large input [default: one per core]"
            ),
        ],
    }],
    footer: "",
    positional: files_positional!(),
    man: include_str!("../../../man/kpgn-check.1"),
};
