//! The harness the command-line tests share, after ripgrep's
//! `tests/util.rs`: a fresh directory per test, a command wrapper that
//! feeds stdin, and assertions that print the command, its exit status,
//! stdout and stderr when they fail.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{self, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory for one test, removed when dropped.
pub struct Dir {
    root: PathBuf,
}

impl Dir {
    /// A new directory named after the test.
    pub fn new(name: &str) -> Dir {
        let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir()
            .join("chesspipe-tests")
            .join(format!("{}-{name}-{id}", process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).expect("create the test directory");
        Dir { root }
    }

    /// Writes `contents` to `name` inside the directory.
    pub fn create(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(name);
        fs::write(&path, contents).expect("write a test file");
        path
    }

    /// The path of `name` inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// A command running the tool `tool` in this directory.
    pub fn command(&self, tool: &str) -> TestCommand {
        let mut cmd = process::Command::new(bin(tool));
        cmd.current_dir(&self.root);
        TestCommand { cmd, stdin: None, stdout: None }
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// The path of a tool binary built by cargo.
pub fn bin(tool: &str) -> &'static str {
    match tool {
        "pbi2csv" => env!("CARGO_BIN_EXE_pbi2csv"),
        "csv2pbi" => env!("CARGO_BIN_EXE_csv2pbi"),
        "pbi-grep" => env!("CARGO_BIN_EXE_pbi-grep"),
        "gbr-encode" => env!("CARGO_BIN_EXE_gbr-encode"),
        "kpgn-filter" => env!("CARGO_BIN_EXE_kpgn-filter"),
        "kpgn-check" => env!("CARGO_BIN_EXE_kpgn-check"),
        other => panic!("no binary named {other}"),
    }
}

/// A file of the repository, relative to its root.
pub fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// What a finished command gave.
pub struct Output {
    /// What the command was, for messages.
    pub shown: String,
    /// Its exit status, or -1 when killed by a signal.
    pub code: i32,
    /// Everything it wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything it wrote to stderr.
    pub stderr: Vec<u8>,
}

impl Output {
    /// stdout as text (lossy).
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as text (lossy).
    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// Panics, showing everything, unless the exit status is `code`.
    pub fn code(self, code: i32) -> Output {
        if self.code != code {
            panic!(
                "\n{}\nexpected exit status {code}, got {}\n{}",
                self.shown,
                self.code,
                self.describe()
            );
        }
        self
    }

    /// Panics unless stderr is empty.
    pub fn quiet(self) -> Output {
        if !self.stderr.is_empty() {
            panic!(
                "\n{}\nexpected no stderr\n{}",
                self.shown,
                self.describe()
            );
        }
        self
    }

    /// Panics unless stderr contains `needle`.
    pub fn says(self, needle: &str) -> Output {
        if !self.err().contains(needle) {
            panic!(
                "\n{}\nexpected stderr to contain {needle:?}\n{}",
                self.shown,
                self.describe()
            );
        }
        self
    }

    fn describe(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.out(),
            self.err()
        )
    }
}

/// A tool invocation being built.
pub struct TestCommand {
    cmd: process::Command,
    stdin: Option<Vec<u8>>,
    stdout: Option<fs::File>,
}

impl TestCommand {
    /// Adds one argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.arg(arg);
        self
    }

    /// Adds several arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut TestCommand
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Sets an environment variable for the command.
    pub fn env(
        &mut self,
        key: &str,
        value: impl AsRef<OsStr>,
    ) -> &mut TestCommand {
        self.cmd.env(key, value);
        self
    }

    /// Feeds `input` on stdin (otherwise stdin is empty).
    pub fn stdin(&mut self, input: impl AsRef<[u8]>) -> &mut TestCommand {
        self.stdin = Some(input.as_ref().to_vec());
        self
    }

    /// Sends stdout to `file` (`/dev/full`, say) instead of capturing it.
    pub fn stdout_to(&mut self, file: fs::File) -> &mut TestCommand {
        self.stdout = Some(file);
        self
    }

