//! Commands that run a project file with the values they pass. Deployments of an ARM or
//! Bicep template with the parameters they pass: `az deployment group
//! create --template-file infra/compute.json --parameters @infra/params/prod.json` (also
//! `sub`, `mg`, `tenant`, the older `az group deployment create`; `-f`, `-p`, a file
//! without `@`, `name=value`) in a script, a workflow's `run:` or a pipeline's script, and
//! an Azure Pipelines `AzureResourceManagerTemplateDeployment` task (`csmFile`,
//! `csmParametersFile`, `overrideParameters`).
//!
//! A `.bicep` template (`-f main.bicep -p @params.json`, audit 32, case 04) is read as the
//! Bicep reader reads it, its parameters set to what the deployment passes (a JSON
//! parameters file's; a `.bicepparam` file passed deploys its template itself).
//!
//! Each such deployment is a definition of every compute the template defines, made at the
//! command (or task) as a module call makes them ([`iac::ModuleCall`]): the template read
//! with the values the deployment passes (not the parameters files beside it), its values
//! inherited at the parameters file's name (at the template's when none is read), noted.
//! A parameters file that cannot be read (outside the project, missing, a path not known
//! statically, not JSON) is said on each definition: the values its parameters' defaults
//! give may not be the deployed ones. The template's own definition (its defaults) stays,
//! as a module's does.
//!
//! A Python file of the project run with its options (`python make.py --size X`, in a
//! script or a CI step) is read the same way: [`python_from_script`].

use std::path::PathBuf;

use super::az_cli::{self, Ctx, Eval, Head, Outer, ScriptVal, Vars, wanted};
use super::common::{Files, Input};
use super::iac::{self, Ev, Given};
use super::shell::{Dialect, LexOptions, Script, VarScope, Word, parse_file};
use crate::facts::computes::ComputeDef;
use crate::source::Span;

/// The bytes a script's deployment command contains (a byte pre-filter).
pub const NEEDLES: &[&str] = &[
    "deployment group create",
    "deployment sub create",
    "deployment mg create",
    "deployment tenant create",
    "group deployment create",
];

/// What a deployment passes the template.
pub enum Passed {
    /// A parameters file: where it may be (the first readable of these), as written, and
    /// where it is written.
    File {
        written: String,
        candidates: Vec<PathBuf>,
        span: Span,
    },
    /// A parameters file or values not read: as written, and why.
    Unread { written: String, why: String },
    /// One parameter's value (`--parameters vmSize=Standard_NC6`).
    Value { name: String, value: Ev },
}

/// One deployment of a template, as the deploying file writes it.
pub struct TemplateDeployment<'a> {
    /// The deploying file, as displayed.
    pub display: &'a str,
    /// The whole command or task: the definitions start there.
    pub whole: Span,
    /// What deploys, for people: `az deployment group create`.
    pub label: String,
    /// The template as written, where it may be, and where it is written.
    pub template: String,
    pub template_at: Vec<PathBuf>,
    pub template_span: Span,
    /// What the deployment passes, in order (a later value wins).
    pub passed: Vec<Passed>,
    /// The deploying file's text, where the values passed have their places.
    pub text: &'a str,
}

/// The definitions a deployment makes: those of its template (an ARM `.json` file or a
/// `.bicep` file of the project), read with the values it passes.
pub fn definitions(files: &Files, d: &TemplateDeployment<'_>) -> Vec<ComputeDef> {
    let Some((path, shown, src)) = files.first_of(d.template_at.clone()) else {
        return Vec::new();
    };
    let lower = shown.to_ascii_lowercase();
    let bicep = lower.ends_with(".bicep");
    if !(bicep || lower.ends_with(".json")) {
        return Vec::new();
    }
    let mut given = Given::new();
    let mut notes = Vec::new();
    let mut at = d.template_span;
    for p in &d.passed {
        match p {
            Passed::File {
                written,
                candidates,
                span,
            } => match files.first_of(candidates.clone()) {
                // A `.bicepparam` file deploys its template itself (its `using`, read by
                // the Bicep reader): the command adds no second definition.
                Some((_, pshown, _)) if bicep && pshown.to_ascii_lowercase().ends_with(".bicepparam") => {
                    return Vec::new();
                }
                Some((_, pshown, psrc)) => match super::arm::deployment_parameters(&psrc, &pshown) {
                    Ok(values) => {
                        given.extend(values);
                        at = *span;
                    }
                    Err(why) => notes.push(unread(written, &why)),
                },
                None => notes.push(unread(
                    written,
                    "it is not a file of the project amlint may read: missing, or outside the project",
                )),
            },
            Passed::Unread { written, why } => notes.push(unread(written, why)),
            Passed::Value { name, value } => {
                given.insert(name.to_ascii_lowercase(), value.clone());
            }
        }
    }
    let deployed = if bicep {
        super::bicep::deployed(files, &path, &shown, given)
    } else {
        super::arm::deployed(files, &path, &shown, given)
    };
    let Some(defs) = deployed else {
        return Vec::new();
    };
    let call = iac::ModuleCall {
        display: d.display,
        whole: d.whole,
        label: &d.label,
        path: &d.template,
        source: at,
        source_key: None,
        args: &[],
        prefix: "",
        note: None,
        verb: "deploys the template",
        text: Some(d.text),
    };
    // A compute whose condition is false with what this deployment sets is not deployed
    // by it: no definition here (the template's own definition keeps its findings,
    // labelled at the condition). False only by the defaults of parameters it does not
    // set: the same, unless some of its values could not be read (they may set them).
    let never = [iac::NEVER_DEPLOYED, iac::ARGUMENT_NEVER_DEPLOYED];
    let by_default = [iac::FALSE_BY_DEFAULT, iac::ARGUMENT_FALSE_BY_DEFAULT];
    let off = |note: &str| never.contains(&note) || (notes.is_empty() && by_default.contains(&note));
    defs.into_iter()
        .filter(|def| !def.false_condition.is_some_and(|(_, note)| off(note)))
        .map(|def| {
            let line = format!("{}:{}", def.file, super::common::line_of(&src, def.span.start));
            let mut def = call.definition(def, &line);
            def.notes.extend(notes.iter().cloned());
            def
        })
        .collect()
}

