//! Bicep: every `resource x 'Microsoft.MachineLearningServices/workspaces/computes@…' =
//! …` (a body `{…}`, `if (…) {…}`, or `[for … in …: {…}]`, and a child `resource x
//! 'computes@…'` in a workspace's body) is a definition; `existing` ones are not.
//!
//! No maintained Rust parser of Bicep exists, so this is a small one of the declaration
//! and object syntax: a lexer (strings with escapes and `${…}` interpolation, `'''`
//! strings, `//` and `/* */` comments, numbers, identifiers, operators, newlines), a
//! bracket matcher, and statements and object fields split at newlines and commas outside
//! brackets — all iterative and linear. Expressions are evaluated on demand over token
//! ranges, nesting bounded by [`MAX_DEPTH`]: literals, `param` (the default, or the value
//! of a `.bicepparam` file beside it whose `using` names this file, or of the
//! `main.parameters.json` an azd project passes), `var`, interpolation,
//! `toLower`, `format`, `concat` and the other functions of [`iac::arm_function`], object
//! members and indexes, `??`, `?:`, `==`/`!=`/`&&`/`||`/`!`, integer arithmetic, and a
//! resource's `.name`. A name `'${ws}/${name}'` is its last segment. An AKS compute's
//! `resourceId: aksCluster.id` gives it that cluster's agent pool's size and count;
//! [`deployed`] reads the template as a deployment command passes it its values.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::common::{Definitions, Files, Input, Reader, block_comment_end, line_end};
use super::iac::{self, BodyField, BodyNode, Ev, Leaf, Part, V};
use crate::facts::computes::{ComputeDef, Setting, SourceKind};
use crate::source::Span;

pub const READER: Reader = Reader {
    name: "bicep",
    // `.bicepparam` files define nothing (no resource) but are walked, so that a partial
    // run finds the file beside one that names a compute.
    wants: |name| name.ends_with(".bicep") || name.ends_with(".bicepparam"),
    // `module`: a module call, whose file may define a compute; `using`: a `.bicepparam`
    // file's template, deployed with its values.
    needles: &["computes@", "Computes@", "module", "using"],
    defines: &["computes@", "Computes@"],
    read,
};

const COMPUTES: &str = "microsoft.machinelearningservices/workspaces/computes";
const WORKSPACES: &str = "microsoft.machinelearningservices/workspaces";
const MANAGED_CLUSTERS: &str = "Microsoft.ContainerService/managedClusters";
/// Tokens a file may have (each costs about 60 bytes; a larger file is not read).
const MAX_TOKENS: usize = 250_000;
/// How deep evaluation goes (nested expressions, parameters naming others).
const MAX_DEPTH: usize = 24;

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = &input.source.text;
    let Some(lx) = lex(text) else {
        out.unread = Some(format!(
            "it has more than {MAX_TOKENS} tokens, the most the Bicep reader parses"
        ));
        return;
    };
    let code: Vec<u32> = lx
        .toks
        .iter()
        .filter(|t| t.k != K::Newline)
        .map(|t| t.span.start)
        .collect();
    out.comments
        .extend(iac::comments(input.source, &lx.comments, &code));
    let dir = input.path.parent().unwrap_or(std::path::Path::new(""));
    let mut walk = Walk {
        files: input.files,
        chain: vec![crate::fsio::normalize(input.path)],
        budget: iac::MAX_MODULE_CALLS,
        skipped: false,
    };
    if input.file_name().ends_with(".bicepparam") {
        out.computes
            .extend(walk.using(&lx, text, &input.source.path, dir, input.path));
    } else {
        let mut given = bicepparam_values(input);
        if given.is_empty() {
            given = azd_values(input);
        }
        out.computes
            .extend(walk.file(&lx, text, &input.source.path, dir, (given.clone(), given)));
    }
    if walk.skipped {
        out.unread = Some(iac::module_calls_skipped());
        out.unread_defines = true;
    }
}

/// The local Bicep file a module call or a `using` names (`'../main.bicep'`, relative to
/// `dir`), made normal; `None` for a registry's (`br:`), a template spec's (`ts:`), an
/// absolute path, or anything but a `.bicep` file.
fn local_bicep(dir: &Path, written: &str) -> Option<PathBuf> {
    let local = !(written.contains(':') || written.starts_with('/'));
    (local && written.to_ascii_lowercase().ends_with(".bicep"))
        .then(|| crate::fsio::normalize(&dir.join(written)))
}

/// The module calls being followed from one file: the files from its own down (a cycle is
/// not followed again), and how many calls may still be.
struct Walk<'f> {
    files: &'f Files,
    chain: Vec<PathBuf>,
    budget: usize,
    /// A call was not followed: the budget was spent ([`iac::MAX_MODULE_CALLS`]).
    skipped: bool,
}

impl Walk<'_> {
    /// The definitions of one Bicep file (lexed `lx`, in `dir`) whose parameters are
    /// `given` (a `.bicepparam` file's values, or a module call's): its compute resources,
    /// and those of the local modules it calls, as each call makes them.
    fn file(
        &mut self,
        lx: &Lexed,
        text: &str,
        display: &str,
        dir: &Path,
        (given, given_strict): (HashMap<String, Ev>, HashMap<String, Ev>),
    ) -> Vec<ComputeDef> {
        let mut b = Bicep::new(text, lx);
        b.load = Some((self.files, dir.to_path_buf(), display.to_string()));
        b.given = given;
        b.given_strict = given_strict;
        b.entry = self.chain.len() == 1;
        let mut found = Vec::new();
        // (statement range, parent type when it is a child resource)
        let mut stack: Vec<(usize, usize, Option<String>)> = statements(lx, 0, lx.toks.len())
            .into_iter()
            .rev()
            .map(|(a, z)| (a, z, None))
            .collect();
        while let Some((a, z, parent)) = stack.pop() {
            if parent.is_none() {
                if let Some(call) = b.declaration(a, z, "module") {
                    found.extend(self.call(&b, &call, display, dir));
                    continue;
                }
            }
            let Some(decl) = b.resource(a, z) else {
                continue;
            };
            let full = match &parent {
                Some(p) if !decl.rtype.contains('/') => format!("{p}/{}", decl.rtype),
                _ => decl.rtype.clone(),
            };
            let lower = full.to_ascii_lowercase();
            if lower == COMPUTES && !decl.existing {
                found.extend(b.definitions(&decl, display));
            }
            // Child resources declared in the body.
            if let Some((o, c)) = decl.body {
                let parent =
                    Some(full.clone()).filter(|_| lower == WORKSPACES || lower.starts_with(WORKSPACES));
                for (fa, fz) in fields(lx, o + 1, c).into_iter().rev() {
                    if lx.toks[fa].is_ident("resource") {
                        stack.push((fa, fz, parent.clone()));
                    }
                }
            }
        }
        found.sort_by_key(|d| d.span.start);
        found
    }

    /// The definitions of a `.bicepparam` file kept away from its template
    /// (`params/prod.bicepparam` with `using '../main.bicep'`, `path` being the file's
    /// own): the template's computes as deployed with the file's `param` values, made
    /// here as a module call makes them — each value at its `param` line, the template's
    /// other values inherited. One beside its template is not: the template's reader takes
    /// its values ([`bicepparam_values`]).
    fn using(&mut self, lx: &Lexed, text: &str, display: &str, dir: &Path, path: &Path) -> Vec<ComputeDef> {
        let b = Bicep::new(text, lx);
        let t = &lx.toks;
        let env = Env::new();
        let mut using = None;
        let mut args = Vec::new();
        let mut given_strict = HashMap::new();
        for (a, z) in statements(lx, 0, t.len()) {
            if t[a].is_ident("using") && a + 1 < z && t[a + 1].k == K::Str {
                using = Some((a, z));
            } else if t[a].is_ident("param") && a + 3 < z && t[a + 1].k == K::Ident && t[a + 2].is("=") {
                let name = t[a + 1].text.clone();
                given_strict.insert(name.clone(), iac::strip_origins(b.eval_strict(a + 3, z, &env)));
                args.push((name, b.leaf(a + 3, z, &env), Some(t[a + 1].span)));
            }
        }
        let Some((ua, uz)) = using else {
            return Vec::new();
        };
        let written = t[ua + 1].text.as_str();
        let Some(target) = local_bicep(dir, written) else {
            return Vec::new();
        };
        let own_dir = crate::fsio::normalize(path.parent().unwrap_or(Path::new("")));
        if target.parent() == Some(own_dir.as_path()) || self.chain.contains(&target) {
            return Vec::new();
        }
        let Some((shown, src, inner)) = self.open(&target, written, display) else {
            return Vec::new();
        };
        let given = args
            .iter()
            .map(|(k, l, _): &(String, Leaf, Option<Span>)| (k.clone(), iac::strip_origins(l.val.clone())))
            .collect();
        let label = format!("`{}`", display.rsplit(['/', '\\']).next().unwrap_or(display));
        let call = iac::ModuleCall {
            display,
            whole: b.span(ua, uz),
            label: &label,
            path: written,
            source: inner_span(&t[ua + 1]),
            source_key: None,
            args: &args,
            prefix: "",
            note: None,
            verb: "deploys the template",
            text: None,
        };
        self.chain.push(target.clone());
        let inner_dir = target.parent().unwrap_or(Path::new(""));
        let out = self
            .file(&inner, &src.text, &shown, inner_dir, (given, given_strict))
            .into_iter()
            .map(|def| {
                let at = format!("{}:{}", def.file, super::common::line_of(&src, def.span.start));
                call.definition(def, &at)
            })
            .collect();
        self.chain.pop();
        out
    }

    /// The local Bicep file at `target`, written `written` in the file shown as `display`:
    /// how it is shown, its text and its tokens — if it can be read and may define a
    /// compute (a module it calls included).
    fn open(
        &self,
        target: &Path,
        written: &str,
        display: &str,
    ) -> Option<(String, std::sync::Arc<crate::source::SourceFile>, Lexed)> {
        let shown = crate::discover::display_of(&crate::fsio::normalize(
            &Path::new(iac::split_dir(display).0).join(written),
        ));
        let src = self.files.read(target, &shown)?;
        if !super::common::mentions(src.text.as_bytes(), READER.needles) {
            return None;
        }
        let inner = lex(&src.text)?;
        Some((shown, src, inner))
    }

    /// The definitions a `module` statement makes: those of the local Bicep file it names
    /// (a relative path inside the project; not a registry's `br:` or a template spec's
    /// `ts:`), once per item of a `for` over a known list, with the `params` the call
    /// passes. A file already being followed (a cycle), or one deeper than
    /// [`iac::MAX_MODULE_DEPTH`], is not followed.
    fn call(&mut self, b: &Bicep<'_>, d: &ResDecl, display: &str, dir: &Path) -> Vec<ComputeDef> {
        let path = d.rtype.as_str();
        let Some((o, c)) = d.body else {
            return Vec::new();
        };
        let Some(target) = local_bicep(dir, path) else {
            return Vec::new();
        };
        if self.chain.len() > iac::MAX_MODULE_DEPTH || self.chain.contains(&target) {
            return Vec::new();
        }
        let Some((shown, src, inner)) = self.open(&target, path, display) else {
            return Vec::new();
        };
        let t = &b.lx.toks;
        let a = d.at;
        let label = format!("module {}", t.get(a + 1).map_or("", |x| x.text.as_str()));
        let source = t.get(a + 2).map(inner_span).unwrap_or(d.span);
        let mut out = Vec::new();
        self.chain.push(target.clone());
        for (env, instance) in b.instances(d) {
            // A call never made as written is still followed (what it would deploy is
            // checked), with the note.
            let false_condition = b.false_condition(d, &env);
            let instance = match (instance, false_condition.map(|(_, note)| note)) {
                (Some(i), Some(s)) => Some(format!("{i}; {s}")),
                (i, s) => i.or(s.map(str::to_string)),
            };
            if self.budget == 0 {
                self.skipped = true;
                break;
            }
            self.budget -= 1;
            let mut args = Vec::new();
            let mut given_strict = HashMap::new();
            let params = fields(b.lx, o + 1, c)
                .into_iter()
                .find(|&(fa, fz)| t[fa].is_ident("params") && fa + 2 < fz && t[fa + 1].is(":"));
            if let Some((pa, pz)) = params {
                let (pa, pz) = trim(b.lx, pa + 2, pz);
                if pa < pz && t[pa].is("{") && b.lx.close[pa] == pz - 1 {
                    for (fa, fz) in fields(b.lx, pa + 1, pz - 1) {
                        if fa + 1 >= fz || !t[fa + 1].is(":") || !matches!(t[fa].k, K::Ident | K::Str) {
                            continue;
                        }
                        let leaf = b.leaf(fa + 2, fz, &env);
                        let strict = iac::strip_origins(b.eval_strict(fa + 2, fz, &env));
                        given_strict.insert(t[fa].text.clone(), strict);
                        args.push((t[fa].text.clone(), leaf, Some(t[fa].span)));
                    }
                }
            }
            // The places of the values passed come along, marked as the caller's (not
            // from a file too long for the mark).
            let raise = iac::raisable(b.text.len());
            let given = args
                .iter()
                .map(|(k, l, _)| {
                    let v = l.val.clone();
                    let v = if raise {
                        iac::raise_origins(v)
                    } else {
                        iac::strip_origins(v)
                    };
                    (k.clone(), v)
                })
                .collect();
            let call = iac::ModuleCall {
                display,
                whole: d.span,
                label: &label,
                path,
                source,
                source_key: None,
                args: &args,
                prefix: "",
                note: instance,
                verb: "calls the module",
                text: Some(b.text),
            };
            let inner_dir = target.parent().unwrap_or(Path::new(""));
            for def in self.file(&inner, &src.text, &shown, inner_dir, (given, given_strict)) {
                let at = format!("{}:{}", def.file, super::common::line_of(&src, def.span.start));
                // The module's condition made false by what the call passes (`enableGpu:
                // false` for `if (enableGpu)`): labelled at that argument, in the calling
                // file (audit 27, case 08). One false whatever the call passes stays in
                // the module, noted only.
                let passed_false = def.false_condition.and_then(|(span, note)| {
                    let written = src.text.get(span.range())?;
                    let named = |k: &str| {
                        written
                            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .any(|w| w == k)
                    };
                    let (_, leaf, key) = args.iter().find(|(k, ..)| named(k))?;
                    let start = key.map_or(leaf.span.start, |k| k.start);
                    let never = [iac::NEVER_DEPLOYED, iac::ARGUMENT_NEVER_DEPLOYED];
                    let note = if never.contains(&note) {
                        iac::ARGUMENT_NEVER_DEPLOYED
                    } else {
                        iac::ARGUMENT_FALSE_BY_DEFAULT
                    };
                    Some((Span::new(start, leaf.span.end.max(start)), note))
                });
                let mut def = call.definition(def, &at);
                // An absence decided by the loop's item (`c.properties` of `for c in
                // computes`): decided by the list, for this file's caller.
                if let Some(l) = &d.each {
                    let listed = b.written(l.list.0, l.list.1);
                    for (_, written) in &mut def.written_null {
                        let read = iac::inputs_read(written, "");
                        if read
                            .iter()
                            .any(|n| *n == l.item || Some(*n) == l.index.as_deref())
                        {
                            *written = iac::one_line(&listed);
                        }
                    }
                }
                // The call's own false condition, in the calling file, else the argument
                // that makes the module's false.
                def.false_condition = false_condition.or(passed_false);
                out.push(def);
            }
        }
        self.chain.pop();
        out
    }
}

