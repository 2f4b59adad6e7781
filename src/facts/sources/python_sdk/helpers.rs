//! Helpers: a module-level function that creates a compute from its parameters
//! (`def get_compute(ws, name, size): ... AmlCompute(name=name, size=size)`) is a
//! [`Template`]; each call of it — in its own file, or in a file that imports it (`from
//! utils import get_compute`, `import utils`, `from utils import *`) — is a definition at
//! the call, with the values the call passes (at their spans in the calling file) and the
//! helper's other values inherited (the helper's file reports its own findings).
//!
//! A module is looked for as Python would from the calling file's directory, then each
//! directory above it inside the project (`utils` → `utils.py` or `utils/__init__.py`;
//! `.utils` from the file's package). Each helper file is parsed once per run
//! (`Files::derived`), and a file that names no compute class is parsed only when a module
//! it imports holds a template.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use tree_sitter::Node as TsNode;

use super::super::common::{Files, mentions};
use super::super::iac;
use super::super::ipynb::Code;
use super::module::{
    Bound, CLASS_NEEDLES, MAX_DEPTH, Method, Module, V1_FIELDS, V2_FIELDS, affordable, empty_size, parse,
    v1_accepts,
};
use super::paths::{find_module, sys_path_dirs};
use crate::facts::computes::{ComputeDef, Setting, SourceKind};

/// A module-level function that creates a compute with some of its parameters.
#[derive(Clone)]
pub(super) struct Template {
    pub func: String,
    pub params: Vec<String>,
    /// The definition as the helper's file reads it (its parameters not known there).
    pub def: ComputeDef,
    /// The settings (by path; `name` for the name) that are exactly a parameter: its index.
    pub slots: Vec<(String, usize)>,
    /// SDK v1: the parameter that is the provisioning configuration `ComputeTarget.create`
    /// is given (`def create(ws, name, config)`): a call's configuration is read at the call.
    pub config: Option<usize>,
    /// The helper's file, as displayed, and the definition's line in it.
    pub file: String,
    pub line: usize,
    /// The class it is a method of, and how the method binds (`None`: a module-level
    /// function).
    pub method: Option<(String, Method)>,
}

impl Template {
    /// Whether it is the module-level function `name`.
    fn is_function(&self, name: &str) -> bool {
        self.method.is_none() && self.func == name
    }

    /// Whether it is the method `name` of the class `class`.
    fn is_method(&self, class: &str, name: &str) -> bool {
        self.func == name && self.method.as_ref().is_some_and(|(c, _)| c == class)
    }

    /// Whether it is the same helper as `other` (the same function, or the same method of
    /// the same class).
    fn same(&self, other: &Template) -> bool {
        self.func == other.func && self.method.as_ref().map(|m| &m.0) == other.method.as_ref().map(|m| &m.0)
    }

    /// As a call names it: `get_compute`, `ComputeHelper.create`.
    fn shown(&self) -> String {
        match &self.method {
            Some((class, _)) => format!("{class}.{}", self.func),
            None => self.func.clone(),
        }
    }
}

/// How many helpers deep a call is followed: a helper that calls a helper (`start` →
/// `prepare_and_execute(name, size)` → `get_compute(name, size)`) is a template of level
/// 1, and so on. Each level of a file is made from the levels below it only, so the
/// templates of a file are the same whichever file asks first.
const LEVELS: [&str; 3] = ["python-helpers", "python-helpers-1", "python-helpers-2"];

/// The highest level: what a file's calls reach.
pub(super) const TOP: usize = LEVELS.len() - 1;

/// The templates of a file up to `level`, once per run.
fn templates_of(files: &Files, path: &Path, display: &str, level: usize) -> Arc<Vec<Template>> {
    files.derived(path, LEVELS[level.min(TOP)], || {
        let Some(source) = files.read(path, display) else {
            return Vec::new();
        };
        let text = source.text.as_str();
        if affordable(text).is_err() {
            return Vec::new();
        }
        if path.file_name().is_some_and(|n| n == "__init__.py") {
            let mut own = reexported(text, files, path, level);
            if !own.is_empty() {
                own.extend(templates_here(files, path, display, text, level));
                return own;
            }
        }
        templates_here(files, path, display, text, level)
    })
}

/// The templates a package's `__init__.py` takes from its own modules and so offers
/// (`from .aml_utils import get_compute`, `… import get_compute as gc`: `from pkg import
/// get_compute` then calls it): one step, from a module that is not a package itself (no
/// chain of packages, no cycle).
fn reexported(text: &str, files: &Files, path: &Path, level: usize) -> Vec<Template> {
    let mut out = Vec::new();
    let lines = text.lines().filter_map(|l| l.trim_start().strip_prefix("from "));
    for rest in lines.filter(|r| r.starts_with('.')).take(MAX_MODULES) {
        let (module, Some(taken)) = from_import(rest) else {
            continue;
        };
        let Some((found, display)) = find_module(module, path, &[], files) else {
            continue;
        };
        if found.file_name().is_some_and(|n| n == "__init__.py") {
            continue;
        }
        let templates = templates_of(files, &found, &display, level);
        let taken = taken.split('#').next().unwrap_or_default();
        for (name, local) in imported_names(taken) {
            out.extend(templates.iter().filter_map(|t| match &t.method {
                None if t.func == name => Some(Template {
                    func: local.to_string(),
                    ..t.clone()
                }),
                Some((class, how)) if class == name => Some(Template {
                    method: Some((local.to_string(), *how)),
                    ..t.clone()
                }),
                _ => None,
            }));
        }
    }
    out
}

/// The templates the file at `path` defines itself (see [`templates_of`]).
fn templates_here(files: &Files, path: &Path, display: &str, text: &str, level: usize) -> Vec<Template> {
    {
        let names_class = mentions(text.as_bytes(), CLASS_NEEDLES);
        if !names_class && (level == 0 || !imports_a_helper(text, files, path, level - 1)) {
            return Vec::new();
        }
        let code = Code::plain(text);
        let Some(tree) = parse(&code) else {
            return Vec::new();
        };
        let mut m = Module::new(&code, tree.root_node(), text);
        m.load = Some((files, path));
        let direct = if names_class {
            m.templates(&m.made(display), display)
        } else {
            Vec::new()
        };
        if level == 0 {
            return direct;
        }
        let mut modules = Modules::new(files, path, text, level - 1);
        let mut own = Arc::new(direct);
        // This file's own helpers calling each other: one more level each round.
        for _ in 0..level {
            let outer = m.nested_templates(&own, &mut modules, display);
            if outer.is_empty() {
                break;
            }
            let mut all: Vec<Template> = own.iter().cloned().collect();
            all.extend(outer.into_iter().filter(|t| !own.iter().any(|o| o.same(t))));
            if all.len() == own.len() {
                break;
            }
            own = Arc::new(all);
        }
        Arc::try_unwrap(own).unwrap_or_else(|a| a.as_ref().clone())
    }
}

