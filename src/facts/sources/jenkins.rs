//! `az ml compute create` in Jenkins pipelines: `Jenkinsfile`, `*.jenkinsfile` and Groovy
//! files (`*.groovy`: a shared library's `vars/` steps). The script of each `sh`, `bat`,
//! `powershell` and `pwsh` step — a Groovy string (`'…'`, `"…"`, `'''…'''`, `"""…"""`)
//! given first or as `script:` — is decoded as Groovy decodes it (escapes, a `\` that
//! continues the line), every byte mapped back to the file (`ipynb::Code`), and read by
//! the az CLI reader in the step's shell (`sh`: bash, `bat`: cmd, `powershell`/`pwsh`:
//! PowerShell). Each step runs in a shell of its own: its own assignments are known, not
//! another step's. In a double-quoted (interpolating) string, `${expr}` and `$name` are
//! Groovy's, replaced before the shell runs: not known statically, recorded dynamic.
//!
//! Suppressions: Groovy's `//` and `/* */` comments (after code: their line; alone on a
//! line: the next line of code), and the shell's own comments inside a script. One pass
//! over the bytes, no recursion; linear in the file.

use super::az_cli::{Ctx, Eval, Outer, ScriptVal, Vars, definitions, wanted};
use super::common::{Definitions, Input, Layout, Reader, line_end};
use super::ipynb::Code;
use super::shell::{Dialect, LexOptions, Map, comment_of, parse};
use crate::source::Span;

pub const READER: Reader = Reader {
    name: "az-cli Jenkins pipelines",
    wants: is_jenkins,
    needles: super::scripts::NEEDLES,
    read,
};

/// Whether a (lower-cased) file name is a Jenkins pipeline or Groovy file.
pub fn is_jenkins(name: &str) -> bool {
    name == "jenkinsfile" || name.ends_with(".jenkinsfile") || (name.len() > 7 && name.ends_with(".groovy"))
}

/// What stands for a Groovy interpolation in a decoded script: characters no shell treats
/// specially, which [`GroovyOuter`] reports as not known.
const INTERP_OPEN: &str = "\u{e000}";
const INTERP_CLOSE: &str = "\u{e001}";

