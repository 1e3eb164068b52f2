/*!
The options of every tool, one table each, and what the tables drive:
the lexopt parser, `--help`, the shell completions (`--generate`) and
the test that each man page names every option (ripgrep 14's
`crates/core/flags/`, with lexopt instead of its own parser).

A row of a table ([`Opt`]) is an option's short and long name, the name
of its value and the values it may take, its help text, and what it sets
in the tool's plain arguments ([`Set`]). A tool's [`Spec`] holds its
table in sections, the text around it and its man page; [`parse`] reads
a command line with it into the tool's arguments, which the binary then
checks and turns into its configuration (ripgrep's low and high
arguments). The options every tool has are [`COMMON`].
*/

use std::ffi::OsString;

use crate::cmd::cli::{self, Command};

/// The `-j`/`--threads NUM` option of a table, with the tool's help
/// line: the same in every tool but for the help.
macro_rules! threads_option {
    ($help:expr) => {
        Opt::value(Some('j'), "threads", "NUM", $help, |a, v| {
            a.threads = Some(string(v)?);
            Ok(())
        })
    };
}

/// A table's `positional`: each FILE argument in `files`.
macro_rules! files_positional {
    () => {
        |a, v| {
            a.files.push(v);
            Ok(())
        }
    };
}

pub mod complete;
pub mod csv2pbi;
pub mod gbr_encode;
pub mod kpgn_check;
pub mod kpgn_filter;
pub mod pbi2csv;
pub mod pbi_grep;

/// What an option is called and how it is documented.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// `-c`; `None` for a long option alone.
    pub short: Option<char>,
    /// `--columns`; `None` for a short option alone (`-w`).
    pub long: Option<&'static str>,
    /// The name of its value in the help (`LIST`); `None` for a switch.
    pub value: Option<&'static str>,
    /// The values it takes, when they are a fixed set; empty otherwise.
    pub choices: &'static [&'static str],
    /// One line of help, wrapped when shown.
    pub help: &'static str,
}

impl Flag {
    /// The names as messages give them: `-j/--threads`, `--plies`, `-w`.
    pub fn names(&self) -> String {
        match (self.short, self.long) {
            (Some(s), Some(l)) => format!("-{s}/--{l}"),
            (None, Some(l)) => format!("--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, None) => String::new(),
        }
    }

    /// The long name with its dashes, or else the short one.
    pub fn name(&self) -> String {
        match (self.short, self.long) {
            (_, Some(l)) => format!("--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, None) => String::new(),
        }
    }

    /// The names and value as the help shows them: `-c, --columns LIST`.
    fn usage(&self) -> String {
        let mut text = match (self.short, self.long) {
            (Some(s), Some(l)) => format!("-{s}, --{l}"),
            (None, Some(l)) => format!("    --{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, None) => String::new(),
        };
        if let Some(value) = self.value {
            text.push(' ');
            text.push_str(value);
        }
        text
    }

    /// Whether `arg` names this option.
    fn is(&self, arg: &lexopt::Arg<'_>) -> bool {
        match *arg {
            lexopt::Arg::Short(c) => self.short == Some(c),
            lexopt::Arg::Long(name) => self.long == Some(name),
            lexopt::Arg::Value(_) => false,
        }
    }
}

/// What an option sets in a tool's arguments `A`.
pub enum Set<A> {
    /// A switch, which takes no value.
    Switch(fn(&mut A)),
    /// An option with a value; an error it gives is shown after the
    /// option's names.
    Value(fn(&mut A, OsString) -> Result<(), lexopt::Error>),
}

/// One option: a row of a tool's table.
pub struct Opt<A: 'static> {
    /// Its names and help.
    pub flag: Flag,
    /// What it sets.
    pub set: Set<A>,
}

impl<A> Opt<A> {
    /// A switch, with a short name or not.
    pub const fn switch(
        short: Option<char>,
        long: &'static str,
        help: &'static str,
        set: fn(&mut A),
    ) -> Opt<A> {
        let flag =
            Flag { short, long: Some(long), value: None, choices: &[], help };
        Opt { flag, set: Set::Switch(set) }
    }

    /// A switch with only a short name (`-w`).
    pub const fn short_switch(
        short: char,
        help: &'static str,
        set: fn(&mut A),
    ) -> Opt<A> {
        let flag = Flag {
            short: Some(short),
            long: None,
            value: None,
            choices: &[],
            help,
        };
        Opt { flag, set: Set::Switch(set) }
    }

    /// An option with a value called `value` in the help.
    pub const fn value(
        short: Option<char>,
        long: &'static str,
        value: &'static str,
        help: &'static str,
        set: fn(&mut A, OsString) -> Result<(), lexopt::Error>,
    ) -> Opt<A> {
        let flag = Flag {
            short,
            long: Some(long),
            value: Some(value),
            choices: &[],
            help,
        };
        Opt { flag, set: Set::Value(set) }
    }

    /// The same option, taking only one of `choices`.
    pub const fn choices(mut self, choices: &'static [&'static str]) -> Self {
        self.flag.choices = choices;
        self
    }
}

/// A titled group of options in the help.
pub struct Section<A: 'static> {
    /// `Options`, `Selection`, ...
    pub title: &'static str,
    /// The options, in the order shown.
    pub opts: &'static [Opt<A>],
}