/// A value the deployment passes, with the place of its literal in the deploying file
/// (`place`, when written there as is) marked as a module call's argument's
/// ([`iac::raise_span`]): a setting the template writes as the parameter is then at the
/// literal, where the deployment sets it ([`iac::ModuleCall::definition`]).
fn literal_at(mut v: Ev, place: Option<Span>) -> Ev {
    v.origin = place.and_then(iac::raise_span);
    v
}

fn unread(written: &str, why: &str) -> String {
    format!(
        "the deployment passes `{}`, which amlint did not read ({why}): the values the template's parameter defaults give may not be the deployed ones",
        iac::one_line(written)
    )
}

/// The deployments a script's commands make (`az deployment group create ...`).
pub fn from_script(script: &Script, cx: &Ctx<'_>) -> Vec<ComputeDef> {
    let head = Head::of(script);
    let deployments: Vec<(usize, usize, String)> = (script.commands.iter().enumerate())
        .filter_map(|(k, c)| {
            let (az, _) = az_cli::az_at(&c.words, &head, c.span.start)?;
            Some((k, az, deployment_verb(&c.words[az + 1..])?))
        })
        .collect();
    if deployments.is_empty() {
        return Vec::new();
    }
    // Where each command runs: only for a script that deploys.
    let places = az_cli::places(script, cx);
    let mut out = Vec::new();
    for (k, az, label) in deployments {
        let (c, cwd) = (&script.commands[k], &places[k]);
        let words = &c.words[az + 1..];
        // Asking for help deploys nothing.
        if words
            .iter()
            .any(|w| matches!(w.literal().as_deref(), Some("-h" | "--help")))
        {
            continue;
        }
        let at = c.span.start;
        let work_dir = cx.eval.outer.work_dir();
        let value = |w: &Word| cx.eval.word(w, at).value;
        let dialect = cx.eval.vars.dialect();
        let locate = |text: &str| az_cli::candidates(cwd, cx.input, work_dir.as_deref(), text, dialect);
        let mut template = None;
        let mut passed = Vec::new();
        let rest = &words[3..];
        let mut i = 0;
        while i < rest.len() {
            let Some(opt) = rest[i].literal() else {
                i += 1;
                continue;
            };
            let (name, inline) = match opt.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (opt.clone(), None),
            };
            match name.as_str() {
                "--template-file" | "-f" => {
                    let w = rest.get(i + 1).filter(|_| inline.is_none());
                    let text = match (&inline, w) {
                        (Some(v), _) => Ok(v.clone()),
                        (None, Some(w)) => value(w),
                        (None, None) => Err(String::new()),
                    };
                    let span = w.map_or(rest[i].span, |w| w.inner_span());
                    if let Ok(text) = text
                        && let Ok(cands) = locate(&text)
                    {
                        template = Some((text, cands, span));
                    }
                    i += 1 + usize::from(w.is_some());
                }
                "--parameters" | "-p" => {
                    if let Some(v) = inline {
                        passed.push(parameter(Ok(v), &opt, rest[i].inner_span(), &locate));
                        i += 1;
                        continue;
                    }
                    i += 1;
                    // `--parameters` takes one or more values.
                    while let Some(w) = rest.get(i) {
                        if w.literal().is_some_and(|l| l.starts_with('-') && l.len() > 1) {
                            break;
                        }
                        let written = cx.input.source.slice(w.inner_span()).to_string();
                        passed.push(parameter(value(w), &written, w.inner_span(), &locate));
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        let Some((written, template_at, template_span)) = template else {
            continue;
        };
        let whole = c.words[az].span.cover(c.words[c.words.len() - 1].span);
        out.extend(definitions(
            cx.input.files,
            &TemplateDeployment {
                display: &cx.input.source.path,
                whole,
                label: format!("`{label}`"),
                template: written,
                template_at,
                template_span,
                passed,
                text: &cx.input.source.text,
            },
        ));
    }
    out
}

/// How many Python runs of one script are read.
const MAX_PY_RUNS: usize = 64;

/// How many bytes of Python files one script file, or one CI file (with its steps), reads
/// for the runs it makes ([`python_from_script`]): each run parses its file again.
pub const PY_RUN_BYTES: usize = 1 << 20;

/// The definitions of the project's Python files a script runs with arguments (audit 33,
/// case 03: a workflow step's `python src/create_compute.py --cluster_name cpu-cluster
/// --size Standard_DS3_v2`, the file building `AmlCompute(name=args.cluster_name, ...)`
/// from `argparse` options): each a definition made at the command, as a module call makes
/// them ([`iac::ModuleCall`]), the file read with the options the command gives
/// (`python_sdk::read_run`); a value the command writes is reported at its word there,
/// `args.size` read as the option `--size`. The file's own definition (its defaults)
/// stays, as a module's does.
/// `budget`: the bytes of Python still to read ([`PY_RUN_BYTES`]); a run beyond it is not
/// read (the file's own definition stays).
pub fn python_from_script(script: &Script, cx: &Ctx<'_>, budget: &std::cell::Cell<usize>) -> Vec<ComputeDef> {
    let runs: Vec<(usize, (usize, bool))> = (script.commands.iter().enumerate())
        .filter_map(|(k, c)| Some((k, az_cli::python_at(&c.words)?)))
        .take(MAX_PY_RUNS)
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let places = az_cli::places(script, cx);
    let text = cx.input.source.text.as_str();
    let dialect = cx.eval.vars.dialect();
    let work_dir = cx.eval.outer.work_dir();
    let mut out = Vec::new();
    for (k, (f, module)) in runs {
        let (c, cwd) = (&script.commands[k], &places[k]);
        let at = c.span.start;
        let value = |w: &Word| cx.eval.word(w, at).value;
        let Ok(written) = value(&c.words[f]).map(|w| w.trim().to_string()) else {
            continue;
        };
        if !module && !written.ends_with(".py") {
            continue;
        }
        let files = match module {
            true => az_cli::python_module_files(&written).to_vec(),
            false => vec![written.clone()],
        };
        let candidates: Vec<std::path::PathBuf> = (files.iter())
            .filter_map(|w| az_cli::candidates(cwd, cx.input, work_dir.as_deref(), w, dialect).ok())
            .flatten()
            .collect();
        let rest = &c.words[f + 1..];
        let cli: Vec<Result<String, String>> = rest.iter().map(&value).collect();
        let shell_env = run_env(cx, at);
        let env = |name: &str| {
            Some(match shell_env(name)? {
                ScriptVal::Known { text, literal } => Ev {
                    origin: literal,
                    ..Ev::text(text)
                },
                ScriptVal::Dynamic(why) => Ev::unknown(why),
            })
        };
        let Some((source, defs)) = candidates
            .iter()
            .find_map(|p| super::python_sdk::read_run(cx.input.files, p, cli.clone(), &env, budget))
        else {
            continue;
        };
        // The options the command gives, by argparse's destination (`--cluster-name`:
        // `cluster_name`), each at its value's word.
        let mut args: Vec<(String, iac::Leaf, Option<Span>)> = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            let w = &rest[i];
            let Some(flag) = w.literal().filter(|l| l.starts_with("--") && l.len() > 2) else {
                i += 1;
                continue;
            };
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (flag.clone(), None),
            };
            let dest = name.trim_start_matches('-').replace('-', "_");
            let (span, val) = match (inline, rest.get(i + 1)) {
                (Some(v), _) => {
                    let inner = w.inner_span();
                    let eq = text.get(inner.range()).and_then(|t| t.find('=')).unwrap_or(0);
                    (Span::new(inner.start + eq as u32 + 1, inner.end), Ok(v))
                }
                (None, Some(v)) if !v.literal().is_some_and(|l| l.starts_with("--")) => {
                    i += 1;
                    (v.inner_span(), value(v))
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            let literal = matches!(
                rest[i].parts.as_slice(),
                [super::shell::WordPart::Lit { exact: true, .. }]
            )
            .then_some(span)
            .filter(|s| text.get(s.range()).is_some_and(|t| val.as_deref() == Ok(t)));
            let val = match val {
                Ok(v) => Ev::text(v),
                Err(why) => Ev::unknown(why),
            };
            let leaf = iac::Leaf {
                span,
                written: text.get(span.range()).unwrap_or_default().to_string(),
                val,
                literal,
            };
            args.push((dest, leaf, Some(w.inner_span())));
            i += 1;
        }
        // How the file names the parsed options (`args.size`, `opts.size`): the prefix of
        // a setting written as one of them.
        let prefix = defs
            .iter()
            .flat_map(|d| std::iter::once(&d.name).chain(d.fields.iter().map(|(_, s)| s)))
            .find_map(|s| {
                let (obj, attr) = s.written.trim().split_once('.')?;
                (args.iter().any(|(n, ..)| n == attr)
                    && obj.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                .then(|| format!("{obj}."))
            })
            .unwrap_or_else(|| "args.".to_string());
        let file = &c.words[f];
        let shown = shown_path(&written, &defs, module);
        let call = iac::ModuleCall {
            display: &cx.input.source.path,
            whole: c.words[0].span.cover(c.words[c.words.len() - 1].span),
            label: "Python run",
            path: &shown,
            source: file.inner_span(),
            source_key: None,
            args: &args,
            prefix: &prefix,
            note: None,
            verb: "runs the file",
            // A value of the environment the run gives is at its literal in this file.
            text: Some(text),
        };
        for def in defs {
            let line = format!("{}:{}", def.file, super::common::line_of(&source, def.span.start));
            out.push(call.definition(def, &line));
        }
    }
    out
}

/// The file a run names, for people: as its path evaluates, or, when that is absolute
/// (from where the CI system checks the repository out, `$(Build.SourcesDirectory)/x.py`)
/// or a module's name (`python -m ml.build`), as the project shows the file read (its
/// definitions').
fn shown_path(written: &str, defs: &[ComputeDef], module: bool) -> String {
    match defs.first() {
        Some(d) if module || std::path::Path::new(written).is_absolute() => d.file.clone(),
        _ => written.to_string(),
    }
}

/// How many bytes of shell scripts one script file, or one CI file (with its steps),
/// reads for the scripts it runs ([`shell_from_script`]): each run parses its file again.
pub const SH_RUN_BYTES: usize = 1 << 20;
/// How many runs of shell scripts one script is read for.
const MAX_SH_RUNS: usize = 64;

/// The definitions of the project's shell scripts a script runs with arguments (a
/// workflow step's `bash scripts/create-compute.sh cpu-cluster Standard_NC6`, a script's
/// `./create.sh "$NAME"`, the called script running `az ml compute create --name "$1"
/// --size "$2"`): each a definition made at the command, as a module call makes them
/// ([`iac::ModuleCall`]), the script read alone ([`read_run`]) and its `$1`, `$2`...
/// (also `${1}`) the command's words after the file, a value reported at its word there.
/// The script's own definition (its arguments not known) stays, as a module's does. The
/// scripts the called one runs are not followed. `budget`: the bytes of scripts still to
/// read ([`SH_RUN_BYTES`]).
pub fn shell_from_script(script: &Script, cx: &Ctx<'_>, budget: &std::cell::Cell<usize>) -> Vec<ComputeDef> {
    let runs: Vec<(usize, usize)> = (script.commands.iter().enumerate())
        .filter_map(|(k, c)| Some((k, az_cli::shell_run_at(&c.words)?)))
        .take(MAX_SH_RUNS)
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let places = az_cli::places(script, cx);
    let mut out = Vec::new();
    for (k, f) in runs {
        let c = &script.commands[k];
        let file = &c.words[f];
        let run = ScriptRun {
            file: cx.eval.word(file, c.span.start).value,
            file_span: file.inner_span(),
            args: &c.words[f + 1..],
            whole: c.words[0].span.cover(c.words[c.words.len() - 1].span),
            at: c.span.start,
        };
        out.extend(run.definitions(&places[k], cx, budget));
    }
    out
}

/// A run of a shell script of the project with arguments: by a command of a script
/// ([`shell_from_script`]), or by an Azure Pipelines `AzureCLI` task's `scriptPath` and
/// `arguments`.
pub struct ScriptRun<'w> {
    /// The script's path as the run writes it (or why it is not known), and where.
    pub file: Result<String, String>,
    pub file_span: Span,
    /// The words the run passes, `$1`... of the script.
    pub args: &'w [Word],
    /// The whole run, and where its words are evaluated.
    pub whole: Span,
    pub at: u32,
}

impl ScriptRun<'_> {
    /// Each definition of the script, made at the run (see [`shell_from_script`]); none
    /// when the script is not a file of the project found from `cwd`.
    pub fn definitions(
        &self,
        cwd: &super::cwd::Cwd,
        cx: &Ctx<'_>,
        budget: &std::cell::Cell<usize>,
    ) -> Vec<ComputeDef> {
        let text = cx.input.source.text.as_str();
        let value = |w: &Word| cx.eval.word(w, self.at).value;
        let Ok(written) = &self.file else {
            return Vec::new();
        };
        let dialect = cx.eval.vars.dialect();
        let work_dir = cx.eval.outer.work_dir();
        let Ok(candidates) = az_cli::candidates(cwd, cx.input, work_dir.as_deref(), written, dialect) else {
            return Vec::new();
        };
        // Each word's value, and its literal when the word is one written as it is: a
        // value the script takes through its own variables (`NAME=$1`) is found there.
        let passed: Vec<(Result<String, String>, Option<Span>)> = (self.args.iter())
            .map(|w| {
                let val = value(w);
                let span = w.inner_span();
                let literal = matches!(
                    w.parts.as_slice(),
                    [super::shell::WordPart::Lit { exact: true, .. }]
                )
                .then_some(span)
                .filter(|s| text.get(s.range()).is_some_and(|t| val.as_deref() == Ok(t)));
                (val, literal)
            })
            .collect();
        let raised: Vec<RunArg> = (passed.iter())
            .map(|(v, literal)| (v.clone(), literal.and_then(iac::raise_span)))
            .collect();
        let env = run_env(cx, self.at);
        let Some((source, defs)) = candidates
            .iter()
            .find_map(|p| read_run(cx.input.files, p, &raised, &env, budget))
        else {
            return Vec::new();
        };
        // `$1`... `$9` (and `${1}`...) of the script: the words after its file.
        let mut args: Vec<(String, iac::Leaf, Option<Span>)> = Vec::new();
        for (i, (w, (val, literal))) in self.args.iter().zip(passed).enumerate().take(9) {
            let span = w.inner_span();
            let leaf = iac::Leaf {
                span,
                written: text.get(span.range()).unwrap_or_default().to_string(),
                val: match val {
                    Ok(v) => Ev::text(v),
                    Err(why) => Ev::unknown(why),
                },
                literal,
            };
            let n = i + 1;
            args.push((format!("{{{n}}}"), leaf.clone(), None));
            args.push((n.to_string(), leaf, None));
        }
        let shown = shown_path(written, &defs, false);
        let call = iac::ModuleCall {
            display: &cx.input.source.path,
            whole: self.whole,
            label: "script run",
            path: &shown,
            source: self.file_span,
            source_key: None,
            args: &args,
            prefix: "$",
            note: None,
            verb: "runs the script",
            text: Some(text),
        };
        defs.into_iter()
            .map(|def| {
                let line = format!("{}:{}", def.file, super::common::line_of(&source, def.span.start));
                call.definition(def, &line)
            })
            .collect()
    }
}

/// The `az ml compute` definitions of the shell script at `path` that a command runs
/// with the arguments `args` (each its value, or why it is not known) as `$1`, `$2`...
/// ([`shell_from_script`]): read as bash (what runs it says so), a variable it does not
/// set read from `env` (the environment the run gives it: a CI step's `env:`), without
/// following the scripts it runs in turn. `budget`: the bytes of scripts still to read;
/// `None` beyond it, for a file that is not there or not readable, or that runs no `az ml
/// compute` command.
fn read_run(
    files: &super::common::Files,
    path: &std::path::Path,
    args: &[RunArg],
    env: &RunEnv<'_>,
    budget: &std::cell::Cell<usize>,
) -> Option<(
    std::sync::Arc<crate::source::SourceFile>,
    Vec<crate::facts::computes::ComputeDef>,
)> {
    // Shown as the project shows it (`scripts/../x.sh` is `x.sh`).
    let display = crate::discover::display_of(&crate::fsio::normalize(path));
    let source = files.read(path, &display)?;
    let text = source.text.as_str();
    if !super::common::mentions(text.as_bytes(), super::common::COMMAND_WORDS) {
        return None;
    }
    budget.set(budget.get().checked_sub(text.len().max(1))?);
    let options = LexOptions {
        keep: Some(wanted),
        ..LexOptions::new(Dialect::Bash)
    };
    let script = parse_file(text, options);
    let input = Input {
        path,
        source: &source,
        documents: &[],
        kinds: &[],
        files,
    };
    let outer = RunArgs { args, env };
    let vars = Vars::scan_sourcing(&script, Dialect::Bash, &input, &outer);
    let cx = Ctx {
        input: &input,
        eval: Eval {
            vars: &vars,
            outer: &outer,
        },
        note: None,
    };
    let mut defs = az_cli::definitions(&script, &cx);
    if let Some((Ok(first), _)) = args.first() {
        dispatched(&script, first, &mut defs);
    }
    Some((source.clone(), defs))
}

/// A script run with arguments: `$1`... are what the run passes (no literal of the
/// script: the run's words are reported where the run writes them), its environment
/// what the run gives it.
struct RunArgs<'a> {
    args: &'a [RunArg],
    env: &'a RunEnv<'a>,
}

/// The environment a run gives the file it runs: a variable's value where the run is (a
/// CI step's `env:`, the job's and workflow's, an Azure pipeline's variables, `$GITHUB_ENV`
/// of earlier steps), its literal's place marked one call up ([`iac::raise_span`]) so that
/// a finding about it is reported there; `None` when the run's file says nothing of it.
pub(super) type RunEnv<'a> = dyn Fn(&str) -> Option<ScriptVal> + 'a;

/// The environment of a run at `at` in the file `cx` reads, as [`RunEnv`] gives it: what
/// the file around the script (a CI file) says of each variable, not the script's own
/// variables (only those it exports reach the run, and which it exports is not read).
pub(super) fn run_env<'a>(cx: &'a Ctx<'_>, at: u32) -> impl Fn(&str) -> Option<ScriptVal> + 'a {
    move |name: &str| {
        Some(match cx.eval.outer.var_at(name, VarScope::Env, at)? {
            ScriptVal::Known { text, literal } => ScriptVal::known(text, literal.and_then(iac::raise_span)),
            dynamic => dynamic,
        })
    }
}

/// What a run passes as one argument: its value (or why it is not known), and the place of
/// its literal in the running file, marked one call up ([`iac::raise_origins`]).
type RunArg = (Result<String, String>, Option<Span>);

impl Outer for RunArgs<'_> {
    fn own_file(&self) -> bool {
        true
    }

    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        if matches!(scope, VarScope::Shell | VarScope::Env) {
            return (self.env)(name);
        }
        if scope != VarScope::Positional {
            return None;
        }
        let n: usize = name.parse().ok().filter(|&n| n > 0)?;
        // An argument the run does not give: the script's default (`${3:-d}`), if any.
        Some(match self.args.get(n - 1)? {
            (Ok(v), literal) => ScriptVal::known(v.clone(), *literal),
            (Err(why), _) => ScriptVal::Dynamic(why.clone()),
        })
    }
}

