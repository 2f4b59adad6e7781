//! Scripts that run `az ml compute create`: shell (`.sh`, `.bash`, the Azure CLI
//! scratchpad `.azcli` of VS Code's Azure CLI Tools), PowerShell (`.ps1`),
//! cmd (`.cmd`, `.bat`) and Makefiles (recipes, with the Makefile's variables). Comments
//! are the script's own (`#`, `<# #>`, `REM`/`::`).

use std::cell::RefCell;
use std::collections::HashMap;

use super::az_cli::{Ctx, Eval, Outer, ScriptFile, ScriptVal, Vars, definitions, wanted};
use super::common::{Definitions, Input, Reader};
use super::shell::comment_of;
use super::shell::{Dialect, LexOptions, VarScope, parse_file};
use crate::source::Span;

/// The bytes every `az ml compute ...` and `az ml computetarget ...` contains.
pub const NEEDLES: &[&str] = &["ml compute"];

/// The bytes a script this reader reads contains: an `az ml compute ...`, or a template
/// deployment (`az deployment group create`, [`super::deploy`]).
const READ_NEEDLES: &[&str] = &[
    "ml compute",
    "deployment group create",
    "deployment sub create",
    "deployment mg create",
    "deployment tenant create",
    "group deployment create",
    // `terraform plan|apply` with the variables it passes ([`super::deploy`]).
    "terraform plan",
    "terraform apply",
    "terraform -chdir",
    // A Python file of the project run with its arguments ([`super::deploy`]), or one
    // of its modules (`python -m ml.build`).
    ".py",
    "python -m ",
    "python3 -m ",
    // A shell script of the project run with its arguments ([`super::deploy`]).
    ".sh",
];

pub const READER: Reader = Reader {
    name: "az-cli scripts",
    wants: |name| dialect(name).is_some() || is_makefile(name),
    needles: READ_NEEDLES,
    defines: super::common::COMMAND_WORDS,
    read,
};

fn dialect(name: &str) -> Option<Dialect> {
    // `.azcli`: the Azure CLI scratchpad of VS Code's Azure CLI Tools, az commands run
    // line by line in the editor's shell, `#` comments: read as bash.
    // `.zsh`, `.ksh`: read as bash, whose syntax they share for what amlint reads.
    let bash = [".sh", ".bash", ".azcli", ".zsh", ".ksh"];
    if bash.iter().any(|s| name.ends_with(s)) {
        Some(Dialect::Bash)
    } else if name.ends_with(".ps1") || name.ends_with(".psm1") {
        Some(Dialect::PowerShell)
    } else if name.ends_with(".cmd") || name.ends_with(".bat") {
        Some(Dialect::Cmd)
    } else {
        None
    }
}

/// Whether a script of this (lower-cased) file name has its `source` commands followed
/// (`Vars::scan_sourcing`): a shell, PowerShell or cmd script, not a Makefile (each recipe
/// line runs in a shell of its own).
pub fn follows_sources(name: &str) -> bool {
    dialect(name).is_some()
}

/// Whether such a script's `text` may define a compute with values from a file it
/// sources: it runs `az ml compute` and may source one (a superset).
pub fn may_use_sourced_values(text: &[u8]) -> bool {
    super::common::mentions(text, NEEDLES) && super::az_cli::may_source(text)
}

fn is_makefile(name: &str) -> bool {
    matches!(name, "makefile" | "gnumakefile") || name.ends_with(".mk")
}

fn read(input: &Input<'_>, out: &mut Definitions) {
    let name = input.file_name();
    let text = input.source.text.as_str();
    let (options, make) = match dialect(&name) {
        Some(d) => (LexOptions::new(d), None),
        None => (
            LexOptions {
                make: true,
                ..LexOptions::new(Dialect::Bash)
            },
            Some(MakeVars::scan(text)),
        ),
    };
    let options = LexOptions {
        keep: Some(wanted),
        ..options
    };
    let script = parse_file(text, options);
    let outer: &dyn Outer = match &make {
        Some(m) => m,
        None => &ScriptFile,
    };
    let vars = if follows_sources(&name) {
        Vars::scan_sourcing(&script, options.dialect, input, outer)
    } else {
        Vars::scan(&script, options.dialect)
    };
    let cx = Ctx {
        input,
        eval: Eval { vars: &vars, outer },
        note: None,
    };
    out.computes.extend(definitions(&script, &cx));
    out.computes.extend(super::deploy::from_script(&script, &cx));
    out.computes
        .extend(super::deploy::terraform_from_script(&script, &cx));
    out.computes.extend(super::deploy::python_from_script(
        &script,
        &cx,
        &std::cell::Cell::new(super::deploy::PY_RUN_BYTES),
    ));
    if options.dialect == Dialect::Bash {
        out.computes.extend(super::deploy::shell_from_script(
            &script,
            &cx,
            &std::cell::Cell::new(super::deploy::SH_RUN_BYTES),
        ));
    }
    out.comments
        .extend(script.comments.iter().map(|c| comment_of(input.source, c)));
}

