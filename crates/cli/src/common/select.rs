//! `--function NAME`: which defined functions a subcommand looks at. Repeatable; each `NAME` is a
//! function name with or without `@` (quoted names as LLVM prints them, `@"a b"`, work too) or a
//! glob (`*`, `?`, `[abc]`). A name that matches no defined function is a usage error (exit 2)
//! that lists the closest names (edit distance, then common substrings), or says the function is
//! only declared. The selection is in module order, each function once.

use super::CliError;
use converge_ir::{FuncId, Module};

/// The `--function` option, flattened into a subcommand's arguments.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct FunctionArgs {
    /// Only these functions: `NAME`, `@NAME` or a glob (`'kern*'`); repeatable. Default: every
    /// defined function.
    #[arg(long = "function", value_name = "NAME")]
    pub function: Vec<String>,
}

impl FunctionArgs {
    /// The selected defined functions (all of them when no `--function` was given).
    pub fn select(&self, m: &Module) -> Result<Vec<FuncId>, CliError> {
        select(m, &self.function)
    }

    /// Exactly one function: the selected one, or the module's only definition when nothing was
    /// selected; otherwise a usage error naming the candidates.
    pub fn select_one(&self, m: &Module) -> Result<FuncId, CliError> {
        let fs = self.select(m)?;
        match fs.as_slice() {
            [f] => Ok(*f),
            [] => Err(format!("error: {} defines no function", m.source_name)),
            many => Err(format!(
                "error: {} {} several functions; pick one with --function ({})",
                m.source_name,
                if self.function.is_empty() {
                    "defines"
                } else {
                    "--function selects"
                },
                names(m, many).join(" ")
            )),
        }
    }

    /// Whether the user asked for specific functions.
    pub fn is_set(&self) -> bool {
        !self.function.is_empty()
    }
}

fn names(m: &Module, fs: &[FuncId]) -> Vec<String> {
    fs.iter()
        .map(|&f| format!("@{}", m.str(m.func(f).name)))
        .collect()
}

/// `name` without `@` and LLVM's quotes.
pub fn bare(name: &str) -> &str {
    let n = name.strip_prefix('@').unwrap_or(name);
    n.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(n)
}

/// The defined functions matching `patterns` (every defined function when empty), in module order.
pub fn select(m: &Module, patterns: &[String]) -> Result<Vec<FuncId>, CliError> {
    let defined: Vec<FuncId> = m
        .func_ids()
        .filter(|&f| !m.func(f).is_declaration)
        .collect();
    if patterns.is_empty() {
        return Ok(defined);
    }
    let mut keep = vec![false; m.functions.len()];
    for p in patterns {
        let pat = bare(p);
        let is_glob = pat.contains(['*', '?', '[']);
        let mut any = false;
        for &f in &defined {
            let n = m.str(m.func(f).name);
            if if is_glob { glob(pat, n) } else { n == pat } {
                keep[f.0 as usize] = true;
                any = true;
            }
        }
        if !any {
            return Err(unknown(m, &defined, pat, is_glob));
        }
    }
    Ok(defined.into_iter().filter(|f| keep[f.0 as usize]).collect())
}

fn unknown(m: &Module, defined: &[FuncId], pat: &str, is_glob: bool) -> CliError {
    let file = &m.source_name;
    if !is_glob
        && m.func_ids()
            .any(|f| m.func(f).is_declaration && m.str(m.func(f).name) == pat)
    {
        return format!("error: @{pat} is only declared in {file}, it has no body to analyse");
    }
    let what = if is_glob {
        format!("no function defined in {file} matches `{pat}`")
    } else {
        format!("no function @{pat} defined in {file}")
    };
    if defined.is_empty() {
        return format!("error: {what} (it defines none)");
    }
    let close = close_matches(m, defined, pat);
    if !close.is_empty() {
        return format!("error: {what}; did you mean {}?", close.join(", "));
    }
    let all = names(m, defined);
    let shown = all.len().min(10);
    format!(
        "error: {what} (defined: {}{})",
        all[..shown].join(", "),
        if all.len() > shown {
            format!(", and {} more", all.len() - shown)
        } else {
            String::new()
        }
    )
}

/// Up to five defined names close to `pat`: small edit distance first, then names sharing a
/// substring with it (either way round, ignoring case).
fn close_matches(m: &Module, defined: &[FuncId], pat: &str) -> Vec<String> {
    let pl = pat.to_ascii_lowercase();
    let limit = (pat.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, String)> = defined
        .iter()
        .filter_map(|&f| {
            let n = m.str(m.func(f).name);
            let d = edit_distance(&pl, &n.to_ascii_lowercase());
            let nl = n.to_ascii_lowercase();
            let sub = pl.len() >= 3 && (nl.contains(&pl) || pl.contains(&nl));
            (d <= limit || sub).then(|| (if d <= limit { d } else { limit + 1 }, format!("@{n}")))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, n)| n).collect()
}

/// Levenshtein distance over chars (names are short; two rows).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Shell-style glob: `*` any run, `?` one char, `[abc]`/`[a-z]`/`[!a]` a class; iterative with
/// backtracking to the last `*` only (linear in practice, no recursion).
pub fn glob(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let s: Vec<char> = name.chars().collect();
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(&p, pi, s[si])
                        && ok
                    {
                        pi = next;
                        si += 1;
                        continue;
                    }
                }
                c if c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Whether `c` is in the class starting at `p[at] == '['`, and the index after the class; `None`
/// when the class is not closed (then `[` is literal and does not match here).
fn class(p: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while i < p.len() && (p[i] != ']' || first) {
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            hit |= p[i] <= c && c <= p[i + 2];
            i += 3;
        } else {
            hit |= p[i] == c;
            i += 1;
        }
    }
    (i < p.len()).then_some((hit != negate, i + 1))
}

#[cfg(test)]
mod tests {
    use super::{bare, edit_distance, glob};

    #[test]
    fn globs() {
        assert!(glob("kern*", "kernel"));
        assert!(glob("*", ""));
        assert!(glob("k?rn*l", "kernel"));
        assert!(!glob("kern", "kernel"));
        assert!(glob("*.body", "loop.body"));
        assert!(glob("f[0-9]", "f7"));
        assert!(!glob("f[!0-9]", "f7"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "axxbyy"));
    }

    #[test]
    fn names_and_distance() {
        assert_eq!(bare("@\"a b\""), "a b");
        assert_eq!(bare("@f"), "f");
        assert_eq!(bare("f"), "f");
        assert_eq!(edit_distance("kernal", "kernel"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
