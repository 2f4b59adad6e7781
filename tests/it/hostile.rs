//! The hostile-input suite: inputs written to break a linter (bombs, depth, size, bad
//! encodings, odd files). Each case runs the real binary on the hostile file beside an
//! ordinary file with a known finding and asserts three things: the hostile file gets the
//! expected diagnostics, the ordinary file is still reported, and the run stays within the
//! caps of `capped` (wall clock, peak memory, a 256 KiB stack per thread) — a hang and
//! memory guard, not a performance measure (bench/scaling.sh measures growth).

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

use crate::capped;

const JOB: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n";

/// The ordinary file: AML002 on line 5.
const COMPANION: &str = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncommand: python train.py\nenvironment: azureml:sklearn:1\ncompute: local\ncompute: local\n";

struct Outcome {
    json: Value,
    elapsed: Duration,
}

impl Outcome {
    /// (code, line) of each diagnostic of one file.
    fn of(&self, path: &str) -> Vec<(String, u64)> {
        self.json["diagnostics"]
            .as_array()
            .expect("diagnostics array")
            .iter()
            .filter(|d| d["path"] == path)
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_string(),
                    d["range"]["start"]["line"].as_u64().unwrap_or_default(),
                )
            })
            .collect()
    }

    fn codes(&self, path: &str) -> Vec<String> {
        self.of(path).into_iter().map(|(c, _)| c).collect()
    }

    fn message(&self, path: &str, code: &str) -> String {
        self.json["diagnostics"]
            .as_array()
            .expect("diagnostics array")
            .iter()
            .find(|d| d["path"] == path && d["code"] == code)
            .and_then(|d| d["message"].as_str())
            .unwrap_or_default()
            .to_string()
    }
}

/// Runs `amlint check --format json <args> <files> companion.yml` in `dir`, capped.
fn run(dir: &Path, files: &[&str], args: &[&str]) -> Outcome {
    std::fs::write(dir.join("companion.yml"), COMPANION).unwrap();
    let mut all = vec!["check", "--no-config", "--format", "json"];
    all.extend_from_slice(args);
    all.extend_from_slice(files);
    all.push("companion.yml");
    let out = capped::amlint(dir, &all, b"");
    assert!(
        matches!(out.code, Some(0..=1)),
        "exit {:?}: {}",
        out.code,
        out.stderr_text()
    );
    let json: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", out.stdout_text()));
    let outcome = Outcome {
        json,
        elapsed: out.elapsed,
    };
    assert_eq!(
        outcome.of("companion.yml"),
        [("AML002".to_string(), 5)],
        "the ordinary file beside the hostile one is still reported"
    );
    assert!(
        outcome.codes("").is_empty() && !outcome.json.to_string().contains("AML000"),
        "no internal error: {}",
        outcome.json
    );
    outcome
}

fn case(name: &str, bytes: &[u8]) -> (tempfile::TempDir, Outcome) {
    case_with(name, bytes, &[])
}

fn case_with(name: &str, bytes: &[u8], args: &[&str]) -> (tempfile::TempDir, Outcome) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), bytes).unwrap();
    let outcome = run(dir.path(), &[name], args);
    (dir, outcome)
}