// ---------------------------------------------------------------------------------------
// Lexer

#[derive(Clone, Copy, Debug, PartialEq)]
enum K {
    Ident,
    /// A whole string (no interpolation).
    Str,
    /// `'text${`, `}text${`, `}text'`: the pieces of an interpolated string.
    StrHead,
    StrMid,
    StrTail,
    Num,
    P(&'static str),
    Newline,
    /// Something the lexer does not know (an unclosed string, a stray character).
    Bad,
}

#[derive(Clone, Debug)]
struct Tok {
    k: K,
    span: Span,
    /// An identifier's or number's text, a string piece unescaped.
    text: String,
    /// A string's text is exactly its value (no escape): it may be replaced in place.
    plain: bool,
    /// A whole string's quote width (`'` 1, `'''` 3).
    quote: u32,
}

impl Tok {
    fn is_ident(&self, s: &str) -> bool {
        self.k == K::Ident && self.text == s
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.k, K::P(q) if q == p)
    }

    fn opens(&self) -> bool {
        matches!(self.k, K::P("(") | K::P("[") | K::P("{") | K::StrHead)
    }
}

struct Lexed {
    toks: Vec<Tok>,
    /// For a token that opens a group (`(`, `[`, `{`, an interpolated string's head), the
    /// index of the token that closes it; for others, their own index.
    close: Vec<usize>,
    /// Each comment's span, and whether it stands alone on its line.
    comments: Vec<(Span, bool)>,
}

const PUNCT: &[&str] = &[
    "...", "==", "!=", "<=", ">=", "&&", "||", "??", "=>", ".?", "=~", "!~", "::", "(", ")", "[", "]", "{",
    "}", ":", ",", ".", "?", "=", "!", "@", "<", ">", "+", "-", "*", "/", "%", "|", ";", "&", "^", "~",
];

/// The tokens of a Bicep text; `None` beyond [`MAX_TOKENS`].
fn lex(text: &str) -> Option<Lexed> {
    let mut lexer = Lexer {
        text,
        toks: Vec::new(),
        comments: Vec::new(),
        interp: Vec::new(),
        line_has_code: false,
    };
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while i < text.len() {
        if lexer.toks.len() > MAX_TOKENS {
            return None;
        }
        i = lexer.token(i);
    }
    if lexer.toks.len() > MAX_TOKENS {
        return None;
    }
    let close = match_brackets(&lexer.toks);
    Some(Lexed {
        toks: lexer.toks,
        close,
        comments: lexer.comments,
    })
}

/// The lexer's state: the tokens and comments so far, and the groups open where it is.
struct Lexer<'t> {
    text: &'t str,
    toks: Vec<Tok>,
    comments: Vec<(Span, bool)>,
    /// For each open interpolation, the `{` depth inside it.
    interp: Vec<u32>,
    /// The line has a token before the lexer's position.
    line_has_code: bool,
}

impl Lexer<'_> {
    fn push(&mut self, k: K, s: usize, e: usize, text: String, plain: bool) {
        self.toks.push(Tok {
            k,
            span: Span::new(s as u32, e as u32),
            text,
            plain,
            quote: if k == K::Str { 3 } else { 0 },
        })
    }

    /// Lexes what starts at `i` (a token, a comment, blanks); returns where lexing goes on.
    fn token(&mut self, i: usize) -> usize {
        let b = self.text.as_bytes();
        let c = b[i];
        match c {
            b'\n' => {
                self.push(K::Newline, i, i + 1, String::new(), false);
                self.line_has_code = false;
                i + 1
            }
            b' ' | b'\t' | b'\r' => i + 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = line_end(b, i);
                self.comments
                    .push((Span::new(i as u32, end as u32), !self.line_has_code));
                end
            }
            b'/' if b.get(i + 1) == Some(&b'*') => self.block_comment(i),
            b'\'' if b[i..].starts_with(b"'''") => self.verbatim_string(i),
            b'\'' => {
                self.line_has_code = true;
                string_piece(self.text, i, true, &mut self.toks, &mut self.interp)
            }
            b'}' if self.interp.last() == Some(&0) => {
                self.interp.pop();
                string_piece(self.text, i, false, &mut self.toks, &mut self.interp)
            }
            _ if c.is_ascii_digit() => self.run(i, K::Num, true, |c| c.is_ascii_digit()),
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                self.run(i, K::Ident, false, |c| c.is_ascii_alphanumeric() || c == b'_')
            }
            _ => {
                self.line_has_code = true;
                self.punct(i)
            }
        }
    }

    /// A `/* … */` comment at `i`: its newlines still end the statement.
    fn block_comment(&mut self, i: usize) -> usize {
        let b = self.text.as_bytes();
        let end = block_comment_end(b, i);
        self.comments
            .push((Span::new(i as u32, end as u32), !self.line_has_code));
        for j in memchr::memchr_iter(b'\n', &b[i..end]) {
            self.push(K::Newline, i + j, i + j + 1, String::new(), false);
        }
        end
    }

    /// A `'''…'''` string at `i` (no escapes, no interpolation).
    fn verbatim_string(&mut self, i: usize) -> usize {
        let b = self.text.as_bytes();
        let end = memchr::memmem::find(&b[i + 3..], b"'''").map_or(b.len(), |j| i + 3 + j);
        let body = self.text[i + 3..end].to_string();
        let close = (end + 3).min(b.len());
        self.push(K::Str, i, close, body, true);
        self.line_has_code = true;
        close
    }

    /// A number or an identifier at `i`: the bytes from `i` that `more` accepts.
    fn run(&mut self, i: usize, k: K, plain: bool, more: fn(u8) -> bool) -> usize {
        let b = self.text.as_bytes();
        let end = i + b[i..].iter().take_while(|c| more(**c)).count();
        self.push(k, i, end, self.text[i..end].to_string(), plain);
        self.line_has_code = true;
        end
    }

    /// An operator or a bracket at `i` (a brace counted in the open interpolation), else
    /// one character the lexer does not know.
    fn punct(&mut self, i: usize) -> usize {
        let b = self.text.as_bytes();
        match PUNCT.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            Some(p) => {
                if *p == "{" {
                    if let Some(d) = self.interp.last_mut() {
                        *d += 1;
                    }
                } else if *p == "}" {
                    if let Some(d) = self.interp.last_mut() {
                        *d = d.saturating_sub(1);
                    }
                }
                self.push(K::P(p), i, i + p.len(), String::new(), false);
                i + p.len()
            }
            None => {
                let len = self.text[i..].chars().next().map_or(1, char::len_utf8);
                self.push(K::Bad, i, i + len, String::new(), false);
                i + len
            }
        }
    }
}

/// Lexes a string piece starting at `i` (a `'` when `head`, else the `}` closing an
/// interpolation) up to its closing `'` or the next `${`; pushes its token, returns where
/// lexing goes on.
fn string_piece(text: &str, i: usize, head: bool, toks: &mut Vec<Tok>, interp: &mut Vec<u32>) -> usize {
    let b = text.as_bytes();
    let mut j = i + 1;
    let mut value = String::new();
    let mut plain = true;
    let mut run = j;
    let piece = |k: K, end: usize, value: String, plain: bool| Tok {
        k,
        span: Span::new(i as u32, end as u32),
        text: value,
        plain,
        quote: 1,
    };
    while j < b.len() {
        match b[j] {
            b'\'' => {
                value.push_str(&text[run..j]);
                toks.push(piece(if head { K::Str } else { K::StrTail }, j + 1, value, plain));
                return j + 1;
            }
            b'$' if b.get(j + 1) == Some(&b'{') => {
                value.push_str(&text[run..j]);
                toks.push(piece(
                    if head { K::StrHead } else { K::StrMid },
                    j + 2,
                    value,
                    plain,
                ));
                interp.push(0);
                return j + 2;
            }
            b'\\' => {
                value.push_str(&text[run..j]);
                plain = false;
                let (ch, len) = match b.get(j + 1) {
                    Some(b'n') => ('\n', 2),
                    Some(b'r') => ('\r', 2),
                    Some(b't') => ('\t', 2),
                    Some(b'\\') => ('\\', 2),
                    Some(b'\'') => ('\'', 2),
                    Some(b'$') => ('$', 2),
                    Some(b'u') if b.get(j + 2) == Some(&b'{') => {
                        let end = text[j + 3..].find('}').map(|e| j + 3 + e);
                        match end.and_then(|e| u32::from_str_radix(&text[j + 3..e], 16).ok().map(|n| (n, e)))
                        {
                            Some((n, e)) => (char::from_u32(n).unwrap_or('\u{fffd}'), e + 1 - j),
                            None => ('\u{fffd}', 2),
                        }
                    }
                    _ => ('\u{fffd}', 1),
                };
                value.push(ch);
                j += len;
                run = j;
            }
            b'\n' => break,
            _ => j += 1,
        }
    }
    // Unclosed: the rest of the line is not read.
    toks.push(Tok {
        k: K::Bad,
        span: Span::new(i as u32, j as u32),
        text: String::new(),
        plain: false,
        quote: 0,
    });
    j
}

