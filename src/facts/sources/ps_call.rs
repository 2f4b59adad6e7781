//! PowerShell's binding of a call's words to the parameters of a function of the script
//! (`New-AmlCluster -Name gpu -Size:Standard_NC6 "pos"`), as PowerShell binds them: by
//! name first (any case, `-Name value` or `-Name:value`, a unique prefix of a name or an
//! alias: `-Si`), a `[switch]` by its name alone, then the other words by position in the
//! order the parameters are declared (switches aside), and the entries of a splatted
//! literal hashtable (`@params` of `$params = @{ Name = "x"; Size = "y" }`). What the
//! binding cannot tell (a prefix naming several parameters, a splat not read, positions
//! declared with `Position =`) leaves the parameters not named in the call unknown,
//! saying why. One pass over the words; no recursion.

use super::shell::{PsParam, Word, WordPart};
use crate::source::Span;

/// What a call gives a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// This word's value.
    Word(Word),
    /// A switch named alone: `$true`, at its name.
    Flag(Span),
    /// Not known: why, and where the call says so.
    Unknown(String, Span),
}

/// Which parameter `-name` names.
enum Named {
    One(usize),
    Several,
    None,
}

fn lookup(params: &[PsParam], name: &str) -> Named {
    let name = name.to_ascii_lowercase();
    fn names(p: &PsParam) -> impl Iterator<Item = String> + '_ {
        std::iter::once(p.name.to_ascii_lowercase()).chain(p.aliases.iter().cloned())
    }
    if let Some(k) = params.iter().position(|p| names(p).any(|n| n == name)) {
        return Named::One(k);
    }
    let mut found = None;
    for (k, p) in params.iter().enumerate() {
        if names(p).any(|n| n.starts_with(&name)) {
            if found.is_some() {
                return Named::Several;
            }
            found = Some(k);
        }
    }
    found.map_or(Named::None, Named::One)
}

/// The parameter name of a word `-Name` or `-Name:value` (a letter after the `-`: `-5` is
/// a number), and the value's parts after the `:`.
fn parameter(w: &Word) -> Option<(String, Option<Word>)> {
    let Some(WordPart::Lit { text, span, exact }) = w.parts.first() else {
        return None;
    };
    let rest = text.strip_prefix('-')?;
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let Some((name, value)) = rest.split_once(':') else {
        return (w.parts.len() == 1).then(|| (rest.to_string(), None));
    };
    let skip = 1 + name.len() + 1;
    let mut parts = Vec::new();
    if !value.is_empty() {
        let start = if *exact {
            span.start + skip as u32
        } else {
            span.start
        };
        parts.push(WordPart::Lit {
            text: value.to_string(),
            span: Span::new(start.min(span.end), span.end),
            exact: *exact,
        });
    }
    parts.extend(w.parts[1..].iter().cloned());
    let inner = match (parts.first(), parts.last()) {
        (Some(a), Some(b)) => a.span().cover(b.span()),
        _ => w.span,
    };
    Some((name.to_string(), Some(Word { parts, span: inner })))
}

/// The entries of the hashtable a call splats (`@name`: its name), each key and its
/// value's word; or why they are not known.
pub type Splat<'a> = &'a dyn Fn(&str) -> Result<Vec<(String, Word)>, String>;

