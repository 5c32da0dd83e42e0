//! `converge explore`'s page in headless Chromium: no console errors, the CFG and the table of
//! dynamic instances render, a click on a divergent value shows its chain back to a divergence
//! source and highlights it on the CFG, a click on a token diagnostic draws its witness path, a
//! 1,000-block function loads, and a screenshot is saved (`build/explore-screenshot.png`). Clicks
//! are made by the page itself from the URL fragment (`#v=%x`, `#d=0`: the links the page writes
//! for a selection), which runs the same click handlers as a person's click.
//!
//! Chromium comes from `CONVERGE_CHROMIUM` (default `/usr/bin/chromium`); without it the tests
//! print SKIPPED, or fail under `CI=true`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("converge-browser-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn explore(file: &Path, out: &Path, extra: &[&str]) {
    let o = Command::new(common::converge_bin())
        .arg("explore")
        .arg(file)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs headless Chromium on `page#fragment` with `what` (`--dump-dom` or `--screenshot=…`);
/// returns (stdout, stderr). A fresh profile directory each time, no network services.
fn chromium(browser: &Path, page: &Path, fragment: &str, what: &[&str]) -> (String, String) {
    // Tests run in parallel: every browser gets its own profile directory.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let profile = tempdir(&format!("profile{k}"));
    let url = format!("file://{}#{fragment}", page.display());
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1400,1000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(what)
    .arg(url);
    let o = common::run(cmd, b"", Duration::from_secs(120));
    let _ = std::fs::remove_dir_all(&profile);
    assert!(o.success(), "chromium: {}", o.describe_end());
    (o.stdout_str(), o.stderr_str())
}

/// The page's script ran to the end and reported no error, and the console stayed silent (the
/// page logs nothing, so any console line is an error or an uncaught exception).
fn assert_clean(dom: &str, log: &str) {
    assert!(dom.contains("data-ready=\"1\""), "script did not finish");
    assert!(!dom.contains("data-errors="), "script errors: {dom}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console: {console:#?}");
}

/// The inner HTML of the element with `id`, up to its closing tag `end`.
fn element<'a>(dom: &'a str, id: &str, end: &str) -> &'a str {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let stop = start + dom[start..].find(end).unwrap();
    &dom[start..stop]
}