/// Each group opener's closer (an unclosed group closes at the end).
fn match_brackets(toks: &[Tok]) -> Vec<usize> {
    let mut close: Vec<usize> = (0..toks.len()).collect();
    let mut stack: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let closer = match t.k {
            K::P(")") => Some(K::P("(")),
            K::P("]") => Some(K::P("[")),
            K::P("}") => Some(K::P("{")),
            K::StrMid => {
                // Closes the interpolation of the string's head (or previous middle), and
                // goes on as the string's group.
                if let Some(pos) = stack.iter().rposition(|&o| toks[o].k == K::StrHead) {
                    for o in stack.drain(pos + 1..) {
                        close[o] = i;
                    }
                }
                None
            }
            K::StrTail => Some(K::StrHead),
            _ => None,
        };
        if let Some(open) = closer {
            if let Some(pos) = stack.iter().rposition(|&o| toks[o].k == open) {
                for o in stack.drain(pos..) {
                    close[o] = i;
                }
            }
        } else if t.opens() {
            stack.push(i);
        }
    }
    let end = toks.len().saturating_sub(1);
    for o in stack {
        close[o] = end;
    }
    close
}

/// The statements of `toks[a..z]` (split at newlines outside groups): their ranges.
fn statements(lx: &Lexed, a: usize, z: usize) -> Vec<(usize, usize)> {
    split(lx, a, z, |t| t.k == K::Newline)
}

/// The fields of an object's inside `toks[a..z]` (split at newlines and commas).
fn fields(lx: &Lexed, a: usize, z: usize) -> Vec<(usize, usize)> {
    split(lx, a, z, |t| t.k == K::Newline || t.is(","))
}

fn split(lx: &Lexed, a: usize, z: usize, sep: impl Fn(&Tok) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = a;
    let mut start = a;
    while i < z {
        let t = &lx.toks[i];
        if sep(t) {
            if start < i {
                out.push((start, i));
            }
            start = i + 1;
            i += 1;
        } else if t.opens() {
            i = lx.close[i].max(i) + 1;
        } else {
            i += 1;
        }
    }
    if start < z.min(lx.toks.len()) {
        out.push((start, z.min(lx.toks.len())));
    }
    out
}

// ---------------------------------------------------------------------------------------
// Declarations and evaluation

/// A `resource` statement.
struct ResDecl {
    /// The statement's first token.
    at: usize,
    span: Span,
    rtype: String,
    existing: bool,
    /// The body object's braces.
    body: Option<(usize, usize)>,
    /// `if (cond)`: the condition's range.
    condition: Option<(usize, usize)>,
    /// `[for x in list: …]`: the loop variable(s) and the list's range.
    each: Option<Loop>,
}

struct Loop {
    item: String,
    index: Option<String>,
    list: (usize, usize),
}

type Env = Vec<(String, Ev)>;

struct Bicep<'a> {
    text: &'a str,
    lx: &'a Lexed,
    /// `param` name → the default's range (if any).
    params: HashMap<String, Option<(usize, usize)>>,
    /// `param` name → its declared type when it is a name (`bool`, `int`, `string`...).
    types: HashMap<String, String>,
    vars: HashMap<String, (usize, usize)>,
    /// Resource symbol → its `name` value's range.
    resources: HashMap<String, (usize, usize)>,
    /// Resource symbol → its statement's range.
    declared: HashMap<String, (usize, usize)>,
    /// `import { x as y } from 'config.bicep'`: `y` → (`x`, the file as written); a
    /// namespace (`import * as ns from ...`) is `*`.
    imports: HashMap<String, (String, String)>,
    /// Values of a `.bicepparam` file, or those a module call passes.
    given: HashMap<String, Ev>,
    /// What `given` is when no parameter of the file the run reads takes its default
    /// ([`Bicep::strict`]).
    given_strict: HashMap<String, Ev>,
    /// The file is the one the run reads (not a module followed from it): its parameters
    /// not given are the deployment's to set.
    entry: bool,
    /// Evaluating as if the deployment set every parameter of the file the run reads that
    /// a `.bicepparam` file does not: their defaults are not known. What is known then
    /// holds whatever the deployment sets (a condition that is `false` for certain).
    strict: std::cell::Cell<bool>,
    memo: RefCell<HashMap<String, Ev>>,
    memo_strict: RefCell<HashMap<String, Ev>>,
    busy: RefCell<Vec<String>>,
    /// The project's files and this file's folder and displayed path, for the files
    /// `loadJsonContent()` and its kin load (`None`: not read).
    load: Option<(&'a Files, PathBuf, String)>,
}

impl<'a> Bicep<'a> {
    fn new(text: &'a str, lx: &'a Lexed) -> Self {
        let mut b = Bicep {
            text,
            lx,
            params: HashMap::new(),
            types: HashMap::new(),
            vars: HashMap::new(),
            resources: HashMap::new(),
            declared: HashMap::new(),
            imports: HashMap::new(),
            given: HashMap::new(),
            given_strict: HashMap::new(),
            entry: true,
            strict: Default::default(),
            memo: Default::default(),
            memo_strict: Default::default(),
            busy: Default::default(),
            load: None,
        };
        for (a, z) in statements(lx, 0, lx.toks.len()) {
            let a = skip_decorators(lx, a, z);
            let t = &lx.toks;
            if t[a].is_ident("import") {
                b.import(a, z);
                continue;
            }
            if a + 1 >= z || t[a + 1].k != K::Ident {
                continue;
            }
            let name = t[a + 1].text.clone();
            let eq = (a + 2..z).find(|&i| t[i].is("="));
            if t[a].is_ident("param") {
                if a + 2 < z && t[a + 2].k == K::Ident {
                    b.types.insert(name.clone(), t[a + 2].text.clone());
                }
                b.params.insert(name, eq.map(|e| (e + 1, z)));
            } else if t[a].is_ident("var") {
                if let Some(e) = eq {
                    b.vars.insert(name, (e + 1, z));
                }
            } else if t[a].is_ident("resource") {
                b.declared.insert(name.clone(), (a, z));
                if let Some(d) = b.resource(a, z) {
                    if let Some((o, c)) = d.body {
                        for (fa, fz) in fields(lx, o + 1, c) {
                            if t[fa].is_ident("name") && fa + 1 < fz && t[fa + 1].is(":") {
                                b.resources.insert(name.clone(), (fa + 2, fz));
                            }
                        }
                    }
                }
            }
        }
        b
    }

    /// An `import { a, b as c } from 'file.bicep'` (or `import * as ns from ...`)
    /// statement at `toks[a..z]`: its names, in [`Bicep::imports`].
    fn import(&mut self, a: usize, z: usize) {
        let t = &self.lx.toks;
        let Some(from) = (a + 1..z).find(|&i| t[i].is_ident("from")) else {
            return;
        };
        let Some(file) = t.get(from + 1).filter(|x| x.k == K::Str) else {
            return;
        };
        let file = file.text.clone();
        if t.get(a + 1).is_some_and(|x| x.is("*")) {
            if let Some(ns) = t
                .get(a + 3)
                .filter(|x| x.k == K::Ident && t[a + 2].is_ident("as"))
            {
                self.imports.insert(ns.text.clone(), ("*".into(), file));
            }
            return;
        }
        if !t.get(a + 1).is_some_and(|x| x.is("{")) {
            return;
        }
        let close = self.lx.close[a + 1].min(from);
        for (fa, fz) in fields(self.lx, a + 2, close) {
            let names: Vec<&Tok> = t[fa..fz].iter().filter(|x| x.k == K::Ident).collect();
            match names.as_slice() {
                [one] => self
                    .imports
                    .insert(one.text.clone(), (one.text.clone(), file.clone())),
                [orig, kw, alias] if kw.text == "as" => self
                    .imports
                    .insert(alias.text.clone(), (orig.text.clone(), file.clone())),
                _ => None,
            };
        }
    }

    /// The value of `name`, imported as `orig` from the Bicep file `path` (audit 32, case
    /// 11): that file's variable (Bicep copies an `@export()` one in when it compiles),
    /// read through the project's files, its literals' places dropped (they are in the
    /// other file) and noted; or why it is not known.
    #[inline(never)]
    fn imported(&self, name: &str, orig: &str, path: &str, depth: usize) -> Ev {
        let unread = |why: &str| Ev::unknown(format!("`{name}` is imported from `{path}`, {why}"));
        if orig == "*" {
            return unread("as a namespace, which amlint does not read");
        }
        if depth > MAX_DEPTH {
            return Ev::unknown("the expression is nested too deeply");
        }
        let Some((files, dir, display)) = &self.load else {
            return unread("which amlint does not read here");
        };
        let Some(target) = local_bicep(dir, path) else {
            return unread("which is not a local Bicep file amlint reads");
        };
        let shown =
            crate::discover::display_of(&crate::fsio::normalize(Path::new(&iac::beside(display, path))));
        let Some(src) = files.read(&target, &shown) else {
            return unread(
                "which amlint cannot read: it is missing, outside the project, or over the size limit",
            );
        };
        let Some(lx) = lex(&src.text) else {
            return unread(&format!("which has more than {MAX_TOKENS} tokens"));
        };
        let mut other = Bicep::new(&src.text, &lx);
        other.load = Some((
            files,
            target.parent().unwrap_or(Path::new("")).to_path_buf(),
            shown.clone(),
        ));
        if !other.vars.contains_key(orig) {
            return unread(&format!("which declares no variable `{orig}`"));
        }
        match other.lookup(orig, depth + 1) {
            Some(v) => iac::strip_origins(v).with_note(Some(format!("`{name}` is imported from {shown}"))),
            None => unread(&format!("which declares no variable `{orig}`")),
        }
    }

    fn written(&self, a: usize, z: usize) -> String {
        self.text
            .get(self.span(a, z).range())
            .unwrap_or_default()
            .to_string()
    }

    fn span(&self, a: usize, z: usize) -> Span {
        let t = &self.lx.toks;
        if a >= z || z > t.len() {
            return t.get(a).map_or(Span::default(), |t| t.span);
        }
        Span::new(t[a].span.start, t[z - 1].span.end)
    }

    /// A `resource` statement at `toks[a..z]`, if it is one.
    fn resource(&self, a: usize, z: usize) -> Option<ResDecl> {
        self.declaration(a, z, "resource")
    }

    /// A `resource` or `module` (`keyword`) statement at `toks[a..z]`, if it is one; a
    /// module's `rtype` is its path.
    fn declaration(&self, a: usize, z: usize, keyword: &str) -> Option<ResDecl> {
        let t = &self.lx.toks;
        let a = skip_decorators(self.lx, a, z);
        if !t.get(a)?.is_ident(keyword)
            || a + 2 >= z
            || t[a + 2].k != K::Str
            || (keyword == "module" && !t[a + 2].plain)
        {
            return None;
        }
        let rtype = match keyword {
            "resource" => t[a + 2].text.split('@').next().unwrap_or("").to_string(),
            _ => t[a + 2].text.clone(),
        };
        let mut i = a + 3;
        let existing = t.get(i).is_some_and(|x| x.is_ident("existing"));
        if existing {
            i += 1;
        }
        if !t.get(i)?.is("=") {
            return None;
        }
        i = self.code_at(i + 1);
        let mut d = ResDecl {
            at: a,
            span: self.span(a, z),
            rtype,
            existing,
            body: None,
            condition: None,
            each: None,
        };
        // `[for x in list: …]` / `[for (x, i) in list: …]`
        // (The formatter writes `[` and `for` on lines of their own: audit 30, case 06.)
        if t.get(i)?.is("[") && t.get(self.code_at(i + 1)).is_some_and(|x| x.is_ident("for")) {
            let end = self.lx.close[i];
            let mut j = self.code_at(i + 1) + 1;
            let (item, index) = if t.get(j)?.is("(") {
                let c = self.lx.close[j];
                let names: Vec<String> = (j + 1..c)
                    .filter(|&k| t[k].k == K::Ident)
                    .map(|k| t[k].text.clone())
                    .collect();
                j = c + 1;
                (names.first()?.clone(), names.get(1).cloned())
            } else {
                j += 1;
                (t[j - 1].text.clone(), None)
            };
            if !t.get(j)?.is_ident("in") {
                return None;
            }
            let colon = top_level(self.lx, j + 1, end, |x| x.is(":"))?;
            d.each = Some(Loop {
                item,
                index,
                list: (j + 1, colon),
            });
            i = self.code_at(colon + 1);
        }
        // `if (cond) {…}`
        if t.get(i)?.is_ident("if") && t.get(i + 1)?.is("(") {
            let c = self.lx.close[i + 1];
            d.condition = Some((i + 2, c));
            i = self.code_at(c + 1);
        }
        if t.get(i)?.is("{") {
            d.body = Some((i, self.lx.close[i]));
        }
        Some(d)
    }

