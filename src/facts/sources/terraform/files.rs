//! The files of the project a Terraform module reads when it is planned: `file(P)` and
//! `templatefile(P, vars)` (a template deployment's ARM template, `template_deployment`),
//! and `yamldecode(file(P))` / `jsondecode(file(P))` (a configuration in `locals`: `cfg =
//! yamldecode(file("${path.module}/compute.yaml"))`, then `local.cfg.compute.vm_size`),
//! whose values are the file's, each noted with where the file writes it
//! ([`iac::structured_file`], as Bicep's `loadYamlContent()`).
//!
//! The path is evaluated with `path.module` (the module's directory) and, in the root
//! module, `path.root` and `path.cwd` (where Terraform runs: the root module's directory,
//! which a plain relative path is read from too); a called module does not know where
//! Terraform runs, so such a path is not read there. The file is read as every file a
//! reader consults: a relative path, inside the project, a regular text file under the
//! size limit. A file not read leaves the value unknown, with the file named. What
//! `templatefile()` fills in (`${…}`, `%{…}`) is not substituted: a value holding one is
//! unknown.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hcl_edit::expr::{Expression, FuncCall};

use super::super::iac::{self, Ev, Part, V};
use super::{At, Env, Module};
use crate::source::SourceFile;

/// What `path.module` evaluates to while a path `file()` reads is evaluated: text no path
/// holds.
pub(super) const MODULE_DIR: &str = "\u{1}path.module\u{1}";
/// What `path.root` and `path.cwd` evaluate to there.
pub(super) const ROOT_DIR: &str = "\u{1}path.root\u{1}";

/// A file a `file()` or `templatefile()` call reads.
pub(super) struct Read {
    /// Its path (normalised), as displayed, and its text.
    pub path: PathBuf,
    pub shown: String,
    pub src: Arc<SourceFile>,
    /// Read by `templatefile()`: what its `${…}` and `%{…}` make is not known.
    pub template: bool,
}

impl<'m> Module<'m> {
    /// The file `call` — `file(P)` or `templatefile(P, vars)`, written in the module's file
    /// `file` — reads, or why it is not read.
    pub(super) fn read_file_call(
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
    pub(super) fn decoded(&self, f: &'m FuncCall, file: usize, env: &Env, depth: usize) -> Ev {
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
        let v = match iac::structured_file(&read.src, format, &how) {
            Ok(v) if read.template => filled(v),
            Ok(v) => v,
            Err(why) => Ev::unknown(format!("`{fname}()` reads {}, and {why}", read.shown)),
        };
        self.memo.borrow_mut().insert(key, v.clone());
        v
    }
}

/// Why a value `templatefile()` makes is not known.
pub(super) fn placeholder_why(text: &str) -> String {
    format!(
        "`{}` holds a placeholder that `templatefile()` fills from its variables, which amlint does not substitute",
        iac::one_line(text)
    )
}

/// Whether text read through `templatefile()` holds a placeholder it fills.
pub(super) fn has_placeholder(text: &str) -> bool {
    text.contains("${") || text.contains("%{")
}

/// A value of a file `templatefile()` reads: each string holding a placeholder (`${…}`,
/// `%{…}`) is unknown, saying so; the rest as the file writes it.
pub(super) fn filled(mut v: Ev) -> Ev {
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