/// A Makefile's variables (`NAME = value`, `:=`, `::=`, `?=`; `export` and `override`
/// before them), each with its value and where it is written.
pub struct MakeVars {
    vars: HashMap<String, MakeValue>,
    /// Values that refer to others, each expanded once.
    memo: RefCell<HashMap<String, ScriptVal>>,
    /// The recipes: where each is (its lines), and the targets of its rule.
    recipes: Vec<(std::ops::Range<u32>, Vec<String>)>,
    /// Target-specific variables (`gpu-cluster: SIZE = Standard_NC6`, also with `export`
    /// or `override`), by variable: each target (or pattern) and its value there.
    targeted: HashMap<String, Vec<(String, MakeValue)>>,
    /// Each rule's targets and prerequisites, as written (a target's value is its
    /// prerequisites' too when make builds them for it).
    prerequisites: Vec<(Vec<String>, Vec<String>)>,
}

/// `NAME op value` after its `export`/`override`: the name, the operator (`""` for `=`,
/// `:`, `::`, `?`, `+`, `!`) and the value, or `None` when the text assigns nothing.
fn assignment(text: &str) -> Option<(&str, &str, &str)> {
    let mut rest = text.trim_start();
    for prefix in ["export ", "override "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest).trim_start();
    }
    let eq = rest.find('=')?;
    let (lhs, value) = (&rest[..eq], &rest[eq + 1..]);
    let (name, op) = match lhs.trim_end() {
        l if l.ends_with("::") => (&l[..l.len() - 2], "::"),
        l if l.ends_with([':', '?', '+', '!']) => (&l[..l.len() - 1], &l[l.len() - 1..]),
        l => (l, ""),
    };
    let name = name.trim();
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    ok.then_some((name, op, value))
}

/// A make value longer than this is not a compute's name or size: dynamic.
const MAX_MAKE_VALUE: usize = 1024;

/// A make variable's value and where it is written, or why it is not known.
type MakeValue = Result<(String, Span), String>;

/// How deep a make variable may refer to others.
const MAX_MAKE_NESTING: usize = 8;

