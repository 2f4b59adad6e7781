//! CI files that create computes: GitHub Actions workflows (`run:`), Azure Pipelines
//! (`script:`, `bash:`, `pwsh:`, `powershell:`, an `AzureCLI` task's `inlineScript:`, a
//! `PowerShell` task's `script:`, an `AzurePowerShell` task's `Inline:`) and GitLab CI
//! (`script:`, `before_script:`, `after_script:`, with `variables:`), read
//! from the YAML tree the loader made. A script's variables come from the file around it:
//! `env:` at every level, Azure Pipelines `variables:` (as `$(name)` macros, as `${{
//! variables.name }}` and as the environment variables the agent makes of them), a
//! pipeline's `parameters:` defaults and a workflow's `inputs` defaults (the value of a run
//! that gives none, noted). A call of the mlops templates' `create-compute` (Azure
//! Pipelines `- template: …create-compute.yml` with `parameters:`, a GitHub job `uses:
//! …/create-compute.yml@ref` with `with:`) is a definition too: `cluster_name`, `size`,
//! `min_instances`, `max_instances`, `cluster_tier` are the command's options. A
//! pipeline's `extends: template:` is a call of that template, made at `extends`; a `${{
//! each x in parameters.y }}:` entry over a list or mapping of the repository's literals
//! (a default, what a call passes) is walked once per item with `x` bound ([`Bind`]).
//!
//! The walk of the tree uses an explicit stack; every value through a variable is resolved
//! to a fixed depth.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::az_cli::{Ctx, Eval, Evaluated, Outer, ScriptVal, ValueKind, Vars, definitions, setting_of};
use super::common::{Definitions, Input, Reader};
use super::iac::{Ev, Leaf, MAX_MODULE_CALLS, MAX_MODULE_DEPTH, ModuleCall};
use super::shell::comment_of;
use super::shell::{Dialect, LexOptions, Map, VarScope, parse};
use crate::document::{Document, NodeId, Style, Value};
use crate::facts::computes::{ComputeDef, Scalar, Setting, SourceKind};
use crate::source::Span;

mod github_env;

pub const READER: Reader = Reader {
    name: "az-cli workflows",
    wants: |name| name.ends_with(".yml") || name.ends_with(".yaml"),
    // `- template:` and `uses: ./`: a call of a template or action of the project, which
    // may create a compute though the calling file names none (not `template:` alone: a
    // Kubernetes manifest's pod template has one, and 4,000 manifests were then parsed).
    needles: &[
        "ml compute",
        "create-compute",
        "create_compute",
        // The SDK v1 mlops template's call ([`get_compute_call`]).
        "get-compute.yml@",
        "- template:",
        "uses: ./",
        // Quoted (`uses: './.github/workflows/x.yml'`, `uses: "./.github/actions/y"`).
        "uses: './",
        "uses: \"./",
        // An Azure pipeline that extends a template (`extends: template: x.yml`).
        "extends:",
        // A template deployment: a task's, or a script's `az deployment group create`.
        "AzureResourceManagerTemplateDeployment",
        "deployment group create",
        "deployment sub create",
        "deployment mg create",
        "deployment tenant create",
        "group deployment create",
        // The `Azure/aml-compute` action, which creates the compute of its parameters file.
        "aml-compute@",
        // `terraform plan|apply` with the variables it passes, in a script or a task.
        "terraform plan",
        "terraform apply",
        "terraform -chdir",
        "TerraformTask",
        "TerraformCLI",
        // A Python file or shell script of the project run with its arguments; a module
        // of the project run so (`python -m ml.build`).
        ".py",
        ".sh",
        "python -m ",
        "python3 -m ",
        // A file whose path is a variable's (`python3 $(Build.SourcesDirectory)/ml/$(SCRIPT)`,
        // `python ${{ variables.SCRIPT }}`).
        "python $",
        "python3 $",
    ],
    defines: super::common::COMMAND_WORDS,
    read,
};

/// How deep a variable's value may refer to others.
const MAX_DEPTH: usize = 8;

/// The variables one mapping of the file sets for what is inside it.
struct Frame {
    parent: Option<usize>,
    /// `env:`: environment variables (`$NAME`, `${{ env.NAME }}`).
    env: HashMap<String, NodeId>,
    /// Azure Pipelines `variables:` (`$(name)`, `${{ variables.name }}`).
    vars: HashMap<String, NodeId>,
    /// The same as the environment variables the agent makes of them (`.` as `_`,
    /// upper-cased).
    var_env: HashMap<String, NodeId>,
    /// What the job's earlier steps wrote to `$GITHUB_ENV` ([`github_env`]): a frame of
    /// its own between a step's and its job's, so that the step's `env:` wins.
    github_env: HashMap<String, ScriptVal>,
}

impl Frame {
    /// A frame below `parent` that sets nothing yet.
    fn below(parent: Option<usize>) -> Frame {
        Frame {
            parent,
            env: HashMap::new(),
            vars: HashMap::new(),
            var_env: HashMap::new(),
            github_env: HashMap::new(),
        }
    }
}

/// How many frames up a variable is looked for (real files nest a handful).
const MAX_FRAMES: usize = 32;

/// What every script of one document can see besides its frames.
struct Globals {
    /// `parameters.x` (a pipeline's or template's parameter defaults).
    params: HashMap<String, NodeId>,
    /// `inputs.x` and `github.event.inputs.x` (a workflow's input defaults).
    inputs: HashMap<String, NodeId>,
    /// Azure Pipelines variables templates (`variables: [- template: vars.yml]`): their
    /// variables by name, and by the environment name the agent makes of each.
    template_vars: HashMap<String, ScriptVal>,
    template_env: HashMap<String, ScriptVal>,
    /// The values a call of this file passes (`parameters:` of an Azure Pipelines
    /// template call, `with:` of a reusable workflow's), over the defaults.
    given: Given,
    /// The parameters' defaults read as structured values (by name), each once.
    param_lits: RefCell<HashMap<String, Lit>>,
    /// How many more values of structured parameters this document reads.
    lit_budget: Cell<usize>,
    /// How many more bytes of Python files its scripts' runs read
    /// ([`super::deploy::python_from_script`]).
    py_budget: Cell<usize>,
    /// The same for the shell scripts they run ([`super::deploy::shell_from_script`]).
    sh_budget: Cell<usize>,
    /// Where the CI system checks the repository out, what `${{ github.workspace }}`,
    /// `$GITHUB_WORKSPACE` or `$(Build.SourcesDirectory)` name ([`Checkout`]).
    checkout: Checkout,
}

/// The repository's root as the CI system names it where it checks the repository out:
/// in a GitHub workflow `${{ github.workspace }}`, `$GITHUB_WORKSPACE`; in an Azure
/// pipeline `$(Build.SourcesDirectory)`, `$(System.DefaultWorkingDirectory)`,
/// `$(Build.Repository.LocalPath)` and their environment variables (the repository's root
/// when it alone is checked out, as [`from_the_checkout`] reads a working directory): the
/// project's directory, made absolute, so that `python3 $(Build.SourcesDirectory)/ml/build.py`
/// and `--file ${{ github.workspace }}/compute.yml` name files of the project wherever the
/// step runs.
struct Checkout {
    root: Option<String>,
    github: bool,
}

impl Checkout {
    fn of(input: &Input<'_>) -> Self {
        let github = github_workspace(input);
        let root = github.clone().or_else(|| {
            let dir = input.path.parent().unwrap_or(Path::new(""));
            input.files.root_from(dir)
        });
        let cwd = std::env::current_dir().unwrap_or_default();
        Checkout {
            root: root
                .map(|r| crate::fsio::normalize(&crate::fsio::absolute(&r, &cwd)))
                .and_then(|r| r.to_str().map(str::to_string)),
            github: github.is_some(),
        }
    }

    /// The root, when `name` (a variable, an environment variable or an expression as
    /// written, case aside) names it in this kind of file.
    fn named(&self, name: &str) -> Option<ScriptVal> {
        let names: &[&str] = if self.github {
            &["github.workspace", "GITHUB_WORKSPACE"]
        } else {
            &[
                "Build.SourcesDirectory",
                "System.DefaultWorkingDirectory",
                "Build.Repository.LocalPath",
                "BUILD_SOURCESDIRECTORY",
                "SYSTEM_DEFAULTWORKINGDIRECTORY",
                "BUILD_REPOSITORY_LOCALPATH",
            ]
        };
        let root = self.root.as_ref()?;
        names
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name))
            .then(|| ScriptVal::known(root.clone(), None))
    }
}

/// The values a call of a template passes, by parameter (input) name: evaluated in the
/// calling file, without spans (they are not this file's).
type Given = HashMap<String, Lit>;

/// A template parameter's value as Azure Pipelines expands it at compile time: one value,
/// a list or a mapping (what `${{ each }}` iterates), read from literals of the repository
/// (a default, what a call passes) to [`MAX_LIT_DEPTH`] levels.
#[derive(Clone, Debug)]
enum Lit {
    One(ScriptVal),
    List(Vec<Lit>),
    /// Each key with its span when it is written in the file being read.
    Object(Vec<(String, Option<Span>, Lit)>),
}

/// How many levels of a structured parameter value are read (deeper: unknown).
const MAX_LIT_DEPTH: usize = 16;
/// How many values of structured parameters one document reads (its defaults and what
/// it passes to templates); the rest is unknown.
const MAX_LIT_NODES: usize = 4096;

impl Lit {
    /// The value `path` (the fields after the name, `what`) names inside this one; a
    /// field not there, or inside an unknown value, is unknown.
    fn at(&self, path: &[&str], what: &str) -> Result<&Lit, ScriptVal> {
        let mut at = self;
        for field in path {
            at = match at {
                Lit::Object(entries) => match entries.iter().rev().find(|(k, ..)| k == field) {
                    Some((_, _, v)) => v,
                    None => return Err(ScriptVal::Dynamic(format!("`{what}` is not set"))),
                },
                Lit::One(ScriptVal::Dynamic(why)) => return Err(ScriptVal::Dynamic(why.clone())),
                _ => {
                    return Err(ScriptVal::Dynamic(format!(
                        "`{what}` reads the field `{field}` of a value that has none"
                    )));
                }
            };
        }
        Ok(at)
    }

    /// This value as one word of a script (`what` names it).
    fn one(&self, what: &str) -> ScriptVal {
        match self {
            Lit::One(v) => v.clone(),
            Lit::List(_) => ScriptVal::Dynamic(format!("{what} is a list, not a single value")),
            Lit::Object(_) => ScriptVal::Dynamic(format!("{what} is a mapping, not a single value")),
        }
    }

    /// The same value without spans, for another file (a template the call passes it to).
    fn without_spans(self) -> Lit {
        match self {
            Lit::One(ScriptVal::Known { text, .. }) => Lit::One(ScriptVal::known(text, None)),
            Lit::One(d) => Lit::One(d),
            Lit::List(items) => Lit::List(items.into_iter().map(Lit::without_spans).collect()),
            Lit::Object(entries) => Lit::Object(
                entries
                    .into_iter()
                    .map(|(k, _, v)| (k, None, v.without_spans()))
                    .collect(),
            ),
        }
    }

    /// The items `${{ each }}` makes of this value: a list's items; a mapping's entries,
    /// each a pair of `key` and `value`. `None` for one value (not a collection).
    fn items(self) -> Option<Vec<Lit>> {
        match self {
            Lit::List(items) => Some(items),
            Lit::Object(entries) => Some(
                entries
                    .into_iter()
                    .map(|(k, span, v)| {
                        Lit::Object(vec![
                            ("key".to_string(), None, Lit::One(ScriptVal::known(k, span))),
                            ("value".to_string(), None, v),
                        ])
                    })
                    .collect(),
            ),
            Lit::One(_) => None,
        }
    }
}

/// One item of an expanded `${{ each x in … }}`: `x` bound to it for what is inside.
struct Bind {
    /// The loop around this one.
    parent: Option<usize>,
    name: String,
    value: Lit,
    /// Which loop and item, for the definitions made inside.
    note: String,
}

/// The variable and the collection of a `${{ each x in collection }}` key.
fn each_directive(key: &str) -> Option<(&str, &str)> {
    let inner = key.trim().strip_prefix("${{")?.strip_suffix("}}")?.trim();
    let rest = inner.strip_prefix("each")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let (var, rest) = rest.trim_start().split_once(char::is_whitespace)?;
    let after = rest.trim_start().strip_prefix("in")?;
    if !after.starts_with(char::is_whitespace) {
        return None;
    }
    let collection = after.trim();
    let named = |s: &str, dots: bool| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (dots && c == '.'))
    };
    (named(var, false) && named(collection, true)).then_some((var, collection))
}

/// The name an Azure Pipelines matrix leg is bound under: not an identifier, so no
/// expression names it; `$(x)` and `$X` look into it ([`WfOuter::leg_var`]). A GitHub
/// job's combination is bound as `matrix` (`${{ matrix.x }}`).
const ADO_LEG: &str = "$matrix";

/// One matrix combination: its keys, each with its span when written here, and values.
type Combo = Vec<(String, Option<Span>, Lit)>;

/// A job's literal `strategy: matrix`: what each leg binds, as `(name, value, which leg)`.
/// Azure Pipelines: a mapping of legs, each a mapping of variables. GitHub Actions: the
/// combinations of the keys' lists, less `exclude`, with `include` added as GitHub adds it
/// (extending each combination its original values agree with, else a combination of its
/// own). `None` when there is no matrix, or it is not written out (an expression, a list
/// not literal): the job is then walked once, its values unknown.
fn matrix_legs(doc: &Document, job: NodeId, scope: &WfOuter<'_>) -> Option<Vec<(&'static str, Lit, String)>> {
    let strategy = doc.resolve(doc.get(job, "strategy")?);
    let matrix = doc.resolve(doc.get(strategy, "matrix")?);
    let entries: Vec<(String, NodeId)> = doc
        .kept_entries(matrix)
        .into_iter()
        .map(|(k, v)| (k.into_owned(), doc.resolve(v)))
        .collect();
    if entries.is_empty() {
        return None;
    }
    let is_map = |v: NodeId| matches!(doc.value(v), Value::Map(_));
    let is_seq = |v: NodeId| matches!(doc.value(v), Value::Seq(_));
    let what = "the job's `strategy: matrix`";
    if entries.iter().all(|(_, v)| is_map(*v))
        && !entries.iter().any(|(k, _)| k == "include" || k == "exclude")
    {
        let count = entries.len();
        return Some(
            entries
                .iter()
                .enumerate()
                .map(|(i, (leg, v))| {
                    let note = format!("made by leg `{leg}` ({} of {count}) of {what}", i + 1);
                    (ADO_LEG, scope.lit(*v, what, 0), note)
                })
                .collect(),
        );
    }
    // GitHub: every value a list (`include`/`exclude` lists of mappings).
    if !entries.iter().all(|(_, v)| is_seq(*v)) {
        return None;
    }
    let text = |l: &Lit| match l {
        Lit::One(ScriptVal::Known { text, .. }) => Some(text.clone()),
        _ => None,
    };
    let get = |combo: &[(String, Option<Span>, Lit)], k: &str| {
        combo.iter().find(|(n, ..)| n == k).and_then(|(.., v)| text(v))
    };
    let mut combos: Vec<Combo> = vec![Vec::new()];
    let mut keys = Vec::new();
    for (key, v) in entries.iter().filter(|(k, _)| k != "include" && k != "exclude") {
        let Lit::List(values) = scope.lit(*v, what, 0) else {
            return None;
        };
        if combos.len().saturating_mul(values.len()) > MAX_MODULE_CALLS {
            return None;
        }
        combos = combos
            .iter()
            .flat_map(|c| {
                values.iter().map(move |value| {
                    let mut c = c.clone();
                    c.push((key.clone(), None, value.clone()));
                    c
                })
            })
            .collect();
        keys.push(key.clone());
    }
    if keys.is_empty() {
        combos.clear();
    }
    let objects = |key: &str| -> Option<Vec<Combo>> {
        let Some((_, v)) = entries.iter().find(|(k, _)| k == key) else {
            return Some(Vec::new());
        };
        match scope.lit(*v, what, 0) {
            Lit::List(items) => items
                .into_iter()
                .map(|i| match i {
                    Lit::Object(fields) => Some(fields),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    };
    for ex in objects("exclude")? {
        combos.retain(|c| {
            !ex.iter()
                .all(|(k, _, v)| text(v).is_some() && get(c, k) == text(v))
        });
    }
    let original = combos.len();
    for inc in objects("include")? {
        let mut matched = false;
        for c in combos.iter_mut().take(original) {
            let agrees = inc
                .iter()
                .filter(|(k, ..)| keys.contains(k))
                .all(|(k, _, v)| text(v).is_some() && get(c, k) == text(v));
            if agrees {
                matched = true;
                for (k, span, v) in &inc {
                    if !keys.contains(k) {
                        c.retain(|(n, ..)| n != k);
                        c.push((k.clone(), *span, v.clone()));
                    }
                }
            }
        }
        if !matched {
            combos.push(inc);
        }
        if combos.len() > MAX_MODULE_CALLS {
            return None;
        }
    }
    let count = combos.len();
    Some(
        combos
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    "matrix",
                    Lit::Object(c),
                    format!("made by combination {} of {count} of {what}", i + 1),
                )
            })
            .collect(),
    )
}

/// What one read of a CI file may still follow: the files being read (a call of one of
/// them, a cycle, is skipped) and how many template calls remain.
struct Calls {
    chain: Vec<PathBuf>,
    budget: usize,
}

impl Calls {
    /// One loop item or matrix leg expanded, if the file's budget has one left: it walks
    /// what is inside once more, so the walk may visit `nodes` more (the document's count).
    fn take(&mut self, limit: &mut usize, nodes: usize) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        *limit = limit.saturating_add(nodes);
        true
    }
}

/// A path as one key, whatever the directory it was written from.
fn path_key(p: &Path) -> PathBuf {
    crate::fsio::absolute(p, &std::env::current_dir().unwrap_or_default())
}

/// Variables templates read for one file at most.
const MAX_TEMPLATES: usize = 8;

/// The variables of the variables templates `doc` includes, read inside the project
/// (a path relative to the file, or to the repository's root when it starts with `/`).
/// Templates included under `${{ if … }}:` / `${{ elseif … }}:` / `${{ else }}:` entries
/// that follow one another are branches: a variable is known when every branch sets it to
/// the same value, and unknown, saying which files set it, otherwise ([`with_unset_branch`]).
fn template_variables(input: &Input<'_>, doc: &Document) -> HashMap<String, ScriptVal> {
    let mut out = HashMap::new();
    let mut count = 0;
    for (i, node) in doc.nodes.iter().enumerate() {
        let Value::Map(_) = &node.value else { continue };
        let Some(Value::Seq(items)) = doc
            .get(NodeId(i as u32), "variables")
            .map(|v| doc.value(doc.resolve(v)))
        else {
            continue;
        };
        // The branches of the conditional entries met since the last other entry.
        let mut branches: Vec<Vec<(String, ScriptVal, String)>> = Vec::new();
        for &item in items {
            let item = doc.resolve(item);
            match condition_branch(doc, item) {
                Some(inner) => {
                    let mut set = Vec::new();
                    for path in inner.iter().filter_map(|&t| template_path(doc, t)) {
                        if count < MAX_TEMPLATES {
                            count += 1;
                            set.extend(variables_template(input, path));
                        }
                    }
                    branches.push(set);
                }
                None => {
                    merge_branches(std::mem::take(&mut branches), &mut out);
                    let Some(path) = template_path(doc, item) else {
                        continue;
                    };
                    if count >= MAX_TEMPLATES {
                        continue;
                    }
                    count += 1;
                    for (name, value, _) in variables_template(input, path) {
                        out.insert(name, value);
                    }
                }
            }
        }
        merge_branches(branches, &mut out);
    }
    out
}

