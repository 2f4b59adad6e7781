//! Where a module a Python file imports is: a leaf of the Python reader, used by the
//! helpers that follow calls into other files ([`super::helpers`]) and by the evaluation of
//! names imported from them ([`super::module`]).

use std::path::{Path, PathBuf};

use super::super::common::Files;

/// The file of the module `module` (as written after `from` or `import`) imported by the
/// file at `from`: its path and display.
pub(super) fn find_module(module: &str, from: &Path, files: &Files) -> Option<(PathBuf, String)> {
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
        files.dirs_up(dir)
    };
    let candidates = bases.into_iter().flat_map(|base| {
        let module_dir = base.join(&rel);
        let file = (!rel.as_os_str().is_empty()).then(|| module_dir.with_extension("py"));
        file.into_iter().chain([module_dir.join("__init__.py")])
    });
    let (path, display, _) = files.first_of(candidates)?;
    Some((path, display))
}