/// The definitions a run of a script that dispatches on its first argument makes: with
/// `"$@"` outside every function (`if [ "$0" = "$BASH_SOURCE" ]; then "$@"; fi`), `bash
/// tool.sh setup_compute` runs the function `setup_compute` (Azure/AML-Kubernetes's
/// `amlarc-tool.sh`, run by 26 steps of one workflow). What the other functions define
/// is dropped, unless the script's top level or that function calls them (by name, as a
/// command's first word). Nothing is dropped when `first` names no function.
fn dispatched(script: &Script, first: &str, defs: &mut Vec<crate::facts::computes::ComputeDef>) {
    let functions = &script.functions;
    if !script.runs_args || !functions.iter().any(|f| f.name == first) {
        return;
    }
    // The functions around `at`, innermost last.
    let around = |at: u32| functions.iter().filter(move |f| f.at <= at && at < f.end);
    // The functions that run: `first`, and those called at the top level or from it.
    let called: std::collections::HashSet<String> = (script.commands.iter())
        .filter(|c| around(c.span.start).next().is_none() || around(c.span.start).any(|f| f.name == first))
        .filter_map(|c| c.words.first()?.literal())
        .collect();
    defs.retain(|d| around(d.span.start).all(|f| f.name == first || called.contains(&f.name)));
}

