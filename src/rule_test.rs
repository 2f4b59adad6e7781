//! Policy tests (`amlint test`, docs/policies.md): every rule's `example` — the bad input
//! must produce the rule's finding, at the marked place, the good one must not — and
//! folders of cases whose files carry their expectations inline, in the annotation format
//! of `fixtures/` (read here for `tests/it/fixtures.rs` too):
//!
//! - YAML: `key: value   # expect: AML503` — a finding of that code must start on that
//!   line; several codes: `# expect: AML101, AML103`; the same code twice:
//!   `# expect: AML002 x2`; a line that cannot carry a comment (inside a block scalar) is
//!   annotated from the line before with `# expect-next: AML003`; the severity the finding
//!   must have follows in parentheses: `# expect: AML203 (warning)`.
//! - JSON (no comments): a sidecar `<file>.expect` with lines `LINE: CODE[, CODE]`.
//! - A file without expectations must produce no finding at all.
//!
//! An example marks its place with `at:` (the JSON pointer of the finding, `/gpuCores`)
//! or with `# expect:` annotations in its bad text; without either, a finding anywhere in
//! the file passes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::pipeline::{Options, check_paths};
use crate::registry::{Example, RuleMeta};
use crate::results::Report;

/// Expected codes by (file, 1-based line), as annotated.
pub type Expected = BTreeMap<(String, u32), Vec<String>>;

/// The codes of an annotation: `AML101, AML103`, `AML002 x2`, `AML203 (warning)`.
pub fn parse_codes(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in list.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (code, times) = match item.split_once(" x") {
            Some((c, n)) => (c.trim(), n.trim().parse().unwrap_or(1)),
            None => (item, 1),
        };
        // At most 100 of one code: an annotation is not a way to allocate.
        for _ in 0..times.min(100) {
            out.push(code.to_string());
        }
    }
    out
}

/// The `# expect:` / `# expect-next:` annotations of a text, by line.
pub fn annotations(text: &str) -> Vec<(u32, Vec<String>)> {
    // In the file's own comment syntax (`#`, `//` in Bicep, Terraform and Groovy, an
    // HTML comment in Markdown, which ends at `-->`); in a notebook the comment is
    // inside a JSON string, which ends at `\` or `"`.
    let list = |rest: &str| {
        let rest = rest.split("-->").next().unwrap_or(rest);
        parse_codes(&rest[..rest.find(['\\', '"']).unwrap_or(rest.len())])
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        let find = |marker: &str| {
            ["# ", "// ", "<!-- "].iter().find_map(|c| {
                line.find(&format!("{c}{marker}"))
                    .map(|p| p + c.len() + marker.len())
            })
        };
        if let Some(pos) = find("expect-next:") {
            out.push((n + 1, list(&line[pos..])));
        } else if let Some(pos) = find("expect:") {
            out.push((n, list(&line[pos..])));
        }
    }
    out
}

/// Largest `.expect` sidecar read: a line per finding.
const MAX_EXPECT_SIZE: u64 = 1024 * 1024;

/// The expectations of one case file: its `<file>.expect` sidecar when there is one
/// (`LINE: CODES` lines; `#` starts a comment line), else the inline annotations of its
/// `text` (as the run read it). The sidecar is read inside `boundary` only, as a regular
/// file of at most 1 MiB: a link to a file elsewhere, a pipe or a device is an error that
/// shows nothing of it.
pub fn expectations_of(
    path: &Path,
    text: &str,
    boundary: &crate::fsio::Boundary,
) -> Result<Vec<(u32, Vec<String>)>, String> {
    let mut sidecar = path.as_os_str().to_os_string();
    sidecar.push(".expect");
    let sidecar = PathBuf::from(sidecar);
    if !crate::fsio::exists_here(&sidecar) {
        return Ok(annotations(text));
    }
    let shown = crate::fsio::shown(&sidecar);
    let bytes = crate::fsio::read_named(&sidecar, boundary, MAX_EXPECT_SIZE)
        .map_err(|r| format!("{shown}: cannot read these expectations: {}", r.describe()))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not valid UTF-8"))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = line
            .split_once(':')
            .and_then(|(n, codes)| Some((n.trim().parse::<u32>().ok()?, parse_codes(codes))));
        match parsed {
            Some(entry) => out.push(entry),
            None => {
                return Err(format!(
                    "{shown}:{}: `{}` is not `LINE: CODE[, CODE]`",
                    i + 1,
                    line.chars().take(120).collect::<String>()
                ));
            }
        }
    }
    Ok(out)
}

/// What a run found, in the same shape: codes by (file, line), each written with its
/// severity (`AML203 (warning)`) where the expectation names one.
pub fn found(report: &Report, expected: &Expected) -> Expected {
    let mut actual = Expected::new();
    for (file, d) in report.diagnostics() {
        let line = file.source.position(d.span.start).line;
        let key = (file.source.path.clone(), line);
        let with_severity = format!("{} ({})", d.code, d.severity);
        let code = if expected.get(&key).is_some_and(|w| w.contains(&with_severity)) {
            with_severity
        } else {
            d.code.to_string()
        };
        actual.entry(key).or_default().push(code);
    }
    actual
}