/// What the call's `words` (after the function's name) give each of `params` (of the
/// function `function`), in order (`None`: nothing, its default applies), then the words
/// no parameter takes (`$args[0]`...).
pub fn bind(words: &[Word], params: &[PsParam], function: &str, splat: Splat<'_>) -> Vec<Option<Bound>> {
    let mut out: Vec<Option<Bound>> = vec![None; params.len()];
    let mut positional: Vec<&Word> = Vec::new();
    let mut unsure: Option<(String, Span)> = None;
    let mut splatted: Vec<(String, Word)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if let Some((name, value)) = parameter(w) {
            match lookup(params, &name) {
                Named::One(k) => {
                    out[k] = Some(match value {
                        Some(v) => Bound::Word(v),
                        None if params[k].switch => Bound::Flag(w.span),
                        None => match words.get(i) {
                            Some(v) => {
                                i += 1;
                                Bound::Word(v.clone())
                            }
                            None => Bound::Unknown(format!("the call gives `-{name}` no value"), w.span),
                        },
                    });
                }
                Named::Several => {
                    // Its value, if it has one, is not a positional word.
                    if value.is_none() && words.get(i).is_some_and(|v| parameter(v).is_none()) {
                        i += 1;
                    }
                    unsure.get_or_insert((
                        format!("the call's `-{name}` may name several parameters of `{function}`"),
                        w.span,
                    ));
                }
                // Not one of its parameters: an argument of a simple function (`$args`).
                Named::None => positional.push(w),
            }
            continue;
        }
        if let Some(lit) = w.literal()
            && let Some(var) = lit.strip_prefix('@')
            && !var.is_empty()
            && var
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b':')
        {
            match splat(var) {
                Ok(entries) => splatted.extend(entries),
                Err(why) => {
                    unsure.get_or_insert((format!("the call splats `{lit}`, not read: {why}"), w.span));
                }
            }
            continue;
        }
        positional.push(w);
    }
    // A splat's entries, for the parameters the call does not name.
    for (key, w) in splatted {
        match lookup(params, &key) {
            Named::One(k) => {
                out[k].get_or_insert(Bound::Word(w));
            }
            Named::Several => {
                unsure.get_or_insert((
                    format!("the splatted `{key}` may name several parameters of `{function}`"),
                    w.span,
                ));
            }
            Named::None => {}
        }
    }
    let mut rest = Vec::new();
    if !positional.is_empty() && params.iter().any(|p| p.positioned) {
        let why = format!(
            "the call passes words by position to `{function}`, whose parameters declare their positions"
        );
        unsure.get_or_insert((why.clone(), positional[0].span));
        rest.extend(
            positional
                .iter()
                .map(|w| Some(Bound::Unknown(why.clone(), w.span))),
        );
    } else {
        let mut next = positional.into_iter();
        for (k, p) in params.iter().enumerate() {
            if out[k].is_none() && !p.switch {
                match next.next() {
                    Some(w) => out[k] = Some(Bound::Word(w.clone())),
                    None => break,
                }
            }
        }
        rest.extend(next.map(|w| Some(Bound::Word(w.clone()))));
    }
    if let Some((why, span)) = unsure {
        for o in out.iter_mut().filter(|o| o.is_none()) {
            *o = Some(Bound::Unknown(why.clone(), span));
        }
    }
    out.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::sources::shell::{Dialect, LexOptions, parse};

    fn call(text: &str) -> Vec<Word> {
        let script = parse(
            text,
            crate::facts::sources::shell::Map::Base(0),
            LexOptions::new(Dialect::PowerShell),
        );
        script.commands[0].words[1..].to_vec()
    }

    fn param(name: &str) -> PsParam {
        PsParam {
            name: name.into(),
            span: Span::new(0, 0),
            default: false,
            switch: false,
            mandatory: false,
            positioned: false,
            aliases: Vec::new(),
        }
    }

    /// The text each parameter is given, or `?` with why, or `-` for nothing.
    fn shown(text: &str, params: &[PsParam]) -> Vec<String> {
        let splat = |name: &str| -> Result<Vec<(String, Word)>, String> {
            match name {
                "h" => Ok(call("F 'Standard_NC6'")
                    .into_iter()
                    .map(|w| ("size".to_string(), w))
                    .collect()),
                _ => Err(format!("`{name}` is not set")),
            }
        };
        bind(&call(text), params, "F", &splat)
            .into_iter()
            .map(|b| match b {
                None => "-".into(),
                Some(Bound::Word(w)) => {
                    let s = w.inner_span();
                    let at = text.get(s.start as usize..s.end as usize).unwrap_or("elsewhere");
                    format!("{}@{at}", w.literal().unwrap_or_default())
                }
                Some(Bound::Flag(_)) => "True".into(),
                Some(Bound::Unknown(why, _)) => format!("?{why}"),
            })
            .collect()
    }

    #[test]
    fn by_name_prefix_colon_and_position() {
        let mut size = param("Size");
        size.aliases.push("vm".into());
        let mut force = param("Force");
        force.switch = true;
        let ps = [param("Name"), size, param("MaxNodes"), force];
        assert_eq!(
            shown("F -name gpu -SIZE Standard_NC6", &ps),
            ["gpu@gpu", "Standard_NC6@Standard_NC6", "-", "-"]
        );
        assert_eq!(
            shown("F -Name:gpu -Si 'Standard_NC6' -Force 3", &ps),
            ["gpu@gpu", "Standard_NC6@Standard_NC6", "3@3", "True"]
        );
        assert_eq!(
            shown("F \"pos\" \"Standard_NC12\"", &ps),
            ["pos@pos", "Standard_NC12@Standard_NC12", "-", "-"]
        );
        assert_eq!(shown("F -vm x -m 2 a", &ps), ["a@a", "x@x", "2@2", "-"]);
        // Words no parameter takes follow, for `$args[0]`...
        assert_eq!(shown("F a b c d", &ps[..2]), ["a@a", "b@b", "c@c", "d@d"]);
        // `-Ma` and `-M` name `MaxNodes` only; a prefix of two is unknown.
        let two = [param("MaxNodes"), param("MinNodes")];
        assert_eq!(
            shown("F -M 2", &two),
            [
                "?the call's `-M` may name several parameters of `F`",
                "?the call's `-M` may name several parameters of `F`"
            ]
        );
        assert_eq!(shown("F @p -MaxNodes 1", &two)[0], "1@1");
        assert_eq!(
            shown("F @p -MaxNodes 1", &two)[1],
            "?the call splats `@p`, not read: `p` is not set"
        );
        assert_eq!(
            shown("F @h -Name n", &ps),
            ["n@n", "Standard_NC6@elsewhere", "-", "-"]
        );
        assert_eq!(shown("F -Size x @h", &ps)[1], "x@x");
        assert_eq!(
            shown("F -MaxNodes", &two)[0],
            "?the call gives `-MaxNodes` no value"
        );
    }
}