/// The bytes a script's `terraform plan|apply` command contains (a byte pre-filter).
pub const TF_NEEDLES: &[&str] = &["terraform plan", "terraform apply", "terraform -chdir"];

/// How many `terraform plan|apply` commands of one script are read.
const MAX_TF_COMMANDS: usize = 64;

/// The root module definitions a script's `terraform plan|apply` commands make
/// ([`super::terraform::applied`]): the module of the directory the command runs in
/// (moved by `-chdir=DIR`), with its `-var-file`s (from that directory) and `-var`s. A
/// `plan -destroy` and an `apply` of a saved plan (`terraform apply tfplan`: the plan's
/// command gives the values) define nothing.
pub fn terraform_from_script(script: &Script, cx: &Ctx<'_>) -> Vec<ComputeDef> {
    use super::terraform::TerraformRun;
    let commands: Vec<(usize, usize)> = (script.commands.iter().enumerate())
        .filter_map(|(k, c)| Some((k, az_cli::terraform_at(&c.words)?)))
        .take(MAX_TF_COMMANDS)
        .collect();
    if commands.is_empty() {
        return Vec::new();
    }
    let places = az_cli::places(script, cx);
    let text = cx.input.source.text.as_str();
    let mut out = Vec::new();
    'commands: for (k, t) in commands {
        let (c, cwd) = (&script.commands[k], &places[k]);
        let at = c.span.start;
        let work_dir = cx.eval.outer.work_dir();
        let dialect = cx.eval.vars.dialect();
        let value = |w: &Word| cx.eval.word(w, at).value;
        // The text after `-name=` of a word (its span too: inside quotes around it).
        let after = |w: &Word, prefix: &str| -> (Result<String, String>, Span) {
            let v = value(w).map(|v| v.strip_prefix(prefix).unwrap_or(&v).to_string());
            let inner = w.inner_span();
            let raw = text.get(inner.range()).unwrap_or_default();
            let mut s = match raw.find('=') {
                Some(i) => Span::new(inner.start + i as u32 + 1, inner.end),
                None => inner,
            };
            let body = text.get(s.range()).unwrap_or_default();
            if body.len() >= 2
                && (body.starts_with('"') && body.ends_with('"')
                    || body.starts_with('\'') && body.ends_with('\''))
            {
                s = Span::new(s.start + 1, s.end - 1);
            }
            (v, s)
        };
        let words = &c.words[t + 1..];
        let mut chdir: Option<(String, Span)> = None;
        let mut verb = None;
        let mut passed = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            let lit = w.literal();
            let opt = lit.as_deref().unwrap_or("");
            let dashed = opt.trim_start_matches('-');
            if verb.is_none() {
                if opt.starts_with("-chdir=") {
                    let (v, s) = after(w, "-chdir=");
                    match v {
                        Ok(d) => chdir = Some((d, s)),
                        // The module's directory is not known: nothing is read.
                        Err(_) => continue 'commands,
                    }
                } else if !opt.starts_with('-') {
                    verb = lit.clone();
                }
                i += 1;
                continue;
            }
            if opt == "-destroy" || opt == "--destroy" {
                continue 'commands;
            }
            let name = dashed.split_once('=').map_or(dashed, |(n, _)| n);
            let inline = opt.starts_with('-') && dashed.contains('=');
            match name {
                "var-file" | "var" if opt.starts_with('-') => {
                    let (v, s, written) = if inline {
                        let (v, s) = after(w, &format!("{}=", opt.split_once('=').map_or(opt, |(a, _)| a)));
                        (
                            v,
                            s,
                            text.get(w.inner_span().range()).unwrap_or_default().to_string(),
                        )
                    } else if let Some(next) = words.get(i + 1) {
                        i += 1;
                        let written = format!(
                            "{opt} {}",
                            text.get(next.inner_span().range()).unwrap_or_default()
                        );
                        (value(next), next.inner_span(), written)
                    } else {
                        break;
                    };
                    passed.push(cli_var(
                        name == "var-file",
                        v,
                        s,
                        written,
                        chdir.as_ref().map(|c| c.0.as_str()),
                        &|f| az_cli::candidates(cwd, cx.input, work_dir.as_deref(), f, dialect),
                    ));
                }
                // `terraform apply tfplan`: a saved plan, whose values its `plan` gave.
                _ if !opt.starts_with('-') && lit.is_some() && verb.as_deref() == Some("apply") => {
                    continue 'commands;
                }
                _ => {}
            }
            i += 1;
        }
        let Some(verb) = verb.filter(|v| v == "plan" || v == "apply") else {
            continue;
        };
        let (dir, dir_span) = match &chdir {
            Some((d, s)) => (d.clone(), *s),
            None => (".".to_string(), c.words[t].inner_span()),
        };
        let Ok(dir_at) = az_cli::candidates(cwd, cx.input, work_dir.as_deref(), &dir, dialect) else {
            continue;
        };
        let whole = c.words[t].span.cover(c.words[c.words.len() - 1].span);
        out.extend(super::terraform::applied(
            cx.input,
            &TerraformRun {
                display: &cx.input.source.path,
                whole,
                label: format!("`terraform {verb}`"),
                dir,
                dir_at,
                dir_span,
                passed,
            },
        ));
    }
    out
}