/// A lone `${{ if … }}:` may not apply: the variables it sets are then not set, a branch
/// of its own. Two entries or more (`if`/`else`, the mlops-v2 pair `if eq(…)`/`if ne(…)`)
/// are taken as covering every run.
fn with_unset_branch(
    mut branches: Vec<Vec<(String, ScriptVal, String)>>,
) -> Vec<Vec<(String, ScriptVal, String)>> {
    if branches.len() == 1 {
        branches.push(Vec::new());
    }
    branches
}

/// The entries under an item of `variables:` that is a condition (`- ${{ if … }}:` with a
/// list), nested conditions flattened into it.
fn condition_branch(doc: &Document, item: NodeId) -> Option<Vec<NodeId>> {
    let value = condition_entry(doc, item)?;
    // Nested conditions are walked with a stack of their entries, not by recursion (the
    // file decides how deep they go).
    // Each list being read, with the index of its next item: the entries come out in the
    // file's order.
    let mut out = Vec::new();
    let mut stack = vec![(value, 0usize)];
    while let Some((list, next)) = stack.pop() {
        let Value::Seq(inner) = doc.value(doc.resolve(list)) else {
            continue;
        };
        let Some(&item) = inner.get(next) else {
            continue;
        };
        stack.push((list, next + 1));
        let item = doc.resolve(item);
        match condition_entry(doc, item) {
            Some(nested) => stack.push((nested, 0)),
            None => out.push(item),
        }
    }
    Some(out)
}

/// The list under an item that is a condition (`${{ if … }}:`, `${{ else }}:`).
fn condition_entry(doc: &Document, item: NodeId) -> Option<NodeId> {
    let Value::Map(entries) = doc.value(item) else {
        return None;
    };
    let [entry] = entries.as_slice() else {
        return None;
    };
    doc.key_string(entry.key)
        .trim_start()
        .starts_with("${{")
        .then_some(entry.value)
}

/// The file an item of `variables:` includes (`- template: vars.yml`, `vars.yml@self`),
/// unless it is of another repository (`@templates`) or an expression (`$`).
fn template_path(doc: &Document, item: NodeId) -> Option<&str> {
    doc.get(item, "template")
        .and_then(|t| str_of(doc, t))
        .map(without_self)
        .filter(|p| !p.contains(['@', '$']))
}

/// An Azure Pipelines template path without its `@self` (the repository being built:
/// the same file as without it).
fn without_self(written: &str) -> &str {
    written.strip_suffix("@self").unwrap_or(written)
}

/// The variables a branch sets decide a value only where every branch agrees on it.
fn merge_branches(branches: Vec<Vec<(String, ScriptVal, String)>>, out: &mut HashMap<String, ScriptVal>) {
    if branches.is_empty() {
        return;
    }
    let branches = with_unset_branch(branches);
    let mut names: Vec<&str> = branches.iter().flatten().map(|(n, ..)| n.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        // The last value each branch gives the name (a later template wins).
        let each: Vec<Option<&(String, ScriptVal, String)>> = branches
            .iter()
            .map(|b| b.iter().rev().find(|(n, ..)| n == name))
            .collect();
        let first = each[0].map(|(_, v, _)| v);
        let agreed = first
            .filter(|v| matches!(v, ScriptVal::Known { .. }))
            .filter(|_| each.iter().all(|e| e.map(|(_, v, _)| v) == first));
        let value = if let Some(v) = agreed {
            v.clone()
        } else {
            let mut files: Vec<&str> = each.iter().flatten().map(|(.., f)| f.as_str()).collect();
            files.dedup();
            let files = files
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ");
            ScriptVal::Dynamic(if each.iter().all(Option::is_some) {
                format!("`{name}` is set differently under the conditions of `variables:` ({files})")
            } else {
                format!("`{name}` is set only under a condition of `variables:` ({files})")
            })
        };
        out.insert(name.to_string(), value);
    }
}

/// The variables one variables template sets, each with the template as shown.
fn variables_template(input: &Input<'_>, path: &str) -> Vec<(String, ScriptVal, String)> {
    let file =
        pipeline_file(input, path).unwrap_or_else(|| input.path.parent().unwrap_or(Path::new("")).join(path));
    let file = crate::fsio::normalize(&file);
    let display = crate::discover::display_of(&file);
    let Some(source) = input.files.read(&file, &display) else {
        return Vec::new();
    };
    let loaded = crate::load::parse_text(
        &display,
        source.text.clone(),
        crate::load::Format::Yaml,
        &Default::default(),
    );
    let mut out = Vec::new();
    for t in &loaded.documents {
        let Some(vars) = t.root.and_then(|r| t.get(r, "variables")) else {
            continue;
        };
        let mut list = Vec::new();
        variables(t, vars, &mut list);
        for (name, v) in list {
            let value = match t.value(t.resolve(v)) {
                Value::Str(x) if !x.contains('$') => ScriptVal::known(x.to_string(), None),
                Value::Int(i) => ScriptVal::known(i.to_string(), None),
                Value::Bool(b) => ScriptVal::known(b.to_string(), None),
                _ => ScriptVal::Dynamic(format!("`{name}` is set from an expression in `{display}`")),
            };
            out.push((name, value, display.clone()));
        }
    }
    out
}

/// The reader's words that a step running a file of the project holds (`python x.py`,
/// `bash x.sh`, `python -m ml.build`), which an Azure ML job's `command:` holds too.
const RUNS: &[&str] = &[".py", ".sh", "python -m ", "python3 -m ", "python $", "python3 $"];

/// What a CI file's steps are written with: a YAML file that mentions `.py` or `.sh` but
/// none of the reader's other needles (an Azure ML job's `command: python train.py`) is
/// read only if it has steps or scripts that may run one.
const CI_MARKERS: &[&str] = &[
    "steps:",
    "run:",
    // Not `scoring_script:` (an Azure ML deployment's).
    " script:",
    "\nscript:",
    "bash:",
    "pwsh:",
    "powershell:",
    "inlineScript:",
    "Inline:",
];

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_bytes();
    let runs_only = !READER
        .needles
        .iter()
        .any(|n| !RUNS.contains(n) && memchr::memmem::find(text, n.as_bytes()).is_some());
    if runs_only && !super::common::mentions(text, CI_MARKERS) {
        return;
    }
    let mut calls = Calls {
        chain: vec![path_key(input.path)],
        budget: MAX_MODULE_CALLS,
    };
    // A file that is not valid YAML (a syntax error, or a construct YAML loaders refuse)
    // is not run by GitHub or Azure Pipelines, and its tree holds only what came before
    // the error: it is not read, and is reported when what could be read defines a
    // compute (audit 29, defect 10), as other files beyond a reader's limits are.
    if input.documents.iter().any(|d| d.partial) {
        let mut seen = Definitions::default();
        read_file(input, &Given::new(), &mut calls, &mut seen);
        if !seen.computes.is_empty()
            || super::common::mentions(input.source.text.as_bytes(), super::common::COMMAND_WORDS)
        {
            out.unread = Some("it is not valid YAML".into());
            out.unread_defines = true;
        }
        return;
    }
    read_file(input, &Given::new(), &mut calls, out);
}

/// The definitions of every document of a file, read with the values `given` by its call.
fn read_file(input: &Input<'_>, given: &Given, calls: &mut Calls, out: &mut Definitions) {
    for doc in input.documents {
        let Some(root) = doc.root else { continue };
        if !matches!(doc.value(root), Value::Map(_)) {
            continue;
        }
        read_document(input, doc, root, given, calls, out);
    }
}

/// `inputs.<name>` (the name).
fn input_name(t: &str) -> Option<&str> {
    let n = t.trim().strip_prefix("inputs.")?;
    (!n.is_empty()
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
    .then_some(n)
}

/// A single-quoted string of an expression (its text).
fn quoted(t: &str) -> Option<&str> {
    let inner = t.trim().strip_prefix('\'')?.strip_suffix('\'')?;
    (!inner.contains('\'')).then_some(inner)
}

/// Whether a job or step of a GitHub reusable workflow or composite action, read for a call,
/// does not run for it: its `if:` is `inputs.x`, `!inputs.x`, `inputs.x == 'v'` or
/// `inputs.x != 'v'` (with or without `${{ }}`), and the call's value of `x` makes it
/// false — the value passed (`with:`), else the input's default, else the empty value of
/// its type (`''`, `false`, `0`), as GitHub gives an input that is neither. `None` when
/// not known statically (any other condition, a value not known statically).
fn skipped_for_the_call(doc: &Document, root: NodeId, node: NodeId, given: &Given) -> Option<bool> {
    let cond = str_of(doc, doc.get(node, "if")?)?.trim();
    let expr = cond
        .strip_prefix("${{")
        .and_then(|c| c.strip_suffix("}}"))
        .unwrap_or(cond)
        .trim();
    if expr.contains("${{") {
        return None;
    }

    // (input, what it is compared with: None for its truth, and whether the test is negated)
    let compared = [("==", false), ("!=", true)]
        .into_iter()
        .find_map(|(op, negated)| Some((expr.split_once(op)?, negated)));
    let (name, compared, negated) = match compared {
        Some(((a, b), negated)) => {
            let (n, lit) = match (input_name(a), quoted(b), input_name(b), quoted(a)) {
                (Some(n), Some(l), ..) | (_, _, Some(n), Some(l)) => (n, l),
                _ => return None,
            };
            (n, Some(lit), negated)
        }
        None => match expr.strip_prefix('!') {
            Some(rest) => (input_name(rest)?, None, true),
            None => (input_name(expr)?, None, false),
        },
    };
    let (kind, default) = declared_input(doc, root, name)?;
    // The call's value: passed, else the default, else the type's empty value.
    let value = match given.get(name) {
        Some(Lit::One(ScriptVal::Known { text, .. })) => InputValue::of_text(text, kind)?,
        Some(_) => return None,
        None => match default {
            Some(d) => InputValue::of_node(doc, d, kind)?,
            None => InputValue::empty(kind),
        },
    };
    let holds = match compared {
        // GitHub compares strings without regard to case; another type with a string is
        // not read.
        Some(lit) => match &value {
            InputValue::Str(s) => s.eq_ignore_ascii_case(lit) != negated,
            _ => return None,
        },
        None => value.truthy() != negated,
    };
    Some(!holds)
}

/// A value of an input, as GitHub's expressions see it.
enum InputValue {
    Str(String),
    Bool(bool),
    Num(f64),
}

impl InputValue {
    fn empty(kind: &str) -> Self {
        match kind {
            "boolean" => InputValue::Bool(false),
            "number" => InputValue::Num(0.0),
            _ => InputValue::Str(String::new()),
        }
    }

    fn of_text(text: &str, kind: &str) -> Option<Self> {
        if text.contains("${{") {
            return None;
        }
        Some(match kind {
            "boolean" => match text.trim() {
                "true" => InputValue::Bool(true),
                "false" => InputValue::Bool(false),
                _ => return None,
            },
            "number" => InputValue::Num(text.trim().parse().ok()?),
            _ => InputValue::Str(text.to_string()),
        })
    }

    fn of_node(doc: &Document, node: NodeId, kind: &str) -> Option<Self> {
        match doc.value(doc.resolve(node)) {
            Value::Str(s) => Self::of_text(s, kind),
            Value::Bool(b) => Self::of_text(&b.to_string(), kind),
            Value::Int(i) => Self::of_text(&i.to_string(), kind),
            _ => None,
        }
    }

    fn truthy(&self) -> bool {
        match self {
            InputValue::Str(s) => !s.is_empty(),
            InputValue::Bool(b) => *b,
            InputValue::Num(n) => *n != 0.0 && !n.is_nan(),
        }
    }
}

/// The type (`string` when not written) and default of the input `name` the document
/// declares: a reusable workflow's `on: workflow_call: inputs:`, or a composite action's
/// `inputs:` (whose inputs are strings). `None` when it declares no such input.
fn declared_input(doc: &Document, root: NodeId, name: &str) -> Option<(&'static str, Option<NodeId>)> {
    let on = doc.get(root, "on").or_else(|| doc.get(root, "True"));
    let (inputs, action) = match on.and_then(|o| doc.get(doc.resolve(o), "workflow_call")) {
        Some(call) => (doc.get(doc.resolve(call), "inputs")?, false),
        None if doc.get(root, "runs").is_some() => (doc.get(root, "inputs")?, true),
        None => return None,
    };
    let spec = doc.resolve(doc.get(doc.resolve(inputs), name)?);
    if !matches!(doc.value(spec), Value::Map(_)) {
        return None;
    }
    let kind = match doc.get(spec, "type").and_then(|t| str_of(doc, t)) {
        _ if action => "string",
        None | Some("string") => "string",
        Some("boolean") => "boolean",
        Some("number") => "number",
        Some(_) => return None,
    };
    Some((kind, doc.get(spec, "default")))
}

/// A pipeline task's name (`default` when not written as a string) and the span of the
/// whole step, from its `task:` key: where the definitions it makes start.
fn task_and_span<'d>(doc: &'d Document, node: NodeId, default: &'d str) -> (&'d str, Span) {
    let task = doc
        .get(node, "task")
        .and_then(|t| str_of(doc, t))
        .unwrap_or(default);
    let whole = doc.get_entry(node, "task").map_or(doc.node(node).span, |e| {
        doc.node(e.key).span.cover(doc.node(node).span)
    });
    (task, whole)
}

