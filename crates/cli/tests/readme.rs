//! The README cannot go stale on the command line: its subcommand table lists exactly the
//! subcommands of `converge --help`, and its flag table names every flag of every
//! `converge <command> --help` (and of `converge --help`). Expected answers come from the binary's
//! own help, so adding a subcommand or flag without documenting it fails here, naming what to add.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

fn help(args: &[&str]) -> String {
    // No wrapping (clap wraps at the terminal width, or at 100 columns without one), so each
    // option and its description stay on their own lines on a terminal, in a pipe and in CI.
    let out = Command::new(common::converge_bin())
        .env("COLUMNS", "10000")
        .args(args)
        .arg("--help")
        .output()
        .expect("run converge --help");
    assert!(out.status.success(), "converge {args:?} --help failed");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

fn readme() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    std::fs::read_to_string(path).expect("README.md")
}

/// The README section from the heading `start` to the next `## ` heading.
fn section<'a>(text: &'a str, start: &str) -> &'a str {
    let a = text
        .find(start)
        .unwrap_or_else(|| panic!("README has no {start:?}"));
    let rest = &text[a + start.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The subcommands listed under `Commands:` in the top-level help (without `help`).
fn subcommands() -> Vec<String> {
    let top = help(&[]);
    let list = top.split("Commands:").nth(1).expect("Commands: in --help");
    list.lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A subcommand's line is indented by two spaces; wrapped descriptions by more.
        .filter(|l| !l[2..].starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Every flag of a help text's `Options:` section: `--long` and `-s` spellings.
fn flags(text: &str) -> BTreeSet<String> {
    let opts = text.split("Options:").nth(1).expect("Options: in --help");
    let opts = opts.split("Examples:").next().unwrap_or(opts);
    let mut out = BTreeSet::new();
    for l in opts.lines() {
        let t = l.trim_start();
        // Option lines start with the flag; descriptions and possible values do not.
        if !t.starts_with('-') || t.starts_with("- ") {
            continue;
        }
        for part in t.split(", ") {
            let f = part.split([' ', '=', '<']).next().unwrap_or("");
            if f.starts_with('-') && f.len() > 1 {
                out.insert(f.to_string());
            }
        }
    }
    out
}

#[test]
fn readme_lists_every_subcommand() {
    let text = readme();
    let table = section(&text, "## Subcommands");
    let documented: BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `converge "))
        .filter_map(|l| l.split([' ', '`']).next())
        .map(str::to_string)
        .collect();
    let actual: BTreeSet<String> = subcommands().into_iter().collect();
    assert!(actual.len() >= 10, "too few subcommands parsed: {actual:?}");
    let missing: Vec<_> = actual.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&actual).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "README's subcommand table is out of date: add {missing:?}, remove {stale:?}"
    );
}

#[test]
fn readme_lists_every_flag() {
    let text = readme();
    let table = section(&text, "## Subcommands");
    // A flag counts as listed when it appears in backticks in the section, alone or followed by
    // its argument (`--threads N`) or `=` (`-mtriple=T`).
    let listed = |f: &str| {
        [format!("`{f}`"), format!("`{f} "), format!("`{f}=")]
            .iter()
            .any(|p| table.contains(p.as_str()))
    };
    let mut missing = Vec::new();
    for f in flags(&help(&[])) {
        if !listed(&f) {
            missing.push(format!("converge {f}"));
        }
    }
    for cmd in subcommands() {
        let fs = flags(&help(&[&cmd]));
        assert!(fs.contains("--help"), "no flags parsed for {cmd}: {fs:?}");
        for f in fs {
            if !listed(&f) {
                missing.push(format!("converge {cmd} {f}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags missing from README's flag table (section \"Subcommands\"): {missing:?}"
    );
}

/// The flag table's rows as (flags of the first column, subcommand names of the second).
fn flag_rows(table: &str) -> Vec<(Vec<String>, BTreeSet<String>)> {
    table
        .lines()
        .filter(|l| l.starts_with("| `-"))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(" | ").collect();
            let (first, second) = (cols.first()?, cols.get(1)?);
            // `a`, `b \| c` in backticks; each backticked part starts with a flag.
            let flags = first
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|p| p.split([' ', '=']).next())
                .filter(|f| f.starts_with('-'))
                .map(str::to_string)
                .collect();
            let words = second
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            Some((flags, words))
        })
        .collect()
}

/// Each flag of `converge <command> --help` sits in a row of the flag table whose "subcommands"
/// column names that command (or says "all"), so the table says where a flag works, not only
/// that it exists.
#[test]
fn readme_flag_rows_name_their_subcommands() {
    let text = readme();
    let rows = flag_rows(section(&text, "## Subcommands"));
    assert!(rows.len() >= 15, "too few flag rows parsed: {}", rows.len());
    let mut wrong = Vec::new();
    for cmd in subcommands() {
        for f in flags(&help(&[&cmd])) {
            let ok = rows
                .iter()
                .filter(|(fs, _)| fs.contains(&f))
                .any(|(_, words)| words.contains(&cmd) || words.contains("all"));
            if !ok {
                wrong.push(format!("{cmd} {f}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "README's flag table does not name the subcommand for: {wrong:?}"
    );
}
