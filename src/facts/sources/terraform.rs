//! Terraform: `azurerm_machine_learning_compute_cluster`, `_compute_instance`,
//! `_inference_cluster` (its size from the `azurerm_kubernetes_cluster` it names, the
//! default node pool's `vm_size`), `_synapse_spark`, and `azapi_resource` of type
//! `Microsoft.MachineLearningServices/workspaces/computes@…` (the ARM body, as an object or
//! `jsonencode(…)`) are definitions.
//!
//! A `provisioner "local-exec"` whose `command` runs `az ml compute create` defines too
//! (`local_exec`), and so does an `azurerm_resource_group_template_deployment` whose ARM
//! template defines a compute ([`deployment_definitions`]); `yamldecode(file(…))` and
//! `jsondecode(file(…))` are the file's values ([`Module::decoded`]).
//!
//! HCL is parsed with `hcl-edit` (spans of every expression). Values are evaluated
//! statically in the module — the `.tf` files of the file's directory: `var.x` (the
//! variable's `default`, overridden by `terraform.tfvars`, `terraform.tfvars.json`,
//! `*.auto.tfvars` and `*.auto.tfvars.json` in Terraform's order; the note says which
//! won), `local.x`, string templates, `lower`/`upper`/`format`/`coalesce`/`join`/`lookup`
//! /`merge`/`try`..., conditionals with a known condition, `for` expressions, another
//! resource's literal attribute; a literal `for_each` (or one from a variable's default)
//! gives one definition per key (`each.key`, `each.value`), a literal `count` one per
//! index; anything else is unknown with why. Before parsing, a byte scan refuses what
//! would cost `hcl-edit` more than [`MAX_DEPTH`] levels of stack or [`MAX_TOKENS`] tokens'
//! worth of memory (its parse nests one frame group per level and holds about 200 bytes
//! per token).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hcl_edit::Span as _;
use hcl_edit::expr::{Expression, FuncCall, Object, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Attribute, Block, Body, Structure};
use hcl_edit::template::Element;

use super::common::{Definitions, Files, Input, Layout, Reader, line_end, type_setting};
use super::iac::{self, BodyField, BodyNode, Ev, Leaf, Part, V};
use crate::facts::computes::{ComputeDef, Scalar, Setting, SourceKind};
use crate::source::{SourceFile, Span};

pub const READER: Reader = Reader {
    name: "terraform",
    // `.tfvars` files define nothing (their needles never match) but are walked, so that
    // a partial run finds the module beside one that names a compute.
    wants: |name| name.ends_with(".tf") || name.ends_with(".tfvars"),
    needles: &[
        "azurerm_machine_learning_compute",
        "azurerm_machine_learning_inference_cluster",
        "azurerm_machine_learning_synapse_spark",
        "workspaces/computes",
        // A module call: the module it calls may define a compute.
        "module",
        // `az ml compute create` in a `local-exec` provisioner's command.
        "ml compute",
        // An ARM template deployed by `azurerm_resource_group_template_deployment`, whose
        // template (another file) may define a compute.
        "template_deployment",
    ],
    defines: &[
        "azurerm_machine_learning_compute",
        "azurerm_machine_learning_inference_cluster",
        "azurerm_machine_learning_synapse_spark",
        "workspaces/computes",
        "ml compute create",
        "ml compute attach",
        "template_deployment",
    ],
    read,
};

mod local_exec;

/// The name of the folder of `path` when it is a Terraform file (`modules/ws/main.tf`:
/// `ws`, lower case): a module that a `module` block elsewhere may call by that folder.
/// A partial run that finds a name in it reads the files that may call it
/// ([`ends_a_source`]): each call is a definition too, which may give the module's size, and a
/// whole run reads them (audit 12, case 04).
pub fn module_folder(path: &Path) -> Option<Vec<u8>> {
    if !is_tf(path) {
        return None;
    }
    Some(
        path.parent()?
            .file_name()?
            .as_encoded_bytes()
            .to_ascii_lowercase(),
    )
}

/// Whether `path` names a Terraform file (`.tf`, any case), by its name alone.
pub fn is_tf(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        let n = n.as_encoded_bytes();
        n.len() > 3 && n[n.len() - 3..].eq_ignore_ascii_case(b".tf")
    })
}

/// Whether the `len` bytes at `at` of the text `lower` (ASCII lower case) end a string as a
/// module's folder would in a `module` block's `source` (`"./modules/ws"`, `"../ws/"`:
/// after `/`, `"` or `\`, before `"` or `/"`): how a partial run finds the files that may
/// call a module ([`module_folder`], `callers`). A folder's name alone (`infra`) would pull
/// in every file of a large Terraform tree for each name searched.
pub fn ends_a_source(lower: &[u8], at: usize, len: usize) -> bool {
    let before = at.checked_sub(1).map(|i| lower[i]);
    let after = lower.get(at + len..).unwrap_or_default();
    matches!(before, Some(b'/' | b'"' | b'\\')) && (after.starts_with(b"\"") || after.starts_with(b"/\""))
}

/// Bracket nesting a file may have before `hcl-edit` parses it (it refuses 64; its
/// recursive parse of 32 levels fits the 256 KiB stacks of the test build).
const MAX_DEPTH: usize = 24;
/// Structural bytes (`.`, `,`, `"`, `=`, brackets, newlines) a file may hold before
/// `hcl-edit` parses it: its tree costs about 200 bytes each.
const MAX_TOKENS: usize = 250_000;
/// How deep evaluation goes (nested expressions, references through locals).
const MAX_EVAL: usize = 24;

fn read(input: &Input<'_>, out: &mut Definitions) {
    if let Err(why) = affordable(input.source.text.trim_start_matches('\u{feff}')) {
        out.unread = Some(why);
        return;
    }
    out.comments.extend(comments(input.source));
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let mut walk = Walk {
        files: input.files,
        chain: vec![crate::fsio::normalize(dir)],
        budget: iac::MAX_MODULE_CALLS,
        skipped: false,
        input,
        cli: None,
    };
    let here = ModuleFile {
        dir,
        name: &input.file_name(),
        display: &input.source.path,
        text: &input.source.text,
    };
    out.computes.extend(walk.file(&here, None));
    if walk.skipped {
        out.unread = Some(iac::module_calls_skipped());
        out.unread_defines = true;
    }
}

/// A value a `terraform plan|apply` command line gives the root module.
pub enum CliVar {
    /// `-var-file=F`: where the file may be (the first readable of these), as written, and
    /// where it is written.
    File {
        written: String,
        candidates: Vec<PathBuf>,
        span: Span,
    },
    /// A variable file or value not read: as written, and why.
    Unread { written: String, why: String },
    /// `-var 'k=v'`: the variable, its value, and the option as written.
    Value {
        name: String,
        value: Ev,
        written: String,
    },
}

/// A `terraform plan|apply` command line (audit 32, case 03): the root module of a
/// directory, applied with the variables the command gives.
pub struct TerraformRun<'a> {
    /// The file the command is written in, as displayed.
    pub display: &'a str,
    /// The whole command: the definitions start there.
    pub whole: Span,
    /// What applies, for people: `` `terraform apply` ``.
    pub label: String,
    /// The root module's directory as written (`-chdir=infra`, else `.`), where it may be
    /// (the first of these that holds `.tf` files), and the span the values are at when
    /// no variable file is read (`terraform`, or the `-chdir` option).
    pub dir: String,
    pub dir_at: Vec<PathBuf>,
    pub dir_span: Span,
    /// What the command passes, in its order (a later value wins).
    pub passed: Vec<CliVar>,
}

/// How many `-var-file`s of one command are read.
pub const MAX_VAR_FILES: usize = 16;

/// The definitions a `terraform plan|apply` command makes: those of the root module in
/// its directory (the project's `.tf` files there), read with the directory's variable
/// files then the command's `-var-file`s and `-var`s in order, each made at the command
/// as a module call makes them ([`iac::ModuleCall`]): a value inherited at the last
/// `-var-file` read (at `dir_span` when none is), noted. A variable file not read is said
/// on each definition. The module's own definitions (its defaults) stay.
pub fn applied(input: &Input<'_>, c: &TerraformRun<'_>) -> Vec<ComputeDef> {
    let files = input.files;
    let Some((dir, tf)) = c.dir_at.iter().find_map(|d| {
        let d = crate::fsio::normalize(d);
        files.root_from(&d)?;
        let tf = iac::sibling_files(files, &d, |n| n.ends_with(".tf"));
        (!tf.is_empty()).then_some((d, tf))
    }) else {
        return Vec::new();
    };
    let unread = |written: &str, why: &str| {
        format!(
            "the command passes `{}`, which amlint did not read ({why}): the values the module's defaults give may not be the applied ones",
            iac::one_line(written)
        )
    };
    let mut cli = Vec::new();
    let mut notes = Vec::new();
    let mut at = c.dir_span;
    let mut read_files = 0;
    for p in &c.passed {
        match p {
            CliVar::File {
                written,
                candidates,
                span,
            } => {
                if read_files == MAX_VAR_FILES {
                    notes.push(unread(
                        written,
                        &format!("the command names more than {MAX_VAR_FILES} variable files"),
                    ));
                    continue;
                }
                read_files += 1;
                match files.first_of(candidates.clone()) {
                    Some((_, shown, src)) => {
                        let name = super::common::file_name(&shown);
                        let from = format!("the command's `-var-file={}`", iac::one_line(written));
                        for (var, v) in variable_file(&src, &name) {
                            cli.push((var, strip(v), from.clone()));
                        }
                        at = *span;
                    }
                    None => notes.push(unread(
                        written,
                        "it is not a file of the project amlint may read: missing, or outside the project",
                    )),
                }
            }
            CliVar::Unread { written, why } => notes.push(unread(written, why)),
            CliVar::Value { name, value, written } => {
                cli.push((
                    name.clone(),
                    value.clone(),
                    format!("the command's `{}`", iac::one_line(written)),
                ));
            }
        }
    }
    let mut walk = Walk {
        files,
        chain: vec![dir.clone()],
        budget: iac::MAX_MODULE_CALLS,
        skipped: false,
        input,
        cli: Some(&cli),
    };
    let call = iac::ModuleCall {
        display: c.display,
        whole: c.whole,
        label: &c.label,
        path: &c.dir,
        source: at,
        source_key: None,
        args: &[],
        prefix: "var.",
        note: None,
        verb: "applies the root module",
        text: None,
    };
    let mut out = Vec::new();
    for (path, name) in tf {
        let shown = crate::discover::display_of(&path);
        let Some(src) = files.read(&path, &shown) else {
            continue;
        };
        if !super::common::mentions(src.text.as_bytes(), READER.needles) {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let module_file = ModuleFile {
            dir: &dir,
            name: &lower,
            display: &shown,
            text: &src.text,
        };
        for def in walk.file(&module_file, None) {
            let line = format!("{}:{}", def.file, super::common::line_of(&src, def.span.start));
            let mut def = call.definition(def, &line);
            def.notes.extend(notes.iter().cloned());
            out.push(def);
        }
    }
    out
}

/// The module calls being followed from one file: the modules' directories from the
/// file's own down (a cycle is not followed again), and how many calls may still be.
struct Walk<'f, 'i> {
    files: &'f Files,
    chain: Vec<PathBuf>,
    budget: usize,
    /// A call was not followed: the budget was spent ([`iac::MAX_MODULE_CALLS`]).
    skipped: bool,
    /// The file read: its `local-exec` provisioners are read as its scripts (a called
    /// module's are its own file's, read when it is).
    input: &'f Input<'i>,
    /// The variables a `terraform plan|apply` command line gives the root module read at
    /// the command ([`applied`]), in order, each with the file or option that sets it;
    /// `None`: the `.tf` file read alone.
    cli: Option<&'f [(String, Ev, String)]>,
}

/// One `.tf` file of a module: its directory, name (lower case), displayed path and text.
struct ModuleFile<'a> {
    dir: &'a Path,
    name: &'a str,
    display: &'a str,
    text: &'a str,
}

/// The values a module call gives its module's variables (a root module has none: its
/// variable files apply instead).
type Given = HashMap<String, Ev>;

/// A `module` block's arguments that are not variables of the module.
const MODULE_META: &[&str] = &[
    "source",
    "version",
    "providers",
    "count",
    "for_each",
    "depends_on",
];

impl Walk<'_, '_> {
    /// The definitions of one `.tf` file: its resources, evaluated in its module (`given`:
    /// the values a call gives the module's variables), and those of the local modules it
    /// calls, as each call makes them.
    fn file(&mut self, f: &ModuleFile<'_>, given: Option<&Given>) -> Vec<ComputeDef> {
        let Some(body) = parse(f.text) else {
            return Vec::new();
        };
        // The module: this file first, then the other `.tf` files of its directory.
        let mut files: Vec<(Arc<SourceFile>, Arc<Body>)> = vec![(
            SourceFile::new(f.display.to_string(), String::new()),
            Arc::new(body),
        )];
        // The directory's other `.tf` files, read and parsed once per run (every file of a
        // module reads all the others: eval7 case 01, 1,600 files took 1.75 s), and its
        // variable files.
        let module_files = self.files.derived(f.dir, "terraform module files", || {
            let mut tf = Vec::new();
            let mut tfvars = Vec::new();
            let siblings = iac::sibling_files(self.files, f.dir, |n| {
                n.ends_with(".tf") || n.ends_with(".tfvars") || n.ends_with(".tfvars.json")
            });
            for (path, name) in siblings {
                let lower = name.to_ascii_lowercase();
                let shown = iac::beside(f.display, &name);
                if lower.ends_with(".tf") {
                    if let Some(src) = self.files.read(&path, &shown)
                        && let Some(b) = parse(&src.text)
                    {
                        tf.push((lower, src, Arc::new(b)));
                    }
                } else if lower == "terraform.tfvars"
                    || lower == "terraform.tfvars.json"
                    || lower.ends_with(".auto.tfvars")
                    || lower.ends_with(".auto.tfvars.json")
                {
                    tfvars.push((path, name, shown));
                }
            }
            (tf, tfvars)
        });
        let (tf, tfvars_here) = &*module_files;
        files.extend(
            tf.iter()
                .filter(|(lower, ..)| *lower != f.name)
                .map(|(_, src, b)| (Arc::clone(src), Arc::clone(b))),
        );
        // A called module's variables are what its call gives: Terraform reads variable
        // files for the root module only.
        let tfvars = if given.is_none() {
            tfvars_here.clone()
        } else {
            Vec::new()
        };
        let cli = if given.is_none() {
            self.cli.unwrap_or_default()
        } else {
            &[]
        };
        let mut module = Module::new(f.text, &files, self.files, tfvars, given, cli);
        module.load = Some(Load {
            files: self.files,
            dir: f.dir.to_path_buf(),
            display: f.display.to_string(),
            root: given.is_none(),
            budget: std::cell::Cell::new(self.budget),
            skipped: Default::default(),
        });
        let mut found = Vec::new();
        for s in files[0].1.iter() {
            if let Structure::Block(b) = s {
                if b.ident.as_str() == "resource" && b.labels.len() == 2 {
                    found.extend(module.definitions(b, f.display));
                    // A template deployment read counts as a module call.
                    if let Some(load) = &module.load {
                        self.skipped |= load.skipped.get();
                        self.budget = load.budget.get();
                    }
                    // The file read (no call gives it values), not a module it calls nor
                    // the root module a command applies (its provisioners are read with it).
                    if given.is_none() && self.cli.is_none() {
                        let eval = |expr| module.eval(At { file: 0, expr }, &Vec::new(), 0);
                        found.extend(local_exec::definitions_of(f.text, b, self.input, &eval));
                    }
                } else if b.ident.as_str() == "module" && b.labels.len() == 1 {
                    found.extend(self.call(&module, b, f));
                    if let Some(load) = &module.load {
                        load.budget.set(self.budget);
                    }
                }
            }
        }
        found
    }