fn str_of(doc: &Document, id: NodeId) -> Option<&str> {
    match doc.value(doc.resolve(id)) {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

/// The defaults of a parameter list (`- name: x\n  default: y`) or map (`x: y`, or `x:
/// {default: y}`).
fn defaults(doc: &Document, node: NodeId, out: &mut Vec<(String, NodeId)>) {
    let node = doc.resolve(node);
    match doc.value(node) {
        Value::Seq(items) => {
            for &item in items {
                let item = doc.resolve(item);
                if let (Some(n), Some(d)) = (
                    doc.get(item, "name").and_then(|n| str_of(doc, n)),
                    doc.get(item, "default"),
                ) {
                    out.push((n.to_string(), d));
                }
            }
        }
        Value::Map(entries) => {
            for e in entries {
                let key = doc.key_string(e.key).into_owned();
                let v = doc.resolve(e.value);
                match doc.value(v) {
                    Value::Map(_) => {
                        if let Some(d) = doc.get(v, "default") {
                            out.push((key, d));
                        }
                    }
                    _ => out.push((key, v)),
                }
            }
        }
        _ => {}
    }
}

/// The `variables:` of a mapping: a map, or a list of `name`/`value` (groups and templates
/// are not read: what they set stays unknown).
fn variables(doc: &Document, node: NodeId, out: &mut Vec<(String, NodeId)>) {
    let node = doc.resolve(node);
    match doc.value(node) {
        Value::Map(entries) => {
            for e in entries {
                out.push((doc.key_string(e.key).into_owned(), e.value));
            }
        }
        Value::Seq(items) => {
            for &item in items {
                let item = doc.resolve(item);
                if let (Some(n), Some(v)) = (
                    doc.get(item, "name").and_then(|n| str_of(doc, n)),
                    doc.get(item, "value"),
                ) {
                    out.push((n.to_string(), v));
                }
            }
        }
        _ => {}
    }
}

fn env_of(doc: &Document, node: NodeId, out: &mut Vec<(String, NodeId)>) {
    let node = doc.resolve(node);
    if let Value::Map(entries) = doc.value(node) {
        for e in entries {
            out.push((doc.key_string(e.key).into_owned(), e.value));
        }
    }
}

/// A node still to walk: the node, the frame it sits in, the defaults over it
/// ([`RunDefaults`]), the `${{ each }}` item it is expanded for.
type Visit = (NodeId, Option<usize>, RunDefaults, Option<usize>);

/// What the mappings above a step say of how its script runs.
#[derive(Clone, Copy, Default)]
struct RunDefaults {
    /// GitHub's `defaults: run: working-directory:` (the job's wins).
    dir: Option<NodeId>,
    /// The shell of a GitHub `run:` without `shell:`: the job's, else the workflow's
    /// `defaults: run: shell:`, else the runner's default (pwsh on a Windows runner).
    run: Option<Dialect>,
    /// The shell of an Azure Pipelines `script:`: cmd on a Windows agent.
    script: Option<Dialect>,
}

/// The shell a GitHub `shell:` value names (`pwsh`, `bash {0}`): PowerShell, cmd, else bash
/// (`sh`, `python` and custom shells are read as bash, as a step's own `shell:` is).
fn shell_named(value: &str) -> Dialect {
    let first = value.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    match first.as_str() {
        "pwsh" | "powershell" => Dialect::PowerShell,
        "cmd" => Dialect::Cmd,
        _ => Dialect::Bash,
    }
}

/// Whether a runner label or agent image names Windows (`windows-latest`, `windows-2022`,
/// `vs2017-win2016`); an expression (`${{ matrix.os }}`) or a self-hosted label does not.
fn is_windows_image(label: &str) -> bool {
    let l = label.trim().to_ascii_lowercase();
    !l.contains("${{")
        && !l.contains("$(")
        && (l == "windows" || l.starts_with("windows-") || (l.starts_with("vs20") && l.contains("-win")))
}

/// The defaults `map` (a workflow, a job, a pipeline stage) sets over `outer` for what is
/// inside it (audit 29, defect 6): its `defaults: run:` (`working-directory`, `shell`);
/// GitHub's `runs-on` naming a Windows image (one label, or a list of labels one of which
/// is such a name: a self-hosted runner's `windows` label) makes pwsh the default of `run:`
/// when no `defaults` says otherwise; Azure Pipelines' `pool: vmImage:` naming one runs
/// `script:` with cmd.exe.
fn run_defaults(doc: &Document, map: NodeId, outer: RunDefaults) -> RunDefaults {
    let run = doc
        .get(map, "defaults")
        .and_then(|d| doc.get(doc.resolve(d), "run"))
        .map(|r| doc.resolve(r));
    let dir = run.and_then(|r| doc.get(r, "working-directory")).or(outer.dir);
    let own_shell = run
        .and_then(|r| doc.get(r, "shell"))
        .and_then(|s| str_of(doc, s))
        .map(shell_named);
    let windows_runner = doc.get(map, "runs-on").is_some_and(|r| {
        let r = doc.resolve(r);
        match doc.value(r) {
            Value::Str(s) => is_windows_image(s),
            Value::Seq(items) => items
                .iter()
                .any(|&i| str_of(doc, i).is_some_and(|l| l.trim().eq_ignore_ascii_case("windows"))),
            _ => false,
        }
    });
    let run_shell = own_shell
        .or(outer.run)
        .or(windows_runner.then_some(Dialect::PowerShell));
    let windows_agent = doc
        .get(map, "pool")
        .map(|p| doc.resolve(p))
        .and_then(|p| doc.get(p, "vmImage"))
        .and_then(|v| str_of(doc, v))
        .map(is_windows_image);
    let script = match windows_agent {
        Some(true) => Some(Dialect::Cmd),
        Some(false) => None,
        None => outer.script,
    };
    RunDefaults {
        dir,
        run: run_shell,
        script,
    }
}

fn read_document(
    input: &Input<'_>,
    doc: &Document,
    root: NodeId,
    given: &Given,
    calls: &mut Calls,
    out: &mut Definitions,
) {
    let mut params = Vec::new();
    let mut inputs = Vec::new();
    if let Some(p) = doc.get(root, "parameters") {
        defaults(doc, p, &mut params);
    }
    // `on:` (which YAML 1.1 may read as `true:`): workflow_dispatch and workflow_call inputs.
    let on = doc.get(root, "on").or_else(|| doc.get(root, "True"));
    if let Some(on) = on.map(|o| doc.resolve(o))
        && let Value::Map(_) = doc.value(on)
    {
        for trigger in ["workflow_dispatch", "workflow_call"] {
            if let Some(i) = doc.get(on, trigger).and_then(|t| doc.get(t, "inputs")) {
                defaults(doc, i, &mut inputs);
            }
        }
    }
    let template_vars = template_variables(input, doc);
    let template_env = template_vars
        .iter()
        .map(|(n, v)| (n.replace('.', "_").to_ascii_uppercase(), v.clone()))
        .collect();
    let globals = Globals {
        params: params.into_iter().collect(),
        inputs: inputs.into_iter().collect(),
        template_vars,
        template_env,
        given: given.clone(),
        param_lits: RefCell::new(HashMap::new()),
        lit_budget: Cell::new(MAX_LIT_NODES),
        py_budget: Cell::new(super::deploy::PY_RUN_BYTES),
        sh_budget: Cell::new(super::deploy::SH_RUN_BYTES),
        checkout: Checkout::of(input),
    };
    let mut frames: Vec<Frame> = Vec::new();
    let mut binds: Vec<Bind> = Vec::new();
    let memo = RefCell::new(HashMap::new());
    // An Azure pipeline's `extends: template:` is a call of that template, made at `extends`.
    let extends = doc
        .get_entry(root, "extends")
        .map(|e| (doc.resolve(e.value), doc.node(e.key).span.start));
    let mut stack: Vec<Visit> = vec![(root, None, RunDefaults::default(), None)];
    // Read for a call (a reusable workflow, an action, a template), not on its own.
    let in_call = calls.chain.len() > 1;
    let mut visited = 0usize;
    // A tree of aliases may be wider than the file: visit no more than its nodes, once
    // more for each expanded loop item.
    let mut limit = doc.nodes.len();
    // The `inputs:` of a `PowerShell` task, whose `script:` was read as PowerShell.
    let mut powershell_inputs: HashSet<NodeId> = HashSet::new();
    // The `steps:` lists found so far.
    let mut steps_lists: HashSet<NodeId> = HashSet::new();
    while let Some((node, frame, defaults, bind)) = stack.pop() {
        visited += 1;
        if visited > limit {
            break;
        }
        match doc.value(node) {
            Value::Seq(items) => {
                let steps = steps_lists.contains(&node).then(|| {
                    let mut cx = StepsCx {
                        frames: &mut frames,
                        binds: &binds,
                        globals: &globals,
                        memo: &memo,
                    };
                    github_env_frames(input, doc, items, frame, defaults, bind, &mut cx)
                });
                match steps.flatten() {
                    Some(step_frames) => {
                        for (&item, f) in items.iter().zip(step_frames).rev() {
                            stack.push((item, f, defaults, bind));
                        }
                    }
                    None => {
                        for &item in items.iter().rev() {
                            stack.push((item, frame, defaults, bind));
                        }
                    }
                }
            }
            Value::Map(entries) => {
                // A job or step of a reusable workflow (or composite action) that does not
                // run for the call reading it (eval7, case 02).
                if in_call
                    && ["run", "uses", "steps"]
                        .iter()
                        .any(|k| doc.get(node, k).is_some())
                    && skipped_for_the_call(doc, root, node, given) == Some(true)
                {
                    continue;
                }
                // A job's (or composite action's) steps: what each writes to
                // `$GITHUB_ENV` is seen by those after it.
                if let Some(steps) = doc.get(node, "steps").map(|s| doc.resolve(s))
                    && matches!(doc.value(steps), Value::Seq(_))
                {
                    steps_lists.insert(steps);
                }
                let mut env = Vec::new();
                let mut vars = Vec::new();
                if let Some(e) = doc.get(node, "env") {
                    env_of(doc, e, &mut env);
                }
                if let Some(v) = doc.get(node, "variables") {
                    variables(doc, v, &mut vars);
                }
                let here = if env.is_empty() && vars.is_empty() {
                    frame
                } else {
                    let var_env = vars
                        .iter()
                        .map(|(n, v)| (n.replace('.', "_").to_ascii_uppercase(), *v))
                        .collect();
                    frames.push(Frame {
                        env: env.into_iter().collect(),
                        vars: vars.into_iter().collect(),
                        var_env,
                        ..Frame::below(frame)
                    });
                    Some(frames.len() - 1)
                };
                // A workflow's or job's `defaults: run:` (the job's wins), its runner.
                let defaults = run_defaults(doc, node, defaults);
                let scope = WfOuter {
                    doc,
                    frames: &frames,
                    frame: here,
                    binds: &binds,
                    bind,
                    globals: &globals,
                    depth: Cell::new(0),
                    memo: &memo,
                    work_dir: None,
                };
                let before = out.computes.len();
                // A template (reusable workflow) of the project is read through its file;
                // another is known by the mlops templates' parameters.
                let site = Site {
                    map: node,
                    from: extends.filter(|(map, _)| *map == node).map(|(_, at)| at),
                };
                // A job's literal matrix (read before the call: a job that calls a
                // reusable workflow with `${{ matrix.x }}` calls it once per leg).
                let legs = matrix_legs(doc, node, &scope);
                let call_per_leg = legs.is_some() && doc.get(node, "uses").is_some();
                if !call_per_leg {
                    if let Some(defs) = local_call(input, doc, site, &scope, calls) {
                        out.computes.extend(defs);
                    } else if let Some(def) = template_call(input, doc, site, &scope) {
                        out.computes.push(def);
                    } else if let Some(def) = aml_compute_action(input, doc, node, &scope) {
                        out.computes.push(def);
                    }
                }
                // A `PowerShell` task's inline `script:` is PowerShell (a `Bash` task's,
                // with the same inputs, is bash: the task says which).
                let task = doc.get(node, "task").and_then(|t| str_of(doc, t));
                if task.is_some_and(|t| t.to_ascii_lowercase().starts_with("powershell@")) {
                    let inputs = doc.get(node, "inputs").map(|i| doc.resolve(i));
                    if let Some(v) = inputs.and_then(|i| doc.get(i, "script")) {
                        let dir = inputs.and_then(|i| azure_work_dir(doc, i));
                        let scope = scope.in_dir(work_dir(input, doc, dir));
                        read_script(input, doc, v, Dialect::PowerShell, true, &scope, out);
                        powershell_inputs.extend(inputs);
                    }
                }
                // An `AzureResourceManagerTemplateDeployment` task: its template deployed
                // with the parameters it passes.
                if task.is_some_and(|t| {
                    t.to_ascii_lowercase()
                        .starts_with("azureresourcemanagertemplatedeployment@")
                }) && let Some(inputs) = doc.get(node, "inputs").map(|i| doc.resolve(i))
                {
                    out.computes.extend(template_task(input, doc, node, inputs));
                }
                // A Terraform task (`TerraformTaskV4@4`, `TerraformCLI@0`) that plans or
                // applies: the root module of its `workingDirectory`, with its options' variables.
                if task.is_some_and(|t| {
                    let t = t.to_ascii_lowercase();
                    t.starts_with("terraformtaskv") || t.starts_with("terraformcli@")
                }) && let Some(inputs) = doc.get(node, "inputs").map(|i| doc.resolve(i))
                {
                    out.computes.extend(terraform_task(input, doc, node, inputs));
                }
                // An `AzureCLI` task's bash script file run with its `arguments`.
                if let Some(path) = doc.get(node, "scriptPath")
                    && runs_bash_file(doc, node, path)
                {
                    let dir = azure_work_dir(doc, node);
                    let scope = scope.in_dir(work_dir(input, doc, dir));
                    out.computes
                        .extend(script_path_run(input, doc, node, path, &scope));
                }
                for (key, dialect, macros) in script_keys(doc, node, defaults) {
                    if key == "script" && powershell_inputs.contains(&node) {
                        continue;
                    }
                    if let Some(v) = doc.get(node, key) {
                        // GitHub's `run:` runs in its `working-directory:` or the default;
                        // an Azure Pipelines script step or task in its `workingDirectory:`.
                        let dir = match key {
                            "run" => doc.get(node, "working-directory").or(defaults.dir),
                            _ => azure_work_dir(doc, node),
                        };
                        // A GitHub workflow's `run:` with no working directory runs at
                        // the repository's root (`$GITHUB_WORKSPACE`).
                        let wd = match dir {
                            None if key == "run" => github_workspace(input),
                            dir => work_dir(input, doc, dir),
                        };
                        let scope = scope.in_dir(wd);
                        read_script(input, doc, v, dialect, macros, &scope, out);
                    }
                }
                // What a definition made inside a loop's item says of it.
                if bind.is_some() {
                    let mut at = bind;
                    let mut notes = Vec::new();
                    while let Some(b) = at.map(|i| &binds[i]) {
                        notes.push(b.note.clone());
                        at = b.parent;
                    }
                    for def in &mut out.computes[before..] {
                        def.notes.extend(notes.iter().cloned());
                    }
                }
                // A `${{ each x in collection }}:` entry: its value once per item of a
                // collection known here, else once as written.
                let mut children = Vec::new();
                for e in entries.iter().rev() {
                    let v = e.value;
                    if matches!(doc.value(v), Value::Map(_) | Value::Seq(_)) {
                        let key = doc.key_string(e.key);
                        let each = each_directive(&key).map(|(var, collection)| {
                            let at = super::common::line_of(input.source, doc.node(e.key).span.start);
                            let items = scope.lit_at(collection).and_then(Lit::items);
                            (var.to_string(), format!("`{key}` (line {at})"), items)
                        });
                        children.push((v, each));
                    }
                }
                // A job's literal matrix: what is inside once per leg, the leg bound (and
                // the job's call of a reusable workflow, audit 29 defect 5).
                if let Some(legs) = legs {
                    let mut expanded = Vec::new();
                    for (name, value, note) in legs {
                        let (value, last) = if calls.take(&mut limit, doc.nodes.len()) {
                            (value, false)
                        } else {
                            let why = format!(
                                "{note} and those after it are not expanded (more than {MAX_MODULE_CALLS} template calls, loop items and matrix legs from one file)"
                            );
                            (Lit::One(ScriptVal::Dynamic(why)), true)
                        };
                        binds.push(Bind {
                            parent: bind,
                            name: name.to_string(),
                            value,
                            note,
                        });
                        let leg = Some(binds.len() - 1);
                        if call_per_leg {
                            let scope = WfOuter {
                                doc,
                                frames: &frames,
                                frame: here,
                                binds: &binds,
                                bind: leg,
                                globals: &globals,
                                depth: Cell::new(0),
                                memo: &memo,
                                work_dir: None,
                            };
                            let from = out.computes.len();
                            if let Some(defs) = local_call(input, doc, site, &scope, calls) {
                                out.computes.extend(defs);
                            } else if let Some(def) = template_call(input, doc, site, &scope) {
                                out.computes.push(def);
                            }
                            let notes: Vec<String> = std::iter::successors(leg, |&b| binds[b].parent)
                                .map(|b| binds[b].note.clone())
                                .collect();
                            for def in &mut out.computes[from..] {
                                def.notes.extend(notes.iter().cloned());
                            }
                        }
                        expanded.extend(children.iter().map(|(v, _)| (*v, here, defaults, leg)));
                        if last {
                            break;
                        }
                    }
                    stack.extend(expanded.into_iter().rev());
                    continue;
                }
                for (v, each) in children {
                    let Some((name, label, Some(items))) = each else {
                        stack.push((v, here, defaults, bind));
                        continue;
                    };
                    let count = items.len();
                    let nested = std::iter::successors(bind, |&b| binds[b].parent).count();
                    let mut expanded = Vec::new();
                    for (i, item) in items.into_iter().enumerate() {
                        let (value, last) = if nested >= MAX_MODULE_DEPTH {
                            let why = format!("{label} is inside more than {MAX_MODULE_DEPTH} loops");
                            (Lit::One(ScriptVal::Dynamic(why)), true)
                        } else if calls.take(&mut limit, doc.nodes.len()) {
                            (item, false)
                        } else {
                            let why = format!(
                                "item {} of {label} and those after it are not expanded (more than {MAX_MODULE_CALLS} template calls and loop items from one file)",
                                i + 1
                            );
                            (Lit::One(ScriptVal::Dynamic(why)), true)
                        };
                        binds.push(Bind {
                            parent: bind,
                            name: name.clone(),
                            value,
                            note: format!("made by item {} of {count} of {label}", i + 1),
                        });
                        expanded.push((v, here, defaults, Some(binds.len() - 1)));
                        if last {
                            break;
                        }
                    }
                    stack.extend(expanded.into_iter().rev());
                }
            }
            _ => {}
        }
    }
}

/// What [`github_env_frames`] adds frames to and evaluates in.
struct StepsCx<'a, 'f> {
    frames: &'f mut Vec<Frame>,
    binds: &'a [Bind],
    globals: &'a Globals,
    memo: &'a RefCell<HashMap<(NodeId, Option<usize>), ScriptVal>>,
}

/// How many steps of one job that write to `$GITHUB_ENV` are followed, and how many
/// names they set: the values later steps see are copied once per writing step.
const MAX_GITHUB_ENV_STEPS: usize = 64;
const MAX_GITHUB_ENV_NAMES: usize = 256;

/// The frame each of a job's `steps` runs in: `frame` (the job's), below what the steps
/// before it wrote to `$GITHUB_ENV` ([`github_env::writes`]); `None` when no step's
/// `run:` names `GITHUB_ENV`. A write by a step with an `if:` may not happen: the name's
/// value is then unknown to the steps after it.
fn github_env_frames(
    input: &Input<'_>,
    doc: &Document,
    steps: &[NodeId],
    frame: Option<usize>,
    defaults: RunDefaults,
    bind: Option<usize>,
    cx: &mut StepsCx<'_, '_>,
) -> Option<Vec<Option<usize>>> {
    let run = |step: NodeId| {
        let step = doc.resolve(step);
        let run = doc.resolve(doc.get(step, "run")?);
        match doc.value(run) {
            Value::Str(t) if github_env::may_write(t) => Some((step, run)),
            _ => None,
        }
    };
    if !steps.iter().any(|&s| run(s).is_some()) {
        return None;
    }
    let mut seen: HashMap<String, ScriptVal> = HashMap::new();
    let mut current = frame;
    let mut writers = 0usize;
    let mut out = Vec::with_capacity(steps.len());
    for &step in steps {
        out.push(current);
        let Some((step, node)) = run(step) else {
            continue;
        };
        let bash = script_keys(doc, step, run_defaults(doc, step, defaults))
            .iter()
            .any(|(k, d, _)| *k == "run" && *d == Dialect::Bash);
        let n = doc.node(node);
        let Some((start, end, newlines)) =
            script_region(input.source.text.as_str(), n.span, n.style).filter(|_| bash)
        else {
            continue;
        };
        if writers == MAX_GITHUB_ENV_STEPS {
            // Beyond the steps followed, any name may have been written again.
            let why = format!(
                "more than {MAX_GITHUB_ENV_STEPS} steps of the job write to `$GITHUB_ENV`, and amlint follows the first {MAX_GITHUB_ENV_STEPS}"
            );
            for v in seen.values_mut() {
                *v = ScriptVal::Dynamic(why.clone());
            }
        } else {
            // The step's own `env:`, which its script sees.
            let mut env = Vec::new();
            if let Some(e) = doc.get(step, "env") {
                env_of(doc, e, &mut env);
            }
            let scope_frame = if env.is_empty() {
                current
            } else {
                cx.frames.push(Frame {
                    env: env.into_iter().collect(),
                    ..Frame::below(current)
                });
                Some(cx.frames.len() - 1)
            };
            let scope = WfOuter {
                doc,
                frames: cx.frames,
                frame: scope_frame,
                binds: cx.binds,
                bind,
                globals: cx.globals,
                depth: Cell::new(0),
                memo: cx.memo,
                work_dir: None,
            };
            let written = github_env::writes(&input.source.text, start, end, newlines, &scope);
            if written.is_empty() {
                continue;
            }
            let condition = doc.get(step, "if").map(|c| {
                let c = doc.resolve(c);
                str_of(doc, c).map_or_else(|| "a condition".to_string(), |t| format!("`{}`", t.trim()))
            });
            let id = doc.get(step, "id").and_then(|i| str_of(doc, doc.resolve(i)));
            for github_env::Write { file, name, value } in written {
                // An output is `steps.<id>.outputs.<name>` (no environment variable has a
                // `.` in its name); a step without an `id` cannot be asked for its outputs.
                let key = match (file, id) {
                    (github_env::File::Env, _) => name.clone(),
                    (github_env::File::Output, Some(id)) => format!("steps.{id}.outputs.{name}"),
                    (github_env::File::Output, None) => continue,
                };
                if !seen.contains_key(&key) && seen.len() >= MAX_GITHUB_ENV_NAMES {
                    continue;
                }
                let value = match &condition {
                    Some(cond) => ScriptVal::Dynamic(format!(
                        "`{name}` is written to `{}` by a step that runs only if {cond}",
                        file.variable()
                    )),
                    None => value,
                };
                seen.insert(key, value);
            }
        }
        writers += 1;
        cx.frames.push(Frame {
            github_env: seen.clone(),
            ..Frame::below(frame)
        });
        current = Some(cx.frames.len() - 1);
        if writers > MAX_GITHUB_ENV_STEPS {
            // The last frame says it all: no more copies.
            out.extend(std::iter::repeat_n(current, steps.len() - out.len()));
            break;
        }
    }
    Some(out)
}

/// The keys of `map` that hold scripts, each with its shell and whether `$(name)` is an
/// Azure Pipelines macro.
fn script_keys(doc: &Document, map: NodeId, defaults: RunDefaults) -> Vec<(&'static str, Dialect, bool)> {
    let lower = |k: &str| {
        doc.get(map, k)
            .and_then(|n| str_of(doc, n))
            .map(str::to_ascii_lowercase)
    };
    let mut keys = Vec::new();
    // GitHub Actions: `run:` in the shell `shell:` names, else the defaults' (bash when
    // none says).
    if doc.get(map, "run").is_some() {
        let d = match lower("shell") {
            Some(s) => shell_named(&s),
            None => defaults.run.unwrap_or_default(),
        };
        keys.push(("run", d, false));
    }
    // Azure Pipelines' `script:` runs with cmd.exe on a Windows agent, bash elsewhere.
    keys.push(("script", defaults.script.unwrap_or_default(), true));
    // GitLab CI: a job's scripts before and after its `script:`.
    keys.push(("before_script", Dialect::Bash, true));
    keys.push(("after_script", Dialect::Bash, true));
    keys.push(("bash", Dialect::Bash, true));
    keys.push(("pwsh", Dialect::PowerShell, true));
    keys.push(("powershell", Dialect::PowerShell, true));
    // An `AzureCLI` task's `inputs:`.
    if doc.get(map, "inlineScript").is_some() {
        let d = match lower("scriptType").as_deref() {
            Some("ps" | "pscore" | "powershell" | "pwsh") => Dialect::PowerShell,
            Some("batch") => Dialect::Cmd,
            _ => Dialect::Bash,
        };
        keys.push(("inlineScript", d, true));
    }
    // An `AzurePowerShell` task's `inputs:` (`ScriptType: InlineScript`).
    keys.push(("Inline", Dialect::PowerShell, true));
    keys
}

/// Whether an `AzureCLI` task's `inputs` (`map`) run the file `path` with bash: its
/// `scriptType: bash` (version 2), or no `scriptType` and a `.sh` file (version 1, which
/// runs it with bash on Linux agents).
fn runs_bash_file(doc: &Document, map: NodeId, path: NodeId) -> bool {
    let lower = |k: &str| {
        doc.get(map, k)
            .and_then(|n| str_of(doc, doc.resolve(n)))
            .map(str::to_ascii_lowercase)
    };
    let located = lower("scriptLocation").is_none_or(|l| l == "scriptpath");
    let bash = match lower("scriptType") {
        Some(t) => t == "bash",
        None => str_of(doc, doc.resolve(path)).is_some_and(|p| p.to_ascii_lowercase().ends_with(".sh")),
    };
    located && bash
}

/// The run an `AzureCLI` task makes of its `scriptPath` with its `arguments` (read as
/// bash words, where they are written): the script's definitions, made at the task
/// ([`super::deploy::ScriptRun`]), from the task's working directory.
fn script_path_run(
    input: &Input<'_>,
    doc: &Document,
    map: NodeId,
    path: NodeId,
    scope: &WfOuter<'_>,
) -> Vec<ComputeDef> {
    let text = input.source.text.as_str();
    let p = doc.node(doc.resolve(path));
    let file = match scope.value(path, "`scriptPath`") {
        ScriptVal::Known { text, .. } => Ok(text),
        ScriptVal::Dynamic(why) => Err(why),
    };
    let arguments = doc.get(map, "arguments").map(|a| doc.node(doc.resolve(a)));
    let region = arguments
        .filter(|a| matches!(a.value, Value::Str(_)))
        .and_then(|a| script_region(text, a.span, a.style));
    let options = |newlines| LexOptions {
        newlines,
        macros: true,
        ..LexOptions::new(Dialect::Bash)
    };
    let script = match region {
        Some((start, end, newlines)) => parse(&text[start..end], Map::Base(start as u32), options(newlines)),
        None => parse("", Map::Base(0), options(false)),
    };
    let words: Vec<super::shell::Word> = script
        .commands
        .iter()
        .flat_map(|c| c.words.iter().cloned())
        .collect();
    let vars = Vars::scan(&script, Dialect::Bash);
    let cx = Ctx {
        input,
        eval: Eval {
            vars: &vars,
            outer: scope,
        },
        note: None,
    };
    let run = super::deploy::ScriptRun {
        file,
        file_span: inner(p.span, p.style),
        args: &words,
        whole: arguments.map_or(p.span, |a| p.span.cover(a.span)),
        at: p.span.start,
    };
    run.definitions(
        &super::cwd::Cwd::Start(PathBuf::new()),
        &cx,
        &scope.globals.sh_budget,
    )
}

/// Reads the script at `node` (a string, or a list of strings: one command line each).
fn read_script(
    input: &Input<'_>,
    doc: &Document,
    node: NodeId,
    dialect: Dialect,
    macros: bool,
    scope: &WfOuter<'_>,
    out: &mut Definitions,
) {
    let node = doc.resolve(node);
    let items: Vec<NodeId> = match doc.value(node) {
        Value::Str(_) => vec![node],
        Value::Seq(items) => items.iter().map(|&i| doc.resolve(i)).collect(),
        _ => return,
    };
    for item in items {
        let n = doc.node(item);
        let Value::Str(value) = &n.value else { continue };
        if memchr::memmem::find(value.as_bytes(), b"ml compute").is_none()
            && !super::common::mentions(value.as_bytes(), super::deploy::NEEDLES)
            && !super::common::mentions(value.as_bytes(), super::deploy::TF_NEEDLES)
            && !super::common::mentions(value.as_bytes(), RUNS)
        {
            continue;
        }
        let Some((start, end, newlines)) = script_region(input.source.text.as_str(), n.span, n.style) else {
            continue;
        };
        let text = &input.source.text[start..end];
        let options = LexOptions {
            newlines,
            macros,
            keep: Some(super::az_cli::wanted),
            ..LexOptions::new(dialect)
        };
        let script = parse(text, Map::Base(start as u32), options);
        let vars = Vars::scan(&script, dialect);
        let cx = Ctx {
            input,
            eval: Eval {
                vars: &vars,
                outer: scope,
            },
            note: None,
        };
        out.computes.extend(definitions(&script, &cx));
        out.computes.extend(super::deploy::from_script(&script, &cx));
        out.computes
            .extend(super::deploy::terraform_from_script(&script, &cx));
        out.computes.extend(super::deploy::python_from_script(
            &script,
            &cx,
            &scope.globals.py_budget,
        ));
        if dialect == Dialect::Bash {
            out.computes.extend(super::deploy::shell_from_script(
                &script,
                &cx,
                &scope.globals.sh_budget,
            ));
        }
        out.comments
            .extend(script.comments.iter().map(|c| comment_of(input.source, c)));
    }
}

/// The definitions an Azure Pipelines `AzureResourceManagerTemplateDeployment` task (the
/// step `node`, its `inputs`) makes: its `csmFile` deployed with its `csmParametersFile`
/// and `overrideParameters` ([`super::deploy`]). Paths are the repository's (the task
/// runs from `$(System.DefaultWorkingDirectory)`); a linked template (`templateLocation:
/// URL of the file`) is not read.
fn template_task(input: &Input<'_>, doc: &Document, node: NodeId, inputs: NodeId) -> Vec<ComputeDef> {
    use super::deploy::{Passed, TemplateDeployment};
    let get = |key: &str| {
        doc.get(inputs, key)
            .map(|n| doc.resolve(n))
            .and_then(|n| str_of(doc, n).map(|s| (s, n)))
    };
    if get("templateLocation").is_some_and(|(l, _)| !l.eq_ignore_ascii_case("Linked artifact")) {
        return Vec::new();
    }
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let root = input.files.root_from(dir).unwrap_or_else(|| dir.to_path_buf());
    // A path from the repository's root, or why it is not known statically.
    let locate = |written: &str| -> Result<Vec<PathBuf>, String> {
        let rest = from_the_checkout(written, false).map_or(written, |r| r.trim_start_matches(['/', '\\']));
        if rest.contains('$') || rest.starts_with(['/', '\\', '~']) || rest.contains(':') {
            return Err(format!(
                "`{}` names a pipeline variable or expression, or a path outside the repository",
                super::iac::one_line(written)
            ));
        }
        Ok(vec![root.join(rest.replace('\\', "/"))])
    };
    let Some((template, tnode)) = get("csmFile") else {
        return Vec::new();
    };
    let Ok(template_at) = locate(template) else {
        return Vec::new();
    };
    let mut passed = Vec::new();
    if let Some((written, pnode)) = get("csmParametersFile").filter(|(w, _)| !w.trim().is_empty()) {
        passed.push(match locate(written) {
            Ok(candidates) => Passed::File {
                written: written.to_string(),
                candidates,
                span: inner_of(input, doc, pnode),
            },
            Err(why) => Passed::Unread {
                written: written.to_string(),
                why,
            },
        });
    }
    if let Some((text, onode)) = get("overrideParameters") {
        // Where the text starts when written as is: plain, or quoted without escapes.
        let span = doc.node(onode).span;
        let written = input.source.text.get(span.range()).unwrap_or_default();
        let quoted = |q: char| written.strip_prefix(q).and_then(|w| w.strip_suffix(q)) == Some(text);
        let start = if written == text {
            Some(span.start)
        } else if quoted('\'') || quoted('"') {
            Some(span.start + 1)
        } else {
            None
        };
        passed.extend(super::deploy::override_parameters(text, start));
    }
    let (task, whole) = task_and_span(doc, node, "AzureResourceManagerTemplateDeployment");
    super::deploy::definitions(
        input.files,
        &TemplateDeployment {
            display: &input.source.path,
            whole,
            label: format!("the task `{task}`"),
            template: template.to_string(),
            template_at,
            template_span: inner_of(input, doc, tnode),
            passed,
            text: &input.source.text,
        },
    )
}

/// The definitions an Azure Pipelines Terraform task (`TerraformTaskV4@4`,
/// `TerraformTaskV3@3`, `TerraformCLI@0`; the step `node`, its `inputs`) makes when its
/// `command` is `plan` or `apply`: the root module of its `workingDirectory` (from the
/// repository's root, the task's default), with the `-var-file`s (from that directory) and
/// `-var`s of its `commandOptions` ([`super::terraform::applied`]).
fn terraform_task(input: &Input<'_>, doc: &Document, node: NodeId, inputs: NodeId) -> Vec<ComputeDef> {
    use super::terraform::TerraformRun;
    let get = |key: &str| {
        doc.get(inputs, key)
            .map(|n| doc.resolve(n))
            .and_then(|n| str_of(doc, n).map(|s| (s, n)))
    };
    let Some(command) = get("command").map(|(c, _)| c.trim().to_ascii_lowercase()) else {
        return Vec::new();
    };
    if command != "plan" && command != "apply" {
        return Vec::new();
    }
    let here = input.path.parent().unwrap_or(Path::new(""));
    let (dir, written, dir_span) = match get("workingDirectory") {
        Some((w, n)) => match work_dir(input, doc, Some(n)) {
            Some(d) => (d, w.to_string(), inner_of(input, doc, n)),
            None => return Vec::new(),
        },
        None => match input.files.root_from(here) {
            Some(root) => (
                root,
                ".".to_string(),
                doc.get(node, "task")
                    .map_or(doc.node(node).span, |t| doc.node(t).span),
            ),
            None => return Vec::new(),
        },
    };
    let mut passed = Vec::new();
    if let Some((options, n)) = get("commandOptions") {
        let span = inner_of(input, doc, n);
        let words = super::deploy::shell_words(options);
        let mut i = 0;
        while i < words.len() {
            let w = words[i].as_str();
            let dashed = w.trim_start_matches('-');
            let (name, inline) = match dashed.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (dashed, None),
            };
            if !w.starts_with('-') || !matches!(name, "var-file" | "var") {
                i += 1;
                continue;
            }
            let v = match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    match words.get(i) {
                        Some(v) => v.clone(),
                        None => break,
                    }
                }
            };
            let written_opt = format!("-{name}={v}");
            let value = if v.contains("$(") || v.contains("${{") || v.contains("$[") {
                Err(format!("`{v}` names a pipeline variable or expression"))
            } else {
                Ok(v)
            };
            passed.push(super::deploy::cli_var(
                name == "var-file",
                value,
                span,
                written_opt,
                None,
                &|f: &str| {
                    if f.starts_with(['/', '\\', '~']) || f.contains(':') {
                        Err(format!("`{f}` is a path outside the repository"))
                    } else {
                        Ok(vec![dir.join(f.replace('\\', "/"))])
                    }
                },
            ));
            i += 1;
        }
    }
    let (task, whole) = task_and_span(doc, node, "Terraform");
    super::terraform::applied(
        input,
        &TerraformRun {
            display: &input.source.path,
            whole,
            label: format!("the task `{task}` (`{command}`)"),
            dir: written,
            dir_at: vec![dir],
            dir_span,
            passed,
        },
    )
}