#[test]
fn billion_laughs() {
    // Nine levels of ten aliases: 10^9 nodes once expanded.
    let mut text = format!("{JOB}a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 10].join(", ");
        text.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    let (_d, o) = case("bomb.yml", text.as_bytes());
    assert_eq!(o.codes("bomb.yml"), ["AML005"]);
    assert!(o.message("bomb.yml", "AML005").contains("alias"), "{}", o.json);
}

#[test]
fn merge_key_bombs() {
    // Each level merges the previous one and aliases it twice: 3^N nodes, in a file of a
    // kilobyte. The loader's AML005 used to be followed by a walk of the expanded tree
    // (finding VM sizes), which took minutes at 25 levels.
    let mut chain = format!("{JOB}x0: &x0 {{a: 1, b: 2}}\n");
    for i in 1..25 {
        let p = i - 1;
        chain.push_str(&format!(
            "x{i}: &x{i}\n  <<: [*x{p}]\n  k{i}: *x{p}\n  j{i}: *x{p}\n"
        ));
    }
    // Each level merges the previous one twice: the merged entries double at every level
    // (2^29 of them, 16 GB, before the copies were bounded by the alias limit).
    let mut doubling = String::from("x0: &x0 {a: 1}\n");
    for i in 1..30 {
        let p = i - 1;
        doubling.push_str(&format!("x{i}: &x{i}\n  <<: [*x{p}, *x{p}]\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("chain.yml"), chain).unwrap();
    std::fs::write(dir.path().join("doubling.yml"), format!("{JOB}{doubling}")).unwrap();
    let o = run(dir.path(), &["chain.yml", "doubling.yml"], &[]);
    assert_eq!(o.codes("chain.yml"), ["AML005"], "{}", o.json);
    assert_eq!(o.codes("doubling.yml"), ["AML005"], "{}", o.json);
    assert!(
        o.message("doubling.yml", "AML005").contains("alias"),
        "{}",
        o.json
    );
}
#[test]
fn a_hundred_thousand_levels_of_nesting() {
    let n = 100_000;
    let cases: Vec<(&str, String)> = vec![
        (
            "flow-lists.yml",
            format!("{JOB}x: {}{}\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "flow-maps.yml",
            format!("{JOB}x: {}1{}\n", "{a: ".repeat(n), "}".repeat(n)),
        ),
        // Block mappings need one more column per level: 3,000 levels (far beyond the
        // limit of 128) is as deep as a file under the size limit goes.
        (
            "block-maps.yml",
            format!(
                "{JOB}{}",
                (0..3_000)
                    .map(|i| format!("{}k:\n", " ".repeat(i)))
                    .collect::<String>()
            ),
        ),
        ("block-lists.yml", format!("{JOB}x:\n  {}1\n", "- ".repeat(n))),
        ("lists.json", format!("{}{}", "[".repeat(n), "]".repeat(n))),
        ("maps.json", format!("{}1{}", "{\"a\": ".repeat(n), "}".repeat(n))),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in &cases {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let names: Vec<&str> = cases.iter().map(|(n, _)| *n).collect();
    let o = run(dir.path(), &names, &[]);
    for name in names {
        assert_eq!(o.codes(name), ["AML005"], "{name}: {}", o.json);
        assert!(o.message(name, "AML005").contains("nest"), "{name}: {}", o.json);
    }
}

/// The places where PyYAML's algorithm (which amlint's YAML reader follows) looks back or
/// ahead: the possible simple keys and the token queue, directives and tag handles, tags,
/// long folded scalars. Each input is a few megabytes; a quadratic step would not end.
/// The collections stay under the node limit of a file (250,000), so that each is read
/// to its end.
#[test]
fn the_yaml_readers_worst_cases() {
    let n = 200_000;
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "directives.yml",
            format!(
                "{}---\n{JOB}command: x\n",
                (0..n)
                    .map(|i| format!("%TAG !t{i}! tag:example.com,2026:{i}\n"))
                    .collect::<String>()
            ),
            &[],
        ),
        (
            "quoted.yml",
            format!("{JOB}description: \"{}end\"\n", "  word\n".repeat(n)),
            &[],
        ),
        (
            "plain.yml",
            format!("{JOB}description: start\n{}", "  word\n".repeat(n)),
            &[],
        ),
        (
            "flow-keys.yml",
            format!(
                "{JOB}tags: {{{}}}\n",
                (0..n / 2).map(|i| format!("k{i}: v{i}, ")).collect::<String>()
            ),
            &[],
        ),
        (
            "nested-flow-keys.yml",
            format!("{JOB}x: [{}]\n", "{a: [b, {c: d}]}, ".repeat(n / 8)),
            &[],
        ),
        // A simple key must end within 1024 characters: PyYAML refuses this one.
        (
            "long-key.yml",
            format!("{JOB}{}: 1\n", "k".repeat(3 * 1024 * 1024)),
            &["AML001"],
        ),
        (
            "long-tag.yml",
            format!("{JOB}x: !{} v\n", "t".repeat(3 * 1024 * 1024)),
            &["AML001"],
        ),
        (
            "anchors.yml",
            format!(
                "{JOB}x:\n{}",
                (0..n / 4)
                    .map(|i| format!("  a{i}: &a{i} v\n  b{i}: *a{i}\n"))
                    .collect::<String>()
            ),
            &[],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, text, _) in &cases {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let names: Vec<&str> = cases.iter().map(|(n, _, _)| *n).collect();
    let o = run(dir.path(), &names, &[]);
    for (name, _, expected) in &cases {
        let load_codes: Vec<String> = o
            .codes(name)
            .into_iter()
            .filter(|c| matches!(c.as_str(), "AML001" | "AML004" | "AML005"))
            .collect();
        assert_eq!(load_codes, *expected, "{name}: {}", o.json);
    }
    assert!(
        o.message("long-key.yml", "AML001")
            .contains("could not find expected ':'"),
        "{}",
        o.json
    );
}

#[test]
fn a_fifty_megabyte_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("huge.yml")).unwrap();
    file.set_len(50 * 1024 * 1024).unwrap();
    drop(file);
    let o = run(dir.path(), &["huge.yml"], &[]);
    assert_eq!(o.codes("huge.yml"), ["AML005"]);
    assert!(o.message("huge.yml", "AML005").contains("MiB"), "{}", o.json);
}

#[test]
fn a_ten_megabyte_single_line_string() {
    let text = format!(
        "{JOB}command: python train.py\nenvironment: azureml:e:1\ncompute: local\ndescription: {}\n",
        "x".repeat(10 * 1024 * 1024)
    );
    // Over the default 8 MiB limit...
    let (_d, o) = case("line.yml", text.as_bytes());
    assert_eq!(o.codes("line.yml"), ["AML005"]);
    // ...and within a raised one, parsed and checked like any file: it is clean.
    let (_d, o) = case_with("line.yml", text.as_bytes(), &["--max-file-size", "20000000"]);
    assert_eq!(o.codes("line.yml"), Vec::<String>::new(), "{}", o.json);
}

#[test]
fn binary_and_badly_encoded_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("elf.yml"),
        b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00",
    )
    .unwrap();
    std::fs::write(d.join("latin1.yml"), b"name: caf\xe9\n").unwrap();
    std::fs::write(d.join("nul.yml"), b"name: a\x00b\n").unwrap();
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("name: x\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(d.join("utf16.yml"), utf16).unwrap();
    let o = run(d, &["elf.yml", "latin1.yml", "nul.yml", "utf16.yml"], &[]);
    for name in ["elf.yml", "latin1.yml", "nul.yml", "utf16.yml"] {
        assert_eq!(o.codes(name), ["AML004"], "{name}: {}", o.json);
    }
    assert!(o.message("utf16.yml", "AML004").contains("UTF-16"), "{}", o.json);
    assert!(o.message("latin1.yml", "AML004").contains("UTF-8"), "{}", o.json);
}

#[test]
fn line_ends_and_tabs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // CRLF, and a mix of CRLF, LF and CR: the duplicate is found on its line.
    let crlf = COMPANION.replace('\n', "\r\n");
    std::fs::write(d.join("crlf.yml"), &crlf).unwrap();
    let mixed = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\r\ncommand: python train.py\nenvironment: azureml:sklearn:1\r\ncompute: local\ncompute: local\r\n";
    std::fs::write(d.join("mixed.yml"), mixed).unwrap();
    // A tab in indentation is a YAML syntax error, reported at the tab.
    std::fs::write(
        d.join("tabs.yml"),
        format!("{JOB}command: python train.py\nenvironment:\n\tname: x\n"),
    )
    .unwrap();
    let o = run(d, &["crlf.yml", "mixed.yml", "tabs.yml"], &[]);
    assert_eq!(o.of("crlf.yml"), [("AML002".to_string(), 5)]);
    assert_eq!(o.of("mixed.yml"), [("AML002".to_string(), 5)]);
    assert_eq!(o.of("tabs.yml"), [("AML001".to_string(), 4)], "{}", o.json);
}

#[cfg(unix)]
#[test]
fn links_that_lead_nowhere_or_in_circles() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink(d.join("nowhere.yml"), d.join("dangling.yml")).unwrap();
    std::os::unix::fs::symlink(d.join("loop-b.yml"), d.join("loop-a.yml")).unwrap();
    std::os::unix::fs::symlink(d.join("loop-a.yml"), d.join("loop-b.yml")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::os::unix::fs::symlink(d, d.join("sub/up")).unwrap();
    let o = run(d, &["dangling.yml", "loop-a.yml"], &[]);
    assert_eq!(o.codes("dangling.yml"), ["AML004"]);
    assert_eq!(o.codes("loop-a.yml"), ["AML004"]);
    let dangling = o.message("dangling.yml", "AML004");
    assert!(
        dangling.contains("points to a file that does not exist"),
        "{dangling}"
    );
    let looping = o.message("loop-a.yml", "AML004");
    assert!(looping.contains("symbolic links"), "{looping}");
    // Walking the directory follows no link, so neither the loop nor `sub/up` hangs it.
    let o = run(d, &["."], &[]);
    assert!(o.elapsed < capped::WALL);
}

#[cfg(unix)]
#[test]
fn unreadable_files() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("locked.yml"), COMPANION).unwrap();
    std::fs::set_permissions(d.join("locked.yml"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut files = vec!["locked.yml"];
    // A file whose every read fails (EIO), which even root cannot read.
    let proc_mem = Path::new("/proc/self/mem").exists();
    if proc_mem {
        std::os::unix::fs::symlink("/proc/self/mem", d.join("mem.yml")).unwrap();
        files.push("mem.yml");
    }
    let o = run(d, &files, &[]);
    if std::fs::read(d.join("locked.yml")).is_err() {
        assert_eq!(o.codes("locked.yml"), ["AML004"], "{}", o.json);
    } else {
        // Running as root: permissions do not apply, and the file is checked.
        assert_eq!(o.codes("locked.yml"), ["AML002"], "{}", o.json);
    }
    if proc_mem {
        assert_eq!(o.codes("mem.yml"), ["AML004"], "{}", o.json);
    }
}

#[test]
fn a_directory_named_like_a_config_file_empty_files_and_comments() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("x.yml")).unwrap();
    std::fs::write(d.join("empty.yml"), "").unwrap();
    std::fs::write(d.join("comments.yml"), "# only\n# comments\n").unwrap();
    let o = run(d, &["x.yml", "empty.yml", "comments.yml"], &[]);
    assert_eq!(o.codes("x.yml"), ["AML004"]);
    assert!(o.message("x.yml", "AML004").contains("directory"), "{}", o.json);
    assert_eq!(o.codes("empty.yml"), Vec::<String>::new());
    assert_eq!(o.codes("comments.yml"), Vec::<String>::new());
    // Walked rather than named, the directory is just a directory.
    let o = run(d, &["."], &[]);
    assert_eq!(o.codes("x.yml"), Vec::<String>::new());
}

#[test]
fn integers_beyond_64_bits() {
    let text = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\nmin_instances: 340282366920938463463374607431768211457\nmax_instances: 1\nidle_time_before_scale_down: -99999999999999999999999999999\n";
    let (_d, o) = case("big-ints.yml", text.as_bytes());
    let found = o.of("big-ints.yml");
    assert!(
        found.contains(&("AML105".to_string(), 5)),
        "min_instances (2^128 + 1) is greater than max_instances: {}",
        o.json
    );
}

#[test]
fn a_key_repeated_a_hundred_thousand_times() {
    let mut text = format!("{JOB}command: python train.py\nenvironment: azureml:e:1\ncompute: local\n");
    for _ in 0..100_000 {
        text.push_str("tags: {}\n");
    }
    let (_d, o) = case("repeated.yml", text.as_bytes());
    let found = o.codes("repeated.yml");
    // One AML002 per repetition (99,999), of which the first 999 are reported and the
    // rest counted by one AML005: the output is bounded by the cap, not the input.
    assert_eq!(found.len(), 1_000, "{}", o.json);
    assert!(found[..999].iter().all(|c| c == "AML002"));
    assert_eq!(found[999], "AML005");
    let summary = o.message("repeated.yml", "AML005");
    assert!(
        summary.starts_with("99000 more findings in this file are not reported (99000 errors)"),
        "{summary}"
    );
}

#[test]
fn a_valid_file_with_a_hundred_thousand_list_items() {
    let mut text = String::from(
        "$schema: https://azuremlschemas.azureedge.net/latest/sweepJob.schema.json\ntype: sweep\ntrial:\n  command: python train.py --lr ${{search_space.lr}}\n  environment: azureml:e:1\ncompute: azureml:cpu-cluster\nsampling_algorithm: random\nobjective:\n  goal: maximize\n  primary_metric: accuracy\nlimits:\n  max_total_trials: 10\nsearch_space:\n  lr:\n    type: choice\n    values:\n",
    );
    for i in 0..100_000 {
        text.push_str(&format!("      - {i}\n"));
    }
    let (_d, o) = case("long.yml", text.as_bytes());
    let codes = o.codes("long.yml");
    assert!(
        codes.iter().all(|c| c == "AML203"),
        "only the unresolved compute (info): {}",
        o.json
    );
}

#[test]
fn aliases_are_bounded_by_the_bytes_they_expand_to() {
    // Issue 34, defect 14: a 1 MB anchored string aliased 1,000 times in a job peaked at
    // 1.1 GB (its JSON view, validated). Expansion is now counted in bytes of keys and
    // strings, for the file (8 MiB by default): one AML005 that names the limit.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, body: String| {
        let text = format!("{JOB}command: python train.py\nenvironment: azureml:sklearn:1\n{body}");
        std::fs::write(d.join(name), text).unwrap();
    };
    let times = |n: usize, line: &str| line.repeat(n);
    let mega = "x".repeat(1_000_000);
    let kilo100 = "y".repeat(100_000);
    write(
        "strings.yml",
        format!(
            "description: &big '{mega}'\ntags:\n{}",
            (0..1000).map(|i| format!("  k{i}: *big\n")).collect::<String>()
        ),
    );
    // Just under the limit: read and checked as usual (tags are strings).
    write(
        "under.yml",
        format!(
            "description: &big '{mega}'\ntags:\n{}",
            (0..6).map(|i| format!("  k{i}: *big\n")).collect::<String>()
        ),
    );
    // Aliases of aliases: 100 KB ten times, ten times, ten times (100 MB).
    let ten = |a: &str| vec![format!("*{a}"); 10].join(", ");
    write(
        "nested.yml",
        format!(
            "tags:\n  a: &a '{kilo100}'\n  b: &b [{}]\n  c: &c [{}]\n  d: [{}]\n",
            ten("a"),
            ten("b"),
            ten("c")
        ),
    );
    // A merge key copying a 100 KB mapping into 1,000 mappings.
    let fields: String = (0..10)
        .map(|i| format!("k{i}: '{}', ", &kilo100[..10_000]))
        .collect();
    write(
        "merge.yml",
        format!(
            "base: &b {{{fields}}}\n{}",
            (0..1000)
                .map(|i| format!("m{i}: {{<<: *b}}\n"))
                .collect::<String>()
        ),
    );
    // A 100 KB key aliased in 1,000 mappings, and 1,000 aliases in one flow list.
    write(
        "keys.yml",
        format!("x: &k '{kilo100}'\nitems:\n{}", times(1000, "  - {*k : 1}\n")),
    );
    write(
        "flow.yml",
        format!(
            "tags: {{a: &a '{kilo100}', b: [{}]}}\n",
            vec!["*a"; 1000].join(", ")
        ),
    );
    // 150 documents, each expanding to just under the limit: the limit is the file's.
    let document = format!(
        "{JOB}command: python train.py\nenvironment: azureml:sklearn:1\ndescription: &d '{}'\ntags:\n{}",
        &mega[..40_000],
        (0..200).map(|i| format!("  t{i}: *d\n")).collect::<String>()
    );
    std::fs::write(d.join("documents.yml"), vec![document; 150].join("---\n")).unwrap();
    let files = [
        "strings.yml",
        "under.yml",
        "nested.yml",
        "merge.yml",
        "keys.yml",
        "flow.yml",
        "documents.yml",
    ];
    let o = run(d, &files, &[]);
    for file in files.iter().filter(|f| **f != "under.yml") {
        assert!(
            o.codes(file).contains(&"AML005".to_string()),
            "{file}: {:?}",
            o.codes(file)
        );
        let message = o.message(file, "AML005");
        assert!(
            message.contains("more than 8.0 MiB of keys and strings (the alias expansion limit"),
            "{file}: {message}"
        );
    }
    assert_eq!(o.codes("strings.yml"), ["AML005"]);
    assert_eq!(o.of("strings.yml")[0].1, 6, "at the first alias");
    assert_eq!(o.codes("under.yml"), Vec::<String>::new());
    assert!(
        o.message("documents.yml", "AML005")
            .ends_with("counting the file's documents before it"),
        "{}",
        o.message("documents.yml", "AML005")
    );
}

