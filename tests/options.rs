//! Each tool's table of options against what the user sees: the man
//! page (in both directions), `--help`, `--generate` and the completion
//! scripts, which the shells that are installed read and run.

use std::fs;
use std::process::Command;

use chesspipe::cmd::flags::{Flag, TOOLS};

use crate::util::{repo_file, Dir};

/// An option's name as the man page gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Name {
    Short(char),
    Long(String),
}

/// The `.It` lines of the OPTIONS section of an mdoc page: the names on
/// each, and whether it shows a value (`Ar` or `Cm` after the names).
fn man_options(page: &str) -> Vec<(Vec<Name>, bool)> {
    let mut items = vec![];
    let mut in_options = false;
    for line in page.lines() {
        if line.starts_with(".Sh ") {
            in_options = line == ".Sh OPTIONS";
        }
        let Some(item) = line.strip_prefix(".It ").filter(|_| in_options)
        else {
            continue;
        };
        let words: Vec<&str> = item.split_whitespace().collect();
        let mut names = vec![];
        for pair in words.windows(2).filter(|w| w[0] == "Fl") {
            let name = pair[1].replace("\\-", "-");
            match name.strip_prefix('-') {
                Some(long) => names.push(Name::Long(long.to_string())),
                None => names.extend(name.chars().next().map(Name::Short)),
            }
        }
        let value = words.iter().any(|w| *w == "Ar" || *w == "Cm");
        items.push((names, value));
    }
    items
}

fn names(flag: &Flag) -> Vec<Name> {
    let short = flag.short.map(Name::Short);
    short.into_iter().chain(flag.long.map(|l| Name::Long(l.into()))).collect()
}

/// Every option of a tool's table has an item of its own in the man page,
/// with all its names and a value if it takes one; and every item there
/// is an option of the table: neither can drift from the other.
#[test]
fn every_man_page_names_every_option_and_no_other() {
    for tool in TOOLS {
        let path = format!("man/{}.1", tool.name());
        let page = fs::read_to_string(repo_file(&path)).unwrap();
        assert!(page == tool.man(), "{path} is not the page built in");
        let items = man_options(&page);
        let flags = tool.options();
        for flag in &flags {
            let names = names(flag);
            let item = items.iter().find(|(n, _)| n.contains(&names[0]));
            let Some((item_names, value)) = item else {
                panic!("{path} does not name {}", flag.names());
            };
            assert_eq!(item_names, &names, "{path}: {}", flag.names());
            assert_eq!(*value, flag.value.is_some(), "{path}: {:?}", names);
        }
        for (item_names, _) in &items {
            for name in item_names {
                let known = flags.iter().any(|f| names(f).contains(name));
                assert!(known, "{path} names {name:?}, not in the table");
            }
        }
        let mut all: Vec<Name> = flags.iter().flat_map(names).collect();
        let count = all.len();
        all.sort_by_key(|n| format!("{n:?}"));
        all.dedup();
        assert_eq!(all.len(), count, "{}: a name used twice", tool.name());
    }
}

/// The test above reads mdoc as the pages write it.
#[test]
fn man_options_reads_the_items() {
    let page = ".Sh OPTIONS\n.Bl -tag\n.It Fl c , Fl \\-no\\-header Ar x\n\
                .It Fl w\n.It Fl -player Cm white\n.Sh EXIT STATUS\n\
                .It Fl z\n";
    let long = |s: &str| Name::Long(s.into());
    assert_eq!(
        man_options(page),
        [
            (vec![Name::Short('c'), long("no-header")], true),
            (vec![Name::Short('w')], false),
            (vec![long("player")], true),
        ]
    );
}