    /// The definitions a `module` block makes: those of the module its local `source`
    /// names (`./` or `../`, inside the project), once per instance of the call, with the
    /// values the call passes. A registry, git or URL source is not followed, nor a module
    /// already being followed (a cycle) or deeper than [`iac::MAX_MODULE_DEPTH`].
    fn call<'m>(&mut self, m: &Module<'m>, b: &'m Block, f: &ModuleFile<'_>) -> Vec<ComputeDef> {
        let Some(source) = b.body.get_attribute("source") else {
            return Vec::new();
        };
        let Some(path) = source.value.as_str() else {
            return Vec::new();
        };
        if !(path.starts_with("./") || path.starts_with("../")) || self.chain.len() > iac::MAX_MODULE_DEPTH {
            return Vec::new();
        }
        let target = crate::fsio::normalize(&f.dir.join(path));
        if self.chain.contains(&target) {
            return Vec::new();
        }
        let shown_dir = crate::fsio::normalize(&Path::new(iac::split_dir(f.display).0).join(path));
        let module_files: Vec<(PathBuf, String, String)> =
            iac::sibling_files(self.files, &target, |n| n.ends_with(".tf"))
                .into_iter()
                .map(|(p, name)| {
                    let shown = crate::discover::display_of(&shown_dir.join(&name));
                    (p, name, shown)
                })
                .collect();
        let label = format!("module \"{}\"", b.labels[0].as_str());
        let whole = span(b.span()).unwrap_or_default();
        let source_leaf = m.leaf(
            At {
                file: 0,
                expr: &source.value,
            },
            &Vec::new(),
            &mut Vec::new(),
        );
        let mut notes = Vec::new();
        let mut out = Vec::new();
        self.chain.push(target);
        for (env, instance) in m.instances(b, &mut notes) {
            if self.budget == 0 {
                self.skipped = true;
                break;
            }
            self.budget -= 1;
            let mut args = Vec::new();
            for s in b.body.iter() {
                let Structure::Attribute(a) = s else { continue };
                let key = a.key.as_str();
                if MODULE_META.contains(&key) {
                    continue;
                }
                let leaf = m.leaf(
                    At {
                        file: 0,
                        expr: &a.value,
                    },
                    &env,
                    &mut Vec::new(),
                );
                args.push((key.to_string(), leaf, span(a.key.span())));
            }
            let given: Given = args.iter().map(|(k, l, _)| (k.clone(), l.val.clone())).collect();
            let call = iac::ModuleCall {
                display: f.display,
                whole,
                label: &label,
                path,
                source: source_leaf.span,
                source_key: span(source.key.span()),
                args: &args,
                prefix: "var.",
                note: instance.or_else(|| notes.first().cloned()),
                verb: "calls the module",
                text: None,
            };
            for (p, name, shown) in &module_files {
                let Some(src) = self.files.read(p, shown) else {
                    continue;
                };
                if !super::common::mentions(src.text.as_bytes(), READER.needles) {
                    continue;
                }
                let lower = name.to_ascii_lowercase();
                let inner = ModuleFile {
                    dir: p.parent().unwrap_or(Path::new("")),
                    name: &lower,
                    display: shown,
                    text: &src.text,
                };
                for def in self.file(&inner, Some(&given)) {
                    let at = format!("{}:{}", def.file, super::common::line_of(&src, def.span.start));
                    out.push(call.definition(def, &at));
                }
            }
        }
        self.chain.pop();
        out
    }
}

/// The body of an HCL text, if the byte scan lets `hcl-edit` parse it and it parses.
fn parse(text: &str) -> Option<Body> {
    let (offset, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (3, rest),
        None => (0, text),
    };
    if affordable(body).is_err() || offset != 0 {
        // A byte-order mark would shift every span: such a file is not read.
        return None;
    }
    hcl_edit::parser::parse_body(body).ok()
}

/// Whether `hcl-edit` may parse `text` within the stack and memory the scan allows; if
/// not, why (as a clause).
fn affordable(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    let mut tokens = 0usize;
    for &c in text.as_bytes() {
        match c {
            b'{' | b'[' | b'(' => {
                depth += 1;
                tokens += 1;
                if depth > MAX_DEPTH {
                    return Err(format!(
                        "it nests brackets deeper than {MAX_DEPTH} levels, the most the Terraform reader parses"
                    ));
                }
            }
            b'}' | b']' | b')' => {
                depth = depth.saturating_sub(1);
                tokens += 1;
            }
            b'.' | b',' | b'"' | b'=' | b'\n' | b'*' | b'+' | b'-' | b'?' | b':' => tokens += 1,
            _ => {}
        }
        if tokens > MAX_TOKENS {
            return Err(format!(
                "it has more than {MAX_TOKENS} tokens, the most the Terraform reader parses"
            ));
        }
    }
    Ok(())
}

fn span(r: Option<Range<usize>>) -> Option<Span> {
    r.map(|r| Span::new(r.start as u32, r.end as u32))
}

// ---------------------------------------------------------------------------------------
// The module

/// An expression and the module file it is written in (0: the defining file).
#[derive(Clone, Copy)]
struct At<'m> {
    file: usize,
    expr: &'m Expression,
}

type Env = Vec<(String, Ev)>;

/// An instance of a resource block: what `each.*` or `count.index` are in it, and the note
/// that says which it is.
type Instance = (Env, Option<String>);