/// The lines where `expected` and `actual` differ, each as `path:line: expected [..], got
/// [..]` (both sorted).
pub fn differences(mut expected: Expected, mut actual: Expected) -> Vec<((String, u32), String)> {
    for codes in expected.values_mut().chain(actual.values_mut()) {
        codes.sort();
    }
    let keys: BTreeSet<_> = expected.keys().chain(actual.keys()).cloned().collect();
    let mut out = Vec::new();
    for key in keys {
        let want = expected.get(&key).cloned().unwrap_or_default();
        let got = actual.get(&key).cloned().unwrap_or_default();
        if want != got {
            out.push((
                key.clone(),
                format!("line {}: expected {want:?}, got {got:?}", key.1),
            ));
        }
    }
    out
}

/// One test and its failures (none: it passed).
#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub failures: Vec<String>,
}

/// Which input of an example.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Bad,
    Good,
}

/// Where the user rules of the run come from: copied into each example's project so
/// that its `amlint.toml` loads them (`rules-dirs`).
#[derive(Debug, Default, Clone)]
pub struct UserRules {
    /// The rule files (display path, text) of the configuration's `rules-dirs`.
    pub files: Vec<(String, String)>,
}

/// The directory user rules are written to in an example's project.
const RULES_DIR: &str = ".amlint-test-rules";

/// An example's project: a private directory of the system's temporary directory
/// ([`crate::fsio::Scratch`]), its own git work tree so that no configuration above it
/// applies, holding the example's files.
struct ScratchProject(crate::fsio::Scratch);

impl ScratchProject {
    fn new(files: &[(String, &str)]) -> std::io::Result<Self> {
        let dir = crate::fsio::Scratch::new("amlint-test")?;
        dir.create_dir(Path::new(".git"))?;
        for (rel, body) in files {
            // Example paths are relative and stay inside (`..` is refused).
            dir.write(Path::new(rel), body.as_bytes())?;
        }
        Ok(ScratchProject(dir))
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

/// Runs one side of a rule's example as a small project (its file, the other files it
/// lists, its `amlint.toml`, and the user rules): the failures, if any.
pub fn run_example(
    rule: &RuleMeta,
    example: &Example,
    side: Side,
    user: &UserRules,
    options: &Options,
) -> Vec<String> {
    let text = match side {
        Side::Bad => &example.bad,
        Side::Good => &example.good,
    };
    let mut files: Vec<(String, &str)> = vec![(example.path.clone(), text.as_str())];
    files.extend(
        example
            .files
            .iter()
            .map(|(rel, body)| (rel.clone(), body.as_str())),
    );
    let mut config = example.config.clone().unwrap_or_default();
    if !user.files.is_empty() && !config.contains("rules-dirs") {
        for (i, (_, body)) in user.files.iter().enumerate() {
            files.push((format!("{RULES_DIR}/{i}.yaml"), body.as_str()));
        }
        config = format!("rules-dirs = [\"{RULES_DIR}\"]\n{config}");
    }
    if !config.is_empty() {
        files.push(("amlint.toml".to_string(), config.as_str()));
    }
    let dir = match ScratchProject::new(&files) {
        Ok(dir) => dir,
        Err(e) => return vec![format!("cannot write the example's project: {e}")],
    };
    let root = dir.path();
    let report = check_paths(&[root.to_path_buf()], options);
    if !report.config_errors.is_empty() {
        return report
            .config_errors
            .iter()
            .map(|e| format!("the example's configuration is invalid: {}", e.message))
            .collect();
    }
    let target = root.join(&example.path);
    let Some(file) = report.files.iter().find(|f| Path::new(&f.source.path) == target) else {
        return vec![format!("`{}` was not checked", example.path)];
    };
    let own: Vec<_> = file.diagnostics.iter().filter(|d| d.code == rule.code).collect();
    let mut failures = Vec::new();
    match side {
        Side::Good => {
            if let Some(d) = own.first() {
                failures.push(format!(
                    "the good input produces {} on line {}: {}",
                    rule.code,
                    file.source.position(d.span.start).line,
                    d.message
                ));
            }
        }
        Side::Bad if own.is_empty() => {
            let got: Vec<&str> = file.diagnostics.iter().map(|d| d.code).collect();
            failures.push(format!(
                "the bad input does not produce {} (it produces {})",
                rule.code,
                if got.is_empty() {
                    "nothing".to_string()
                } else {
                    got.join(", ")
                }
            ));
        }
        Side::Bad => failures.extend(misplaced(rule, example, text, file, &own)),
    }
    failures
}

/// The bad side's findings of the rule (`own`, in `file`) where the example does not
/// place them: at another pointer than its `at:`, on other lines than its `# expect:`.
fn misplaced(
    rule: &RuleMeta,
    example: &Example,
    text: &str,
    file: &crate::results::FileReport,
    own: &[&crate::diagnostic::Diagnostic],
) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(at) = &example.at
        && !own
            .iter()
            .any(|d| d.pointer.as_ref().is_some_and(|p| p.to_string() == *at))
    {
        let pointers: Vec<String> = own
            .iter()
            .map(|d| {
                d.pointer
                    .as_ref()
                    .map_or("(no pointer)".to_string(), ToString::to_string)
            })
            .collect();
        failures.push(format!(
            "the bad input produces {} at {}, not at `{at}` (`at:`)",
            rule.code,
            pointers.join(", ")
        ));
    }
    let marked: BTreeSet<u32> = annotations(text)
        .into_iter()
        .filter(|(_, codes)| codes.iter().any(|c| c == rule.code))
        .map(|(line, _)| line)
        .collect();
    if !marked.is_empty() {
        let at: BTreeSet<u32> = own
            .iter()
            .map(|d| file.source.position(d.span.start).line)
            .collect();
        if at != marked {
            failures.push(format!(
                "the bad input produces {} on line(s) {at:?}, but `# expect: {}` marks line(s) {marked:?}",
                rule.code, rule.code
            ));
        }
    }
    failures
}

/// Runs both sides of every rule's example (rules with `example_note` instead are
/// skipped), in registry order.
pub fn run_examples<'a>(
    rules: impl IntoIterator<Item = &'a RuleMeta>,
    user: &UserRules,
    options: &Options,
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for rule in rules {
        let Some(example) = &rule.example else {
            continue;
        };
        for (side, label) in [(Side::Bad, "bad"), (Side::Good, "good")] {
            out.push(Outcome {
                name: format!("example {} {} ({label})", rule.code, rule.name),
                failures: run_example(rule, example, side, user, options),
            });
        }
    }
    out
}

