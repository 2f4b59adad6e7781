//! AML201 local-path-not-found, AML202 malformed-asset-reference and AML206
//! invalid-conda-file: the reference fields of a document (found with the schemas'
//! `x-amlint-forms`, `crate::schema::forms`), checked the way the Azure ML CLI resolves
//! them. Local paths are resolved against the file's directory and only their metadata is
//! read, except a conda file (`"content": "conda"`), which is read and parsed once per run
//! (`facts::DiskSizes::conda_problem`); `azureml:` references are checked for form, never
//! looked up.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::context::DocContext;
use crate::diagnostic::{Diagnostic, Findings, codes};
use crate::document::{Target, Value};
use crate::facts::CondaProblem;
use crate::fsio::{self, Boundary, Looked, Refusal};
use crate::schema::coerce::is_binding;
use crate::schema::forms::{Form, asset_singular};
use crate::source::Pointer;

pub const CODES: &[&str] = &[codes::AML201.code, codes::AML202.code, codes::AML206.code];

pub fn check(cx: &DocContext<'_>, out: &mut Findings) {
    let Some(annotations) = cx.annotations() else {
        return;
    };
    let dir = base_dir(&cx.source.path);
    for site in &annotations.sites {
        // A key the SDK does not read (AML107) names no path it looks for.
        if annotations.unused.iter().any(|u| u.pointer == site.pointer) {
            continue;
        }
        let Some(found) = cx.doc.lookup(&site.pointer) else {
            continue;
        };
        let Value::Str(text) = cx.doc.value(found.value) else {
            continue;
        };
        if let Some(d) = check_site(cx, &dir, &site.pointer, text, &site.forms) {
            out.push(d.with_pointer(site.pointer.clone()));
        }
    }
}

/// The directory relative paths in `path` resolve against (the CLI's base path).
fn base_dir(path: &str) -> PathBuf {
    match Path::new(path).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A template placeholder (`<CODE_DIR>`, `<path to data>`, `{{ENV}}`), not a path: on one
/// line, a `{{`, or a `<name>` whose name starts with a letter or `_` and holds no `<`, `=`
/// or `,`. Text over several lines is never one, whatever it holds: an inline conda file's
/// `tqdm>=4.66,<5` is no placeholder (audit 22, case 01), and the SDK takes the whole text
/// for a file name.
fn is_placeholder(text: &str) -> bool {
    if text.trim_end().contains('\n') {
        return false;
    }
    if text.contains("{{") {
        return true;
    }
    // One pass: the `<` of the name being read, if any.
    let mut open = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => open = chars.peek().is_some_and(|n| n.is_ascii_alphabetic() || *n == '_'),
            '=' | ',' => open = false,
            '>' if open => return true,
            _ => {}
        }
    }
    false
}

static SCHEME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*://").expect("valid regex"));

fn is_asset_form(f: &Form) -> bool {
    matches!(f.form.as_str(), "arm" | "arm-versioned" | "registry")
}

/// A reference to a registered asset (`azureml:` and `rest`): AML202 when it is not
/// well formed for the asset forms among `forms`.
fn asset_site(text: &str, rest: &str, forms: &[Form], span: crate::source::Span) -> Option<Diagnostic> {
    let assets: Vec<&Form> = forms.iter().filter(|f| is_asset_form(f)).collect();
    if assets.is_empty() {
        return None;
    }
    let (problem, mut help) = asset_problem(rest, &assets)?;
    if help.is_empty() {
        let owned: Vec<Form> = assets.iter().map(|f| (*f).clone()).collect();
        help = format!("Use {}.", crate::schema::forms::describe_accepted(&owned));
    }
    let what = assets
        .iter()
        .find_map(|f| f.asset.as_deref())
        .map_or("asset", asset_singular);
    Some(
        Diagnostic::new(
            codes::AML202,
            span,
            format!("`{text}` is not a well-formed {what} reference: {problem}"),
        )
        .with_help(help),
    )
}