/// A scalar's text in the file, without its quotes.
fn inner_of(input: &Input<'_>, doc: &Document, node: NodeId) -> Span {
    let n = doc.node(node);
    let raw = input.source.slice(n.span);
    if raw.len() >= 2 && raw.starts_with(['\'', '"']) {
        Span::new(n.span.start + 1, n.span.end - 1)
    } else {
        n.span
    }
}

/// Where a scalar's script is in the file: its content without a block scalar's header
/// line or the quotes, and whether its newlines end commands (a literal block's do; a
/// folded or flow scalar's lines are joined by spaces).
fn script_region(text: &str, span: Span, style: Style) -> Option<(usize, usize, bool)> {
    let (mut start, mut end) = (span.start as usize, span.end as usize);
    let raw = text.get(start..end)?;
    match style {
        Style::Literal | Style::Folded => {
            // A header (`|`, `>-`, `|2`) when the span holds it: the content is below.
            if raw.starts_with(['|', '>']) {
                start += raw.find('\n').map_or(raw.len(), |p| p + 1);
            }
            Some((start, end.max(start), style == Style::Literal))
        }
        Style::SingleQuoted | Style::DoubleQuoted => {
            if raw.len() >= 2 && raw.starts_with(['\'', '"']) {
                start += 1;
                end -= 1;
            }
            Some((start, end, false))
        }
        _ => Some((start, end, false)),
    }
}

/// The directory a step's working directory (`working-directory:`, `workingDirectory:`, the
/// scalar at `node`) names, written as the file's own path is: relative to the repository
/// (the folder above `.github/workflows` for a GitHub workflow; else the project's root,
/// its git work tree), which the CLI runs from. `None` — the directory is not known, and a
/// file the script names is looked for as in a plain script — when it is not a literal
/// relative path (`${{ env.DIR }}`, `$(dir)`, `/abs`, `~`) or it leaves the repository
/// (`..` above it).
fn work_dir(input: &Input<'_>, doc: &Document, node: Option<NodeId>) -> Option<PathBuf> {
    let written = str_of(doc, node?)?;
    let github = github_workspace(input).is_some();
    // From the checkout's root, what follows is relative to the repository, as a plain
    // working directory is.
    let written = match from_the_checkout(written, github) {
        Some(rest) => rest.trim_start_matches(['/', '\\']),
        None => written,
    };
    if written.contains('$') || written.starts_with(['/', '\\', '~']) || written.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in written.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let mut repo = match github_workspace(input) {
        Some(above) => above,
        None => input.files.root_from(dir)?,
    };
    repo.extend(parts);
    Some(repo)
}

/// A working directory written from where the CI system checks the repository out, as the
/// rest of it after that (`${{ github.workspace }}/ml`: `/ml`; in a GitHub workflow
/// `${{ github.workspace }}`, `$GITHUB_WORKSPACE`, `${GITHUB_WORKSPACE}`; in an Azure
/// pipeline `$(System.DefaultWorkingDirectory)`, `$(Build.SourcesDirectory)`,
/// `$(Build.Repository.LocalPath)`, each the repository's root when it alone is checked
/// out, as a step without a working directory assumes). `None` when it does not start so.
fn from_the_checkout(written: &str, github: bool) -> Option<&str> {
    let rest = if github {
        if let Some(inner) = written.strip_prefix("${{") {
            let end = inner.find("}}")?;
            inner[..end]
                .trim()
                .eq_ignore_ascii_case("github.workspace")
                .then(|| &inner[end + 2..])?
        } else {
            ["${GITHUB_WORKSPACE}", "$GITHUB_WORKSPACE"]
                .iter()
                .find_map(|p| written.strip_prefix(p))?
        }
    } else {
        let inner = written.strip_prefix("$(")?;
        let end = inner.find(')')?;
        [
            "System.DefaultWorkingDirectory",
            "Build.SourcesDirectory",
            "Build.Repository.LocalPath",
        ]
        .iter()
        .any(|v| inner[..end].eq_ignore_ascii_case(v))
        .then(|| &inner[end + 1..])?
    };
    // The name ends there (`$GITHUB_WORKSPACE_2` is another variable).
    (rest.is_empty() || rest.starts_with(['/', '\\'])).then_some(rest)
}

/// The repository a GitHub workflow (a file of `.github/workflows`) runs in: the folder
/// above `.github`, `$GITHUB_WORKSPACE`, where a step without a working directory runs.
/// `None` for another file.
fn github_workspace(input: &Input<'_>) -> Option<PathBuf> {
    let dir = input.path.parent()?;
    let workflows = dir.file_name().is_some_and(|n| n == "workflows")
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == ".github");
    workflows
        .then(|| dir.parent().and_then(Path::parent).map(Path::to_path_buf))
        .flatten()
}

/// An Azure Pipelines script step's `workingDirectory:`, or a task's input of that name
/// (`cwd`, the `AzureCLI` task's name for it, too).
fn azure_work_dir(doc: &Document, map: NodeId) -> Option<NodeId> {
    doc.get(map, "workingDirectory").or_else(|| doc.get(map, "cwd"))
}

/// The variables a script sees at one place of the file.
struct WfOuter<'a> {
    doc: &'a Document,
    frames: &'a [Frame],
    frame: Option<usize>,
    /// The `${{ each }}` items expanded, and the one this place is inside.
    binds: &'a [Bind],
    bind: Option<usize>,
    globals: &'a Globals,
    /// How deep values refer to others now.
    depth: Cell<usize>,
    /// The values of the nodes holding expansions, each computed once (per loop item).
    memo: &'a RefCell<HashMap<(NodeId, Option<usize>), ScriptVal>>,
    /// The directory the script runs in, when the file says it ([`work_dir`]).
    work_dir: Option<PathBuf>,
}

