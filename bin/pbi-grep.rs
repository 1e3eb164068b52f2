//! pbi-grep: select records of PBI collections; the output is still PBI.

use std::ffi::OsString;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Common, Outcome};
use chesspipe::cmd::flags::pbi_grep::{Args, SPEC};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::output;
use chesspipe::cmd::pbi_grep::{self, Mode, Pattern, Selector, Target};

/// What the checked command line runs.
struct Config {
    selector: Selector,
    opts: pbi_grep::Options,
    files: Vec<OsString>,
}

fn config(mut args: Args, common: Common) -> Result<Config, lexopt::Error> {
    let selecting = !args.regexps.is_empty()
        || !args.fields.is_empty()
        || args.status.is_some()
        || args.gbr.is_some()
        || args.pieces.is_some();
    if !selecting {
        if args.positional.is_empty() {
            return Err(cli::usage(
                "a PATTERN or a selection option is needed",
            ));
        }
        let pattern = args.positional.remove(0);
        let pattern = pattern
            .into_string()
            .map_err(|_| cli::usage("the PATTERN is not valid UTF-8"))?;
        args.regexps.push(pattern);
    }
    let opts = args.pattern_opts;
    let regex = |patterns: &[String], option: &str| {
        Pattern::new(patterns, opts).map_err(|e| cli::usage(e.message(option)))
    };
    let mut selector = Selector { invert: args.invert, ..Selector::default() };
    if !args.regexps.is_empty() {
        let option = if selecting { "-e" } else { "PATTERN" };
        selector.any = Some(regex(&args.regexps, option)?);
    }
    for target in Target::ALL {
        let patterns: Vec<String> = args
            .fields
            .iter()
            .filter(|(t, _)| *t == target)
            .map(|(_, p)| p.clone())
            .collect();
        if !patterns.is_empty() {
            selector.fields.push((target, regex(&patterns, target.option())?));
        }
    }
    selector.status = args.status;
    selector.gbr = args.gbr;
    selector.pieces = args.pieces;
    let mode = match (args.quiet, args.list, args.count) {
        (true, _, _) => Mode::Quiet,
        (false, Some(list), _) => list,
        (false, None, true) => Mode::Count,
        (false, None, false) => Mode::Print,
    };
    let opts = pbi_grep::Options {
        mode,
        max: args.max,
        strict: common.strict,
        threads: cli::threads(args.threads.as_deref())?,
    };
    Ok(Config { selector, opts, files: args.positional })
}

fn main() -> ExitCode {
    cli::main(&SPEC, config, |config, msgs| {
        let sources = Source::from_args(config.files);
        let selected = pbi_grep::run(
            &config.selector,
            config.opts,
            &sources,
            msgs,
            output::stdout(),
        )?;
        Ok(if selected > 0 { Outcome::Done } else { Outcome::NothingSelected })
    })
}