#[test]
fn an_amlint_test_example_whose_files_alias_a_megabyte_string() {
    // Issue 34, defect 8: a user rule whose example's `files:` alias a 1 MB string 300
    // times wrote 287 MB into the temporary folder and peaked at 1 GB. The rule file is
    // now refused when it is read (the alias expansion limit), before any example runs.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("rules")).unwrap();
    std::fs::write(d.join("amlint.toml"), "rules-dirs = [\"rules\"]\n").unwrap();
    let rule = aliasing_rule("ORG100", &"x".repeat(1_000_000), 300);
    std::fs::write(d.join("rules/ORG100-big.yaml"), rule).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("amlint");
    let mut command = std::process::Command::new(bin);
    command
        .current_dir(d)
        .args(["test", "--user-only"])
        .env("TMPDIR", scratch.path())
        .env("RUST_MIN_STACK", capped::STACK.to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = capped::run(command, b"");
    let stderr = out.stderr_text();
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(stderr.contains("alias expansion limit"), "{stderr}");
    assert!(stderr.contains("ORG100-big.yaml"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "no example project was written"
    );
}

/// A user rule `code` whose example's `files:` hold `anchored` once and `aliases` aliases
/// of it.
fn aliasing_rule(code: &str, anchored: &str, aliases: usize) -> String {
    let files: String = (0..aliases).map(|i| format!("    f{i}.txt: *big\n")).collect();
    format!(
        "code: {code}\nname: big-example-{}\nseverity: error\nsummary: A rule with a large example\nkinds: [amlCompute]\nwhen:\n  field: size\n  equals: Standard_ND96asr_v4\nreport:\n  at: size\n  message: \"{{value}} is not allowed\"\nwhat: Reports a size.\nwhy: Because.\nexample:\n  path: compute.yml\n  files:\n    big.txt: &big '{anchored}'\n{files}  bad: |\n    $schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\n    name: c\n    type: amlcompute\n    size: Standard_ND96asr_v4\n  good: |\n    $schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\n    name: c\n    type: amlcompute\n    size: Standard_DS3_v2\n",
        code.to_ascii_lowercase()
    )
}

#[test]
fn rule_files_that_alias_more_than_their_text_together() {
    // Issue 34, guard 6: the loader bounds one file's expansion (8 MiB, whatever its
    // size), but a configuration's rules are kept for the whole run: 100 rule files of
    // 44 KB, each aliasing a 40 KB string 200 times (8 MB), peaked at 1.8 GB. Aliases may
    // add 1 MiB to a configuration's rule files together: each of these files is refused
    // on its own, and of the small ones those beyond the first megabyte (a refused file adds
    // nothing).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("rules")).unwrap();
    std::fs::write(d.join("amlint.toml"), "rules-dirs = [\"rules\"]\n").unwrap();
    let forty = "x".repeat(40_000);
    for n in 0..40 {
        let code = format!("ORG{}", 100 + n);
        std::fs::write(
            d.join(format!("rules/{code}.yaml")),
            aliasing_rule(&code, &forty, 200),
        )
        .unwrap();
    }
    // Five aliases of 40 KB add 200 KB: five such files fit, the sixth does not.
    for n in 0..8 {
        let code = format!("ORG{}", 500 + n);
        std::fs::write(
            d.join(format!("rules/{code}.yaml")),
            aliasing_rule(&code, &forty, 5),
        )
        .unwrap();
    }
    let compute = "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: c\ntype: amlcompute\nsize: Standard_DS3_v2\n";
    std::fs::write(d.join("c.yml"), compute).unwrap();
    let out = capped::amlint(d, &["check", "c.yml"], b"");
    let stderr = out.stderr_text();
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(stderr.contains("43 configuration errors"), "{stderr}");
    for n in 0..40 {
        assert!(
            stderr.contains(&format!("rules/ORG{}.yaml:", 100 + n)),
            "ORG{}: {stderr}",
            100 + n
        );
    }
    for n in 0..8 {
        let refused = stderr.contains(&format!("rules/ORG{}.yaml:", 500 + n));
        assert_eq!(refused, n >= 5, "ORG{}: {stderr}", 500 + n);
    }
    assert!(
        stderr.contains("the rule files' alias expansion limit"),
        "{stderr}"
    );
}

#[test]
fn twenty_thousand_pipeline_steps_that_each_fail_the_step_schema() {
    // Issue 34, defect 15: a 0.5 MB file of 20,000 failing steps peaked at 640 MB, the
    // validator holding every step's union errors (a copy of the step for each branch)
    // before the first was read. Unions are now expanded one failing instance at a time.
    let mut text = String::from(
        "$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n",
    );
    for i in 0..20_000 {
        text.push_str(&format!("  s{i}: {{type: command, x: 1}}\n"));
    }
    let (_d, o) = case("steps.yml", text.as_bytes());
    let found = o.of("steps.yml");
    // The findings are bounded per file, as before: 999 steps, then one AML005 that
    // counts the others kept (10,000 issues are collected from a document).
    assert_eq!(found.len(), 1000);
    assert_eq!(found[0], ("AML104".to_string(), 4));
    assert!(found[..999].iter().all(|(c, _)| c == "AML104"));
    assert_eq!(found[999].0, "AML005");
    let summary = o.message("steps.yml", "AML005");
    assert!(summary.contains("9001 more findings"), "{summary}");
}

#[test]
fn schema_urls_that_are_unknown_or_remote_are_never_fetched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("unknown.yml"),
        "$schema: https://azuremlschemas.azureedge.net/latest/noSuchKind.schema.json\nname: x\n",
    )
    .unwrap();
    // An address nothing answers at: fetching it would hang or fail, not lint.
    std::fs::write(
        d.join("remote.yml"),
        "$schema: http://10.255.255.1:9/evil.schema.json\ncommand: python train.py\n",
    )
    .unwrap();
    let o = run(d, &["unknown.yml", "remote.yml"], &[]);
    assert_eq!(o.codes("unknown.yml"), ["AML006"]);
    assert_eq!(o.codes("remote.yml"), Vec::<String>::new());
}