impl<'a> WfOuter<'a> {
    /// The same place, for a script that runs in `work_dir`.
    fn in_dir(&self, work_dir: Option<PathBuf>) -> WfOuter<'a> {
        WfOuter {
            doc: self.doc,
            frames: self.frames,
            frame: self.frame,
            binds: self.binds,
            bind: self.bind,
            globals: self.globals,
            depth: Cell::new(0),
            memo: self.memo,
            work_dir,
        }
    }

    /// The innermost frame's value of `name` in `pick`'s list.
    fn find(&self, pick: fn(&Frame) -> &HashMap<String, NodeId>, name: &str) -> Option<NodeId> {
        let mut at = self.frame;
        for _ in 0..MAX_FRAMES {
            let f = &self.frames[at?];
            if let Some(v) = pick(f).get(name) {
                return Some(*v);
            }
            at = f.parent;
        }
        None
    }

    /// The environment variable `name` (`what` names it) of the innermost frame that sets
    /// it: by an `env:`, or by an earlier step's write to `$GITHUB_ENV`.
    fn env(&self, name: &str, what: &str) -> Option<ScriptVal> {
        let mut at = self.frame;
        for _ in 0..MAX_FRAMES {
            let f = &self.frames[at?];
            if let Some(v) = f.env.get(name) {
                return Some(self.value(*v, what));
            }
            if let Some(v) = f.github_env.get(name) {
                return Some(v.clone());
            }
            at = f.parent;
        }
        None
    }

    /// The value of the YAML node `id`: a scalar, its expansions resolved here.
    fn value(&self, id: NodeId, what: &str) -> ScriptVal {
        let id = self.doc.resolve(id);
        let n = self.doc.node(id);
        let literal = |text: String| {
            let exact = input_exact(n.style);
            ScriptVal::known(text, exact.then_some(inner(n.span, n.style)))
        };
        match &n.value {
            Value::Str(s) if s.contains('$') => {
                if let Some(v) = self.memo.borrow().get(&(id, self.bind)) {
                    return v.clone();
                }
                if self.depth.get() >= MAX_DEPTH {
                    return ScriptVal::Dynamic(format!("{what} refers to variables nested too deep"));
                }
                self.depth.set(self.depth.get() + 1);
                let v = self.expand(s, n.span);
                self.depth.set(self.depth.get() - 1);
                self.memo.borrow_mut().insert((id, self.bind), v.clone());
                v
            }
            Value::Str(s) => literal(s.to_string()),
            Value::Int(i) => literal(i.to_string()),
            Value::Bool(b) => literal(b.to_string()),
            Value::Null => ScriptVal::Dynamic(format!("{what} has no value")),
            _ => ScriptVal::Dynamic(format!("{what} is not a single value")),
        }
    }

    /// A value holding `$(name)`, `${{ expr }}`, `$NAME`: resolved as a word of a script.
    fn expand(&self, text: &str, span: Span) -> ScriptVal {
        let script = parse(
            text,
            Map::Base(span.start),
            LexOptions {
                newlines: false,
                macros: true,
                ..LexOptions::new(Dialect::Bash)
            },
        );
        let [c] = script.commands.as_slice() else {
            return ScriptVal::Dynamic(format!("`{text}` is not one word"));
        };
        let [w] = c.words.as_slice() else {
            return ScriptVal::Dynamic(format!("`{text}` is not one word"));
        };
        let vars = Vars::scan(&Default::default(), Dialect::Bash);
        let e = Eval {
            vars: &vars,
            outer: self,
        }
        .word(w, 0);
        match e.value {
            // Spans inside a re-read value may not be the file's (a quoted scalar's
            // escapes): only a literal elsewhere (a variable's value) is its origin.
            Ok(t) => ScriptVal::known(t, e.origin.filter(|o| o.end <= span.start || o.start >= span.end)),
            Err(why) => ScriptVal::Dynamic(why),
        }
    }

    fn param(&self, list: &HashMap<String, NodeId>, name: &str, what: &str) -> Option<ScriptVal> {
        Some(self.value(*list.get(name)?, what))
    }

    /// The node `id` as a structured value (`what` names it), its scalars resolved here;
    /// to [`MAX_LIT_DEPTH`] levels and within the document's [`MAX_LIT_NODES`].
    fn lit(&self, id: NodeId, what: &str, depth: usize) -> Lit {
        let too_large = || {
            Lit::One(ScriptVal::Dynamic(format!(
                "{what} is larger than amlint reads ({MAX_LIT_NODES} values, {MAX_LIT_DEPTH} levels)"
            )))
        };
        let left = self.globals.lit_budget.get();
        if left == 0 {
            return too_large();
        }
        self.globals.lit_budget.set(left - 1);
        let id = self.doc.resolve(id);
        match self.doc.value(id) {
            Value::Seq(_) | Value::Map(_) if depth >= MAX_LIT_DEPTH => too_large(),
            Value::Seq(items) => {
                let mut out = Vec::new();
                for &item in items {
                    if self.globals.lit_budget.get() == 0 {
                        out.push(too_large());
                        break;
                    }
                    out.push(self.lit(item, what, depth + 1));
                }
                Lit::List(out)
            }
            Value::Map(_) => {
                let mut out = Vec::new();
                for (key, value) in self.doc.kept_entries(id) {
                    if self.globals.lit_budget.get() == 0 {
                        out.push((key.into_owned(), None, too_large()));
                        break;
                    }
                    let span = self.doc.get_entry(id, &key).and_then(|e| {
                        let k = self.doc.node(self.doc.resolve(e.key));
                        input_exact(k.style).then(|| inner(k.span, k.style))
                    });
                    out.push((key.into_owned(), span, self.lit(value, what, depth + 1)));
                }
                Lit::Object(out)
            }
            _ => Lit::One(self.value(id, what)),
        }
    }

    /// A variable of the Azure Pipelines matrix leg around this place whose name `is`
    /// accepts; unknown when the legs were not expanded.
    fn leg_var(&self, is: impl Fn(&str) -> bool) -> Option<&'a Lit> {
        match self.bound(ADO_LEG)? {
            Lit::Object(entries) => entries.iter().rev().find(|(k, ..)| is(k)).map(|(.., v)| v),
            other => Some(other),
        }
    }

    /// The loop variable `name` of a `${{ each }}` around this place: its item.
    fn bound(&self, name: &str) -> Option<&'a Lit> {
        let mut at = self.bind;
        while let Some(b) = at.map(|i| &self.binds[i]) {
            if b.name == name {
                return Some(&b.value);
            }
            at = b.parent;
        }
        None
    }

    /// A parameter as a structured value: what the call passes, else its default.
    fn param_lit(&self, name: &str) -> Option<Lit> {
        if let Some(v) = self.globals.given.get(name) {
            return Some(v.clone());
        }
        if let Some(v) = self.globals.param_lits.borrow().get(name) {
            return Some(v.clone());
        }
        let node = *self.globals.params.get(name)?;
        let v = self.lit(node, &format!("`parameters.{name}`"), 0);
        self.globals
            .param_lits
            .borrow_mut()
            .insert(name.to_string(), v.clone());
        Some(v)
    }

    /// The value a template expression written as a path names: `parameters.x`, a loop's
    /// variable, and fields of them (`parameters.x.y`, `c.name`). `None` for another
    /// expression.
    fn lit_at(&self, text: &str) -> Option<Lit> {
        let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let path: Vec<&str> = t.split('.').collect();
        let (base, rest) = match path.as_slice() {
            [head, rest @ ..] if self.bound(head).is_some() => (self.bound(head)?.clone(), rest),
            ["parameters", name, rest @ ..] => (self.param_lit(name)?, rest),
            _ => return None,
        };
        Some(match base.at(rest, &t) {
            Ok(v) => v.clone(),
            Err(why) => Lit::One(why),
        })
    }
}

/// A scalar of this style is written as its value (no quotes or escapes to remove).
fn input_exact(style: Style) -> bool {
    matches!(style, Style::Plain | Style::SingleQuoted | Style::DoubleQuoted)
}

fn inner(span: Span, style: Style) -> Span {
    if style.is_quoted() && span.len() >= 2 {
        Span::new(span.start + 1, span.end - 1)
    } else {
        span
    }
}

impl Outer for WfOuter<'_> {
    fn work_dir(&self) -> Option<PathBuf> {
        self.work_dir.clone()
    }

    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        if !matches!(scope, VarScope::Shell | VarScope::Env) {
            return None;
        }
        if let Some(v) = self.env(name, &format!("`{name}`")) {
            return Some(v);
        }
        if let Some(root) = self.globals.checkout.named(name) {
            return Some(root);
        }
        // Azure Pipelines makes an environment variable of every pipeline variable.
        let upper = name.to_ascii_uppercase();
        let Some(v) = self.find(|f| &f.var_env, &upper) else {
            if let Some(v) = self.leg_var(|k| k.replace('.', "_").eq_ignore_ascii_case(&upper)) {
                return Some(v.one(&format!("`{name}`")));
            }
            return self.globals.template_env.get(&upper).cloned();
        };
        Some(self.value(v, &format!("`{name}`")))
    }

    fn expr(&self, text: &str) -> Option<ScriptVal> {
        let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        // A loop's variable (`${{ c.name }}`), or a field of an object parameter.
        let head = t.split('.').next().unwrap_or_default();
        if self.bound(head).is_some() || (t.starts_with("parameters.") && t.matches('.').count() > 1) {
            return Some(self.lit_at(&t)?.one(&format!("`{t}`")));
        }
        if let Some(n) = t.strip_prefix("env.") {
            return self.env(n, &format!("`env.{n}`"));
        }
        if let Some(root) = self.globals.checkout.named(&t) {
            return Some(root);
        }
        // An earlier step's output (`$GITHUB_OUTPUT`, [`github_env`]).
        if t.starts_with("steps.") && t.contains(".outputs.") {
            return self.env(&t, &format!("`{t}`"));
        }
        if let Some(n) = t.strip_prefix("variables.") {
            let Some(v) = self.find(|f| &f.vars, n) else {
                return self.globals.template_vars.get(n).cloned();
            };
            return Some(self.value(v, &format!("`variables.{n}`")));
        }
        if let Some(n) = t.strip_prefix("parameters.") {
            if let Some(v) = self.globals.given.get(n) {
                return Some(v.one(&format!("`parameters.{n}`")));
            }
            return self.param(&self.globals.params, n, &format!("`parameters.{n}`"));
        }
        if let Some(n) = t.strip_prefix("inputs.")
            && let Some(v) = self.globals.given.get(n)
        {
            return Some(v.one(&format!("`inputs.{n}`")));
        }
        let input = t
            .strip_prefix("inputs.")
            .or_else(|| t.strip_prefix("github.event.inputs."))?;
        self.param(&self.globals.inputs, input, &format!("`inputs.{input}`"))
    }

    fn macro_var(&self, name: &str) -> Option<ScriptVal> {
        if let Some(root) = self.globals.checkout.named(name) {
            return Some(root);
        }
        let Some(v) = self.find(|f| &f.vars, name) else {
            if let Some(v) = self.leg_var(|k| k == name) {
                return Some(v.one(&format!("`$({name})`")));
            }
            return self.globals.template_vars.get(name).cloned();
        };
        Some(self.value(v, &format!("`$({name})`")))
    }
}

/// A call of the Azure mlops templates' SDK v1 `get-compute.yml` (`- template:
/// templates/python-sdk-v1/get-compute.yml@mlops-templates` with `compute_type:
/// training` or `batch`; audit 34, case 01): its script (`get_compute.py -f
/// config-aml.yml --compute_type training`) creates the `AmlCompute` the pipeline's
/// variables describe — `training_target` (`batch_target`) named, of the size
/// `…_sku`, with `…_min_nodes` to `…_max_nodes` nodes (SDK v1's
/// `provisioning_configuration`). Each value is the variable's, at the call (`$(name)`
/// as the template reads it), labelled at its literal when this file sets it. Another
/// `compute_type` (the script's defaults and environment) is not read.
fn get_compute_call(
    input: &Input<'_>,
    doc: &Document,
    site: Site,
    scope: &WfOuter<'_>,
    call: &str,
    args: NodeId,
) -> Option<ComputeDef> {
    if !call.to_ascii_lowercase().ends_with("@mlops-templates") {
        return None;
    }
    let kind_node = doc.get(args, "compute_type")?;
    let ScriptVal::Known { text: kind, .. } = scope.value(kind_node, "`compute_type`") else {
        return None;
    };
    let prefix = match kind.trim() {
        "training" => "training_target",
        "batch" => "batch_target",
        _ => return None,
    };
    let at = doc.node(doc.resolve(doc.get(site.map, "template")?));
    let span = inner(at.span, at.style);
    let setting = |name: &str, kind: ValueKind| -> Setting {
        let e = match scope.macro_var(name) {
            Some(ScriptVal::Known { text, literal }) => Evaluated {
                value: Ok(text),
                origin: literal,
                in_place: false,
            },
            Some(ScriptVal::Dynamic(why)) => Evaluated {
                value: Err(why),
                origin: None,
                in_place: false,
            },
            None => Evaluated {
                value: Err(format!("`{name}` is not set in this pipeline")),
                origin: None,
                in_place: false,
            },
        };
        setting_of(e, format!("$({name})"), span, None, kind)
    };
    let mut def = ComputeDef::new(
        SourceKind::AzCli,
        input.source.path.clone(),
        call_span(doc, site),
        "get-compute.yml template".to_string(),
        setting(prefix, ValueKind::Str),
    );
    def.idiom = crate::facts::idiom::Idiom::Template;
    let mut t = Setting::literal(Scalar::Str("amlcompute".into()), span, None);
    t.in_place = false;
    def.set("type", t);
    def.set("size", setting(&format!("{prefix}_sku"), ValueKind::Str));
    def.set(
        "min_instances",
        setting(&format!("{prefix}_min_nodes"), ValueKind::Int),
    );
    def.set(
        "max_instances",
        setting(&format!("{prefix}_max_nodes"), ValueKind::Int),
    );
    def.notes.push(format!(
        "creates the SDK v1 `AmlCompute` of the pipeline's `{prefix}` variables through the {call} template"
    ));
    Some(def)
}

/// A mapping that may call a template, and where such a call would start: its
/// `template:` (`uses:`), or the `extends:` above it.
#[derive(Clone, Copy)]
struct Site {
    map: NodeId,
    from: Option<u32>,
}

/// The mlops templates' `create-compute` called with its parameters: a definition.
fn template_call(input: &Input<'_>, doc: &Document, site: Site, scope: &WfOuter<'_>) -> Option<ComputeDef> {
    let map = site.map;
    let (call, args) = ["template", "uses"].iter().find_map(|k| {
        let v = doc.get(map, k)?;
        let args = doc.get(map, if *k == "template" { "parameters" } else { "with" })?;
        Some((str_of(doc, v)?, doc.resolve(args)))
    })?;
    let file = call.split('@').next().unwrap_or(call);
    let file = file.rsplit('/').next().unwrap_or(file).to_ascii_lowercase();
    if matches!(file.as_str(), "get-compute.yml" | "get-compute.yaml") {
        return get_compute_call(input, doc, site, scope, call, args);
    }
    if !matches!(
        file.as_str(),
        "create-compute.yml" | "create-compute.yaml" | "create_compute.yml" | "create_compute.yaml"
    ) {
        return None;
    }
    let name_entry = doc.get_entry(args, "cluster_name")?;
    let setting = |key: &str, kind: ValueKind| -> Option<Setting> {
        let entry = doc.get_entry(args, key)?;
        let node = doc.resolve(entry.value);
        let n = doc.node(node);
        let span = inner(n.span, n.style);
        let written = input.source.slice(span).to_string();
        let e = match scope.value(node, &format!("`{key}`")) {
            ScriptVal::Known { text, literal } => Evaluated {
                in_place: literal == Some(span) && !matches!(n.value, Value::Str(ref s) if s.contains('$')),
                origin: literal.filter(|l| *l != span),
                value: Ok(text),
            },
            ScriptVal::Dynamic(why) => Evaluated {
                value: Err(why),
                origin: None,
                in_place: false,
            },
        };
        Some(setting_of(e, written, span, Some(doc.node(entry.key).span), kind))
    };
    let mut name = setting("cluster_name", ValueKind::Str)?;
    name.key = Some(doc.node(name_entry.key).span);
    let mut def = ComputeDef::new(
        SourceKind::AzCli,
        input.source.path.clone(),
        call_span(doc, site),
        format!("{file} template"),
        name,
    );
    def.idiom = crate::facts::idiom::Idiom::Template;
    // The template runs `az ml compute create --type amlcompute`.
    let mut t = Setting::literal(
        Scalar::Str("amlcompute".into()),
        doc.node(doc.get(map, "template").or_else(|| doc.get(map, "uses"))?)
            .span,
        None,
    );
    t.in_place = false;
    def.set("type", t);
    // The mlops templates' parameter names, and the `cluster_` ones of their copies.
    for (key, path, kind) in [
        ("size", "size", ValueKind::Str),
        ("cluster_size", "size", ValueKind::Str),
        ("min_instances", "min_instances", ValueKind::Int),
        ("cluster_min_instances", "min_instances", ValueKind::Int),
        ("max_instances", "max_instances", ValueKind::Int),
        ("cluster_max_instances", "max_instances", ValueKind::Int),
        ("cluster_tier", "tier", ValueKind::Str),
        (
            "cluster_idle_seconds_before_scaledown",
            "idle_time_before_scale_down",
            ValueKind::Int,
        ),
    ] {
        if let Some(s) = setting(key, kind) {
            def.set(path, s);
        }
    }
    // What the template's own command sets is known only for the Azure mlops templates
    // (`…@mlops-templates` in Azure Pipelines, `Azure/mlops-templates/…` on GitHub): no
    // public-IP or subnet option, so the CLI's defaults. Another repository's template
    // (a fork's `owner/repo/.github/workflows/create-compute.yml@main`) may pass them.
    let lower = call.to_ascii_lowercase();
    if lower.starts_with("azure/mlops-templates/.github/") {
        template_network(doc, args, &lower, &setting, &mut def);
    }
    if !(lower.starts_with("azure/mlops-templates/") || lower.ends_with("@mlops-templates")) {
        let at = doc
            .node(doc.get(map, "template").or_else(|| doc.get(map, "uses"))?)
            .span;
        for path in ["enable_node_public_ip", "network_settings.subnet"] {
            def.set(
                path,
                Setting::dynamic(
                    call,
                    format!("set, or not, by `{call}`, which amlint does not read"),
                    at,
                    None,
                ),
            );
        }
    }
    def.notes
        .push(format!("runs az ml compute create through the {file} template"));
    Some(def)
}

