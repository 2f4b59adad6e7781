//! Calls across files, looked up from the called file: a partial run that finds a name in
//! a file others may call — a Terraform or Bicep module, a Python helper's module, a
//! workflow or pipeline template — also reads the files that may call it, since each call
//! is a definition too (with the values it passes: the size a module leaves to its
//! caller), and a whole run reads them. Then the files that may call those, to the depth
//! the readers follow calls ([`iac::MAX_MODULE_DEPTH`]).
//!
//! How a caller names a file is known from the file's path alone ([`Callees::add`]: its
//! folder for a Terraform module or a GitHub local action, its name for a Bicep module or a
//! template, its module name for Python), and every such name is searched in every file
//! at once ([`Callers`]: one pass over each text, whatever the number of files called),
//! so that the search stays linear in the project's files. What it finds is a superset of
//! the callers (a name at the end of a path, after a call's word): reading a file more
//! never changes what it defines.

use std::collections::HashSet;
use std::path::Path;

use aho_corasick::AhoCorasick;

use super::common::mentions;
use super::{bicep, iac, python_sdk, terraform, workflows};

/// How many rounds of callers a search follows: the callers of a file, theirs, and so on,
/// as deep as a reader follows a chain of calls from the file it reads.
pub const MAX_ROUNDS: usize = iac::MAX_MODULE_DEPTH + 1;

/// How a file may be called from another that need not name what it defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// A Terraform `module` block whose `source` ends in the module's folder.
    Terraform,
    /// A Bicep `module x 'modules/ci.bicep' = { params: ... }`, or a `.bicepparam` file's
    /// `using '../main.bicep'`.
    Bicep,
    /// A Python import of a helper's module (`from compute_utils import create`, `import
    /// compute_utils`, `from . import compute_utils`), then a call of the helper.
    Python,
    /// An Azure Pipelines `- template: x.yml` with `parameters:` (or `extends: template:`),
    /// a GitHub job's `uses: ./.github/workflows/x.yml` with `with:`, a step's `uses:
    /// ./.github/actions/x`.
    Template,
}

impl Via {
    fn index(self) -> usize {
        self as usize
    }

    /// How a file named `name` may call others, by its name alone (any case).
    fn of_caller(name: &[u8]) -> Option<Via> {
        let ends = |suffix: &str| {
            name.len() > suffix.len()
                && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
        };
        if ends(".tf") {
            Some(Via::Terraform)
        } else if ends(".bicep") || ends(".bicepparam") {
            Some(Via::Bicep)
        } else if ends(".py") || ends(".ipynb") {
            Some(Via::Python)
        } else if ends(".yml") || ends(".yaml") {
            Some(Via::Template)
        } else {
            None
        }
    }

    /// Words (lower case) one of which a caller's text holds: its call's keyword.
    fn words(self) -> &'static [&'static str] {
        match self {
            Via::Terraform => &["module"],
            // A `.bicepparam` file's `using '../main.bicep'` deploys the template with its values.
            Via::Bicep => &["module", "using"],
            Via::Python => &["import"],
            Via::Template => &["template", "uses"],
        }
    }

    /// Whether the `len` bytes at `at` of the text `lower` may name a callee as a call of
    /// this kind writes it: at the end of a path in a string, or as a word.
    fn names_at(self, lower: &[u8], at: usize, len: usize) -> bool {
        let before = at.checked_sub(1).map(|i| lower[i]);
        let after = lower.get(at + len).copied();
        match self {
            Via::Terraform => terraform::ends_a_source(lower, at, len),
            // `'modules/ci.bicep'`, `'./ci.bicep'`, `'ci.bicep'` (Bicep has no other quotes).
            Via::Bicep => matches!(before, Some(b'/' | b'\'' | b'\\')) && after == Some(b'\''),
            // A module's name as a word of a dotted path: `from pkg.utils import`, `import utils`.
            Via::Python => !before.is_some_and(is_identifier) && !after.is_some_and(is_identifier),
            // A path's last part: `template: ../create-ci.yml@self`, `uses: ./x/create-ci.yml`.
            Via::Template => !before.is_some_and(is_path_word) && !after.is_some_and(is_path_word),
        }
    }
}