#[test]
fn model_paths_outside_the_project_or_at_devices_are_only_looked_at() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, path) in [
        ("zero", "/dev/zero"),
        ("outside", "../../../../../../../../../proc"),
    ] {
        std::fs::write(
            d.join(format!("{name}-model.yml")),
            format!("$schema: https://azuremlschemas.azureedge.net/latest/model.schema.json\nname: {name}\nversion: 1\npath: {path}\n"),
        )
        .unwrap();
        std::fs::write(
            d.join(format!("{name}-deployment.yml")),
            format!("$schema: https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\nname: blue\nendpoint_name: e\nmodel: azureml:{name}:1\ninstance_type: Standard_DS3_v2\ninstance_count: 1\n"),
        )
        .unwrap();
    }
    let o = run(
        d,
        &[
            "zero-model.yml",
            "zero-deployment.yml",
            "outside-model.yml",
            "outside-deployment.yml",
        ],
        &[],
    );
    for name in ["zero-model.yml", "zero-deployment.yml", "outside-deployment.yml"] {
        assert!(
            !o.codes(name).contains(&"AML004".to_string()),
            "{name}: {}",
            o.json
        );
    }
}

/// amlint links no HTTP client or network stack: no `$schema`, reference or rule can make
/// it open a connection.
#[test]
fn no_network_crate_is_linked() {
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let tree = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "--edges",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).to_string());
    // `cargo tree` lists what the binary links (dev-dependencies excluded); Cargo.lock is
    // the fallback when it cannot run offline.
    let deps = tree.unwrap_or(lock);
    for forbidden in [
        "reqwest",
        "hyper",
        "ureq",
        "curl",
        "native-tls",
        "rustls",
        "tokio",
        "mio",
        "socket2",
    ] {
        assert!(
            !deps.lines().any(|l| {
                let l = l.trim();
                l.starts_with(&format!("{forbidden} ")) || l == format!("name = \"{forbidden}\"")
            }),
            "{forbidden} is linked into amlint"
        );
    }
}

