//! `az ml compute create` in Jenkins pipelines: `Jenkinsfile`, `*.jenkinsfile` and Groovy
//! files (`*.groovy`: a shared library's `vars/` steps). The script of each `sh`, `bat`,
//! `powershell` and `pwsh` step — a Groovy string (`'…'`, `"…"`, `'''…'''`, `"""…"""`)
//! given first or as `script:` — is decoded as Groovy decodes it (escapes, a `\` that
//! continues the line), every byte mapped back to the file (`ipynb::Code`), and read by
//! the az CLI reader in the step's shell (`sh`: bash, `bat`: cmd, `powershell`/`pwsh`:
//! PowerShell) with its `Vars` and `Eval`. Each step runs in a shell of its own: its own
//! assignments are known, not another step's.
//!
//! What the Groovy around a step says ([`groovy::GroovyVars`], built once per file that has a
//! step creating a compute, from the tokens this scan records): in a double-quoted
//! (interpolating) string, `${X}`, `$X`, `${env.X}`/`$env.X` and `${params.X}` are
//! Groovy's, replaced before the shell runs: known when the file makes them so — a Groovy
//! variable assigned a string or number before the step (`def X = '…'`, `String X = "…"`
//! whose own interpolations are known, the script's binding `X = '…'`, `@Field`), an
//! `environment { }` entry (the stage's over the pipeline's, only inside its stage), a
//! `withEnv([...])` entry around the step, `env.X = '…'`, a `parameters { }` default
//! (noted: a build may be given another). The shell sees the environment entries and the
//! parameters as environment variables (`$X` in a `'…'` script: [`GroovyOuter`]'s `var`).
//! Any other expression (a method call, a ternary, `+`, a property) is unknown, and says
//! so; a value the shell would split or expand again (spaces, quotes, `$`) too. Which
//! assignments reach a step, when a variable is assigned more than once, in a branch, a
//! closure, a loop or a method, is decided conservatively (known only when every
//! assignment that can reach the step gives the same value; a later one never applies to
//! an earlier step): the rules are in `groovy.rs`'s module doc. A value from a variable
//! has its span where the script uses it (`${SIZE}`), its literal as the origin (a label),
//! as the az CLI reader does for a shell variable.
//!
//! Suppressions: Groovy's `//` and `/* */` comments (after code: their line; alone on a
//! line: the next line of code), and the shell's own comments inside a script. One pass
//! over the bytes, then one over the tokens, no recursion; linear in the file.

mod groovy;

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use super::az_cli::{Ctx, Eval, Outer, ScriptVal, Vars, definitions, wanted};
use super::common::{Definitions, Input, Layout, Reader, line_end};
use super::ipynb::Code;
use super::shell::{Dialect, LexOptions, Map, VarScope, comment_of, parse};
use crate::facts::computes::ComputeDef;
use crate::source::Span;
use groovy::{
    At, GroovyString, GroovyVal, GroovyVars, INTERP_CLOSE, INTERP_OPEN, Tok, decode, interp_expr, substitute,
};

pub const READER: Reader = Reader {
    name: "az-cli Jenkins pipelines",
    wants: is_jenkins,
    needles: super::scripts::NEEDLES,
    defines: super::common::COMMAND_WORDS,
    read,
};

/// Whether a (lower-cased) file name is a Jenkins pipeline or Groovy file.
pub fn is_jenkins(name: &str) -> bool {
    name == "jenkinsfile" || name.ends_with(".jenkinsfile") || (name.len() > 7 && name.ends_with(".groovy"))
}

/// A step whose script is being looked for.
struct Step {
    dialect: Dialect,
    /// Its `(` was read.
    paren: bool,
    /// The named argument being read (`script:`, `label:`...).
    label: Option<bool>,
}

fn step_dialect(word: &[u8]) -> Option<Dialect> {
    match word {
        b"sh" => Some(Dialect::Bash),
        b"bat" => Some(Dialect::Cmd),
        b"powershell" | b"pwsh" => Some(Dialect::PowerShell),
        _ => None,
    }
}

/// The file read once: the scripts of its steps, its comments and where code starts on
/// each line that has some.
#[derive(Default)]
struct Scanned {
    /// The steps' scripts: each step's shell and its string's index.
    scripts: Vec<(Dialect, usize)>,
    strings: Vec<GroovyString>,
    toks: Vec<Tok>,
    layout: Layout,
}

fn scan(text: &str) -> Scanned {
    let b = text.as_bytes();
    let mut scanner = Scanner {
        b,
        out: Scanned::default(),
        step: None,
        last_ident: None,
    };
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while i < b.len() {
        i = scanner.at(i);
    }
    scanner.out
}

/// The scan's state: what it found, the step whose script it looks for, and the last
/// identifier read among that step's arguments.
struct Scanner<'t> {
    b: &'t [u8],
    out: Scanned,
    step: Option<Step>,
    last_ident: Option<&'t [u8]>,
}

impl<'t> Scanner<'t> {
    /// Scans what starts at `i` (a comment, a string, a word, a byte of code, blanks);
    /// returns where the scan goes on.
    fn at(&mut self, i: usize) -> usize {
        let b = self.b;
        match b[i] {
            b'\n' => {
                self.out.layout.newline();
                self.out.toks.push(Tok::Newline);
                // Without parentheses a step's arguments are on its line.
                if self.step.as_ref().is_some_and(|st| !st.paren) {
                    self.step = None;
                }
                i + 1
            }
            b' ' | b'\t' | b'\r' => i + 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = line_end(b, i);
                let end = if end > i && b[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                };
                self.out.layout.comment(i, end);
                end
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = self.out.layout.block_comment(b, i);
                if memchr::memchr(b'\n', &b[i..end]).is_some() {
                    self.out.layout.newline();
                    self.out.toks.push(Tok::Newline);
                }
                end
            }
            b'\'' | b'"' => self.string(i),
            c if c.is_ascii_alphabetic() || c == b'_' => self.word(i),
            c if c.is_ascii_digit() => {
                self.punct(i);
                self.out.toks.pop();
                let end = i + b[i..]
                    .iter()
                    .take_while(|x| x.is_ascii_alphanumeric() || **x == b'_' || **x == b'.')
                    .count();
                self.out.toks.push(Tok::Num(i as u32, end as u32));
                end
            }
            _ => self.punct(i),
        }
    }

    /// A string at `i`: a step's script when the step waits for one.
    fn string(&mut self, i: usize) -> usize {
        let b = self.b;
        let c = b[i];
        self.out.layout.code(i);
        let triple = b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
        let start = i + if triple { 3 } else { 1 };
        let (end, next) = string_end(b, start, c, triple);
        if memchr::memchr(b'\n', &b[i..next]).is_some() {
            self.out.layout.newline();
        }
        let idx = self.out.strings.len();
        self.out.strings.push(GroovyString {
            open: i,
            start,
            end,
            interpolates: c == b'"',
        });
        self.out.toks.push(Tok::Str(idx as u32));
        if let Some(st) = self.step.take() {
            if st.label.unwrap_or(true) {
                self.out.scripts.push((st.dialect, idx));
            } else {
                // Another named argument (`label: '…'`): the script may follow.
                self.step = Some(Step { label: None, ..st });
            }
        }
        next
    }

    /// A word at `i`: a step's name starts one; in a step's arguments, an argument's name
    /// or an expression.
    fn word(&mut self, i: usize) -> usize {
        let b = self.b;
        self.out.layout.code(i);
        let end = i + b[i..]
            .iter()
            .take_while(|x| x.is_ascii_alphanumeric() || **x == b'_')
            .count();
        let word = &b[i..end];
        self.out.toks.push(Tok::Word(i as u32, end as u32));
        // `.sh` is a property, not the step.
        let member = i > 0 && b[i - 1] == b'.';
        match (&self.step, step_dialect(word)) {
            (None, Some(d)) if !member => {
                self.step = Some(Step {
                    dialect: d,
                    paren: false,
                    label: None,
                });
            }
            // The script is an expression (`sh script: cmd`, `sh cmd`): not read.
            (Some(st), _) if st.label == Some(true) || self.last_ident.is_some() => self.step = None,
            (Some(_), _) => self.last_ident = Some(word),
            _ => {}
        }
        end
    }

    /// Any other byte of code at `i`: in a step's arguments, `(`, `name:` and `,` go on
    /// reading them; anything else ends the step.
    fn punct(&mut self, i: usize) -> usize {
        self.out.layout.code(i);
        self.out.toks.push(Tok::Punct(i as u32));
        if let Some(st) = &mut self.step {
            match self.b[i] {
                b'(' if !st.paren && self.last_ident.is_none() => st.paren = true,
                b':' if self.last_ident.is_some() => {
                    st.label = Some(self.last_ident == Some(b"script"));
                }
                b',' => st.label = None,
                _ => self.step = None,
            }
        }
        self.last_ident = None;
        i + 1
    }
}