/// One `-var-file` (`file`) or `-var` value of a `terraform` command: its value or why it
/// is not known, where, as written, and the command's `-chdir` (var files are read from
/// there); `locate` finds a path from where the command runs.
pub(super) fn cli_var(
    file: bool,
    value: Result<String, String>,
    span: Span,
    written: String,
    chdir: Option<&str>,
    locate: &dyn Fn(&str) -> Result<Vec<PathBuf>, String>,
) -> super::terraform::CliVar {
    use super::terraform::CliVar;
    let v = match value {
        Ok(v) => v,
        Err(why) => {
            return CliVar::Unread {
                written,
                why: format!("its value is not known statically: {why}"),
            };
        }
    };
    if file {
        let path = match chdir {
            Some(d) if !v.starts_with(['/', '\\']) => format!("{}/{v}", d.trim_end_matches(['/', '\\'])),
            _ => v,
        };
        return match locate(&path) {
            Ok(candidates) if !candidates.is_empty() => CliVar::File {
                written,
                candidates,
                span,
            },
            Ok(_) => CliVar::Unread {
                written,
                why: "it names no file of the project".into(),
            },
            Err(why) => CliVar::Unread { written, why },
        };
    }
    let Some((name, raw)) = v.split_once('=').filter(|(n, _)| {
        !n.is_empty()
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }) else {
        return CliVar::Unread {
            written,
            why: "it is not `name=value`".into(),
        };
    };
    let value = if raw.starts_with(['{', '[', '"']) {
        Ev::unknown(format!(
            "`{name}` is given as an HCL expression on the command line, which amlint does not read"
        ))
    } else if let Ok(n) = raw.parse::<i64>() {
        Ev::int(n)
    } else if raw == "true" || raw == "false" {
        Ev::boolean(raw == "true")
    } else {
        Ev::text(raw)
    };
    CliVar::Value {
        name: name.to_string(),
        value,
        written,
    }
}