/// A YAML job with `n` repetitions of `tags: {}` (each after the first an AML002).
fn repeated_keys(n: usize) -> String {
    let mut text = format!("{JOB}command: python train.py\nenvironment: azureml:e:1\ncompute: local\n");
    for _ in 0..n {
        text.push_str("tags: {}\n");
    }
    text
}

#[test]
fn aliases_nested_through_anchors_do_not_overflow_the_stack() {
    // 80 anchors, each a list nesting the previous one 100 levels deeper: 8,000 levels
    // once expanded, from 16 KB of text. Turning the tree into JSON (and dropping it, and
    // validating it) recursed through the aliases and overflowed the stack.
    let mut text =
        format!("{JOB}command: python train.py\nenvironment: azureml:e:1\ncompute: local\ntags:\n");
    for i in 0..80 {
        let inner = if i == 0 {
            "1".to_string()
        } else {
            format!("*a{}", i - 1)
        };
        text.push_str(&format!(
            "  k{i}: &a{i} {}{inner}{}\n",
            "[".repeat(100),
            "]".repeat(100)
        ));
    }
    let (_d, o) = case("deep-aliases.yml", text.as_bytes());
    assert_eq!(o.codes("deep-aliases.yml"), ["AML005"], "{}", o.json);
    let message = o.message("deep-aliases.yml", "AML005");
    assert!(message.contains("deeper than 128 levels"), "{message}");
}

