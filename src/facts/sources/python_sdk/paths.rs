//! Where a module a Python file imports is: a leaf of the Python reader, used by the
//! helpers that follow calls into other files ([`super::helpers`]) and by the evaluation of
//! names imported from them ([`super::module`]).
//!
//! A module is looked for as Python would from the importing file's directory, then each
//! directory above it inside the project, then the directories the file adds to its
//! import path itself ([`sys_path_dirs`]: `sys.path.append(os.path.abspath("./ml_service/util"))`,
//! `sys.path.insert(0, str(Path(__file__).parents[1] / "src"))`).

use std::path::{Path, PathBuf};

use super::super::common::Files;

/// The file of the module `module` (as written after `from` or `import`) imported by the
/// file at `from`, which adds the directories `added` to `sys.path` ([`sys_path_dirs`]):
/// its path and display.
pub(super) fn find_module(
    module: &str,
    from: &Path,
    added: &[PathBuf],
    files: &Files,
) -> Option<(PathBuf, String)> {
    let dots = module.bytes().take_while(|&b| b == b'.').count();
    let rest = &module[dots..];
    if !rest
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    {
        return None;
    }
    let rel: PathBuf = rest.split('.').filter(|s| !s.is_empty()).collect();
    let dir = from.parent().unwrap_or(Path::new(""));
    let bases: Vec<PathBuf> = if dots > 0 {
        // `.m` is the file's package, each further dot one package up.
        let mut base = dir.to_path_buf();
        (1..dots).for_each(|_| base.push(".."));
        vec![base]
    } else {
        let mut bases = files.dirs_up(dir);
        bases.extend(added.iter().cloned());
        bases
    };
    let candidates = bases.into_iter().flat_map(|base| {
        let module_dir = base.join(&rel);
        let file = (!rel.as_os_str().is_empty()).then(|| module_dir.with_extension("py"));
        file.into_iter().chain([module_dir.join("__init__.py")])
    });
    let (path, display, _) = files.first_of(candidates)?;
    Some((path, display))
}

/// How many `sys.path` additions of one file are read.
const MAX_ADDED: usize = 8;

/// How deep an expression of a `sys.path` addition is read (calls inside calls, names
/// assigned expressions naming other names).
const MAX_NESTING: usize = 16;

/// The directories the file at `from` (text `text`) adds to its import path at its top
/// level with `sys.path.append(X)` or `sys.path.insert(i, X)`, `X` read from literals,
/// `__file__`, `os.path` (`join`, `dirname`, `abspath`, `realpath`, `normpath`),
/// `pathlib.Path` (`parent`, `parents[n]`, `/`, `resolve()`) and names assigned such an
/// expression on a line of their own before it. A path relative to the working directory
/// (`"./ml_service/util"`) is looked for from the project's root, then from the file's
/// directory. Each written from the file's directory, as [`Files::dirs_up`] writes them;
/// [`Files::first_of`] reads nothing outside the project.
pub(super) fn sys_path_dirs(text: &str, from: &Path, files: &Files) -> Vec<PathBuf> {
    if memchr::memmem::find(text.as_bytes(), b"sys.path").is_none() {
        return Vec::new();
    }
    let dir = from.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if out.len() >= MAX_ADDED {
            break;
        }
        let t = without_comment(line).trim();
        let arg = if let Some(r) = t.strip_prefix("sys.path.append(") {
            r
        } else if let Some(r) = t.strip_prefix("sys.path.insert(") {
            match r.split_once(',') {
                Some((_, a)) => a,
                None => continue,
            }
        } else {
            continue;
        };
        let Some(arg) = arg.trim_end().strip_suffix(')') else {
            continue;
        };
        let assigned = |name: &str| -> Option<&str> {
            lines[..i].iter().rev().find_map(|l| {
                let (left, right) = without_comment(l).trim().split_once('=')?;
                (left.trim() == name && !right.starts_with('=')).then_some(right.trim())
            })
        };
        let Some(p) = Eval { assigned: &assigned }.path(arg.trim(), 0) else {
            continue;
        };
        let rel: PathBuf = p.parts.iter().collect();
        match p.anchor {
            Anchor::FileDir => out.push(dir.join(&rel)),
            Anchor::Cwd => {
                out.extend(files.root_from(dir).map(|r| r.join(&rel)));
                out.push(dir.join(&rel));
            }
            Anchor::File => {}
        }
    }
    out
}