/// A `file:` reference (`path` after the prefix): a YAML file that must exist, or, in a
/// field that takes a local path, the prefix that does not belong there.
fn file_site(
    cx: &DocContext<'_>,
    dir: &Path,
    text: &str,
    path: &str,
    forms: &[Form],
    field: &str,
    span: crate::source::Span,
) -> Option<Diagnostic> {
    if !forms.iter().any(|f| f.form == "yaml-file") {
        // Only YAML file references take the prefix; a local path field (`code`)
        // reads `file:src` as a directory literally named so.
        let local = forms
            .iter()
            .find(|f| f.form == "local-path" && f.relative_to.is_none())?;
        let mut d = missing(cx.boundary, dir, text, local, field, text, span)?;
        d.help = Some(format!(
            "`file:` marks a YAML file reference (a component or environment file); `{field}` takes the path itself: write `{path}`."
        ));
        return Some(d);
    }
    let form = Form {
        form: "yaml-file".into(),
        asset: None,
        default_version: false,
        dir: false,
        file: true,
        relative_to: None,
        unless: None,
        on_create: false,
        from_cwd: false,
        conda: false,
    };
    missing(cx.boundary, dir, path, &form, field, text, span)
}

fn check_site(
    cx: &DocContext<'_>,
    dir: &Path,
    pointer: &Pointer,
    text: &str,
    forms: &[Form],
) -> Option<Diagnostic> {
    if is_binding(&serde_json::Value::String(text.to_string())) {
        return None;
    }
    let span = cx.doc.span_of(pointer, Target::Value);
    let field = pointer.last().unwrap_or("value").to_string();
    if let Some(rest) = text.strip_prefix("azureml:") {
        return asset_site(text, rest, forms, span);
    }
    if let Some(path) = text.strip_prefix("file:") {
        return file_site(cx, dir, text, path, forms, &field, span);
    }
    if SCHEME.is_match(text) || text.starts_with("git+") || is_placeholder(text) || is_glob(text) {
        return None;
    }
    let index = forms
        .iter()
        .position(|f| f.form == "local-path" || f.form == "file-ref")?;
    let form = &forms[index];
    // A plain-string form before the local path: the SDK takes any string at load time
    // (job input paths) and reads the path only when the job is submitted, to upload it.
    let on_create = form.on_create || forms[..index].iter().any(|f| f.form == "string");
    if let Some(sibling) = &form.unless {
        let mut p = pointer.clone();
        p.pop();
        if cx.doc.lookup(&p.child(sibling.as_str())).is_some() {
            return None;
        }
    }
    let sibling_text = |sibling: &str| {
        let mut p = pointer.clone();
        p.pop();
        let found = cx.doc.lookup(&p.child(sibling))?;
        match cx.doc.value(found.value) {
            Value::Str(c) if !c.trim().is_empty() => Some(c.to_string()),
            _ => None,
        }
    };
    if form.from_cwd {
        // SDK v1 reads each of these paths only when it is truthy (`if self.conda_file:`);
        // an empty `entryScript` is refused on its own (AML103).
        if text.is_empty() {
            return None;
        }
        let under = form.relative_to.as_deref().and_then(sibling_text);
        let d = missing_from_cwd(cx.boundary, dir, under.as_deref(), text, form, &field, span);
        if d.is_some() || !form.conda {
            return d;
        }
        // The first working directory that has the file is the one SDK v1 reads it in.
        let found = cwd_candidates(cx.boundary, dir)
            .into_iter()
            .map(|c| match under.as_deref() {
                Some(src) => c.join(src).join(text),
                None => c.join(text),
            })
            .find(|p| matches!(fsio::look(p, cx.boundary), Ok(Looked::File { .. })))?;
        return conda_site(cx, &found, text, &field, span, true);
    }
    let base = match &form.relative_to {
        Some(sibling) => match sibling_text(sibling) {
            // When the directory itself is missing, that is the finding (on `code`).
            Some(c) if !SCHEME.is_match(&c) && !c.contains(':') && is_dir(cx.boundary, &dir.join(&c)) => {
                dir.join(&c)
            }
            // No local directory to look in (remote code, or none given).
            _ => return None,
        },
        None => dir.to_path_buf(),
    };
    let Some(mut d) = missing(cx.boundary, &base, text, form, &field, text, span) else {
        return if form.conda {
            conda_site(cx, &base.join(text), text, &field, span, false)
        } else {
            None
        };
    };
    if on_create {
        d = soften(d, &field);
    }
    let assets: Vec<&Form> = forms.iter().filter(|f| is_asset_form(f)).collect();
    if !assets.is_empty() && !text.contains('/') && !text.contains('\\') {
        let what = assets
            .iter()
            .find_map(|f| f.asset.as_deref())
            .map_or("asset", asset_singular);
        d.help = Some(format!(
            "{} If `{text}` names a registered {what}, write `azureml:{text}`.",
            d.help.unwrap_or_default()
        ));
    }
    Some(d)
}

