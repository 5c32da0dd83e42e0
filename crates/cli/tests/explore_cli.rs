//! `converge explore` as a command, without a browser: every example and every seed program of the
//! simulator's tests renders to one self-contained page (no network reference, one picture block
//! per CFG block, the divergent values those of `converge uniformity`), a 100-block function stays
//! well under 1 MB, and bad input or bad usage exits 2 without leaving a file behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn converge() -> Command {
    Command::new(common::converge_bin())
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("converge-explore-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn explore(file: &Path, out: &Path, extra: &[&str]) -> Output {
    converge()
        .arg("explore")
        .arg(file)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// Every `.ll` of examples/ and of the simulator's seed programs.
fn inputs() -> Vec<PathBuf> {
    let mut v = converge_gen::reference::ll_files(&repo().join("examples"));
    v.extend(converge_gen::reference::ll_files(
        &repo().join("crates/sim/tests/seeds"),
    ));
    v.sort();
    v
}

/// Blocks per defined function, as `converge stats --format json` counts them.
fn total_blocks(file: &Path) -> usize {
    let o = converge()
        .args(["stats", "--format", "json"])
        .arg(file)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    j["per_function"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["blocks"].as_u64().unwrap_or(0) as usize)
        .sum()
}

/// The JSON the page's script reads.
fn page_data(html: &str) -> serde_json::Value {
    let start = html
        .find("<script type=\"application/json\" id=\"data\">")
        .expect("data element")
        + "<script type=\"application/json\" id=\"data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end].replace("<\\/", "</")).unwrap()
}

#[test]
fn every_example_and_seed_program_renders() {
    let dir = tempdir("all");
    let files = inputs();
    assert!(files.len() >= 15, "{files:?}");
    for f in &files {
        let out = dir.join("page.html");
        let o = explore(f, &out, &["--threads", "3"]);
        assert!(
            o.status.success(),
            "{}: exit {:?}: {}",
            f.display(),
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
        let html = std::fs::read_to_string(&out).unwrap();
        // Self-contained: no reference to anything outside the file.
        for bad in [
            "http://", "https://", "src=\"", "href=\"", "@import", "url(",
        ] {
            let hits = html.matches(bad).count()
                - html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
                    * usize::from(bad == "http://");
            assert_eq!(hits, 0, "{}: page references `{bad}`", f.display());
        }
        // One picture block per CFG block.
        let pictured = html.matches("<g class=\"blk").count();
        assert_eq!(pictured, total_blocks(f), "{}", f.display());
        let data = page_data(&html);
        for func in data["functions"].as_array().unwrap() {
            assert!(func["sim"].is_object(), "{}", f.display());
        }
    }
}

#[test]
fn divergent_values_are_those_of_converge_uniformity() {
    for mode in ["llvm", "precise"] {
        divergent_values_agree(mode);
    }
}

fn divergent_values_agree(mode: &str) {
    let dir = tempdir(&format!("agree-{mode}"));
    for f in inputs() {
        let out = dir.join("page.html");
        assert!(explore(&f, &out, &["--mode", mode]).status.success());
        let data = page_data(&std::fs::read_to_string(&out).unwrap());
        assert_eq!(data["mode"], mode);
        let o = converge()
            .args(["uniformity", "--format", "json", "--mode", mode])
            .arg(&f)
            .output()
            .unwrap();
        let u: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for (pf, uf) in data["functions"]
            .as_array()
            .unwrap()
            .iter()
            .zip(u["functions"].as_array().unwrap())
        {
            let page: usize = pf["vals"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|v| v[2] == 1)
                .count();
            let why = pf["why"].as_object().unwrap().len();
            assert_eq!(
                page,
                why,
                "{}: every divergent value has a reason",
                f.display()
            );
            // Divergent arguments and instructions (terminators included), as the analysis
            // reports them.
            let args = uf["arguments"].as_array().unwrap();
            let mut want = args.iter().filter(|a| a["divergent"] == true).count();
            for b in uf["blocks"].as_array().unwrap() {
                let insts = b["instructions"].as_array().unwrap();
                want += insts.iter().filter(|i| i["divergent"] == true).count();
            }
            assert_eq!(page, want, "{mode}: {}: @{}", f.display(), pf["name"]);
        }
    }
}

#[test]
fn the_seed_table_of_the_nested_irreducible_example() {
    // Seed 000, section "Examples": threads 1, 2, 3 of the table (numbered 0, 1, 2 here); dynamic
    // instances in one column are converged. Under LLVM's hierarchy (outer header R, inner S):
    //   T1: Entry P Q S P Q R S Exit / T2: Entry P Q . . . R S Exit / T3: Entry . . . . . R S Exit
    let dir = tempdir("seed");
    let out = dir.join("both.html");
    let f = repo().join("examples/seed-both-diverged.ll");
    assert!(explore(&f, &out, &["--threads", "3"]).status.success());
    let data = page_data(&std::fs::read_to_string(&out).unwrap());
    let run = &data["functions"][0]["sim"]["runs"][0];
    let rows: Vec<Vec<String>> = run["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["cells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap_or(".").to_string())
                .collect()
        })
        .collect();
    let want = [
        "Entry1 P1 Q1 S1 P2 Q2 R1 S2 Exit1",
        "Entry1 P1 Q1 . . . R1 S1 Exit1",
        "Entry1 . . . . . R1 S1 Exit1",
    ];
    for (r, w) in rows.iter().zip(want) {
        assert_eq!(r.join(" "), w);
    }
    assert_eq!(rows.len(), 3);
    // The CFG is irreducible: more than one hierarchy is offered.
    assert!(
        data["functions"][0]["sim"]["runs"]
            .as_array()
            .unwrap()
            .len()
            >= 2
    );
}