/// `az deployment group|sub|mg|tenant create` or `az group deployment create` (the words
/// after `az`): how it is shown.
fn deployment_verb(words: &[Word]) -> Option<String> {
    let lit = |i: usize| words.get(i).and_then(Word::literal);
    match (lit(0)?.as_str(), lit(1)?.as_str(), lit(2)?.as_str()) {
        ("deployment", scope @ ("group" | "sub" | "mg" | "tenant"), "create") => {
            Some(format!("az deployment {scope} create"))
        }
        ("group", "deployment", "create") => Some("az group deployment create".into()),
        _ => None,
    }
}

/// One value of `--parameters` (its text, or why it is not known): `@file`, a file,
/// `name=value`, or inline JSON.
fn parameter(
    text: Result<String, String>,
    written: &str,
    span: Span,
    locate: &dyn Fn(&str) -> Result<Vec<PathBuf>, String>,
) -> Passed {
    let unread = |why: String| Passed::Unread {
        written: written.to_string(),
        why,
    };
    let text = match text {
        Ok(t) => t,
        Err(why) => return unread(format!("its value is not known statically: {why}")),
    };
    let t = text.trim();
    if t.starts_with(['{', '[']) {
        return unread("parameters given as inline JSON are not read".into());
    }
    if let Some((name, v)) = t.split_once('=')
        && !t.starts_with('@')
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        // Written as is (no quotes, nothing expanded): the value's place is the word's end.
        let place = (span.len() as usize == text.len() && t.len() == text.len())
            .then(|| Span::new(span.end - v.len() as u32, span.end));
        let value = match v.strip_prefix('@') {
            Some(file) => Ev::unknown(format!("`{name}` is read from the file `{file}`")),
            None => literal_at(Ev::text(v), place),
        };
        return Passed::Value {
            name: name.to_string(),
            value: value.with_note(Some(format!("`{name}` is set by the deployment's `{written}`"))),
        };
    }
    let file = t.strip_prefix('@').unwrap_or(t);
    match locate(file) {
        Ok(candidates) => Passed::File {
            written: written.to_string(),
            candidates,
            span,
        },
        Err(why) => unread(why),
    }
}