/// AML206 when the conda file at `path` (it exists) is not a YAML mapping. `v1`: named by
/// an SDK v1 inference configuration, which reads it when the model is deployed.
fn conda_site(
    cx: &DocContext<'_>,
    path: &Path,
    shown: &str,
    field: &str,
    span: crate::source::Span,
    v1: bool,
) -> Option<Diagnostic> {
    let problem = cx.facts?.base.disk.conda_problem(path, cx.boundary)?;
    let where_ = crate::fsio::normalize(path).display().to_string();
    Some(match &*problem {
        CondaProblem::NotYaml { line, column, reason } => {
            let fails = if v1 {
                "SDK v1 reads the conda file with a YAML parser when it deploys the model, and fails"
            } else {
                "The Azure ML CLI parses the conda file when it loads this file, and fails (\"Error while parsing yaml file\")"
            };
            Diagnostic::new(
                codes::AML206,
                span,
                format!("Conda file `{shown}` in `{field}` is not valid YAML: {reason} (line {line}, column {column} of `{where_}`)"),
            )
            .with_help(format!(
                "{fails}. Fix line {line} of `{where_}` (a list item needs a space after its `-`, as in `- pip:`; a `{{{{ }}}}` template must be rendered first), or point `{field}` at a valid conda file."
            ))
        }
        CondaProblem::NotMapping { what } => Diagnostic::new(
            codes::AML206,
            span,
            format!("Conda file `{shown}` in `{field}` is {what}, not a mapping (looked at `{where_}`)"),
        )
        .with_help(format!(
            "The file loads, but conda builds the environment from a mapping with `name`, `channels` and `dependencies`, and fails on anything else. Write the environment's specification there, or remove `{field}`."
        ))
        .with_severity(crate::diagnostic::Severity::Warning),
    })
}

/// A glob (`data/*.csv`): a pattern, not one path.
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?'])
}

/// A path the CLI reads only when it creates the asset or submits the job: a warning,
/// since data is often made by a script or kept out of git.
fn soften(mut d: Diagnostic, field: &str) -> Diagnostic {
    if d.message.contains("does not exist") {
        d.help = Some(format!(
            "The Azure ML CLI loads this file without it, but uploads `{field}` when it creates the asset or submits the job, and fails if it is still missing then. Fix the path, or make sure the step that creates it runs first.{}",
            suggestion_of(&d)
        ));
    }
    d.with_severity(crate::diagnostic::Severity::Warning)
}

/// How many folders above a v1 file are tried as the working directory.
const MAX_CWD_LEVELS: usize = 32;