#[test]
fn seed_example_cfg_table_and_chain() {
    let Some(browser) = converge_gen::reference::chromium("explore_browser") else {
        return;
    };
    let dir = tempdir("seed");
    let page = dir.join("both.html");
    explore(
        &repo().join("examples/seed-both-diverged.ll"),
        &page,
        &["--threads", "3"],
    );
    let (dom, log) = chromium(&browser, &page, "v=%25k.next", &["--dump-dom"]);
    assert_clean(&dom, &log);
    // The CFG: six blocks, two cycle boxes, both irreducible.
    let svg = element(&dom, "f0-svg", "</svg>");
    assert_eq!(svg.matches("<g class=\"blk").count(), 6);
    assert_eq!(svg.matches("<g class=\"cyc d").count(), 2);
    let irreducible = svg
        .split("<g class=\"cyc d")
        .skip(1)
        .filter(|g| g[..g.find('"').unwrap()].split(' ').any(|c| c == "irr"))
        .count();
    assert_eq!(irreducible, 2);
    // The table: one row per thread, the seed's table (seed 000, "Examples").
    let table = element(&dom, "simtable", "</table>");
    let rows: Vec<String> = table
        .split("<tr>")
        .skip(2)
        .map(|r| {
            r.split("<td")
                .skip(1)
                .map(|c| {
                    let t = &c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()];
                    if t.is_empty() { "." } else { t }.to_string()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        rows,
        [
            "Entry1 P1 Q1 S1 P2 Q2 R1 S2 Exit1 returned",
            "Entry1 P1 Q1 . . . R1 S1 Exit1 returned",
            "Entry1 . . . . . R1 S1 Exit1 returned",
        ]
    );
    // The click on %k.next: it is shown divergent with a chain that ends at the thread id, and the
    // chain is highlighted on the CFG and in the source.
    let detail = element(&dom, "detail", "</section>");
    assert!(detail.contains("badge d\">divergent"), "{detail}");
    assert!(detail.contains("Chain of"), "{detail}");
    let last = detail.rfind("<li>").unwrap();
    assert!(
        detail[last..].contains("<span class=\"kind\">source</span>")
            && detail[last..].contains("%tid"),
        "{detail}"
    );
    let highlighted = svg
        .split("<g class=\"blk")
        .skip(1)
        .filter(|g| g[..g.find('"').unwrap()].contains(" hl"))
        .count();
    assert!(highlighted >= 2, "chain blocks highlighted: {highlighted}");
    assert!(dom.contains("class=\"ln hl\""), "chain lines highlighted");
    assert!(dom.contains("class=\"v d sel\""), "selected value marked");
}

#[test]
fn token_diagnostic_draws_its_witness() {
    let Some(browser) = converge_gen::reference::chromium("explore_browser") else {
        return;
    };
    let dir = tempdir("tokens");
    let page = dir.join("tokens.html");
    explore(&repo().join("examples/tokens-invalid.ll"), &page, &[]);
    let (dom, log) = chromium(
        &browser,
        &page,
        "f=token_crosses_cycle&d=0",
        &["--dump-dom"],
    );
    assert_clean(&dom, &log);
    let detail = element(&dom, "detail", "</section>");
    assert!(detail.contains("Token diagnostic"), "{detail}");
    assert!(detail.contains("Witness:"), "{detail}");
    let svg = element(&dom, "f0-svg", "</svg>");
    assert!(svg.contains("class=\"e wit\""), "witness edges drawn");
    assert!(
        dom.contains("class=\"dg\""),
        "diagnostic marker at its line"
    );
}

#[test]
fn thousand_blocks_load_and_screenshot() {
    let Some(browser) = converge_gen::reference::chromium("explore_browser") else {
        return;
    };
    let dir = tempdir("big");
    let ll = dir.join("f1000.ll");
    let mut rng = converge_gen::rng::Rng::new(1);
    let mut opts = converge_gen::program::Options::new(converge_gen::program::Flavor::Amdgpu);
    opts.min_blocks = 1000;
    opts.max_blocks = 1000;
    opts.reducible_only = true;
    let mut text = converge_gen::program::module_header(opts.flavor);
    text.push_str(&converge_gen::program::function(&mut rng, "f", &opts));
    std::fs::write(&ll, text).unwrap();
    let page = dir.join("f1000.html");
    let t = Instant::now();
    explore(&ll, &page, &[]);
    let generate = t.elapsed();
    let t = Instant::now();
    let (dom, log) = chromium(&browser, &page, "", &["--dump-dom"]);
    let load = t.elapsed();
    assert_clean(&dom, &log);
    assert_eq!(dom.matches("<g class=\"blk").count(), 1000);
    eprintln!(
        "1,000-block page: generated in {generate:?}, loaded and dumped by chromium in {load:?}"
    );

    // The screenshot of the README's example, with a divergent value selected.
    let page = dir.join("both.html");
    explore(
        &repo().join("examples/seed-both-diverged.ll"),
        &page,
        &["--threads", "3"],
    );
    let shot = repo().join("build/explore-screenshot.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&shot);
    chromium(
        &browser,
        &page,
        "v=%25again",
        &[&format!("--screenshot={}", shot.display())],
    );
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}

#[test]
fn convergent_operation_shows_its_communicating_sets() {
    // "Convergent Operation Semantics", reductions inside divergent control flow: @subgroupAdd in
    // the `else` arm communicates among the threads with delta = tid - 2 <= 0, i.e. {0, 1, 2}
    // of four.
    let Some(browser) = converge_gen::reference::chromium("explore_browser") else {
        return;
    };
    let dir = tempdir("conv");
    let page = dir.join("ballot.html");
    explore(
        &repo().join("crates/sim/tests/seeds/ballot_if_else.ll"),
        &page,
        &["--threads", "4"],
    );
    let (dom, log) = chromium(
        &browser,
        &page,
        "f=example_kernel&v=%25total_losses",
        &["--dump-dom"],
    );
    assert_clean(&dom, &log);
    let detail = element(&dom, "detail", "</section>");
    assert!(detail.contains("Communicating sets"), "{detail}");
    assert!(detail.contains("{0, 1, 2}"), "{detail}");
    assert!(!detail.contains("{0, 1, 2, 3}"), "{detail}");
}

/// The simulation note counts threads as the other reports do: "1 thread", "3 threads" (issue 15).
#[test]
fn simulation_note_plurals() {
    let Some(browser) = converge_gen::reference::chromium("explore_browser") else {
        return;
    };
    let dir = tempdir("plural");
    for (n, want) in [("1", "1 thread, target"), ("3", "3 threads, target")] {
        let page = dir.join(format!("t{n}.html"));
        explore(
            &repo().join("examples/divergent-loop.ll"),
            &page,
            &["--threads", n],
        );
        let (dom, log) = chromium(&browser, &page, "", &["--dump-dom"]);
        assert_clean(&dom, &log);
        assert!(dom.contains(want), "--threads {n}: no `{want}` in the page");
    }
}