/// Whether a module the code imports (a `from m import` or `import m` line) holds a
/// template: only then is a file that names no compute class parsed. The modules written
/// after `from` and `import` are looked for first; then, of the names a `from m import a,
/// b as c` takes, those the code uses as a module (`a.` or `c.` written in it) are looked
/// for as modules of `m` (`from pkg import utils` then `utils.get_compute(...)`: the file
/// `pkg/utils.py` or `pkg/utils/__init__.py`), all within the file's [`MAX_MODULES`].
pub(super) fn imports_a_helper(code: &str, files: &Files, path: &Path, level: usize) -> bool {
    let mut modules = Modules::new(files, path, code, level);
    let mut submodules = Vec::new();
    let mut used_as_module = None;
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let names: Vec<&str> = if let Some(rest) = t.strip_prefix("from ") {
            let (module, taken) = from_import(rest);
            if let Some(first) = taken {
                let mut taken = first.split('#').next().unwrap_or_default().to_string();
                // `from m import (a,\n b)` or `a, \`: the names on the lines that follow.
                let continued =
                    |t: &str| (t.contains('(') && !t.contains(')')) || t.trim_end().ends_with('\\');
                for _ in 0..MAX_MODULES {
                    if !continued(&taken) {
                        break;
                    }
                    let Some(more) = lines.next() else {
                        break;
                    };
                    taken.push(' ');
                    taken.push_str(more.split('#').next().unwrap_or_default());
                }
                let used = used_as_module.get_or_insert_with(|| dotted_words(code));
                for (name, local) in imported_names(&taken) {
                    if used.contains(local) {
                        submodules.push(submodule(module, name));
                    }
                }
            }
            vec![module]
        } else if let Some(rest) = t.strip_prefix("import ") {
            rest.split(',')
                .filter_map(|m| m.split_whitespace().next())
                .collect()
        } else {
            Vec::new()
        };
        if names
            .into_iter()
            .any(|m| modules.templates(m).is_some_and(|t| !t.is_empty()))
        {
            return true;
        }
    }
    submodules
        .iter()
        .any(|m| modules.templates(m).is_some_and(|t| !t.is_empty()))
}

/// `m import a, b` (what follows `from `): the module, and what follows `import` when
/// it does.
fn from_import(rest: &str) -> (&str, Option<&str>) {
    let mut words = rest.splitn(2, char::is_whitespace);
    let module = words.next().unwrap_or_default();
    let taken = words
        .next()
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix("import"));
    (module, taken)
}

/// The words of `code` followed by a dot (`utils` in `utils.get_compute`), in one pass.
fn dotted_words(code: &str) -> HashSet<&str> {
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = HashSet::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if word(c) {
            continue;
        }
        if c == b'.' && start < i {
            out.extend(code.get(start..i));
        }
        start = i + 1;
    }
    out
}

/// The names `from m import a, b as c, (d)` takes, as written after `import`, each with
/// the name it is bound to (`(a, a)`, `(b, c)`); `*` is none.
fn imported_names(taken: &str) -> impl Iterator<Item = (&str, &str)> {
    taken.split(',').filter_map(|n| {
        let words: Vec<&str> = n
            .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '\\'))
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            [name] if *name != "*" => Some((*name, *name)),
            [name, "as", local] => Some((*name, *local)),
            _ => None,
        }
    })
}

/// The module `from module import name` takes when `name` is a module of the package
/// `module` (`pkg.utils`; `.utils` for `from . import utils`).
fn submodule(module: &str, name: &str) -> String {
    if module.ends_with('.') {
        format!("{module}{name}")
    } else {
        format!("{module}.{name}")
    }
}

/// The modules a file imports, each looked for once, and at most [`MAX_MODULES`] of them
/// (each lookup may probe two files in every directory up to the project root).
struct Modules<'f> {
    files: &'f Files,
    path: &'f Path,
    /// The directories the importing file adds to `sys.path`.
    added: Vec<std::path::PathBuf>,
    /// The level of the templates looked for.
    level: usize,
    found: HashMap<String, Option<Arc<Vec<Template>>>>,
}

/// How many distinct modules of one file are looked for.
const MAX_MODULES: usize = 64;

impl<'f> Modules<'f> {
    fn new(files: &'f Files, path: &'f Path, text: &'f str, level: usize) -> Self {
        Modules {
            files,
            path,
            added: sys_path_dirs(text, path, files),
            level,
            found: HashMap::new(),
        }
    }

    /// The templates of the module `module`, if it is a file of the project.
    fn templates(&mut self, module: &str) -> Option<Arc<Vec<Template>>> {
        if let Some(known) = self.found.get(module) {
            return known.clone();
        }
        if self.found.len() >= MAX_MODULES {
            return None;
        }
        let (files, path, level) = (self.files, self.path, self.level);
        let t = find_module(module, path, &self.added, files)
            .map(|(p, display)| templates_of(files, &p, &display, level));
        self.found.insert(module.to_string(), t.clone());
        t
    }
}