#[test]
fn a_large_list_without_aliases_names_the_node_limit() {
    // 1,000,001 plain items, YAML and JSON: the file's node limit, not an alias expansion
    // ("billion laughs"); the trees stop growing there, so memory stays bounded.
    let dir = tempfile::tempdir().unwrap();
    let items = "1,".repeat(1_000_000);
    let yaml = format!(
        "{JOB}command: python train.py\nenvironment: azureml:e:1\ncompute: local\ntags: [{items}1]\n"
    );
    std::fs::write(dir.path().join("many.yml"), yaml).unwrap();
    std::fs::write(dir.path().join("deploymentconfig.json"), format!("[{items}1]")).unwrap();
    let o = run(dir.path(), &["many.yml", "deploymentconfig.json"], &[]);
    for name in ["many.yml", "deploymentconfig.json"] {
        assert_eq!(o.codes(name), ["AML005"], "{}", o.json);
        let message = o.message(name, "AML005");
        assert!(
            message.contains("more than 250000 nodes (the node limit of a file"),
            "{message}"
        );
        assert!(!message.contains("alias"), "{message}");
    }
}

#[test]
fn eight_megabytes_of_repeated_keys_give_bounded_output_in_every_format() {
    // 800,000 duplicate keys (an AML002 each): 3.7 GB of JSON and 8 GB of SARIF before
    // findings were capped per file; now 1,000 per file, in memory and in output.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keys.yml"), repeated_keys(800_000)).unwrap();
    for format in ["json", "sarif", "human", "github", "junit"] {
        let out = capped::amlint(
            dir.path(),
            &[
                "check",
                "--no-config",
                "--max-file-size",
                "20000000",
                "--format",
                format,
                "keys.yml",
            ],
            b"",
        );
        assert_eq!(out.code, Some(1), "{format}: {}", out.stderr_text());
        assert!(
            out.stdout.len() < 4 << 20,
            "{format}: {} bytes of output",
            out.stdout.len()
        );
        assert!(
            out.stdout_text()
                .contains("more findings in this file are not reported"),
            "{format}"
        );
    }
}

