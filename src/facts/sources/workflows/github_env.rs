//! `$GITHUB_ENV`: a GitHub Actions step whose `run:` writes a `NAME=value` line to the
//! file `$GITHUB_ENV` names sets the environment variable `NAME` for the job's later
//! steps (`$NAME` in their scripts, `${{ env.NAME }}` in the workflow). GitHub's own
//! examples write it with `echo "NAME=value" >> "$GITHUB_ENV"`; that form is read, in
//! bash (the default shell): its word evaluated where it is written (the step's `env:`,
//! the script's own variables before it, the workflow's inputs), the value labelled at its
//! literal. Another form (a here-document, `printf`, `tee`, PowerShell's `Out-File`) sets
//! nothing amlint knows: a later step that reads the name finds it unset, as before.
//!
//! `$GITHUB_OUTPUT` is read the same way: `echo "name=value" >> "$GITHUB_OUTPUT"` in a
//! step with an `id:` is `${{ steps.<id>.outputs.name }}` for the steps after it.

use super::super::az_cli::{Eval, Outer, ScriptVal, Vars};
use super::super::shell::{Dialect, LexOptions, Map, Word, WordPart, parse};
use crate::source::Span;

/// Which file a write goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum File {
    /// `$GITHUB_ENV`: environment variables of the later steps.
    Env,
    /// `$GITHUB_OUTPUT`: outputs of the step (`steps.<id>.outputs.<name>`).
    Output,
}

/// One `NAME=value` line written to one of the files.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Write {
    pub file: File,
    pub name: String,
    pub value: ScriptVal,
}

/// Whether a step's script may write to either file (a byte search).
pub(super) fn may_write(script: &str) -> bool {
    memchr::memmem::find(script.as_bytes(), b"GITHUB_ENV").is_some()
        || memchr::memmem::find(script.as_bytes(), b"GITHUB_OUTPUT").is_some()
}

/// The variables the script in `source[start..end]` (a step's `run:`, read in place;
/// `newlines`: its line breaks are the script's) writes to `$GITHUB_ENV` or
/// `$GITHUB_OUTPUT`, in the order written, each with its value as the later steps see
/// it. A write inside a block of the script (`if`, a loop, a function) may not happen:
/// its value is unknown.
pub(super) fn writes(
    source: &str,
    start: usize,
    end: usize,
    newlines: bool,
    outer: &dyn Outer,
) -> Vec<Write> {
    let Some(text) = source.get(start..end) else {
        return Vec::new();
    };
    if !may_write(text) {
        return Vec::new();
    }
    let options = LexOptions {
        newlines,
        ..LexOptions::new(Dialect::Bash)
    };
    let script = parse(text, Map::Base(start as u32), options);
    let vars = Vars::scan(&script, Dialect::Bash);
    let eval = Eval { vars: &vars, outer };
    let mut out = Vec::new();
    for c in &script.commands {
        let [cmd, arg] = c.words.as_slice() else {
            continue;
        };
        if cmd.literal().as_deref() != Some("echo") {
            continue;
        }
        let after = source.get(arg.span.end as usize..end).unwrap_or_default();
        let Some(file) = redirected_to(after) else {
            continue;
        };
        let e = eval.word(arg, c.span.start);
        let (name, value) = match e.value {
            Ok(text) => {
                let Some((name, value)) = text.split_once('=') else {
                    continue;
                };
                // Where the value is written: in the word itself (after `NAME=`), or the
                // literal of the one variable it is.
                let inner = arg.inner_span();
                let literal = if e.in_place && inner.len() as usize == text.len() {
                    Some(Span::new(inner.start + name.len() as u32 + 1, inner.end))
                } else {
                    e.origin
                        .or_else(|| value_origin(&eval, arg, c.span.start))
                        .filter(|o| o.len() as usize == value.len())
                };
                (name.to_string(), ScriptVal::known(value, literal))
            }
            // The name may still be written literally (`NAME=$(date)`).
            Err(why) => match arg.parts.first() {
                Some(WordPart::Lit { text, .. }) if text.contains('=') => {
                    let name = text.split('=').next().unwrap_or_default().to_string();
                    (name, ScriptVal::Dynamic(why))
                }
                _ => continue,
            },
        };
        if !is_name(&name) {
            continue;
        }
        let value = if c.depth > 0 {
            ScriptVal::Dynamic(format!(
                "`{name}` is written to `{}` inside a block of a step's script (an `if`, a loop or a function), which may not run",
                file.variable()
            ))
        } else {
            value
        };
        out.push(Write { file, name, value });
    }
    out
}