impl MakeVars {
    pub fn scan(text: &str) -> Self {
        let mut vars = HashMap::new();
        let mut recipes: Vec<(std::ops::Range<u32>, Vec<String>)> = Vec::new();
        let mut targeted: HashMap<String, Vec<(String, MakeValue)>> = HashMap::new();
        let mut prerequisites: Vec<(Vec<String>, Vec<String>)> = Vec::new();
        // The targets of the rule whose recipe the next tab-indented lines are.
        let mut rule: Option<Vec<String>> = None;
        let mut offset = 0usize;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            if line.starts_with('\t') {
                if let Some(targets) = &rule {
                    match recipes.last_mut() {
                        Some((r, t)) if r.end as usize == start && t == targets => r.end = offset as u32,
                        _ => recipes.push((start as u32..offset as u32, targets.clone())),
                    }
                }
                continue;
            }
            let body = line.trim_end_matches(['\n', '\r']);
            let body = body.split('#').next().unwrap_or(body);
            if body.trim().is_empty() {
                continue;
            }
            // A rule (`targets: prerequisites`) or a target-specific variable (`targets:
            // NAME = value`): a `:` before any `=` that is not an assignment's `:=`/`::=`.
            let colon = body.find(':').filter(|&c| {
                !body[..c].contains('=') && !body[c..].starts_with(":=") && !body[c..].starts_with("::=")
            });
            if let Some(c) = colon {
                let targets: Vec<String> = body[..c].split_whitespace().map(str::to_string).collect();
                let after = body[c + 1..].trim_start_matches(':');
                if let Some((name, op, value)) = assignment(after) {
                    let trimmed = value.trim();
                    let value_at = start
                        + (value.as_ptr() as usize - line.as_ptr() as usize)
                        + (value.len() - value.trim_start().len());
                    let entry = match op {
                        "+" => Err(format!("`{name}` is appended to for `{}`", targets.join(" "))),
                        "!" => Err(format!(
                            "`{name}` is the output of a command for `{}`",
                            targets.join(" ")
                        )),
                        "?" => Err(format!("`{name}` is set with `?=` for `{}`", targets.join(" "))),
                        _ => Ok((
                            trimmed.to_string(),
                            Span::new(value_at as u32, (value_at + trimmed.len()) as u32),
                        )),
                    };
                    let list = targeted.entry(name.to_string()).or_default();
                    for t in &targets {
                        list.push((t.clone(), entry.clone()));
                    }
                    rule = None;
                } else {
                    let prereqs = after.split(['|', ';']).next().unwrap_or("");
                    prerequisites.push((
                        targets.clone(),
                        prereqs.split_whitespace().map(str::to_string).collect(),
                    ));
                    rule = Some(targets);
                }
                continue;
            }
            rule = None;
            let Some((name, op, value)) = assignment(body) else {
                continue;
            };
            let trimmed = value.trim();
            let value_at = start
                + (value.as_ptr() as usize - line.as_ptr() as usize)
                + (value.len() - value.trim_start().len());
            let entry = match op {
                "+" => Err(format!("`{name}` is appended to")),
                "!" => Err(format!("`{name}` is the output of a command")),
                _ => Ok((
                    trimmed.to_string(),
                    Span::new(value_at as u32, (value_at + trimmed.len()) as u32),
                )),
            };
            if op == "?" {
                // Set only when nothing set it before.
                vars.entry(name.to_string()).or_insert(entry);
            } else {
                vars.insert(name.to_string(), entry);
            }
        }
        MakeVars {
            vars,
            memo: Default::default(),
            recipes,
            targeted,
            prerequisites,
        }
    }

    /// The make variable `name` as the recipe line at `at` sees it: the value its target
    /// sets for it (`gpu-cluster: SIZE = Standard_NC6`), else the global one — not known
    /// when a pattern's or another target's value may reach it (make gives a target's
    /// values to the prerequisites it builds) or its targets disagree.
    fn value_at(&self, name: &str, at: u32) -> Option<ScriptVal> {
        let Some(set) = self.targeted.get(name) else {
            return self.value(name, 0);
        };
        let Some((_, targets)) = self.recipes.iter().find(|(r, _)| r.contains(&at)) else {
            return self.value(name, 0);
        };
        let reached = |why: String| Some(ScriptVal::Dynamic(why));
        if set.iter().any(|(t, _)| targets.contains(t)) {
            // Each target's last value; one rule of several targets that disagree is not
            // known.
            let last: Vec<&MakeValue> = targets
                .iter()
                .filter_map(|t| set.iter().rev().find(|(x, _)| x == t).map(|(_, v)| v))
                .collect();
            if last.len() != targets.len() || last.iter().any(|v| v != &last[0]) {
                return reached(format!(
                    "`{name}` is set for some of the targets `{}` only, or differently",
                    targets.join(" ")
                ));
            }
            return Some(match last[0] {
                Err(why) => ScriptVal::Dynamic(why.clone()),
                Ok((text, span)) if !text.contains('$') => ScriptVal::known(text.clone(), Some(*span)),
                Ok((text, _)) => self.expand(text, 1)?,
            });
        }
        if let Some((pattern, _)) = set.iter().find(|(t, _)| t.contains('%')) {
            return reached(format!("`{name}` is set for the targets matching `{pattern}`"));
        }
        let setters: Vec<&str> = set.iter().map(|(t, _)| t.as_str()).collect();
        let reaching = self.prerequisites.iter().find(|(ts, ps)| {
            ts.iter().any(|t| setters.contains(&t.as_str())) && ps.iter().any(|p| targets.contains(p))
        });
        if let Some((ts, _)) = reaching {
            return reached(format!(
                "`{name}` is set for `{}`, which builds this target with that value",
                ts.join(" ")
            ));
        }
        self.value(name, 0)
    }

    fn value(&self, name: &str, depth: usize) -> Option<ScriptVal> {
        let entry = self.vars.get(name)?;
        if let Some(v) = self.memo.borrow().get(name) {
            return Some(v.clone());
        }
        let v = match entry {
            Err(why) => ScriptVal::Dynamic(why.clone()),
            Ok((text, span)) if !text.contains('$') => ScriptVal::known(text.clone(), Some(*span)),
            Ok(_) if depth >= MAX_MAKE_NESTING => {
                ScriptVal::Dynamic(format!("`{name}` refers to variables nested too deep"))
            }
            Ok((text, _)) => self.expand(text, depth + 1)?,
        };
        self.memo.borrow_mut().insert(name.to_string(), v.clone());
        Some(v)
    }

    /// `$(NAME)` and `${NAME}` in a value replaced by their values.
    fn expand(&self, text: &str, depth: usize) -> Option<ScriptVal> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let close = match after.as_bytes().first() {
                Some(b'(') => ')',
                Some(b'{') => '}',
                Some(b'$') => {
                    out.push('$');
                    rest = &after[1..];
                    continue;
                }
                _ => return Some(ScriptVal::Dynamic("a make automatic variable".into())),
            };
            let end = after.find(close)?;
            let inner = &after[1..end];
            if inner.contains([' ', ',']) {
                return Some(ScriptVal::Dynamic(format!("`$({inner})` is a make function")));
            }
            match self.value(inner, depth) {
                Some(ScriptVal::Known { text, .. }) if out.len() + text.len() > MAX_MAKE_VALUE => {
                    return Some(ScriptVal::Dynamic(format!(
                        "`{inner}` is longer than {MAX_MAKE_VALUE} bytes"
                    )));
                }
                Some(ScriptVal::Known { text, .. }) => out.push_str(&text),
                Some(v @ ScriptVal::Dynamic(_)) => return Some(v),
                None => {
                    return Some(ScriptVal::Dynamic(format!(
                        "`{inner}` is not set in this Makefile"
                    )));
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Some(ScriptVal::known(out, None))
    }
}

