//! gbr-encode's options, into [`Args`].

use super::{string, Opt, Section, Spec};
use crate::cmd::gbr_encode::Args;

/// gbr-encode's options, help and man page.
pub static SPEC: Spec<Args> = Spec {
    name: "gbr-encode",
    about: "\
gbr-encode: GBR codes of chess positions

Usage: gbr-encode [OPTIONS] [FILE...]

Each input line holds a position: a FEN (the board field, optionally
followed by the other FEN fields) or a PBI Forsyth string. For a PBI
file, the position of each data record is used. One line is written
per position.
",
    sections: &[Section {
        title: "Options",
        opts: &[
            Opt::value(
                Some('f'),
                "format",
                "FORM",
                "The form to write: code (0116.00, the default), position \
                 (a7d3 0116.00 b2b3c6d6 3/3+.) or study ([+0020.42c1a1])",
                |a: &mut Args, v| {
                    a.format = Some(v);
                    Ok(())
                },
            )
            .choices(&["code", "position", "study"]),
            Opt::value(
                None,
                "result",
                "RESULT",
                "The verdict written into the position and study forms: win \
                 or draw",
                |a: &mut Args, v| {
                    a.result = Some(v);
                    Ok(())
                },
            )
            .choices(&["win", "draw"]),
            Opt::switch(
                Some('p'),
                "prefix",
                "Write the code, a tab, then the input line",
                |a| a.prefix = true,
            ),
            Opt::switch(
                Some('d'),
                "decode",
                "Read codes in any form and write what they stand for \
                 (KRB-KNN, a FEN board, kings and verdict)",
                |a| a.decode = true,
            ),
            threads_option!(
                "Threads for a large input of positions or codes [default: \
                 one per core]"
            ),
        ],
    }],
    footer: "",
    positional: files_positional!(),
    man: include_str!("../../../man/gbr-encode.1"),
};