    /// Runs the command to the end.
    pub fn run(&mut self) -> Output {
        let shown = format!("{:?}", self.cmd);
        let stdout = match self.stdout.take() {
            Some(file) => Stdio::from(file),
            None => Stdio::piped(),
        };
        self.cmd.stdin(Stdio::piped()).stdout(stdout).stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("start the tool");
        let mut stdin = child.stdin.take().expect("a stdin pipe");
        let input = self.stdin.clone().unwrap_or_default();
        // Write from a thread so that a tool that writes a lot before it
        // reads everything cannot deadlock the test.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().expect("wait for the tool");
        let _ = writer.join();
        Output {
            shown,
            code: out.status.code().unwrap_or(-1),
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }

    /// Runs the command and returns stdout, panicking unless it exits 0
    /// with nothing on stderr.
    pub fn stdout(&mut self) -> String {
        self.run().code(0).quiet().out()
    }
}

/// `text` with every LF replaced by the line end `end`.
pub fn with_line_end(text: &str, end: &str) -> Vec<u8> {
    text.replace('\n', end).into_bytes()
}

/// The five line ends the PBI specification allows, by name.
pub const LINE_ENDS: [(&str, &str); 5] = [
    ("lf", "\n"),
    ("cr", "\r"),
    ("crlf", "\r\n"),
    ("nel", "\u{85}"),
    ("ls", "\u{2028}"),
];

/// Runs `tool` with `args`, reads the first line of its output, then
/// closes the pipe, as `| head -1` does. Returns that line and what the
/// tool did afterwards (its exit status and stderr).
pub fn first_line_then_close<I, S>(tool: &str, args: I) -> (String, Output)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut first = String::new();
    let out = while_running(tool, args, " | head -1", |mut stdout| {
        stdout.read_line(&mut first).expect("read the first line");
        vec![]
    });
    (first, out)
}

/// Runs `tool` with `args`, its stdout a pipe that `talk` reads from (and
/// may close) while the tool runs, and what the tool did: its exit
/// status, its stderr, and as its stdout what `talk` returns. `how` is
/// added to the command as the failures show it.
pub fn while_running<I, S>(
    tool: &str,
    args: I,
    how: &str,
    talk: impl FnOnce(BufReader<process::ChildStdout>) -> Vec<u8>,
) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = process::Command::new(bin(tool));
    cmd.args(args);
    let shown = format!("{cmd:?}{how}");
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the tool");
    let stdout = talk(BufReader::new(child.stdout.take().expect("a pipe")));
    let out = child.wait_with_output().expect("wait for the tool");
    let code = out.status.code().unwrap_or(-1);
    Output { shown, code, stdout, stderr: out.stderr }
}

/// xorshift64*: enough randomness for tests, with no dependency, and the
/// same numbers on every run for a seed.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A collection of `records` data lines (about 150 bytes each), large
/// enough to be read by several threads, built from the sample
/// collection's records with every kind of damage the reader reports
/// mixed in: bad escapes, bad positions and statuses, blank, short and
/// overlong lines, invalid UTF-8, and all five line ends.
pub fn large_collection(seed: u64, records: usize) -> Vec<u8> {
    let sample = std::fs::read_to_string(repo_file("samples/problems.pbi"))
        .expect("the sample collection");
    let good: Vec<&str> =
        sample.lines().filter(|l| !l.starts_with(['#', '\u{feff}'])).collect();
    let mut rng = Rng::new(seed);
    let mut out = b"\xEF\xBB\xBF#PBI 1.2\n# generated for a test\n".to_vec();
    for _ in 0..records {
        let rec = rng.pick(&good);
        let line: Vec<u8> = match rng.below(40) {
            0 => rec.replacen(':', r":\q", 1).into(),
            1 => rec.replacen('/', "/9", 1).into(),
            2 => "  ".into(),
            3 => "Loyd, Samuel:8/8:#2".into(),
            4 => format!("{rec}:more:colons").into(),
            5 => {
                let mut bad = rec.as_bytes().to_vec();
                bad.insert(3, 0xff);
                bad
            }
            6 => rec.replace(":!:", ":??:").into(),
            7 => rec.replacen('|', r"|\x3a|", 1).into(),
            _ => rec.into(),
        };
        out.extend_from_slice(&line);
        let end =
            if rng.below(10) == 0 { rng.pick(&LINE_ENDS).1 } else { "\n" };
        out.extend_from_slice(end.as_bytes());
    }
    out
}