/// Where a string whose content starts at `start` ends: its content's end, and the
/// offset after its closing quote (the end of the file when it is never closed; a
/// one-line string ends at its line's end). In an interpolating string, a `${…}` is
/// skipped whole (it may hold quotes and braces), counting braces without recursion.
fn string_end(b: &[u8], start: usize, q: u8, triple: bool) -> (usize, usize) {
    let mut i = start;
    let mut braces = 0usize;
    while i < b.len() {
        let c = b[i];
        if braces > 0 {
            match c {
                b'{' => braces += 1,
                b'}' => braces -= 1,
                b'\n' if !triple => return (i, i),
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            b'\\' => i += 2,
            b'$' if q == b'"' && b.get(i + 1) == Some(&b'{') => {
                braces = 1;
                i += 2;
            }
            b'\n' if !triple => return (i, i),
            _ if c == q && (!triple || (b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q))) => {
                return (i, i + if triple { 3 } else { 1 });
            }
            _ => i += 1,
        }
    }
    (b.len(), b.len())
}

/// A step's script as the shell receives it, mapped back to the file (a newline ends it);
/// the spans of its Groovy interpolations.
fn decode_script(text: &str, s: &GroovyString) -> (Code, Vec<Span>) {
    let (mut code, interps) = decode(text, s);
    if !code.text.ends_with('\n') {
        code.push_escape(s.end.min(text.len()), 0, "\n");
    }
    (code, interps)
}

/// Whether the shell takes a value put in its script by Groovy as the same text: nothing
/// it would split, expand or unquote.
fn shell_inert(v: &str) -> bool {
    v.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | ',' | '+' | '='))
}

/// What a step's script sees of the Groovy around it: its interpolations' values (known
/// when the file's variables make them so) and the environment `environment { }`,
/// `withEnv` and the build parameters give the shell.
struct GroovyOuter<'a> {
    text: &'a str,
    interps: &'a [Span],
    vals: Vec<GroovyVal>,
    model: &'a GroovyVars<'a>,
    at: At,
    /// The build parameters whose defaults the script's variables took.
    defaults: RefCell<Vec<String>>,
    /// Where the step runs ([`step_dir`]).
    dir: Result<Option<PathBuf>, String>,
}

impl Outer for GroovyOuter<'_> {
    fn lit(&self, text: &str, span: Span) -> Option<ScriptVal> {
        if !text.contains(INTERP_OPEN) && !text.contains(INTERP_CLOSE) {
            return None;
        }
        let from = self.interps.partition_point(|s| s.start < span.start);
        let to = from + self.interps[from..].partition_point(|s| s.end <= span.end);
        let v = substitute(
            text,
            &self.interps[from..to],
            &self.vals[from..to],
            self.text,
            shell_inert,
            false,
            span,
        );
        Some(v.v)
    }

    fn var(&self, name: &str, scope: VarScope) -> Option<ScriptVal> {
        if !matches!(scope, VarScope::Shell | VarScope::Env) {
            return None;
        }
        let v = self.model.env_var(name, &self.at)?;
        if let Some(p) = v.default_of {
            self.defaults.borrow_mut().push(p);
        }
        Some(v.v)
    }

    fn work_dir(&self) -> Option<PathBuf> {
        self.dir.clone().ok().flatten()
    }

    fn start_unknown(&self) -> Option<String> {
        self.dir.clone().err()
    }
}

/// The directory a step inside `dir('a') { dir('b') { … } }` runs in: the workspace — the
/// repository's root, the project's (a Jenkinsfile is in the repository it builds) —
/// joined with each. `Ok(None)`: in no `dir` block (a file the step names is looked for as
/// in a plain script). A shared library's step (a `.groovy` file) runs in the workspace
/// of the pipeline that calls it: not known.
fn step_dir(input: &Input<'_>, dirs: Result<Vec<String>, String>) -> Result<Option<PathBuf>, String> {
    let dirs = dirs?;
    if dirs.is_empty() {
        return Ok(None);
    }
    if input.file_name().ends_with(".groovy") {
        return Err(
            "a shared library's step runs in the workspace of the pipeline that calls it, which is not known"
                .into(),
        );
    }
    let here = input.path.parent().unwrap_or(Path::new(""));
    let mut dir = input.files.root_from(here).unwrap_or_else(|| here.to_path_buf());
    let mut depth = 0usize;
    for part in dirs.iter().flat_map(|d| d.split('/')) {
        match part {
            "" | "." => {}
            ".." if depth == 0 => {
                return Err(format!("`dir('{}')` leaves the workspace", dirs.join("/")));
            }
            ".." => {
                dir.pop();
                depth -= 1;
            }
            p => {
                dir.push(p);
                depth += 1;
            }
        }
    }
    Ok(Some(dir))
}

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_str();
    let scanned = scan(text);
    let mut model: Option<GroovyVars<'_>> = None;
    for &(dialect, idx) in &scanned.scripts {
        let s = &scanned.strings[idx];
        if memchr::memmem::find(&text.as_bytes()[s.start..s.end.min(text.len())], b"ml compute").is_none() {
            continue;
        }
        let model = &*model.get_or_insert_with(|| GroovyVars::build(text, &scanned.toks, &scanned.strings));
        let (code, interps) = decode_script(text, s);
        let options = LexOptions {
            keep: Some(wanted),
            ..LexOptions::new(dialect)
        };
        let script = parse(&code.text, Map::Code(&code, 0), options);
        let vars = Vars::scan(&script, dialect);
        let at = model.at_string(idx);
        let vals = interps
            .iter()
            .map(|sp| model.expr(interp_expr(text, *sp), &at))
            .collect();
        let dir = step_dir(input, model.dirs_at(&at));
        let outer = GroovyOuter {
            text,
            interps: &interps,
            vals,
            model,
            at,
            defaults: RefCell::default(),
            dir,
        };
        let cx = Ctx {
            input,
            eval: Eval {
                vars: &vars,
                outer: &outer,
            },
            note: None,
        };
        let mut defs = definitions(&script, &cx);
        for d in &mut defs {
            note_defaults(d, &interps, &outer);
        }
        out.computes.extend(defs);
        out.comments
            .extend(script.comments.iter().map(|c| comment_of(input.source, c)));
    }
    out.comments.extend(super::iac::comments(
        input.source,
        &scanned.layout.comments,
        &scanned.layout.code,
    ));
}