/// Where a class whose instance a call is made on is defined: in this file, or in a
/// module it imports (as written, and the class's name there).
enum ClassAt<'a> {
    Here(&'a str),
    Module(String, &'a str),
}

/// What a call with the positional arguments `pos` and keywords `kw` passes for the
/// parameter `i` of the template `t`: by keyword (with its key) or by position, `bound`
/// parameters being passed by the call's object (a method's `self`).
fn passed<'t>(
    pos: &[TsNode<'t>],
    kw: &[(&'t str, TsNode<'t>, TsNode<'t>)],
    t: &Template,
    i: usize,
    bound: usize,
) -> Option<(Option<TsNode<'t>>, TsNode<'t>)> {
    let param = t.params.get(i)?;
    kw.iter()
        .find(|(k, ..)| k == param)
        .map(|(_, k, v)| (Some(*k), *v))
        .or_else(|| pos.get(i.checked_sub(bound)?).map(|v| (None, *v)))
}

/// The conversion a setting's path takes (`min_instances` a count...).
fn as_of(path: &str) -> iac::As {
    V2_FIELDS
        .iter()
        .chain(V1_FIELDS)
        .find(|(_, p, _)| *p == path)
        .map_or(iac::As::Text, |(_, _, a)| *a)
}

impl<'t> Module<'t> {
    /// The templates of this file: the definitions made in a module-level function with
    /// at least one setting that is exactly one of its parameters.
    pub(super) fn templates(&self, made: &[(TsNode<'t>, ComputeDef)], display: &str) -> Vec<Template> {
        let mut out = Vec::new();
        for (call, def) in made {
            let at = call.start_byte();
            let Some(f) = self.scope_at(at).filter(|&f| self.funcs[f].parent.is_none()) else {
                continue;
            };
            let slots: Vec<(String, usize)> = self
                .value_nodes(*call)
                .into_iter()
                .filter_map(|(path, v)| Some((path.to_string(), self.param_index(v, f, at)?)))
                .collect();
            let config = self.config_param(*call, f, at);
            if slots.is_empty() && config.is_none() {
                continue;
            }
            out.push(Template {
                func: self.funcs[f].name.clone(),
                params: self.funcs[f].params.iter().map(|(p, _)| p.clone()).collect(),
                def: def.clone(),
                slots,
                config,
                file: display.to_string(),
                line: self.line_of(at),
                method: self.method_of_func(f),
            });
        }
        out
    }

    /// The expression each setting of the definition `call` makes is read from, by path.
    fn value_nodes(&self, call: TsNode<'t>) -> Vec<(&'static str, TsNode<'t>)> {
        let (pos, kw) = self.args(call);
        let kw_of = |kw: &[(&'t str, TsNode<'t>, TsNode<'t>)], name: &str| {
            kw.iter().find(|(k, ..)| *k == name).map(|(_, _, v)| *v)
        };
        let mut out = Vec::new();
        if pos.is_empty() && kw_of(&kw, "name").is_some() {
            // v2: `AmlCompute(name=…, size=…)`.
            out.extend(kw_of(&kw, "name").map(|v| ("name", v)));
            for (kwname, path, _) in V2_FIELDS {
                out.extend(kw_of(&kw, kwname).map(|v| (*path, v)));
            }
            return out;
        }
        // v1: `ComputeTarget.create(ws, name, config)`.
        out.extend(kw_of(&kw, "name").or(pos.get(1).copied()).map(|v| ("name", v)));
        let config = kw_of(&kw, "provisioning_configuration").or(pos.get(2).copied());
        if let Some((prov, _)) = config.and_then(|c| self.provisioning(c, call.start_byte(), &mut Vec::new()))
        {
            let callee = prov
                .child_by_field_name("function")
                .map(|f| self.text(f))
                .unwrap_or_default();
            let class = callee
                .strip_suffix(".provisioning_configuration")
                .unwrap_or_default();
            let class = self.class_name(class.rsplit('.').next().unwrap_or(class));
            let pkw = self.provisioning_args(prov, class);
            for (kwname, path, _) in V1_FIELDS.iter().filter(|(k, ..)| v1_accepts(class, k)) {
                out.extend(kw_of(&pkw, kwname).map(|v| (*path, v)));
            }
        }
        out
    }

    /// The parameter of `f` that is the provisioning configuration of the SDK v1 definition
    /// `call` (`ComputeTarget.create(ws, name, config)`), if any.
    fn config_param(&self, call: TsNode<'t>, f: usize, at: usize) -> Option<usize> {
        let callee = self.text(call.child_by_field_name("function")?);
        if self.v1_call(callee) != Some(super::module::V1Call::Create) {
            return None;
        }
        let (pos, kw) = self.args(call);
        let config = kw
            .iter()
            .find(|(k, ..)| *k == "provisioning_configuration")
            .map(|(_, _, v)| *v)
            .or(pos.get(2).copied())?;
        self.param_index(config, f, at)
    }

    /// The index of the parameter of `f` that `v` is exactly (a name not assigned in `f`
    /// before `at`).
    fn param_index(&self, v: TsNode<'t>, f: usize, at: usize) -> Option<usize> {
        if v.kind() != "identifier" {
            return None;
        }
        let name = self.text(v);
        let assigned = self
            .bindings
            .get(name)
            .is_some_and(|l| l.iter().any(|b| b.scope == Some(f) && b.pos <= at));
        if assigned {
            return None;
        }
        self.funcs[f].params.iter().position(|(p, _)| p == name)
    }

    /// The computes this file (`path`, shown as `display`) defines itself, then those its
    /// calls of helpers define, in the order of the calls.
    pub(super) fn with_helper_calls(&self, files: &Files, path: &Path, display: &str) -> Vec<ComputeDef> {
        let made = self.made(display);
        let mut defs = Module::definitions(&made);
        let own = Arc::new(self.templates(&made, display));
        let mut calls = self.helper_calls(files, path, display, own);
        calls.sort_by_key(|d| d.span.start);
        defs.extend(calls);
        defs
    }

    /// The definitions this file's calls of helpers make (helpers of this file and of the
    /// modules it imports). `path`: this file, shown as `display`.
    fn helper_calls(
        &self,
        files: &Files,
        path: &Path,
        display: &str,
        own: Arc<Vec<Template>>,
    ) -> Vec<ComputeDef> {
        let mut modules = Modules::new(files, path, self.src, TOP);
        // This file's helpers that call its other helpers.
        let mut own = own;
        for _ in 0..TOP {
            let outer: Vec<Template> = self
                .nested_templates(&own, &mut modules, display)
                .into_iter()
                .filter(|t| !own.iter().any(|o| o.same(t)))
                .collect();
            if outer.is_empty() {
                break;
            }
            own = Arc::new(own.iter().cloned().chain(outer).collect());
        }
        let mut out = Vec::new();
        for call in &self.calls {
            let Some(callee) = call.child_by_field_name("function") else {
                continue;
            };
            if let Some((templates, i, bound)) = self.helper_of(callee, call.start_byte(), &own, &mut modules)
            {
                out.extend(self.expand(*call, callee, &templates[i], bound, display));
            }
        }
        out
    }

    /// The templates this file's module-level functions make by calling a template
    /// (`own`, this file's, or one of an imported module) with some of their own
    /// parameters: `prepare_and_execute(name, size)` calling `get_compute(name, size)`.
    fn nested_templates(
        &self,
        own: &Arc<Vec<Template>>,
        modules: &mut Modules<'_>,
        display: &str,
    ) -> Vec<Template> {
        let mut out: Vec<Template> = Vec::new();
        for &call in &self.calls {
            let at = call.start_byte();
            let Some(f) = self.scope_at(at).filter(|&f| self.funcs[f].parent.is_none()) else {
                continue;
            };
            let Some(callee) = call.child_by_field_name("function") else {
                continue;
            };
            let Some((templates, i, bound)) = self.helper_of(callee, at, own, modules) else {
                continue;
            };
            let t = &templates[i];
            let func = &self.funcs[f].name;
            let method = self.method_of_func(f);
            let class = method.as_ref().map(|m| &m.0);
            let is_here = |o: &Template| o.func == *func && o.method.as_ref().map(|m| &m.0) == class;
            if is_here(t) || out.iter().any(is_here) {
                continue;
            }
            let Some(def) = self.expand(call, callee, t, bound, display) else {
                continue;
            };
            let slots: Vec<(String, usize)> = t
                .slots
                .iter()
                .filter_map(|(path, i)| {
                    let (_, v) = self.passed_for(call, t, *i, bound)?;
                    Some((path.clone(), self.param_index(v, f, at)?))
                })
                .collect();
            let config = t
                .config
                .and_then(|i| self.passed_for(call, t, i, bound))
                .and_then(|(_, v)| self.param_index(v, f, at));
            if slots.is_empty() && config.is_none() {
                continue;
            }
            out.push(Template {
                func: func.clone(),
                params: self.funcs[f].params.iter().map(|(p, _)| p.clone()).collect(),
                def,
                slots,
                config,
                file: display.to_string(),
                line: self.line_of(at),
                method,
            });
        }
        out
    }

    /// What `call` passes for the parameter `i` of the template `t`: by keyword (with its
    /// key) or by position (`bound`: the parameters before the first it passes, a
    /// method's `self`).
    fn passed_for(
        &self,
        call: TsNode<'t>,
        t: &Template,
        i: usize,
        bound: usize,
    ) -> Option<(Option<TsNode<'t>>, TsNode<'t>)> {
        let (pos, kw) = self.args(call);
        passed(&pos, &kw, t, i, bound)
    }

    /// The module an imported name is (`import utils`, `from pkg import utils`: `pkg.utils`).
    fn module_named(&self, local: &str) -> Option<String> {
        let (_, module, taken) = self.imported.iter().rev().find(|(l, ..)| l == local)?;
        Some(match taken {
            Some(t) => submodule(module, t),
            None => module.clone(),
        })
    }

    /// The class and binding of the function `f` if it is a method, owned.
    fn method_of_func(&self, f: usize) -> Option<(String, Method)> {
        self.funcs[f].method.map(|(c, how)| (c.to_string(), how))
    }

    /// The template a call of `callee` at `at` reaches (a function, a module's function,
    /// a method), and how many of its parameters the call does not pass.
    fn helper_of(
        &self,
        callee: TsNode<'t>,
        at: usize,
        own: &Arc<Vec<Template>>,
        modules: &mut Modules<'_>,
    ) -> Option<(Arc<Vec<Template>>, usize, usize)> {
        match callee.kind() {
            "identifier" => self
                .helper_named(self.text(callee), at, own, modules)
                .map(|(list, i)| (list, i, 0)),
            "attribute" => match self.helper_of_module(callee, modules) {
                Some((list, i)) => Some((list, i, 0)),
                None => self.helper_method(callee, at, own, modules),
            },
            _ => None,
        }
    }

    /// The template a call `obj.m(…)` reaches when `obj` is an instance of a class of
    /// this file or of an imported module (`self` in a method of the class, a name
    /// assigned `C(…)`, `C(…)` itself) or the class (`C.m(…)`, `cls.m(…)`: a static or
    /// class method), and how many of its parameters the call does not pass.
    fn helper_method(
        &self,
        callee: TsNode<'t>,
        at: usize,
        own: &Arc<Vec<Template>>,
        modules: &mut Modules<'_>,
    ) -> Option<(Arc<Vec<Template>>, usize, usize)> {
        let object = callee.child_by_field_name("object")?;
        let func = self.text(callee.child_by_field_name("attribute")?);
        let (class, on_class) = self.class_of_object(object, at)?;
        let (list, i) = match class {
            ClassAt::Here(c) => {
                // Not a method's call of itself.
                let f = self.scope_at(at);
                let inside = f.is_some_and(|f| {
                    self.funcs[f].name == func && self.funcs[f].method.is_some_and(|m| m.0 == c)
                });
                let i = own
                    .iter()
                    .position(|t| t.is_method(c, func))
                    .filter(|_| !inside)?;
                (own.clone(), i)
            }
            ClassAt::Module(module, c) => {
                let list = modules.templates(&module)?;
                let i = list.iter().position(|t| t.is_method(c, func))?;
                (list, i)
            }
        };
        let bound = list[i].method.as_ref()?.1.bound(on_class)?;
        Some((list, i, bound))
    }

    /// The class the object of a method call is an instance of (`false`) or is (`true`),
    /// and where that class is defined.
    fn class_of_object(&self, object: TsNode<'t>, at: usize) -> Option<(ClassAt<'_>, bool)> {
        match object.kind() {
            "call" => Some((self.class_of_call(object)?, false)),
            "identifier" => {
                let name = self.text(object);
                if name == "self" || name == "cls" {
                    // The class of the method around `at` (or around the function it is in).
                    let mut f = self.scope_at(at);
                    for _ in 0..MAX_DEPTH {
                        let func = &self.funcs[f?];
                        if let Some((class, _)) = func.method {
                            return Some((ClassAt::Here(class), name == "cls"));
                        }
                        f = func.parent;
                    }
                    return None;
                }
                if let Some(class) = self.class_named(name) {
                    return Some((class, true));
                }
                let b = self.resolve(name, at)?;
                match b.value {
                    Bound::Expr(e) if e.kind() == "call" => Some((self.class_of_call(e)?, false)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The class the name `name` is: one of this file's top level, or one a
    /// `from m import C` takes.
    fn class_named<'s>(&'s self, name: &'s str) -> Option<ClassAt<'s>> {
        if self.classes.contains_key(name) {
            return Some(ClassAt::Here(name));
        }
        match self.imported.iter().rev().find(|(local, ..)| local == name)? {
            (_, module, Some(taken)) => Some(ClassAt::Module(module.clone(), taken.as_str())),
            _ => None,
        }
    }

    /// The class a call `C(…)` or `m.C(…)` makes an instance of: one of this file's top
    /// level, or of a module it imports.
    fn class_of_call(&self, call: TsNode<'t>) -> Option<ClassAt<'_>> {
        let f = call.child_by_field_name("function")?;
        match f.kind() {
            "identifier" => {
                let name = self.text(f);
                if let Some(class) = self.class_named(name) {
                    return Some(class);
                }
                if self.imported.iter().any(|(local, ..)| local == name) {
                    return None;
                }
                let star = self.star.first()?;
                (self.star.len() == 1).then(|| ClassAt::Module(star.clone(), name))
            }
            "attribute" => {
                let object = self.text(f.child_by_field_name("object")?);
                let class = self.text(f.child_by_field_name("attribute")?);
                Some(ClassAt::Module(self.module_named(object)?, class))
            }
            _ => None,
        }
    }

    /// The template a call of `name` at `at` reaches: this file's (outside the helper
    /// itself), an imported name's, or one of a `from m import *`.
    fn helper_named(
        &self,
        name: &str,
        at: usize,
        own: &Arc<Vec<Template>>,
        modules: &mut Modules<'_>,
    ) -> Option<(Arc<Vec<Template>>, usize)> {
        if let Some(i) = own.iter().position(|t| t.is_function(name)) {
            let inside = self
                .scope_at(at)
                .is_some_and(|f| self.funcs[f].name == name && self.funcs[f].method.is_none());
            return (!inside).then(|| (own.clone(), i));
        }
        let imported = self
            .imported
            .iter()
            .rev()
            .find(|(local, _, taken)| local == name && taken.is_some());
        let candidates: Vec<(&str, &str)> = match imported {
            Some((_, module, Some(taken))) => vec![(module.as_str(), taken.as_str())],
            _ => self.star.iter().map(|m| (m.as_str(), name)).collect(),
        };
        for (module, func) in candidates {
            let Some(list) = modules.templates(module) else {
                continue;
            };
            if let Some(i) = list.iter().position(|t| t.is_function(func)) {
                return Some((list, i));
            }
        }
        None
    }

    /// The template a call `m.f(...)` reaches, `m` an imported module (`import utils`,
    /// `from pkg import utils`).
    fn helper_of_module(
        &self,
        callee: TsNode<'t>,
        modules: &mut Modules<'_>,
    ) -> Option<(Arc<Vec<Template>>, usize)> {
        let object = self.text(callee.child_by_field_name("object")?);
        let func = self.text(callee.child_by_field_name("attribute")?);
        let list = modules.templates(&self.module_named(object)?)?;
        let i = list.iter().position(|t| t.is_function(func))?;
        Some((list, i))
    }

    /// The definition a call of the helper `t` makes: the values it passes for the
    /// template's parameters at their spans here, the helper's other values inherited (at
    /// the callee's name).
    fn expand(
        &self,
        call: TsNode<'t>,
        callee: TsNode<'t>,
        t: &Template,
        bound: usize,
        display: &str,
    ) -> Option<ComputeDef> {
        let (pos, kw) = self.args(call);
        if kw.iter().any(|(k, ..)| *k == "**") {
            return None;
        }
        let at = call.start_byte();
        let named = self.code.span(callee.start_byte(), callee.end_byte());
        let inherit = |s: &Setting| Setting {
            span: named,
            key: Some(named),
            origin: None,
            in_place: false,
            inherited: true,
            ..s.clone()
        };
        let given = |i: usize| passed(&pos, &kw, t, i, bound);
        let arg = |path: &str| given(t.slots.iter().find(|(p, _)| p == path)?.1);
        let mut notes = vec![format!(
            "calls `{}()` of {}:{}, which creates the compute",
            t.shown(),
            t.file,
            t.line
        )];
        let name = match arg("name") {
            Some((key, v)) => self.name_setting_at(v, key, at, &mut notes),
            None => inherit(&t.def.name),
        };
        let mut def = ComputeDef::new(
            SourceKind::PythonSdk,
            display,
            self.code.span(call.start_byte(), call.end_byte()),
            format!("{}(...) → {}", self.text(callee), t.def.command),
            name,
        );
        def.idiom = t.def.idiom;
        // SDK v1: a size `""` is none, the SDK's default (`module::empty_size`).
        let v1 = t.def.idiom.is_python_v1();
        let param = |path: &str| {
            let i = t.slots.iter().find(|(p, _)| p == path)?.1;
            t.params.get(i).map(String::as_str)
        };
        let passed = |path: &str, notes: &mut Vec<String>| -> Option<Option<Setting>> {
            let (key, v) = arg(path)?;
            let s = self.setting(v, key.unwrap_or(v), at, as_of(path), notes)?;
            let empty = v1 && path == "size" && empty_size(&s, param(path).unwrap_or(path), notes);
            Some((!empty).then_some(s))
        };
        for (path, s) in &t.def.fields {
            match passed(path, &mut notes) {
                Some(Some(own)) => def.set(path, own),
                Some(None) => {}
                None => def.set(path, inherit(s)),
            }
        }
        // A parameter the helper's own definition has no value for (its default `""`, the
        // SDK's "not given") that the call passes.
        for (path, _) in &t.slots {
            if path != "name" && t.def.get(path).is_none() && def.get(path).is_none() {
                if let Some(Some(own)) = passed(path, &mut notes) {
                    def.set(path, own);
                }
            }
        }
        def.notes = notes;
        // SDK v1: the configuration the call passes, read here (its type and settings).
        let config = t.config.and_then(given).map(|(_, v)| v);
        if let Some((prov, through)) = config.and_then(|v| self.provisioning(v, at, &mut def.notes)) {
            self.provisioned(prov, through, at, &mut def);
            def.command = format!("{}(...) → {}", self.text(callee), def.command);
        }
        def.from_file = Some(t.file.clone());
        Some(def)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::read;
    use super::*;
    use crate::facts::computes::Scalar;

    const UTILS: &str = r#"from azure.ai.ml.entities import AmlCompute

def get_cluster(ml_client, name, size="Standard_DS3_v2", max_nodes=4):
    cluster = AmlCompute(name=name, size=size, min_instances=1, max_instances=max_nodes)
    ml_client.begin_create_or_update(cluster)
    return cluster

def get_fixed(ml_client):
    return AmlCompute(name="fixed", size="Standard_DS3_v2")
"#;

    /// `caller` read as `name` beside the files `others` (path, text) in one project.
    fn read_beside(others: &[(&str, &str)], name: &str, caller: &str) -> Vec<ComputeDef> {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in others {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::create_dir_all(dir.path().join(name).parent().unwrap()).unwrap();
        iac::read_for_test(read, dir.path(), name, caller).computes
    }

    fn at<'a>(text: &'a str, d: &Setting) -> &'a str {
        &text[d.span.range()]
    }

    #[test]
    fn a_call_of_an_imported_helper_is_a_definition_at_the_call() {
        let caller = "from utils import get_cluster\nws = None\nc = get_cluster(ws, \"gpu-cluster\", size=\"Standard_NC6\")\n";
        let d = read_beside(&[("utils.py", UTILS)], "train.py", caller);
        let [d] = d.as_slice() else {
            panic!("one definition: {d:#?}")
        };
        assert_eq!(d.known_name(), Some("gpu-cluster"));
        assert_eq!(
            at(caller, &d.name),
            "gpu-cluster",
            "the name at the call's literal"
        );
        assert!(!d.name.inherited);
        let size = d.get("size").unwrap();
        assert_eq!(
            (size.value.clone(), size.inherited),
            (Some(Scalar::Str("Standard_NC6".into())), false)
        );
        assert_eq!(at(caller, size), "Standard_NC6");
        // What the helper writes itself is inherited, at the callee's name.
        let min = d.get("min_instances").unwrap();
        assert_eq!((min.value.clone(), min.inherited), (Some(Scalar::Int(1)), true));
        assert_eq!(at(caller, min), "get_cluster");
        // A parameter the call does not pass: the helper's default, inherited.
        let max = d.get("max_instances").unwrap();
        assert_eq!((max.value.clone(), max.inherited), (Some(Scalar::Int(4)), true));
        assert!(d.from_file.as_deref().unwrap().ends_with("/utils.py"));
        assert!(
            d.notes[0].contains("`get_cluster()` of ") && d.notes[0].contains("utils.py:4,"),
            "{:?}",
            d.notes
        );
        assert_eq!(
            &caller[d.span.range()],
            "get_cluster(ws, \"gpu-cluster\", size=\"Standard_NC6\")"
        );
    }

    const HELPER_CLASS: &str = r#"from azureml.core.compute import AmlCompute, ComputeTarget

class ComputeHelper:
    def __init__(self, ws):
        self.ws = ws

    def create_cluster(self, name, vm_size="STANDARD_D2_V2", max_nodes=4):
        config = AmlCompute.provisioning_configuration(vm_size=vm_size, max_nodes=max_nodes)
        return ComputeTarget.create(self.ws, name, config)

    @staticmethod
    def gpu(ws, name, size):
        config = AmlCompute.provisioning_configuration(vm_size=size, max_nodes=2)
        return ComputeTarget.create(ws, name, config)

    @classmethod
    def default(cls, ws, name):
        return ComputeHelper(ws).create_cluster(name, "STANDARD_D4_V2")

    def setup(self):
        return self.create_cluster("inner", "STANDARD_NC6")
"#;

    #[test]
    fn a_method_call_on_an_instance_or_a_class_is_a_definition_at_the_call() {
        let caller = "from helpers.aml import ComputeHelper\nimport helpers.aml as aml\nws = None\n\
            h = ComputeHelper(ws)\nh.create_cluster(\"cpu\", max_nodes=8)\n\
            ComputeHelper(ws).create_cluster(name=\"direct\")\n\
            ComputeHelper.gpu(ws, \"gpu\", \"Standard_NC6\")\n\
            ComputeHelper.default(ws, \"dflt\")\n\
            aml.ComputeHelper(ws).create_cluster(\"via-module\", \"STANDARD_E4_V3\")\n\
            ComputeHelper.create_cluster(h, \"unbound\")\n\
            other = object()\nother.create_cluster(\"not-a-helper\")\n\
            def create_cluster(name):\n    pass\ncreate_cluster(\"a-function\")\n";
        let d = read_beside(
            &[("helpers/aml.py", HELPER_CLASS), ("helpers/__init__.py", "")],
            "train.py",
            caller,
        );
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            [
                Some("cpu"),
                Some("direct"),
                Some("gpu"),
                Some("dflt"),
                Some("via-module")
            ],
            "{d:#?}"
        );
        let size = |d: &ComputeDef| d.get("size").and_then(|s| s.value.clone());
        let cpu = &d[0];
        // `self` is not passed: the first argument is `name`.
        assert_eq!(at(caller, &cpu.name), "cpu");
        assert_eq!(size(cpu), Some(Scalar::Str("STANDARD_D2_V2".into())));
        assert_eq!(
            at(caller, cpu.get("size").unwrap()),
            "h.create_cluster",
            "inherited at the callee"
        );
        let max = cpu.get("max_instances").unwrap();
        assert_eq!((max.value.clone(), at(caller, max)), (Some(Scalar::Int(8)), "8"));
        assert!(
            cpu.notes[0].contains("`ComputeHelper.create_cluster()` of "),
            "{:?}",
            cpu.notes
        );
        // A static method takes every argument; a class method all but `cls`.
        assert_eq!(size(&d[2]), Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(at(caller, d[2].get("size").unwrap()), "Standard_NC6");
        assert_eq!(size(&d[3]), Some(Scalar::Str("STANDARD_D4_V2".into())));
        assert_eq!(size(&d[4]), Some(Scalar::Str("STANDARD_E4_V3".into())));
        // In the helper's own file, `self.create_cluster(...)` is a call too.
        let dir = tempfile::tempdir().unwrap();
        let here = iac::read_for_test(read, dir.path(), "aml.py", HELPER_CLASS).computes;
        let inner = here
            .iter()
            .find(|d| d.known_name() == Some("inner"))
            .expect("self.create_cluster");
        assert_eq!(size(inner), Some(Scalar::Str("STANDARD_NC6".into())));
        assert_eq!(at(HELPER_CLASS, inner.get("size").unwrap()), "STANDARD_NC6");
    }

    /// `Module::scope_at` (a binary search and a walk up) agrees at every offset with the
    /// innermost function found by scanning them all.
    #[test]
    fn the_function_around_an_offset_is_the_innermost() {
        let text = "def a():\n    def b():\n        x = 1\n    y = 2\n    def c():\n        def d(): pass\n        pass\n    z = 3\nw = 4\nclass K:\n    @staticmethod\n    def m():\n        return 1\n    def n(self):\n        return lambda: 2\nv = 5\n";
        let code = Code::plain(text);
        let tree = parse(&code).unwrap();
        let m = Module::new(&code, tree.root_node(), text);
        assert_eq!(m.funcs.len(), 6);
        for pos in 0..=text.len() {
            let scanned = (m.funcs.iter().enumerate())
                .filter(|(_, f)| f.start <= pos && pos < f.end)
                .max_by_key(|(_, f)| f.start)
                .map(|(i, _)| i);
            assert_eq!(m.scope_at(pos), scanned, "at {pos}");
        }
    }

    #[test]
    fn modules_imported_as_names_stars_and_packages_are_followed() {
        let caller = "import utils as u\nfrom pkg import tools\nfrom pkg.tools import *\n\
                      u.get_cluster(ws, \"a\")\ntools.get_cluster(ws, name=\"b\", max_nodes=8)\nget_cluster(ws, \"c\")\n";
        let d = read_beside(
            &[
                ("jobs/utils.py", UTILS),
                ("pkg/__init__.py", ""),
                ("pkg/tools.py", UTILS),
            ],
            "jobs/run.py",
            caller,
        );
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(names, [Some("a"), Some("b"), Some("c")]);
        assert_eq!(d[0].size(), Some("Standard_DS3_v2"), "the default, inherited");
        assert!(d[0].from_file.as_deref().unwrap().ends_with("/jobs/utils.py"));
        let up = d[1].from_file.as_deref().unwrap();
        assert!(
            up.ends_with("/pkg/tools.py") && !up.contains("jobs"),
            "found one directory up: {up}"
        );
        let max = d[1].get("max_instances").unwrap();
        assert_eq!((max.value.clone(), max.inherited), (Some(Scalar::Int(8)), false));
        // A relative import, from inside a package.
        let inner = "from .tools import get_cluster\nget_cluster(ws, \"d\")\n";
        let d = read_beside(
            &[("pkg/__init__.py", ""), ("pkg/tools.py", UTILS)],
            "pkg/run.py",
            inner,
        );
        assert_eq!(d.iter().map(|d| d.known_name()).collect::<Vec<_>>(), [Some("d")]);
    }

    /// A helper a package's `__init__.py` takes from its module (audit of session 31, case
    /// 07: `from .aml_utils import get_compute`, then `from src.utils import
    /// get_compute`), under its name or another; packages re-exporting from each other (a
    /// cycle) and from sub-packages are not followed.
    #[test]
    fn a_helper_a_package_reexports_is_followed() {
        let caller =
            "from pkg import get_cluster\nfrom pkg import gc\nget_cluster(ws, \"a\")\ngc(ws, \"b\")\n";
        let d = read_beside(
            &[
                (
                    "pkg/__init__.py",
                    "from .tools import get_cluster\nfrom .tools import get_cluster as gc  # alias\nfrom . import sub\nfrom .sub import f\n",
                ),
                ("pkg/tools.py", UTILS),
                (
                    "pkg/sub/__init__.py",
                    "from .. import get_cluster\nfrom .. import gc as f\n",
                ),
            ],
            "jobs/run.py",
            caller,
        );
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(names, [Some("a"), Some("b")], "{d:#?}");
        assert!(d[0].from_file.as_deref().unwrap().ends_with("/pkg/tools.py"));
        let sub = "from pkg.sub import f\nf(ws, \"c\")\n";
        let d = read_beside(
            &[
                ("pkg/__init__.py", "from .tools import get_cluster\n"),
                ("pkg/tools.py", UTILS),
                ("pkg/sub/__init__.py", "from .. import get_cluster as f\n"),
            ],
            "jobs/run.py",
            sub,
        );
        assert!(d.iter().all(|d| d.known_name().is_none()), "{d:#?}");
    }

    const MANAGER: &str = "from azureml.core.compute import ComputeTarget, AmlCompute\n\
                           def create_compute_target(ws, compute_name='gpu-nc6', vm_size='Standard_NC6', max_nodes=4):\n    \
                           cfg = AmlCompute.provisioning_configuration(vm_size=vm_size, max_nodes=max_nodes)\n    \
                           return ComputeTarget.create(ws, compute_name, cfg)\n";

    /// `from pkg import module` then `module.f(...)` in a file that names no compute
    /// class (audit 26, case 01: microsoft/rl-offline-simulation's `from azureml_connector
    /// import compute_manager`): the file is read, the call is a definition.
    #[test]
    fn a_module_taken_from_its_package_is_followed_from_a_file_naming_no_class() {
        let caller = "from azureml.core import Workspace\nfrom pkg import compute_manager\n\
                      ws = Workspace.from_config()\n\
                      t = compute_manager.create_compute_target(ws, \"gpu-nc24\", vm_size=\"Standard_NC24s_v3\")\n";
        for init in [true, false] {
            let mut files = vec![("pkg/compute_manager.py", MANAGER)];
            if init {
                files.push(("pkg/__init__.py", ""));
            }
            let d = read_beside(&files, "exp/run.py", caller);
            let [d] = d.as_slice() else {
                panic!("one definition (with __init__.py: {init}): {d:#?}")
            };
            assert_eq!(d.known_name(), Some("gpu-nc24"));
            assert_eq!(at(caller, d.get("size").unwrap()), "Standard_NC24s_v3");
            assert_eq!(
                d.get("max_instances").and_then(|s| s.value.clone()),
                Some(Scalar::Int(4)),
                "the helper's default, inherited"
            );
        }
        // An alias, names in parentheses over several lines, a relative package.
        let caller = "from pkg import (\n    other,\n    compute_manager as cm,  # the helpers\n)\n\
                      cm.create_compute_target(ws, \"a\")\n";
        let d = read_beside(&[("pkg/compute_manager.py", MANAGER)], "run.py", caller);
        assert_eq!(d.iter().map(|d| d.known_name()).collect::<Vec<_>>(), [Some("a")]);
        assert_eq!(d[0].size(), Some("Standard_NC6"));
        let caller = "from . import compute_manager\ncompute_manager.create_compute_target(ws, \"b\")\n";
        let d = read_beside(&[("pkg/compute_manager.py", MANAGER)], "pkg/run.py", caller);
        assert_eq!(d.iter().map(|d| d.known_name()).collect::<Vec<_>>(), [Some("b")]);
        let caller =
            "from pkg import \\\n    compute_manager\ncompute_manager.create_compute_target(ws, \"c\")\n";
        let d = read_beside(&[("pkg/compute_manager.py", MANAGER)], "run.py", caller);
        assert_eq!(d.iter().map(|d| d.known_name()).collect::<Vec<_>>(), [Some("c")]);
    }

    #[test]
    fn the_names_a_from_import_takes_and_the_words_used_as_modules() {
        let got: Vec<(&str, &str)> = imported_names(" (a, b as c,\\ d ) ").collect();
        assert_eq!(got, [("a", "a"), ("b", "c"), ("d", "d")]);
        assert_eq!(imported_names(" *").count(), 0);
        assert_eq!(submodule(".", "utils"), ".utils");
        assert_eq!(submodule("pkg.sub", "utils"), "pkg.sub.utils");
        let words = dotted_words("é.x = utils.get(a.b.c)\nself._m.f()");
        for w in ["utils", "a", "b", "self", "_m"] {
            assert!(words.contains(w), "{w}: {words:?}");
        }
        assert!(!words.contains("x") && !words.contains("c") && !words.contains("get"));
    }

    /// SDK v1's `vm_size=""` (the SDK's "not specified", audit 26, case 02): no size, at
    /// the helper whose default it is, and at a call that passes it; a call that passes
    /// a size has it.
    #[test]
    fn an_empty_v1_size_is_no_size_at_the_helper_and_at_its_calls() {
        let helper = "from azureml.core.compute import ComputeTarget, AmlCompute\n\
                      def get_or_create(ws, name, vm_size=\"\", max_nodes=None):\n    \
                      cfg = AmlCompute.provisioning_configuration(vm_size=vm_size, max_nodes=max_nodes)\n    \
                      return ComputeTarget.create(ws, name, cfg)\n";
        let caller = "from utils import get_or_create\n\
                      get_or_create(ws, \"nc6\", vm_size=\"STANDARD_NC6\")\n\
                      get_or_create(ws, \"empty\", \"\")\nget_or_create(ws, \"default\")\n";
        let d = read_beside(&[("utils.py", helper)], "train.py", caller);
        let got: Vec<(Option<&str>, Option<&str>)> = d.iter().map(|d| (d.known_name(), d.size())).collect();
        assert_eq!(
            got,
            [
                (Some("nc6"), Some("STANDARD_NC6")),
                (Some("empty"), None),
                (Some("default"), None)
            ]
        );
        assert_eq!(at(caller, d[0].get("size").unwrap()), "STANDARD_NC6");
        for d in &d[1..] {
            assert!(d.get("size").is_none(), "{d:#?}");
        }
        assert!(
            d[1].notes.iter().any(|n| n.contains("`vm_size` is `\"\"`")),
            "{:?}",
            d[1].notes
        );
        // The helper's own definition: no size, the note instead of the default's.
        let own = read_beside(&[], "utils.py", helper);
        let [own] = own.as_slice() else { panic!("{own:#?}") };
        assert!(own.get("size").is_none());
        assert!(
            own.notes
                .iter()
                .any(|n| n.contains("the size is the SDK's default")),
            "{:?}",
            own.notes
        );
        assert!(
            !own.notes.iter().any(|n| n.contains("`vm_size` is the default")),
            "{:?}",
            own.notes
        );
        // The other parameters' notes stay, `None` ones too.
        assert!(
            own.notes.iter().any(|n| n.contains("`max_nodes` is the default")),
            "{:?}",
            own.notes
        );
        // Written in place, by keyword or by position.
        let text = "from azureml.core.compute import ComputeTarget, AmlCompute\n\
                    cfg2 = AmlCompute.provisioning_configuration(vm_size=\"\", max_nodes=2)\n\
                    ComputeTarget.create(None, \"cpu-default\", cfg2)\n\
                    ComputeTarget.create(None, \"pos\", AmlCompute.provisioning_configuration(\"\"))\n";
        let d = read_beside(&[], "make.py", text);
        let got: Vec<(Option<&str>, bool)> = d
            .iter()
            .map(|d| (d.known_name(), d.get("size").is_some()))
            .collect();
        assert_eq!(got, [(Some("cpu-default"), false), (Some("pos"), false)]);
        assert_eq!(
            d[0].get("max_instances").and_then(|s| s.value.clone()),
            Some(Scalar::Int(2))
        );
    }

    #[test]
    fn a_helper_of_the_same_file_is_expanded_at_each_call_outside_it() {
        let text = format!("{UTILS}\nget_cluster(client, \"here\", \"Standard_NC6\")\n");
        let d = read_beside(&[], "setup.py", &text);
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        // The helper's own definition (its name a parameter), the fixed one, the call.
        assert_eq!(names, [None, Some("fixed"), Some("here")]);
        assert_eq!(at(&text, d[2].get("size").unwrap()), "Standard_NC6");
        // A recursive call inside the helper is not a definition.
        let rec = "from azure.ai.ml.entities import AmlCompute\n\
                   def make(name):\n    make(\"inner\")\n    return AmlCompute(name=name)\n";
        let d = read_beside(&[], "rec.py", rec);
        assert_eq!(d.iter().map(|d| d.known_name()).collect::<Vec<_>>(), [None]);
    }

    #[test]
    fn calls_that_do_not_reach_a_template_define_nothing() {
        let caller = "from utils import get_fixed, other\nfrom missing import get_cluster\nimport os\n\
                      get_fixed(ws)\nother(ws, \"x\")\nget_cluster(ws, \"y\")\nkw = {}\n\
                      from utils import get_cluster as gc\ngc(**kw)\n";
        let d = read_beside(&[("utils.py", UTILS)], "train.py", caller);
        assert!(d.is_empty(), "{d:#?}");
        // A module name that is not one (`../x`, a path) is not looked for.
        let dir = tempfile::tempdir().unwrap();
        let files = Files::new(crate::fsio::Boundary::at(dir.path()), &Default::default());
        assert!(find_module("../etc/passwd", &dir.path().join("a.py"), &[], &files).is_none());
        assert!(find_module("/etc/passwd", &dir.path().join("a.py"), &[], &files).is_none());
    }

    #[test]
    fn a_file_looks_for_a_bounded_number_of_modules() {
        // Each distinct module may probe two files per directory up to the root: after
        // `MAX_MODULES` of them, the rest are not looked for (the helper is missed).
        let many: String = (0..10_000).map(|i| format!("import m{i}\n")).collect();
        let caller = format!("{many}from utils import get_cluster\nget_cluster(ws, \"x\")\n");
        assert!(read_beside(&[("utils.py", UTILS)], "train.py", &caller).is_empty());
        let few: String = (0..MAX_MODULES - 1).map(|i| format!("import m{i}\n")).collect();
        let caller = format!("{few}from utils import get_cluster\nget_cluster(ws, \"x\")\n");
        assert_eq!(read_beside(&[("utils.py", UTILS)], "train.py", &caller).len(), 1);
        // Relative imports past the project's root read nothing outside it.
        let up = "from ........utils import get_cluster\nget_cluster(ws, \"y\")\n";
        assert!(read_beside(&[("utils.py", UTILS)], "a/b/train.py", up).is_empty());
    }

    /// SDK v1: a helper given the provisioning configuration (`def create(ws, name,
    /// config)`) defines, at each call, what the configuration the call passes says.
    #[test]
    fn a_v1_helper_takes_the_configuration_each_call_passes() {
        let utils = "from azureml.core.compute import ComputeTarget\n\
                     def create(ws, name, config):\n    return ComputeTarget.create(ws, name, config)\n";
        let caller = "from azureml.core.compute import AmlCompute, AksCompute\nfrom utils import create\n\
                      aml = AmlCompute.provisioning_configuration(vm_size=\"Standard_NC6\", min_nodes=1)\n\
                      create(ws, \"v1-aml\", aml)\n\
                      create(ws, \"v1-aks\", config=AksCompute.provisioning_configuration(vm_size=\"Standard_A3\"))\n";
        let d = read_beside(&[("utils.py", utils)], "train.py", caller);
        let got: Vec<(Option<&str>, Option<String>, Option<&str>)> =
            d.iter().map(|d| (d.known_name(), d.ctype(), d.size())).collect();
        assert_eq!(
            got,
            [
                (Some("v1-aml"), Some("amlcompute".into()), Some("Standard_NC6")),
                (Some("v1-aks"), Some("aks".into()), Some("Standard_A3")),
            ]
        );
        // Through the variable: at the call's argument, the literal labelled (as in one file).
        let size = d[0].get("size").unwrap();
        assert_eq!(at(caller, size), "aml");
        assert!(!size.inherited);
        assert_eq!(&caller[size.origin.unwrap().range()], "Standard_NC6");
        assert!(
            d[0].command
                .starts_with("create(...) → ComputeTarget.create + AmlCompute"),
            "{}",
            d[0].command
        );
    }

    #[test]
    fn a_helper_is_parsed_once_however_many_files_import_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("utils.py"), UTILS).unwrap();
        let files = Files::new(crate::fsio::Boundary::at(dir.path()), &Default::default());
        let path = dir.path().join("utils.py");
        let first = templates_of(&files, &path, "utils.py", TOP);
        let again = templates_of(&files, &path, "utils.py", TOP);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(first.len(), 1, "get_fixed uses no parameter");
        assert_eq!(
            first[0].slots.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
            ["name", "size", "max_instances"]
        );
    }
}