impl Outer for MakeVars {
    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        // Make exports nothing to a recipe's shell unless told; a shell variable a recipe
        // reads is the environment's.
        (scope == VarScope::Make).then(|| self.value(name, 0)).flatten()
    }

    fn var_at(&self, name: &str, scope: VarScope, at: u32) -> Option<ScriptVal> {
        (scope == VarScope::Make)
            .then(|| self.value_at(name, at))
            .flatten()
    }

    fn lines_apart(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::computes::Scalar;

    fn run(display: &str, text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        super::super::iac::read_for_test(read, dir.path(), display, text)
    }

    #[test]
    fn makefile_variables_and_recipes() {
        let text = "PREFIX ?= team\nNAME := $(PREFIX)-gpu\nSIZE = Standard_NC6 # retired\nLATER += x\n\ncompute:\n\t@az ml compute create --name $(NAME) \\\n\t  --size $(SIZE) --type amlcompute --tier $(LATER)\n";
        let out = run("Makefile", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("team-gpu"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$(SIZE)");
        assert_eq!(&text[size.origin.unwrap().range()], "Standard_NC6");
        assert!(
            d.get("tier")
                .unwrap()
                .why
                .as_deref()
                .unwrap()
                .contains("appended")
        );
    }

    /// An Azure CLI scratchpad (`.azcli`) is a bash script: its commands, variables and
    /// `#` comments (a suppression above a command covers it).
    #[test]
    fn an_azcli_scratchpad_is_read_as_bash() {
        assert!(crate::load::is_definition_source("iac/Setup.AZCLI"));
        assert!((READER.wants)("setup.azcli"));
        let text = "# Azure CLI scratchpad\nSIZE=Standard_NC6\n# amlint: ignore[AML702]\naz ml compute create --name gpu-cluster --size $SIZE --type AmlCompute \\\n  --max-instances 2\n";
        let out = run("setup.azcli", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(d.known_name(), Some("gpu-cluster"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        let source = crate::source::SourceFile::new("setup.azcli", text.to_string());
        let at = |offset: u32| {
            let p = source.position(offset);
            (p.line, p.column)
        };
        assert_eq!(at(d.span.start), (4, 1));
        assert_eq!(
            (at(size.span.start), &text[size.span.range()]),
            ((4, 48), "$SIZE")
        );
        assert_eq!(at(size.origin.unwrap().start), (2, 6));
        assert_eq!(d.get("max_instances").unwrap().value, Some(Scalar::Int(2)));
        let targets: Vec<Option<u32>> = out.comments.iter().map(|c| c.target_line).collect();
        assert_eq!(targets, [Some(2), Some(4)]);
    }

    #[test]
    fn comments_cover_their_lines() {
        let text = "#!/bin/bash\n# amlint: ignore[AML702]\naz ml compute create -n a --type amlcompute  # trailing\n";
        let out = run("x.sh", text);
        assert_eq!(out.computes.len(), 1);
        let targets: Vec<Option<u32>> = out.comments.iter().map(|c| c.target_line).collect();
        assert_eq!(targets, [Some(3), Some(3), Some(3)]);
    }
}