#[test]
fn findings_across_many_documents_files_and_suppressions_stay_linear() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 20,000 documents in one file, each with a finding (pairing findings with their
    // documents was findings × documents).
    let docs: String = (0..20_000)
        .map(|_| "---\nname: x\nname: y\n".to_string())
        .collect();
    std::fs::write(d.join("docs.yml"), format!("{JOB}{docs}")).unwrap();
    // 50,000 suppression comments that silence nothing, then 1,000 findings (matching
    // each finding against every comment was findings × comments; finding each comment's
    // target line was comments × comment lines).
    let mut suppressed = String::from(JOB);
    for _ in 0..50_000 {
        suppressed.push_str("# amlint: ignore[AML003]\n");
    }
    suppressed.push_str(&repeated_keys(1_000)[JOB.len()..]);
    std::fs::write(d.join("suppressed.yml"), suppressed).unwrap();
    // 60 files of 1,000 findings each: 60,000 findings in the human output. (With 100
    // files, 100,000 findings, the peak was 242 MB in the release build and 287 MB in the
    // test build, at the 256 MiB cap: what a run holds per finding is not bounded below
    // the cap for that many; BENCHMARKS.md §4.)
    for i in 0..60 {
        std::fs::write(d.join(format!("many{i}.yml")), repeated_keys(1_000)).unwrap();
    }
    let out = capped::amlint(d, &["check", "--no-config", "--format", "human", "."], b"");
    assert_eq!(out.code, Some(1), "{}", out.stderr_text());
    let text = out.stdout_text();
    assert!(text.contains("docs.yml"), "the many-document file is reported");
    assert!(
        text.lines()
            .last()
            .unwrap_or_default()
            .starts_with("62 files checked"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    let json = run(d, &["docs.yml", "suppressed.yml"], &[]);
    let codes = json.codes("suppressed.yml");
    assert_eq!(
        codes.iter().filter(|c| *c == "AML009").count(),
        999,
        "the first of the unused suppressions"
    );
    assert_eq!(codes.last().map(String::as_str), Some("AML005"));
    assert!(
        json.codes("docs.yml").len() >= 1_000,
        "{}",
        json.codes("docs.yml").len()
    );
}

#[test]
fn duplicate_keys_on_one_line_beside_a_seven_megabyte_line() {
    // The snippet of each finding drew its context lines whole: 150 findings next to a
    // 7 MB line printed 1 GB. Lines are now cut around what they show.
    let keys: String = (0..150).map(|_| "a: 1, ").collect();
    let text = format!(
        "{JOB}command: python train.py\nenvironment: azureml:e:1\ncompute: local\ndescription: {}\ntags: {{{keys}b: 2}}\nname: {}\n",
        "x".repeat(7 << 20),
        "y".repeat(1 << 20)
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wide.yml"), &text).unwrap();
    let out = capped::amlint(
        dir.path(),
        &["check", "--no-config", "--max-file-size", "20000000", "wide.yml"],
        b"",
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr_text());
    let human = out.stdout_text();
    assert_eq!(
        human.matches("AML002").count(),
        149,
        "{}",
        &human[..2000.min(human.len())]
    );
    assert!(human.len() < 1 << 20, "{} bytes", human.len());
    assert!(human.lines().all(|l| l.len() < 2_000), "every line is cut");
}

#[test]
fn a_megabyte_long_key_gets_no_suggestion_search() {
    // Did-you-mean compared a 1 MB unknown key with every known key (39 s). JSON: YAML's
    // simple keys stop at 1,024 characters.
    let key = "instance_typ".repeat(90_000);
    let text = format!(
        "{{\"$schema\": \"https://azuremlschemas.azureedge.net/latest/managedOnlineDeployment.schema.json\", \"name\": \"blue\", \"{key}\": 1}}"
    );
    let (_d, o) = case("long-key.json", text.as_bytes());
    assert!(
        o.codes("long-key.json").contains(&"AML101".to_string()),
        "{}",
        o.json
    );
    let message = o.message("long-key.json", "AML101");
    assert!(!message.contains("did you mean"), "{message}");
    assert!(message.len() < 700, "the quoted key is shortened: {message}");
}

#[test]
fn hostile_globs_in_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("job.yml"), COMPANION).unwrap();
    // 125 nested `{}` groups: a panic inside the glob crate before; a configuration error
    // at the pattern now.
    let deep = format!("{}a,b{}", "{".repeat(125), "}".repeat(125));
    std::fs::write(
        d.join("amlint.toml"),
        format!("exclude = [\"{deep}\"]\n[per-file-ignores]\n\"{deep}\" = [\"AML002\"]\n"),
    )
    .unwrap();
    let out = capped::amlint(d, &["check", "job.yml"], b"");
    assert_eq!(out.code, Some(2), "{}", out.stderr_text());
    let err = out.stderr_text();
    assert!(err.contains("125 deep"), "{err}");
    // 150,000 patterns: refused at the first beyond the bound (they took 49-89 s and
    // 1.2 GB to compile one by one); 10,000 compile together and match at once.
    let many: Vec<String> = (0..150_000).map(|i| format!("\"dir{i}/**\"")).collect();
    std::fs::write(
        d.join("amlint.toml"),
        format!("exclude = [{}]\n", many.join(", ")),
    )
    .unwrap();
    let out = capped::amlint(d, &["check", "job.yml"], b"");
    assert_eq!(out.code, Some(2), "{}", out.stderr_text());
    assert!(
        out.stderr_text().contains("more than 10000 patterns"),
        "{}",
        out.stderr_text()
    );
    let mut config = format!("exclude = [{}]\n[per-file-ignores]\n", many[..9_999].join(", "));
    for i in 0..9_999 {
        config.push_str(&format!("\"jobs{i}/*.yml\" = [\"AML003\"]\n"));
    }
    std::fs::write(d.join("amlint.toml"), config).unwrap();
    for i in 0..200 {
        std::fs::write(d.join(format!("job{i}.yml")), COMPANION).unwrap();
    }
    let out = capped::amlint(d, &["check", "--format", "json", "."], b"");
    assert_eq!(out.code, Some(1), "{}", out.stderr_text());
}

#[test]
fn two_million_empty_documents_stop_at_the_document_limit() {
    // Each `---` is a document with a tree of its own: 8 MB of them held 250,000 trees.
    let text = format!("{JOB}command: x\n{}", "---\n".repeat(2_000_000));
    let (_d, o) = case_with("docs.yml", text.as_bytes(), &["--max-file-size", "20000000"]);
    let message = o.message("docs.yml", "AML005");
    assert!(message.contains("more than 10000 YAML documents"), "{}", o.json);
}

#[test]
fn a_large_inventory_and_many_unresolved_names() {
    // 60,000 inventory computes and 5,000 steps naming computes nothing defines: each name
    // was looked up and compared with every inventory name (18 s in a release build).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    let inventory: String = (0..60_000)
        .map(|i| format!("[[inventory.computes]]\nname = \"c{i}\"\ntype = \"amlcompute\"\n"))
        .collect();
    std::fs::write(d.join("amlint.toml"), inventory).unwrap();
    let steps: String = (0..5_000)
        .map(|i| format!("  s{i}:\n    type: command\n    command: x\n    environment: azureml:e:1\n    compute: azureml:nope{i}\n"))
        .collect();
    std::fs::write(
        d.join("pipeline.yml"),
        format!("$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json\ntype: pipeline\njobs:\n{steps}"),
    )
    .unwrap();
    let out = capped::amlint(d, &["check", "--format", "json", "pipeline.yml"], b"");
    assert_eq!(out.code, Some(0), "{}", out.stderr_text());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["code"] == "AML203" || d["code"] == "AML005")
    );
}