/// Notes a definition whose known values are build parameters' defaults (a build may be
/// given other values): through a Groovy interpolation at the value, or a shell variable.
fn note_defaults(d: &mut ComputeDef, interps: &[Span], outer: &GroovyOuter<'_>) {
    let mut params: Vec<String> = Vec::new();
    let settings = std::iter::once(&d.name).chain(d.fields.iter().map(|(_, s)| s));
    for s in settings.filter(|s| s.value.is_some()) {
        for (k, sp) in interps.iter().enumerate() {
            if sp.start >= s.span.start && sp.end <= s.span.end {
                params.extend(outer.vals[k].default_of.clone());
            }
        }
        for p in outer.defaults.borrow().iter() {
            if s.written.contains(&format!("${p}"))
                || s.written.contains(&format!("${{{p}}}"))
                || s.written.contains(&format!("$env:{p}"))
            {
                params.push(p.clone());
            }
        }
    }
    params.sort();
    params.dedup();
    for p in params {
        d.notes.push(format!(
            "`{p}` is the build parameter's default value: a build may be given another"
        ));
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::super::iac::position_for_test as at;
    use super::*;
    use crate::facts::computes::Scalar;

    fn run(display: &str, text: &str) -> Definitions {
        let dir = tempfile::tempdir().unwrap();
        super::super::iac::read_for_test(read, dir.path(), display, text)
    }

    #[test]
    fn steps_of_each_shell_with_groovy_strings() {
        let text = concat!(
            "pipeline {\n",                                                    // 1
            "  agent any\n",                                                   // 2
            "  stages { stage('compute') { steps {\n",                         // 3
            "    // amlint: ignore[AML704] lab network\n",                     // 4
            "    sh '''\n",                                                    // 5
            "      SIZE=Standard_NC6\n",                                       // 6
            "      az ml compute create --name jk-gpu --type amlcompute \\\n", // 7
            "        --size $SIZE --min-instances 0\n",                        // 8
            "    '''\n",                                                       // 9
            "    sh \"az ml compute create --name ${params.NAME} --size Standard_DS3_v2 --type amlcompute\"\n", // 10
            "    sh(returnStdout: true, script: \"az ml compute create -n \\\"jk-esc\\\" --type amlcompute \\\n", // 11
            "        --size Standard_DS3_v2\")\n", // 12
            "    bat 'az ml compute create --name jk-bat ^\\n  --type amlcompute'\n", // 13
            "    powershell \"\"\"\n",             // 14
            "      \\$n = 'jk-ps'\n",              // 15
            "      az ml compute create --name \\$n --type amlcompute\n", // 16
            "    \"\"\"\n",                        // 17
            "    echo 'az ml compute create --name not-a-step'\n", // 18
            "  } } }\n",                           // 19
            "}\n",                                 // 20
        );
        let out = run("Jenkinsfile", text);
        let names = names(&out);
        assert_eq!(
            names,
            [
                Some("jk-gpu"),
                None,
                Some("jk-esc"),
                Some("jk-bat"),
                Some("jk-ps")
            ],
            "{:?}",
            out.computes
        );
        let gpu = &out.computes[0];
        let size = gpu.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(at(text, size.span), (8, 16));
        assert_eq!(&text[size.origin.unwrap().range()], "Standard_NC6");
        // A Groovy interpolation is not known, and says so.
        let name = &out.computes[1].name;
        assert_eq!(&text[name.span.range()], "${params.NAME}");
        assert!(name.why.as_deref().unwrap().contains("Groovy"), "{name:?}");
        assert_eq!(at(text, out.computes[1].get("size").unwrap().span), (10, 59));
        // Escapes decoded, spans in the file: `\"jk-esc\"` and the continued line.
        let esc = &out.computes[2];
        assert_eq!(&text[esc.name.span.range()], "jk-esc");
        assert_eq!(at(text, esc.get("size").unwrap().span), (12, 16));
        assert_eq!(
            out.computes[3].get("type").unwrap().value,
            Some(Scalar::Str("amlcompute".into()))
        );
        assert_eq!(at(text, out.computes[3].get("type").unwrap().span), (13, 57));
        assert_eq!(at(text, out.computes[4].name.span), (16, 35));
        // The `//` comment alone on its line covers the step's line.
        let c: Vec<Option<u32>> = out.comments.iter().map(|c| c.target_line).collect();
        assert_eq!(c, [Some(5)]);
    }

    #[test]
    fn shared_library_step_with_parameters() {
        let text = "def call(String clusterName, String computeSize = 'STANDARD_D4S_V3') {\n  sh \"\"\"\n    az ml compute create --name ${clusterName} \\\n      --type amlcompute --size ${computeSize}\n  \"\"\"\n}\n";
        let out = run("createCompute.groovy", text);
        let [d] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert!(d.known_name().is_none());
        let size = d.get("size").unwrap();
        assert!(size.value.is_none());
        assert_eq!(&text[size.span.range()], "${computeSize}");
        assert_eq!(at(text, d.span), (3, 5));
        assert_eq!(
            d.get("type").unwrap().value,
            Some(Scalar::Str("amlcompute".into()))
        );
    }

    #[test]
    fn unterminated_strings_and_comments_end_the_file() {
        for text in [
            "sh '''az ml compute create --name x\n",
            "sh \"az ml compute create --name ${a\n",
            "/* sh 'az ml compute create --name x'\n",
            "sh \"\"\"az ml compute create --name ${ {{ \"\"\"\n",
            "sh",
            // The script is a variable: the string after it is another step's argument.
            "sh script: cmd\necho \"az ml compute create --name y\"\n",
            "sh cmd\necho 'az ml compute create --name y'\n",
        ] {
            let out = run("Jenkinsfile", text);
            assert!(out.computes.len() <= 1, "{text:?}");
            assert!(
                out.computes.iter().all(|d| d.known_name() != Some("y")),
                "{text:?}"
            );
        }
        assert!(is_jenkins("jenkinsfile") && is_jenkins("deploy.jenkinsfile") && is_jenkins("vars/x.groovy"));
        assert!(!is_jenkins(".groovy") && !is_jenkins("jenkinsfile.txt"));
    }

    /// The names of the definitions found, `None` for one not known.
    fn names(out: &Definitions) -> Vec<Option<&str>> {
        out.computes.iter().map(|d| d.known_name()).collect()
    }

    /// The values the definitions of `text` give `path` (`name` for the name), in order.
    fn values(text: &str, path: &str) -> Vec<Option<String>> {
        run("Jenkinsfile", text)
            .computes
            .iter()
            .map(|d| {
                if path == "name" {
                    Some(&d.name)
                } else {
                    d.get(path)
                }
                .and_then(|s| s.text())
            })
            .collect()
    }

    /// Groovy variables assigned a literal before the step: `def`, a type, the script's
    /// binding, a double-quoted literal whose interpolations are known; `${X}`, `$X`,
    /// `${env.X}` in a double-quoted script. The value's span is where the script uses it,
    /// its origin (a label) the literal.
    #[test]
    fn groovy_variables_assigned_literals_resolve() {
        let text = concat!(
            "def CLUSTER = 'cpu-cluster'\n",       // 1
            "def SIZE = \"Standard_NC6\"\n",       // 2
            "String TIER = 'low_priority'\n",      // 3
            "MAXN = 4\n",                          // 4
            "def BASE = 'gpu'\n",                  // 5
            "def GPU = \"${BASE}-cluster\"\n",     // 6
            "pipeline {\n",                        // 7
            "  environment { AREA = 'eastus' }\n", // 8
            "  stages { stage('c') { steps {\n",   // 9
            "    sh \"az ml compute create --name ${CLUSTER} --type amlcompute --size $SIZE --tier ${TIER} --max-instances ${MAXN} --location ${env.AREA}\"\n", // 10
            "    sh \"\"\"az ml compute create --name $GPU --type amlcompute \\\n", // 11
            "      --size=${SIZE} --location $env.AREA\"\"\"\n",                    // 12
            "  } } }\n",                                                            // 13
            "}\n",                                                                  // 14
        );
        let out = run("Jenkinsfile", text);
        let [a, b] = out.computes.as_slice() else {
            panic!("{:?}", out.computes)
        };
        assert_eq!(a.known_name(), Some("cpu-cluster"), "{:?}", a.name);
        assert_eq!(at(text, a.name.span), (10, 37));
        assert_eq!(&text[a.name.origin.unwrap().range()], "cpu-cluster");
        assert_eq!(at(text, a.name.origin.unwrap()), (1, 16));
        let size = a.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&text[size.span.range()], "$SIZE");
        assert_eq!(at(text, size.span), (10, 73));
        assert_eq!(at(text, size.origin.unwrap()), (2, 13));
        assert!(!size.in_place);
        assert_eq!(a.get("tier").unwrap().text().as_deref(), Some("low_priority"));
        assert_eq!(a.get("max_instances").unwrap().value, Some(Scalar::Int(4)));
        assert_eq!(at(text, a.get("max_instances").unwrap().origin.unwrap()), (4, 8));
        assert_eq!(a.get("location").unwrap().text().as_deref(), Some("eastus"));
        assert_eq!(b.known_name(), Some("gpu-cluster"));
        // Made of a literal and an interpolation: no one literal to point at.
        assert_eq!(b.name.origin, None);
        let size = b.get("size").unwrap();
        assert_eq!(size.text().as_deref(), Some("Standard_NC6"));
        assert_eq!(&text[size.span.range()], "${SIZE}");
        assert_eq!(at(text, size.span), (12, 14));
        assert_eq!(b.get("location").unwrap().text().as_deref(), Some("eastus"));
    }

    /// Method calls, `params.X` without a default, a ternary, a property of a variable, a
    /// variable never assigned: unknown, with why.
    #[test]
    fn groovy_expressions_stay_dynamic() {
        let text = concat!(
            "def A = sh(returnStdout: true, script: 'cat name').trim()\n",
            "def B = env.BRANCH == 'main' ? 'prod-cluster' : 'dev-cluster'\n",
            "def C = 'cpu-cluster'\n",
            "node {\n",
            "  sh \"az ml compute create --name ${A} --type amlcompute\"\n",
            "  sh \"az ml compute create --name ${B} --type amlcompute\"\n",
            "  sh \"az ml compute create --name ${params.NAME} --type amlcompute\"\n",
            "  sh \"az ml compute create --name ${C.toUpperCase()} --type amlcompute\"\n",
            "  sh \"az ml compute create --name $C.name --type amlcompute\"\n",
            "  sh \"az ml compute create --name ${UNSET} --type amlcompute\"\n",
            "  sh \"az ml compute create --name ${C + '-x'} --type amlcompute\"\n",
            "}\n",
        );
        let out = run("Jenkinsfile", text);
        assert_eq!(out.computes.len(), 7);
        for d in &out.computes {
            assert_eq!(d.known_name(), None, "{:?}", d.name);
            let why = d.name.why.as_deref().unwrap();
            assert!(why.contains("Groovy expression"), "{why}");
        }
        let why = |i: usize| out.computes[i].name.why.clone().unwrap();
        assert!(
            why(0).contains("`A` is assigned a Groovy expression"),
            "{}",
            why(0)
        );
        assert!(
            why(1).contains("`B` is assigned a Groovy expression"),
            "{}",
            why(1)
        );
        assert!(why(2).contains("no default"), "{}", why(2));
        assert!(why(5).contains("`UNSET` is not set in this file"), "{}", why(5));
    }

    /// A later assignment does not apply to an earlier step; assignments that may reach a
    /// step with different values (a branch, a closure, a loop) leave it unknown; the same
    /// value on every path is known.
    #[test]
    fn only_assignments_that_reach_the_step_count() {
        let step = "  sh \"az ml compute create --name ${X} --type amlcompute\"\n";
        let cases: &[(&str, Option<&str>)] = &[
            // Later, at the top level: not applied (nothing before it).
            (&format!("node {{\n{step}}}\nX = 'late'\n"), None),
            // Earlier value kept; a later one does not apply.
            (&format!("def X = 'a'\nnode {{\n{step}}}\nX = 'b'\n"), Some("a")),
            // Reassigned before the step: the last one.
            (&format!("def X = 'a'\nX = 'b'\nnode {{\n{step}}}\n"), Some("b")),
            // In a branch, with another value: unknown.
            (
                &format!("def X = 'a'\nif (env.C) {{ X = 'b' }}\nnode {{\n{step}}}\n"),
                None,
            ),
            (
                &format!("def X = 'a'\nif (env.C) X = 'b'\nnode {{\n{step}}}\n"),
                None,
            ),
            // In a branch, with the same value: known.
            (
                &format!("def X = 'a'\nif (env.C) {{ X = 'a' }}\nnode {{\n{step}}}\n"),
                Some("a"),
            ),
            // In a closure called who knows when, even after the step in the file.
            (
                &format!("def X = 'a'\nnode {{\n{step}}}\ndef f = {{ X = 'b' }}\n"),
                None,
            ),
            // In a method: it may be called before the step.
            (
                &format!("X = 'a'\nnode {{\n{step}}}\ndef setup() {{ X = 'b' }}\n"),
                None,
            ),
            // A method's own `def X` is another variable.
            (
                &format!("X = 'a'\nnode {{\n{step}}}\ndef setup() {{ def X = 'b' }}\n"),
                Some("a"),
            ),
            // In a loop around the step: a later assignment comes back to it.
            (
                &format!("def X = 'a'\nfor (i in [1, 2]) {{\n{step}  X = 'b'\n}}\n"),
                None,
            ),
            // Set in a sequential block before it (declarative `script { }`): known.
            (
                &format!(
                    "def X\npipeline {{ stages {{ stage('a') {{ steps {{\n  script {{ X = 'a' }}\n{step}}} }} }} }}\n"
                ),
                Some("a"),
            ),
            // In another stage run before it: known; under `when`: unknown.
            (
                &format!(
                    "def X\npipeline {{ stages {{\nstage('s') {{ steps {{ script {{ X = 'a' }} }} }}\nstage('u') {{ steps {{\n{step}}} }} }} }}\n"
                ),
                Some("a"),
            ),
            (
                &format!(
                    "def X\npipeline {{ stages {{\nstage('s') {{ when {{ branch 'main' }} steps {{ script {{ X = 'a' }} }} }}\nstage('u') {{ steps {{\n{step}}} }} }} }}\n"
                ),
                None,
            ),
            // A `parallel` branch runs beside the step.
            (
                &format!(
                    "def X = 'a'\npipeline {{ stages {{ stage('p') {{ parallel {{\nstage('s') {{ steps {{ script {{ X = 'b' }} }} }}\nstage('u') {{ steps {{\n{step}}} }} }} }} }} }}\n"
                ),
                None,
            ),
            // Declared without a value, then never set before the step.
            (&format!("def X\nnode {{\n{step}}}\n"), None),
            // Changed by an operator.
            (&format!("def X = 'a'\nX += '-b'\nnode {{\n{step}}}\n"), None),
        ];
        for (text, want) in cases {
            let got = values(text, "name");
            assert_eq!(got, vec![want.map(str::to_string)], "{text}");
        }
    }

    /// A shared library step's parameter is its caller's value, whatever a binding
    /// variable of the same name holds; a closure's parameter too.
    #[test]
    fn parameters_of_methods_and_closures_shadow() {
        let text = "clusterName = 'x'\ndef call(String clusterName) {\n  sh \"az ml compute create --name ${clusterName} --type amlcompute\"\n}\n['a'].each { clusterName ->\n  sh \"az ml compute create --name ${clusterName} --type amlcompute\"\n}\n";
        assert_eq!(values(text, "name"), [None, None]);
        let out = run("createCompute.groovy", text);
        assert!(
            out.computes[0].name.why.as_deref().unwrap().contains("parameter"),
            "{:?}",
            out.computes[0].name
        );
    }

    /// `environment { }` of the pipeline and of a stage (the stage's wins inside it, and
    /// stays there): `$X` in a single-quoted script, `env.X` and `X` in Groovy; a
    /// credential and an expression stay unknown.
    #[test]
    fn environment_blocks_are_the_shells_environment() {
        let text = concat!(
            "pipeline {\n",                                                                     // 1
            "  environment {\n",                                                                // 2
            "    CLUSTER = 'gpu-cluster'\n",                                                    // 3
            "    SIZE = \"Standard_NC6\"\n",                                                    // 4
            "    TOKEN = credentials('aml-sp')\n",                                              // 5
            "    STAMP = \"${currentBuild.number}\"\n",                                         // 6
            "  }\n",                                                                            // 7
            "  stages {\n",                                                                     // 8
            "    stage('one') {\n",                                                             // 9
            "      environment { CLUSTER = 'stage-cluster'\n",                                  // 10
            "        FULL = \"${CLUSTER}-x\" }\n",                                              // 11
            "      steps {\n",                                                                  // 12
            "        sh 'az ml compute create -n $CLUSTER --type amlcompute --size ${SIZE}'\n", // 13
            "        sh \"az ml compute create -n ${env.FULL} --type amlcompute\"\n",           // 14
            "      }\n",                                                                        // 15
            "    }\n",                                                                          // 16
            "    stage('two') { steps {\n",                                                     // 17
            "      sh 'az ml compute create -n $CLUSTER --type amlcompute --size $SIZE'\n",     // 18
            "      sh \"az ml compute create -n ${CLUSTER} --type amlcompute\"\n",              // 19
            "      sh 'az ml compute create -n $TOKEN --type amlcompute'\n",                    // 20
            "      sh 'az ml compute create -n $STAMP --type amlcompute'\n",                    // 21
            "      sh 'az ml compute create -n $FULL --type amlcompute'\n",                     // 22
            "    } }\n",                                                                        // 23
            "  }\n",                                                                            // 24
            "}\n",                                                                              // 25
        );
        let out = run("Jenkinsfile", text);
        let names = names(&out);
        assert_eq!(
            names,
            [
                Some("stage-cluster"),
                Some("stage-cluster-x"),
                Some("gpu-cluster"),
                Some("gpu-cluster"),
                None,
                None,
                None
            ]
        );
        let first = &out.computes[0];
        assert_eq!(&text[first.name.span.range()], "$CLUSTER");
        assert_eq!(at(text, first.name.span), (13, 37));
        assert_eq!(at(text, first.name.origin.unwrap()), (10, 32));
        let size = first.get("size").unwrap();
        assert_eq!(size.text().as_deref(), Some("Standard_NC6"));
        assert_eq!(at(text, size.origin.unwrap()), (4, 13));
        assert_eq!(at(text, out.computes[2].name.origin.unwrap()), (3, 16));
        let why = |i: usize| out.computes[i].name.why.clone().unwrap();
        assert!(why(4).contains("credential"), "{}", why(4));
        assert!(why(5).contains("Groovy"), "{}", why(5));
        // The first stage's `FULL` is not the second's.
        assert!(why(6).contains("environment"), "{}", why(6));
    }

    /// `withEnv([...])` sets the environment of its block; a list not known statically
    /// leaves every variable there unknown.
    #[test]
    fn with_env_lists() {
        let text = "def S = 'Standard_NC6'\nnode {\n  withEnv(['CLUSTER=we-cluster', \"SIZE=${S}\"]) {\n    sh 'az ml compute create -n $CLUSTER --type amlcompute --size $SIZE'\n  }\n  sh 'az ml compute create -n $CLUSTER --type amlcompute'\n  withEnv(computed()) {\n    sh 'az ml compute create -n $CLUSTER --type amlcompute'\n  }\n}\n";
        let out = run("Jenkinsfile", text);
        let names = names(&out);
        assert_eq!(names, [Some("we-cluster"), None, None]);
        let name = &out.computes[0].name;
        assert_eq!(&text[name.origin.unwrap().range()], "we-cluster");
        assert_eq!(
            out.computes[0].get("size").unwrap().text().as_deref(),
            Some("Standard_NC6")
        );
        assert!(out.computes[2].name.why.as_deref().unwrap().contains("withEnv"));
    }

    /// `parameters { }`: `params.X` (and `$X` in the shell, `env.X`) is the default, noted;
    /// a parameter without a default, or with an expression, is unknown.
    #[test]
    fn build_parameters_defaults() {
        let text = concat!(
            "pipeline {\n",
            "  parameters {\n",
            "    string(name: 'CLUSTER', defaultValue: 'cpu-cluster', description: 'the cluster')\n",
            "    choice(name: 'SIZE', choices: ['Standard_DS3_v2', 'Standard_NC6'])\n",
            "    string(name: 'EMPTY', description: 'none')\n",
            "    string(name: 'EXPR', defaultValue: \"${env.X}\")\n",
            "  }\n",
            "  stages { stage('a') { steps {\n",
            "    sh \"az ml compute create --name ${params.CLUSTER} --type amlcompute --size ${params.SIZE}\"\n",
            "    sh 'az ml compute create --name $CLUSTER --type amlcompute'\n",
            "    sh \"az ml compute create --name ${params.EMPTY} --type amlcompute\"\n",
            "    sh \"az ml compute create --name ${params.EXPR} --type amlcompute\"\n",
            "    sh \"az ml compute create --name ${params.OTHER} --type amlcompute\"\n",
            "  } } }\n",
            "}\n",
        );
        let out = run("Jenkinsfile", text);
        let names = names(&out);
        assert_eq!(
            names,
            [Some("cpu-cluster"), Some("cpu-cluster"), None, None, None]
        );
        let d = &out.computes[0];
        assert_eq!(d.get("size").unwrap().text().as_deref(), Some("Standard_DS3_v2"));
        assert_eq!(&text[d.name.origin.unwrap().range()], "cpu-cluster");
        assert!(
            d.notes
                .iter()
                .any(|n| n.contains("`CLUSTER` is the build parameter's default")),
            "{:?}",
            d.notes
        );
        assert!(d.notes.iter().any(|n| n.contains("`SIZE`")), "{:?}", d.notes);
        assert!(
            out.computes[1].notes.iter().any(|n| n.contains("`CLUSTER`")),
            "{:?}",
            out.computes[1].notes
        );
        assert!(
            out.computes[2]
                .name
                .why
                .as_deref()
                .unwrap()
                .contains("no default")
        );
        assert!(
            out.computes[3]
                .name
                .why
                .as_deref()
                .unwrap()
                .contains("interpolated")
        );
    }

    /// A value the shell would read again (spaces, `$`) is not taken for the text.
    #[test]
    fn values_the_shell_reads_again_are_unknown() {
        let text = "def N = 'a b'\ndef M = 'ok-name'\nsh \"az ml compute create --name ${N} --type amlcompute\"\nsh \"az ml compute create --name '${M}' --type amlcompute\"\n";
        assert_eq!(values(text, "name"), [None, Some("ok-name".to_string())]);
    }

    /// The step whose `--name` is `name` (`$X` in a single-quoted script, `${X}` in a
    /// double-quoted one), after `before` at the top level.
    fn named(before: &str, name: &str) -> String {
        format!("{before}node {{\n  sh \"az ml compute create --name {name} --type amlcompute\"\n}}\n")
    }

    fn name_why(text: &str) -> String {
        let out = run("Jenkinsfile", text);
        assert_eq!(out.computes.len(), 1, "{text}");
        out.computes[0].name.why.clone().unwrap_or_default()
    }

    /// `env['X'] = …` and `env["X"] = …` set `X` (a literal: its value, its span the
    /// origin); a key not known, `env.setProperty`, `env.putAll` make it unknown.
    #[test]
    fn writes_to_env_by_index_and_method() {
        let text = named("env.X = 'a'\nenv['X'] = 'idx-b'\n", "${env.X}");
        assert_eq!(values(&text, "name"), [Some("idx-b".to_string())]);
        let d = &run("Jenkinsfile", &text).computes[0];
        assert_eq!(&text[d.name.span.range()], "${env.X}");
        assert_eq!(at(&text, d.name.origin.unwrap()), (2, 13));
        let text = "env.X = 'a'\nenv[\"X\"] = 'dq-b'\nnode {\n  sh 'az ml compute create --name $X --type amlcompute'\n}\n";
        assert_eq!(values(text, "name"), [Some("dq-b".to_string())]);
        let d = &run("Jenkinsfile", text).computes[0];
        assert_eq!(&text[d.name.origin.unwrap().range()], "dq-b");
        for before in [
            "env.X = 'a'\nenv['X'] = sh(script: 'cat x', returnStdout: true)\n",
            "env.X = 'a'\nprops.each { k, v -> env[k] = v }\n",
            "env.X = 'a'\nenv[key] = 'b'\n",
            "env.X = 'a'\nenv.setProperty('X', v)\n",
            "env.X = 'a'\nenv.putAll(m)\n",
            "env.X = 'a'\nenv.\"X\" = v\n",
        ] {
            assert_eq!(values(&named(before, "${env.X}"), "name"), [None], "{before}");
        }
        assert!(name_why(&named("env.X = 'a'\nenv[key] = 'b'\n", "${env.X}")).contains("name not known"));
    }

    /// Writes to the script's binding (`binding.setVariable`, `binding.X =`,
    /// `this.binding.setVariable`, `setProperty`, `load`, `evaluate`) make a binding
    /// variable unknown; a local (`def`) variable is not the binding's.
    #[test]
    fn writes_to_the_binding() {
        for before in [
            "X = 'a'\nbinding.setVariable('X', v)\n",
            "X = 'a'\nbinding.X = f()\n",
            "X = 'a'\nthis.binding.setVariable('X', 'b')\n",
            "X = 'a'\nsetProperty('X', v)\n",
            "X = 'a'\nbinding.setVariable(name, v)\n",
            "X = 'a'\nthis.X = v\n",
            "X = 'a'\nload 'vars.groovy'\n",
            "X = 'a'\nevaluate(readFile('x.groovy'))\n",
        ] {
            assert_eq!(values(&named(before, "${X}"), "name"), [None], "{before}");
        }
        // The same value, or a local variable the binding does not hold: known.
        let text = named("binding.X = 'b-bound'\n", "${X}");
        assert_eq!(values(&text, "name"), [Some("b-bound".to_string())]);
        let d = &run("Jenkinsfile", &text).computes[0];
        assert_eq!(at(&text, d.name.origin.unwrap()), (1, 14));
        let text = named(
            "def X = 'local'\nbinding.setVariable('X', v)\nload 'x.groovy'\n",
            "${X}",
        );
        assert_eq!(values(&text, "name"), [Some("local".to_string())]);
        // `load` may set the environment too.
        let text = named("env.X = 'a'\nload 'env.groovy'\n", "$X").replace('"', "'");
        assert!(name_why(&text).contains("`load`"), "{}", name_why(&text));
    }

    /// `def (a, b) = [...]` and `(a, b) = [...]`: each name the element at its place (its
    /// literal the origin); another right side, or a shorter list, leaves it unknown.
    #[test]
    fn multiple_assignment() {
        let text = "def (N, S) = ['multi-c', 'Standard_DS3_v2']\nsh \"az ml compute create --name ${N} --type amlcompute --size ${S}\"\n";
        let out = run("Jenkinsfile", text);
        let d = &out.computes[0];
        assert_eq!(d.known_name(), Some("multi-c"));
        assert_eq!(at(text, d.name.origin.unwrap()), (1, 16));
        let size = d.get("size").unwrap();
        assert_eq!(size.text().as_deref(), Some("Standard_DS3_v2"));
        assert_eq!(&text[size.origin.unwrap().range()], "Standard_DS3_v2");
        let step = "sh \"az ml compute create --name ${N} --type amlcompute\"\n";
        for (before, want) in [
            ("def N = 'a'\n(N, S) = ['re-b', 'x']\n", Some("re-b")),
            ("def N = 'a'\n(N, S) = f()\n", None),
            ("def N = 'a'\ndef (String N, int S) = g()\n", None),
            ("def N = 'a'\n(S, N) = ['x']\n", None),
            ("def N = 'a'\n(N, S) = ['x', y]\n", None),
        ] {
            let text = format!("{before}{step}");
            assert_eq!(values(&text, "name"), [want.map(str::to_string)], "{before}");
        }
    }

    /// `def S = '…', N = '…'`: one statement declaring several variables defines each
    /// (each value's literal its origin); each is a declaration, local to its block.
    #[test]
    fn several_declarations_in_one_statement() {
        let text = "def S = 'Standard_DS3_v2', N = 'two-c'\nsh \"az ml compute create --name ${N} --type amlcompute --size ${S}\"\n";
        let out = run("Jenkinsfile", text);
        let d = &out.computes[0];
        assert_eq!(d.known_name(), Some("two-c"));
        assert_eq!(at(text, d.name.origin.unwrap()), (1, 33));
        let size = d.get("size").unwrap();
        assert_eq!(size.text().as_deref(), Some("Standard_DS3_v2"));
        assert_eq!(at(text, size.origin.unwrap()), (1, 10));
        for (before, want) in [
            ("String A = f(x), N = 'after-call'\n", Some("after-call")),
            ("@Field def A = 'x', N = 'field-n'\n", Some("field-n")),
            ("def N = 'a', M = 'b'\nN = 'c'\n", Some("c")),
            // A method's `def` declares a local of the method: the script's `N` stays.
            (
                "def N = 'outer'\nvoid f() {\n  def X = 'x', N = 'inner'\n}\n",
                Some("outer"),
            ),
            ("def N = g(), M = 'b'\n", None),
        ] {
            let text = named(before, "${N}");
            assert_eq!(values(&text, "name"), [want.map(str::to_string)], "{before}");
        }
    }

    /// `X += …`, `X <<= …`, `X++`, `--X`, `X = X + …`, an assignment in parentheses, a
    /// value going on on the next line (`.trim()`): unknown.
    #[test]
    fn operators_and_expressions_change_the_value() {
        for before in [
            "def X = 'a'\nX += '-b'\n",
            "def X = 'a'\nX <<= '-b'\n",
            "def X = 'a'\nX++\n",
            "def X = 'a'\n--X\n",
            "def X = 'a'\nX = X + '-b'\n",
            "def X = 'a'\nif ((X = f())) { echo 'x' }\n",
            "def X = 'a'\nfor (X = 'b'; c; ) { echo 'x' }\n",
            "def X = 'a'\n  .trim()\n",
            "def X = 'a'\n\n  ?.trim()\n",
        ] {
            let text = named(before, "${X}");
            assert_eq!(values(&text, "name"), [None], "{before}");
        }
        assert!(name_why(&named("def X = 'a'\nX++\n", "${X}")).contains("`++`"));
        // `env.X++` changes `env.X`, not the local `X`.
        let text = named("def X = 'a'\nenv.X = 'e'\nenv.X++\n", "${X}");
        assert_eq!(values(&text, "name"), [Some("a".to_string())]);
        let text = named("def X = 'a'\nenv.X = 'e'\nenv.X++\n", "${env.X}");
        assert_eq!(values(&text, "name"), [None]);
        // `i++` of a `for` and a comparison are not assignments of `X`.
        let text = named(
            "def X = 'a'\nfor (int i = 0; i < 2; i++) { echo X }\nif (X <= 'b' && X >= 'a') { }\n",
            "${X}",
        );
        assert_eq!(values(&text, "name"), [Some("a".to_string())]);
    }

    /// `withCredentials`: its variables are secrets in its block (the shell's `$X`, Groovy's
    /// `${X}` and `${env.X}`), not after it; a binding or list not known makes every
    /// variable there unknown; an Azure service principal sets only its own names.
    #[test]
    fn with_credentials_variables_are_secrets() {
        let text = concat!(
            "pipeline {\n",
            "  environment { X = 'env-x'\n U = 'env-u' }\n",
            "  stages { stage('a') { steps {\n",
            "    withCredentials([string(credentialsId: 'c', variable: 'X'), usernamePassword(credentialsId: \"${ID}\", usernameVariable: 'U', passwordVariable: 'P')]) {\n",
            "      sh 'az ml compute create --name $X --type amlcompute'\n",
            "      sh \"az ml compute create --name ${U} --type amlcompute\"\n",
            "      sh \"az ml compute create --name ${env.X} --type amlcompute\"\n",
            "    }\n",
            "    sh 'az ml compute create --name $X --type amlcompute'\n",
            "    withCredentials([azureServicePrincipal('sp')]) {\n",
            "      sh 'az ml compute create --name $U --type amlcompute'\n",
            "      sh 'az ml compute create --name $AZURE_CLIENT_ID --type amlcompute'\n",
            "    }\n",
            "    withCredentials(creds) {\n",
            "      sh 'az ml compute create --name $U --type amlcompute'\n",
            "    }\n",
            "    withCredentials([[$class: 'AmazonWebServicesCredentialsBinding', credentialsId: 'aws']]) {\n",
            "      sh 'az ml compute create --name $U --type amlcompute'\n",
            "    }\n",
            "  } } }\n",
            "}\n",
        );
        let out = run("Jenkinsfile", text);
        assert_eq!(
            names(&out),
            [None, None, None, Some("env-x"), Some("env-u"), None, None, None]
        );
        for i in [0, 1, 2, 5] {
            let why = out.computes[i].name.why.clone().unwrap();
            assert!(why.contains("credential"), "{i}: {why}");
        }
        assert_eq!(at(text, out.computes[3].name.origin.unwrap()), (2, 22));
        for i in [6, 7] {
            let why = out.computes[i].name.why.clone().unwrap();
            assert!(why.contains("not known statically"), "{i}: {why}");
        }
        // A Groovy variable of a credential's name is taken for the secret in its block.
        let text = "def X = 'g'\nwithCredentials([string(credentialsId: 'c', variable: 'X')]) {\n  sh \"az ml compute create --name ${X} --type amlcompute\"\n}\n";
        assert_eq!(values(text, "name"), [None]);
    }

    /// Values read from files (`readProperties`, `readYaml`, `load`), a credential in
    /// `environment`, an assignment in a declarative `script { }` block, `withEnv`.
    #[test]
    fn values_read_at_run_time_and_script_blocks() {
        for (before, name) in [
            ("def props = readProperties file: 'x.properties'\n", "${props.X}"),
            ("def props = readProperties(file: 'x')\n", "${props['X']}"),
            ("def cfg = readYaml file: 'c.yml'\n", "${cfg.cluster.name}"),
            ("def lib = load 'lib.groovy'\n", "${lib.X}"),
            (
                "def X = 'a'\ndef props = readProperties file: 'x'\nX = props.X\n",
                "${X}",
            ),
            ("def X = 'a'\nX = props['X']\n", "${X}"),
        ] {
            assert_eq!(values(&named(before, name), "name"), [None], "{before}");
        }
        let text = "pipeline {\n  environment { X = credentials('id') }\n  stages { stage('a') { steps {\n    sh \"az ml compute create --name ${X} --type amlcompute\"\n  } } }\n}\n";
        assert!(name_why(text).contains("credential"));
        // `script { }` in a stage: its assignments count, in order.
        let text = "def X = 'a'\npipeline { stages { stage('a') { steps {\n  script { X = 'in-script' }\n  sh \"az ml compute create --name ${X} --type amlcompute\"\n  script { if (c) { X = 'other' } }\n  sh \"az ml compute create --name ${X} --type amlcompute\"\n} } } }\n";
        assert_eq!(values(text, "name"), [Some("in-script".to_string()), None]);
        let text = "withEnv(['X=we']) {\n  env.X = 'b'\n  sh 'az ml compute create --name $X --type amlcompute'\n}\n";
        assert_eq!(values(text, "name"), [None]);
    }

    /// How many steps the Groovy model takes for the steps of `text`.
    fn work(text: &str) -> usize {
        let scanned = scan(text);
        let model = GroovyVars::build(text, &scanned.toks, &scanned.strings);
        for &(_, idx) in &scanned.scripts {
            let (_, interps) = decode_script(text, &scanned.strings[idx]);
            let at = model.at_string(idx);
            for sp in &interps {
                let _ = model.expr(interp_expr(text, *sp), &at);
            }
        }
        model.work()
    }

    /// The reader's work grows linearly with the file: a long statement of words and `=`
    /// or `(`, many assignments of one name, deep blocks, many steps, the forms above.
    #[test]
    fn work_grows_linearly() {
        let step = "sh \"az ml compute create --name ${X} --size ${S}\"\n";
        type Gen = Box<dyn Fn(usize) -> String>;
        let gens: [(&str, Gen); 6] = [
            (
                "statement",
                Box::new(move |n| {
                    format!(
                        "def {}X = {}\ndef {}f{}{}\n{step}",
                        "a ".repeat(n),
                        "X = ".repeat(n),
                        "a ".repeat(n),
                        "(".repeat(n),
                        ")".repeat(n)
                    )
                }),
            ),
            (
                "one name",
                Box::new(move |n| format!("{}{}", "def X = 'c'\n".repeat(n), step.repeat(n / 4))),
            ),
            (
                "deep",
                Box::new(move |n| {
                    format!(
                        "{}{}{}",
                        "stage('s') { steps { script { X = 'a'\n".repeat(n),
                        step.repeat(n / 4),
                        "} } }\n".repeat(n)
                    )
                }),
            ),
            (
                "steps",
                Box::new(move |n| {
                    format!(
                        "def X = 'a'\n{}{}{}",
                        "node { X = 'a'\n".repeat(63),
                        step.repeat(n),
                        "}\n".repeat(63)
                    )
                }),
            ),
            (
                "forms",
                Box::new(move |n| {
                    format!(
                        "env['X'] = 'a'\nbinding.setVariable('Y', v)\n(a, b) = ['x', 'y']\nX++\n{}",
                        format!(
                            "withCredentials([string(credentialsId: 'c', variable: 'T')]) {{\n{step}}}\n"
                        )
                        .repeat(n)
                    )
                }),
            ),
            (
                "index",
                Box::new(move |n| format!("{}X = 'a'\n{step}", "x[".repeat(n) + &"]".repeat(n) + " = 1\n")),
            ),
        ];
        for (what, g) in &gens {
            let (small, big) = (work(&g(200)), work(&g(800)));
            assert!(big <= 5 * small, "{what}: {small} steps at 200, {big} at 800");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Groovy made of the words the reader looks for, in any order and nesting, never
        /// makes it panic.
        #[test]
        fn no_panic_on_any_groovy(pieces in proptest::collection::vec(proptest::sample::select(GROOVY), 0..120)) {
            let text: String = pieces.concat();
            let _ = run("Jenkinsfile", &text);
        }
    }

    const GROOVY: &[&str] = &[
        "sh \"az ml compute create --name ",
        "sh 'az ml compute create -n $X ",
        "sh '''",
        "sh \"\"\"",
        "def ",
        "String ",
        "X",
        "Y",
        " = ",
        "=",
        "==",
        "+=",
        "'a'",
        "\"b${X}\"",
        "\"",
        "'",
        "4",
        "-",
        "${",
        "${env.X}",
        "$X",
        "${params.X}",
        "$env.",
        "params.",
        "env.",
        "}",
        "{",
        "(",
        ")",
        "[",
        "]",
        ",",
        ":",
        "->",
        ";",
        "\n",
        " ",
        "\\",
        "environment {",
        "parameters {",
        "string(name: 'X', defaultValue: 'v')",
        "choice(name: 'X', choices: [",
        "withEnv(['X=v']) {",
        "stage('s') {",
        "steps {",
        "script {",
        "when {",
        "parallel {",
        "if (c) ",
        "else ",
        "for (i in l) {",
        "def f(a, b = 'x') {",
        "@Field ",
        "credentials('c')",
        "// c\n",
        "/* c */",
        "é",
        "日本",
        "\u{e000}",
        "\u{e001}",
        "🙂",
    ];
}