/// An `overrideParameters` input (`-vmSize Standard_NC6 -clusterName "gpu-train"`): each
/// parameter's value; one that names a pipeline variable is not known statically. `at`:
/// where the input's text starts in the file, when it is written there as is (a plain
/// scalar on one line): a value written without quotes then has its place
/// ([`literal_at`]).
pub fn override_parameters(text: &str, at: Option<u32>) -> Vec<Passed> {
    let mut out = Vec::new();
    let mut words = shell_words_at(text).into_iter().peekable();
    while let Some((w, _)) = words.next() {
        let Some(name) = w.strip_prefix('-').filter(|n| !n.is_empty()) else {
            continue;
        };
        let Some((v, range)) = words.next_if(|(v, _)| !v.starts_with('-') || v.parse::<f64>().is_ok()) else {
            continue;
        };
        let place = at
            .filter(|_| text.get(range.clone()) == Some(v.as_str()))
            .map(|a| Span::new(a + range.start as u32, a + range.end as u32));
        let note = Some(format!("`{name}` is set by the task's `overrideParameters`"));
        let value = if v.contains("$(") || v.contains("${{") || v.contains("$[") {
            Ev::unknown(format!(
                "`overrideParameters` sets `{name}` to `{v}`, a pipeline variable or expression"
            ))
        } else {
            literal_at(Ev::text(v), place)
        };
        out.push(Passed::Value {
            name: name.to_string(),
            value: value.with_note(note),
        });
    }
    out
}