#[test]
fn a_gitignore_of_complex_patterns_is_bounded() {
    // 150,000 patterns the ignore crate compiles into one regular-expression set: 5.4 s and
    // 1.3 GB before; more than 256 KiB of such patterns is now a configuration error, and
    // a file just under the bound is read within the caps.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    std::fs::write(d.join("job.yml"), COMPANION).unwrap();
    let patterns = |n: usize| {
        (0..n)
            .map(|i| format!("dir{i}/**/*.tmp{i}\n"))
            .collect::<String>()
    };
    std::fs::write(d.join(".gitignore"), patterns(150_000)).unwrap();
    let out = capped::amlint(d, &["check", "--no-config", "."], b"");
    assert_eq!(out.code, Some(2), "{}", out.stdout_text());
    assert!(
        out.stderr_text()
            .contains("more than the 256.0 KiB amlint compiles"),
        "{}",
        out.stderr_text()
    );
    std::fs::write(d.join(".gitignore"), patterns(12_000)).unwrap();
    assert!(std::fs::metadata(d.join(".gitignore")).unwrap().len() < 256 * 1024);
    let out = capped::amlint(d, &["check", "--no-config", "--format", "json", "."], b"");
    assert_eq!(out.code, Some(1), "{}", out.stderr_text());
    // Past the size any ignore file may have, it is not read at all.
    let huge = "x\n".repeat(2 * 1024 * 1024 + 1);
    std::fs::write(d.join(".gitignore"), huge).unwrap();
    let out = capped::amlint(d, &["check", "--no-config", "."], b"");
    assert_eq!(out.code, Some(2), "{}", out.stdout_text());
    assert!(
        out.stderr_text().contains("larger than the 4.0 MiB limit"),
        "{}",
        out.stderr_text()
    );
}

#[test]
fn a_generated_gitignore_listing_thousands_of_files_is_applied() {
    // mahtabsyed/Azure-Machine-Learning-Demo's .gitignore lists a virtual environment's
    // files one by one: 70,000 lines, 2.6 MiB. Refused before (over 256 KiB), it stopped
    // the run; its plain paths are now looked up, not compiled, within the caps.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    std::fs::write(d.join("job.yml"), COMPANION).unwrap();
    std::fs::create_dir_all(d.join("generated")).unwrap();
    std::fs::write(d.join("generated/broken.yml"), COMPANION).unwrap();
    let listing: String = (0..70_000)
        .map(|i| format!(".venv/lib/python3.9/site-packages/pkg{i}/module_{i}.py\n"))
        .chain(["generated/broken.yml\n".to_string(), "scr*/\n".to_string()])
        .collect();
    assert!(listing.len() > 2 * 1024 * 1024);
    std::fs::write(d.join(".gitignore"), listing).unwrap();
    std::fs::create_dir_all(d.join("scratch")).unwrap();
    std::fs::write(d.join("scratch/x.yml"), COMPANION).unwrap();
    let out = capped::amlint(d, &["check", "--no-config", "--format", "json", "."], b"");
    assert_eq!(out.code, Some(1), "{}", out.stderr_text());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"job.yml"), "{paths:?}");
    assert!(
        !paths
            .iter()
            .any(|p| p.starts_with("generated/") || p.starts_with("scratch/")),
        "{paths:?}"
    );
}