    /// The first token from `i` on that is not a line break (`toks.len()` if none).
    fn code_at(&self, mut i: usize) -> usize {
        let t = &self.lx.toks;
        while i < t.len() && t[i].k == K::Newline {
            i += 1;
        }
        i
    }

    /// The instances of a declaration: one, or one per item of a `for` over a known list
    /// (each with what its loop variables are, and a note that says which it is).
    fn instances(&self, d: &ResDecl) -> Vec<(Env, Option<String>)> {
        let mut envs: Vec<(Env, Option<String>)> = vec![(Vec::new(), None)];
        if let Some(l) = &d.each {
            let list = self.eval(l.list.0, l.list.1, &Vec::new(), 0);
            let listed = self.written(l.list.0, l.list.1);
            envs = match &list.v {
                V::List(items) => items
                    .iter()
                    .enumerate()
                    .map(|(n, item)| {
                        let mut env = vec![(l.item.clone(), item.clone())];
                        if let Some(ix) = &l.index {
                            env.push((ix.clone(), Ev::int(n as i64)));
                        }
                        (env, Some(format!("for `{}` = item {n} of `{listed}`", l.item)))
                    })
                    .collect(),
                _ => {
                    let why = format!(
                        "`{}` is an item of `{listed}`, {}",
                        l.item,
                        list.why().map_or("which is not a list".into(), |w| format!(
                            "which is not known: {w}"
                        ))
                    );
                    let mut env = vec![(l.item.clone(), Ev::unknown(why.clone()))];
                    if let Some(ix) = &l.index {
                        env.push((ix.clone(), Ev::unknown(format!("`{ix}` is the loop's index"))));
                    }
                    vec![(env, Some(format!("in a loop over `{listed}` (not expanded)")))]
                }
            };
        }
        envs
    }

    /// The definitions a compute resource makes: one, or one per item of a loop over a
    /// known list.
    fn definitions(&self, d: &ResDecl, display: &str) -> Vec<ComputeDef> {
        let Some((o, c)) = d.body else {
            return Vec::new();
        };
        let mut notes = Vec::new();
        if let Some((a, z)) = d.condition {
            notes.push(format!("deployed if `{}`", self.written(a, z)));
        }
        let envs = self.instances(d);
        let mut out = Vec::new();
        for (env, loop_note) in envs {
            let mut notes = notes.clone();
            let false_condition = self.false_condition(d, &env);
            notes.extend(false_condition.map(|(_, note)| note.to_string()));
            notes.extend(loop_note);
            let tree = self.node(o, c + 1, &env, 0, &mut notes);
            let name = match tree.field("name") {
                Some(BodyField {
                    key,
                    value: BodyNode::Leaf(leaf),
                    ..
                }) => iac::name_setting(leaf, Some(*key)),
                _ => Setting::dynamic("", "the resource has no `name`", d.span, None),
            };
            let mut def = ComputeDef::new(
                SourceKind::Bicep,
                display,
                d.span,
                format!("resource '{}'", d.rtype),
                name,
            );
            def.name_input = self.input_without_value(&def.name);
            def.false_condition = false_condition;
            iac::arm_compute_fields(&tree, &mut def);
            notes.dedup();
            def.notes = notes;
            iac::attached_cluster(&tree, &mut def, |leaf| self.cluster(&leaf.written));
            out.push(def);
        }
        out
    }

    /// The AKS cluster of this file an attached compute's `resourceId: aksCluster.id` names
    /// (audit 32, case 07): how it is said, and its body; or why it is not known.
    fn cluster(&self, written: &str) -> Result<(String, BodyNode), String> {
        let symbol = (written.trim().strip_suffix(".id"))
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        let Some(symbol) = symbol else {
            return Err(format!(
                "`resourceId: {}` is not the `.id` of a cluster this file declares",
                iac::one_line(written)
            ));
        };
        let decl = (self.declared.get(symbol)).and_then(|&(a, z)| self.resource(a, z));
        let Some(d) = decl else {
            return Err(format!("`{symbol}` is not a resource this file declares"));
        };
        let label = format!("the AKS cluster `{symbol}`");
        if !d.rtype.eq_ignore_ascii_case(MANAGED_CLUSTERS) {
            return Err(format!(
                "`{symbol}` is a `{}`, not an AKS cluster (`{MANAGED_CLUSTERS}`)",
                d.rtype
            ));
        }
        if d.existing {
            return Err(format!(
                "{label} is an `existing` one, deployed elsewhere: its agent pools are not in this file"
            ));
        }
        match (d.body, &d.each) {
            (Some((o, c)), None) => Ok((label, self.node(o, c + 1, &Vec::new(), 0, &mut Vec::new()))),
            (_, Some(_)) => Err(format!("{label} is declared in a loop")),
            (None, None) => Err(format!("{label} has no body amlint reads")),
        }
    }

    /// `toks[a..z]` as a body [`BodyNode`]: an object in place as a map, anything else a leaf.
    fn node(&self, a: usize, z: usize, env: &Env, depth: usize, notes: &mut Vec<String>) -> BodyNode {
        let (a, z) = trim(self.lx, a, z);
        let t = &self.lx.toks;
        if a < z && t[a].is("{") && self.lx.close[a] == z - 1 && depth < 6 {
            let mut out = Vec::new();
            for (fa, fz) in fields(self.lx, a + 1, z - 1) {
                // `...base`: the object's members are those of `base` (and later fields').
                if t[fa].is("...") && fa + 1 < fz {
                    let leaf = self.leaf(fa + 1, fz, env);
                    out.push(BodyField {
                        name: iac::SPREAD.into(),
                        key: leaf.span,
                        value: BodyNode::Leaf(leaf),
                    });
                    continue;
                }
                if fa + 1 >= fz || !t[fa + 1].is(":") || !matches!(t[fa].k, K::Ident | K::Str) {
                    continue;
                }
                let key = if t[fa].k == K::Str {
                    inner_span(&t[fa])
                } else {
                    t[fa].span
                };
                out.push(BodyField {
                    name: t[fa].text.clone(),
                    key,
                    value: self.node(fa + 2, fz, env, depth + 1, notes),
                });
            }
            return BodyNode::Map(out);
        }
        let leaf = self.leaf(a, z, env);
        if let Some(n) = &leaf.val.note {
            notes.push(n.clone());
        }
        BodyNode::Leaf(leaf)
    }

    /// The expression `toks[a..z]` as written, with its value.
    fn leaf(&self, a: usize, z: usize, env: &Env) -> Leaf {
        let (a, z) = trim(self.lx, a, z);
        let t = &self.lx.toks;
        let val = self.eval(a, z, env, 0);
        let span = self.span(a, z);
        let literal = (z == a + 1).then(|| &t[a]).and_then(|tok| match tok.k {
            K::Str if tok.plain => Some(inner_span(tok)),
            K::Num => Some(tok.span),
            K::Ident if tok.text == "true" || tok.text == "false" => Some(tok.span),
            _ => None,
        });
        // A string is shown and pointed at without its quotes.
        let whole_string =
            (z == a + 1 && t[a].k == K::Str) || (t[a].k == K::StrHead && self.lx.close[a] == z - 1);
        let (span, written) = if whole_string {
            let q = t[a].quote.max(1);
            let inner = Span::new(span.start + q, span.end.saturating_sub(q).max(span.start + q));
            (
                inner,
                self.text.get(inner.range()).unwrap_or_default().to_string(),
            )
        } else {
            (span, self.written(a, z))
        };
        Leaf {
            span,
            written,
            val,
            literal,
        }
    }

    /// The parameter a name not known is, when it is written exactly as one that nothing
    /// gives a value (no default, no `.bicepparam`, no call), or is the last segment of
    /// one written `'${workspace}/${name}'`.
    fn input_without_value(&self, name: &Setting) -> Option<String> {
        let w = name.written.trim();
        // A string's text is written without its quotes (`ws/${clusterName}`).
        let inner = (w.strip_prefix('\''))
            .and_then(|r| r.strip_suffix('\''))
            .unwrap_or(w);
        let x = (inner.rsplit('/').next().unwrap_or(inner))
            .strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .unwrap_or(w)
            .trim();
        let bare = matches!(self.params.get(x), Some(None));
        (name.value.is_none() && bare && !self.given.contains_key(x)).then(|| x.to_string())
    }

    /// A parameter or variable's value (memoised; a cycle is unknown).
    fn lookup(&self, name: &str, depth: usize) -> Option<Ev> {
        let strict = self.strict.get();
        let (memo, given) = if strict {
            (&self.memo_strict, &self.given_strict)
        } else {
            (&self.memo, &self.given)
        };
        if let Some(v) = memo.borrow().get(name) {
            return Some(v.clone());
        }
        let v = if let Some(default) = self.params.get(name) {
            if let Some(v) = given.get(name) {
                iac::as_declared(v, self.types.get(name).map(String::as_str))
            } else if strict && self.entry {
                Ev::unknown(format!("the parameter `{name}` is what the deployment sets"))
            } else {
                match default {
                    Some((a, z)) => self.guarded(name, *a, *z, depth)?,
                    None => Ev::unknown(format!(
                        "the parameter `{name}` has no default (the deployment or the module's caller sets it)"
                    )),
                }
            }
        } else if let Some((a, z)) = self.vars.get(name) {
            self.guarded(name, *a, *z, depth)?
        } else {
            return None;
        };
        memo.borrow_mut().insert(name.to_string(), v.clone());
        Some(v)
    }

    /// The value of `toks[a..z]` as [`Bicep::eval`] gives it with [`Bicep::strict`] set.
    fn eval_strict(&self, a: usize, z: usize, env: &Env) -> Ev {
        self.strict.set(true);
        let v = self.eval(a, z, env, 0);
        self.strict.set(false);
        v
    }

    /// Statement `d`'s `if (cond)` (in the loop instance `env`) when it is `false`: where
    /// the condition is written, and its note ([`iac::condition_note`],
    /// [`ComputeDef::false_condition`]).
    fn false_condition(&self, d: &ResDecl, env: &Env) -> Option<(Span, &'static str)> {
        let (a, z) = d.condition?;
        let note = iac::condition_note(&self.eval(a, z, env, 0), || self.eval_strict(a, z, env))?;
        Some((self.span(a, z), note))
    }

    fn guarded(&self, name: &str, a: usize, z: usize, depth: usize) -> Option<Ev> {
        if self.busy.borrow().iter().any(|b| b == name) {
            return Some(Ev::unknown(format!("`{name}` is defined through itself")));
        }
        self.busy.borrow_mut().push(name.to_string());
        let v = self.eval(a, z, &Vec::new(), depth + 1);
        self.busy.borrow_mut().retain(|b| b != name);
        Some(v)
    }

    /// The value of the expression `toks[a..z]`. (Each construct is a function of its own:
    /// the recursion's frames stay small on the test build's 256 KiB stacks.)
    fn eval(&self, a: usize, z: usize, env: &Env, depth: usize) -> Ev {
        let (a, z) = trim(self.lx, a, z);
        if depth > MAX_DEPTH {
            return Ev::unknown("the expression is nested too deeply");
        }
        if a >= z {
            return Ev::unknown("an expression is missing");
        }
        // Lowest precedence first: `?:`, then the binary operators, unary, postfix.
        if let Some(q) = top_level(self.lx, a, z, |x| x.is("?")) {
            return self.ternary(a, q, z, env, depth);
        }
        if let Some(v) = self.binary_ops(a, z, env, depth) {
            return v;
        }
        let t = &self.lx.toks[a];
        if t.is("!") || t.is("-") {
            return self.unary(a, z, env, depth);
        }
        self.postfix(a, z, env, depth)
    }

