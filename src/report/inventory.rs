//! `amlint inventory`: the computes the project defines, where (every definition, from any
//! source: Azure ML YAML, `az ml compute create`, the Python SDK, Terraform, Bicep, ARM),
//! what each sets, and which compute references resolve to them; then the definitions
//! whose name is not known statically, the references to `[inventory]` and those that do
//! not resolve. As text for people, or as JSON (`--format json`). A view of the report,
//! like the output formats: the facts come from [`crate::results::ComputeFacts`].

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::escape;
use crate::facts::computes::{ComputeDef, Setting};
use crate::facts::index::Resolution;
use crate::results::Report;
use crate::source::SourceFile;

/// The settings shown for each definition, in this order (the policies read them).
const SHOWN: &[&str] = &["type", "size", "min_instances", "max_instances", "tier"];

/// The whole inventory.
#[derive(Debug, Default, Serialize)]
pub struct ComputeInventory {
    /// The computes with a known name, by name (compared without case, as Azure ML
    /// does), each with its definitions and the references that resolve to it.
    pub computes: Vec<ListedCompute>,
    /// Definitions whose name is not known statically (`$NAME` set from a command's
    /// output...): they define a compute no reference can be matched with.
    pub unnamed_definitions: Vec<ListedDefinition>,
    /// Definitions of a local module (Terraform, Bicep) whose values not known in the
    /// module read alone (its name...) are given by each of the project's calls of it:
    /// each call is a definition of its own, listed under its name.
    pub module_definitions: Vec<ModuleDefinition>,
    /// References resolved by the configuration's `[inventory]`.
    pub inventory_references: Vec<ListedReference>,
    /// References to a compute that neither the project nor `[inventory]` defines
    /// (AML203 reports them when the profile asks for it).
    pub unresolved_references: Vec<ListedReference>,
    pub summary: InventoryTotals,
}

#[derive(Debug, Serialize)]
pub struct ListedCompute {
    pub name: String,
    /// What all its definitions agree on; `null` when none states it or they disagree.
    #[serde(rename = "type")]
    pub ctype: Option<String>,
    pub size: Option<String>,
    /// The settings its definitions give different values (`size`, `type`...).
    pub disagree: Vec<String>,
    pub definitions: Vec<ListedDefinition>,
    pub references: Vec<ListedReference>,
}

#[derive(Debug, Serialize)]
pub struct ListedDefinition {
    pub path: String,
    /// Where the definition starts (the command, the resource block, the call, the
    /// compute document). A definition in a file outside the checked paths has its line
    /// (when known) and no column.
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// `aml-yaml`, `az-cli`, `python-sdk`, `r-sdk`, `terraform`, `bicep`, `arm`.
    pub source: &'static str,
    /// What defines it (`az ml compute create`, `resource "azurerm_..."`).
    pub command: String,
    /// The name as written (`cpu-cluster`, `$CLUSTER`, `var.name`).
    pub name: ListedSetting,
    /// The settings the policies read, as written and as known.
    pub settings: BTreeMap<String, ListedSetting>,
    /// The compute YAML it reads its values from (`-f`).
    pub from_file: Option<String>,
    pub notes: Vec<String>,
}

/// A module's own definition, and the calls that make it.
#[derive(Debug, Serialize)]
pub struct ModuleDefinition {
    #[serde(flatten)]
    pub definition: ListedDefinition,
    /// The calls that instantiate it (each a definition listed under its name).
    pub calls: Vec<ListedCall>,
}

/// A call of a module, where it is and the name it gives (`null`: one of its own calls
/// gives it: a module called by a module).
#[derive(Debug, Serialize)]
pub struct ListedCall {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub name: Option<String>,
}

/// One setting of a definition, for people and JSON: its value when known statically,
/// else why not.
#[derive(Debug, Clone, Serialize)]
pub struct ListedSetting {
    pub value: Option<String>,
    pub written: String,
    pub why: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ListedReference {
    /// The name looked up (`azureml:` and any version removed).
    pub name: String,
    pub path: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Default, Serialize)]