/// The path, from the directory of the file it is written in, that the expression `e`
/// builds from `__file__` (`Path(__file__).resolve().parents[1] / "configs" / "c.yml"`,
/// `os.path.join(os.path.dirname(__file__), "c.yml")`), names in it read by `assigned`
/// (the expression a name is assigned); `None` when it is not such a path.
pub(super) fn from_file_dir<'s>(e: &str, assigned: &dyn Fn(&str) -> Option<&'s str>) -> Option<String> {
    let p = Eval { assigned }.path(e, 0)?;
    (p.anchor == Anchor::FileDir && !p.parts.is_empty()).then(|| p.parts.join("/"))
}

/// What a path expression starts from.
#[derive(Clone, Copy, PartialEq)]
enum Anchor {
    /// `__file__` itself.
    File,
    /// The file's directory.
    FileDir,
    /// The working directory the file is run from.
    Cwd,
}

#[derive(Clone)]
struct PathValue {
    anchor: Anchor,
    /// Components after the anchor (`..` included).
    parts: Vec<String>,
}

impl PathValue {
    fn parent(mut self) -> Self {
        match (self.anchor, self.parts.last().map(String::as_str)) {
            (Anchor::File, None) => self.anchor = Anchor::FileDir,
            (_, Some(p)) if p != ".." => {
                self.parts.pop();
            }
            _ => self.parts.push("..".to_string()),
        }
        self
    }

    /// `self` joined with the literal `s` (`None`: an absolute path).
    fn join(mut self, s: &str) -> Option<Self> {
        if s.starts_with('/') || s.contains(':') || s.contains('\\') {
            return None;
        }
        if self.anchor == Anchor::File {
            return None;
        }
        self.parts.extend(
            s.split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .map(str::to_string),
        );
        Some(self)
    }
}

struct Eval<'a, 's> {
    assigned: &'a dyn Fn(&str) -> Option<&'s str>,
}

impl Eval<'_, '_> {
    /// The path the expression `e` stands for.
    fn path(&self, e: &str, depth: usize) -> Option<PathValue> {
        if depth > MAX_NESTING {
            return None;
        }
        let e = e.trim();
        // `a / "b"`: pathlib's join, at the top level of the expression.
        if let Some(parts) = split_top(e, '/')
            && let [.., right] = parts[..]
            && parts.len() > 1
        {
            let left = &e[..e.len() - right.len() - 1];
            return self.path(left, depth + 1)?.join(&literal(right.trim())?);
        }
        if let Some(s) = literal(e) {
            return PathValue {
                anchor: Anchor::Cwd,
                parts: Vec::new(),
            }
            .join(&s);
        }
        if e == "__file__" {
            return Some(PathValue {
                anchor: Anchor::File,
                parts: Vec::new(),
            });
        }
        if matches!(
            e,
            "os.getcwd()" | "Path.cwd()" | "pathlib.Path.cwd()" | "os.curdir"
        ) {
            return Some(PathValue {
                anchor: Anchor::Cwd,
                parts: Vec::new(),
            });
        }
        if let Some(inner) = e.strip_prefix('(').and_then(|r| r.strip_suffix(')'))
            && split_top(inner, ',').is_some_and(|p| p.len() == 1)
        {
            return self.path(inner, depth + 1);
        }
        // `x.parents[n]`
        if let Some(r) = e.strip_suffix(']')
            && let Some((base, n)) = r.rsplit_once(".parents[")
        {
            let n: usize = n.trim().parse().ok()?;
            let mut p = self.path(base, depth + 1)?;
            for _ in 0..=n.min(MAX_NESTING) {
                p = p.parent();
            }
            return Some(p);
        }
        if let Some(base) = e.strip_suffix(".parent") {
            return Some(self.path(base, depth + 1)?.parent());
        }
        for suffix in [".resolve()", ".absolute()"] {
            if let Some(base) = e.strip_suffix(suffix) {
                return self.path(base, depth + 1);
            }
        }
        // A call `f(args)` whose parentheses close at the end.
        if let Some(open) = e.find('(')
            && e.ends_with(')')
        {
            let f = e[..open].trim();
            let args = split_top(&e[open + 1..e.len() - 1], ',')?;
            let one = || (args.len() == 1).then(|| args[0]);
            return match f {
                "os.path.dirname" => Some(self.path(one()?, depth + 1)?.parent()),
                "os.path.abspath" | "os.path.realpath" | "os.path.normpath" | "str" | "Path"
                | "pathlib.Path" | "os.fspath" => self.path(one()?, depth + 1),
                "os.path.join" | "Path.joinpath" => {
                    let (first, rest) = args.split_first()?;
                    let mut p = self.path(first, depth + 1)?;
                    for a in rest {
                        p = p.join(&literal(a.trim())?)?;
                    }
                    Some(p)
                }
                _ => None,
            };
        }
        // A name assigned before.
        if !e.is_empty() && e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return self.path((self.assigned)(e)?, depth + 1);
        }
        None
    }
}

