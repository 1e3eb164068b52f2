//! Every console example of README.md and of the man pages, run as
//! written, its output compared with the output shown (issue 16), so
//! that no example can drift from what the tools do.
//!
//! The examples are shell pipelines (`|`, `>`, `<(...)`), which a user
//! copies into a shell: each command is run by bash with `pipefail`, not
//! split into arguments and run alone as trycmd would, and what it
//! writes to stdout and stderr, as a terminal shows them together, must
//! be the lines shown after it. Its exit status must be 0, unless the
//! lines shown hold a message of one of the tools (`kpgn-check: ...`):
//! a session does not show the status, and the message pins it.
//!
//! What is an example:
//!
//! - README.md: each ```` ```console ```` block; a line starting with
//!   `$ ` is a command, the lines up to the next command its output.
//! - man/*.1: each `.Bd -literal` block whose first line starts with
//!   `$ `, read as above after mdoc's escapes (`\e`, `\-`, `\&`); and
//!   each `.Dl $ command`, which shows no output, so it must write none.
//!
//! A command whose line ends in `|` or `\` goes on on the next line.
//! The commands of one document run in order in one fresh directory, as
//! a user's session would: README.md's holds the repository's
//! `samples/` and `tests/data/kpgn/`, as at the top of a clone; a man
//! page's holds `tests/examples/` (small files the pages name) and the
//! sample collection as `problems.pbi`. The tools are the ones this test
//! was built with, first on PATH. A spreadsheet program, which no test
//! can run, is a stub that changes nothing (`libreoffice`, `soffice`):
//! the person who opens a workbook and saves it unchanged.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{bin, repo_file, Dir};

/// One command of a document, and the output shown after it.
#[derive(Debug, PartialEq, Eq)]
struct Example {
    /// Where it is: `README.md:42`.
    place: String,
    command: String,
    output: Vec<String>,
}

/// Appends the examples of one block of lines (each with its line
/// number), read as a session: commands after `$ `, output after them.
fn session(file: &str, lines: &[(usize, String)], out: &mut Vec<Example>) {
    let mut continued = false;
    for (n, line) in lines {
        if continued {
            let last = out.last_mut().expect("a command goes on");
            last.command.push('\n');
            last.command.push_str(line);
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                place: format!("{file}:{n}"),
                command: command.to_string(),
                output: vec![],
            });
        } else if let Some(last) = out.last_mut() {
            last.output.push(line.clone());
            continue;
        } else {
            panic!("{file}:{n}: output before any command: {line}");
        }
        let command = &out.last().expect("just pushed").command;
        continued = command.ends_with('|') || command.ends_with('\\');
    }
}

/// The console examples of a Markdown document.
fn markdown_examples(file: &str, text: &str) -> Vec<Example> {
    let mut examples = vec![];
    let mut block: Option<Vec<(usize, String)>> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut block {
            None if line == "```console" => block = Some(vec![]),
            None => {}
            Some(lines) if line == "```" => {
                session(file, lines, &mut examples);
                block = None;
            }
            Some(lines) => lines.push((i + 1, line.to_string())),
        }
    }
    examples
}

/// A line of mdoc with its escapes read.
fn unescape_mdoc(line: &str) -> String {
    line.replace("\\-", "-")
        .replace("\\&", "")
        .replace("\\(aq", "'")
        .replace("\\(dq", "\"")
        .replace("\\e", "\\")
}

/// The console examples of an mdoc page.
fn man_examples(file: &str, text: &str) -> Vec<Example> {
    let mut examples = vec![];
    let mut block: Option<Vec<(usize, String)>> = None;
    let mut first = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        match &mut block {
            None if line.starts_with(".Bd -literal") => {
                block = Some(vec![]);
                first = true;
            }
            None => {
                if let Some(command) = line.strip_prefix(".Dl $ ") {
                    examples.push(Example {
                        place: format!("{file}:{n}"),
                        command: unescape_mdoc(command),
                        output: vec![],
                    });
                }
            }
            Some(lines) if line == ".Ed" => {
                if lines.first().is_some_and(|(_, l)| l.starts_with("$ ")) {
                    session(file, lines, &mut examples);
                }
                block = None;
            }
            Some(lines) => {
                if first && !line.starts_with("$ ") {
                    // Not a session (a list of messages): skipped whole.
                    lines.push((n, line.to_string()));
                } else {
                    lines.push((n, unescape_mdoc(line)));
                }
                first = false;
            }
        }
    }
    examples
}