pub struct InventoryTotals {
    pub computes: usize,
    pub definitions: usize,
    pub unnamed_definitions: usize,
    pub module_definitions: usize,
    pub references: usize,
    pub resolved_to_definitions: usize,
    pub resolved_to_inventory: usize,
    pub unresolved: usize,
}

impl ListedSetting {
    fn of(s: &Setting) -> Self {
        ListedSetting {
            value: s.text(),
            written: s.written.clone(),
            why: if s.value.is_some() { None } else { s.why.clone() },
        }
    }

    fn show(&self) -> String {
        let written = crate::facts::sources::iac::one_line(&self.written);
        match (&self.value, &self.why) {
            (Some(v), _) if *v == self.written => v.clone(),
            // Not written: the default the definition leaves it to (noted).
            (Some(v), _) if self.written.is_empty() => format!("{v} (default)"),
            (Some(v), _) => format!("{v} (from `{written}`)"),
            (None, Some(why)) => format!(
                "`{written}` (not known: {})",
                crate::facts::sources::iac::single_spaced(why)
            ),
            (None, None) => format!("`{written}` (not known)"),
        }
    }
}

fn definition(def: &ComputeDef, source: Option<&SourceFile>) -> ListedDefinition {
    let at = source.map(|s| s.position(def.span.start));
    ListedDefinition {
        path: def.file.clone(),
        line: at.map(|p| p.line),
        column: at.map(|p| p.column),
        source: def.source.as_str(),
        command: def.command.clone(),
        name: ListedSetting::of(&def.name),
        settings: SHOWN
            .iter()
            .filter_map(|k| Some((k.to_string(), ListedSetting::of(def.get(k)?))))
            .collect(),
        from_file: def.from_file.clone(),
        notes: def.notes.clone(),
    }
}

/// A definition in a file outside the checked paths, as the project index knows it: its
/// file and line, type, size and scale (values only: how they are written is the file's).
fn outside_definition(name: &str, d: &crate::facts::index::ComputeEntry, path: String) -> ListedDefinition {
    let known = |v: String| ListedSetting {
        value: Some(v.clone()),
        written: v,
        why: None,
    };
    // A count as written in YAML (`4`, not `4.0`).
    let count = |n: f64| {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            format!("{}", n as i64)
        } else {
            n.to_string()
        }
    };
    let mut settings = BTreeMap::new();
    if !d.ctype.is_empty() {
        settings.insert("type".to_string(), known(d.ctype.clone()));
    }
    if let Some(size) = &d.size {
        settings.insert("size".to_string(), known(size.clone()));
    }
    if let Some(scale) = &d.scale {
        if let Some(n) = scale.min_instances {
            settings.insert("min_instances".to_string(), known(count(n)));
        }
        if let Some(n) = scale.max_instances {
            settings.insert("max_instances".to_string(), known(count(n)));
        }
        if let Some(tier) = &scale.tier {
            settings.insert("tier".to_string(), known(tier.clone()));
        }
    }
    ListedDefinition {
        path,
        line: (d.line != 0).then_some(d.line),
        column: None,
        source: d.source.as_str(),
        command: String::new(),
        name: known(name.to_string()),
        settings,
        from_file: None,
        notes: vec!["outside the checked paths".to_string()],
    }
}

/// The calls of local modules among a run's definitions, by the module definition each
/// instantiates (its file and start).
struct Calls<'r> {
    by_module: HashMap<(&'r str, u32), Vec<(&'r ComputeDef, &'r SourceFile)>>,
}

/// How many modules deep a call of a call is followed (the readers follow 8).
const MAX_CALL_DEPTH: usize = 16;

impl<'r> Calls<'r> {
    fn of(report: &'r Report) -> Self {
        let mut by_module: HashMap<(&str, u32), Vec<(&ComputeDef, &SourceFile)>> = HashMap::new();
        for file in &report.files {
            for def in &file.computes.definitions {
                if let Some((module, span)) = &def.instance_of {
                    by_module
                        .entry((module.as_str(), span.start))
                        .or_default()
                        .push((def, file.source.as_ref()));
                }
            }
        }
        Calls { by_module }
    }