    fn ternary(&self, a: usize, q: usize, z: usize, env: &Env, depth: usize) -> Ev {
        let Some(colon) = ternary_colon(self.lx, q + 1, z) else {
            return self.unread(a, z);
        };
        let cond = self.eval(a, q, env, depth + 1);
        match cond.v {
            V::Bool(true) => self.eval(q + 1, colon, env, depth + 1),
            V::Bool(false) => self.eval(colon + 1, z, env, depth + 1),
            _ => self.depends(a, q, z, &cond),
        }
    }

    #[inline(never)]
    fn depends(&self, a: usize, q: usize, z: usize, cond: &Ev) -> Ev {
        Ev::unknown(format!(
            "`{}` depends on `{}`{}",
            self.written(a, z),
            self.written(a, q),
            cond.why().map(|w| format!(", and {w}")).unwrap_or_default()
        ))
    }

    #[inline(never)]
    fn unread(&self, a: usize, z: usize) -> Ev {
        Ev::unknown(format!(
            "`{}` is not an expression amlint reads",
            self.written(a, z)
        ))
    }

    /// `??`, `||`, `&&`, `==`/`!=`, comparisons, `+`/`-`, `*`/`/`/`%` (the first class
    /// present splits the range; operands left to right).
    fn binary_ops(&self, a: usize, z: usize, env: &Env, depth: usize) -> Option<Ev> {
        const CLASSES: [&[&str]; 7] = [
            &["??"],
            &["||"],
            &["&&"],
            &["==", "!=", "=~", "!~"],
            &["<", ">", "<=", ">="],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        for ops in CLASSES {
            let at = operators(self.lx, a, z, ops);
            if at.is_empty() {
                continue;
            }
            // The chain's text once, and an unknown said once: a flat chain of thousands of
            // operands costs time linear in it (audit 23, case 02).
            let written = self.written(a, z);
            let mut acc = self.eval(a, at[0], env, depth + 1);
            let mut said = false;
            for (n, &op) in at.iter().enumerate() {
                let end = at.get(n + 1).copied().unwrap_or(z);
                let rhs = self.eval(op + 1, end, env, depth + 1);
                acc = binary(&self.lx.toks[op], acc, rhs, &written, said);
                said = acc.why().is_some();
            }
            return Some(acc);
        }
        None
    }

    fn unary(&self, a: usize, z: usize, env: &Env, depth: usize) -> Ev {
        let not = self.lx.toks[a].is("!");
        match (not, self.eval(a + 1, z, env, depth + 1).v) {
            (true, V::Bool(b)) => Ev::boolean(!b),
            (false, V::Int(i)) => Ev::int(i.saturating_neg()),
            _ => self.not_known(a, z),
        }
    }

    #[inline(never)]
    fn not_known(&self, a: usize, z: usize) -> Ev {
        Ev::unknown(format!("`{}` is not known statically", self.written(a, z)))
    }

    /// A primary, then member, index and non-null suffixes.
    fn postfix(&self, a: usize, z: usize, env: &Env, depth: usize) -> Ev {
        let t = &self.lx.toks;
        let (mut v, mut i) = self.primary(a, z, env, depth);
        while i < z {
            if (t[i].is(".") || t[i].is(".?")) && i + 1 < z && t[i + 1].k == K::Ident {
                v = match v.member(&t[i + 1].text, false) {
                    Some(m) => m.clone(),
                    None if v.why().is_some() => v,
                    None if t[i].is(".?") => Ev::new(V::Null),
                    None => self.not_known(a, i + 2),
                };
                i += 2;
            } else if t[i].is("[") {
                let c = self.lx.close[i];
                let index = self.eval(i + 1, c, env, depth + 1);
                v = iac::index_of(&v, &index, false);
                i = c + 1;
            } else if t[i].is("!") {
                // The non-null assertion.
                i += 1;
            } else {
                return self.unread(a, z);
            }
        }
        v
    }

    /// The first primary of `toks[a..z]` and the index after it.
    fn primary(&self, a: usize, z: usize, env: &Env, depth: usize) -> (Ev, usize) {
        let t = &self.lx.toks;
        let tok = &t[a];
        match tok.k {
            K::Str => {
                let origin = tok.plain.then(|| inner_span(tok));
                (Ev::text(tok.text.clone()).with_origin(origin), a + 1)
            }
            K::StrHead => (self.interpolated(a, env, depth), self.lx.close[a] + 1),
            K::Num => match tok.text.parse::<i64>() {
                Ok(n) => (Ev::int(n).with_origin(Some(tok.span)), a + 1),
                Err(_) => (Ev::unknown("the number is too large"), a + 1),
            },
            K::P("(") => {
                let c = self.lx.close[a];
                (self.eval(a + 1, c, env, depth + 1), c + 1)
            }
            K::P("{") => (self.object(a, env, depth), self.lx.close[a] + 1),
            K::P("[") => (self.array(a, env, depth), self.lx.close[a] + 1),
            K::Ident => self.ident(a, z, env, depth),
            _ => (self.unread(a, z), z),
        }
    }

    /// An interpolated string `'…${x}…'` from its head token.
    fn interpolated(&self, a: usize, env: &Env, depth: usize) -> Ev {
        let t = &self.lx.toks;
        let end = self.lx.close[a];
        let mut pieces = vec![Part::Text(t[a].text.clone())];
        let mut values = Vec::new();
        let mut i = a + 1;
        let mut start = i;
        while i <= end && i < t.len() {
            if matches!(t[i].k, K::StrMid | K::StrTail) {
                // An interpolation ends here.
                let v = self.eval(start, i, env, depth + 1);
                pieces.extend(v.pieces());
                values.push(v);
                pieces.push(Part::Text(t[i].text.clone()));
                if t[i].k == K::StrTail {
                    break;
                }
                i += 1;
                start = i;
            } else if t[i].opens() {
                i = self.lx.close[i].max(i) + 1;
            } else {
                i += 1;
            }
        }
        iac::carry(iac::join(pieces), &values)
    }

    fn object(&self, a: usize, env: &Env, depth: usize) -> Ev {
        let t = &self.lx.toks;
        let c = self.lx.close[a];
        let mut entries = Vec::new();
        for (fa, fz) in fields(self.lx, a + 1, c).into_iter().take(iac::MAX_ITEMS) {
            if t[fa].is("...") && fa + 1 < fz {
                // A spread: its members, in place (a later key wins, as `member` reads).
                let spread = self.eval(fa + 1, fz, env, depth + 1);
                match spread.v {
                    V::Map(members) => entries.extend(members),
                    _ => {
                        return Ev::unknown(
                            spread
                                .why()
                                .unwrap_or_else(|| "`...` of a value that is not an object".into()),
                        );
                    }
                }
            } else if fa + 1 < fz && t[fa + 1].is(":") && matches!(t[fa].k, K::Ident | K::Str) {
                entries.push((t[fa].text.clone(), self.eval(fa + 2, fz, env, depth + 1)));
            }
        }
        entries.truncate(iac::MAX_ITEMS);
        Ev::new(V::Map(entries))
    }

    fn array(&self, a: usize, env: &Env, depth: usize) -> Ev {
        let c = self.lx.close[a];
        if self
            .lx
            .toks
            .get(self.code_at(a + 1))
            .is_some_and(|x| x.is_ident("for"))
        {
            return self.loop_expression(a, c);
        }
        let items = fields(self.lx, a + 1, c)
            .into_iter()
            .take(iac::MAX_ITEMS)
            .map(|(fa, fz)| self.eval(fa, fz, env, depth + 1))
            .collect();
        Ev::new(V::List(items))
    }

    #[inline(never)]
    fn loop_expression(&self, a: usize, c: usize) -> Ev {
        Ev::unknown(format!("`{}` is a loop expression", self.written(a, c + 1)))
    }

    /// An identifier: a function call (`toLower(…)`, `sys.toLower(…)`), a literal
    /// (`true`...), a loop variable, a parameter or variable, or a resource (its `name`).
    fn ident(&self, a: usize, z: usize, env: &Env, depth: usize) -> (Ev, usize) {
        let t = &self.lx.toks;
        let name = t[a].text.as_str();
        let (fname, open) = if (name == "sys" || name == "az")
            && t.get(a + 1).is_some_and(|x| x.is("."))
            && t.get(a + 2).is_some_and(|x| x.k == K::Ident)
            && t.get(a + 3).is_some_and(|x| x.is("("))
        {
            (t[a + 2].text.as_str(), a + 3)
        } else {
            (name, a + 1)
        };
        if open < z && t[open].is("(") {
            let c = self.lx.close[open];
            if matches!(fname, "loadJsonContent" | "loadYamlContent" | "loadTextContent") {
                return (self.load_content(fname, open, c, env, depth), c + 1);
            }
            let args: Vec<Ev> = fields(self.lx, open + 1, c)
                .into_iter()
                .map(|(fa, fz)| self.eval(fa, fz, env, depth + 1))
                .collect();
            return (call(fname, &args), c + 1);
        }
        let v = match name {
            "true" => Ev::boolean(true).with_origin(Some(t[a].span)),
            "false" => Ev::boolean(false).with_origin(Some(t[a].span)),
            "null" => Ev::new(V::Null),
            _ => {
                if let Some((_, v)) = env.iter().rev().find(|(n, _)| n == name) {
                    v.clone()
                } else if let Some(v) = self.lookup(name, depth) {
                    v
                } else if let Some((na, nz)) = self.resources.get(name) {
                    // A resource: its `name` is known when written statically.
                    let n = self.eval(*na, *nz, &Vec::new(), depth + 1);
                    Ev::new(V::Map(vec![("name".into(), n.with_origin(None))]))
                } else if let Some((orig, path)) = self.imports.get(name) {
                    self.imported(name, orig, path, depth)
                } else {
                    not_declared(name)
                }
            }
        };
        (v, a + 1)
    }
}

impl Bicep<'_> {
    /// `loadJsonContent('config/compute.json', '$.computes')` and its kin (`(` at `open`,
    /// `)` at `c`): Bicep reads the file when it compiles the template (audit 30, case 09),
    /// from a literal path relative to this file; amlint reads it likewise, through the
    /// project's files (inside the project, a regular file under the size limit), each
    /// value noted with where the file writes it.
    #[inline(never)]
    fn load_content(&self, fname: &str, open: usize, c: usize, env: &Env, depth: usize) -> Ev {
        let args = fields(self.lx, open + 1, c);
        let literal = args.first().and_then(|&(fa, fz)| {
            let tok = &self.lx.toks[fa];
            (fz == fa + 1 && tok.k == K::Str).then(|| tok.text.clone())
        });
        let Some(rel) = literal else {
            return Ev::unknown(format!(
                "`{fname}()` is given a path that is not a string literal, which Bicep refuses"
            ));
        };
        let Some((files, dir, display)) = &self.load else {
            return Ev::unknown(format!(
                "`{fname}()` loads `{rel}` when the template is compiled, and amlint does not read it here"
            ));
        };
        let shown = iac::beside(display, &rel);
        let unread = |what: &str| {
            Ev::unknown(format!(
                "`{fname}()` loads `{shown}` when the template is compiled, and {what}"
            ))
        };
        if rel.contains(':') || rel.starts_with('/') || rel.starts_with('\\') {
            return unread("amlint reads only a file of the project by its relative path");
        }
        let path = crate::fsio::normalize(&dir.join(&rel));
        let Some(src) = files.read(
            &path,
            &crate::fsio::normalize(Path::new(&shown)).to_string_lossy(),
        ) else {
            return unread(
                "amlint cannot read it: it is missing, outside the project, not a regular text file, or over the size limit",
            );
        };
        let how = format!("which `{fname}()` loads when the template is compiled");
        let whole = match fname {
            "loadTextContent" => {
                return Ev::text(src.text.clone())
                    .with_note(Some(format!("the text of {}, {how}", src.path)));
            }
            _ => {
                let format = if fname == "loadJsonContent" {
                    crate::load::Format::Json
                } else {
                    crate::load::Format::Yaml
                };
                match iac::structured_file(files, &src, format, &how) {
                    Ok(v) => v,
                    Err(why) => return unread(&why),
                }
            }
        };
        let Some(&(pa, pz)) = args.get(1) else {
            return whole;
        };
        let filter = self.eval(pa, pz, env, depth + 1);
        let Some(written) = filter.known_str() else {
            return unread("its path filter is not known statically");
        };
        iac::json_path(&whole, &written).unwrap_or_else(|| {
            unread(&format!(
                "its path filter `{written}` is not one amlint reads (only `$.a.b`, `$.a[0]`, `$['a']`)"
            ))
        })
    }
}