/// A step `uses: Azure/aml-compute@v1` (deprecated in 2022): the action reads the JSON
/// file `.cloud/.azure/<parameters_file>` of the repository (`with: parameters_file:`,
/// default `compute.json`; no file: no parameters) and, when no compute of that `name`
/// exists yet, creates it with azureml-core's `provisioning_configuration`, each key
/// missing taking the action's default (Azure/aml-compute `code/main.py`,
/// `code/utils.py`). The definition is at the step; its values are noted with where the
/// parameters file writes them.
fn aml_compute_action(
    input: &Input<'_>,
    doc: &Document,
    map: NodeId,
    scope: &WfOuter<'_>,
) -> Option<ComputeDef> {
    use super::iac::{As, V, file_value, setting_of};
    let uses_entry = doc.get_entry(map, "uses")?;
    let uses_node = doc.resolve(uses_entry.value);
    let uses = str_of(doc, uses_node)?;
    let (action, _ref) = uses.trim().split_once('@')?;
    if !action.eq_ignore_ascii_case("azure/aml-compute") {
        return None;
    }
    let uses_span = inner(doc.node(uses_node).span, doc.node(uses_node).style);
    let with = doc.get(map, "with").map(|w| doc.resolve(w));
    let pf_entry = with.and_then(|w| doc.get_entry(w, "parameters_file"));
    // Where the settings are: the `parameters_file` value, else the `uses` value.
    // (No key: the settings are the parameters file's keys, not the step's.)
    let at_key = None;
    let at = match pf_entry {
        Some(e) => {
            let n = doc.node(doc.resolve(e.value));
            inner(n.span, n.style)
        }
        None => uses_span,
    };
    let parameters_file = match pf_entry {
        Some(e) => match scope.value(doc.resolve(e.value), "`parameters_file`") {
            ScriptVal::Known { text, .. } => Ok(text),
            ScriptVal::Dynamic(why) => Err(why),
        },
        None => Ok("compute.json".to_string()),
    };
    let rel = parameters_file.as_ref().map(|f| format!(".cloud/.azure/{f}"));
    let read = rel.as_ref().ok().and_then(|rel| {
        let path = match github_workspace(input) {
            Some(root) => crate::fsio::normalize(&root.join(rel)),
            None => input.files.from_root(input.path, rel)?,
        };
        let display = crate::discover::display_of(&path);
        let src = input.files.read(&path, &display)?;
        let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Json, &Default::default());
        let value = match loaded.documents.as_slice() {
            [d] if !d.partial && loaded.diagnostics.is_empty() => d.root.map(|r| {
                file_value(
                    &src,
                    d,
                    r,
                    "the parameters file of the Azure/aml-compute action",
                    "",
                )
            }),
            _ => None,
        };
        Some((src, value))
    });
    // Why a setting is not known when the parameters file is not read.
    let missing = match (&rel, &read) {
        (Err(why), _) => Some(format!("the action's parameters file is not known: {why}")),
        (Ok(rel), None) => Some(format!(
            "the action reads `{rel}` (from the repository's root), which is missing or which amlint cannot read (outside the project, not a regular file, or over the size limit)"
        )),
        (Ok(rel), Some((_, None))) => Some(format!(
            "`{rel}`, the action's parameters file, is not one valid JSON document"
        )),
        (Ok(_), Some((_, Some(v)))) if !matches!(v.v, V::Map(_)) => {
            Some("the action's parameters file is not a JSON object".to_string())
        }
        _ => None,
    };
    let params = read
        .as_ref()
        .and_then(|(_, v)| v.clone())
        .filter(|_| missing.is_none());
    let get = |key: &str| params.as_ref().and_then(|p| p.member(key, false)).cloned();
    let notes = RefCell::new(Vec::new());
    let setting = |key: &str, val: Ev, as_: As| -> Option<Setting> {
        if let Some(n) = &val.note {
            notes.borrow_mut().push(n.clone());
        }
        let leaf = Leaf {
            span: at,
            written: key.to_string(),
            val,
            literal: None,
        };
        setting_of(&leaf, at_key, as_)
    };
    let unknown = |why: &str| Setting::dynamic("parameters_file", why, at, at_key);
    let default_note = |key: &str, value: &str| {
        format!("`{key}` is the action's default, {value}: the parameters file gives none")
    };
    let name = match (&missing, get("name")) {
        (Some(why), _) => unknown(why),
        (None, Some(v)) => setting("name", v, As::Text)?,
        (None, None) => Setting::dynamic(
            "name",
            "the parameters file gives no `name`: the action names the compute after the repository (its first 16 characters)",
            at,
            at_key,
        ),
    };
    let mut def = ComputeDef::new(
        SourceKind::PythonSdk,
        input.source.path.clone(),
        call_span(doc, Site { map, from: None }),
        format!("`uses: {}` action", uses.trim()),
        name,
    );
    def.idiom = crate::facts::idiom::Idiom::PythonV1;
    if let Some(why) = &missing {
        def.set("type", unknown(why));
        def.set("size", unknown(why));
        def.notes.push(match &rel {
            Ok(rel) => format!(
                "the Azure/aml-compute action creates the compute its parameters file `{rel}` describes; without the file it has no `compute_type` and fails unless a compute of the repository's name exists"
            ),
            Err(_) => "the Azure/aml-compute action creates the compute its parameters file describes".to_string(),
        });
        return Some(def);
    }
    let ctype = get("compute_type");
    let kind = ctype.as_ref().and_then(Ev::known_str);
    let (ty, size_default) = match kind.as_deref() {
        Some("amlcluster") => ("amlcompute", "Standard_DS3_v2"),
        Some("akscluster") => ("aks", "Standard_D3_v2"),
        _ => {
            let why = match &ctype {
                None => "the parameters file gives no `compute_type`, which the action needs to create a compute (it fails unless the compute exists)".to_string(),
                Some(v) => v.why().unwrap_or_else(|| {
                    "`compute_type` is neither `amlcluster` nor `akscluster`: the action fails unless the compute exists".to_string()
                }),
            };
            def.set("type", Setting::dynamic("compute_type", why.clone(), at, at_key));
            def.set("size", Setting::dynamic("vm_size", why, at, at_key));
            def.notes.extend(notes.into_inner());
            return Some(def);
        }
    };
    let ctype = ctype.expect("known above");
    if let Some(n) = &ctype.note {
        notes.borrow_mut().push(n.clone());
    }
    def.set("type", super::common::type_setting(ty, at, "compute_type"));
    let mut defaults = Vec::new();
    let mut field = |key: &str, path: &str, as_: As, default: Option<Ev>| {
        let val = match (get(key), default) {
            (Some(v), _) => v,
            (None, Some(d)) => {
                defaults.push(default_note(
                    key,
                    &d.known_str().unwrap_or_else(|| match d.v {
                        V::Int(i) => i.to_string(),
                        _ => String::new(),
                    }),
                ));
                d
            }
            (None, None) => return,
        };
        if let Some(s) = setting(key, val, as_) {
            def.set(path, s);
        }
    };
    field("vm_size", "size", As::Text, Some(Ev::text(size_default)));
    if ty == "amlcompute" {
        field("vm_priority", "tier", As::Tier, Some(Ev::text("dedicated")));
        field("min_nodes", "min_instances", As::Count, Some(Ev::int(0)));
        field("max_nodes", "max_instances", As::Count, Some(Ev::int(4)));
        field(
            "idle_seconds_before_scaledown",
            "idle_time_before_scale_down",
            As::Count,
            None,
        );
        field(
            "remote_login_port_public_access",
            "ssh_public_access_enabled",
            As::Enabled,
            None,
        );
    } else {
        field("agent_count", "agent_count", As::Count, None);
    }
    // The action places the compute in a subnet only when the three keys are given.
    if ["vnet_resource_group_name", "vnet_name", "subnet_name"]
        .iter()
        .all(|k| get(k).is_some())
    {
        field("vnet_name", "network_settings.vnet_name", As::Text, None);
        field("subnet_name", "network_settings.subnet", As::Text, None);
    }
    def.notes.extend(notes.into_inner());
    def.notes.extend(defaults);
    if ty == "amlcompute" {
        def.notes.push(
            "the Azure/aml-compute action takes no `enable_node_public_ip`: its nodes get public IP addresses (azureml-core's default), whatever the parameters file says".into(),
        );
    }
    def.notes.push(
        "the Azure/aml-compute action creates it only when no compute of that name exists; an existing one is not updated".into(),
    );
    Some(def)
}

/// The current GitHub `create-compute.yml` of Azure/mlops-templates takes `vnet_name` and
/// `subnet_name` and adds `--vnet-name … --subnet …` when both are non-empty (audit 29,
/// defect 1): a call that passes both places the compute in that subnet (unknown when either
/// is an expression); one that passes neither (or only one) does not, and its messages name
/// the inputs. The inputs are in the version `@main` runs and in any version a call passes
/// them to (GitHub refuses inputs a workflow does not declare); another ref without them
/// may be an older version, which had none (the `template` idiom).
fn template_network(
    doc: &Document,
    args: NodeId,
    lower: &str,
    setting: &dyn Fn(&str, ValueKind) -> Option<Setting>,
    def: &mut ComputeDef,
) {
    let passed = |k: &str| doc.get_entry(args, k).is_some();
    let at_main = lower.rsplit_once('@').is_some_and(|(_, r)| r == "main");
    if !(at_main || passed("vnet_name") || passed("subnet_name")) {
        return;
    }
    def.idiom = crate::facts::idiom::Idiom::TemplateVnet;
    let (Some(vnet), Some(subnet)) = (
        setting("vnet_name", ValueKind::Str),
        setting("subnet_name", ValueKind::Str),
    ) else {
        if passed("vnet_name") || passed("subnet_name") {
            def.notes.push(
                "the template adds `--vnet-name`/`--subnet` only when both `vnet_name` and `subnet_name` are given"
                    .into(),
            );
        }
        return;
    };
    let empty = |s: &Setting| matches!(&s.value, Some(Scalar::Str(v)) if v.trim().is_empty());
    if empty(&vnet) || empty(&subnet) {
        def.notes.push(
            "the template adds `--vnet-name`/`--subnet` only when both `vnet_name` and `subnet_name` are not empty"
                .into(),
        );
        return;
    }
    let mut subnet = subnet;
    if subnet.value.is_some()
        && let Some(why) = vnet.why.clone()
    {
        // The subnet is added only if the virtual network's name is not empty when the
        // workflow runs.
        subnet = Setting::dynamic(
            subnet.written.clone(),
            format!("the template adds it only if `vnet_name` is not empty, and {why}"),
            subnet.span,
            subnet.key,
        );
    }
    def.set("network_settings.vnet_name", vnet);
    def.set("network_settings.subnet", subnet);
}

/// A template call's span: from its `template:` (`uses:`), or `from` (the `extends:` of a
/// pipeline that extends it), to its end (the definition's line is the call's).
fn call_span(doc: &Document, Site { map, from }: Site) -> Span {
    let whole = doc.node(map).span;
    if let Some(start) = from.filter(|&s| s <= whole.start) {
        return Span::new(start, whole.end);
    }
    let call = ["template", "uses"]
        .iter()
        .find_map(|k| doc.get_entry(map, k))
        .map(|e| doc.node(e.key).span.start)
        .filter(|&start| whole.start <= start && start < whole.end);
    call.map_or(whole, |start| Span::new(start, whole.end))
}

/// The files a template call may name when it is a file of this repository, in the order
/// they are looked for: an Azure Pipelines `template:` without a repository (`@self` is
/// this one), relative to the calling file or, with a leading `/`, to the repository's
/// root; a GitHub `uses: ./…`, relative to the repository (the folder above
/// `.github/workflows`, else the project's root): a reusable workflow's `.yml`, or a local
/// action's folder, whose `action.yml` (else `action.yaml`) GitHub runs. Empty for a
/// template of another repository, or a path that is an expression.
fn local_template(input: &Input<'_>, written: &str, github: bool) -> Vec<PathBuf> {
    local_path(input, written, github).map_or_else(Vec::new, |(file, is_yaml)| {
        if is_yaml {
            vec![file]
        } else if github {
            ["action.yml", "action.yaml"]
                .iter()
                .map(|a| crate::fsio::normalize(&file.join(a)))
                .collect()
        } else {
            Vec::new()
        }
    })
}

/// The path a template call writes, resolved as [`local_template`] says, and whether it
/// names a YAML file (else a folder, for a local action).
fn local_path(input: &Input<'_>, written: &str, github: bool) -> Option<(PathBuf, bool)> {
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let file = if github {
        let rel = written.strip_prefix("./")?;
        let workflows = dir.ends_with(".github/workflows");
        let repo = match dir.parent().and_then(Path::parent) {
            Some(above) if workflows => above.to_path_buf(),
            _ => input.files.from_root(input.path, "")?,
        };
        repo.join(rel)
    } else {
        pipeline_file(input, without_self(written))?
    };
    if written.contains(['$', '\\']) || (!github && without_self(written).contains('@')) {
        return None;
    }
    // `x.yml@self` names the YAML file `x.yml` (audit 35: it was taken for no file).
    let named = if github { written } else { without_self(written) };
    Some((crate::fsio::normalize(&file), names_yaml(named)))
}

/// A file an Azure Pipelines `template:` names: relative to the calling file or, with a
/// leading `/`, to the repository's root (`None` then without a project root).
fn pipeline_file(input: &Input<'_>, path: &str) -> Option<PathBuf> {
    match path.strip_prefix('/') {
        Some(rel) => input.files.from_root(input.path, rel),
        None => Some(input.path.parent().unwrap_or(Path::new("")).join(path)),
    }
}

/// Whether a path written in a call ends in `.yml` or `.yaml` (a reusable workflow, not a
/// local action's folder).
fn names_yaml(written: &str) -> bool {
    let lower = written.to_ascii_lowercase();
    lower.ends_with(".yml") || lower.ends_with(".yaml")
}

/// The parameter (input) a value written as exactly `${{ parameters.x }}` (`${{ inputs.x
/// }}`) is.
fn param_ref(written: &str) -> Option<&str> {
    let e = written.trim().strip_prefix("${{")?.strip_suffix("}}")?.trim();
    let n = e
        .strip_prefix("parameters.")
        .or_else(|| e.strip_prefix("inputs."))?;
    n.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        .then_some(n)
}