    fn of_def(&self, def: &'r ComputeDef) -> &[(&'r ComputeDef, &'r SourceFile)] {
        self.by_module
            .get(&(def.file.as_str(), def.span.start))
            .map_or(&[][..], Vec::as_slice)
    }

    /// Whether `def` is a module's definition whose name is not known and every value it
    /// lacks (its name, each setting not known) is given by each of the project's calls
    /// of it — or by the calls of a call that is itself a module's (a module calling a
    /// module).
    fn made(&self, def: &'r ComputeDef) -> bool {
        def.known_name().is_none() && self.made_at(def, 0)
    }

    fn made_at(&self, def: &'r ComputeDef, depth: usize) -> bool {
        let calls = self.of_def(def);
        if calls.is_empty() || depth > MAX_CALL_DEPTH {
            return false;
        }
        let lacks: Vec<&str> = def
            .fields
            .iter()
            .filter(|(_, s)| s.value.is_none())
            .map(|(p, _)| p.as_str())
            .collect();
        calls.iter().all(|(call, _)| {
            // A setting the call makes known, or leaves out altogether (the object the
            // module reads it from, given by the call, does not hold it).
            let gives = call.known_name().is_some()
                && lacks
                    .iter()
                    .all(|p| call.get(p).is_none_or(|s| s.value.is_some()));
            gives || self.made_at(call, depth + 1)
        })
    }
}

/// Gathers the inventory of a run: every file's definitions and references.
pub fn gather(report: &Report) -> ComputeInventory {
    let mut inv = ComputeInventory::default();
    let calls = Calls::of(report);
    // By name without case, as Azure ML compares compute names.
    let mut by_name: BTreeMap<String, ListedCompute> = BTreeMap::new();
    let entry = |name: &str| -> String { name.to_lowercase() };
    for file in &report.files {
        for def in &file.computes.definitions {
            let d = definition(def, Some(&file.source));
            match def.known_name() {
                Some(name) => by_name
                    .entry(entry(name))
                    .or_insert_with(|| ListedCompute::new(name))
                    .definitions
                    .push(d),
                None if calls.made(def) => inv.module_definitions.push(ModuleDefinition {
                    definition: d,
                    calls: calls
                        .of_def(def)
                        .iter()
                        .map(|(call, source)| {
                            let at = source.position(call.span.start);
                            ListedCall {
                                path: call.file.clone(),
                                line: at.line,
                                column: at.column,
                                name: call.known_name().map(str::to_string),
                            }
                        })
                        .collect(),
                }),
                None => inv.unnamed_definitions.push(d),
            }
        }
    }
    // The checked files (their definitions are listed from them), and the definitions
    // outside them already listed, by name, file and line.
    let checked: std::collections::HashSet<&str> = report
        .files
        .iter()
        .filter(|f| !f.computes.definitions.is_empty())
        .flat_map(|f| f.computes.definitions.iter().map(|d| d.file.as_str()))
        .collect();
    let mut outside: std::collections::HashSet<(String, String, u32)> = std::collections::HashSet::new();
    for file in &report.files {
        for r in &file.computes.references {
            let at = file.source.position(r.span.start);
            let reference = ListedReference {
                name: r.name.clone(),
                path: file.source.path.clone(),
                line: at.line,
                column: at.column,
            };
            match &r.resolved {
                Resolution::Defined(e) => {
                    let c = by_name
                        .entry(entry(&e.name))
                        .or_insert_with(|| ListedCompute::new(&e.name));
                    // The definitions outside the checked paths (a run of some files):
                    // each by its file and line, with what the index knows of it. A file
                    // that was checked lists its own definitions above.
                    let all = if r.definitions.is_empty() {
                        std::slice::from_ref(&**e)
                    } else {
                        r.definitions.as_slice()
                    };
                    for d in all {
                        let file_name = d.file.clone().unwrap_or_default();
                        if checked.contains(file_name.as_str())
                            || !outside.insert((entry(&e.name), file_name.clone(), d.line))
                        {
                            continue;
                        }
                        c.definitions.push(outside_definition(&e.name, d, file_name));
                    }
                    c.references.push(reference);
                }
                Resolution::Inventory => inv.inventory_references.push(reference),
                Resolution::Unresolved => inv.unresolved_references.push(reference),
            }
        }
    }
    for mut c in by_name.into_values() {
        c.agree();
        inv.computes.push(c);
    }
    inv.summary = totals(report);
    inv
}