#[test]
fn a_hundred_block_function_is_well_under_a_megabyte() {
    let dir = tempdir("size");
    let ll = dir.join("f100.ll");
    let mut rng = converge_gen::rng::Rng::new(7);
    let mut opts = converge_gen::program::Options::new(converge_gen::program::Flavor::Amdgpu);
    opts.min_blocks = 100;
    opts.max_blocks = 100;
    let mut text = converge_gen::program::module_header(opts.flavor);
    text.push_str(&converge_gen::program::function(&mut rng, "f", &opts));
    std::fs::write(&ll, text).unwrap();
    let out = dir.join("f100.html");
    let o = explore(&ll, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let size = std::fs::metadata(&out).unwrap().len();
    assert!(size < 500_000, "{size} bytes");
}

fn no_leftovers(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| !n.to_string_lossy().ends_with(".ll"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn bad_input_is_located_and_leaves_no_file() {
    let dir = tempdir("bad");
    let ll = dir.join("bad.ll");
    std::fs::write(
        &ll,
        "define void @f() {\nentry:\n  %x = add i32 1,\n  ret void\n}\n",
    )
    .unwrap();
    let out = dir.join("bad.html");
    let o = explore(&ll, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.ll:4:3"), "{err}");
    no_leftovers(&dir);
    // An unwritable destination: exit 2, nothing left in the input's folder either.
    let good = dir.join("good.ll");
    std::fs::write(&good, "define void @g() {\n  ret void\n}\n").unwrap();
    let o = explore(&good, &dir.join("no/such/dir/out.html"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write"));
    no_leftovers(&dir);
    // The output must not replace the input.
    let o = explore(&good, &good, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(std::fs::read_to_string(&good).unwrap().contains("@g"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempdir("usage");
    let f = repo().join("examples/divergent-loop.ll");
    let out = dir.join("x.html");
    for (args, msg) in [
        (vec!["--mode", "exact"], "invalid value"),
        (vec!["--function", "nope"], "no function @nope"),
        (vec!["--threads", "0"], "--threads"),
        (vec!["--args", "1,zz"], "not a number"),
    ] {
        let o = explore(&f, &out, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(!out.exists());
    }
    no_leftovers(&dir);
}

#[test]
fn dot_svg_draws_the_page_picture() {
    let f = repo().join("examples/seed-both-diverged.ll");
    let o = converge()
        .args(["dot", "--svg", "--uniformity"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(o.status.success());
    let svg = String::from_utf8(o.stdout).unwrap();
    assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<g class=\"blk").count(), total_blocks(&f));
    assert!(svg.contains("<style>"), "self-contained styles");
    // Several functions: choose one.
    let o = converge()
        .args(["dot", "--svg"])
        .arg(repo().join("examples/tokens-invalid.ll"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--function"));
}