/// Words split at blanks, a `"..."` or `'...'` one word without its quotes.
pub(super) fn shell_words(text: &str) -> Vec<String> {
    shell_words_at(text).into_iter().map(|(w, _)| w).collect()
}

/// [`shell_words`], each with the byte range it is written at in `text` (quotes
/// included: the word is written as is only where the range's text is the word).
fn shell_words_at(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (None, c) if c.is_whitespace() => {
                if let Some(a) = start.take() {
                    out.push((std::mem::take(&mut cur), a..i));
                }
            }
            (None, c) => {
                cur.push(c);
                start.get_or_insert(i);
            }
        }
        if out.len() > 256 {
            break;
        }
    }
    if let Some(a) = start {
        out.push((cur, a..text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_parameters_are_pairs() {
        let p = override_parameters(
            "-vmSize Standard_NC6 -clusterName \"gpu train\" -count -1 -env $(env)",
            None,
        );
        let got: Vec<(String, Ev)> = p
            .into_iter()
            .filter_map(|p| match p {
                Passed::Value { name, value } => Some((name, value)),
                _ => None,
            })
            .collect();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].1.known_str().as_deref(), Some("Standard_NC6"));
        assert_eq!(got[1].1.known_str().as_deref(), Some("gpu train"));
        assert_eq!(got[2].1.known_str().as_deref(), Some("-1"));
        assert!(matches!(got[3].1.v, iac::V::Unknown(_)));
        // Without the input's place, no value has one.
        assert!(got.iter().all(|(_, v)| v.origin.is_none()));
    }

    /// Given where the input's text starts, a value written without quotes has its place
    /// (raised as a module call's argument's: [`iac::raise_span`]); a quoted one has none.
    #[test]
    fn override_parameters_written_as_is_have_their_place() {
        let text = "-vmSize  Standard_NC6 -name \"gpu\" -min 2";
        let origins: Vec<Option<Span>> = override_parameters(text, Some(100))
            .into_iter()
            .map(|p| match p {
                Passed::Value { value, .. } => value.origin,
                _ => panic!("a value"),
            })
            .collect();
        let at = |a: u32, z: u32| iac::raise_span(Span::new(100 + a, 100 + z));
        assert_eq!(origins, [at(9, 21), None, at(39, 40)]);
        assert_eq!(&text[9..21], "Standard_NC6");
        assert_eq!(&text[39..40], "2");
    }
}