/// The compute resources of Terraform.
#[derive(Clone, Copy)]
enum Resource {
    /// An `azurerm_machine_learning_*` resource, and the compute type it makes.
    Azurerm(&'static str),
    /// An `azapi_resource` of type `Microsoft.MachineLearningServices/workspaces/computes`.
    Azapi,
    /// An `azurerm_resource_group_template_deployment` (or the older
    /// `azurerm_template_deployment`): the computes of the ARM template it deploys.
    TemplateDeployment,
}

impl Resource {
    /// The compute resource a `resource` block is, if it is one.
    fn of(b: &Block) -> Option<Resource> {
        let kind = match b.labels[0].as_str() {
            "azurerm_machine_learning_compute_cluster" => "AmlCompute",
            "azurerm_machine_learning_compute_instance" => "ComputeInstance",
            "azurerm_machine_learning_inference_cluster" => "AKS",
            "azurerm_machine_learning_synapse_spark" => "SynapseSpark",
            "azurerm_resource_group_template_deployment" | "azurerm_template_deployment" => {
                return Some(Resource::TemplateDeployment);
            }
            "azapi_resource" => {
                let is_compute = b
                    .body
                    .get_attribute("type")
                    .and_then(|a| a.value.as_str())
                    .is_some_and(|t| {
                        t.to_ascii_lowercase()
                            .starts_with("microsoft.machinelearningservices/workspaces/computes@")
                    });
                return is_compute.then_some(Resource::Azapi);
            }
            _ => return None,
        };
        Some(Resource::Azurerm(kind))
    }
}

struct Module<'m> {
    /// The defining file's text.
    text: &'m str,
    files: &'m [(Arc<SourceFile>, Arc<Body>)],
    /// `variable "x"`: the file and its `default`, if any.
    vars: HashMap<String, (usize, Option<&'m Expression>)>,
    /// `variable "x"`'s `type`, when written: the file and the type.
    types: HashMap<String, (usize, &'m Expression)>,
    /// Values of the variable files, by name: the value, and the file that set it last.
    tfvars: HashMap<String, (Ev, String)>,
    locals: HashMap<String, At<'m>>,
    /// `resource "type" "name"`: its block.
    resources: HashMap<(String, String), (usize, &'m Block)>,
    memo: std::cell::RefCell<HashMap<String, Ev>>,
    busy: std::cell::RefCell<Vec<String>>,
    /// The values the module's call gives its variables (`None`: a root module).
    given: Option<&'m Given>,
    /// Where the files `file()` names are read from (`None`: nothing is read, as in a
    /// variable file).
    load: Option<Load<'m>>,
    /// A path `file()` reads is being evaluated: `path.module` and `path.root` stand for
    /// their directories (`MODULE_DIR`), and locals are not memoised.
    in_path: std::cell::Cell<bool>,
}

/// What `file("${path.module}/x.yaml")` is read from: the project's files, the module's
/// directory and a file of it as displayed, and whether it is the root module (where a
/// path not under `path.module` is read too: Terraform runs there).
struct Load<'m> {
    files: &'m Files,
    dir: PathBuf,
    display: String,
    root: bool,
    /// How many more templates may be read (the walk's [`iac::MAX_MODULE_CALLS`] budget:
    /// each instance of a template deployment counts as a module call).
    budget: std::cell::Cell<usize>,
    /// A template was not read: the budget was spent (reported AML005).
    skipped: std::cell::Cell<bool>,
}

impl<'m> Module<'m> {
    fn new(
        text: &'m str,
        files: &'m [(Arc<SourceFile>, Arc<Body>)],
        project: &Files,
        tfvars: Vec<(std::path::PathBuf, String, String)>,
        given: Option<&'m Given>,
        cli: &[(String, Ev, String)],
    ) -> Self {
        let mut m = Module::bare(text, files);
        m.given = given;
        for (file, (_, body)) in files.iter().enumerate() {
            for s in body.iter() {
                let Structure::Block(b) = s else { continue };
                let labels: Vec<&str> = b.labels.iter().map(|l| l.as_str()).collect();
                match (b.ident.as_str(), labels.as_slice()) {
                    ("variable", [name]) => {
                        let default = b.body.get_attribute("default").map(|a| &a.value);
                        m.vars.insert(name.to_string(), (file, default));
                        if let Some(t) = b.body.get_attribute("type") {
                            m.types.insert(name.to_string(), (file, &t.value));
                        }
                    }
                    ("locals", []) => {
                        for s in b.body.iter() {
                            if let Structure::Attribute(a) = s {
                                m.locals
                                    .insert(a.key.as_str().to_string(), At { file, expr: &a.value });
                            }
                        }
                    }
                    ("resource", [t, n]) => {
                        m.resources.insert((t.to_string(), n.to_string()), (file, b));
                    }
                    _ => {}
                }
            }
        }
        // Variable files in Terraform's order: terraform.tfvars, terraform.tfvars.json,
        // then *.auto.tfvars(.json) by name; a later one wins.
        let mut tfvars = tfvars;
        tfvars.sort_by_key(|(_, name, _)| {
            let l = name.to_ascii_lowercase();
            (l != "terraform.tfvars", l != "terraform.tfvars.json", l)
        });
        for (path, name, shown) in tfvars {
            let Some(src) = project.read(&path, &shown) else {
                continue;
            };
            for (var, v) in variable_file(&src, &name) {
                m.tfvars.insert(var, (v, name.clone()));
            }
        }
        // Then the command line's `-var-file`s and `-var`s, in its order (Terraform's
        // precedence: they win over the variable files of the directory).
        for (var, v, from) in cli {
            m.tfvars.insert(var.clone(), (v.clone(), from.clone()));
        }
        m
    }

    /// The definitions a `resource` block makes (one per key of a literal `for_each`, per
    /// index of a literal `count`).
    fn definitions(&self, b: &'m Block, display: &str) -> Vec<ComputeDef> {
        let Some(resource) = Resource::of(b) else {
            return Vec::new();
        };
        let mut notes = Vec::new();
        let instances = self.instances(b, &mut notes);
        if let Resource::TemplateDeployment = resource {
            return (instances.into_iter())
                .flat_map(|(env, note)| {
                    let mut notes = notes.clone();
                    notes.extend(note);
                    deployment_definitions(self, b, &env, display, notes)
                })
                .collect();
        }
        let command = format!("resource \"{}\"", b.labels[0].as_str());
        let whole = span(b.span()).unwrap_or_default();
        let mut out = Vec::new();
        for (env, note) in instances {
            let mut notes = notes.clone();
            notes.extend(note);
            let name = match b.body.get_attribute("name") {
                Some(a) => {
                    let leaf = self.leaf(
                        At {
                            file: 0,
                            expr: &a.value,
                        },
                        &env,
                        &mut notes,
                    );
                    name_setting(&leaf, span(a.key.span()))
                }
                None => Setting::dynamic("", "the resource has no `name`", whole, None),
            };
            let mut def = ComputeDef::new(SourceKind::Terraform, display, whole, command.clone(), name);
            def.name_input = self.input_without_value(&def.name);
            match resource {
                Resource::Azurerm(t) => self.azurerm(b, t, &env, &mut def, &mut notes),
                Resource::Azapi => {
                    def.idiom = crate::facts::idiom::Idiom::Azapi;
                    self.azapi(b, &env, &mut def, &mut notes)
                }
                Resource::TemplateDeployment => {}
            }
            notes.dedup();
            def.notes = notes;
            out.push(def);
        }
        out
    }

    /// The instances of a resource block: one per key of a `for_each`, one per index of a
    /// literal `count`, else one; each with what `each.key`, `each.value` or `count.index`
    /// are in it, and a note that says which instance it is. A note said of all of them
    /// goes to `notes`.
    fn instances(&self, b: &'m Block, notes: &mut Vec<String>) -> Vec<Instance> {
        if let Some(fe) = b.body.get_attribute("for_each") {
            self.for_each(&fe.value)
        } else if let Some(c) = b.body.get_attribute("count") {
            self.count(&c.value, notes)
        } else {
            vec![(Vec::new(), None)]
        }
    }

    /// The instances of `for_each = <fe>`: one per key of a known map or string of a known
    /// list; one whose `each.*` are not known otherwise.
    fn for_each(&self, fe: &'m Expression) -> Vec<Instance> {
        let at = At { file: 0, expr: fe };
        let v = self.eval(at, &Vec::new(), 0);
        let written = self.written(at);
        match &v.v {
            V::Map(entries) => entries
                .iter()
                .map(|(k, val)| {
                    (
                        vec![
                            ("each.key".into(), Ev::text(k.clone())),
                            ("each.value".into(), val.clone()),
                        ],
                        Some(format!("for_each key `{k}` of `{written}`")),
                    )
                })
                .collect(),
            V::List(items) => items
                .iter()
                .filter_map(|item| {
                    let k = item.known_str()?;
                    Some((
                        vec![
                            ("each.key".into(), item.clone()),
                            ("each.value".into(), item.clone()),
                        ],
                        Some(format!("for_each key `{k}` of `{written}`")),
                    ))
                })
                .collect(),
            _ => {
                let why = format!(
                    "it depends on the `for_each` key, and `{written}` is not known{}",
                    v.why().map(|w| format!(": {w}")).unwrap_or_default()
                );
                vec![(
                    vec![
                        ("each.key".into(), Ev::unknown(why.clone())),
                        ("each.value".into(), Ev::unknown(why)),
                    ],
                    Some(format!("for_each = {written} (not expanded)")),
                )]
            }
        }
    }

    /// The instances of `count = <c>`: one per index of a known count (a literal, a
    /// variable's default, `length()` of a known list); else one whose `count.index` is not
    /// known, the count noted in `notes`.
    fn count(&self, c: &'m Expression, notes: &mut Vec<String>) -> Vec<Instance> {
        let at = At { file: 0, expr: c };
        let written = self.written(at);
        // A count of 0 is taken as written only when literal: one that a variable
        // decides may be set otherwise by the module's caller (`var.enabled ? 1 : 0` with
        // a default of `false` still describes the compute the caller may enable). A
        // count a variable's default or a known list gives is expanded, as a `for_each`
        // over them is (audit 31, case 02: `count = var.n`, `length(local.users)`).
        let literal = matches!(c, Expression::Number(_));
        let least = if literal { 0 } else { 1 };
        match self.eval(at, &Vec::new(), 0).v {
            V::Int(n) if (least..=iac::MAX_ITEMS as i64).contains(&n) => (0..n)
                .map(|i| {
                    (
                        vec![("count.index".into(), Ev::int(i))],
                        Some(format!("count.index {i} of `count = {written}`")),
                    )
                })
                .collect(),
            _ => {
                notes.push(format!("count = {written}"));
                vec![(
                    vec![(
                        "count.index".into(),
                        Ev::unknown(format!("`count.index` of `count = {written}`")),
                    )],
                    None,
                )]
            }
        }
    }

    /// An `azurerm_machine_learning_*` resource's attributes, by their YAML paths.
    fn azurerm(&self, b: &'m Block, ctype: &str, env: &Env, def: &mut ComputeDef, notes: &mut Vec<String>) {
        let labelled = span(b.labels[0].span()).unwrap_or_default();
        def.set("type", type_setting(ctype, labelled, b.labels[0].as_str()));
        let attrs: &[(&str, &str, iac::As)] = &[
            ("vm_size", "size", iac::As::Text),
            ("virtual_machine_size", "size", iac::As::Text),
            ("vm_priority", "tier", iac::As::Tier),
            ("location", "location", iac::As::Text),
            ("node_public_ip_enabled", "enable_node_public_ip", iac::As::Bool),
            (
                "ssh_public_access_enabled",
                "ssh_public_access_enabled",
                iac::As::Bool,
            ),
            ("subnet_resource_id", "network_settings.subnet", iac::As::Text),
            ("cluster_purpose", "cluster_purpose", iac::As::Text),
        ];
        self.set_attributes(&b.body, attrs, env, def, notes);
        let scale_attrs: &[(&str, &str, iac::As)] = &[
            ("min_node_count", "min_instances", iac::As::Count),
            ("max_node_count", "max_instances", iac::As::Count),
            (
                "scale_down_nodes_after_idle_duration",
                "idle_time_before_scale_down",
                iac::As::Seconds,
            ),
        ];
        if let Some(scale) = b.body.get_blocks("scale_settings").next() {
            self.set_attributes(&scale.body, scale_attrs, env, def, notes);
        } else if let Some(dynamic) = (b.body.get_blocks("dynamic"))
            .find(|d| d.labels.first().is_some_and(|l| l.as_str() == "scale_settings"))
        {
            self.dynamic_block(dynamic, scale_attrs, env, def, notes);
        }
        if ctype == "AKS" {
            if let Some(a) = b.body.get_attribute("kubernetes_cluster_id") {
                // The cluster's node size and count are its default node pool's, reported at
                // `kubernetes_cluster_id`, the literal labelled.
                let written = self.written(At {
                    file: 0,
                    expr: &a.value,
                });
                let s = span(a.value.span()).unwrap_or_default();
                let pool = self.aks_pool(&a.value);
                for (pool_attr, path, as_) in [
                    ("vm_size", "size", iac::As::Text),
                    ("node_count", "agent_count", iac::As::Count),
                ] {
                    let value = pool.and_then(|(file, pool)| {
                        let attr = pool.body.get_attribute(pool_attr)?;
                        let v = self.eval(
                            At {
                                file,
                                expr: &attr.value,
                            },
                            &Vec::new(),
                            0,
                        );
                        Some((iac::scalar(&v, as_).ok().flatten()?, v.origin))
                    });
                    let setting = match value {
                        Some((k, origin)) => {
                            let mut set = Setting::literal(k, s, span(a.key.span()));
                            set.written = written.clone();
                            set.in_place = false;
                            set.origin = origin;
                            set
                        }
                        None => Setting::dynamic(
                            written.clone(),
                            format!("the Kubernetes cluster's `default_node_pool.{pool_attr}` is not known"),
                            s,
                            span(a.key.span()),
                        ),
                    };
                    def.set(path, setting);
                }
                notes.push(
                    "the size and node count are the default node pool's of the Kubernetes cluster".into(),
                );
            }
        }
    }

    /// A `dynamic "scale_settings" { for_each = ... content { ... } }` block (audit 30,
    /// case 08): over a known collection, its `content` read with the iterator (`iterator
    /// = x`, else the block's label) bound to the first item's `key` and `value` (the
    /// block is written once at most; none over an empty collection: absent); over one not
    /// known statically, each attribute `content` writes is unknown, with why — never
    /// absent (an absent `min_node_count` is 0).
    fn dynamic_block(
        &self,
        dynamic: &'m Block,
        table: &[(&str, &str, iac::As)],
        env: &Env,
        def: &mut ComputeDef,
        notes: &mut Vec<String>,
    ) {
        let Some(content) = dynamic.body.get_blocks("content").next() else {
            return;
        };
        let label = dynamic.labels.first().map_or("", |l| l.as_str()).to_string();
        let iterator = match dynamic.body.get_attribute("iterator").map(|a| &a.value) {
            Some(Expression::Variable(v)) => v.as_str().to_string(),
            _ => label.clone(),
        };
        let Some(for_each) = dynamic.body.get_attribute("for_each") else {
            return;
        };
        let leaf = self.leaf(
            At {
                file: 0,
                expr: &for_each.value,
            },
            env,
            notes,
        );
        let first = match &leaf.val.v {
            V::List(items) => Ok(items.first().map(|v| (Ev::int(0), v.clone()))),
            V::Map(entries) => Ok(entries.first().map(|(k, v)| (Ev::text(k.clone()), v.clone()))),
            V::Null => Ok(None),
            _ => Err(leaf.val.why().unwrap_or_else(|| {
                format!(
                    "`for_each = {}` is not a list, set or map",
                    iac::one_line(&leaf.written)
                )
            })),
        };
        match first {
            Ok(None) => {}
            Ok(Some((key, value))) => {
                let mut env = env.clone();
                let item = Ev::new(V::Map(vec![("key".into(), key), ("value".into(), value)]));
                env.push((iterator, item));
                self.set_attributes(&content.body, table, &env, def, notes);
            }
            Err(why) => {
                let why = format!(
                    "the `dynamic \"{label}\"` block is written once per item of `for_each = {}`, and {why}",
                    iac::one_line(&leaf.written)
                );
                for (attr, path, _) in table {
                    if let Some(a) = content.body.get_attribute(attr) {
                        let written = self.written(At {
                            file: 0,
                            expr: &a.value,
                        });
                        let at = span(a.value.span()).unwrap_or(leaf.span);
                        def.set(
                            path,
                            Setting::dynamic(written, why.clone(), at, span(a.key.span())),
                        );
                    }
                }
            }
        }
    }

    /// The attributes of `body` the table names, as settings of their YAML paths.
    fn set_attributes(
        &self,
        body: &'m Body,
        table: &[(&str, &str, iac::As)],
        env: &Env,
        def: &mut ComputeDef,
        notes: &mut Vec<String>,
    ) {
        for (attr, path, as_) in table {
            if let Some(a) = body.get_attribute(attr) {
                let leaf = self.leaf(
                    At {
                        file: 0,
                        expr: &a.value,
                    },
                    env,
                    notes,
                );
                match iac::setting_of(&leaf, span(a.key.span()), *as_) {
                    Some(s) => def.set(path, s),
                    None => iac::written_null(def, path, &leaf),
                }
            }
        }
    }

    /// `kubernetes_cluster_id = azurerm_kubernetes_cluster.x.id`: that cluster's default
    /// node pool, and the file it is written in.
    fn aks_pool(&self, e: &Expression) -> Option<(usize, &'m Block)> {
        let Expression::Traversal(t) = e else { return None };
        let Expression::Variable(root) = &t.expr else {
            return None;
        };
        if root.as_str() != "azurerm_kubernetes_cluster" {
            return None;
        }
        let Some(TraversalOperator::GetAttr(name)) = t.operators.first().map(|o| o.value()) else {
            return None;
        };
        let (file, aks) = self
            .resources
            .get(&("azurerm_kubernetes_cluster".into(), name.as_str().to_string()))?;
        Some((*file, aks.body.get_blocks("default_node_pool").next()?))
    }

    /// An `azapi_resource`'s ARM body (`body = {…}` or `jsonencode({…})`) and `location`.
    fn azapi(&self, b: &'m Block, env: &Env, def: &mut ComputeDef, notes: &mut Vec<String>) {
        let mut fields = Vec::new();
        if let Some(a) = b.body.get_attribute("location") {
            fields.push(BodyField {
                name: "location".into(),
                key: span(a.key.span()).unwrap_or_default(),
                value: BodyNode::Leaf(self.leaf(
                    At {
                        file: 0,
                        expr: &a.value,
                    },
                    env,
                    notes,
                )),
            });
        }
        if let Some(a) = b.body.get_attribute("body") {
            let mut e = &a.value;
            if let Expression::FuncCall(f) = e {
                if f.name.name.as_str() == "jsonencode" && f.args.len() == 1 {
                    e = f.args.get(0).unwrap_or(e);
                }
            }
            match self.node(At { file: 0, expr: e }, env, 0, notes) {
                BodyNode::Map(body) => fields.extend(body),
                // A JSON text (azapi 1.x's string body, a heredoc): not read, so what it
                // sets is unknown, never guessed absent (audit 24, case 12).
                BodyNode::Leaf(mut leaf) if matches!(leaf.val.v, V::Str(_)) => {
                    let why = "the body is JSON text, which amlint does not read (write it as an object, or `jsonencode({…})`)";
                    notes.push(format!("`body` is not read: {why}"));
                    leaf.val = Ev::unknown(why);
                    fields.push(BodyField {
                        name: "properties".into(),
                        key: span(a.key.span()).unwrap_or_default(),
                        value: BodyNode::Leaf(leaf),
                    });
                }
                leaf => fields.push(BodyField {
                    name: "properties".into(),
                    key: span(a.key.span()).unwrap_or_default(),
                    value: leaf,
                }),
            }
        }
        iac::arm_compute_fields(&BodyNode::Map(fields), def);
    }

    /// An object written in place as a map of fields; anything else a leaf.
    fn node(&self, at: At<'m>, env: &Env, depth: usize, notes: &mut Vec<String>) -> BodyNode {
        if let (Expression::Object(o), true) = (at.expr, depth < 6) {
            let mut fields = Vec::new();
            for (k, v) in o.iter() {
                let (name, key) = match k {
                    ObjectKey::Ident(i) => (i.as_str().to_string(), span(i.span())),
                    ObjectKey::Expression(e) => match self
                        .eval(
                            At {
                                file: at.file,
                                expr: e,
                            },
                            env,
                            0,
                        )
                        .known_str()
                    {
                        Some(s) => (s, span(e.span())),
                        None => continue,
                    },
                };
                fields.push(BodyField {
                    name,
                    key: key.unwrap_or_default(),
                    value: self.node(
                        At {
                            file: at.file,
                            expr: v.expr(),
                        },
                        env,
                        depth + 1,
                        notes,
                    ),
                });
            }
            return BodyNode::Map(fields);
        }
        BodyNode::Leaf(self.leaf(at, env, notes))
    }

    /// A value as written in the defining file: its span, text and value.
    fn leaf(&self, at: At<'m>, env: &Env, notes: &mut Vec<String>) -> Leaf {
        let val = self.eval(at, env, 0);
        if let Some(n) = &val.note {
            notes.push(n.clone());
        }
        let s = span(at.expr.span()).unwrap_or_default();
        let (span, literal) = match at.expr {
            Expression::String(v) => {
                let inner = iac::inner_if_plain(self.text, s, 1, 1, v.value());
                (
                    inner.unwrap_or_else(|| Span::new(s.start + 1, s.end.saturating_sub(1).max(s.start + 1))),
                    inner,
                )
            }
            Expression::StringTemplate(_) if s.len() >= 2 => (Span::new(s.start + 1, s.end - 1), None),
            Expression::Number(_) | Expression::Bool(_) => (s, Some(s)),
            _ => (s, None),
        };
        Leaf {
            span,
            written: self.text.get(span.range()).unwrap_or_default().to_string(),
            val,
            literal,
        }
    }

    fn written(&self, at: At<'m>) -> String {
        let text = if at.file == 0 {
            self.text
        } else {
            &self.files[at.file].0.text
        };
        span(at.expr.span())
            .and_then(|s| text.get(s.range()))
            .unwrap_or_default()
            .to_string()
    }

    // -----------------------------------------------------------------------------------
    // Evaluation (each construct a small function: the recursion's frames stay small)

    fn eval(&self, at: At<'m>, env: &Env, depth: usize) -> Ev {
        if depth > MAX_EVAL {
            return Ev::unknown("the expression is nested too deeply");
        }
        let file = at.file;
        let sub = |expr: &'m Expression| At { file, expr };
        match at.expr {
            Expression::Null(_) => Ev::new(V::Null),
            Expression::Bool(b) => Ev::boolean(*b.value()).with_origin(self.origin(at)),
            Expression::Number(n) => match n.value().as_i64() {
                Some(i) => Ev::int(i).with_origin(self.origin(at)),
                None => Ev::unknown(format!("`{}` is not an integer", n.value())),
            },
            Expression::String(s) => {
                let plain = self
                    .origin(at)
                    .and_then(|sp| iac::inner_if_plain(self.text, sp, 1, 1, s.value()));
                Ev::text(s.value().clone()).with_origin(plain)
            }
            Expression::StringTemplate(t) => self.template(t.iter(), file, env, depth),
            Expression::HeredocTemplate(h) => self.template(h.template.iter(), file, env, depth),
            Expression::Parenthesis(p) => self.eval(sub(p.inner()), env, depth + 1),
            Expression::Array(a) => Ev::new(V::List(
                a.iter()
                    .take(iac::MAX_ITEMS)
                    .map(|e| self.eval(sub(e), env, depth + 1))
                    .collect(),
            )),
            Expression::Object(o) => self.object(o, file, env, depth),
            Expression::Variable(v) => self.variable(v.as_str(), env),
            Expression::Traversal(_) => self.traversal(at, env, depth),
            Expression::FuncCall(f) if f.name.name.as_str() == "try" => self.try_call(f, file, env, depth),
            Expression::FuncCall(f) if matches!(f.name.name.as_str(), "yamldecode" | "jsondecode") => {
                self.decoded(f, file, env, depth)
            }
            Expression::FuncCall(f) => {
                let args: Vec<Ev> = f.args.iter().map(|e| self.eval(sub(e), env, depth + 1)).collect();
                iac::carry(function(f.name.name.as_str(), &args), &args)
            }
            Expression::Conditional(c) => {
                let cond = self.eval(sub(&c.cond_expr), env, depth + 1);
                match cond.v {
                    V::Bool(true) => self.eval(sub(&c.true_expr), env, depth + 1),
                    V::Bool(false) => self.eval(sub(&c.false_expr), env, depth + 1),
                    _ => self.depends(at, &c.cond_expr, &cond),
                }
            }
            Expression::UnaryOp(u) => {
                let v = self.eval(sub(&u.expr), env, depth + 1);
                match (u.operator.value().as_str(), v.v) {
                    ("!", V::Bool(b)) => Ev::boolean(!b),
                    ("-", V::Int(i)) => Ev::int(i.saturating_neg()),
                    _ => self.not_known(at),
                }
            }
            Expression::BinaryOp(op) => {
                let l = self.eval(sub(&op.lhs_expr), env, depth + 1);
                let r = self.eval(sub(&op.rhs_expr), env, depth + 1);
                binary(op.operator.value().as_str(), l, r)
            }
            Expression::ForExpr(f) => self.for_expr(f, file, env, depth),
        }
    }

    /// `try(a, b, ...)`: its first argument that does not fail (Terraform's errors: an
    /// attribute or key a known object lacks, an index beyond a known list...). An argument
    /// not known statically is not one that fails: the `try` is not known either (audit 30,
    /// case 03: `try(var.settings.vm_size, "Standard_NC6")` in a module read alone is what
    /// the caller passes, not the fallback). Arguments after the one taken are not evaluated.
    #[inline(never)]
    fn try_call(&self, f: &'m hcl_edit::expr::FuncCall, file: usize, env: &Env, depth: usize) -> Ev {
        let mut failed = None;
        for e in f.args.iter() {
            let v = self.eval(At { file, expr: e }, env, depth + 1);
            match v.why() {
                Some(why) if fails(&why) => failed = Some(why),
                _ => return v,
            }
        }
        Ev::unknown(match failed {
            Some(why) => format!("every argument of `try` fails; the last: {why}"),
            None => "`try` has no argument".to_string(),
        })
    }

    /// The value of a traversal that fails in Terraform (`{at}`'s `{what}`), so that a
    /// `try` around it takes its next argument ([`fails`]).
    #[inline(never)]
    fn failing(&self, at: At<'m>, what: &str) -> Ev {
        Ev::unknown(format!("`{}`{FAILS}{what}", self.written(at)))
    }

    /// The span of a literal in the defining file (findings get a label there).
    fn origin(&self, at: At<'m>) -> Option<Span> {
        if at.file != 0 {
            return None;
        }
        span(at.expr.span())
    }

    #[inline(never)]
    fn depends(&self, at: At<'m>, cond: &'m Expression, v: &Ev) -> Ev {
        Ev::unknown(format!(
            "`{}` depends on `{}`{}",
            self.written(at),
            self.written(At {
                file: at.file,
                expr: cond
            }),
            v.why().map(|w| format!(", and {w}")).unwrap_or_default()
        ))
    }

    #[inline(never)]
    fn not_known(&self, at: At<'m>) -> Ev {
        Ev::unknown(format!("`{}` is not known statically", self.written(at)))
    }

    fn template(
        &self,
        elements: impl Iterator<Item = &'m Element>,
        file: usize,
        env: &Env,
        depth: usize,
    ) -> Ev {
        let mut pieces = Vec::new();
        let mut values = Vec::new();
        for e in elements {
            match e {
                Element::Literal(s) => pieces.push(Part::Text(s.value().clone())),
                Element::Interpolation(i) => {
                    let v = self.eval(At { file, expr: &i.expr }, env, depth + 1);
                    pieces.extend(v.pieces());
                    values.push(v);
                }
                Element::Directive(_) => pieces.push(Part::Unknown(
                    "a template directive (`%{…}`) is not evaluated".into(),
                )),
            }
        }
        iac::carry(iac::join(pieces), &values)
    }

    fn object(&self, o: &'m Object, file: usize, env: &Env, depth: usize) -> Ev {
        let mut entries = Vec::new();
        for (k, v) in o.iter().take(iac::MAX_ITEMS) {
            let key = match k {
                ObjectKey::Ident(i) => Some(i.as_str().to_string()),
                ObjectKey::Expression(e) => self.eval(At { file, expr: e }, env, depth + 1).known_str(),
            };
            if let Some(key) = key {
                entries.push((key, self.eval(At { file, expr: v.expr() }, env, depth + 1)));
            }
        }
        Ev::new(V::Map(entries))
    }

    fn variable(&self, name: &str, env: &Env) -> Ev {
        if let Some((_, v)) = env.iter().rev().find(|(n, _)| *n == name) {
            return v.clone();
        }
        Ev::unknown(format!("`{name}` is not known statically"))
    }

    /// `var.x`, `local.x`, `each.key`, `count.index`, another resource's attribute, then
    /// attribute and index operators.
    fn traversal(&self, at: At<'m>, env: &Env, depth: usize) -> Ev {
        let Expression::Traversal(t) = at.expr else {
            return self.not_known(at);
        };
        let Expression::Variable(root) = &t.expr else {
            let base = self.eval(
                At {
                    file: at.file,
                    expr: &t.expr,
                },
                env,
                depth + 1,
            );
            return self.apply(base, &t.operators, at, env, depth);
        };
        let ops = &t.operators;
        let attr = |i: usize| match ops.get(i).map(|o| o.value()) {
            Some(TraversalOperator::GetAttr(a)) => Some(a.as_str()),
            _ => None,
        };
        // A `for` expression's variable (`c.name`, `c["name"]`) shadows everything else.
        let bound = env.iter().rev().find(|(n, _)| n == root.as_str());
        let (base, used) = match (root.as_str(), attr(0)) {
            _ if bound.is_some() => (bound.map_or_else(|| self.not_known(at), |(_, v)| v.clone()), 0),
            ("var", Some(name)) => (self.var(name, depth), 1),
            ("local", Some(name)) => (self.local(name, depth), 1),
            ("each", Some(k @ ("key" | "value"))) => (self.variable(&format!("each.{k}"), env), 1),
            ("count", Some("index")) => (self.variable("count.index", env), 1),
            ("path", Some(dir @ ("module" | "root" | "cwd"))) if self.in_path.get() => {
                (Ev::text(if dir == "module" { MODULE_DIR } else { ROOT_DIR }), 1)
            }
            ("path" | "terraform", _) => (
                Ev::unknown(format!("`{}` is known when Terraform runs", self.written(at))),
                ops.len(),
            ),
            ("data", _) => (
                Ev::unknown(format!(
                    "`{}` is read from Azure when Terraform runs",
                    self.written(at)
                )),
                ops.len(),
            ),
            ("module", _) => (
                Ev::unknown(format!("`{}` is an output of another module", self.written(at))),
                ops.len(),
            ),
            (rtype, Some(rname)) => match (
                self.resources.get(&(rtype.to_string(), rname.to_string())),
                attr(2),
            ) {
                (Some((file, b)), Some(a)) => match b.body.get_attribute(a) {
                    Some(attribute) if depth < MAX_EVAL => (
                        self.eval(
                            At {
                                file: *file,
                                expr: &attribute.value,
                            },
                            &Vec::new(),
                            depth + 1,
                        ),
                        3,
                    ),
                    _ => (
                        Ev::unknown(format!(
                            "`{}` is known after Terraform applies it",
                            self.written(at)
                        )),
                        ops.len(),
                    ),
                },
                _ => (
                    Ev::unknown(format!(
                        "`{}` is known after Terraform applies it",
                        self.written(at)
                    )),
                    ops.len(),
                ),
            },
            _ => (self.not_known(at), ops.len()),
        };
        let base = if at.file != 0 { strip(base) } else { base };
        let v = self.apply(base, &ops[used.min(ops.len())..], at, env, depth);
        match (root.as_str(), attr(0)) {
            ("var", Some(name)) if bound.is_none() => self.default_lacks(v, name, at),
            _ => v,
        }
    }

    /// `v`, the value of a traversal of `var.name` (`var.remote_objects.subnet_id`), not a
    /// failure when it fails on the variable's default in the module read alone (audit 32,
    /// case 08): the default applies only where a caller or the command line leaves the
    /// variable out, and a `try` around it (`try(var.remote_objects.subnet_id, null)`,
    /// `default = {}`) is written for what they pass, so its fallback is a guess. Unknown,
    /// saying so; in a module call that leaves the variable out, the default is the value
    /// and the failure stands.
    fn default_lacks(&self, v: Ev, name: &str, at: At<'m>) -> Ev {
        if !v.why().is_some_and(|w| fails(&w)) {
            return v;
        }
        let default = match self.vars.get(name) {
            Some((file, Some(d))) if self.given.is_none() && !self.tfvars.contains_key(name) => {
                self.written(At { file: *file, expr: d })
            }
            _ => return v,
        };
        Ev::unknown(format!(
            "`{}` is not in `var.{name}`'s default `{}`, and the module's caller or the command line sets `var.{name}`",
            iac::one_line(&self.written(at)),
            iac::one_line(&default)
        ))
    }

    fn apply(
        &self,
        mut v: Ev,
        ops: &'m [hcl_edit::Decorated<TraversalOperator>],
        at: At<'m>,
        env: &Env,
        depth: usize,
    ) -> Ev {
        for op in ops {
            if v.why().is_some() {
                return v;
            }
            v = match op.value() {
                TraversalOperator::GetAttr(a) => match (v.member(a.as_str(), false), &v.v) {
                    (Some(m), _) => m.clone(),
                    // Terraform refuses the attribute of an object that lacks it, of `null`,
                    // of a string, number or bool: an error (that `try` catches).
                    (None, V::Map(_)) => {
                        return self.failing(at, &format!("the object has no attribute `{}`", a.as_str()));
                    }
                    (None, V::Null) => return self.failing(at, &format!("`{}` of `null`", a.as_str())),
                    (None, V::Str(_) | V::Int(_) | V::Bool(_)) => {
                        return self
                            .failing(at, &format!("`{}` of a value that is not an object", a.as_str()));
                    }
                    (None, _) => return self.not_known(at),
                },
                TraversalOperator::Index(e) => {
                    let i = self.eval(
                        At {
                            file: at.file,
                            expr: e,
                        },
                        env,
                        depth + 1,
                    );
                    checked_index(self, at, &v, &i)
                }
                TraversalOperator::LegacyIndex(i) => checked_index(self, at, &v, &Ev::int(*i.value() as i64)),
                _ => return Ev::unknown(format!("`{}` uses a splat", self.written(at))),
            };
        }
        v
    }

    /// The variable a name not known is, when it is written exactly `var.x` (or
    /// `"${var.x}"`) and nothing gives `x` a value (no default, no variable file, no call).
    fn input_without_value(&self, name: &Setting) -> Option<String> {
        let w = name.written.trim();
        let w = (w.trim_matches('"').strip_prefix("${"))
            .and_then(|r| r.strip_suffix('}'))
            .unwrap_or(w);
        let x = w.trim().strip_prefix("var.")?;
        let declared_bare = matches!(self.vars.get(x), Some((_, None)));
        let given = self.given.is_some_and(|g| g.contains_key(x)) || self.tfvars.contains_key(x);
        (name.value.is_none() && declared_bare && !given).then(|| x.to_string())
    }

    /// `var.name`: a variable file's value, else the default.
    fn var(&self, name: &str, depth: usize) -> Ev {
        let key = format!("var.{name}");
        if let Some(v) = self.memo.borrow().get(&key) {
            return v.clone();
        }
        // What the module's call passes (its literals are in the calling file).
        let passed = self
            .given
            .and_then(|g| g.get(name))
            .filter(|_| self.vars.contains_key(name));
        let v = match (self.tfvars.get(name), self.vars.get(name)) {
            _ if passed.is_some() => strip(passed.cloned().unwrap_or_else(|| Ev::new(V::Null))),
            (Some((v, file)), decl) => {
                let default = match decl {
                    Some((f, Some(d))) => format!(" (default `{}`)", self.written(At { file: *f, expr: d })),
                    _ => String::new(),
                };
                v.clone()
                    .with_note(Some(format!("`var.{name}` is set by {file}{default}")))
            }
            (None, Some((file, Some(d)))) => {
                let v = self.guarded(&key, At { file: *file, expr: d }, depth);
                if *file == 0 {
                    v
                } else {
                    strip(v).with_note(Some(format!(
                        "`var.{name}` is its default, in {}",
                        super::common::file_name(&self.files[*file].0.path)
                    )))
                }
            }
            (None, Some((_, None))) if self.given.is_some() => Ev::unknown(format!(
                "`var.{name}` has no default and the module's call does not set it"
            )),
            (None, Some((_, None))) => Ev::unknown(format!(
                "`var.{name}` has no default (the module's caller or the command line sets it)"
            )),
            (None, None) => Ev::unknown(format!("`var.{name}` is not declared in this module")),
        };
        // The attributes an object value leaves out (or sets `null`) that its type declares
        // `optional(type, default)` take the default (Terraform 1.3 and later).
        let v = match self.types.get(name) {
            Some((file, ty)) => self.type_defaults(v, *file, ty, depth),
            None => v,
        };
        self.memo.borrow_mut().insert(key, v.clone());
        v
    }

    /// `v` converted to the type `ty` (written in the file `file`) as far as the defaults
    /// of its `optional(type, default)` object attributes go: an attribute the value leaves
    /// out or sets `null` takes the default, in the elements of a `map(...)`, `list(...)`
    /// or `set(...)` too. Anything else is left as it is.
    fn type_defaults(&self, v: Ev, file: usize, ty: &'m Expression, depth: usize) -> Ev {
        let Expression::FuncCall(f) = ty else {
            return v;
        };
        if depth >= MAX_EVAL {
            return v;
        }
        let args: Vec<&'m Expression> = f.args.iter().collect();
        let Ev {
            v: value,
            origin,
            note,
        } = v;
        let value = match (f.name.name.as_str(), args.as_slice(), value) {
            ("map" | "list" | "set", [inner], V::Map(entries)) => V::Map(
                entries
                    .into_iter()
                    .map(|(k, e)| (k, self.type_defaults(e, file, inner, depth + 1)))
                    .collect(),
            ),
            ("map" | "list" | "set", [inner], V::List(items)) => V::List(
                items
                    .into_iter()
                    .map(|e| self.type_defaults(e, file, inner, depth + 1))
                    .collect(),
            ),
            ("object", [Expression::Object(attrs)], V::Map(mut entries)) => {
                for (k, a) in attrs.iter().take(iac::MAX_ITEMS) {
                    let ObjectKey::Ident(k) = k else { continue };
                    let k = k.as_str();
                    let (inner, default) = match a.expr() {
                        Expression::FuncCall(o) if o.name.name.as_str() == "optional" => {
                            let mut oa = o.args.iter();
                            (oa.next(), oa.next())
                        }
                        t => (Some(t), None),
                    };
                    let at = entries.iter().position(|(n, _)| n == k);
                    let absent = at.is_none_or(|i| entries[i].1.v == V::Null);
                    if absent {
                        let Some(d) = default else { continue };
                        let d = self.eval(At { file, expr: d }, &Vec::new(), depth + 1);
                        let d = if file == 0 { d } else { strip(d) };
                        let d = match inner {
                            Some(t) => self.type_defaults(d, file, t, depth + 1),
                            None => d,
                        };
                        match at {
                            Some(i) => entries[i].1 = d,
                            None => entries.push((k.to_string(), d)),
                        }
                    } else if let (Some(i), Some(t)) = (at, inner) {
                        let e = std::mem::replace(&mut entries[i].1, Ev::new(V::Null));
                        entries[i].1 = self.type_defaults(e, file, t, depth + 1);
                    }
                }
                V::Map(entries)
            }
            (_, _, value) => value,
        };
        Ev {
            v: value,
            origin,
            note,
        }
    }

    fn local(&self, name: &str, depth: usize) -> Ev {
        let key = format!("local.{name}");
        // In a path `file()` reads, `path.module` stands for the module's directory: not
        // what the local is elsewhere.
        let memo = !self.in_path.get();
        if let Some(v) = self.memo.borrow().get(&key).filter(|_| memo) {
            return v.clone();
        }
        let v = match self.locals.get(name) {
            Some(at) => {
                let v = self.guarded(&key, *at, depth);
                if at.file == 0 { v } else { strip(v) }
            }
            None => Ev::unknown(format!("`local.{name}` is not declared in this module")),
        };
        if memo {
            self.memo.borrow_mut().insert(key, v.clone());
        }
        v
    }

    fn guarded(&self, key: &str, at: At<'m>, depth: usize) -> Ev {
        if self.busy.borrow().iter().any(|b| b == key) {
            return Ev::unknown(format!("`{key}` is defined through itself"));
        }
        self.busy.borrow_mut().push(key.to_string());
        let v = self.eval(at, &Vec::new(), depth + 1);
        self.busy.borrow_mut().retain(|b| b != key);
        v
    }

    fn for_expr(&self, f: &'m hcl_edit::expr::ForExpr, file: usize, env: &Env, depth: usize) -> Ev {
        let coll = self.eval(
            At {
                file,
                expr: &f.intro.collection_expr,
            },
            env,
            depth + 1,
        );
        let items: Vec<(Ev, Ev)> = match &coll.v {
            V::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (Ev::int(i as i64), v.clone()))
                .collect(),
            V::Map(entries) => entries
                .iter()
                .map(|(k, v)| (Ev::text(k.clone()), v.clone()))
                .collect(),
            _ => {
                return Ev::unknown(
                    coll.why()
                        .unwrap_or_else(|| "a `for` over a value that is not a collection".into()),
                );
            }
        };
        let value_var = f.intro.value_var.as_str().to_string();
        let key_var = f.intro.key_var.as_ref().map(|k| k.as_str().to_string());
        let mut list = Vec::new();
        let mut map = Vec::new();
        for (k, v) in items.into_iter().take(iac::MAX_ITEMS) {
            let mut env = env.clone();
            if let Some(kv) = &key_var {
                env.push((kv.clone(), k));
            }
            env.push((value_var.clone(), v));
            if let Some(c) = &f.cond {
                match self.eval(At { file, expr: &c.expr }, &env, depth + 1).v {
                    V::Bool(true) => {}
                    V::Bool(false) => continue,
                    _ => return Ev::unknown("the `for` expression's condition is not known"),
                }
            }
            let value = self.eval(
                At {
                    file,
                    expr: &f.value_expr,
                },
                &env,
                depth + 1,
            );
            match &f.key_expr {
                Some(ke) => match self.eval(At { file, expr: ke }, &env, depth + 1).known_str() {
                    Some(key) => map.push((key, value)),
                    None => return Ev::unknown("a key of the `for` expression is not known"),
                },
                None => list.push(value),
            }
        }
        if f.key_expr.is_some() {
            Ev::new(V::Map(map))
        } else {
            Ev::new(V::List(list))
        }
    }
}

/// A value read in another file: its literals have no place in the defining file.
fn strip(v: Ev) -> Ev {
    iac::strip_origins(v)
}

fn index_of(v: &Ev, index: &Ev) -> Ev {
    iac::index_of(v, index, false)
}

/// What a reason says of a value that fails in Terraform (an error, which `try` catches),
/// not of one merely not known statically.
const FAILS: &str = " fails in Terraform: ";

/// Whether the reason `why` is (or is built of) a failure ([`FAILS`]).
fn fails(why: &str) -> bool {
    why.contains(FAILS)
}

/// `v[index]` in a traversal: an index beyond a known list, or a key a known object
/// lacks, fails ([`FAILS`]).
fn checked_index<'m>(m: &Module<'m>, at: At<'m>, v: &Ev, index: &Ev) -> Ev {
    let out = index_of(v, index);
    let known = v.why().is_none() && index.why().is_none();
    let missing = matches!((&v.v, &index.v), (V::List(_), V::Int(_)) | (V::Map(_), V::Str(_)));
    match out.why() {
        Some(why) if known && missing => m.failing(at, &why),
        _ => out,
    }
}

