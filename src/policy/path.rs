//! Field paths of rule conditions: dotted segments, quoted segments for keys with dots
//! (`resources.requests."nvidia.com/gpu"`), `*` wildcards over list items or mapping
//! values (`jobs.*.compute`), facts (`$vm.gpus`), and `@` for the reported node itself.

use std::fmt;

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