/// A Groovy string literal of the file.
struct GroovyString {
    /// Its content (without the quotes).
    start: usize,
    end: usize,
    /// `"…"` and `"""…"""`: `$` interpolates.
    interpolates: bool,
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
    scripts: Vec<(Dialect, GroovyString)>,
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
                }
                end
            }
            b'\'' | b'"' => self.string(i),
            c if c.is_ascii_alphabetic() || c == b'_' => self.word(i),
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
        let s = GroovyString {
            start,
            end,
            interpolates: c == b'"',
        };
        if let Some(st) = self.step.take() {
            if st.label.unwrap_or(true) {
                self.out.scripts.push((st.dialect, s));
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

/// A Groovy string's content as the step receives it, mapped back to the file; the
/// spans of its interpolations.
fn decode(text: &str, s: &GroovyString) -> (Code, Vec<Span>) {
    let b = text.as_bytes();
    let mut code = Code::empty();
    let mut interps = Vec::new();
    let mut run = s.start;
    let mut i = s.start;
    let end = s.end.min(b.len());
    while i < end {
        match b[i] {
            b'\\' if i + 1 < end => {
                code.push_exact(run, &text[run..i]);
                let (decoded, raw) = groovy_escape(&text[i..end]);
                if raw == 0 {
                    // Not an escape Groovy knows: kept as written.
                    i += 1;
                    continue;
                }
                if !decoded.is_empty() {
                    code.push_escape(i, raw, &decoded);
                }
                i += raw;
                run = i;
            }
            b'$' if s.interpolates => {
                let close = match b.get(i + 1) {
                    Some(b'{') => {
                        let mut depth = 0usize;
                        let mut j = i + 1;
                        while j < end {
                            match b[j] {
                                b'{' => depth += 1,
                                b'}' => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            j += 1;
                        }
                        Some((j + 1).min(end))
                    }
                    Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                        // `$name`, `$a.b.c`.
                        let mut j = i + 1;
                        while j < end
                            && (b[j].is_ascii_alphanumeric()
                                || b[j] == b'_'
                                || (b[j] == b'.' && b.get(j + 1).is_some_and(|n| n.is_ascii_alphabetic())))
                        {
                            j += 1;
                        }
                        Some(j)
                    }
                    _ => None,
                };
                let Some(close) = close else {
                    i += 1;
                    continue;
                };
                code.push_exact(run, &text[run..i]);
                code.push_escape(i, 1, INTERP_OPEN);
                code.push_escape(close - 1, 1, INTERP_CLOSE);
                interps.push(Span::new(i as u32, close as u32));
                i = close;
                run = i;
            }
            _ => i += 1,
        }
    }
    code.push_exact(run, &text[run..end]);
    if !code.text.ends_with('\n') {
        code.push_escape(end, 0, "\n");
    }
    (code, interps)
}

/// A Groovy escape at the start of `s` (a `\`): what it stands for and how many bytes it
/// is; 0 bytes: not an escape.
fn groovy_escape(s: &str) -> (String, usize) {
    let b = s.as_bytes();
    let one = |c: char| (c.to_string(), 2);
    match b.get(1) {
        Some(b'n') => one('\n'),
        Some(b't') => one('\t'),
        Some(b'r') => one('\r'),
        Some(b'b') => one('\u{8}'),
        Some(b'f') => one('\u{c}'),
        Some(b's') => one(' '),
        Some(b'\\') => one('\\'),
        Some(b'\'') => one('\''),
        Some(b'"') => one('"'),
        Some(b'$') => one('$'),
        // A line continued: the newline is not part of the string.
        Some(b'\n') => (String::new(), 2),
        Some(b'\r') if b.get(2) == Some(&b'\n') => (String::new(), 3),
        Some(b'u') => match s.get(2..6).and_then(|h| u32::from_str_radix(h, 16).ok()) {
            Some(c) => (char::from_u32(c).unwrap_or('\u{fffd}').to_string(), 6),
            None => (String::new(), 0),
        },
        _ => (String::new(), 0),
    }
}

/// What a step's script sees of the Groovy around it: its interpolations are not known.
struct GroovyOuter<'a> {
    text: &'a str,
    interps: &'a [Span],
}

impl Outer for GroovyOuter<'_> {
    fn lit(&self, text: &str, span: Span) -> Option<ScriptVal> {
        if !text.contains(INTERP_OPEN) && !text.contains(INTERP_CLOSE) {
            return None;
        }
        let written = self
            .interps
            .iter()
            .find(|s| s.end > span.start && s.start < span.end)
            .and_then(|s| self.text.get(s.range()))
            .unwrap_or("$…");
        Some(ScriptVal::Dynamic(format!(
            "`{written}` is a Groovy expression, replaced when the pipeline runs"
        )))
    }
}

fn read(input: &Input<'_>, out: &mut Definitions) {
    let text = input.source.text.as_str();
    let scanned = scan(text);
    for (dialect, s) in &scanned.scripts {
        if memchr::memmem::find(&text.as_bytes()[s.start..s.end.min(text.len())], b"ml compute").is_none() {
            continue;
        }
        let (code, interps) = decode(text, s);
        let options = LexOptions {
            keep: Some(wanted),
            ..LexOptions::new(*dialect)
        };
        let script = parse(&code.text, Map::Code(&code, 0), options);
        let vars = Vars::scan(&script, *dialect);
        let outer = GroovyOuter {
            text,
            interps: &interps,
        };
        let cx = Ctx {
            input,
            eval: Eval {
                vars: &vars,
                outer: &outer,
            },
            note: None,
        };
        out.computes.extend(definitions(&script, &cx));
        out.comments
            .extend(script.comments.iter().map(|c| comment_of(input.source, c)));
    }
    out.comments.extend(super::iac::comments(
        input.source,
        &scanned.layout.comments,
        &scanned.layout.code,
    ));
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
        let names: Vec<Option<&str>> = out.computes.iter().map(|d| d.known_name()).collect();
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
}