/// Checks each case folder (or file) as one run — files of one folder see each other, as
/// in a project — and compares every checked file with its annotations: one outcome per
/// file that is an Azure ML configuration or carries expectations.
pub fn run_cases(paths: &[PathBuf], options: &Options) -> Vec<Outcome> {
    let mut out = Vec::new();
    for path in paths {
        let report = check_paths(std::slice::from_ref(path), options);
        if !report.config_errors.is_empty() {
            out.push(Outcome {
                name: format!("cases {}", path.display()),
                failures: report.config_errors.iter().map(ToString::to_string).collect(),
            });
            continue;
        }
        // The files of the run, and the annotated files among those the walk passes.
        let mut files: BTreeSet<String> = report.files.iter().map(|f| f.source.path.clone()).collect();
        let mut expected = Expected::new();
        let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let boundary = match &report.project {
            Some(project) => project.boundary.clone(),
            None => crate::fsio::Boundary::around(path),
        };
        for f in &report.files {
            match expectations_of(Path::new(&f.source.path), &f.source.text, &boundary) {
                Ok(list) => {
                    for (line, codes) in list {
                        expected
                            .entry((f.source.path.clone(), line))
                            .or_default()
                            .extend(codes);
                    }
                }
                Err(e) => problems.entry(f.source.path.clone()).or_default().push(e),
            }
        }
        files.retain(|f| {
            report.files.iter().any(|r| r.source.path == *f && r.checked)
                || expected.keys().any(|(p, _)| p == f)
        });
        let actual = found(&report, &expected);
        for ((file, _), message) in differences(expected, actual) {
            problems.entry(file).or_default().push(message);
        }
        for file in files {
            out.push(Outcome {
                name: format!("case {file}"),
                failures: problems.remove(&file).unwrap_or_default(),
            });
        }
    }
    out
}

/// The test runner's report: one line per test (`... ok` / `... FAILED` with the reasons
/// indented below) and a summary line. `true` when every test passed.
pub fn render(outcomes: &[Outcome], out: &mut String) -> bool {
    let failed = outcomes.iter().filter(|o| !o.failures.is_empty()).count();
    for o in outcomes {
        let name = crate::escape::control(&o.name);
        if o.failures.is_empty() {
            out.push_str(&format!("{name} ... ok\n"));
        } else {
            out.push_str(&format!("{name} ... FAILED\n"));
            for f in &o.failures {
                out.push_str(&format!("    {}\n", crate::escape::control(f)));
            }
        }
    }
    *out = crate::escape::workflow_commands(std::mem::take(out));
    out.push_str(&format!(
        "\ntest result: {}. {} passed; {failed} failed\n",
        if failed == 0 { "ok" } else { "FAILED" },
        outcomes.len() - failed
    ));
    failed == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_in_each_comment_syntax() {
        let text = "size: Standard_NC6  # expect: AML505\n  vm_size = \"Standard_NC6\" // expect: AML505, AML702\n    \"!az ml compute create --size Standard_NC6  # expect: AML505\\n\",\n// expect-next: AML601\nx\n";
        assert_eq!(
            annotations(text),
            [
                (1, vec!["AML505".to_string()]),
                (2, vec!["AML505".to_string(), "AML702".to_string()]),
                (3, vec!["AML505".to_string()]),
                (5, vec!["AML601".to_string()]),
            ]
        );
        // Markdown's HTML comments end at `-->`.
        assert_eq!(
            annotations("<!-- expect-next: AML702, AML704 -->\naz ml compute create\n"),
            [(2, vec!["AML702".to_string(), "AML704".to_string()])]
        );
    }
}