/// The name setting: the `name` attribute's value.
fn name_setting(leaf: &Leaf, key: Option<Span>) -> Setting {
    match iac::scalar(&leaf.val, iac::As::Text) {
        Ok(Some(Scalar::Str(name))) if !name.is_empty() => match leaf.literal {
            Some(at) => Setting::literal(Scalar::Str(name), at, key),
            None => {
                let mut s = Setting::literal(Scalar::Str(name), leaf.span, key);
                s.written = leaf.written.clone();
                s.origin = leaf.val.origin.filter(|o| *o != leaf.span);
                s.in_place = false;
                s
            }
        },
        Ok(_) => Setting::dynamic(&leaf.written, "the name is empty or null", leaf.span, key),
        Err(why) => Setting::dynamic(&leaf.written, why, leaf.span, key),
    }
}

/// The variables a `.tfvars` (HCL) or `.tfvars.json` file sets.
fn variable_file(src: &Arc<SourceFile>, name: &str) -> Vec<(String, Ev)> {
    if name.to_ascii_lowercase().ends_with(".json") {
        let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Json, &Default::default());
        let Some(doc) = loaded.documents.first().filter(|d| !d.partial) else {
            return Vec::new();
        };
        let Some(root) = doc.root else { return Vec::new() };
        return doc
            .entries(root)
            .iter()
            .map(|e| {
                (
                    doc.key_string(e.key).into_owned(),
                    iac::json_value(doc, e.value, false, 0),
                )
            })
            .collect();
    }
    let Some(body) = parse(&src.text) else {
        return Vec::new();
    };
    let files = [(src.clone(), Arc::new(body))];
    let m = Module::bare(&src.text, &files);
    files[0]
        .1
        .iter()
        .filter_map(|s| match s {
            Structure::Attribute(a) => Some((
                a.key.as_str().to_string(),
                strip(m.eval(
                    At {
                        file: 0,
                        expr: &a.value,
                    },
                    &Vec::new(),
                    0,
                )),
            )),
            Structure::Block(_) => None,
        })
        .collect()
}

