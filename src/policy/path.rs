//! Field paths of rule conditions: dotted segments, quoted segments for keys with dots
//! (`resources.requests."nvidia.com/gpu"`), `*` wildcards over list items or mapping
//! values (`jobs.*.compute`), facts (`$vm.gpus`), and `@` for the reported node itself.

use std::fmt;

use crate::facts::{FACTS, Fields};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    Key(String),
    Wildcard,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldPath {
    /// A path into the document (relative to the root, or to the element inside `count`).
    Doc(Vec<Segment>),
    /// A fact: `$vm.gpus` is `Fact("vm", ["gpus"])`.
    Fact(String, Vec<String>),
    /// `@`: the node being reported on.
    Current,
}

impl FieldPath {
    pub fn parse(s: &str) -> Result<FieldPath, String> {
        let s = s.trim();
        if s == "@" {
            return Ok(FieldPath::Current);
        }
        let segments = split(s)?;
        if let Some(first) = segments.first().and_then(|seg| match seg {
            Segment::Key(k) if k.starts_with('$') => Some(k.clone()),
            _ => None,
        }) {
            let name = first[1..].to_string();
            if name.is_empty() {
                return Err(format!("`{s}`: a fact needs a name after `$`"));
            }
            let rest = segments[1..]
                .iter()
                .map(|seg| match seg {
                    Segment::Key(k) => Ok(k.clone()),
                    Segment::Wildcard => Err(format!("`{s}`: facts have no wildcards")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(FieldPath::Fact(name, rest));
        }
        Ok(FieldPath::Doc(segments))
    }

    pub fn has_wildcard(&self) -> bool {
        matches!(self, FieldPath::Doc(segs) if segs.contains(&Segment::Wildcard))
    }
}

fn split(s: &str) -> Result<Vec<Segment>, String> {
    if s.is_empty() {
        return Err("an empty field path".to_string());
    }
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        let seg = if chars.peek() == Some(&'"') {
            chars.next();
            let mut key = String::new();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => key.extend(chars.next()),
                    Some(c) => key.push(c),
                    None => return Err(format!("`{s}`: unterminated quoted segment")),
                }
            }
            Segment::Key(key)
        } else {
            let mut key = String::new();
            while let Some(&c) = chars.peek() {
                if c == '.' {
                    break;
                }
                key.push(c);
                chars.next();
            }
            match key.as_str() {
                "" => return Err(format!("`{s}`: empty segment")),
                "*" | "[*]" => Segment::Wildcard,
                _ => Segment::Key(key),
            }
        };
        out.push(seg);
        match chars.next() {
            None => break,
            Some('.') => continue,
            Some(c) => return Err(format!("`{s}`: expected `.` after a quoted segment, found `{c}`")),
        }
    }
    Ok(out)
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldPath::Current => f.write_str("@"),
            FieldPath::Fact(name, rest) => {
                write!(f, "${name}")?;
                for r in rest {
                    write!(f, ".{r}")?;
                }
                Ok(())
            }
            FieldPath::Doc(segs) => {
                for (i, seg) in segs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    match seg {
                        Segment::Wildcard => f.write_str("*")?,
                        Segment::Key(k) if k.contains('.') || k.contains('"') => write!(f, "{k:?}")?,
                        Segment::Key(k) => f.write_str(k)?,
                    }
                }
                Ok(())
            }
        }
    }
}

/// Checks that a fact path names a fact of [`FACTS`] and fields it has (`$vm.gpus`,
/// `$target.vm.series`, `$params.<name>`). `bare` allows a fact without its field
/// (`report.at: $vm`).
pub fn check_fact_path(path: &FieldPath, bare: bool) -> Result<(), String> {
    let FieldPath::Fact(name, rest) = path else {
        return Ok(());
    };
    let Some(fact) = crate::facts::FACTS.iter().find(|f| f.name == name.as_str()) else {
        let names = FACTS.iter().map(|f| f.name);
        let hint = crate::suggest::closest(name, names.clone())
            .map(|s| format!("did you mean `${s}`? "))
            .unwrap_or_default();
        return Err(format!(
            "`{path}`: `${name}` is not a fact ({hint}facts: {})",
            names.map(|f| format!("${f}")).collect::<Vec<_>>().join(", ")
        ));
    };
    let fields_error = |prefix: &str, field: &str, fields: &[&str]| {
        let hint = crate::suggest::closest(field, fields.iter())
            .map(|s| format!("did you mean `{prefix}.{s}`? "))
            .unwrap_or_default();
        format!(
            "`{path}`: `{field}` is not a field of `{prefix}` ({hint}its fields: {})",
            fields.join(", ")
        )
    };
    let (fields, nested) = match fact.fields {
        Fields::AnyName => {
            return match rest.len() {
                1 => Ok(()),
                0 => Err(format!("`{path}`: name the parameter (`${name}.<name>`)")),
                _ => Err(format!(
                    "`{path}`: a parameter has no fields (`${name}.{}`)",
                    rest[0]
                )),
            };
        }
        Fields::Whole => {
            return match rest.first() {
                None => Ok(()),
                Some(_) => Err(format!("`{path}`: `${name}` has no fields (write `${name}`)")),
            };
        }
        Fields::Named { fields, nested } => (fields, nested),
    };
    let Some(field) = rest.first() else {
        return if bare {
            Ok(())
        } else {
            Err(format!(
                "`{path}`: name a field of `${name}` (its fields: {})",
                fields.join(", ")
            ))
        };
    };
    if !fields.contains(&field.as_str()) {
        return Err(fields_error(&format!("${name}"), field, fields));
    }
    if let Some((_, subfields)) = nested.iter().find(|(f, _)| *f == field.as_str()) {
        let prefix = format!("${name}.{field}");
        return match rest.get(1) {
            None if bare => Ok(()),
            None => Err(format!(
                "`{path}`: name a field of `{prefix}` (its fields: {})",
                subfields.join(", ")
            )),
            Some(f) if !subfields.contains(&f.as_str()) => Err(fields_error(&prefix, f, subfields)),
            Some(_) if rest.len() > 2 => Err(format!("`{path}`: `{prefix}.{}` has no fields", rest[1])),
            Some(_) => Ok(()),
        };
    }
    if rest.len() > 1 {
        return Err(format!("`{path}`: `${name}.{field}` has no fields"));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn parses_paths() {
        assert_eq!(
            FieldPath::parse("resources.requests.\"nvidia.com/gpu\"").unwrap(),
            FieldPath::Doc(vec![
                Segment::Key("resources".into()),
                Segment::Key("requests".into()),
                Segment::Key("nvidia.com/gpu".into())
            ])
        );
        assert_eq!(
            FieldPath::parse("jobs.*.compute").unwrap(),
            FieldPath::Doc(vec![
                Segment::Key("jobs".into()),
                Segment::Wildcard,
                Segment::Key("compute".into())
            ])
        );
        assert_eq!(
            FieldPath::parse("$vm.gpus").unwrap(),
            FieldPath::Fact("vm".into(), vec!["gpus".into()])
        );
        assert_eq!(FieldPath::parse("@").unwrap(), FieldPath::Current);
        assert!(FieldPath::parse("a..b").is_err());
        assert!(FieldPath::parse("\"a").is_err());
        assert!(FieldPath::parse("$vm.*").is_err());
        assert_eq!(
            FieldPath::parse("a.\"b.c\".*").unwrap().to_string(),
            "a.\"b.c\".*"
        );
    }
}