/// Everything the command line of one tool is made of.
pub struct Spec<A: 'static> {
    /// The tool's name.
    pub name: &'static str,
    /// The help before the options: what it does, usage, a paragraph.
    pub about: &'static str,
    /// The tool's options, in sections.
    pub sections: &'static [Section<A>],
    /// Help shown after the tool's options, before the common ones;
    /// empty for none.
    pub footer: &'static str,
    /// Takes an argument that is not an option (a FILE, a PATTERN).
    pub positional: fn(&mut A, OsString) -> Result<(), lexopt::Error>,
    /// The man page, mdoc source.
    pub man: &'static str,
}

impl<A> Spec<A> {
    /// Every option of the tool, then the common ones.
    pub fn flags(&self) -> impl Iterator<Item = &Flag> + '_ {
        let own = self.sections.iter().flat_map(|s| s.opts.iter());
        own.map(|o| &o.flag).chain(COMMON.iter().map(|o| &o.flag))
    }

    /// The `--help` text.
    pub fn help(&self) -> String {
        let width = self.flags().map(|f| f.usage().len()).max().unwrap_or(0);
        let mut out = String::from(self.about);
        for section in self.sections {
            out.push_str(&format!("\n{}:\n", section.title));
            for opt in section.opts {
                push_help(&mut out, &opt.flag, width);
            }
        }
        if !self.footer.is_empty() {
            out.push('\n');
            out.push_str(self.footer);
        }
        out.push_str("\nCommon options:\n");
        for opt in COMMON {
            push_help(&mut out, &opt.flag, width);
        }
        out.push_str(
            "\nWith no FILE, or when FILE is -, read standard input. An input\n\
             compressed with gzip, zstd, bzip2 or xz is read as the plain\n\
             one (told by its first bytes).\n",
        );
        out
    }

    /// What `--generate KIND` writes.
    pub fn generate(&self, kind: Generate) -> String {
        match kind {
            Generate::Man => self.man.to_string(),
            Generate::Bash => complete::bash(self),
            Generate::Zsh => complete::zsh(self),
            Generate::Fish => complete::fish(self),
        }
    }
}

/// A tool's table seen without the type of its arguments, for what goes
/// over every tool (the tests of the man pages and completions).
pub trait Tool: Sync {
    /// The tool's name.
    fn name(&self) -> &'static str;
    /// Its options, then the common ones.
    fn options(&self) -> Vec<Flag>;
    /// Its man page.
    fn man(&self) -> &'static str;
}

impl<A> Tool for Spec<A> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn options(&self) -> Vec<Flag> {
        self.flags().copied().collect()
    }

    fn man(&self) -> &'static str {
        self.man
    }
}

/// Every tool's table.
pub static TOOLS: [&dyn Tool; 6] = [
    &pbi2csv::SPEC,
    &csv2pbi::SPEC,
    &pbi_grep::SPEC,
    &gbr_encode::SPEC,
    &kpgn_filter::SPEC,
    &kpgn_check::SPEC,
];

/// The widest help line.
const HELP_WIDTH: usize = 79;

/// The help text never starts further right than this.
const MAX_INDENT: usize = 26;

