//! kpgn-filter's options.

use std::ffi::OsString;

use super::{shown, string, Opt, Section, Spec};
use crate::cmd::cli;
use crate::kpgn::Side;

/// kpgn-filter's command line as given, before it is checked.
#[derive(Debug, Default)]
pub struct Args {
    /// `-p`/`--player`, `-w`, `-b`, each as given: the side and the
    /// option as a message names it.
    pub players: Vec<(Side, &'static str)>,
    /// `--plies`.
    pub plies: Option<u64>,
    /// `--keep-comments`.
    pub keep_comments: bool,
    /// `-j`/`--threads`.
    pub threads: Option<String>,
    /// The FILE arguments.
    pub files: Vec<OsString>,
}

/// kpgn-filter's options, help and man page.
pub static SPEC: Spec<Args> = Spec {
    name: "kpgn-filter",
    about: "\
kpgn-filter: write Kriegspiel PGN games as one player saw them

Usage: kpgn-filter --player white|black [OPTIONS] [FILE...]

The opponent's moves become ??, their illegal attempts a count, their
comments, NAGs and glyphs disappear; the referee's announcements stay;
variations go; the Filtered tag names the player. Everything else is
copied byte for byte.
",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::value(
                Some('p'),
                "player",
                "SIDE",
                "The player whose view is written: white or black",
                |a: &mut Args, v| {
                    a.players.push(match v == "white" {
                        true => (Side::White, "--player white"),
                        false => (Side::Black, "--player black"),
                    });
                    Ok(())
                },
            )
            .choices(&["white", "black"]),
            Opt::short_switch('w', "Same as --player white", |a| {
                a.players.push((Side::White, "-w"))
            }),
            Opt::short_switch('b', "Same as --player black", |a| {
                a.players.push((Side::Black, "-b"))
            }),
            Opt::value(
                None,
                "plies",
                "N",
                "Keep only the first N half-moves of each game; Result \
                 becomes *",
                |a, v| {
                    let plies = v.to_str().and_then(|n| n.parse().ok());
                    a.plies = Some(plies.ok_or_else(|| {
                        cli::usage(format!(
                            "expected a whole number of half-moves (like \
                             8), got '{}'",
                            shown(&v)
                        ))
                    })?);
                    Ok(())
                },
            ),
            Opt::switch(
                None,
                "keep-comments",
                "Keep the comments of the opponent's moves (their NAGs and \
                 glyphs still go)",
                |a| a.keep_comments = true,
            ),
            threads_option!(
                "Threads for a large input [default: one per core]"
            ),
        ],
    }],
    footer: "",
    positional: files_positional!(),
    man: include_str!("../../../man/kpgn-filter.1"),
};