#[inline(never)]
fn call(fname: &str, args: &[Ev]) -> Ev {
    if fname == "readEnvironmentVariable" {
        return read_environment_variable(args);
    }
    // Bicep reads these files when it compiles the template, not Resource Manager (audit
    // 30, case 09): `loadJsonContent()` and its kin are read by `Bicep::load_content`.
    if matches!(
        fname,
        "loadJsonContent" | "loadYamlContent" | "loadTextContent" | "loadFileAsBase64"
    ) {
        let file = match args.first().and_then(Ev::known_str) {
            Some(path) => format!("`{path}`"),
            None => "its file".to_string(),
        };
        return Ev::unknown(format!(
            "`{fname}()` loads {file} when the template is compiled, and amlint does not read it"
        ));
    }
    iac::arm_function(fname, args).unwrap_or_else(|| {
        Ev::unknown(format!(
            "`{fname}()` is evaluated by Azure Resource Manager at deployment"
        ))
    })
}

/// A `.bicepparam` file's `readEnvironmentVariable('X', 'default')`: Bicep reads the
/// variable when it compiles the parameters file (on the machine that deploys), and takes
/// the default when it is not set. The default is the value, noted as such, as for
/// `${X:-default}` in a script; without one the value is not known.
fn read_environment_variable(args: &[Ev]) -> Ev {
    let var = args.first().and_then(Ev::known_str).unwrap_or_default();
    match args.get(1) {
        Some(d) if d.why().is_none() && !d.is_null() => d.clone().with_note(Some(format!(
            "the default of the environment variable `{var}`, unless it is set where the parameters file is compiled"
        ))),
        _ => Ev::unknown(format!(
            "`readEnvironmentVariable('{var}')` is read from the environment where the parameters file is compiled"
        )),
    }
}

#[inline(never)]
fn not_declared(name: &str) -> Ev {
    Ev::unknown(format!(
        "`{name}` is not a parameter, variable or resource of this file"
    ))
}

/// A string token's text between its quotes.
fn inner_span(tok: &Tok) -> Span {
    let q = tok.quote.min(tok.span.len() / 2);
    Span::new(tok.span.start + q, tok.span.end - q)
}

/// `toks[a..z]` without newlines at either end.
fn trim(lx: &Lexed, mut a: usize, mut z: usize) -> (usize, usize) {
    z = z.min(lx.toks.len());
    while a < z && lx.toks[a].k == K::Newline {
        a += 1;
    }
    while z > a && lx.toks[z - 1].k == K::Newline {
        z -= 1;
    }
    (a, z)
}

fn skip_decorators(lx: &Lexed, mut a: usize, z: usize) -> usize {
    while a < z && lx.toks[a].is("@") {
        a += 1;
        // `@sys.description(...)`
        while a < z && (lx.toks[a].k == K::Ident || lx.toks[a].is(".")) {
            a += 1;
        }
        if a < z && lx.toks[a].is("(") {
            a = lx.close[a] + 1;
        }
        while a < z && lx.toks[a].k == K::Newline {
            a += 1;
        }
    }
    a
}

/// The first token of `toks[a..z]` outside groups that `is` accepts.
fn top_level(lx: &Lexed, a: usize, z: usize, is: impl Fn(&Tok) -> bool) -> Option<usize> {
    let mut i = a;
    while i < z {
        let t = &lx.toks[i];
        if is(t) {
            return Some(i);
        }
        i = if t.opens() { lx.close[i].max(i) + 1 } else { i + 1 };
    }
    None
}

/// The `:` of a ternary whose `?` is just before `a` (nested ternaries balanced).
fn ternary_colon(lx: &Lexed, a: usize, z: usize) -> Option<usize> {
    let mut open = 0usize;
    let mut i = a;
    while i < z {
        let t = &lx.toks[i];
        if t.is("?") {
            open += 1;
        } else if t.is(":") {
            if open == 0 {
                return Some(i);
            }
            open -= 1;
        }
        i = if t.opens() { lx.close[i].max(i) + 1 } else { i + 1 };
    }
    None
}

/// The binary operators of `ops` in `toks[a..z]` outside groups (a `-` or `+` that starts
/// an operand is unary, not one of them).
fn operators(lx: &Lexed, a: usize, z: usize, ops: &[&str]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = a;
    // Whether the tokens before end an operand (so an operator here is binary).
    let mut operand = false;
    while i < z {
        let t = &lx.toks[i];
        if t.opens() {
            operand = true;
            i = lx.close[i].max(i) + 1;
            continue;
        }
        match t.k {
            K::P(p) => {
                if operand && ops.contains(&p) {
                    out.push(i);
                }
                operand = false;
            }
            K::Newline => {}
            _ => operand = true,
        }
        i += 1;
    }
    out
}

/// `l op r`, for the chain `written`; `said`: `l` is an unknown of this chain already (its
/// reason names `written`), kept as it is.
fn binary(op: &Tok, l: Ev, r: Ev, written: &str, said: bool) -> Ev {
    let K::P(p) = op.k else {
        return Ev::unknown("not an operator");
    };
    if p == "??" {
        return if l.is_null() {
            r
        } else if l.why().is_some() {
            Ev::unknown(l.why().unwrap_or_default())
        } else {
            l
        };
    }
    // A known side that decides `&&` (false) or `||` (true) decides it whatever the
    // other side is.
    let decisive = match p {
        "&&" => Some(false),
        "||" => Some(true),
        _ => None,
    };
    if let Some(d) = decisive
        && (l.v == V::Bool(d) || r.v == V::Bool(d))
    {
        return Ev::boolean(d);
    }
    if said && l.why().is_some() {
        return l;
    }
    if let Some(w) = l.why().or_else(|| r.why()) {
        return Ev::unknown(format!("`{written}` is not known: {w}"));
    }
    let eq = |l: &Ev, r: &Ev| match (l.known_str(), r.known_str()) {
        (Some(a), Some(b)) => a == b,
        _ => l.v == r.v,
    };
    match (p, &l.v, &r.v) {
        ("==", ..) => Ev::boolean(eq(&l, &r)),
        ("!=", ..) => Ev::boolean(!eq(&l, &r)),
        ("=~", ..) => {
            Ev::boolean(l.known_str().map(|s| s.to_lowercase()) == r.known_str().map(|s| s.to_lowercase()))
        }
        ("!~", ..) => {
            Ev::boolean(l.known_str().map(|s| s.to_lowercase()) != r.known_str().map(|s| s.to_lowercase()))
        }
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
        _ => Ev::unknown(format!("`{written}` is not evaluated")),
    }
}

/// The values of the `.bicepparam` files of the file's directory whose `using` names it
/// (several that disagree on a parameter leave it unknown).
fn bicepparam_values(input: &Input<'_>) -> HashMap<String, Ev> {
    let me = crate::fsio::normalize(input.path);
    let dir = input.path.parent().unwrap_or(std::path::Path::new(""));
    let mut all = Vec::new();
    for (path, fname) in iac::sibling_files(input.files, dir, |n| n.ends_with(".bicepparam"))
        .into_iter()
        .take(16)
    {
        let display = iac::beside(&input.source.path, &fname);
        let Some(src) = input.files.read(&path, &display) else {
            continue;
        };
        let Some((using, values)) = param_statements(&src.text, &fname) else {
            continue;
        };
        // The template it names, resolved from the parameters file's folder (this one):
        // another `main.bicep` elsewhere is not this file.
        if using.is_some_and(|u| local_bicep(dir, &u).is_some_and(|target| target == me)) {
            all.push((fname, values));
        }
    }
    iac::merge_given(all)
}

/// The values of an azd project's parameters file for this template (audit 32, case 04):
/// when an `azure.yaml` in this folder or up to three above names it as its
/// infrastructure — `infra.provider` `bicep` (the default), `infra.path` (default
/// `infra`) and `infra.module` (default `main`) — the `<module>.parameters.json` beside
/// it, which `azd provision` passes. azd replaces `${VAR}` in that file with the
/// environment's values first: a value holding one is unknown, saying so.
fn azd_values(input: &Input<'_>) -> HashMap<String, Ev> {
    let me = crate::fsio::normalize(input.path);
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let shown_dir = Path::new(iac::split_dir(&input.source.path).0);
    for k in 0..4 {
        let rel = format!("{}azure.yaml", "../".repeat(k));
        let display = crate::discover::display_of(&crate::fsio::normalize(&shown_dir.join(&rel)));
        let root = crate::fsio::normalize(&dir.join("../".repeat(k)));
        if let Some(src) = input.files.read(&root.join("azure.yaml"), &display) {
            return azd_infra(input, &src, &root, &me).unwrap_or_default();
        }
    }
    HashMap::new()
}