/// Where the value of `NAME=$VALUE` (a literal `NAME=` and then the rest) comes from:
/// the origin of the rest alone.
fn value_origin(eval: &Eval<'_>, word: &Word, at: u32) -> Option<Span> {
    let (first, rest) = word.parts.split_first()?;
    match first {
        WordPart::Lit { text, .. } if text.ends_with('=') && text.matches('=').count() == 1 => {}
        _ => return None,
    }
    let rest = Word {
        parts: rest.to_vec(),
        span: word.span,
    };
    eval.word(&rest, at).origin
}

impl File {
    /// As a script names it.
    pub fn variable(self) -> &'static str {
        match self {
            File::Env => "$GITHUB_ENV",
            File::Output => "$GITHUB_OUTPUT",
        }
    }
}

/// The file the text after a command's last word redirects its output to (`>>
/// $GITHUB_ENV`, `>>"$GITHUB_OUTPUT"`, `> ${GITHUB_ENV}`), up to the end of the command.
fn redirected_to(after: &str) -> Option<File> {
    let end = after.find(['\n', ';', '|', '&', '#']).unwrap_or(after.len());
    let rest = after[..end].trim();
    let rest = rest.strip_prefix(">>").or_else(|| rest.strip_prefix('>'))?;
    let rest = rest.trim_start();
    let unquoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(rest);
    match unquoted {
        "$GITHUB_ENV" | "${GITHUB_ENV}" => Some(File::Env),
        "$GITHUB_OUTPUT" | "${GITHUB_OUTPUT}" => Some(File::Output),
        _ => None,
    }
}

/// An environment variable's name as GitHub reads it from the file.
fn is_name(name: &str) -> bool {
    let mut b = name.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoOuter;
    impl Outer for NoOuter {}

    fn written(script: &str) -> Vec<(String, ScriptVal)> {
        writes(script, 0, script.len(), true, &NoOuter)
            .into_iter()
            .map(|w| (w.name, w.value))
            .collect()
    }

    #[test]
    fn echo_lines_redirected_to_the_file_are_read_at_their_values() {
        let s = "N=cpu\necho \"CLUSTER=gpu-cl\" >> $GITHUB_ENV\necho SIZE=Standard_NC6 >>\"$GITHUB_ENV\"\necho \"FROM=$N\" > ${GITHUB_ENV}\n";
        let w = written(s);
        let names: Vec<&str> = w.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["CLUSTER", "SIZE", "FROM"]);
        let ScriptVal::Known { text, literal } = &w[0].1 else {
            panic!()
        };
        assert_eq!(
            (
                text.as_str(),
                &s[literal.unwrap().start as usize..literal.unwrap().end as usize]
            ),
            ("gpu-cl", "gpu-cl")
        );
        let ScriptVal::Known { text, literal } = &w[1].1 else {
            panic!()
        };
        assert_eq!(
            (
                text.as_str(),
                &s[literal.unwrap().start as usize..literal.unwrap().end as usize]
            ),
            ("Standard_NC6", "Standard_NC6")
        );
        // Through the script's own variable: labelled at its literal.
        let ScriptVal::Known { text, literal } = &w[2].1 else {
            panic!()
        };
        assert_eq!(
            (
                text.as_str(),
                &s[literal.unwrap().start as usize..literal.unwrap().end as usize]
            ),
            ("cpu", "cpu")
        );
    }

    #[test]
    fn other_outputs_and_blocks_are_not_known_values() {
        let s = "echo \"A=1\" >> out.txt\necho \"O=1\" >> $GITHUB_OUTPUTS\necho \"B=2\" | tee -a $GITHUB_ENV\nif true; then\n  echo \"C=3\" >> $GITHUB_ENV\nfi\necho \"D=$(date)\" >> $GITHUB_ENV\necho \"$X\" >> $GITHUB_ENV\n";
        let w = written(s);
        let names: Vec<&str> = w.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["C", "D"]);
        assert!(w.iter().all(|(_, v)| matches!(v, ScriptVal::Dynamic(_))));
    }

    #[test]
    fn outputs_are_told_from_environment_variables() {
        let s = "echo \"cluster=gpu\" >> \"$GITHUB_OUTPUT\"\necho \"E=1\" >> $GITHUB_ENV\n";
        let files: Vec<File> = writes(s, 0, s.len(), true, &NoOuter)
            .iter()
            .map(|w| w.file)
            .collect();
        assert_eq!(files, [File::Output, File::Env]);
    }
}