impl<'m> Module<'m> {
    /// A module of `files` with nothing declared yet (a variable file's values; what
    /// [`Module::new`] fills in).
    fn bare(text: &'m str, files: &'m [(Arc<SourceFile>, Arc<Body>)]) -> Self {
        Module {
            text,
            files,
            vars: HashMap::new(),
            types: HashMap::new(),
            tfvars: HashMap::new(),
            locals: HashMap::new(),
            resources: HashMap::new(),
            memo: Default::default(),
            busy: Default::default(),
            given: None,
            load: None,
            in_path: Default::default(),
        }
    }
}

/// Terraform's functions on evaluated arguments (the ones names and sizes are built with).
fn function(name: &str, args: &[Ev]) -> Ev {
    let call = Call { name, args };
    call.string()
        .or_else(|| call.conversion())
        .or_else(|| call.collection())
        .unwrap_or_else(|| Ev::unknown(format!("`{name}()` is not evaluated statically")))
}

/// A call of one of Terraform's functions, on evaluated arguments. Each family of
/// functions answers `None` for a name it does not have.
struct Call<'a> {
    name: &'a str,
    args: &'a [Ev],
}

impl Call<'_> {
    /// Argument `i` as a whole known string.
    fn text(&self, i: usize) -> Option<String> {
        self.args.get(i).and_then(Ev::known_str)
    }

    /// Argument `i`'s value.
    fn value(&self, i: usize) -> Option<&V> {
        self.args.get(i).map(|a| &a.v)
    }

    /// The result when the arguments are not what the function takes: unknown, with the
    /// first argument's reason or this one.
    fn unknown(&self) -> Ev {
        Ev::unknown(
            self.args
                .iter()
                .find_map(Ev::why)
                .unwrap_or_else(|| format!("`{}()` of values that are not known", self.name)),
        )
    }

    /// `lower`, `upper`, `trimspace`, `format`, `join`, `replace`, `substr`.
    fn string(&self) -> Option<Ev> {
        let map_text = |f: fn(&str) -> String| {
            self.args
                .first()
                .and_then(|a| iac::map_text(a, f))
                .unwrap_or_else(|| self.unknown())
        };
        Some(match self.name {
            "lower" => map_text(|s| s.to_lowercase()),
            "upper" => map_text(|s| s.to_uppercase()),
            "trimspace" => match self.text(0) {
                Some(s) => Ev::text(s.trim()),
                None => self.unknown(),
            },
            "format" => match self.text(0) {
                Some(f) => format_verbs(&f, &self.args[1..]),
                None => self.unknown(),
            },
            "join" => match (self.text(0), self.value(1)) {
                (Some(sep), Some(V::List(items))) => {
                    let mut pieces = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            pieces.push(Part::Text(sep.clone()));
                        }
                        pieces.extend(item.pieces());
                    }
                    iac::join(pieces)
                }
                _ => self.unknown(),
            },
            "replace" => match (self.text(0), self.text(1), self.text(2)) {
                (Some(s), Some(from), Some(to)) if !from.is_empty() && !is_pattern(&from) => {
                    let r = s.replace(&from, &to);
                    if r.len() > iac::MAX_TEXT {
                        Ev::unknown("the string is too long")
                    } else {
                        Ev::text(r)
                    }
                }
                _ => self.unknown(),
            },
            "substr" => match (self.text(0), self.value(1), self.value(2)) {
                (Some(s), Some(V::Int(off)), Some(V::Int(len))) if *off >= 0 => {
                    let chars = s.chars().skip(*off as usize);
                    Ev::text(if *len < 0 {
                        chars.collect::<String>()
                    } else {
                        chars.take(*len as usize).collect()
                    })
                }
                _ => self.unknown(),
            },
            _ => return None,
        })
    }

    /// `tostring`, `tonumber`, `tolist`, `toset`, `tomap`.
    fn conversion(&self) -> Option<Ev> {
        Some(match self.name {
            "tostring" => match self.args.first() {
                Some(a) if matches!(a.v, V::Str(_) | V::Int(_) | V::Bool(_)) => iac::join(a.pieces()),
                _ => self.unknown(),
            },
            "tonumber" => match self.args.first().and_then(iac::int_of) {
                Some(i) => Ev::int(i),
                None => self.unknown(),
            },
            "tolist" | "toset" | "tomap" => match self.args.first() {
                Some(a) if matches!(a.v, V::List(_) | V::Map(_)) => {
                    let mut v = a.clone();
                    if let (V::List(items), "toset") = (&mut v.v, self.name) {
                        let mut seen: Vec<V> = Vec::new();
                        items.retain(|i| {
                            let new = !seen.contains(&i.v);
                            seen.push(i.v.clone());
                            new
                        });
                    }
                    v
                }
                _ => self.unknown(),
            },
            _ => return None,
        })
    }

    /// `coalesce`, `lookup`, `merge`, `concat`, `element`, `length`.
    fn collection(&self) -> Option<Ev> {
        Some(match self.name {
            "coalesce" => self
                .args
                .iter()
                .find(|a| match &a.v {
                    V::Null => false,
                    V::Str(_) => a.known_str().as_deref() != Some(""),
                    _ => true,
                })
                .cloned()
                .unwrap_or_else(|| Ev::unknown("every argument of `coalesce` is null or empty")),
            "lookup" => match self.args.first() {
                Some(m @ Ev { v: V::Map(_), .. }) => {
                    match self.text(1).and_then(|k| m.member(&k, false).cloned()) {
                        Some(v) => v,
                        None => self
                            .args
                            .get(2)
                            .cloned()
                            .unwrap_or_else(|| Ev::unknown("`lookup` of a missing key")),
                    }
                }
                _ => self.unknown(),
            },
            "merge" => {
                let mut out: Vec<(String, Ev)> = Vec::new();
                for a in self.args {
                    let V::Map(entries) = &a.v else {
                        return Some(self.unknown());
                    };
                    for (k, v) in entries {
                        out.retain(|(x, _)| x != k);
                        out.push((k.clone(), v.clone()));
                    }
                }
                out.truncate(iac::MAX_ITEMS);
                Ev::new(V::Map(out))
            }
            "concat" => iac::concat_lists(self.args).unwrap_or_else(|| self.unknown()),
            "element" => match (self.value(0), self.value(1)) {
                (Some(V::List(items)), Some(V::Int(i))) if !items.is_empty() => {
                    items[(i.rem_euclid(items.len() as i64)) as usize].clone()
                }
                _ => self.unknown(),
            },
            "length" => match self.value(0) {
                Some(V::List(items)) => Ev::int(items.len() as i64),
                Some(V::Map(entries)) => Ev::int(entries.len() as i64),
                _ => match self.text(0) {
                    Some(s) => Ev::int(s.chars().count() as i64),
                    None => self.unknown(),
                },
            },
            _ => return None,
        })
    }
}

/// A `replace` argument written `/…/` is a regular expression (not evaluated).
fn is_pattern(s: &str) -> bool {
    s.len() >= 2 && s.starts_with('/') && s.ends_with('/')
}

/// Terraform's `format`: `%s`, `%d`, `%v` and `%%` (other verbs are unknown).
fn format_verbs(f: &str, args: &[Ev]) -> Ev {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut next = 0usize;
    let mut chars = f.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => text.push('%'),
            Some('s' | 'd' | 'v') => {
                let Some(a) = args.get(next) else {
                    return Ev::unknown("`format` has fewer arguments than verbs");
                };
                next += 1;
                pieces.push(Part::Text(std::mem::take(&mut text)));
                pieces.extend(a.pieces());
            }
            other => {
                return Ev::unknown(format!(
                    "the `format` verb `%{}` is not evaluated",
                    other.map(String::from).unwrap_or_default()
                ));
            }
        }
    }
    pieces.push(Part::Text(text));
    iac::join(pieces)
}

fn binary(op: &str, l: Ev, r: Ev) -> Ev {
    if let Some(w) = l.why().or_else(|| r.why()) {
        return Ev::unknown(w);
    }
    let eq = |l: &Ev, r: &Ev| match (l.known_str(), r.known_str()) {
        (Some(a), Some(b)) => a == b,
        _ => l.v == r.v,
    };
    match (op, &l.v, &r.v) {
        ("==", ..) => Ev::boolean(eq(&l, &r)),
        ("!=", ..) => Ev::boolean(!eq(&l, &r)),
        ("&&", V::Bool(a), V::Bool(b)) => Ev::boolean(*a && *b),
        ("||", V::Bool(a), V::Bool(b)) => Ev::boolean(*a || *b),
        ("<", V::Int(a), V::Int(b)) => Ev::boolean(a < b),
        (">", V::Int(a), V::Int(b)) => Ev::boolean(a > b),
        ("<=", V::Int(a), V::Int(b)) => Ev::boolean(a <= b),
        (">=", V::Int(a), V::Int(b)) => Ev::boolean(a >= b),
        ("+", V::Int(a), V::Int(b)) => Ev::int(a.saturating_add(*b)),
        ("-", V::Int(a), V::Int(b)) => Ev::int(a.saturating_sub(*b)),
        ("*", V::Int(a), V::Int(b)) => Ev::int(a.saturating_mul(*b)),
        ("/", V::Int(a), V::Int(b)) if *b != 0 => Ev::int(a / b),
        ("%", V::Int(a), V::Int(b)) if *b != 0 => Ev::int(a % b),
        _ => Ev::unknown(format!("the operator `{op}` is not evaluated on these values")),
    }
}

/// Where the comment scan of an HCL file is: in a string (`"`), or in code inside a
/// template interpolation (with its brace depth).
enum Mode {
    Str,
    Code(u32),
}