/// The values `azure.yaml` (`src`, in the folder `root`) gives the template `me`: its
/// parameters file's, by the names of the template's parameters; `None` when it names
/// another template, or its file cannot be read.
fn azd_infra(
    input: &Input<'_>,
    src: &std::sync::Arc<crate::source::SourceFile>,
    root: &Path,
    me: &Path,
) -> Option<HashMap<String, Ev>> {
    use crate::document::Value;
    let loaded = crate::load::parse_source(src.clone(), crate::load::Format::Yaml, &Default::default());
    let doc = loaded.documents.first()?;
    let top = doc.root?;
    let infra = doc.get(top, "infra");
    let setting = |key: &str, default: &str| -> Option<String> {
        let Some(node) = infra.and_then(|i| doc.get(i, key)) else {
            return Some(default.to_string());
        };
        match doc.value(doc.resolve(node)) {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    };
    if setting("provider", "bicep")? != "bicep" {
        return None;
    }
    let (path, module) = (setting("path", "infra")?, setting("module", "main")?);
    if crate::fsio::normalize(&root.join(&path).join(format!("{module}.bicep"))) != me {
        return None;
    }
    let fname = format!("{module}.parameters.json");
    let display = iac::beside(&input.source.path, &fname);
    let params = input.files.read(&me.with_file_name(&fname), &display)?;
    let given = super::arm::deployment_parameters(&params, &display).ok()?;
    let lx = lex(&input.source.text)?;
    let b = Bicep::new(&input.source.text, &lx);
    let note = ", which azd passes (`azure.yaml` names this template)";
    Some(
        (b.params.keys())
            .filter_map(|name| {
                let mut v = given.get(&name.to_ascii_lowercase())?.clone();
                let text = v.known_str();
                if let Some(t) = text.filter(|t| t.contains("${")) {
                    v = Ev::unknown(format!(
                        "`{name}` is `{t}` in {display}, which azd fills from the environment when it provisions"
                    ));
                } else {
                    v.note = v.note.map(|n| format!("{n}{note}"));
                }
                Some((name.clone(), v))
            })
            .collect(),
    )
}

/// A `.bicepparam` file's `using` (its last) and `param` values, each noted as set by
/// `fname` (the literal is in that file: no label elsewhere); `None` beyond the token bound.
fn param_statements(text: &str, fname: &str) -> Option<(Option<String>, HashMap<String, Ev>)> {
    let lx = lex(text)?;
    let b = Bicep::new(text, &lx);
    let mut using = None;
    let mut values = HashMap::new();
    for (a, z) in statements(&lx, 0, lx.toks.len()) {
        let t = &lx.toks;
        if t[a].is_ident("using") && a + 1 < z && t[a + 1].k == K::Str {
            using = Some(t[a + 1].text.clone());
        } else if t[a].is_ident("param") && a + 3 < z && t[a + 1].k == K::Ident && t[a + 2].is("=") {
            let name = t[a + 1].text.clone();
            let mut v = b.eval(a + 3, z, &Vec::new(), 0);
            v.origin = None;
            let set = format!("`{name}` is set by {fname}");
            // What the value itself says (a `readEnvironmentVariable` default) stays.
            v.note = Some(match v.note.take() {
                Some(n) => format!("{set}: {n}"),
                None => set,
            });
            values.insert(name, v);
        }
    }
    Some((using, values))
}

/// The definitions of the Bicep template at `path` (shown as `display`) as a deployment
/// makes them (`az deployment group create -f main.bicep -p @params.json`, audit 32, case
/// 04), its parameters set to what the deployment passes (`given`, by lower-cased name:
/// Resource Manager matches parameter names in any case), else to their defaults; the
/// `.bicepparam` files beside it, which the deployment does not pass, are not read.
/// `None` when the file cannot be read.
pub fn deployed(files: &Files, path: &Path, display: &str, given: iac::Given) -> Option<Vec<ComputeDef>> {
    let src = files.read(path, display)?;
    if !super::common::mentions(src.text.as_bytes(), READER.needles) {
        return Some(Vec::new());
    }
    let lx = lex(&src.text)?;
    let values: HashMap<String, Ev> = {
        let b = Bicep::new(&src.text, &lx);
        (b.params.keys())
            .filter_map(|name| Some((name.clone(), given.get(&name.to_ascii_lowercase())?.clone())))
            .collect()
    };
    let mut walk = Walk {
        files,
        chain: vec![crate::fsio::normalize(path)],
        budget: iac::MAX_MODULE_CALLS,
        skipped: false,
    };
    let dir = path.parent().unwrap_or(Path::new(""));
    Some(walk.file(&lx, &src.text, &src.path, dir, (values.clone(), values)))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::facts::computes::Scalar;

    fn read_in(dir: &std::path::Path, name: &str, text: &str) -> Definitions {
        iac::read_for_test(read, dir, name, text)
    }

    fn defs(text: &str) -> Vec<ComputeDef> {
        let dir = tempfile::tempdir().unwrap();
        read_in(dir.path(), "main.bicep", text).computes
    }

    const MODULE: &str = "// A compute cluster.
@description('Name of the cluster.')
param computeClusterName string = 'cpu-cluster'
param workspaceName string
param vmSize string = 'Standard_NC6'
var minNodes = 1
var props = {
  vmSize: vmSize
}

resource amlci 'Microsoft.MachineLearningServices/workspaces/computes@2020-09-01-preview' = {
  name: '${workspaceName}/${computeClusterName}'
  location: 'westeurope'
  properties: {
    computeType: 'AmlCompute'
    properties: {
      vmSize: vmSize // amlint: ignore[AML505]
      subnet: json('null')
      vmPriority: 'LowPriority'
      scaleSettings: {
        maxNodeCount: 4
        minNodeCount: minNodes
        nodeIdleTimeBeforeScaleDown: 'PT5M'
      }
    }
  }
}
";

    #[test]
    fn a_compute_resource_is_a_definition_with_its_values_and_spans() {
        let d = defs(MODULE);
        assert_eq!(d.len(), 1);
        let d = &d[0];
        assert_eq!(d.source, SourceKind::Bicep);
        assert_eq!(d.known_name(), Some("cpu-cluster"));
        assert_eq!(
            &MODULE[d.name.span.range()],
            "${workspaceName}/${computeClusterName}"
        );
        assert_eq!(d.ctype().as_deref(), Some("amlcompute"));
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_NC6".into())));
        assert_eq!(&MODULE[size.span.range()], "vmSize");
        assert_eq!(&MODULE[size.key.unwrap().range()], "vmSize");
        assert_eq!(&MODULE[size.origin.unwrap().range()], "Standard_NC6");
        let min = d.get("min_instances").unwrap();
        assert_eq!(min.value, Some(Scalar::Int(1)));
        assert_eq!(&MODULE[min.origin.unwrap().range()], "1");
        let max = d.get("max_instances").unwrap();
        assert!(max.in_place && &MODULE[max.span.range()] == "4");
        assert_eq!(
            d.get("tier").unwrap().value,
            Some(Scalar::Str("low_priority".into()))
        );
        assert_eq!(
            d.get("idle_time_before_scale_down").unwrap().value,
            Some(Scalar::Int(300))
        );
        assert!(d.get("network_settings.subnet").is_none());
        let loc = d.get("location").unwrap();
        assert!(loc.in_place && &MODULE[loc.span.range()] == "westeurope");
        assert!(MODULE[d.span.range()].starts_with("resource amlci"));
    }

    /// Audit 24, case 10: a compute's properties built with `union` or a spread are read
    /// (objects merged, the last value of a key winning, nested objects merged); given
    /// whole by a parameter without a value, or by a spread of one, what they hold is
    /// unknown, not absent (no public-IP or subnet finding on a guess).
    #[test]
    fn union_spread_and_unknown_objects_are_read_as_arm_reads_them() {
        let res = |props: &str| {
            format!(
                "param base object = {{\n  enableNodePublicIp: false\n  scaleSettings: {{ minNodeCount: 1, maxNodeCount: 4 }}\n}}\nparam ext object\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2024-04-01' = {{\n  name: 'ws/c'\n  properties: {{\n    computeType: 'AmlCompute'\n    properties: {props}\n  }}\n}}\n"
            )
        };
        let get = |props: &str, path: &str| -> Option<(Option<String>, Option<String>)> {
            let d = defs(&res(props));
            let s = d[0].get(path)?;
            Some((s.text(), s.why.clone()))
        };
        let known = |v: &str| Some((Some(v.to_string()), None));
        // `union`: the later object's scale, merged into the earlier's.
        let union = "union(base, { vmSize: 'Standard_NC6', scaleSettings: { maxNodeCount: 2 } })";
        assert_eq!(get(union, "size"), known("Standard_NC6"));
        assert_eq!(get(union, "enable_node_public_ip"), known("false"));
        assert_eq!(get(union, "min_instances"), known("1"));
        assert_eq!(get(union, "max_instances"), known("2"));
        assert_eq!(get(union, "network_settings.subnet"), None);
        // A spread, and a key written after it that wins.
        let spread = "{\n      ...base\n      vmSize: 'Standard_NC6'\n      enableNodePublicIp: true\n    }";
        assert_eq!(get(spread, "enable_node_public_ip"), known("true"));
        assert_eq!(get(spread, "min_instances"), known("1"));
        let later = "{\n      enableNodePublicIp: true\n      ...base\n    }";
        assert_eq!(get(later, "enable_node_public_ip"), known("false"));
        // Unknown objects: everything they may hold is unknown, with why.
        for props in [
            "ext",
            "union(ext, { vmSize: 'Standard_NC6' })",
            "{\n      ...ext\n      vmSize: 'Standard_NC6'\n    }",
        ] {
            let (value, why) = get(props, "enable_node_public_ip").unwrap_or_else(|| panic!("{props}"));
            assert_eq!(value, None, "{props}");
            assert!(why.unwrap().contains("`ext` has no default"), "{props}");
            assert!(
                get(props, "network_settings.subnet").is_some_and(|(v, _)| v.is_none()),
                "{props}"
            );
        }
        // A key written after an unknown spread is known.
        let after = "{\n      ...ext\n      vmSize: 'Standard_NC6'\n    }";
        assert_eq!(get(after, "size"), known("Standard_NC6"));
    }

    #[test]
    fn comments_are_found_with_the_lines_they_cover() {
        let dir = tempfile::tempdir().unwrap();
        let out = read_in(dir.path(), "main.bicep", MODULE);
        let texts: Vec<(&str, bool, Option<u32>)> = out
            .comments
            .iter()
            .map(|c| (&MODULE[c.span.range()], c.own_line, c.target_line))
            .collect();
        assert_eq!(
            texts,
            vec![
                ("// A compute cluster.", true, Some(2)),
                ("// amlint: ignore[AML505]", false, Some(17)),
            ]
        );
    }

    #[test]
    fn literal_names_loops_conditions_children_and_existing_resources() {
        let t = "param envs array = [
  'dev'
  'prod'
]
param deploy bool = true
resource ws 'Microsoft.MachineLearningServices/workspaces@2023-04-01' = {
  name: 'my-ws'
  resource child 'computes@2023-04-01' = {
    name: 'child-ci'
    properties: {
      computeType: 'ComputeInstance'
      properties: { vmSize: 'Standard_DS3_v2' }
    }
  }
}
resource loop 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = [for (env, i) in envs: {
  name: '${ws.name}/gpu-${env}-${i}'
  properties: { computeType: 'AmlCompute' }
}]
resource maybe 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = if (deploy) {
  name: toLower('MY-WS/Maybe')
  properties: { computeType: 'AmlCompute' }
}
resource old 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' existing = {
  name: 'old'
}
resource unknownLoop 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = [for c in computes: {
  name: c.name
}]
";
        let d = defs(t);
        let names: Vec<Option<&str>> = d.iter().map(|d| d.known_name()).collect();
        assert_eq!(
            names,
            vec![
                Some("child-ci"),
                Some("gpu-dev-0"),
                Some("gpu-prod-1"),
                Some("maybe"),
                None
            ]
        );
        assert_eq!(d[0].ctype().as_deref(), Some("computeinstance"));
        assert!(d[0].name.in_place);
        assert!(
            d[1].notes.iter().any(|n| n.contains("item 0 of `envs`")),
            "{:?}",
            d[1].notes
        );
        assert!(d[3].notes.iter().any(|n| n.contains("deployed if `deploy`")));
        let why = d[4].name.why.clone().unwrap();
        assert!(why.contains("`c` is an item of `computes`"), "{why}");
    }

    #[test]
    fn expressions_evaluate_or_say_why_not() {
        let t = "param a string = 'x'
param n int = 2
param flag bool = false
param nothing string
var obj = { k: 'v', deep: { size: 'Standard_NC6' } }
var list = [ 'p', 'q' ]
var fmt = format('{0}-{1}', a, n)
var cat = concat(a, '-', 'y')
var tern = flag ? 'yes' : 'no'
var coal = null ?? 'fallback'
var math = (n + 3) * 2
var esc = 'it\\'s \\${not} \\u{41}'
var idx = list[1]
var mem = obj.deep.size
var unk = nothing
var call = uniqueString(a)
var eq = a == 'x' && !flag
var multi = '''
raw ${x}
'''
";
        let lx = lex(t).unwrap();
        let b = Bicep::new(t, &lx);
        let v = |name: &str| b.lookup(name, 0).unwrap();
        assert_eq!(v("fmt").known_str().as_deref(), Some("x-2"));
        assert_eq!(v("cat").known_str().as_deref(), Some("x-y"));
        assert_eq!(v("tern").known_str().as_deref(), Some("no"));
        assert_eq!(v("coal").known_str().as_deref(), Some("fallback"));
        assert_eq!(v("math").v, V::Int(10));
        assert_eq!(v("esc").known_str().as_deref(), Some("it's ${not} A"));
        assert_eq!(v("idx").known_str().as_deref(), Some("q"));
        assert_eq!(v("mem").known_str().as_deref(), Some("Standard_NC6"));
        assert!(v("unk").why().unwrap().contains("has no default"));
        assert!(v("call").why().unwrap().contains("uniqueString"));
        assert_eq!(v("eq").v, V::Bool(true));
        assert_eq!(v("multi").known_str().as_deref(), Some("\nraw ${x}\n"));
    }

    #[test]
    fn a_bicepparam_file_that_uses_the_module_sets_its_values() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("main.bicepparam"),
            "using './main.bicep'\nparam vmSize = 'Standard_ND40rs_v2'\nparam workspaceName = 'ws'\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("other.bicepparam"),
            "using './other.bicep'\nparam vmSize = 'X'\n",
        )
        .unwrap();
        let d = &read_in(dir.path(), "main.bicep", MODULE).computes[0];
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_ND40rs_v2".into())));
        assert_eq!(size.origin, None, "the literal is in the other file");
        assert!(
            d.notes.iter().any(|n| n.contains("main.bicepparam")),
            "{:?}",
            d.notes
        );
    }

    #[test]
    fn an_environment_variable_read_by_the_parameters_file_gives_its_default() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("main.bicepparam"),
            "using './main.bicep'\nparam vmSize = readEnvironmentVariable('AML_SIZE', 'Standard_ND40rs_v2')\nparam workspaceName = 'ws'\nparam computeClusterName = readEnvironmentVariable('AML_NAME')\n",
        )
        .unwrap();
        let d = &read_in(dir.path(), "main.bicep", MODULE).computes[0];
        let size = d.get("size").unwrap();
        assert_eq!(size.value, Some(Scalar::Str("Standard_ND40rs_v2".into())));
        assert!(
            d.notes.iter().any(|n| n.contains(
                "the default of the environment variable `AML_SIZE`, unless it is set where the parameters file is compiled"
            )),
            "{:?}",
            d.notes
        );
        // No default: not known, and why is true (Bicep reads it, not Resource Manager).
        let why = d.name.why.as_deref().unwrap_or_default();
        assert!(
            why.contains("`readEnvironmentVariable('AML_NAME')` is read from the environment where the parameters file is compiled"),
            "{why}"
        );
    }

    #[test]
    fn hostile_input_stays_bounded() {
        // Deep nesting, unclosed strings and brackets, a long chain of variables.
        let mut t = String::from("var v0 = 'a'\n");
        for i in 1..3_000 {
            t.push_str(&format!("var v{i} = v{}\n", i - 1));
        }
        t.push_str(&format!(
            "resource r 'Microsoft.MachineLearningServices/workspaces/computes@1' = {{\n  name: v2999\n  x: {}1{}\n  y: 'unclosed\n}}\n",
            "(".repeat(50_000),
            ")".repeat(50_000)
        ));
        t.push_str(&"[{(".repeat(10_000));
        let d = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || defs(&t))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(d.len(), 1);
        assert!(d[0].name.why.as_deref().unwrap().contains("too deeply"));
        // Beyond the token bound, a file is not read at all.
        assert!(defs(&format!("{MODULE}{}", "a ".repeat(MAX_TOKENS))).is_empty());
        assert_eq!(defs(MODULE).len(), 1);
    }

    /// A module that makes a cluster of its parameters.
    const CC: &str = "param clusterName string\nparam vmSize string\nparam maxNodes int = 3\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  name: 'ws/${clusterName}'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: vmSize\n      scaleSettings: { minNodeCount: 0, maxNodeCount: maxNodes }\n    }\n  }\n}\n";

    fn read_project(files: &[(&str, &str)], main: &str) -> Vec<ComputeDef> {
        iac::read_in_project(read, files, "main.bicep", main)
    }

    #[test]
    fn a_local_module_call_is_a_definition_per_call_with_the_params_it_passes() {
        let main = "param size string = 'Standard_NC6'\nmodule a 'modules/cc.bicep' = {\n  name: 'a'\n  params: {\n    clusterName: 'gpu-cluster'\n    vmSize: size\n  }\n}\nmodule b 'modules/cc.bicep' = [for n in ['x', 'y']: {\n  name: 'b${n}'\n  params: {\n    clusterName: 'cpu-${n}'\n    vmSize: 'Standard_D2_v2'\n    maxNodes: 8\n  }\n}]\nmodule r 'br:example.azurecr.io/bicep/cc:1.0' = {\n  name: 'r'\n  params: { clusterName: 'registry' }\n}\nmodule o '../elsewhere/cc.bicep' = {\n  name: 'o'\n  params: { clusterName: 'outside', vmSize: 'x' }\n}\n";
        let d = read_project(&[("modules/cc.bicep", CC), ("../elsewhere/cc.bicep", CC)], main);
        let names: Vec<_> = d.iter().map(|d| d.known_name().unwrap_or("?")).collect();
        assert_eq!(names, ["gpu-cluster", "cpu-x", "cpu-y"]);
        let a = &d[0];
        let at = |s: Span| &main[s.range()];
        assert_eq!(a.file, "main.bicep");
        assert!(at(a.span).starts_with("module a 'modules/cc.bicep'"));
        assert_eq!(a.from_file.as_deref(), Some("modules/cc.bicep"));
        assert!(a.notes[0].contains("module a calls the module `modules/cc.bicep`, which defines the compute at modules/cc.bicep:4"), "{:?}", a.notes);
        // The name the module builds of the parameter the call gives (`'ws/${clusterName}'`,
        // whose last segment is the name): at the call's argument, its literal in place.
        assert_eq!(at(a.name.span), "gpu-cluster");
        assert_eq!(at(a.name.key.unwrap()), "clusterName");
        assert!(!a.name.inherited && a.name.in_place);
        assert_eq!(
            a.instance_of.as_ref().map(|(f, _)| f.as_str()),
            Some("modules/cc.bicep")
        );
        // The size from the caller's parameter: at the argument, labelled at its default.
        let size = a.get("size").unwrap();
        assert_eq!(
            (at(size.span), size.text().as_deref()),
            ("size", Some("Standard_NC6"))
        );
        assert_eq!(at(size.origin.unwrap()), "Standard_NC6");
        let max = a.get("max_instances").unwrap();
        assert!(max.inherited);
        assert_eq!(max.value, Some(crate::facts::computes::Scalar::Int(3)));
        let b = &d[1];
        assert_eq!(at(b.get("max_instances").unwrap().span), "8");
        assert!(b.get("size").unwrap().in_place);
        assert!(b.notes.iter().any(|n| n.contains("item 0")), "{:?}", b.notes);
    }

    /// `'${prefix}-cluster'` in the module, `prefix: 'dev'` at the call: the name is at
    /// that argument; a size built from two of the call's parameters stays at the module's
    /// path, inherited, with a note naming them. The module read alone names its input.
    #[test]
    fn a_value_built_from_a_modules_parameters_is_at_the_argument_that_gives_them() {
        let module = "param prefix string\nparam family string\nparam series string\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  name: '${prefix}-cluster'\n  properties: {\n    computeType: 'AmlCompute'\n    properties: {\n      vmSize: 'Standard_${family}${series}'\n    }\n  }\n}\n";
        let main = "module a 'm/cc.bicep' = {\n  name: 'a'\n  params: {\n    prefix: 'dev'\n    family: 'NC'\n    series: '6'\n  }\n}\n";
        let d = read_project(&[("m/cc.bicep", module)], main);
        let [a] = d.as_slice() else { panic!("{d:?}") };
        let at = |s: Span| &main[s.range()];
        assert_eq!(a.known_name(), Some("dev-cluster"));
        assert_eq!((at(a.name.span), a.name.inherited), ("dev", false));
        let size = a.get("size").unwrap();
        assert_eq!(size.text().as_deref(), Some("Standard_NC6"));
        assert_eq!((at(size.span), size.inherited), ("m/cc.bicep", true));
        assert!(
            a.notes.contains(
                &"`size` is `Standard_${family}${series}` in the module, from the call's `family`, `series`"
                    .to_string()
            ),
            "{:?}",
            a.notes
        );
        let alone = defs(module);
        assert_eq!(alone[0].name_input, None, "the name is not the input itself");
        let alone = defs(&module.replace("'${prefix}-cluster'", "prefix"));
        assert_eq!(alone[0].name_input.as_deref(), Some("prefix"));
        // `'ws/${clusterName}'`: its last segment is the parameter.
        assert_eq!(defs(CC)[0].name_input.as_deref(), Some("clusterName"));
        assert_eq!(
            iac::inputs_read("'prefix-${toLower(prefix)}' == a.prefix ? b-c : 'x'", ""),
            ["toLower", "prefix", "a", "b", "c"]
        );
    }

    #[test]
    fn modules_are_followed_to_a_bound_and_a_cycle_is_not() {
        let selfish = "module again 'self.bicep' = {\n  name: 'again'\n}\nresource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  name: 'ws/looped'\n}\n";
        let d = read_project(
            &[("m/self.bicep", selfish)],
            "module l 'm/self.bicep' = {\n  name: 'l'\n}\n",
        );
        assert_eq!(
            d.iter().map(|d| d.known_name()).collect::<Vec<_>>(),
            [Some("looped")]
        );
        let chain = |levels: usize| {
            iac::read_module_chain(
                read,
                levels,
                |i| format!("m{i}.bicep"),
                |i| format!("module next 'm{i}.bicep' = {{\n  name: 'n'\n}}\n"),
                "resource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = {\n  name: 'ws/deep'\n}\n",
                "main.bicep",
            )
        };
        assert_eq!(chain(iac::MAX_MODULE_DEPTH).len(), 1);
        assert_eq!(chain(iac::MAX_MODULE_DEPTH + 1).len(), 0);
    }

    /// `schedules.computeStartStop` entries as YAML's `schedules.compute_start_stop`; a
    /// `param` without a default leaves the value unknown, with why.
    #[test]
    fn start_stop_schedules_are_read_as_yamls() {
        let text = "param state string
resource ci 'Microsoft.MachineLearningServices/workspaces/computes@2024-04-01' = {
  name: 'ws/ci'
  properties: {
    computeType: 'ComputeInstance'
    properties: {
      vmSize: 'Standard_DS3_v2'
      schedules: {
        computeStartStop: [
          {
            action: 'Stop'
            status: 'Disabled'
          }
          {
            action: 'Stop'
            status: state
          }
        ]
      }
    }
  }
}
";
        let d = defs(text);
        assert_eq!(
            super::iac::schedules_for_test(&d[0], text),
            [
                "schedules.compute_start_stop.0.action = Stop at `Stop`",
                "schedules.compute_start_stop.0.state = Disabled at `Disabled`",
                "schedules.compute_start_stop.1.action = Stop at `Stop`",
                "schedules.compute_start_stop.1.state ? the parameter `state` has no default (the deployment or the module's caller sets it)",
            ]
        );
    }

    /// Audit 18 (federated learning): the entry passes `compute2: false` to a module whose
    /// compute module call is `if (compute2)`: never deployed as written. A condition false
    /// only by the entry's own default is deployed unless the deployment says otherwise;
    /// one the entry leaves to the deployment (no default) is noted as written. All are
    /// read, each with its note.
    #[test]
    fn a_false_condition_is_noted_as_certain_or_by_default() {
        let pair = "param compute2 bool = true\nparam optIn bool\nmodule c1 'cc.bicep' = {\n  name: 'c1'\n  params: { clusterName: 'one', vmSize: 'Standard_NC6' }\n}\nmodule c2 'cc.bicep' = if (compute2) {\n  name: 'c2'\n  params: { clusterName: 'two', vmSize: 'Standard_NC6' }\n}\nmodule c3 'cc.bicep' = if (optIn && compute2) {\n  name: 'c3'\n  params: { clusterName: 'three', vmSize: 'Standard_NC6' }\n}\nresource r 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = if (!compute2) {\n  name: 'ws/four'\n}\n";
        let main = "param enable bool = false\nmodule p 'm/pair.bicep' = {\n  name: 'p'\n  params: { compute2: false, optIn: enable }\n}\nresource lit 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = if (false) {\n  name: 'ws/never'\n}\nresource def 'Microsoft.MachineLearningServices/workspaces/computes@2023-10-01' = if (enable) {\n  name: 'ws/by-default'\n}\n";
        let d = read_project(&[("m/pair.bicep", pair), ("m/cc.bicep", CC)], main);
        let names: Vec<_> = d.iter().map(|d| d.known_name().unwrap_or("?")).collect();
        assert_eq!(names, ["one", "two", "three", "four", "never", "by-default"]);
        // `two` and `three` are never called (`compute2` is `false` at the call, whatever
        // `enable` is); `four` is deployed (`!compute2`); `never` is not; `by-default`
        // only with `enable`'s default.
        let said = |d: &ComputeDef, what: &str| d.notes.iter().any(|n| n.contains(what));
        let never: Vec<bool> = d.iter().map(|d| said(d, iac::NEVER_DEPLOYED)).collect();
        assert_eq!(never, [false, true, true, false, true, false]);
        let by_default: Vec<bool> = d.iter().map(|d| said(d, iac::FALSE_BY_DEFAULT)).collect();
        assert_eq!(by_default, [false, false, false, false, false, true]);
        // The pair module read alone: its defaults are the deployment's to change.
        let alone = read_project(&[("cc.bicep", CC)], pair);
        let by_default: Vec<bool> = alone.iter().map(|d| said(d, iac::FALSE_BY_DEFAULT)).collect();
        assert_eq!(by_default, [false, false, false, true]);
        assert!(!alone.iter().any(|d| said(d, iac::NEVER_DEPLOYED)));
    }
}