/// The text of a plain string literal (`"x"`, `'x'`, `r"x"`), without escapes.
fn literal(e: &str) -> Option<String> {
    let e = e.strip_prefix('r').unwrap_or(e);
    let q = e.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = e.strip_prefix(q)?.strip_suffix(q)?;
    (!inner.contains(q) && !inner.contains('\\')).then(|| inner.to_string())
}

/// A line without its comment (a `#` outside quotes and what follows).
fn without_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// `e` split at each `sep` outside brackets and quotes (`None`: they do not balance).
fn split_top(e: &str, sep: char) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in e.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.checked_sub(1)?,
            (None, c) if c == sep && depth == 0 => {
                out.push(&e[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    (depth == 0 && quote.is_none()).then(|| {
        out.push(&e[start..]);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(e: &str, names: &[(&str, &str)]) -> Option<(bool, String)> {
        let names: Vec<(String, String)> = names
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let assigned = |n: &str| names.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        let p = Eval { assigned: &assigned }.path(e, 0)?;
        Some((p.anchor == Anchor::FileDir, p.parts.join("/")))
    }

    #[test]
    fn sys_path_expressions_are_read_as_paths() {
        let file_dir = |s: &str| Some((true, s.to_string()));
        let cwd = |s: &str| Some((false, s.to_string()));
        assert_eq!(
            eval(r#"os.path.abspath("./ml_service/util")"#, &[]),
            cwd("ml_service/util")
        );
        assert_eq!(
            eval("os.path.dirname(os.path.abspath(__file__))", &[]),
            file_dir("")
        );
        assert_eq!(
            eval("os.path.join(os.path.dirname(__file__), '..', 'src')", &[]),
            file_dir("../src")
        );
        assert_eq!(
            eval(r#"str(Path(__file__).resolve().parents[1] / "utils")"#, &[]),
            file_dir("../utils")
        );
        assert_eq!(eval("Path(__file__).parent.parent", &[]), file_dir(".."));
        assert_eq!(
            eval(
                "os.path.join(ROOT, 'lib')",
                &[("ROOT", "os.path.dirname(os.path.dirname(__file__))")]
            ),
            file_dir("../lib")
        );
        assert_eq!(eval("'../common'", &[]), cwd("../common"));
        assert_eq!(eval(r#"os.path.join(os.getcwd(), "src")"#, &[]), cwd("src"));
        // Not read: absolute paths, unknown names and calls, f-strings, a name naming itself.
        assert_eq!(eval("'/opt/lib'", &[]), None);
        assert_eq!(eval("os.environ['X']", &[]), None);
        assert_eq!(eval("f'{root}/src'", &[]), None);
        assert_eq!(eval("A", &[("A", "A")]), None);
        assert_eq!(eval("os.path.join(__file__, 'x')", &[]), None);
    }

    /// A file a script opens by a path built from `__file__`: from the script's folder;
    /// a path from the working directory, or the folder itself, is not one.
    #[test]
    fn paths_from_the_files_folder() {
        let assigned = |n: &str| (n == "ROOT").then_some("Path(__file__).resolve().parents[2]");
        let at = |e: &str| from_file_dir(e, &assigned);
        assert_eq!(
            at(r#"ROOT / "configs" / "config.yaml""#).as_deref(),
            Some("../../configs/config.yaml")
        );
        assert_eq!(at("Path(__file__).with_name('c.yml')"), None);
        assert_eq!(
            at(r#"os.path.join(os.path.dirname(__file__), "c.yml")"#).as_deref(),
            Some("c.yml")
        );
        assert_eq!(at(r#""configs/config.yaml""#), None);
        assert_eq!(at("Path(__file__).parent"), None);
    }
}
