/*!
Shell completion scripts made from a tool's table of options, for
`--generate complete-bash|complete-zsh|complete-fish` (ripgrep's
`crates/core/flags/complete/`).

Each script offers every option by both its names; after an option with
a fixed set of values ([`Flag::choices`]) it offers those values, after
one whose value is a `FILE` file names, and elsewhere file names, since
every tool reads files.
*/

use super::{Flag, Spec};

/// The name of a tool as a shell function: `_pbi_grep`.
fn function(tool: &str) -> String {
    format!("_{}", tool.replace('-', "_"))
}

/// The help of an option shortened for a completion menu: up to where
/// the details start (`; `, `: `, ` (`, ` [`).
fn summary(flag: &Flag) -> &str {
    let help = flag.help;
    let end = ["; ", ": ", " (", " ["]
        .iter()
        .filter_map(|cut| help.find(cut))
        .min()
        .unwrap_or(help.len());
    &help[..end]
}

/// Whether the option's value is a file name.
fn takes_file(flag: &Flag) -> bool {
    flag.value == Some("FILE")
}

/// `text` in single quotes for sh, bash and zsh.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A bash completion script for the tool of `spec`.
pub fn bash<A>(spec: &Spec<A>) -> String {
    let tool = spec.name;
    let mut words = vec![];
    let mut cases = String::new();
    for flag in spec.flags() {
        let names: Vec<String> = [
            flag.long.map(|l| format!("--{l}")),
            flag.short.map(|s| format!("-{s}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        words.extend(names.iter().cloned());
        if flag.value.is_none() {
            continue;
        }
        let reply = if !flag.choices.is_empty() {
            let choices = quoted(&flag.choices.join(" "));
            format!("COMPREPLY=($(compgen -W {choices} -- \"$cur\"))")
        } else if takes_file(flag) {
            "COMPREPLY=($(compgen -f -- \"$cur\"))".to_string()
        } else {
            // Nothing to offer: the value is the user's.
            "COMPREPLY=()".to_string()
        };
        cases.push_str(&format!(
            "        {})\n            {reply}\n            return 0\n            ;;\n",
            names.join("|")
        ));
    }
    let words = quoted(&words.join(" "));
    let function = function(tool);
    format!(
        "# bash completion for {tool}: {tool} --generate complete-bash
{function}() {{
    local cur prev
    cur=\"${{COMP_WORDS[COMP_CWORD]}}\"
    prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"
    case \"$prev\" in
{cases}    esac
    case \"$cur\" in
        -*)
            COMPREPLY=($(compgen -W {words} -- \"$cur\"))
            return 0
            ;;
    esac
    COMPREPLY=($(compgen -f -- \"$cur\"))
}}

complete -F {function} -o bashdefault -o default {tool}
"
    )
}

/// A zsh completion script for the tool of `spec`, to be put in a
/// directory of `$fpath` as `_TOOL`, or sourced.
pub fn zsh<A>(spec: &Spec<A>) -> String {
    let tool = spec.name;
    let mut specs = String::new();
    for flag in spec.flags() {
        // Inside `[...]`, `]` ends the text and `\` escapes.
        let help = summary(flag).replace('\\', r"\\").replace(']', r"\]");
        let value = match flag.value {
            None => String::new(),
            Some(name) if !flag.choices.is_empty() => {
                format!(":{name}:({})", flag.choices.join(" "))
            }
            Some(_) if takes_file(flag) => ":FILE:_files".to_string(),
            Some(name) => format!(":{name}: "),
        };
        // `-c+` takes `-cLIST` and `-c LIST`; `--columns=` both
        // `--columns=LIST` and `--columns LIST`.
        let (s_end, l_end) =
            if flag.value.is_some() { ("+", "=") } else { ("", "") };
        let short = flag.short.map(|s| format!("-{s}{s_end}"));
        let long = flag.long.map(|l| format!("--{l}{l_end}"));
        let names = match (short, long) {
            (Some(s), Some(l)) => format!("{{{s},{l}}}"),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => continue,
        };
        // Every option may be given again (`*`), as the tools allow.
        specs.push_str(&format!(
            "        '*'{names}{} \\\n",
            quoted(&format!("[{help}]{value}"))
        ));
    }
    let function = function(tool);
    format!(
        "#compdef {tool}

# zsh completion for {tool}: {tool} --generate complete-zsh
{function}() {{
    _arguments -s -S \\
{specs}        '*:file:_files'
}}

if [ \"$funcstack[1]\" = \"{function}\" ]; then
    {function} \"$@\"
else
    compdef {function} {tool}
fi
"
    )
}

/// A fish completion script for the tool of `spec`.
pub fn fish<A>(spec: &Spec<A>) -> String {
    let tool = spec.name;
    let mut out = format!(
        "# fish completion for {tool}: {tool} --generate complete-fish\n"
    );
    for flag in spec.flags() {
        let mut line = format!("complete -c {tool}");
        if let Some(s) = flag.short {
            line.push_str(&format!(" -s {s}"));
        }
        if let Some(l) = flag.long {
            line.push_str(&format!(" -l {l}"));
        }
        if flag.value.is_some() {
            if !flag.choices.is_empty() {
                let choices = flag.choices.join(" ");
                line.push_str(&format!(" -x -a {}", fish_quoted(&choices)));
            } else if takes_file(flag) {
                line.push_str(" -r -F");
            } else {
                line.push_str(" -x");
            }
        }
        line.push_str(&format!(" -d {}\n", fish_quoted(summary(flag))));
        out.push_str(&line);
    }
    out
}

/// `text` in single quotes for fish, where `\'` is a quote.
fn fish_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\\', r"\\").replace('\'', r"\'"))
}