/// The comments of an HCL file (`#`, `//`, `/* */`), outside strings, templates and
/// heredocs, each with the line it covers.
fn comments(source: &SourceFile) -> Vec<super::common::Comment> {
    let text = source.text.as_str();
    let b = text.as_bytes();
    let mut layout = Layout::default();
    let mut stack: Vec<Mode> = Vec::new();
    let mut i = 0usize;
    while i < b.len() {
        if let Some(Mode::Str) = stack.last() {
            i = in_string(b, i, &mut stack);
            continue;
        }
        i = match b[i] {
            b'\n' => {
                layout.newline();
                i + 1
            }
            b' ' | b'\t' | b'\r' => i + 1,
            b'#' => layout.line_comment(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => layout.line_comment(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => layout.block_comment(b, i),
            _ => {
                layout.code(i);
                in_code(text, i, &mut stack)
            }
        };
    }
    iac::comments(source, &layout.comments, &layout.code)
}

/// The byte at `i` of a string: where the scan goes on. An escape is skipped whole, `${`
/// or `%{` opens an interpolation, the closing quote ends the string, and so does the
/// line's end when it is never closed.
fn in_string(b: &[u8], i: usize, stack: &mut Vec<Mode>) -> usize {
    match b[i] {
        b'\\' => i + 2,
        b'"' => {
            stack.pop();
            i + 1
        }
        b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
            stack.push(Mode::Code(0));
            i + 2
        }
        b'\n' => {
            // An unclosed string ends at the line's end.
            stack.pop();
            i
        }
        _ => i + 1,
    }
}

/// The byte of code at `i` (neither a blank nor a comment): where the scan goes on. A quote
/// opens a string, braces count inside an interpolation, and a heredoc is skipped to the
/// start of its closing delimiter's line (which counts as the heredoc's: no code starts
/// it).
fn in_code(text: &str, i: usize, stack: &mut Vec<Mode>) -> usize {
    let b = text.as_bytes();
    match b[i] {
        b'"' => stack.push(Mode::Str),
        b'{' => {
            if let Some(Mode::Code(d)) = stack.last_mut() {
                *d += 1;
            }
        }
        b'}' => match stack.last_mut() {
            Some(Mode::Code(0)) => {
                stack.pop();
            }
            Some(Mode::Code(d)) => *d -= 1,
            _ => {}
        },
        b'<' if b.get(i + 1) == Some(&b'<') && stack.is_empty() => {
            if let Some(end) = heredoc_end(text, i) {
                return end;
            }
        }
        _ => {}
    }
    i + 1
}

/// Where the heredoc `<<EOT` (or `<<-EOT`) at `i` ends: the start of its closing
/// delimiter's line, or the end of the text. `None` when `<<` starts no heredoc (no
/// delimiter, or more on its line).
fn heredoc_end(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut j = i + 2;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    let start = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    let delim = &text[start..j];
    if delim.is_empty() || !matches!(b.get(j), Some(b'\n') | Some(b'\r')) {
        return None;
    }
    let mut pos = memchr::memchr(b'\n', &b[j..]).map_or(b.len(), |k| j + k + 1);
    while pos < b.len() {
        let end = line_end(b, pos);
        if text[pos..end].trim() == delim {
            break;
        }
        pos = end + 1;
    }
    Some(pos)
}

// ---------------------------------------------------------------------------------------
// The files of the project a Terraform module reads when it is planned: `file(P)` and
// `templatefile(P, vars)` (a template deployment's ARM template, `template_deployment`),
// and `yamldecode(file(P))` / `jsondecode(file(P))` (a configuration in `locals`: `cfg =
// yamldecode(file("${path.module}/compute.yaml"))`, then `local.cfg.compute.vm_size`),
// whose values are the file's, each noted with where the file writes it
// ([`iac::structured_file`], as Bicep's `loadYamlContent()`).
//
// The path is evaluated with `path.module` (the module's directory) and, in the root
// module, `path.root` and `path.cwd` (where Terraform runs: the root module's directory,
// which a plain relative path is read from too); a called module does not know where
// Terraform runs, so such a path is not read there. The file is read as every file a
// reader consults: a relative path, inside the project, a regular text file under the
// size limit. A file not read leaves the value unknown, with the file named. What
// `templatefile()` fills in (`${…}`, `%{…}`) is not substituted: a value holding one is
// unknown.
/// What `path.module` evaluates to while a path `file()` reads is evaluated: text no path
/// holds.
const MODULE_DIR: &str = "\u{1}path.module\u{1}";
/// What `path.root` and `path.cwd` evaluate to there.
const ROOT_DIR: &str = "\u{1}path.root\u{1}";

/// A file a `file()` or `templatefile()` call reads.
struct Read {
    /// Its path (normalised), as displayed, and its text.
    path: PathBuf,
    shown: String,
    src: Arc<SourceFile>,
    /// Read by `templatefile()`: what its `${…}` and `%{…}` make is not known.
    template: bool,
}

impl<'m> Module<'m> {
    /// The file `call` — `file(P)` or `templatefile(P, vars)`, written in the module's file
    /// `file` — reads, or why it is not read.
    fn read_file_call(
        &self,
        call: &'m FuncCall,
        file: usize,
        env: &Env,
        depth: usize,
    ) -> Result<Read, String> {
        let fname = call.name.name.as_str();
        let template = fname == "templatefile";
        let arg = match call.args.get(0) {
            Some(a) if fname == "file" || template => a,
            _ => return Err(format!("`{fname}()` is not evaluated statically")),
        };
        let written = iac::one_line(&self.written(At { file, expr: arg }));
        let Some(load) = &self.load else {
            return Err(format!("`{fname}({written})` is not read here"));
        };
        let was = self.in_path.replace(true);
        let v = self.eval(At { file, expr: arg }, env, depth + 1);
        self.in_path.set(was);
        let Some(text) = v.known_str() else {
            let why = v.why().map(|w| format!(": {w}")).unwrap_or_default();
            return Err(format!(
                "`{fname}()` reads `{written}`, which is not known statically{}",
                why.replace(MODULE_DIR, "path.module")
                    .replace(ROOT_DIR, "path.root")
            ));
        };
        let (rel, known) = match (text.strip_prefix(MODULE_DIR), text.strip_prefix(ROOT_DIR)) {
            (Some(r), _) => (r, true),
            (None, Some(r)) => (r, load.root),
            (None, None) => (text.as_str(), load.root),
        };
        if !known {
            return Err(format!(
                "`{fname}()` reads `{written}`, a path from the directory Terraform runs in, which a called module does not know"
            ));
        }
        let rel = rel.trim_start_matches('/');
        if rel.is_empty()
            || rel.contains('\u{1}')
            || rel.starts_with('~')
            || rel.contains(':')
            || rel.contains('\\')
            || Path::new(rel).is_absolute()
            || text.starts_with('/')
        {
            return Err(format!(
                "`{fname}()` reads `{written}`, and amlint reads only a file of the project by its relative path"
            ));
        }
        let path = crate::fsio::normalize(&load.dir.join(rel));
        let shown = crate::discover::display_of(&crate::fsio::normalize(Path::new(&iac::beside(
            &load.display,
            rel,
        ))));
        match load.files.read(&path, &shown) {
            Some(src) => Ok(Read {
                path,
                shown,
                src,
                template,
            }),
            None => Err(format!(
                "`{fname}()` reads {shown}, which amlint cannot read: it is missing, outside the project, not a regular text file, or over the size limit"
            )),
        }
    }

    /// `yamldecode(file(P))` or `jsondecode(file(P))` (also of `templatefile(P, vars)`):
    /// the value of the file's one YAML or JSON document, each scalar noted with where the
    /// file writes it. Of anything else, or a file not read: unknown, saying why.
    fn decoded(&self, f: &'m FuncCall, file: usize, env: &Env, depth: usize) -> Ev {
        let fname = f.name.name.as_str();
        let inner = match f.args.get(0) {
            Some(Expression::FuncCall(c)) if f.args.len() == 1 => c,
            _ => {
                return Ev::unknown(format!(
                    "`{fname}()` of a value other than a file is not evaluated statically"
                ));
            }
        };
        let read = match self.read_file_call(inner, file, env, depth) {
            Ok(r) => r,
            Err(why) => return Ev::unknown(why),
        };
        // Each file is decoded once per module, however many expressions read it.
        let key = format!("{fname}:{}:{}", inner.name.name.as_str(), read.path.display());
        if let Some(v) = self.memo.borrow().get(&key) {
            return v.clone();
        }
        let format = if fname == "jsondecode" {
            crate::load::Format::Json
        } else {
            crate::load::Format::Yaml
        };
        let how = format!(
            "which `{fname}({}())` reads when Terraform plans",
            inner.name.name.as_str()
        );
        let parsed = match &self.load {
            Some(load) => iac::structured_file(load.files, &read.src, format, &how),
            None => Err("it is not read here".to_string()),
        };
        let v = match parsed {
            Ok(v) if read.template => filled(v),
            Ok(v) => v,
            Err(why) => Ev::unknown(format!("`{fname}()` reads {}, and {why}", read.shown)),
        };
        self.memo.borrow_mut().insert(key, v.clone());
        v
    }
}

/// Why a value `templatefile()` makes is not known.
fn placeholder_why(text: &str) -> String {
    format!(
        "`{}` holds a placeholder that `templatefile()` fills from its variables, which amlint does not substitute",
        iac::one_line(text)
    )
}

/// Whether text read through `templatefile()` holds a placeholder it fills.
fn has_placeholder(text: &str) -> bool {
    text.contains("${") || text.contains("%{")
}

/// A value of a file `templatefile()` reads: each string holding a placeholder (`${…}`,
/// `%{…}`) is unknown, saying so; the rest as the file writes it.
fn filled(mut v: Ev) -> Ev {
    let mut stack: Vec<&mut Ev> = vec![&mut v];
    while let Some(x) = stack.pop() {
        let placeholder = match &x.v {
            V::Str(parts) => (parts.iter()).any(|p| matches!(p, Part::Text(t) if has_placeholder(t))),
            _ => false,
        };
        if placeholder {
            let text = iac::join(x.pieces()).known_str().unwrap_or_default();
            x.v = V::Unknown(placeholder_why(&text));
            continue;
        }
        match &mut x.v {
            V::List(items) => stack.extend(items.iter_mut()),
            V::Map(entries) => stack.extend(entries.iter_mut().map(|(_, v)| v)),
            _ => {}
        }
    }
    v
}

// ---------------------------------------------------------------------------------------
// `resource "azurerm_resource_group_template_deployment"` (and the older
// `azurerm_template_deployment`): the computes
// (`Microsoft.MachineLearningServices/workspaces/computes`) of the ARM template it
// deploys, with the parameters it passes.
//
// - `template_content = file("${path.module}/arm/compute.json")` (`template_body`, also
//   `templatefile(...)`): the template file is read as the ARM reader reads it, its
//   parameters set to what the resource passes, and each compute is a definition at the
//   resource made as a module call makes them ([`iac::ModuleCall`], as `deploy.rs` makes
//   those of `az deployment group create`): a value the resource writes as a literal in
//   `parameters_content` is at that literal, the template's own values inherited at the
//   template's path, noted. A `templatefile()`'s placeholders are not substituted: a value
//   holding one is unknown.
// - `template_content = jsonencode({ … resources = [{ type = "…/computes", … }] })`: the
//   template is in the `.tf` file, and so is each definition, at the resource's object; a
//   string `"[parameters('x')]"` is the parameter's value (what the resource passes, else
//   its `defaultValue`), another ARM expression is unknown.
// - `parameters_content = jsonencode({ vmSize = { value = var.size } })` (`parameters_body`;
//   the older resource's `parameters = { vmSize = "…" }`) evaluated in the module (its
//   variables' defaults, `.tfvars`...), or `file(…)` of a parameters file
//   (`arm::deployment_parameters`). Parameters that cannot be read leave every parameter
//   of the template unknown, with why, never its defaults.
//
// A template not read (JSON text in a heredoc, a path not known statically, a file missing
// or outside the project) is not known to define a compute: nothing is defined.
/// The type of an ARM compute resource (lower case).
const COMPUTES: &str = "microsoft.machinelearningservices/workspaces/computes";

/// The definitions a template deployment resource `b` makes (one instance of it: `env`),
/// in the file shown as `display`; `notes` are said of each.
fn deployment_definitions<'m>(
    m: &Module<'m>,
    b: &'m Block,
    env: &Env,
    display: &str,
    notes: Vec<String>,
) -> Vec<ComputeDef> {
    let Some(t) = b
        .body
        .get_attribute("template_content")
        .or_else(|| b.body.get_attribute("template_body"))
    else {
        return Vec::new();
    };
    let Expression::FuncCall(f) = &t.value else {
        return Vec::new();
    };
    let label = format!(
        "resource \"{}\" \"{}\"",
        b.labels[0].as_str(),
        b.labels.get(1).map_or("", |l| l.as_str())
    );
    match (f.name.name.as_str(), f.args.get(0)) {
        ("jsonencode", Some(template @ Expression::Object(_))) if f.args.len() == 1 => {
            inline_template(m, b, template, env, display, &label, notes)
        }
        ("file" | "templatefile", Some(path)) => {
            let Some(load) = &m.load else {
                return Vec::new();
            };
            // Each instance read counts as a module call ([`iac::MAX_MODULE_CALLS`]).
            if load.budget.get() == 0 {
                load.skipped.set(true);
                return Vec::new();
            }
            load.budget.set(load.budget.get() - 1);
            let Ok(read) = m.read_file_call(f, 0, env, 0) else {
                return Vec::new();
            };
            let params = deployment_parameters(m, b, env, true).unwrap_or_else(|why| {
                let names = crate::load::parse_source(
                    read.src.clone(),
                    crate::load::Format::Json,
                    &Default::default(),
                )
                .documents
                .first()
                .and_then(|doc| {
                    let root = doc.root?;
                    let p = (doc.entries(root).iter())
                        .find(|e| doc.key_string(e.key).eq_ignore_ascii_case("parameters"))?;
                    Some(
                        (doc.entries(p.value).iter())
                            .take(iac::MAX_ITEMS)
                            .map(|e| doc.key_string(e.key).into_owned())
                            .collect::<Vec<_>>(),
                    )
                })
                .unwrap_or_default();
                unknown_parameters(names, &why)
            });
            let Some(defs) = super::arm::deployed(load.files, &read.path, &read.shown, params) else {
                return Vec::new();
            };
            let source = m.leaf(At { file: 0, expr: path }, env, &mut Vec::new());
            let call = iac::ModuleCall {
                display,
                whole: span(b.span()).unwrap_or_default(),
                label: &label,
                path: &source.written,
                source: source.span,
                source_key: span(t.key.span()),
                args: &[],
                prefix: "",
                note: None,
                verb: "deploys the template",
                text: Some(m.text),
            };
            defs.into_iter()
                .map(|def| {
                    let line = format!(
                        "{}:{}",
                        def.file,
                        super::common::line_of(&read.src, def.span.start)
                    );
                    let mut def = call.definition(def, &line);
                    def.notes.extend(notes.iter().cloned());
                    if read.template {
                        unfilled(&mut def);
                    }
                    def
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The parameters the resource passes (`parameters_content`, `parameters_body`, the older
/// `parameters`), by lower-cased name, each noted; `raise`: their literals' places marked
/// as the calling file's ([`iac::raise_origins`]), for a template read from another file.
/// `Err`: why they are not known.
fn deployment_parameters<'m>(m: &Module<'m>, b: &'m Block, env: &Env, raise: bool) -> Result<Given, String> {
    let mut out = Given::new();
    let raise = raise && iac::raisable(m.text.len());
    let mut put = |name: &str, v: Ev, attr: &str| {
        let mut v = if raise { iac::raise_origins(v) } else { v };
        if v.note.is_none() {
            v.note = Some(format!("`{name}` is set by the resource's `{attr}`"));
        }
        out.insert(name.to_ascii_lowercase(), v);
    };
    let at = |a: &'m Attribute| At {
        file: 0,
        expr: &a.value,
    };
    // The older resource's `parameters`: a map of strings.
    if let Some(a) = b.body.get_attribute("parameters") {
        match m.eval(at(a), env, 0).v {
            V::Map(entries) => entries.into_iter().for_each(|(k, v)| put(&k, v, "parameters")),
            other => return Err(not_read("parameters", &Ev::new(other))),
        }
    }
    let Some(a) = b
        .body
        .get_attribute("parameters_content")
        .or_else(|| b.body.get_attribute("parameters_body"))
    else {
        return Ok(out);
    };
    let attr = a.key.as_str();
    match &a.value {
        Expression::FuncCall(f) if f.name.name.as_str() == "jsonencode" && f.args.len() == 1 => {
            let v = m.eval(
                At {
                    file: 0,
                    expr: f.args.get(0).unwrap_or(&a.value),
                },
                env,
                0,
            );
            let entries = match v.v {
                V::Map(entries) => entries,
                other => return Err(not_read(attr, &Ev::new(other))),
            };
            for (name, p) in entries {
                let value = match (p.member("value", false), p.member("reference", false)) {
                    (Some(v), _) => v.clone(),
                    (None, Some(_)) => Ev::unknown(format!("`{name}` is a key vault reference")),
                    (None, None) => Ev::unknown(
                        p.why()
                            .unwrap_or_else(|| format!("`{name}` in `{attr}` has no `value`")),
                    ),
                };
                put(&name, value, attr);
            }
        }
        Expression::FuncCall(f) if matches!(f.name.name.as_str(), "file" | "templatefile") => {
            let read = m.read_file_call(f, 0, env, 0)?;
            let given = super::arm::deployment_parameters(&read.src, &read.shown)?;
            for (name, v) in given {
                out.insert(name, if read.template { filled(v) } else { v });
            }
        }
        _ => {
            return Err(format!(
                "`{attr}` is `{}`, which amlint does not read (it reads `jsonencode({{…}})` and `file()`)",
                iac::one_line(&m.written(at(a)))
            ));
        }
    }
    Ok(out)
}

/// Why parameters written as `v` are not read.
fn not_read(attr: &str, v: &Ev) -> String {
    match v.why() {
        Some(why) => format!("`{attr}` is not known statically: {why}"),
        None => format!("`{attr}` is not an object"),
    }
}

/// Every parameter of `names` unknown, saying why: the resource passes parameters amlint
/// cannot read, so the template's defaults may not be what is deployed.
fn unknown_parameters(names: Vec<String>, why: &str) -> Given {
    names
        .into_iter()
        .map(|n| {
            let v = Ev::unknown(format!(
                "the deployment sets the template's parameters, and {why}"
            ));
            (n.to_ascii_lowercase(), v)
        })
        .collect()
}

/// A definition of a template `templatefile()` reads: each value holding a placeholder it
/// fills is unknown, saying so.
fn unfilled(def: &mut ComputeDef) {
    let unknown = |s: &mut Setting| {
        if let Some(text) = s.text().filter(|t| has_placeholder(t)) {
            s.why = Some(placeholder_why(&text));
            s.value = None;
            s.in_place = false;
        }
    };
    unknown(&mut def.name);
    def.fields.iter_mut().for_each(|(_, s)| unknown(s));
}

/// The computes of a template written in the `.tf` file (`jsonencode({…})`): each
/// `resources` item of the compute type is a definition at its object, its ARM
/// expressions resolved ([`resolve_arm`]).
fn inline_template<'m>(
    m: &Module<'m>,
    b: &'m Block,
    template: &'m Expression,
    env: &Env,
    display: &str,
    label: &str,
    notes: Vec<String>,
) -> Vec<ComputeDef> {
    let Expression::Object(o) = template else {
        return Vec::new();
    };
    let whole = m.eval(
        At {
            file: 0,
            expr: template,
        },
        env,
        0,
    );
    let declared = whole.member("parameters", true);
    let given = deployment_parameters(m, b, env, false).unwrap_or_else(|why| {
        let names = match declared.map(|d| &d.v) {
            Some(V::Map(entries)) => entries.iter().map(|(k, _)| k.clone()).collect(),
            _ => Vec::new(),
        };
        unknown_parameters(names, &why)
    });
    let resources = o.iter().find_map(|(k, v)| {
        let name = match k {
            ObjectKey::Ident(i) => i.as_str().to_string(),
            ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
            ObjectKey::Expression(_) => return None,
        };
        match v.expr() {
            Expression::Array(a) if name.eq_ignore_ascii_case("resources") => Some(a),
            _ => None,
        }
    });
    let mut out = Vec::new();
    for item in resources.into_iter().flat_map(|a| a.iter()).take(iac::MAX_ITEMS) {
        let mut notes = notes.clone();
        let BodyNode::Map(mut fields) = m.node(At { file: 0, expr: item }, env, 0, &mut notes) else {
            continue;
        };
        let is_compute = (fields.iter().rev().find(|f| f.name.eq_ignore_ascii_case("type")))
            .and_then(|f| match &f.value {
                BodyNode::Leaf(l) => l.val.known_str(),
                BodyNode::Map(_) => None,
            })
            .is_some_and(|t| t.eq_ignore_ascii_case(COMPUTES));
        if !is_compute {
            continue;
        }
        let mut stack: Vec<&mut BodyNode> = fields.iter_mut().map(|f| &mut f.value).collect();
        while let Some(n) = stack.pop() {
            match n {
                BodyNode::Map(fs) => stack.extend(fs.iter_mut().map(|f| &mut f.value)),
                BodyNode::Leaf(leaf) => {
                    if resolve_arm(&mut leaf.val, &given, declared) {
                        leaf.literal = None;
                    }
                }
            }
        }
        let node = BodyNode::Map(fields);
        let at = span(item.span()).unwrap_or_default();
        let name = match node.field("name") {
            Some(f) => match &f.value {
                BodyNode::Leaf(leaf) => iac::name_setting(leaf, Some(f.key)),
                BodyNode::Map(_) => {
                    Setting::dynamic("", "the resource's `name` is an object", f.key, Some(f.key))
                }
            },
            None => Setting::dynamic("", "the resource has no `name`", at, None),
        };
        let mut def = ComputeDef::new(
            SourceKind::Terraform,
            display,
            at,
            format!("{label} (its inline ARM template)"),
            name,
        );
        def.idiom = crate::facts::idiom::Idiom::Azapi;
        iac::arm_compute_fields(&node, &mut def);
        notes.push(format!(
            "{label} deploys the ARM template written in its `template_content`"
        ));
        notes.dedup();
        def.notes = notes;
        out.push(def);
    }
    out
}

/// `v` with each ARM expression string in it (`"[parameters('vmSize')]"`) replaced by its
/// value: a parameter's is what the deployment passes (`given`), else its `defaultValue`
/// among the template's `declared` parameters; any other expression is unknown. Whether
/// `v` itself was one.
fn resolve_arm(v: &mut Ev, given: &Given, declared: Option<&Ev>) -> bool {
    let changed = expression_value(v, given, declared).map(|x| *v = x).is_some();
    let mut stack: Vec<&mut Ev> = vec![v];
    while let Some(x) = stack.pop() {
        let items: Vec<&mut Ev> = match &mut x.v {
            V::List(items) => items.iter_mut().collect(),
            V::Map(entries) => entries.iter_mut().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        for item in items {
            match expression_value(item, given, declared) {
                Some(y) => *item = y,
                None => stack.push(item),
            }
        }
    }
    changed
}

/// The value of `v` when it is an ARM expression string (see [`resolve_arm`]).
fn expression_value(v: &Ev, given: &Given, declared: Option<&Ev>) -> Option<Ev> {
    let s = v.known_str()?;
    let inner = s.strip_prefix('[').and_then(|r| r.strip_suffix(']'))?;
    if inner.starts_with('[') {
        return None;
    }
    let name = (inner.trim().strip_prefix("parameters("))
        .and_then(|r| r.strip_suffix(')'))
        .map(str::trim)
        .and_then(|r| r.strip_prefix('\'')?.strip_suffix('\''))
        .filter(|n| !n.contains('\''));
    let Some(name) = name else {
        return Some(Ev::unknown(format!(
            "`{}` is an ARM template expression, which amlint does not evaluate in a template written in Terraform",
            iac::one_line(&s)
        )));
    };
    if let Some(g) = given.get(&name.to_ascii_lowercase()) {
        return Some(g.clone());
    }
    let default = declared
        .and_then(|d| d.member(name, true))
        .and_then(|p| p.member("defaultValue", true));
    Some(match default {
        Some(d) => d.clone(),
        None => Ev::unknown(format!(
            "`parameters('{name}')` has no default value, and the resource does not pass it"
        )),
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn read_in(dir: &Path, name: &str, text: &str) -> Definitions {
        iac::read_for_test(read, dir, name, text)
    }

    fn defs(text: &str) -> Vec<ComputeDef> {
        let dir = tempfile::tempdir().unwrap();
        read_in(dir.path(), "main.tf", text).computes
    }

    const CLUSTER: &str = r#"# The training cluster.
resource "azurerm_machine_learning_compute_cluster" "gpu" {
  name                          = "${local.prefix}-gpu"
  location                      = var.location
  vm_priority                   = "LowPriority"
  vm_size                       = var.vm_size # amlint: ignore[AML505]
  machine_learning_workspace_id = azurerm_machine_learning_workspace.ws.id
  node_public_ip_enabled        = false
  subnet_resource_id            = azurerm_subnet.ml.id

  scale_settings {
    min_node_count                       = 1
    max_node_count                       = 4
    scale_down_nodes_after_idle_duration = "PT30S"
  }
}

locals {
  prefix = "tf"
}

variable "vm_size" {
  default = "Standard_NC6"
}

variable "location" {
  type = string
}
"#;

    #[test]
    fn a_compute_cluster_is_a_definition_with_its_values_and_spans() {
        let d = defs(CLUSTER);
        assert_eq!(d.len(), 1);
        let d = &d[0];
        assert_eq!(d.source, SourceKind::Terraform);
        assert_eq!(d.known_name(), Some("tf-gpu"));
        assert_eq!(&CLUSTER[d.name.span.range()], "${local.prefix}-gpu");
        assert_eq!(d.ctype().as_deref(), Some("amlcompute"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&CLUSTER[size.span.range()], "var.vm_size");
        assert_eq!(&CLUSTER[size.key.unwrap().range()], "vm_size");
        assert_eq!(&CLUSTER[size.origin.unwrap().range()], "Standard_NC6");
        assert!(!size.in_place);
        let min = d.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.in_place), (Some(Scalar::Int(1)), true));
        assert_eq!(&CLUSTER[min.span.range()], "1");
        assert_eq!(
            d.get("idle_time_before_scale_down").unwrap().value,
            Some(Scalar::Int(30))
        );
        assert_eq!(
            d.get("tier").unwrap().value,
            Some(Scalar::Str("low_priority".into()))
        );
        assert_eq!(
            d.get("enable_node_public_ip").unwrap().value,
            Some(Scalar::Bool(false))
        );
        let subnet = d.get("network_settings.subnet").unwrap();
        assert!(
            subnet.why.as_deref().unwrap().contains("after Terraform applies"),
            "{subnet:?}"
        );
        let loc = d.get("location").unwrap();
        assert!(loc.why.as_deref().unwrap().contains("has no default"));
        assert!(CLUSTER[d.span.range()].starts_with("resource \"azurerm_machine_learning_compute_cluster\""));
    }

    #[test]
    fn comments_are_found_with_the_lines_they_cover() {
        let dir = tempfile::tempdir().unwrap();
        let t = format!(
            "{CLUSTER}x = \"# not a comment ${{\"#\"}}\" // trailing\ny = <<EOT\n# in a heredoc\nEOT\n/* block */\nz = 1\n"
        );
        let out = read_in(dir.path(), "main.tf", &t);
        let got: Vec<(&str, Option<u32>)> = out
            .comments
            .iter()
            .map(|c| (&t[c.span.range()], c.target_line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("# The training cluster.", Some(2)),
                ("# amlint: ignore[AML505]", Some(6)),
                ("// trailing", Some(29)),
                ("/* block */", Some(34)),
            ]
        );
    }

    #[test]
    fn variables_from_other_files_and_variable_files_say_where_they_come_from() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("variables.tf"), "variable \"size\" {\n  default = \"Standard_DS3_v2\"\n}\nvariable \"cname\" {\n  default = \"cpu\"\n}\n").unwrap();
        std::fs::write(dir.path().join("terraform.tfvars"), "size = \"Standard_NC24\"\n").unwrap();
        std::fs::write(dir.path().join("dev.tfvars"), "size = \"Standard_ND40rs_v2\"\n").unwrap();
        let t = "resource \"azurerm_machine_learning_compute_instance\" \"ci\" {\n  name = var.cname\n  virtual_machine_size = var.size\n}\n";
        let d = &read_in(dir.path(), "main.tf", t).computes[0];
        assert_eq!(d.known_name(), Some("cpu"));
        assert_eq!(d.name.origin, None, "the literal is in variables.tf");
        assert_eq!(d.ctype().as_deref(), Some("computeinstance"));
        let size = d.get("size").unwrap();
        assert_eq!(
            size.value,
            Some(Scalar::Str("Standard_NC24".into())),
            "terraform.tfvars wins, dev.tfvars is -var-file only"
        );
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("terraform.tfvars") && n.contains("Standard_DS3_v2")),
            "{:?}",
            d.notes
        );
        assert!(
            d.notes.iter().any(|n| n.contains("default, in variables.tf")),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn for_each_count_and_azapi_resources() {
        let t = r#"
variable "clusters" {
  default = {
    cpu = { size = "Standard_DS3_v2", min = 0 }
    gpu = { size = "Standard_NC6", min = 1 }
  }
}
resource "azurerm_machine_learning_compute_cluster" "each" {
  for_each = var.clusters
  name     = "c-${each.key}"
  vm_size  = each.value.size
  vm_priority = "Dedicated"
  scale_settings {
    min_node_count = each.value.min
    max_node_count = 2
  }
}
resource "azurerm_machine_learning_compute_cluster" "counted" {
  count    = 2
  name     = "n${count.index}"
  vm_size  = "Standard_DS3_v2"
  vm_priority = "Dedicated"
}
variable "enabled" {
  default = false
}
resource "azurerm_machine_learning_compute_cluster" "maybe" {
  count    = var.enabled ? 1 : 0
  name     = "maybe"
  vm_size  = "Standard_DS3_v2"
  vm_priority = "Dedicated"
}
resource "azapi_resource" "api" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2023-04-01"
  name      = coalesce(var.none, "api-cluster")
  location  = "westeurope"
  body = jsonencode({
    properties = {
      computeType = "AmlCompute"
      properties = {
        vmSize        = "Standard_ND40rs_v2"
        enableNodePublicIp = false
        scaleSettings = { minNodeCount = 0, maxNodeCount = 4, nodeIdleTimeBeforeScaleDown = "PT2M" }
      }
    }
  })
}
variable "none" {
  default = null
}
resource "azapi_resource" "other" {
  type = "Microsoft.Storage/storageAccounts@2023-01-01"
  name = "st"
}
"#;
        let d = defs(t);
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            vec![
                Some("c-cpu"),
                Some("c-gpu"),
                Some("n0"),
                Some("n1"),
                Some("maybe"),
                Some("api-cluster")
            ]
        );
        assert_eq!(d[1].size(), Some("Standard_NC6"));
        assert_eq!(d[1].get("min_instances").unwrap().value, Some(Scalar::Int(1)));
        assert!(d[1].notes.iter().any(|n| n.contains("for_each key `gpu`")));
        assert!(
            d[4].notes
                .iter()
                .any(|n| n.contains("count = var.enabled ? 1 : 0")),
            "{:?}",
            d[4].notes
        );
        let api = &d[5];
        assert_eq!(api.ctype().as_deref(), Some("amlcompute"));
        let size = api.get("size").unwrap();
        assert!(size.in_place && &t[size.span.range()] == "Standard_ND40rs_v2");
        assert_eq!(
            api.get("idle_time_before_scale_down").unwrap().value,
            Some(Scalar::Int(120))
        );
        assert_eq!(
            api.get("location").unwrap().value,
            Some(Scalar::Str("westeurope".into()))
        );
    }

    #[test]
    fn a_for_expression_reads_the_fields_of_its_variable() {
        let t = r#"variable "clusters" {
  default = [
    { name = "gpu-cluster", vm_size = "Standard_NC6" },
    { name = "cpu-cluster", vm_size = "Standard_DS3_v2" },
  ]
}
variable "given" {
  type = list(object({ name = string }))
}
resource "azurerm_machine_learning_compute_cluster" "by_attr" {
  for_each    = { for c in var.clusters : c.name => c }
  name        = each.key
  vm_size     = each.value.vm_size
  vm_priority = "Dedicated"
}
resource "azurerm_machine_learning_compute_cluster" "by_index" {
  for_each    = { for i, c in var.clusters : "${c["name"]}-${i}" => c["vm_size"] }
  name        = each.key
  vm_size     = each.value
  vm_priority = "Dedicated"
}
resource "azurerm_machine_learning_compute_cluster" "by_set" {
  for_each    = toset([for c in var.clusters : c.name if c.vm_size != "Standard_NC6"])
  name        = "set-${each.key}"
  vm_size     = "Standard_DS3_v2"
  vm_priority = "Dedicated"
}
resource "azurerm_machine_learning_compute_cluster" "given" {
  for_each    = { for c in var.given : c.name => c }
  name        = each.key
  vm_size     = "Standard_DS3_v2"
  vm_priority = "Dedicated"
}
resource "azurerm_machine_learning_compute_cluster" "missing" {
  for_each    = { for c in var.clusters : c.missing => c }
  name        = each.key
  vm_size     = "Standard_DS3_v2"
  vm_priority = "Dedicated"
}
"#;
        let d = defs(t);
        let named: Vec<(Option<&str>, Option<&str>)> = d.iter().map(|d| (d.known_name(), d.size())).collect();
        assert_eq!(
            named,
            vec![
                (Some("gpu-cluster"), Some("Standard_NC6")),
                (Some("cpu-cluster"), Some("Standard_DS3_v2")),
                (Some("gpu-cluster-0"), Some("Standard_NC6")),
                (Some("cpu-cluster-1"), Some("Standard_DS3_v2")),
                (Some("set-cpu-cluster"), Some("Standard_DS3_v2")),
                (None, Some("Standard_DS3_v2")),
                (None, Some("Standard_DS3_v2")),
            ]
        );
        // The size is at `each.value.vm_size`, its literal in the variable's default.
        let size = d[0].get("size").unwrap();
        assert_eq!(&t[size.span.range()], "each.value.vm_size");
        assert_eq!(&t[size.origin.unwrap().range()], "Standard_NC6");
        assert!(
            d[0].notes
                .iter()
                .any(|n| n.contains("for_each key `gpu-cluster`"))
        );
        assert_eq!(
            &t[d[2].get("size").unwrap().origin.unwrap().range()],
            "Standard_NC6"
        );
        // What cannot be known says why.
        let why = |d: &ComputeDef| d.name.why.clone().unwrap_or_default();
        assert!(
            why(&d[5]).contains("`var.given` has no default"),
            "{}",
            why(&d[5])
        );
        assert!(
            why(&d[6]).contains("a key of the `for` expression is not known"),
            "{}",
            why(&d[6])
        );
    }

    #[test]
    fn a_for_expression_over_a_variable_file_list_of_objects() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("terraform.tfvars"),
            "instances = [\n  { name = \"ci-a\", size = \"Standard_NV12s_v3\" },\n]\n",
        )
        .unwrap();
        let t = "variable \"instances\" {\n  default = []\n}\nresource \"azurerm_machine_learning_compute_instance\" \"ci\" {\n  for_each = { for ci in var.instances : ci.name => ci }\n  name = each.value.name\n  virtual_machine_size = each.value.size\n}\n";
        let d = read_in(dir.path(), "main.tf", t).computes;
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].known_name(), d[0].size()),
            (Some("ci-a"), Some("Standard_NV12s_v3"))
        );
        assert_eq!(
            d[0].get("size").unwrap().origin,
            None,
            "the literal is in terraform.tfvars"
        );
    }

    #[test]
    fn an_inference_cluster_takes_its_kubernetes_clusters_node_size() {
        let t = r#"
resource "azurerm_kubernetes_cluster" "aks" {
  name = "aks"
  default_node_pool {
    name    = "default"
    vm_size = "Standard_NC6s_v3"
  }
}
resource "azurerm_machine_learning_inference_cluster" "inf" {
  name                  = "inference"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.aks.id
  cluster_purpose       = "FastProd"
}
"#;
        let d = &defs(t)[0];
        assert_eq!(d.known_name(), Some("inference"));
        assert_eq!(d.ctype().as_deref(), Some("aks"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6s_v3".into())));
        assert_eq!(&t[size.span.range()], "azurerm_kubernetes_cluster.aks.id");
        // Checked as the Kubernetes compute it is to the CLI v2 (its node size judged).
        assert_eq!(
            d.document().map(|syn| syn.kind.id.as_str()),
            Some("kubernetesCompute")
        );
    }

    #[test]
    fn what_hcl_edit_cannot_afford_is_not_parsed() {
        let deep = format!("x = {}{}\n{CLUSTER}", "[".repeat(30), "]".repeat(30));
        assert!(defs(&deep).is_empty());
        let wide = format!("x = [{}]\n{CLUSTER}", "1,".repeat(MAX_TOKENS));
        assert!(defs(&wide).is_empty());
        // At the depth allowed, the parse fits a 256 KiB stack.
        let ok = format!(
            "x = {}{}\n{CLUSTER}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        let n = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || defs(&ok).len())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(n, 1);
    }

    /// A module that makes a cluster of its variables.
    const CC: &str = r#"variable "cluster_name" { type = string }
variable "vm_size" { type = string }
variable "max_nodes" { default = 3 }
resource "azurerm_machine_learning_compute_cluster" "cc" {
  name        = var.cluster_name
  vm_size     = var.vm_size
  vm_priority = "LowPriority"
  scale_settings {
    min_node_count = 0
    max_node_count = var.max_nodes
  }
}
"#;

    /// `files` (path, text) written in a fresh project, then `main.tf` read in it.
    fn read_project(files: &[(&str, &str)], main: &str) -> Vec<ComputeDef> {
        iac::read_in_project(read, files, "main.tf", main)
    }

    fn text_at(text: &str, s: Span) -> &str {
        &text[s.range()]
    }

    /// A module's `.tf` files are called by their folder's name (the callers' search is
    /// `callers`'s test).
    #[test]
    fn a_module_is_named_by_its_folder() {
        let folder = module_folder(Path::new("/r/infra/modules/WS/main.TF")).unwrap();
        assert_eq!(folder, b"ws");
        assert_eq!(module_folder(Path::new("/r/modules/ws/vars.tfvars")), None);
        assert!(is_tf(Path::new("a/main.tf")) && !is_tf(Path::new(".tf")) && !is_tf(Path::new("a.tfvars")));
        let ends = |text: &str| ends_a_source(text.as_bytes(), text.find("ws").unwrap(), 2);
        assert!(ends("source = \"./modules/ws\""));
        assert!(ends("\"../ws/\""));
        assert!(!ends("\"./ws-old\""));
        assert!(!ends("\"./wsx\""));
        assert!(!ends("\"./aws\""));
    }

    #[test]
    fn a_local_module_call_is_a_definition_per_call_with_the_values_it_passes() {
        let main = r#"variable "cluster_name" { default = "gpu-cluster" }
module "a" {
  source       = "./modules/cc"
  cluster_name = var.cluster_name
  vm_size      = "Standard_NC6"
}
module "b" {
  source       = "./modules/cc"
  for_each     = toset(["x", "y"])
  cluster_name = "cpu-${each.key}"
  vm_size      = "Standard_D2_v2"
  max_nodes    = 8
}
module "remote" {
  source       = "Azure/ml/azurerm"
  cluster_name = "registry"
}
module "git" {
  source       = "git::https://example.com/cc.git"
  cluster_name = "git"
}
module "outside" {
  source       = "../elsewhere"
  cluster_name = "outside"
  vm_size      = "Standard_NC6"
}
"#;
        let d = read_project(&[("modules/cc/main.tf", CC), ("../elsewhere/main.tf", CC)], main);
        let names: Vec<_> = d.iter().map(|d| d.known_name().unwrap_or("?")).collect();
        assert_eq!(names, ["gpu-cluster", "cpu-x", "cpu-y"]);
        let a = &d[0];
        assert_eq!(a.file, "main.tf");
        assert!(text_at(main, a.span).starts_with("module \"a\" {"));
        assert_eq!(
            a.command,
            "module \"a\" → resource \"azurerm_machine_learning_compute_cluster\""
        );
        assert_eq!(a.from_file.as_deref(), Some("modules/cc/main.tf"));
        assert!(
            a.notes[0].contains(
                "calls the module `./modules/cc`, which defines the compute at modules/cc/main.tf:4"
            ),
            "{:?}",
            a.notes
        );
        // The name from the caller's variable: at the argument, labelled at its default.
        assert_eq!(text_at(main, a.name.span), "var.cluster_name");
        assert_eq!(text_at(main, a.name.origin.unwrap()), "gpu-cluster");
        assert!(!a.name.inherited);
        // A literal the call passes: in place, a fix may replace it.
        let size = a.get("size").unwrap();
        assert_eq!(
            (text_at(main, size.span), size.in_place, size.inherited),
            ("Standard_NC6", true, false)
        );
        // The module's own values (a literal, a default): inherited, at the call's `source`.
        let max = a.get("max_instances").unwrap();
        assert_eq!(max.value, Some(Scalar::Int(3)));
        assert!(max.inherited && !max.in_place);
        assert_eq!(text_at(main, max.span), "./modules/cc");
        assert!(a.get("tier").unwrap().inherited);
        // Each instance of a `for_each` call, with what it passes.
        let b = &d[1];
        assert_eq!(b.get("max_instances").unwrap().value, Some(Scalar::Int(8)));
        assert_eq!(text_at(main, b.get("max_instances").unwrap().span), "8");
        assert!(
            b.notes.iter().any(|n| n.contains("for_each key `x`")),
            "{:?}",
            b.notes
        );
        assert_eq!(b.get("size").unwrap().text().as_deref(), Some("Standard_D2_v2"));
    }

    /// A value the module builds from its variables (`"${var.prefix}-cluster"`) is at the
    /// call's argument that gives them when one does; when several do, it stays at the
    /// call's `source`, inherited, with a note naming them.
    #[test]
    fn a_value_built_from_a_modules_variables_is_at_the_argument_that_gives_them() {
        let module = r#"variable "prefix" { type = string }
variable "env" { default = "dev" }
variable "family" { type = string }
variable "series" { type = string }
resource "azurerm_machine_learning_compute_cluster" "cc" {
  name    = "${var.prefix}-${var.env}-cluster"
  vm_size = "Standard_${var.family}${var.series}"
  machine_learning_workspace_id = "x"
  location = "westeurope"
  scale_settings {
    min_node_count = 0
    max_node_count = 2
  }
}
"#;
        let main = r#"module "a" {
  source = "./m"
  prefix = "team"
  family = "NC"
  series = "6"
}
"#;
        let d = read_project(&[("m/main.tf", module)], main);
        let [a] = d.as_slice() else { panic!("{d:?}") };
        assert_eq!(a.known_name(), Some("team-dev-cluster"));
        assert_eq!(text_at(main, a.name.span), "team");
        assert_eq!(text_at(main, a.name.key.unwrap()), "prefix");
        assert!(!a.name.inherited && !a.name.in_place);
        let size = a.get("size").unwrap();
        assert_eq!(size.text().as_deref(), Some("Standard_NC6"));
        assert_eq!(text_at(main, size.span), "./m");
        assert!(size.inherited);
        assert!(
            a.notes
                .contains(&"`size` is `Standard_${var.family}${var.series}` in the module, from the call's `family`, `series`".to_string()),
            "{:?}",
            a.notes
        );
        assert_eq!(a.instance_of.as_ref().map(|(f, _)| f.as_str()), Some("m/main.tf"));
        // A literal in the module's string text is no variable.
        assert_eq!(iac::inputs_read(r#""var.x-${var.y}" "$${var.z}""#, "var."), ["y"]);
        assert_eq!(iac::inputs_read("lower(var.a.b) != local.var.c", "var."), ["a"]);
    }

    #[test]
    fn the_module_read_alone_keeps_its_variables_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let d = read_in(dir.path(), "main.tf", CC).computes;
        assert_eq!(d.len(), 1);
        // Its name is its input, which nothing gives a value here.
        assert_eq!(d[0].name_input.as_deref(), Some("cluster_name"));
        let with_default = CC.replace(
            "variable \"cluster_name\" { type = string }",
            "variable \"cluster_name\" { default = \"x\" }",
        );
        assert_ne!(with_default, CC);
        assert_eq!(
            read_in(dir.path(), "main.tf", &with_default).computes[0].name_input,
            None
        );
        assert!(
            d[0].name
                .why
                .as_deref()
                .unwrap()
                .contains("the module's caller or the command line sets it")
        );
        assert!(d[0].from_file.is_none());
    }

    #[test]
    fn a_module_that_calls_a_module_is_followed_to_a_bound_and_a_cycle_is_not() {
        // A wrapper passes its variable on; the root passes the wrapper a literal.
        let wrap = "variable \"n\" {}\nmodule \"inner\" {\n  source       = \"../cc\"\n  cluster_name = var.n\n  vm_size      = \"Standard_NC24s_v3\"\n}\n";
        let main = "module \"w\" {\n  source = \"./modules/wrap\"\n  n      = \"wrapped\"\n}\n";
        let d = read_project(
            &[("modules/cc/main.tf", CC), ("modules/wrap/main.tf", wrap)],
            main,
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].known_name(), Some("wrapped"));
        assert_eq!(text_at(main, d[0].name.span), "wrapped");
        assert!(d[0].name.in_place);
        // The wrapper's literal size is the wrapper's: inherited here.
        assert_eq!(d[0].size(), Some("Standard_NC24s_v3"));
        assert!(d[0].get("size").unwrap().inherited);
        assert_eq!(d[0].from_file.as_deref(), Some("modules/wrap/main.tf"));
        assert_eq!(
            d[0].command,
            "module \"w\" → module \"inner\" → resource \"azurerm_machine_learning_compute_cluster\""
        );

        // A module that calls itself (and its caller): followed once, no hang.
        let looping = "module \"again\" {\n  source = \"./\"\n}\nmodule \"up\" {\n  source = \"../loop\"\n}\nresource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name    = \"looped\"\n  vm_size = \"Standard_D2_v2\"\n}\n";
        let d = read_project(
            &[("loop/main.tf", looping)],
            "module \"l\" {\n  source = \"./loop\"\n}\n",
        );
        assert_eq!(
            d.iter().map(|d| d.known_name()).collect::<Vec<_>>(),
            [Some("looped")]
        );

        // A chain of modules: followed 8 calls deep, not 9.
        let chain = |levels: usize| {
            iac::read_module_chain(
                read,
                levels,
                |i| format!("m{i}/main.tf"),
                |i| format!("module \"m\" {{\n  source = \"../m{i}\"\n}}\n").replace("../m1", "./m1"),
                "resource \"azurerm_machine_learning_compute_cluster\" \"c\" {\n  name = \"deep\"\n}\n",
                "main.tf",
            )
        };
        assert_eq!(chain(iac::MAX_MODULE_DEPTH).len(), 1);
        assert_eq!(chain(iac::MAX_MODULE_DEPTH + 1).len(), 0);
    }

    /// Audit 24, case 12: an `azapi_resource` whose `body` is JSON text (a heredoc) is not
    /// read; what it sets is unknown, with a note, never absent; `var.props` given whole
    /// and not known likewise.
    #[test]
    fn an_azapi_body_of_json_text_or_unknown_leaves_its_settings_unknown() {
        let text = r#"resource "azapi_resource" "ci" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2022-06-01-preview"
  name      = "azapi-heredoc"
  body = <<BODY
{"properties": {"computeType": "ComputeInstance", "properties": {"vmSize": "Standard_NC6"}}}
BODY
}
resource "azapi_resource" "cc" {
  type = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name = "azapi-var"
  body = { properties = { computeType = "AmlCompute", properties = var.props } }
}
variable "props" {
  type = any
}
"#;
        let d = defs(text);
        assert_eq!(d.len(), 2);
        for def in &d {
            for path in ["enable_node_public_ip", "network_settings.subnet", "size"] {
                let s = def
                    .get(path)
                    .unwrap_or_else(|| panic!("{path} of {:?}", def.known_name()));
                assert!(s.value.is_none() && s.why.is_some(), "{path}: {s:?}");
            }
        }
        assert!(
            d[0].notes.iter().any(|n| n.contains("`body` is not read")),
            "{:?}",
            d[0].notes
        );
    }

    /// An `azapi_resource` body's `schedules.computeStartStop` entries as YAML's
    /// `schedules.compute_start_stop`; a variable without a default leaves the list unknown.
    #[test]
    fn azapi_start_stop_schedules_are_read_as_yamls() {
        let text = r#"resource "azapi_resource" "ci" {
  type = "Microsoft.MachineLearningServices/workspaces/computes@2024-10-01-preview"
  name = "ci"
  body = {
    properties = {
      computeType = "ComputeInstance"
      properties = {
        vmSize    = "Standard_DS3_v2"
        schedules = { computeStartStop = [{ action = "Stop", status = "Enabled" }] }
      }
    }
  }
}
resource "azapi_resource" "ci2" {
  type = "Microsoft.MachineLearningServices/workspaces/computes@2024-10-01-preview"
  name = "ci2"
  body = jsonencode({
    properties = {
      computeType = "ComputeInstance"
      properties = { vmSize = "Standard_DS3_v2", schedules = { computeStartStop = var.stops } }
    }
  })
}
variable "stops" {
  type = list(any)
}
"#;
        let d = defs(text);
        assert_eq!(
            super::iac::schedules_for_test(&d[0], text),
            [
                "schedules.compute_start_stop.0.action = Stop at `Stop`",
                "schedules.compute_start_stop.0.state = Enabled at `Enabled`",
            ]
        );
        let unknown = super::iac::schedules_for_test(&d[1], text);
        assert_eq!(unknown.len(), 1, "{unknown:?}");
        assert!(
            unknown[0].starts_with("schedules.compute_start_stop ? "),
            "{unknown:?}"
        );
        assert!(unknown[0].contains("stops"), "{unknown:?}");
    }
}