/// The counts of the inventory's summary line, without building the listing
/// (`--statistics` prints them): the computes are the distinct names (without case) of
/// the definitions and of the definitions references resolve to.
pub fn totals(report: &Report) -> InventoryTotals {
    let mut t = InventoryTotals::default();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    let calls = Calls::of(report);
    for file in &report.files {
        for def in &file.computes.definitions {
            t.definitions += 1;
            match def.known_name() {
                Some(name) => {
                    names.insert(name.to_lowercase());
                }
                None if calls.made(def) => t.module_definitions += 1,
                None => t.unnamed_definitions += 1,
            }
        }
        for r in &file.computes.references {
            t.references += 1;
            match &r.resolved {
                Resolution::Defined(e) => {
                    t.resolved_to_definitions += 1;
                    names.insert(e.name.to_lowercase());
                }
                Resolution::Inventory => t.resolved_to_inventory += 1,
                Resolution::Unresolved => t.unresolved += 1,
            }
        }
    }
    t.computes = names.len();
    t
}

impl ListedCompute {
    fn new(name: &str) -> Self {
        ListedCompute {
            name: name.to_string(),
            ctype: None,
            size: None,
            disagree: Vec::new(),
            definitions: Vec::new(),
            references: Vec::new(),
        }
    }

    /// The type and size all definitions that state one agree on; the settings on which
    /// they disagree.
    fn agree(&mut self) {
        // A definition another reads and overrides (the YAML of `az ml compute create
        // --file`) is not compared: what is created is the reading one's
        // (`facts::index`, `without_overridden`).
        // A call of a module in the module's own file (a Python helper function and its
        // call) reads its values from that file, and is no file another reads.
        let read: Vec<&str> = self
            .definitions
            .iter()
            .filter_map(|d| d.from_file.as_deref().filter(|f| *f != d.path))
            .collect();
        let created = |d: &&ListedDefinition| !read.contains(&d.path.as_str());
        for key in SHOWN {
            let mut values: Vec<String> = self
                .definitions
                .iter()
                .filter(created)
                .filter_map(|d| d.settings.get(*key)?.value.clone())
                .map(|v| v.to_lowercase())
                .collect();
            values.sort();
            values.dedup();
            if values.len() > 1 {
                self.disagree.push(key.to_string());
            }
        }
        let agreed = |key: &str| -> Option<String> {
            if self.disagree.iter().any(|k| k == key) {
                return None;
            }
            self.definitions
                .iter()
                .filter(created)
                .find_map(|d| d.settings.get(key)?.value.clone())
        };
        self.ctype = agreed("type").map(|t| crate::facts::computes::normalize_type(&t));
        self.size = agreed("size");
    }
}

fn at(path: &str, line: Option<u32>, column: Option<u32>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{path}:{l}:{c}"),
        (Some(l), None) => format!("{path}:{l}"),
        _ => path.to_string(),
    }
}

/// Appends one line: every character of it that could break the listing (a line feed
/// in a name or a path from a checked file, a terminal escape) written as an escape.
fn put(out: &mut String, line: &str) {
    out.push_str(&escape::control(line));
    out.push('\n');
}