fn is_identifier(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_path_word(b: u8) -> bool {
    is_identifier(b) || b == b'-' || b == b'.'
}

/// The files callers are looked for, as each kind of call names them (lower case).
#[derive(Default)]
pub struct Callees {
    keys: [HashSet<Vec<u8>>; 4],
}

impl Callees {
    /// Whether a file at `path` may be called from another, by its name alone (asked before
    /// its text is read).
    pub fn may_be_called(path: &Path) -> bool {
        path.file_name()
            .and_then(|n| Via::of_caller(n.as_encoded_bytes()))
            .is_some()
    }

    /// Adds the file at `path`, of text `text`, which may define the compute searched (or
    /// give values to one that does), if a call of it may define it too: a Terraform
    /// module's `.tf` file; a Bicep file with a resource or a module call (`computes@`,
    /// `module`); a Python file that names a compute class (a helper creates the compute
    /// itself: `python_sdk`'s templates); a YAML file the workflows reader reads (`az ml
    /// compute create`, a template call of its own). `chained`: the file was found as a
    /// caller. It is then a callee only as what passes its callers' values on (a module, a
    /// template); a call of a Python helper is no helper, whatever file calls it.
    pub fn add(&mut self, path: &Path, text: &str, chained: bool) {
        let Some(name) = path.file_name() else {
            return;
        };
        let name = name.as_encoded_bytes().to_ascii_lowercase();
        let folder = || {
            path.parent()
                .and_then(Path::file_name)
                .map(|f| f.as_encoded_bytes().to_ascii_lowercase())
        };
        let text = text.as_bytes();
        let (via, keys): (Via, Vec<Vec<u8>>) = match Via::of_caller(&name) {
            Some(Via::Terraform) => (
                Via::Terraform,
                terraform::module_folder(path).into_iter().collect(),
            ),
            Some(Via::Bicep) if mentions(text, bicep::READER.needles) => (Via::Bicep, vec![name]),
            Some(Via::Python)
                if !chained && name.ends_with(b".py") && mentions(text, python_sdk::READER.defines) =>
            {
                let stem = &name[..name.len() - 3];
                let module = if stem == b"__init__" {
                    folder()
                } else {
                    Some(stem.to_vec())
                };
                // A module name Python cannot import (`my-utils.py`) is called from nowhere.
                let module = module.filter(|m| !m.is_empty() && m.iter().copied().all(is_identifier));
                (Via::Python, module.into_iter().collect())
            }
            Some(Via::Template) if mentions(text, workflows::READER.needles) => {
                // A GitHub local action is called by its folder (`uses: ./.github/actions/x`).
                let action = name == b"action.yml" || name == b"action.yaml";
                let mut keys = vec![name];
                keys.extend(folder().filter(|_| action));
                (Via::Template, keys)
            }
            _ => return,
        };
        self.keys[via.index()].extend(keys.into_iter().filter(|k| !k.is_empty()));
    }

    pub fn is_empty(&self) -> bool {
        self.keys.iter().all(HashSet::is_empty)
    }

    /// The search of the files that may call one of them.
    pub fn callers(&self) -> Callers {
        let searches = self.keys.clone().map(|keys| {
            let keys: Vec<Vec<u8>> = keys.into_iter().collect();
            let search = (!keys.is_empty())
                .then(|| AhoCorasick::new(&keys).ok())
                .flatten()?;
            Some(Search { keys, search })
        });
        Callers { searches }
    }
}

/// The names of the callees of one kind of call, searched at once.
struct Search {
    keys: Vec<Vec<u8>>,
    search: AhoCorasick,
}

/// The search of the files that may call one of some [`Callees`].
pub struct Callers {
    searches: [Option<Search>; 4],
}

/// Up to this many callees' names are each tested against a file's cached trigrams; more,
/// and only a call's keyword is.
const FEW: usize = 16;

impl Callers {
    /// How the file at `path` may call one of the callees, by its name alone (`None`: it
    /// cannot, and is not read for it).
    pub fn via(&self, path: &Path) -> Option<Via> {
        let via = Via::of_caller(path.file_name()?.as_encoded_bytes())?;
        self.searches[via.index()].as_ref().map(|_| via)
    }

    /// Whether a file whose text may contain what `may_contain` says (its cached trigrams:
    /// false only for a needle certainly not in it) may call one of the callees `via`.
    pub fn may_hold(&self, via: Via, may_contain: impl Fn(&[u8]) -> bool) -> bool {
        let Some(s) = &self.searches[via.index()] else {
            return false;
        };
        via.words().iter().any(|w| may_contain(w.as_bytes()))
            && (s.keys.len() > FEW || s.keys.iter().any(|k| may_contain(k)))
    }

    /// Whether the text `lower` (ASCII lower case) of a file that may call `via` holds the
    /// call's keyword and a callee's name where such a call writes it.
    pub fn calls(&self, via: Via, lower: &[u8]) -> bool {
        let Some(s) = &self.searches[via.index()] else {
            return false;
        };
        via.words()
            .iter()
            .any(|w| memchr::memmem::find(lower, w.as_bytes()).is_some())
            && s.search
                .find_overlapping_iter(lower)
                .any(|m| via.names_at(lower, m.start(), m.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn callers_of(path: &str, text: &str) -> Callers {
        let mut c = Callees::default();
        c.add(Path::new(path), text, false);
        c.callers()
    }

    fn calls(callers: &Callers, path: &str, text: &str) -> bool {
        callers
            .via(Path::new(path))
            .is_some_and(|via| callers.calls(via, text.to_ascii_lowercase().as_bytes()))
    }

    const BICEP: &str =
        "resource c 'Microsoft.MachineLearningServices/workspaces/computes@2023-04-01' = {}\n";

    #[test]
    fn a_bicep_module_is_called_by_a_string_ending_in_its_file_name() {
        let c = callers_of("/r/infra/modules/CI.bicep", BICEP);
        assert!(calls(&c, "a/main.bicep", "module x 'modules/ci.bicep' = {\n}\n"));
        assert!(calls(&c, "a/main.bicep", "module x './CI.bicep' = {}"));
        assert!(calls(&c, "main.bicep", "module x 'ci.bicep' = {}"));
        assert!(!calls(&c, "main.bicep", "module x 'modules/aci.bicep' = {}"));
        assert!(!calls(&c, "main.bicep", "module x 'ci.bicep.bak' = {}"));
        assert!(
            !calls(&c, "main.bicep", "// ci.bicep\nresource x 'y' = {}"),
            "no module statement"
        );
        assert!(
            !calls(&c, "main.tf", "module x 'ci.bicep' = {}"),
            "not a Bicep file"
        );
        // A parameters file kept elsewhere deploys the template it names.
        assert!(calls(
            &c,
            "env/prod.bicepparam",
            "using '../modules/ci.bicep'
param a = 1
"
        ));
        assert!(!calls(
            &c,
            "env/prod.bicepparam",
            "using '../modules/aci.bicep'
"
        ));
        assert!(!calls(
            &c,
            "env/prod.txt",
            "using '../modules/ci.bicep'
"
        ));
        // A Bicep file that neither defines nor calls has no callers looked up.
        assert!(
            callers_of("m/x.bicep", "param a string\n")
                .via(Path::new("main.bicep"))
                .is_none()
        );
    }

    #[test]
    fn a_python_helper_is_called_from_a_file_that_imports_its_module() {
        let helper = "from azure.ai.ml.entities import ComputeInstance\ndef make(c, size):\n    return ComputeInstance(name='x', size=size)\n";
        let c = callers_of("/r/lib/compute_utils.py", helper);
        assert!(calls(
            &c,
            "setup.py",
            "from compute_utils import make\nmake(c, size='S')\n"
        ));
        assert!(calls(&c, "a/setup.py", "from lib.compute_utils import make"));
        assert!(calls(&c, "a/setup.py", "import lib.compute_utils as cu"));
        assert!(calls(&c, "a/setup.py", "from . import compute_utils"));
        assert!(calls(
            &c,
            "nb.ipynb",
            "{\"source\": [\"from compute_utils import make\\n\"]}"
        ));
        assert!(!calls(&c, "setup.py", "from my_compute_utils import make"));
        assert!(!calls(&c, "setup.py", "compute_utils = 1\n"), "no import");
        // A package's `__init__.py` is imported by its folder's name.
        let c = callers_of("/r/helpers/__init__.py", helper);
        assert!(calls(&c, "setup.py", "from helpers import make"));
        // A file that names no compute class is no helper; a name Python cannot import
        // is imported nowhere; a caller found is not looked up as a helper.
        assert!(
            callers_of("/r/u.py", "def f(): pass\n")
                .via(Path::new("s.py"))
                .is_none()
        );
        assert!(
            callers_of("/r/my-utils.py", helper)
                .via(Path::new("s.py"))
                .is_none()
        );
        let mut chained = Callees::default();
        chained.add(Path::new("/r/u.py"), helper, true);
        assert!(chained.is_empty());
    }

    #[test]
    fn a_template_is_called_by_its_file_name_and_a_local_action_by_its_folder() {
        let run = "steps:\n- bash: az ml compute create --name x --size ${{ parameters.size }}\n";
        let c = callers_of("/r/pipelines/Create-CI.yml", run);
        assert!(calls(
            &c,
            "azure-pipelines.yml",
            "steps:\n- template: pipelines/create-ci.yml\n  parameters:\n    size: S\n"
        ));
        assert!(calls(&c, "a.yaml", "- template: 'create-ci.yml@self'"));
        assert!(calls(&c, "a.yml", "extends:\n  template: ../create-ci.yml\n"));
        assert!(calls(
            &c,
            ".github/workflows/s.yml",
            "jobs:\n  c:\n    uses: ./.github/workflows/create-ci.yml\n"
        ));
        assert!(!calls(&c, "a.yml", "- template: pipelines/create-ci.yml.old"));
        assert!(!calls(&c, "a.yml", "- template: pipelines/old-create-ci.yml"));
        assert!(!calls(&c, "a.yml", "name: create-ci.yml\n"), "no template call");
        let c = callers_of(
            "/r/.github/actions/make-ci/action.yml",
            "runs:\n  steps:\n  - run: az ml compute create -n x\n",
        );
        assert!(calls(
            &c,
            "w.yml",
            "steps:\n  - uses: ./.github/actions/make-ci\n"
        ));
        assert!(!calls(
            &c,
            "w.yml",
            "steps:\n  - uses: ./.github/actions/make-ci-2\n"
        ));
        // A YAML file the workflows reader does not read is no template of a compute.
        assert!(
            callers_of("/r/k8s/app.yml", "kind: Deployment\n")
                .via(Path::new("a.yml"))
                .is_none()
        );
    }

    #[test]
    fn a_terraform_module_is_called_by_a_source_ending_in_its_folder() {
        let c = callers_of("/r/infra/modules/WS/main.TF", "resource \"x\" \"y\" {}\n");
        assert!(calls(
            &c,
            "main.tf",
            "module \"a\" {\n  source = \"./modules/ws\"\n}\n"
        ));
        assert!(calls(&c, "main.tf", "module \"a\" {\n  source = \"../WS/\"\n}\n"));
        assert!(!calls(
            &c,
            "main.tf",
            "module \"a\" { source = \"./modules/ws-old\" }"
        ));
        assert!(!calls(
            &c,
            "main.tf",
            "resource \"x\" \"y\" { path = \"./lib/ws\" }"
        ));
        assert!(!calls(
            &c,
            "main.bicep",
            "module \"a\" { source = \"./modules/ws\" }"
        ));
    }

    #[test]
    fn cached_trigrams_rule_out_a_file_without_the_keyword_or_any_few_names() {
        let c = callers_of("/r/m/ci.bicep", BICEP);
        let holds = |words: &[&str]| {
            let words: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
            c.may_hold(Via::Bicep, |n| {
                words.iter().any(|w| w.windows(n.len()).any(|x| x == n))
            })
        };
        assert!(holds(&["module", "ci.bicep"]));
        assert!(!holds(&["ci.bicep"]));
        assert!(!holds(&["module", "other.bicep"]));
        // Many names: the keyword alone decides.
        let mut many = Callees::default();
        for i in 0..=FEW {
            many.add(Path::new(&format!("/r/m{i}.bicep")), BICEP, false);
        }
        assert!(many.callers().may_hold(Via::Bicep, |n| n == b"module"));
    }
}