/// Copies the directory `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

/// A directory for the session of `document`, and the PATH to run it
/// with.
fn sandbox(document: &str) -> (Dir, String) {
    let dir = Dir::new(&format!("examples-{}", document.replace('/', "-")));
    if document == "README.md" {
        copy_dir(&repo_file("samples"), &dir.path("samples"));
        copy_dir(&repo_file("tests/data/kpgn"), &dir.path("tests/data/kpgn"));
    } else {
        copy_dir(&repo_file("tests/examples"), &dir.path(""));
        fs::copy(repo_file("samples/problems.pbi"), dir.path("problems.pbi"))
            .unwrap();
    }
    // Hidden, so that no `*` of an example sees it.
    let stubs = dir.path(".stubs");
    fs::create_dir_all(&stubs).unwrap();
    for program in ["libreoffice", "soffice"] {
        let stub = stubs.join(program);
        fs::write(&stub, "#!/bin/sh\n# A person who changes nothing.\n")
            .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&stub, fs::Permissions::from_mode(0o755))
                .unwrap();
        }
    }
    let tools = Path::new(bin("pbi2csv")).parent().unwrap().to_path_buf();
    let system = std::env::var_os("PATH").unwrap_or_default();
    let paths =
        [tools, stubs].into_iter().chain(std::env::split_paths(&system));
    let path = std::env::join_paths(paths).unwrap();
    (dir, path.into_string().unwrap())
}

/// Runs the examples of one document in order; returns what went wrong,
/// each with the command, the output shown and the output got.
fn run(document: &str, examples: &[Example]) -> Vec<String> {
    let (dir, path) = sandbox(document);
    let mut failures = vec![];
    for example in examples {
        let script =
            format!("set -o pipefail\n{{\n{}\n}} 2>&1", example.command);
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(dir.path(""))
            .env("PATH", &path)
            .output()
            .expect("run bash");
        let got = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut want = example.output.join("\n");
        if !want.is_empty() {
            want.push('\n');
        }
        let message = example.output.iter().any(|line| {
            TOOLS.iter().any(|tool| line.starts_with(&format!("{tool}: ")))
        });
        let status_ok = out.status.success() || message;
        if got != want || !status_ok {
            failures.push(format!(
                "{}: $ {}\n--- shown ---\n{want}--- got ({}) ---\n{got}",
                example.place, example.command, out.status
            ));
        }
    }
    failures
}

const TOOLS: [&str; 6] = [
    "pbi2csv",
    "csv2pbi",
    "pbi-grep",
    "gbr-encode",
    "kpgn-filter",
    "kpgn-check",
];

/// The man pages, by file name.
fn man_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = fs::read_dir(repo_file("man"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "1"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn readme_examples_run_as_written() {
    let text = fs::read_to_string(repo_file("README.md")).unwrap();
    let examples = markdown_examples("README.md", &text);
    assert!(examples.len() >= 12, "{examples:#?}");
    let failures = run("README.md", &examples);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn man_page_examples_run_as_written() {
    let mut failures = vec![];
    for page in man_pages() {
        let name =
            format!("man/{}", page.file_name().unwrap().to_string_lossy());
        let text = fs::read_to_string(&page).unwrap();
        let examples = man_examples(&name, &text);
        assert!(!examples.is_empty(), "{name} has no example");
        failures.extend(run(&name, &examples));
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The readers above find commands, their output and their
/// continuation lines, and read mdoc's escapes.
#[test]
fn examples_are_read_as_a_session() {
    let readme =
        "x\n```console\n$ a |\n  b\n1\n2\n$ c\n```\n```sh\n$ no\n```\n";
    let want = |place: &str, command: &str, output: &[&str]| Example {
        place: place.into(),
        command: command.into(),
        output: output.iter().map(|s| s.to_string()).collect(),
    };
    assert_eq!(
        markdown_examples("R", readme),
        [want("R:3", "a |\n  b", &["1", "2"]), want("R:7", "c", &[])]
    );
    let page = ".Dl $ a \\-b '\\et'\n.Bd -literal\n$ p \\e\n  q\nout\\-put\n\
                .Ed\n.Bd -literal\nnot: a session\n$ no\n.Ed\n";
    assert_eq!(
        man_examples("M", page),
        [
            want("M:1", "a -b '\\t'", &[]),
            want("M:3", "p \\\n  q", &["out-put"])
        ]
    );
}