/// Appends the help of one option: its names, then its text wrapped at
/// [`HELP_WIDTH`], in a column after the widest names (`width`).
fn push_help(out: &mut String, flag: &Flag, width: usize) {
    let indent = (2 + width + 2).min(MAX_INDENT);
    let usage = format!("  {}", flag.usage());
    out.push_str(&usage);
    let mut column = usage.len();
    if column + 2 > indent {
        out.push('\n');
        column = 0;
    }
    let mut first = true;
    for word in flag.help.split(' ') {
        let fits = column + 1 + word.chars().count() <= HELP_WIDTH;
        if first || !fits {
            if !first {
                out.push('\n');
                column = 0;
            }
            out.push_str(&" ".repeat(indent - column));
            column = indent;
        } else {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += word.chars().count();
        first = false;
    }
    out.push('\n');
}

/// The options every tool shares.
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// `--strict`: every warning is an error.
    pub strict: bool,
    /// `--help`, `--version` or `--generate`: what to do instead of a
    /// run.
    stop: Option<Stop>,
}

/// What the common options ask to do instead of a run.
#[derive(Clone, Copy, Debug)]
enum Stop {
    Help,
    Version,
    Generate(Generate),
}

/// What `--generate` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generate {
    /// The man page (mdoc).
    Man,
    /// A completion script for bash.
    Bash,
    /// A completion script for zsh.
    Zsh,
    /// A completion script for fish.
    Fish,
}

impl Generate {
    /// Every kind with its name.
    pub const ALL: [(Generate, &'static str); 4] = [
        (Generate::Man, "man"),
        (Generate::Bash, "complete-bash"),
        (Generate::Zsh, "complete-zsh"),
        (Generate::Fish, "complete-fish"),
    ];

    const NAMES: &'static [&'static str] =
        &["man", "complete-bash", "complete-zsh", "complete-fish"];
}

/// The options every tool has, worded the same in every tool.
pub static COMMON: &[Opt<Common>] = &[
    Opt::switch(None, "strict", "Treat every warning as an error", |c| {
        c.strict = true
    }),
    Opt::value(
        None,
        "generate",
        "KIND",
        "Print the man page or a shell completion script and exit: man, \
         complete-bash, complete-zsh or complete-fish",
        |c: &mut Common, v| {
            let kind = Generate::ALL.iter().find(|(_, name)| v == *name);
            c.stop = kind.map(|&(kind, _)| Stop::Generate(kind));
            Ok(())
        },
    )
    .choices(Generate::NAMES),
    Opt::switch(Some('h'), "help", "Print this help and exit", |c| {
        c.stop = Some(Stop::Help)
    }),
    Opt::switch(Some('V'), "version", "Print the version and exit", |c| {
        c.stop = Some(Stop::Version)
    }),
];

/// Reads a command line by `spec` into the tool's arguments and the
/// common options. `--help`, `--version` and `--generate` end the
/// reading at once, whatever follows, as the arguments before them did
/// not fail.
///
/// # Errors
///
/// An option that is not in the table, a missing or unexpected value, a
/// value that is not one of the option's choices, and the errors of the
/// table's setters, shown after the option's names.
pub fn parse<A: Default>(
    spec: &Spec<A>,
    mut parser: lexopt::Parser,
) -> Result<Command<(A, Common)>, lexopt::Error> {
    let mut args = A::default();
    let mut common = Common::default();
    while let Some(arg) = parser.next()? {
        if let lexopt::Arg::Value(value) = arg {
            (spec.positional)(&mut args, value)?;
            continue;
        }
        let own = spec.sections.iter().flat_map(|s| s.opts.iter());
        if let Some(opt) = own.into_iter().find(|o| o.flag.is(&arg)) {
            take(opt, &mut args, &mut parser)?;
        } else if let Some(opt) = COMMON.iter().find(|o| o.flag.is(&arg)) {
            take(opt, &mut common, &mut parser)?;
            match common.stop {
                Some(Stop::Help) => return Ok(Command::Help),
                Some(Stop::Version) => return Ok(Command::Version),
                Some(Stop::Generate(kind)) => {
                    return Ok(Command::Generate(kind))
                }
                None => {}
            }
        } else {
            return Err(arg.unexpected());
        }
    }
    Ok(Command::Run((args, common)))
}

/// Sets what `opt` sets, reading its value if it takes one.
fn take<A>(
    opt: &Opt<A>,
    args: &mut A,
    parser: &mut lexopt::Parser,
) -> Result<(), lexopt::Error> {
    match opt.set {
        Set::Switch(set) => set(args),
        Set::Value(set) => {
            let value = parser.value()?;
            let flag = &opt.flag;
            let chosen = flag.choices.iter().any(|c| value == *c);
            if !flag.choices.is_empty() && !chosen {
                return Err(cli::usage(format!(
                    "invalid value for {}: expected one of {}, got '{}'",
                    flag.name(),
                    flag.choices.join(", "),
                    shown(&value)
                )));
            }
            set(args, value)
                .map_err(|e| cli::usage(format!("{}: {e}", flag.names())))?;
        }
    }
    Ok(())
}