/// The definitions a call of a template that is a file of the project makes (Azure
/// Pipelines `- template: templates/x.yml` with `parameters:`, a GitHub job's `uses:
/// ./.github/workflows/x.yml` with `with:`): the file's own, read with the values the call
/// passes (its defaults for the others), placed as a module call's are
/// ([`ModuleCall::definition`]). `None` when `map` calls no template of the project. A
/// template already being read (a cycle), deeper than [`MAX_MODULE_DEPTH`] or beyond
/// [`MAX_MODULE_CALLS`] calls is not read.
fn local_call(
    input: &Input<'_>,
    doc: &Document,
    site: Site,
    scope: &WfOuter<'_>,
    calls: &mut Calls,
) -> Option<Vec<ComputeDef>> {
    let Site { map, from } = site;
    let (key, args_key, github) = if doc.get(map, "template").is_some() {
        ("template", "parameters", false)
    } else {
        ("uses", "with", true)
    };
    let entry = doc.get_entry(map, key)?;
    let path_node = doc.resolve(entry.value);
    let written = str_of(doc, path_node)?;
    let (target, source) = local_template(input, written, github).into_iter().find_map(|t| {
        let display = crate::discover::display_of(&t);
        input.files.read(&t, &display).map(|s| (t, s))
    })?;
    let action = github && !names_yaml(written);
    let target_key = path_key(&target);
    if calls.chain.contains(&target_key) || calls.chain.len() > MAX_MODULE_DEPTH || calls.budget == 0 {
        return Some(Vec::new());
    }
    calls.budget -= 1;
    let mut args = Vec::new();
    let mut given = Given::new();
    if let Some(a) = doc.get(map, args_key)
        && let Value::Map(entries) = doc.value(doc.resolve(a))
    {
        for e in entries {
            let name = doc.key_string(e.key).into_owned();
            let node = doc.resolve(e.value);
            let n = doc.node(node);
            let span = inner(n.span, n.style);
            let value = scope.value(node, &format!("`{name}`"));
            let in_place = input_exact(n.style) && !matches!(&n.value, Value::Str(s) if s.contains('$'));
            let val = match (&value, &n.value) {
                (ScriptVal::Known { .. }, Value::Int(i)) => Ev::int(*i),
                (ScriptVal::Known { .. }, Value::Bool(b)) => Ev::boolean(*b),
                (ScriptVal::Known { text, literal }, _) => Ev::text(text.clone()).with_origin(*literal),
                (ScriptVal::Dynamic(why), _) => Ev::unknown(why.clone()),
            };
            // A list or mapping (written there, or as exactly `${{ parameters.x }}` / a
            // loop's variable naming one) is passed whole, for the template's loops.
            let whole = match &n.value {
                Value::Seq(_) | Value::Map(_) => Some(scope.lit(node, &format!("`{name}`"), 0)),
                Value::Str(s) => (s.trim().strip_prefix("${{"))
                    .and_then(|e| e.strip_suffix("}}"))
                    .and_then(|e| scope.lit_at(e))
                    .filter(|l| !matches!(l, Lit::One(_))),
                _ => None,
            };
            let passed = match (whole, value) {
                (Some(l), _) => l,
                (None, ScriptVal::Known { text, .. }) => Lit::One(ScriptVal::known(text, None)),
                (None, d) => Lit::One(d),
            };
            given.insert(name.clone(), passed.without_spans());
            let leaf = Leaf {
                span,
                written: input.source.slice(span).to_string(),
                val,
                literal: in_place.then_some(span),
            };
            args.push((name, leaf, Some(doc.node(e.key).span)));
        }
    }
    let loaded = crate::load::parse_source(source.clone(), crate::load::Format::Yaml, &Default::default());
    let kinds = vec![None; loaded.documents.len()];
    let called = Input {
        path: &target,
        source: &source,
        documents: &loaded.documents,
        kinds: &kinds,
        files: input.files,
    };
    let mut found = Definitions::default();
    calls.chain.push(target_key);
    read_file(&called, &given, calls, &mut found);
    calls.chain.pop();
    let label = match (github, action) {
        (true, true) => "local action call",
        (true, false) => "reusable workflow call",
        _ if from.is_some() => "`extends`",
        _ => "template call",
    };
    let call = ModuleCall {
        display: &input.source.path,
        whole: call_span(doc, site),
        label,
        path: written,
        source: inner(doc.node(path_node).span, doc.node(path_node).style),
        source_key: Some(doc.node(entry.key).span),
        args: &args,
        prefix: "",
        note: None,
        verb: "calls the module",
        text: None,
    };
    let mut out = Vec::new();
    for mut def in found.computes {
        // A setting written as exactly a parameter the call passes is at its argument.
        for s in std::iter::once(&mut def.name).chain(def.fields.iter_mut().map(|(_, s)| s)) {
            if let Some(p) = param_ref(&s.written).filter(|p| args.iter().any(|(n, ..)| n == p)) {
                s.written = p.to_string();
            }
        }
        let at = format!("{}:{}", def.file, super::common::line_of(&source, def.span.start));
        out.push(call.definition(def, &at));
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::facts::computes::Scalar;

    fn run(text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        super::super::iac::read_for_test(read, dir.path(), "ci.yml", text)
    }

    #[test]
    fn github_run_with_env_and_inputs() {
        let text = "on:\n  workflow_dispatch:\n    inputs:\n      instance_name:\n        default: def-cluster\nenv:\n  SIZE: Standard_NC6\njobs:\n  build:\n    env:\n      TIER: low_priority\n    steps:\n      - name: create\n        run: |\n          # amlint: ignore[AML702]\n          az ml compute create --name ${{ github.event.inputs.instance_name }} \\\n            --type amlcompute --size $SIZE --tier ${{ env.TIER }} --max-instances $(nproc)\n";
        let out = run(text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("def-cluster"), "{:?}", d.name);
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$SIZE");
        assert_eq!(&text[size.origin.unwrap().range()], "Standard_NC6");
        assert_eq!(
            d.get("tier").unwrap().value,
            Some(Scalar::Str("low_priority".into()))
        );
        assert!(
            d.get("max_instances")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("output of a command")
        );
        assert_eq!(out.comments.len(), 1);
        assert_eq!(out.comments[0].target_line, Some(16));
    }

    /// A template call's parameter given as a variable's macro: the value is the
    /// variable's, and its literal is the origin (labelled where the findings are).
    #[test]
    fn a_template_parameter_from_a_variable_has_the_variables_literal_as_origin() {
        let text = "variables:\n  gpu_size: Standard_NC6\nsteps:\n  - template: templates/create-compute.yml@mlops-templates\n    parameters:\n      cluster_name: gpu-b\n      size: $(gpu_size)\n";
        let out = run(text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$(gpu_size)");
        let origin = size.origin.expect("the variable's literal");
        assert_eq!(&text[origin.range()], "Standard_NC6");
        assert!(origin.start < 30, "the one under `variables:`");
        assert!(!size.in_place);
    }

    /// A `PowerShell` task's inline `script:` is PowerShell (its assignments are read),
    /// read once; a `Bash` task's, with the same inputs, is bash.
    #[test]
    fn a_powershell_tasks_script_is_read_as_powershell_once() {
        let text = "steps:\n  - task: PowerShell@2\n    inputs:\n      targetType: inline\n      script: |\n        $Size = \"Standard_NC6\"\n        az ml compute create --name ps2 --type amlcompute --size $Size\n  - task: Bash@3\n    inputs:\n      targetType: inline\n      script: |\n        SIZE=Standard_NC6\n        az ml compute create --name sh3 --type amlcompute --size $SIZE\n";
        let out = run(text);
        let sizes: Vec<(Option<&str>, Option<Scalar>)> = out
            .computes
            .iter()
            .map(|d| (d.known_name(), d.get("size").unwrap().value.clone()))
            .collect();
        let nc6 = Some(Scalar::Str("Standard_NC6".into()));
        assert_eq!(sizes, [(Some("ps2"), nc6.clone()), (Some("sh3"), nc6)]);
    }

    /// An `AzurePowerShell` task's inline script is PowerShell: its variables are read,
    /// and a command inside an `if` block runs under a condition.
    #[test]
    fn an_azure_powershell_tasks_inline_script_is_read_as_powershell() {
        let text = "steps:\n  - task: AzurePowerShell@5\n    inputs:\n      ScriptType: InlineScript\n      Inline: |\n        $Size = \"Standard_NC6\"\n        if ($env:CREATE -eq \"true\") {\n          az ml compute create --name azps --type amlcompute --size $Size\n        }\n";
        let out = run(text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("azps"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$Size");
        assert!(
            d.notes.iter().any(|n| n.contains("under a condition")),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn azure_pipelines_scripts_macros_and_templates() {
        let text = "parameters:\n  - name: size\n    default: STANDARD_D4S_V3\nvariables:\n  - name: cluster.name\n    value: cpu-cluster\nsteps:\n  - task: AzureCLI@2\n    inputs:\n      scriptType: pscore\n      inlineScript: az ml compute create -n $(cluster.name) --size ${{ parameters.size }} --type amlcompute\n  - template: templates/${{ variables.version }}/create-compute.yml@mlops-templates\n    parameters:\n      cluster_name: gpu-cluster\n      size: \"Standard_NC6\"\n      min_instances: 0\n      max_instances: 4\n      cluster_tier: low_priority\n  - bash: az ml compute create --name $CLUSTER_NAME --type amlcompute\n";
        let out = run(text);
        assert_eq!(out.computes.len(), 3, "{:?}", out.computes);
        let names: Vec<Option<&str>> = out.computes.iter().map(|d| d.known_name()).collect();
        assert!(
            names.contains(&Some("cpu-cluster")) && names.contains(&Some("gpu-cluster")),
            "{names:?}"
        );
        let t = out
            .computes
            .iter()
            .find(|d| d.known_name() == Some("gpu-cluster"))
            .unwrap();
        let size = t.get("size").unwrap();
        assert_eq!(&text[size.span.range()], "Standard_NC6");
        assert!(size.in_place);
        assert_eq!(t.get("min_instances").unwrap().value, Some(Scalar::Int(0)));
        assert_eq!(t.ctype().as_deref(), Some("amlcompute"));
        let c = out
            .computes
            .iter()
            .find(|d| d.known_name() == Some("cpu-cluster"))
            .unwrap();
        assert_eq!(c.size(), Some("STANDARD_D4S_V3"));
        // `$CLUSTER_NAME` is the variable `cluster.name` as the agent exports it.
        assert_eq!(
            out.computes
                .iter()
                .filter(|d| d.known_name() == Some("cpu-cluster"))
                .count(),
            2
        );
    }

    #[test]
    fn variables_templates_under_conditions() {
        // Audit 11, defect 10: the mlops-v2 layout, one template per branch.
        let dir = tempfile::tempdir().unwrap();
        for (file, sku) in [
            ("config-infra-prod.yml", "Standard_NC6"),
            ("config-infra-dev.yml", "Standard_DS3_v2"),
        ] {
            let vars = format!("variables:\n  training_target: cond-cluster\n  training_target_sku: {sku}\n");
            let _ = super::super::iac::read_for_test(|_, _| {}, dir.path(), file, &vars);
        }
        let text = "variables:\n- ${{ if eq(variables['Build.SourceBranchName'], 'main') }}:\n  - template: config-infra-prod.yml\n- ${{ else }}:\n  - template: config-infra-dev.yml\n- name: version\n  value: aml-cli-v2\nsteps:\n- template: templates/${{ variables.version }}/create-compute.yml@mlops-templates\n  parameters:\n    cluster_name: $(training_target)\n    size: $(training_target_sku)\n";
        let out = super::super::iac::read_for_test(read, dir.path(), "ci.yml", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        // Both branches name the compute alike; they disagree on its size.
        assert_eq!(d.known_name(), Some("cond-cluster"));
        assert_eq!(d.size(), None);
        let why = d.get("size").unwrap().why.clone().unwrap();
        assert!(
            why.contains("set differently")
                && why.contains("config-infra-prod.yml")
                && why.contains("config-infra-dev.yml"),
            "{why}"
        );
        // A condition nested in a branch is part of it.
        let text = "variables:\n- ${{ if eq(variables['Build.SourceBranchName'], 'main') }}:\n  - ${{ if eq(variables['Build.Reason'], 'Manual') }}:\n    - template: config-infra-prod.yml\n- ${{ else }}:\n  - template: config-infra-prod.yml\nsteps:\n- template: templates/x/create-compute.yml@mlops-templates\n  parameters:\n    cluster_name: $(training_target)\n    size: $(training_target_sku)\n";
        let out = super::super::iac::read_for_test(read, dir.path(), "ci3.yml", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(
            (d.known_name(), d.size()),
            (Some("cond-cluster"), Some("Standard_NC6"))
        );
        // A variable only one branch sets is not known.
        let text = "variables:\n- ${{ if eq(variables['Build.SourceBranchName'], 'main') }}:\n  - template: config-infra-prod.yml\nsteps:\n- template: templates/x/create-compute.yml@mlops-templates\n  parameters:\n    cluster_name: $(training_target)\n";
        let out = super::super::iac::read_for_test(read, dir.path(), "ci2.yml", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), None);
        assert!(
            d.name.why.as_deref().unwrap().contains("only under a condition"),
            "{:?}",
            d.name
        );
    }

    #[test]
    fn variables_templates() {
        let dir = tempfile::tempdir().unwrap();
        let vars = "variables:\n  training_target: tv-cluster\n  training_target_sku: Standard_NC6\n  training_target_max_nodes: 4\n";
        let _ = super::super::iac::read_for_test(|_, _| {}, dir.path(), "config-infra.yml", vars);
        let text = "variables:\n- template: config-infra.yml\nsteps:\n- template: /aml-cli-v2/create-compute.yml\n  parameters:\n    cluster_name: $(training_target)\n    cluster_size: ${{ variables.training_target_sku }}\n    max_instances: ${{ variables.training_target_max_nodes }}\n";
        // `@self` (issue 35) names the same file of this repository.
        let at_self = text.replacen("config-infra.yml", "config-infra.yml@self", 1);
        for text in [text, at_self.as_str()] {
            let out = super::super::iac::read_for_test(read, dir.path(), "ci.yml", text);
            let [d] = out.computes.as_slice() else {
                panic!("{:?}", out.computes)
            };
            assert_eq!(d.known_name(), Some("tv-cluster"), "{text}");
            assert_eq!(d.size(), Some("Standard_NC6"));
            assert_eq!(d.get("max_instances").unwrap().value, Some(Scalar::Int(4)));
            assert_eq!(
                &text[d.get("size").unwrap().span.range()],
                "${{ variables.training_target_sku }}"
            );
        }
    }

    /// A project in a temporary directory: each file written (its folders made), then the
    /// file `name` read with `text`.
    fn in_project(files: &[(&str, &str)], name: &str, text: &str) -> (tempfile::TempDir, Definitions) {
        let dir = tempfile::tempdir().unwrap();
        for (path, body) in files.iter().chain([&(name, text)]) {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, body).unwrap();
        }
        let out = super::super::iac::read_for_test(read, dir.path(), name, text);
        (dir, out)
    }

    fn compute_yaml(name: &str, size: &str) -> String {
        format!(
            "$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json\nname: {name}\ntype: amlcompute\nsize: {size}\n"
        )
    }

    /// A definition's name, where it is and where its size is (line, column).
    type Placed = (Option<String>, (u32, u32), (u32, u32));

    /// Each definition's name, its line and column, and the line and column of its size
    /// (the `--file` word the YAML's values are reported at).
    fn placed(text: &str, out: &Definitions) -> Vec<Placed> {
        let source = crate::source::SourceFile::new("ci.yml", text.to_string());
        let at = |offset: u32| {
            let p = source.position(offset);
            (p.line, p.column)
        };
        out.computes
            .iter()
            .map(|d| {
                let size = d.get("size").map_or(d.name.span, |s| s.span);
                (d.known_name().map(String::from), at(d.span.start), at(size.start))
            })
            .collect()
    }

    /// `-f compute.yml` is read in the step's working directory: a workflow's and a job's
    /// `defaults.run.working-directory` (the job's wins) and a step's `working-directory`
    /// (which wins over both), relative to the repository; a directory that is not a
    /// literal inside it is not known, and the file is looked for as in a plain script
    /// (from the workflow's folder up: here the root's `compute.yml`).
    #[test]
    fn a_github_steps_working_directory_is_where_its_file_is_read() {
        let text = "on: workflow_dispatch\ndefaults:\n  run:\n    working-directory: infra\njobs:\n  a:\n    steps:\n      - run: az ml compute create -f compute.yml\n  b:\n    defaults:\n      run:\n        working-directory: ./mlops/azureml/\n    steps:\n      - run: az ml compute create -f compute.yml\n      - working-directory: mlops/../infra\n        run: az ml compute create --file compute.yml\n      - run: az ml compute create -f compute.yml\n        working-directory: ${{ env.DIR }}\n      - run: az ml compute create -f compute.yml\n        working-directory: ../elsewhere\n";
        let (_dir, out) = in_project(
            &[
                ("compute.yml", &compute_yaml("root-cluster", "Standard_DS3_v2")),
                (
                    "infra/compute.yml",
                    &compute_yaml("infra-cluster", "Standard_D2_v3"),
                ),
                (
                    "mlops/azureml/compute.yml",
                    &compute_yaml("gpu-cluster", "Standard_NC6"),
                ),
            ],
            ".github/workflows/infra.yml",
            text,
        );
        let name = |n: &str| Some(n.to_string());
        assert_eq!(
            placed(text, &out),
            [
                (name("infra-cluster"), (8, 14), (8, 38)),
                (name("gpu-cluster"), (14, 14), (14, 38)),
                (name("infra-cluster"), (16, 14), (16, 42)),
                (name("root-cluster"), (17, 14), (17, 38)),
                (name("root-cluster"), (19, 14), (19, 38)),
            ]
        );
        assert_eq!(out.computes[1].size(), Some("Standard_NC6"));
        assert!(
            out.computes[1]
                .from_file
                .as_deref()
                .unwrap()
                .ends_with("mlops/azureml/compute.yml"),
            "{:?}",
            out.computes[1].from_file
        );
    }

    /// A `run:` step with no working directory runs at the repository's root
    /// (`$GITHUB_WORKSPACE`): `-f infra/compute.yml` is the root's `infra/compute.yml`, never
    /// one under `.github/workflows` (where a plain script's would be looked for first).
    #[test]
    fn a_github_step_without_a_working_directory_runs_at_the_repository_root() {
        let text =
            "on: push\njobs:\n  a:\n    steps:\n      - run: az ml compute create -f infra/compute.yml\n";
        let beside = (
            ".github/workflows/infra/compute.yml",
            compute_yaml("beside-workflow", "Standard_NC6"),
        );
        let root = ("infra/compute.yml", compute_yaml("root-infra", "Standard_D2_v3"));
        let (_dir, out) = in_project(
            &[(beside.0, &beside.1), (root.0, &root.1)],
            ".github/workflows/x.yml",
            text,
        );
        assert_eq!(
            placed(text, &out),
            [(Some("root-infra".to_string()), (5, 14), (5, 38))]
        );
        assert_eq!(out.computes[0].size(), Some("Standard_D2_v3"));
        // Only beside the workflow: not the file the step reads.
        let (_dir, out) = in_project(&[(beside.0, &beside.1)], ".github/workflows/x.yml", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), None);
        assert_eq!(
            d.name.why.as_deref(),
            Some("the compute YAML `infra/compute.yml` is not in the project")
        );
        assert_eq!(&text[d.name.span.range()], "infra/compute.yml");
    }

    /// A workflow called `compute.yml` is not the compute YAML its `-f compute.yml` names,
    /// with a working directory or without one.
    #[test]
    fn a_workflow_is_not_the_compute_yaml_it_names() {
        let text = "on: workflow_dispatch\njobs:\n  a:\n    steps:\n      - run: az ml compute create -f compute.yml\n      - run: az ml compute create -f compute.yml\n        working-directory: .github/workflows\n";
        let (_dir, out) = in_project(
            &[("compute.yml", &compute_yaml("root-cluster", "Standard_NC6"))],
            ".github/workflows/compute.yml",
            text,
        );
        let [found, itself] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(found.known_name(), Some("root-cluster"));
        assert_eq!(found.size(), Some("Standard_NC6"));
        assert_eq!(itself.known_name(), None);
        assert!(
            itself.name.why.as_deref().unwrap().contains("not in the project"),
            "{:?}",
            itself.name
        );
        assert_eq!(
            placed(text, &out)[1],
            (None, (6, 14), (6, 38)),
            "the unknown name is the file's word"
        );
    }

    /// Azure Pipelines: a `script:`/`bash:` step's `workingDirectory:` and an `AzureCLI`
    /// task's `workingDirectory` input, relative to the repository (not to the pipeline's
    /// folder); a macro (`$(dir)`) is not known.
    #[test]
    fn an_azure_pipelines_working_directory_is_where_its_file_is_read() {
        let text = "steps:\n  - script: az ml compute create -f compute.yml\n    workingDirectory: mlops/azureml\n  - task: AzureCLI@2\n    inputs:\n      scriptType: bash\n      scriptLocation: inlineScript\n      cwd: infra\n      inlineScript: |\n        az ml compute create --file compute.yml\n  - bash: az ml compute create -f compute.yml\n    workingDirectory: $(dir)\n";
        let (_dir, out) = in_project(
            &[
                (
                    "pipelines/compute.yml",
                    &compute_yaml("beside-cluster", "Standard_DS3_v2"),
                ),
                (
                    "infra/compute.yml",
                    &compute_yaml("infra-cluster", "Standard_D2_v3"),
                ),
                (
                    "mlops/azureml/compute.yml",
                    &compute_yaml("gpu-cluster", "Standard_NC6"),
                ),
            ],
            "pipelines/ci.yml",
            text,
        );
        let name = |n: &str| Some(n.to_string());
        assert_eq!(
            placed(text, &out),
            [
                (name("gpu-cluster"), (2, 13), (2, 37)),
                (name("infra-cluster"), (10, 9), (10, 37)),
                (name("beside-cluster"), (11, 11), (11, 35)),
            ]
        );
    }

    /// A working directory written from the checkout's root (audit 15, case 02): GitHub's
    /// `${{ github.workspace }}` and `$GITHUB_WORKSPACE`, Azure Pipelines'
    /// `$(System.DefaultWorkingDirectory)` and `$(Build.SourcesDirectory)`, then a path,
    /// are that path in the repository; another expression, or a variable whose name only
    /// starts alike, is not known (the file is looked for as in a plain script).
    #[test]
    fn a_working_directory_from_the_checkout_root_is_in_the_repository() {
        let files = [
            ("compute.yml", compute_yaml("root-cluster", "Standard_DS3_v2")),
            (
                "pipelines/compute.yml",
                compute_yaml("beside-cluster", "Standard_DS3_v2"),
            ),
            (
                "mlops/azureml/compute.yml",
                compute_yaml("gpu-cluster", "Standard_NC6"),
            ),
        ];
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let name = |n: &str| Some(n.to_string());
        let github = "on: push\njobs:\n  a:\n    steps:\n      - run: az ml compute create -f compute.yml\n        working-directory: ${{ github.workspace }}/mlops/azureml\n      - run: az ml compute create -f compute.yml\n        working-directory: $GITHUB_WORKSPACE/mlops/azureml\n      - run: az ml compute create -f compute.yml\n        working-directory: ${{github.workspace}}\n      - run: az ml compute create -f compute.yml\n        working-directory: ${{ runner.temp }}/mlops/azureml\n      - run: az ml compute create -f compute.yml\n        working-directory: $GITHUB_WORKSPACE_2/mlops/azureml\n";
        let (_dir, out) = in_project(&files, ".github/workflows/ci.yml", github);
        let names: Vec<_> = placed(github, &out).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(
            names,
            [
                name("gpu-cluster"),
                name("gpu-cluster"),
                name("root-cluster"),
                name("root-cluster"),
                name("root-cluster")
            ]
        );
        let azure = "steps:\n  - script: az ml compute create -f compute.yml\n    workingDirectory: $(System.DefaultWorkingDirectory)/mlops/azureml\n  - bash: az ml compute create -f compute.yml\n    workingDirectory: $(Build.SourcesDirectory)\\mlops\\azureml\n  - bash: az ml compute create -f compute.yml\n    workingDirectory: $(Agent.TempDirectory)/mlops/azureml\n";
        let (_dir, out) = in_project(&files, "pipelines/ci.yml", azure);
        let names: Vec<_> = placed(azure, &out).into_iter().map(|(n, _, _)| n).collect();
        assert_eq!(
            names,
            [name("gpu-cluster"), name("gpu-cluster"), name("beside-cluster")]
        );
    }

    #[test]
    fn github_template_call_and_unknown_values() {
        let text = "jobs:\n  create-compute:\n    uses: Azure/mlops-templates/.github/workflows/create-compute.yml@main\n    with:\n      cluster_name: ${{ needs.get-config.outputs.cluster }}\n      size: STANDARD_D4S_V3\n";
        let out = run(text);
        let [d] = out.computes.as_slice() else { panic!() };
        assert!(
            d.name
                .why
                .as_deref()
                .unwrap()
                .contains("only known when the workflow runs"),
            "{:?}",
            d.name
        );
        assert_eq!(d.size(), Some("STANDARD_D4S_V3"));
    }

    /// The text a setting's span holds in `text`.
    fn at<'t>(text: &'t str, s: &Setting) -> &'t str {
        &text[s.span.start as usize..s.span.end as usize]
    }

    const LOCAL_TEMPLATE: &str = "parameters:\n- name: instance_name\n  type: string\n- name: size\n  type: string\n  default: Standard_DS3_v2\n- name: tier\n  default: low_priority\nsteps:\n  - task: AzureCLI@2\n    inputs:\n      scriptType: bash\n      inlineScript: |\n        az ml compute create --name ${{ parameters.instance_name }} \\\n          --type amlcompute --size ${{ parameters.size }} --tier ${{ parameters.tier }}\n";

    #[test]
    fn a_local_templates_own_command_is_read_with_the_calls_parameters() {
        let text = "variables:\n  target: ado-instance-tl01\nsteps:\n- template: /templates/create-compute.yml\n  parameters:\n    instance_name: $(target)\n    size: Standard_NC6\n";
        let (_d, out) = in_project(
            &[("templates/create-compute.yml", LOCAL_TEMPLATE)],
            "ci.yml",
            text,
        );
        assert_eq!(out.computes.len(), 1, "{:?}", out.computes);
        let d = &out.computes[0];
        assert_eq!(d.known_name(), Some("ado-instance-tl01"));
        // The name from the caller's variable: at the argument, its literal as origin.
        assert_eq!(at(text, &d.name), "$(target)");
        assert!(!d.name.in_place);
        assert_eq!(
            d.name.origin.map(|o| &text[o.start as usize..o.end as usize]),
            Some("ado-instance-tl01")
        );
        // A literal argument: in place.
        let size = d.get("size").unwrap();
        assert_eq!(
            (at(text, size), size.in_place, size.inherited),
            ("Standard_NC6", true, false)
        );
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        // What the template writes itself, and a default: inherited, at the call's path.
        // (A cluster: a compute instance has no `tier`, which the CLI refuses.)
        for (path, value) in [("type", "amlcompute"), ("tier", "low_priority")] {
            let s = d.get(path).unwrap();
            assert_eq!(s.value, Some(Scalar::Str(value.into())), "{path}");
            assert!(s.inherited, "{path}");
            assert_eq!(at(text, s), "/templates/create-compute.yml", "{path}");
        }
        assert_eq!(
            &text[d.span.start as usize..d.span.start as usize + 9],
            "template:"
        );
        assert_eq!(
            d.from_file
                .as_deref()
                .map(|f| f.ends_with("templates/create-compute.yml")),
            Some(true)
        );
    }

    #[test]
    fn a_local_reusable_workflow_is_read_with_the_calls_inputs() {
        let called = "on:\n  workflow_call:\n    inputs:\n      cluster_name:\n        type: string\n      min_instances:\n        type: number\n        default: 1\njobs:\n  c:\n    steps:\n      - run: az ml compute create --name ${{ inputs.cluster_name }} --type AmlCompute --min-instances ${{ inputs.min_instances }} --max-instances ${{ inputs.max }} --enable-node-public-ip false\n";
        let text = "jobs:\n  create:\n    uses: ./.github/workflows/create-compute.yml\n    with:\n      cluster_name: cpu-cluster\n      max: 4\n";
        let (_d, out) = in_project(
            &[(".github/workflows/create-compute.yml", called)],
            ".github/workflows/train.yml",
            text,
        );
        assert_eq!(out.computes.len(), 1, "{:?}", out.computes);
        let d = &out.computes[0];
        assert_eq!(d.known_name(), Some("cpu-cluster"));
        assert_eq!((at(text, &d.name), d.name.in_place), ("cpu-cluster", true));
        let max = d.get("max_instances").unwrap();
        assert_eq!((at(text, max), max.value.clone()), ("4", Some(Scalar::Int(4))));
        assert!(max.in_place);
        let min = d.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.inherited), (Some(Scalar::Int(1)), true));
        let ip = d.get("enable_node_public_ip").unwrap();
        assert_eq!(
            (ip.value.clone(), ip.inherited),
            (Some(Scalar::Bool(false)), true)
        );
        assert_eq!(at(text, ip), "./.github/workflows/create-compute.yml");
    }

    #[test]
    fn template_calls_in_a_cycle_or_of_another_repository() {
        // A template that calls itself: read once, not followed again.
        let own = "parameters:\n- name: n\n  default: x\nsteps:\n- template: t.yml\n  parameters:\n    n: y\n- script: az ml compute create --name ${{ parameters.n }} --type amlcompute\n";
        let text = "steps:\n- template: t.yml\n  parameters:\n    n: c1\n";
        let (_d, out) = in_project(&[("t.yml", own)], "ci.yml", text);
        let names: Vec<_> = out
            .computes
            .iter()
            .map(|d| d.known_name().map(String::from))
            .collect();
        assert_eq!(names, [Some("c1".to_string())]);
        // The same name with a repository: the mlops templates' parameters.
        let text = "steps:\n- template: t.yml@mlops-templates\n  parameters:\n    n: c1\n";
        let (_d, out) = in_project(&[("t.yml", own)], "ci.yml", text);
        assert!(out.computes.is_empty());
        // A long chain stops at the depth bound.
        let mut files = Vec::new();
        for i in 0..20 {
            files.push((format!("t{i}.yml"), format!("steps:\n- template: t{}.yml\n- script: az ml compute create --name c{i} --type amlcompute\n", i + 1)));
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let (_d, out) = in_project(&files, "ci.yml", "steps:\n- template: t0.yml\n");
        assert_eq!(out.computes.len(), MAX_MODULE_DEPTH);
    }

    /// A stage template that creates a compute from its two parameters.
    const STAGE: &str = "parameters:\n- name: clusterName\n  type: string\n- name: clusterSize\n  type: string\nstages:\n- stage: compute\n  jobs:\n  - job: create\n    steps:\n    - script: az ml compute create --name ${{ parameters.clusterName }} --type AmlCompute --size ${{ parameters.clusterSize }}\n";

    fn names(out: &Definitions) -> Vec<Option<String>> {
        out.computes
            .iter()
            .map(|d| d.known_name().map(String::from))
            .collect()
    }

    /// Audit 17, case 02: a job's literal `strategy: matrix` makes one definition per leg.
    /// Azure Pipelines: each leg's variables (`$(x)`, and `$X` as the agent exports them).
    /// GitHub: the combinations of the keys' lists, less `exclude`, with `include` extending
    /// the combinations its original values agree with or adding its own.
    #[test]
    fn a_jobs_literal_matrix_makes_one_definition_per_leg() {
        let ado = "jobs:\n  - job: c\n    strategy:\n      matrix:\n        cpu:\n          cluster: cpu-cluster\n          size: Standard_DS3_v2\n        gpu:\n          cluster: gpu-cluster\n          size: Standard_NC6\n    steps:\n      - script: az ml compute create --name $(cluster) --size $SIZE --type amlcompute\n";
        let out = run(ado);
        assert_eq!(
            names(&out),
            [Some("cpu-cluster".to_string()), Some("gpu-cluster".to_string())]
        );
        let size = out.computes[1].get("size").unwrap();
        assert_eq!(&ado[size.span.range()], "$SIZE");
        assert_eq!(&ado[size.origin.unwrap().range()], "Standard_NC6");
        assert!(
            out.computes[1]
                .notes
                .iter()
                .any(|n| n == "made by leg `gpu` (2 of 2) of the job's `strategy: matrix`"),
            "{:?}",
            out.computes[1].notes
        );
        let gh = "on: push\njobs:\n  c:\n    strategy:\n      matrix:\n        region: [eu, us]\n        size: [Standard_DS3_v2, Standard_NC6]\n        exclude:\n          - {region: us, size: Standard_NC6}\n        include:\n          - {region: eu, size: Standard_NC6, tier: low_priority}\n          - {region: asia, size: Standard_D4s_v3}\n    steps:\n      - run: az ml compute create --name c-${{ matrix.region }} --size ${{ matrix.size }} --tier ${{ matrix.tier }} --type amlcompute\n";
        let out = run(gh);
        let got: Vec<(Option<String>, Option<String>, Option<String>)> = out
            .computes
            .iter()
            .map(|d| {
                let tier = d.get("tier").and_then(|t| t.value.as_ref()).map(|v| v.display());
                (d.known_name().map(String::from), d.size().map(String::from), tier)
            })
            .collect();
        let c = |n: &str, s: &str, t: Option<&str>| {
            (Some(n.to_string()), Some(s.to_string()), t.map(String::from))
        };
        assert_eq!(
            got,
            [
                c("c-eu", "Standard_DS3_v2", None),
                c("c-eu", "Standard_NC6", Some("low_priority")),
                c("c-us", "Standard_DS3_v2", None),
                c("c-asia", "Standard_D4s_v3", None),
            ]
        );
        // A combination without the key: unknown, never another's value.
        assert!(
            out.computes[0]
                .get("tier")
                .unwrap()
                .why
                .as_deref()
                .unwrap_or_default()
                .contains("`matrix.tier` is not set"),
            "{:?}",
            out.computes[0].get("tier")
        );
    }

    /// A matrix that is not written out (an expression), or whose combinations exceed the
    /// file's budget, walks the job once, its values unknown.
    #[test]
    fn a_matrix_not_written_out_or_too_large_is_walked_once() {
        let expr = "on: push\njobs:\n  c:\n    strategy:\n      matrix: ${{ fromJson(needs.a.outputs.m) }}\n    steps:\n      - run: az ml compute create --name ${{ matrix.n }} --type amlcompute\n";
        let out = run(expr);
        assert_eq!(names(&out), [None]);
        let values: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
        let wide = format!(
            "on: push\njobs:\n  c:\n    strategy:\n      matrix:\n        a: [{0}]\n        b: [{0}]\n    steps:\n      - run: az ml compute create --name ${{{{ matrix.a }}}} --type amlcompute\n",
            values.join(", ")
        );
        let out = run(&wide);
        assert_eq!(names(&out), [None]);
        let legs: String = (0..200)
            .map(|i| format!("        l{i}:\n          n: c{i}\n"))
            .collect();
        let many = format!(
            "jobs:\n  - job: c\n    strategy:\n      matrix:\n{legs}    steps:\n      - script: az ml compute create --name $(n) --type amlcompute\n"
        );
        let out = run(&many);
        assert_eq!(out.computes.len(), MAX_MODULE_CALLS + 1);
        assert!(
            out.computes[MAX_MODULE_CALLS]
                .name
                .why
                .as_deref()
                .unwrap_or_default()
                .contains("are not expanded"),
            "{:?}",
            out.computes[MAX_MODULE_CALLS].name
        );
    }

    /// Audit 14, case 05: a pipeline's `extends: template:` (block or flow mapping) is a
    /// call of that template with its `parameters:`, made at `extends`; one of another
    /// repository is not read; templates that extend each other are each read once.
    #[test]
    fn a_pipeline_that_extends_a_template_calls_it_at_extends() {
        let files = [("templates/stage.yml", STAGE)];
        let text = "trigger: none\nextends:\n  template: templates/stage.yml\n  parameters:\n    clusterName: gpu-cluster\n    clusterSize: Standard_NC6\n";
        let (_d, out) = in_project(&files, "ci.yml", text);
        let name = |n: &str| Some(n.to_string());
        assert_eq!(placed(text, &out), [(name("gpu-cluster"), (2, 1), (6, 18))]);
        let d = &out.computes[0];
        assert_eq!(d.size(), Some("Standard_NC6"));
        assert!(d.get("size").unwrap().in_place);
        assert!(d.command.starts_with("`extends`"), "{}", d.command);
        let text = "extends: { template: templates/stage.yml, parameters: { clusterName: flow-cluster, clusterSize: Standard_NC6 } }\n";
        let (_d, out) = in_project(&files, "ci.yml", text);
        assert_eq!(placed(text, &out), [(name("flow-cluster"), (1, 1), (1, 97))]);
        // A template of another repository stays unknown, as a `- template:` of it does.
        let text =
            "extends:\n  template: templates/stage.yml@shared\n  parameters:\n    clusterName: gpu-cluster\n";
        let (_d, out) = in_project(&files, "ci.yml", text);
        assert!(out.computes.is_empty(), "{:?}", out.computes);
        // a.yml extends b.yml, which extends a.yml: each read once.
        let a = "extends:\n  template: b.yml\n  parameters:\n    n: from-a\n";
        let b = "parameters:\n- name: n\n  default: own\nextends:\n  template: a.yml\nsteps:\n- script: az ml compute create --name ${{ parameters.n }} --type amlcompute\n";
        let (_d, out) = in_project(&[("b.yml", b)], "a.yml", a);
        assert_eq!(names(&out), [name("from-a")]);
    }

    /// A pipeline that loops over its object parameter's default list: each item nested
    /// in a loop over the item's own list.
    const LOOP: &str = "parameters:\n- name: clusters\n  type: object\n  default:\n  - name: nc-cluster\n    size: Standard_NC12\n    tiers: [low_priority, dedicated]\n  - name: cpu-cluster\n    size: Standard_DS3_v2\n    tiers: [dedicated]\nsteps:\n- ${{ each c in parameters.clusters }}:\n  - script: az ml compute create --name ${{ c.name }} --type AmlCompute --size ${{ c.size }}\n  - ${{ each t in c.tiers }}:\n    - bash: az ml compute create --name ${{ c.name }}-${{ t }} --type AmlCompute --tier ${{ t }}\n";

    /// Audit 14, case 05: `${{ each x in parameters.y }}` over a literal list makes one
    /// definition per item, at the loop's command, `${{ x.field }}` from the item (its
    /// literal the value's origin); a loop inside a loop iterates the item's list.
    #[test]
    fn each_over_a_literal_list_makes_one_definition_per_item() {
        let out = run(LOOP);
        let name = |n: &str| Some(n.to_string());
        assert_eq!(
            names(&out),
            [
                name("nc-cluster"),
                name("nc-cluster-low_priority"),
                name("nc-cluster-dedicated"),
                name("cpu-cluster"),
                name("cpu-cluster-dedicated"),
            ]
        );
        let at = placed(LOOP, &out);
        assert_eq!((at[0].1, at[0].2), ((13, 13), (13, 80)));
        assert_eq!((at[3].1, at[3].2), ((13, 13), (13, 80)));
        assert_eq!(at[1].1, (15, 13));
        let sizes: Vec<_> = out.computes.iter().map(|d| d.size()).collect();
        assert_eq!(sizes[0], Some("Standard_NC12"));
        assert_eq!(sizes[3], Some("Standard_DS3_v2"));
        let size = out.computes[0].get("size").unwrap();
        assert_eq!(&LOOP[size.span.range()], "${{ c.size }}");
        assert_eq!(&LOOP[size.origin.unwrap().range()], "Standard_NC12");
        assert_eq!(
            out.computes[2].get("tier").unwrap().value,
            Some(Scalar::Str("dedicated".into()))
        );
        assert!(
            out.computes[3]
                .notes
                .iter()
                .any(|n| n == "made by item 2 of 2 of `${{ each c in parameters.clusters }}` (line 12)"),
            "{:?}",
            out.computes[3].notes
        );
        assert!(
            out.computes[4]
                .notes
                .iter()
                .any(|n| n.contains("item 1 of 1 of `${{ each t in c.tiers }}`")),
            "{:?}",
            out.computes[4].notes
        );
    }

    /// `${{ each }}` over a mapping yields its entries as `key` / `value` pairs; in a
    /// template, over the list the call passes (written there, or the caller's own
    /// parameter passed whole); an empty list makes nothing.
    #[test]
    fn each_over_a_mapping_and_over_what_a_call_passes() {
        let text = "parameters:\n- name: sizes\n  type: object\n  default:\n    nc-a: Standard_NC6\n    ds-b: Standard_DS3_v2\njobs:\n- job: j\n  steps:\n  - ${{ each p in parameters.sizes }}:\n    - script: az ml compute create --name ${{ p.key }} --type AmlCompute --size ${{ p.value }}\n";
        let out = run(text);
        let name = |n: &str| Some(n.to_string());
        assert_eq!(names(&out), [name("nc-a"), name("ds-b")]);
        assert_eq!(out.computes[0].size(), Some("Standard_NC6"));
        assert_eq!(&text[out.computes[0].name.origin.unwrap().range()], "nc-a");
        let template = "parameters:\n- name: clusters\n  type: object\n  default: []\nsteps:\n- ${{ each c in parameters.clusters }}:\n  - script: az ml compute create --name ${{ c.name }} --type AmlCompute --size ${{ c.size }}\n";
        let files = [("t.yml", template)];
        let text = "steps:\n- template: t.yml\n  parameters:\n    clusters:\n    - name: passed-a\n      size: Standard_NC6\n    - {name: passed-b, size: Standard_D2_v3}\n";
        let (_d, out) = in_project(&files, "ci.yml", text);
        assert_eq!(names(&out), [name("passed-a"), name("passed-b")]);
        assert_eq!(placed(text, &out)[1].1, (2, 3));
        assert_eq!(out.computes[1].size(), Some("Standard_D2_v3"));
        let text = "parameters:\n- name: mine\n  type: object\n  default:\n  - {name: mine-a, size: Standard_NC6}\nextends:\n  template: t.yml\n  parameters:\n    clusters: ${{ parameters.mine }}\n";
        let (_d, out) = in_project(&files, "ci.yml", text);
        assert_eq!(names(&out), [name("mine-a")]);
        assert_eq!(placed(text, &out)[0].1, (6, 1));
        // A template called once per item, with the item's fields.
        let text = "parameters:\n- name: clusters\n  type: object\n  default:\n  - {name: per-a, size: Standard_NC6}\n  - {name: per-b, size: Standard_D2_v3}\nsteps:\n- ${{ each c in parameters.clusters }}:\n  - template: templates/stage.yml\n    parameters:\n      clusterName: ${{ c.name }}\n      clusterSize: ${{ c.size }}\n";
        let (_d, out) = in_project(&[("templates/stage.yml", STAGE)], "ci.yml", text);
        assert_eq!(names(&out), [name("per-a"), name("per-b")]);
        assert_eq!(out.computes[1].size(), Some("Standard_D2_v3"));
        assert_eq!(placed(text, &out)[1].1, (9, 5));
        // The template alone: its default, an empty list.
        let (_d, out) = in_project(&[], "t.yml", template);
        assert!(out.computes.is_empty(), "{:?}", out.computes);
    }

    /// A loop over what is not a literal of the repository (a parameter without a
    /// default, a variable, a field that is not there) is read once, its values unknown;
    /// a loop over thousands of items expands the first [`MAX_MODULE_CALLS`] and says so for
    /// the rest; loops nested deeper than [`MAX_MODULE_DEPTH`] are not expanded further.
    #[test]
    fn each_over_what_is_not_known_or_too_much() {
        let unknown = |text: &str| {
            let out = run(text);
            let [d] = out.computes.as_slice() else {
                panic!("{:?}", out.computes)
            };
            d.name.why.clone().unwrap()
        };
        let body = "  - script: az ml compute create --name ${{ c.name }} --type AmlCompute\n";
        let why = unknown(&format!(
            "parameters:\n- name: clusters\n  type: object\nsteps:\n- ${{{{ each c in parameters.clusters }}}}:\n{body}"
        ));
        assert!(why.contains("only known when the workflow runs"), "{why}");
        let why = unknown(&format!(
            "variables:\n  list: a\nsteps:\n- ${{{{ each c in variables.list }}}}:\n{body}"
        ));
        assert!(why.contains("only known when the workflow runs"), "{why}");
        let why = unknown(&format!(
            "parameters:\n- name: clusters\n  default: [{{size: x}}]\nsteps:\n- ${{{{ each c in parameters.clusters }}}}:\n{body}"
        ));
        assert_eq!(why, "`c.name` is not set");

        let mut text = String::from("parameters:\n- name: clusters\n  type: object\n  default:\n");
        for i in 0..10_000 {
            text.push_str(&format!("  - name: c{i}\n"));
        }
        text.push_str(&format!(
            "steps:\n- ${{{{ each c in parameters.clusters }}}}:\n{body}"
        ));
        let out = run(&text);
        assert_eq!(out.computes.len(), MAX_MODULE_CALLS + 1);
        assert_eq!(out.computes[0].known_name(), Some("c0"));
        let last = out.computes.last().unwrap();
        assert_eq!(last.known_name(), None);
        assert!(
            last.name.why.as_deref().unwrap().contains("item 65 of"),
            "{:?}",
            last.name
        );

        // Ten loops, each over the same two items, one inside the other.
        let mut text = String::from("parameters:\n- name: two\n  type: object\n  default: [a, b]\nsteps:\n");
        for depth in 0..10 {
            let pad = "  ".repeat(depth);
            text.push_str(&format!("{pad}- ${{{{ each x{depth} in parameters.two }}}}:\n"));
        }
        let pad = "  ".repeat(10);
        text.push_str(&format!(
            "{pad}- script: az ml compute create --name n-${{{{ x0 }}}}-${{{{ x9 }}}} --type AmlCompute\n"
        ));
        let out = run(&text);
        let known = out.computes.iter().filter(|d| d.known_name().is_some()).count();
        assert_eq!(known, 0, "the ninth loop and below are not expanded");
        assert!(!out.computes.is_empty() && out.computes.len() <= MAX_MODULE_CALLS + 1);
        assert!(
            out.computes[0]
                .name
                .why
                .as_deref()
                .unwrap()
                .contains("inside more than 8 loops"),
            "{:?}",
            out.computes[0].name
        );
    }

    #[test]
    fn each_directives() {
        assert_eq!(
            each_directive("${{ each c in parameters.clusters }}"),
            Some(("c", "parameters.clusters"))
        );
        assert_eq!(each_directive("${{each pair in c.env}}"), Some(("pair", "c.env")));
        for not in [
            "${{ if eq(a, b) }}",
            "${{ eachc in x }}",
            "${{ each c inx }}",
            "${{ each c.d in x }}",
            "${{ each c in split(x, ',') }}",
            "each c in x",
        ] {
            assert_eq!(each_directive(not), None, "{not}");
        }
    }
}