#[test]
fn help_shows_every_option() {
    let dir = Dir::new("help-options");
    for tool in TOOLS {
        let help = dir.command(tool.name()).arg("--help").stdout();
        for flag in tool.options() {
            let mut usage = match (flag.short, flag.long) {
                (Some(s), Some(l)) => format!("  -{s}, --{l}"),
                (None, Some(l)) => format!("      --{l}"),
                (Some(s), None) => format!("  -{s} "),
                (None, None) => unreachable!(),
            };
            if let Some(value) = flag.value {
                usage = format!("{usage} {value} ");
            }
            assert!(help.contains(&usage), "{}: {usage}\n{help}", tool.name());
        }
        assert!(help.lines().all(|l| l.chars().count() <= 79), "{help}");
    }
}

#[test]
fn generate_man_writes_the_man_page() {
    let dir = Dir::new("generate-man");
    for tool in TOOLS {
        let man =
            dir.command(tool.name()).args(["--generate", "man"]).stdout();
        let file =
            fs::read_to_string(repo_file(&format!("man/{}.1", tool.name())))
                .unwrap();
        assert!(man == file, "{}", tool.name());
    }
    dir.command("pbi2csv")
        .args(["--generate", "complete-tcsh"])
        .run()
        .code(2)
        .says(
            "pbi2csv: invalid value for --generate: expected one of man, \
             complete-bash, complete-zsh, complete-fish, got 'complete-tcsh'",
        );
}

/// Whether `shell` can be run here.
fn have(shell: &str) -> bool {
    Command::new(shell).arg("-c").arg("exit 0").output().is_ok()
}

/// Each script names every option by each of its names, and the shell
/// reads it without a syntax error (bash, zsh and fish where installed).
#[test]
fn completion_scripts_offer_every_option() {
    let dir = Dir::new("completions");
    for tool in TOOLS {
        for (shell, kind, syntax) in [
            ("bash", "complete-bash", "-n"),
            ("zsh", "complete-zsh", "-n"),
            ("fish", "complete-fish", "--no-execute"),
        ] {
            let script =
                dir.command(tool.name()).args(["--generate", kind]).stdout();
            for flag in tool.options() {
                for name in names(&flag) {
                    let shown = match (&name, shell) {
                        (Name::Short(c), "fish") => format!("-s {c}"),
                        (Name::Long(l), "fish") => format!("-l {l}"),
                        (Name::Short(c), _) => format!("-{c}"),
                        (Name::Long(l), _) => format!("--{l}"),
                    };
                    assert!(
                        script.contains(&shown),
                        "{} {kind} lacks {shown}",
                        tool.name()
                    );
                }
            }
            if have(shell) {
                let path =
                    dir.create(&format!("{}.{shell}", tool.name()), &script);
                let out = Command::new(shell).arg(syntax).arg(&path).output();
                let out = out.unwrap();
                assert!(
                    out.status.success(),
                    "{shell} {}: {}\n{script}",
                    tool.name(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
}

/// What the completion of `words`, the cursor on the last, offers in
/// `shell`: bash calls the function, fish its `complete -C`.
fn complete(shell: &str, tool: &str, words: &[&str]) -> String {
    let dir = Dir::new("complete-run");
    let kind = format!("complete-{shell}");
    let script = dir.command(tool).args(["--generate", &kind]).stdout();
    let path = dir.create("script", script);
    let line = words.join(" ");
    let program = match shell {
        "bash" => format!(
            "source {}; COMP_WORDS=({line}); COMP_CWORD={}; _{}; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display(),
            words.len() - 1,
            tool.replace('-', "_")
        ),
        _ => format!("source {}; complete -C '{line}'", path.display()),
    };
    let out = Command::new(shell).arg("-c").arg(program).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn completions_offer_the_values_of_an_option() {
    for shell in ["bash", "fish"].into_iter().filter(|s| have(s)) {
        let got =
            complete(shell, "gbr-encode", &["gbr-encode", "--format", "''"]);
        let words: Vec<&str> =
            got.lines().map(|l| l.split('\t').next().unwrap()).collect();
        assert_eq!(words, ["code", "position", "study"], "{shell}");
        let got = complete(shell, "pbi-grep", &["pbi-grep", "--ignore-c"]);
        assert!(got.starts_with("--ignore-case"), "{shell}: {got}");
    }
}
