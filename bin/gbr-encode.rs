//! gbr-encode: the GBR code of each position, one per line; or, with
//! `--decode`, what each code stands for.

use std::process::ExitCode;

use chesspipe::cmd::cli;
use chesspipe::cmd::flags::gbr_encode::SPEC;
use chesspipe::cmd::gbr_encode;

fn main() -> ExitCode {
    cli::main(
        &SPEC,
        |mut args, common| {
            args.strict = common.strict;
            args.check()
        },
        gbr_encode::run,
    )
}