fn definition_lines(out: &mut String, d: &ListedDefinition) {
    let mut line = format!("  defined at {}", at(&d.path, d.line, d.column));
    if d.command.is_empty() {
        line.push_str(&format!(" ({})", d.source));
    } else {
        line.push_str(&format!(" ({}: {})", d.source, d.command));
    }
    let mut set: Vec<String> = Vec::new();
    if d.name.value.as_deref() != Some(d.name.written.as_str()) {
        set.push(format!("name {}", d.name.show()));
    }
    for key in SHOWN {
        if let Some(s) = d.settings.get(*key) {
            set.push(format!("{key} {}", s.show()));
        }
    }
    if !set.is_empty() {
        line.push_str(": ");
        line.push_str(&set.join(", "));
    }
    put(out, &line);
    if let Some(f) = &d.from_file {
        put(out, &format!("    reads {f}"));
    }
    for n in &d.notes {
        put(out, &format!("    note: {n}"));
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The inventory for people.
pub fn render(report: &Report) -> String {
    let inv = gather(report);
    let mut out = String::new();
    for c in &inv.computes {
        let mut head = c.name.clone();
        for v in [&c.ctype, &c.size].into_iter().flatten() {
            head.push_str("  ");
            head.push_str(v);
        }
        put(&mut out, &head);
        for d in &c.definitions {
            definition_lines(&mut out, d);
        }
        if c.definitions.is_empty() {
            put(&mut out, "  no definition in the checked files");
        }
        if !c.disagree.is_empty() {
            put(
                &mut out,
                &format!("  its definitions disagree on {}", c.disagree.join(", ")),
            );
        }
        for r in &c.references {
            put(
                &mut out,
                &format!("  referenced at {}:{}:{}", r.path, r.line, r.column),
            );
        }
        if c.references.is_empty() {
            put(&mut out, "  no reference in the checked files");
        }
    }
    if !inv.module_definitions.is_empty() {
        put(
            &mut out,
            "definitions in modules, made by the project's calls of them",
        );
        for m in &inv.module_definitions {
            definition_lines(&mut out, &m.definition);
            for c in &m.calls {
                let name = match &c.name {
                    Some(n) => n.clone(),
                    None => "its name given by that module's own calls".to_string(),
                };
                put(
                    &mut out,
                    &format!(
                        "    made by the call at {}:{}:{} ({name})",
                        c.path, c.line, c.column
                    ),
                );
            }
        }
    }
    if !inv.unnamed_definitions.is_empty() {
        put(&mut out, "definitions whose name is not known statically");
        for d in &inv.unnamed_definitions {
            definition_lines(&mut out, d);
        }
    }
    for (title, refs) in [
        ("references resolved by [inventory]", &inv.inventory_references),
        (
            "references that resolve to no definition",
            &inv.unresolved_references,
        ),
    ] {
        if refs.is_empty() {
            continue;
        }
        put(&mut out, title);
        for r in refs {
            put(
                &mut out,
                &format!("  {} at {}:{}:{}", r.name, r.path, r.line, r.column),
            );
        }
    }
    put(&mut out, &summary_line(&inv.summary));
    escape::workflow_commands(out)
}

/// One line: computes, definitions, and how the references resolved (also printed by
/// `--statistics`).
pub fn summary_line(t: &InventoryTotals) -> String {
    let mut s = format!(
        "{} defined in {}",
        plural(t.computes, "compute", "computes"),
        plural(t.definitions, "definition", "definitions")
    );
    let mut which = Vec::new();
    if t.unnamed_definitions > 0 {
        which.push(format!(
            "{} with a name not known statically",
            t.unnamed_definitions
        ));
    }
    if t.module_definitions > 0 {
        which.push(format!("{} in a module, made by its calls", t.module_definitions));
    }
    if !which.is_empty() {
        s.push_str(&format!(" ({})", which.join("; ")));
    }
    s.push_str(&format!(
        "; {}: {} to a definition of the project, {} to [inventory], {} unresolved",
        plural(t.references, "compute reference", "compute references"),
        t.resolved_to_definitions,
        t.resolved_to_inventory,
        t.unresolved
    ));
    s
}

/// The inventory as JSON.
pub fn render_json(report: &Report) -> String {
    let mut text = escape::to_json_pretty(&gather(report)).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}