/// An argument as a message shows it: control characters and bytes that
/// are not UTF-8 escaped, at most 60 characters.
pub fn shown(value: &OsString) -> String {
    crate::diag::shown(value.as_encoded_bytes(), 60)
}

/// A value that must be UTF-8 text.
///
/// # Errors
///
/// A value that is not UTF-8.
pub fn string(value: OsString) -> Result<String, lexopt::Error> {
    value.into_string().map_err(|v| {
        cli::usage(format!("expected UTF-8 text, got '{}'", shown(&v)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Args {
        raw: bool,
        list: Option<String>,
        files: Vec<OsString>,
    }

    static SPEC: Spec<Args> = Spec {
        name: "tool",
        about: "tool: a test\n",
        sections: &[Section {
            title: "Options",
            opts: &[
                Opt::switch(None, "raw", "Everything as it is", |a| {
                    a.raw = true
                }),
                Opt::value(
                    Some('c'),
                    "columns",
                    "LIST",
                    "Comma-separated columns, in the order wanted; a rather \
                     long text to be wrapped",
                    |a, v| {
                        a.list = Some(string(v)?);
                        Ok(())
                    },
                ),
                Opt::value(
                    Some('f'),
                    "format",
                    "FORM",
                    "A form",
                    |a: &mut Args, v| {
                        a.list = Some(string(v)?);
                        Ok(())
                    },
                )
                .choices(&["code", "study"]),
            ],
        }],
        footer: "",
        positional: files_positional!(),
        man: ".Dd\n",
    };

    fn run(args: &[&str]) -> Result<Command<(Args, Common)>, String> {
        let parser = lexopt::Parser::from_args(args.iter().copied());
        parse(&SPEC, parser).map_err(|e| e.to_string())
    }

    #[test]
    fn the_table_drives_the_parser() {
        let Ok(Command::Run((args, common))) =
            run(&["--raw", "a", "-c", "x,y", "--strict", "--", "-b"])
        else {
            panic!()
        };
        assert!(args.raw && common.strict);
        assert_eq!(args.list.as_deref(), Some("x,y"));
        assert_eq!(args.files, ["a", "-b"]);
        assert!(matches!(run(&["-f", "study"]), Ok(Command::Run(_))));
        assert!(matches!(run(&["x", "-h", "--bad"]), Ok(Command::Help)));
        assert!(matches!(run(&["--version"]), Ok(Command::Version)));
        assert!(matches!(
            run(&["--generate", "complete-zsh"]),
            Ok(Command::Generate(Generate::Zsh))
        ));
        for (args, says) in [
            (&["--bad"][..], "invalid option '--bad'"),
            (&["-c"], "missing argument for option '-c'"),
            (&["--raw=1"], "unexpected argument for option '--raw'"),
            (
                &["-f", "fen"],
                "invalid value for --format: expected one of code, study, \
                 got 'fen'",
            ),
            (
                &["--generate", "man\x1b"],
                "expected one of man, complete-bash, complete-zsh, \
                 complete-fish, got 'man\\x1b'",
            ),
        ] {
            let err = run(args).err().unwrap_or_default();
            assert!(err.contains(says), "{args:?}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_setter_error_names_the_option() {
        use std::os::unix::ffi::OsStringExt;
        let bad = OsString::from_vec(b"a\xffb".to_vec());
        let parser = lexopt::Parser::from_args([OsString::from("-c"), bad]);
        let err = parse(&SPEC, parser).err().unwrap().to_string();
        assert_eq!(err, "-c/--columns: expected UTF-8 text, got 'a\\xffb'");
    }

    #[test]
    fn help_is_wrapped_in_columns() {
        let help = SPEC.help();
        assert!(help.starts_with("tool: a test\n\nOptions:\n"), "{help}");
        assert!(help.contains(
            "      --raw            Everything as it is\n\
             \x20 -c, --columns LIST   Comma-separated columns, in the order \
             wanted; a rather\n\
             \x20                      long text to be wrapped\n"
        ));
        assert!(help.contains(
            "Common options:\n      --strict         Treat every warning"
        ));
        assert!(help.contains("      --generate KIND  Print the man page or"));
        assert!(help.ends_with("(told by its first bytes).\n"));
        assert!(help.lines().all(|l| l.chars().count() <= HELP_WIDTH));
    }
}