/// The folders a v1 command may run from: the file's folder, then each folder above it
/// up to the repository root (a folder holding `.git`) or the project's boundary, wherever
/// amlint runs (a run from the file's own folder tries what the whole run tries: audit 13,
/// case 03).
fn cwd_candidates(boundary: &Boundary, dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    let Ok(mut cur) = boundary.resolve(dir) else {
        return out;
    };
    let written = fsio::start_dir()
        .ok()
        .and_then(fsio::real_path)
        .zip(boundary.root())
        .map(|(here, root)| fsio::WrittenFrom::new(&here, root));
    for _ in 0..MAX_CWD_LEVELS {
        if fsio::exists_here(&cur.join(".git")) {
            break;
        }
        let Some(parent) = cur.parent() else { break };
        // Folders above the project are not the project's: not tried.
        if !boundary.contains(parent) {
            break;
        }
        cur = parent.to_path_buf();
        // Written from the folder amlint runs in (through `..` above it, within the
        // project), as the file itself is.
        let shown = match &written {
            Some(w) => w.path(&cur),
            None => None,
        };
        out.push(match shown {
            Some(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
            Some(rel) => rel,
            None => cur.clone(),
        });
    }
    out
}

/// Whether `path` is a directory of the project.
fn is_dir(boundary: &Boundary, path: &Path) -> bool {
    matches!(fsio::look(path, boundary), Ok(Looked::Dir))
}

/// The " Did you mean ...?" sentence at the end of a help text, if any.
fn suggestion_of(d: &Diagnostic) -> String {
    d.help
        .as_deref()
        .and_then(|h| h.find(" Did you mean").map(|i| h[i..].to_string()))
        .unwrap_or_default()
}

/// AML201 for an SDK v1 path (`base: cwd`): resolved against the working directory, or
/// against `under` (`sourceDirectory`, itself resolved against it) when given. Reported
/// only when no candidate working directory has it.
fn missing_from_cwd(
    boundary: &Boundary,
    dir: &Path,
    under: Option<&str>,
    rel: &str,
    form: &Form,
    field: &str,
    span: crate::source::Span,
) -> Option<Diagnostic> {
    let candidates = cwd_candidates(boundary, dir);
    let bases: Vec<PathBuf> = match under {
        Some(src) => candidates
            .iter()
            .map(|c| c.join(src))
            .filter(|b| is_dir(boundary, b))
            .collect(),
        None => candidates.clone(),
    };
    // No `sourceDirectory` anywhere: that is its own finding.
    let mut findings = Vec::with_capacity(bases.len());
    for base in &bases {
        findings.push(missing(boundary, base, rel, form, field, rel, span)?);
    }
    // The first folder's finding, unless another one has a near name to suggest.
    let pick = findings
        .iter()
        .position(|d| !suggestion_of(d).is_empty())
        .unwrap_or(0);
    let mut d = findings.into_iter().nth(pick)?;
    if d.message.contains("does not exist") {
        let resolved = match under {
            Some(src) => format!(
                "joins `{field}` to `sourceDirectory` (`{src}`), which it resolves against the working directory"
            ),
            None => format!("resolves `{field}` against the working directory"),
        };
        let folder = candidates[0].display();
        let scope = match candidates.len() - 1 {
            0 => format!("this file's folder `{folder}`"),
            1 => format!("this file's folder `{folder}` and the folder above it"),
            n => format!("this file's folder `{folder}` and the {n} folders above it"),
        };
        d.help = Some(format!(
            "SDK v1 (`InferenceConfig`, `az ml model deploy --ic`) {resolved} and fails when it is missing; amlint tried {scope} as that directory, and none has it.{}",
            suggestion_of(&d)
        ));
    }
    Some(d)
}

/// The entry of `path`'s folder spelt closest to its last part ("did you mean").
fn near_name(boundary: &Boundary, path: &Path) -> Option<String> {
    /// Folders larger than this are not listed for a suggestion.
    const MAX_ENTRIES: usize = 2_000;
    let name = path.file_name()?.to_str()?;
    if name.len() > 255 {
        return None;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let names: Vec<String> = fsio::list_dir(parent, boundary, MAX_ENTRIES)
        .ok()?
        .into_iter()
        .filter_map(|(n, _)| n.into_string().ok())
        .collect();
    crate::suggest::closest(name, &names)
        .filter(|n| *n != name)
        .map(str::to_string)
}

/// `rel` written with `/` for `\\` (`..\\data\\` as `../data/`) when it has a `\\` and that
/// relative path exists from `base`: Windows reads `\\` as a separator, Linux and macOS
/// (where CI runs) as part of a name.
fn windows_form(boundary: &Boundary, base: &Path, rel: &str) -> Option<String> {
    let slashed = rel.contains('\\').then(|| rel.replace('\\', "/"))?;
    let relative = !Path::new(rel).is_absolute() && !Path::new(&slashed).is_absolute();
    (relative && fsio::look(&base.join(&slashed), boundary).is_ok()).then_some(slashed)
}

/// `rel` with its last part replaced by `name`.
fn with_last(rel: &str, name: &str) -> String {
    let trimmed = rel.trim_end_matches(['/', '\\']);
    match trimmed.rfind(['/', '\\']) {
        Some(i) => format!("{}{name}", &trimmed[..=i]),
        None => name.to_string(),
    }
}

/// AML201 when `rel` (resolved against `base`) does not exist or has the wrong kind.
fn missing(
    boundary: &Boundary,
    base: &Path,
    rel: &str,
    form: &Form,
    field: &str,
    shown: &str,
    span: crate::source::Span,
) -> Option<Diagnostic> {
    let joined = if Path::new(rel).is_absolute() {
        PathBuf::from(rel)
    } else {
        base.join(rel)
    };
    // `a/./b` → `a/b` for display (the lookup is the same).
    let mut path: PathBuf = joined
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if path.as_os_str().is_empty() {
        // `code: .` beside a file named without a directory: the current directory
        // (an empty path exists nowhere).
        path = PathBuf::from(".");
    }
    // Shown without `.`/`..` segments (the path itself is looked at as written: `..`
    // after a link means the link's parent, as for the CLI).
    let where_ = crate::fsio::normalize(&path).display().to_string();
    let looked = match fsio::look(&path, boundary) {
        // An absolute path names a place on the machine that runs the command (a Docker
        // image that copies the files there, a build agent): it may well exist there, and
        // amlint cannot know; a relative one that climbs out of the project is missing
        // from every fresh clone.
        Err(Refusal::Outside { .. }) => {
            let (tool, relative_to) = if form.from_cwd {
                ("SDK v1", "the folder the command runs in")
            } else {
                ("The Azure ML CLI", "this file")
            };
            return Some(if Path::new(rel).is_absolute() {
                Diagnostic::new(
                    codes::AML201,
                    span,
                    format!("`{shown}` in `{field}` is an absolute path outside the project; amlint does not look outside the project"),
                )
                .with_help(format!(
                    "{tool} reads it from the machine that runs the command, so this file works only where `{shown}` exists (a Docker image that copies it there, say), not from a fresh clone of the repository. If the file is in the repository, name it relative to {relative_to}."
                ))
                .with_severity(crate::diagnostic::Severity::Warning)
            } else {
                Diagnostic::new(
                    codes::AML201,
                    span,
                    format!("`{shown}` in `{field}` names a path outside the project; amlint does not look outside the project"),
                )
                .with_help(format!(
                    "{tool} resolves `{field}` relative to {relative_to} and reads it from this machine, so the file works only where that path exists (a fresh clone of the repository does not have it). Keep what it names in the repository and name it relative to {relative_to}."
                ))
            });
        }
        other => other,
    };
    match looked {
        Ok(Looked::Dir) if !form.dir => Some(
            Diagnostic::new(
                codes::AML201,
                span,
                format!("`{shown}` is a directory, but `{field}` must name a file (looked at `{where_}`)"),
            )
            .with_help("Point it at the file itself."),
        ),
        Ok(Looked::File { .. } | Looked::Special(_)) if !form.file => Some(
            Diagnostic::new(
                codes::AML201,
                span,
                format!("`{shown}` is a file, but `{field}` must name a directory (looked at `{where_}`)"),
            )
            .with_help("Point it at the directory."),
        ),
        Ok(_) => None,
        // Text over several lines where a path belongs (an inline conda file under
        // `conda_file: |`): the CLI takes the whole text for a file name.
        Err(_) if rel.trim_end().contains('\n') => {
            let lines = rel.trim_end().lines().count();
            let (example, mapping) = if field == "conda_file" {
                (
                    " (`conda_file: conda.yml`)",
                    ", or write the conda file as a mapping: its keys indented under `conda_file:`, without `|`",
                )
            } else {
                ("", "")
            };
            Some(
                Diagnostic::new(
                    codes::AML201,
                    span,
                    format!("`{field}` holds {lines} lines of text where a path belongs: the Azure ML CLI takes the whole text for a file name, which does not exist"),
                )
                .with_help(format!(
                    "Save the text in a file and name it here, relative to this file's directory{example}{mapping}."
                )),
            )
        }
        Err(_) if let Some(slashed) = windows_form(boundary, base, rel) => Some(
                Diagnostic::new(
                    codes::AML201,
                    span,
                    format!(
                        "`{shown}` in `{field}` is written with `\\` separators: only on Windows does it name `{slashed}`, which exists; on Linux and macOS (where CI runners run) it is one name, which does not"
                    ),
                )
                .with_help(format!("Write it with `/`, which every system reads: `{slashed}`.")),
        ),
        Err(_) => {
            let relative_to = match &form.relative_to {
                Some(s) => format!("the `{s}` directory"),
                None => "this file's directory".to_string(),
            };
            let suggestion = near_name(boundary, &path)
                .map(|n| format!(" Did you mean `{}`?", with_last(rel, &n)))
                .unwrap_or_default();
            Some(
                Diagnostic::new(
                    codes::AML201,
                    span,
                    format!("Local path `{shown}` in `{field}` does not exist (looked for `{where_}`)"),
                )
                .with_help(format!(
                    "The Azure ML CLI resolves `{field}` relative to {relative_to} and fails when it is missing. Fix the path, or create it.{suggestion}"
                )),
            )
        }
    }
}

static ARM_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^/?subscriptions/[^/\s]+/resourcegroups/[^/\s]+/providers/microsoft\.machinelearningservices/workspaces/[^/\s]+/[^/\s]+/[^/\s]+(/versions/[^/\s]+)?/?$",
    )
    .expect("valid regex")
});

static REGISTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^//(registries|feeds)/[^/\s]+/[^/\s]+/[^/\s]+(/(versions|labels)/[^/\s]+)?/?$")
        .expect("valid regex")
});

/// What is wrong with `azureml:<rest>` for a field that accepts `forms`, if anything:
/// (problem, help).
fn asset_problem(rest: &str, forms: &[&Form]) -> Option<(String, String)> {
    // Empty: the caller words the accepted forms of this field.
    let forms_help = "";
    if let Some(uri) = rest.strip_prefix("//") {
        let first = uri.split('/').next().unwrap_or("");
        return match first {
            "registries" | "feeds" => (!REGISTRY.is_match(rest)).then(|| {
                (
                    "a registry reference has the form `azureml://registries/<registry>/<type>/<name>/versions/<version>` (or `/labels/<label>`)".to_string(),
                    forms_help.to_string(),
                )
            }),
            "locations" | "datastores" | "subscriptions" => None,
            _ => Some((
                format!("`azureml://{first}/...` is not an Azure ML URI (expected `azureml://registries/...`, `azureml://locations/...` or `azureml://datastores/...`)"),
                forms_help.to_string(),
            )),
        };
    }
    if rest.is_empty() {
        return Some(("nothing follows `azureml:`".to_string(), forms_help.to_string()));
    }
    // A name a template fills in (`<your GPU compute target name>`, `{{ env }}`): the SDK
    // loads it as written, and what it will be is not known (AML203 says nothing of it
    // either).
    if crate::facts::index::is_template_name(rest) {
        return None;
    }
    if rest.chars().any(char::is_whitespace) {
        return Some(("it contains whitespace".to_string(), forms_help.to_string()));
    }
    if rest.starts_with('/') || rest.to_ascii_lowercase().starts_with("subscriptions/") {
        return (!ARM_ID.is_match(rest)).then(|| {
            (
                "an ARM id has the form `azureml:/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.MachineLearningServices/workspaces/<workspace>/<type>/<name>[/versions/<version>]`".to_string(),
                forms_help.to_string(),
            )
        });
    }
    if rest.contains('/') {
        return Some((
            "a short reference cannot contain `/` (an ARM id starts with `/subscriptions/`)".to_string(),
            forms_help.to_string(),
        ));
    }
    let versioned = forms.iter().any(|f| f.form == "arm-versioned");
    if !versioned {
        // A resource (compute, datastore, job): any name.
        return None;
    }
    let version_optional = forms
        .iter()
        .any(|f| f.form == "arm" || (f.form == "arm-versioned" && f.default_version));
    if let Some((name, label)) = rest.rsplit_once('@') {
        if name.is_empty() || name.contains(':') || name.contains('@') {
            return Some((
                format!("`{name}` is not an asset name (a label reference is `azureml:<name>@<label>`)"),
                forms_help.to_string(),
            ));
        }
        if label.is_empty() {
            return Some(("the label after `@` is empty".to_string(), forms_help.to_string()));
        }
        return None;
    }
    let parts: Vec<&str> = rest.split(':').collect();
    match parts.as_slice() {
        [""] => Some(("the name is empty".to_string(), forms_help.to_string())),
        [_] if !version_optional => Some((
            "this field needs a version or a label".to_string(),
            format!("Add the version (`azureml:{rest}:<version>`) or a label (`azureml:{rest}@latest`)."),
        )),
        [_] => None,
        [name, version] if name.is_empty() || version.is_empty() => Some((
            "a versioned reference is `azureml:<name>:<version>`, with neither part empty".to_string(),
            forms_help.to_string(),
        )),
        [_, _] => None,
        _ => Some((
            format!(
                "it has {} `:`-separated parts; a versioned reference is `azureml:<name>:<version>`",
                parts.len()
            ),
            forms_help.to_string(),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_is_a_name_in_angle_brackets_on_one_line() {
        for p in [
            "<CODE_DIR>",
            "envs/<env>.yml",
            "<path to data>",
            "{{ENV}}/conda.yml",
            "./<_x>",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        // An inline conda file's version ranges (audit 22, case 01), comparisons, arrows.
        for p in [
            "name: env\ndependencies:\n  - pip:\n    - tqdm>=4.66,<5\n    - sentencepiece>=0.1.99\n",
            "name: env\nchannels: [<CHANNEL>]\n",
            "pkg<5,>=3",
            "a<=b>",
            "x < 5 > 3",
            "conda.yml",
        ] {
            assert!(!is_placeholder(p), "{p:?}");
        }
    }

    /// `..\\data\\` names `../data/` only on Windows: when that exists, the finding says
    /// so and gives the `/` form (eval4 case 06, franklinlindemberg/mslearn-mlops); a path
    /// whose `/` form is missing too is reported missing.
    #[test]
    fn a_path_written_with_backslashes_is_reported_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("data/raw")).unwrap();
        std::fs::create_dir_all(d.join("infra")).unwrap();
        let boundary = Boundary::at(d);
        let local = Form {
            asset: None,
            ..form("local-path", false)
        };
        let span = crate::source::Span::at(0);
        let found = missing(
            &boundary,
            &d.join("infra"),
            "..\\data\\raw\\",
            &local,
            "path",
            "..\\data\\raw\\",
            span,
        )
        .unwrap();
        assert!(
            found.message.contains("written with `\\` separators"),
            "{}",
            found.message
        );
        assert_eq!(
            found.help.as_deref(),
            Some("Write it with `/`, which every system reads: `../data/raw/`.")
        );
        let gone = missing(
            &boundary,
            &d.join("infra"),
            "..\\data\\gone\\",
            &local,
            "path",
            "x",
            span,
        )
        .unwrap();
        assert!(gone.message.contains("does not exist"), "{}", gone.message);
    }

    fn form(name: &str, default_version: bool) -> Form {
        Form {
            form: name.into(),
            asset: Some("environments".into()),
            default_version,
            dir: true,
            file: true,
            relative_to: None,
            unless: None,
            on_create: false,
            from_cwd: false,
            conda: false,
        }
    }

    #[test]
    fn asset_references() {
        let versioned = form("arm-versioned", false);
        let default = form("arm-versioned", true);
        let registry = form("registry", false);
        let v = [&versioned, &registry];
        let d = [&default, &registry];
        for ok in [
            "env:1",
            "env@latest",
            "//registries/azureml/environments/sklearn/versions/3",
            "//registries/azureml/environments/sklearn/labels/latest",
            "/subscriptions/s/resourceGroups/r/providers/Microsoft.MachineLearningServices/workspaces/w/environments/e/versions/1",
            "//datastores/ws/paths/x",
        ] {
            assert_eq!(asset_problem(ok, &v), None, "{ok}");
        }
        for bad in [
            "",
            "env",
            "env:",
            ":1",
            "env:1:2",
            "env@",
            "a b:1",
            "envs/x:1",
            "//registries/azureml",
            "//foo/bar",
            "/subscriptions/s/resourceGroups/r",
        ] {
            assert!(asset_problem(bad, &v).is_some(), "{bad}");
        }
        assert_eq!(asset_problem("env", &d), None);
        let compute = form("arm", false);
        assert_eq!(asset_problem("cpu-cluster", &[&compute]), None);
        // A template's placeholder, spaces and all (Azure/AML-Kubernetes, audit 11): the
        // SDK loads it; what it becomes is not known.
        for placeholder in [
            "<your GPU compute target name>",
            "{{ compute name }}",
            "<env name>",
        ] {
            assert_eq!(asset_problem(placeholder, &[&compute]), None, "{placeholder}");
            assert_eq!(asset_problem(placeholder, &v), None, "{placeholder}");
        }
        assert!(asset_problem("my cluster", &[&compute]).is_some());
    }
}
