//! JSON Pointers (RFC 6901): the symbolic route of a finding (`/resources/instance_count`),
//! kept beside its concrete span.

use std::fmt;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer {
    segments: Vec<String>,
}

impl Pointer {
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses `/a/b~1c/0`. A string that does not start with `/` is taken as a single
    /// unescaped segment list separated by `/` (lenient, for hand-written tests).
    pub fn parse(s: &str) -> Self {
        let body = s.strip_prefix('/').unwrap_or(s);
        if body.is_empty() && s.starts_with('/') {
            return Self {
                segments: vec![String::new()],
            };
        }
        if body.is_empty() {
            return Self::root();
        }
        Self {
            segments: body
                .split('/')
                .map(|seg| seg.replace("~1", "/").replace("~0", "~"))
                .collect(),
        }
    }

    pub fn from_segments<I, S>(segments: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            segments: segments.into_iter().map(Into::into).collect(),
        }
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.segments.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    pub fn last(&self) -> Option<&str> {
        self.segments.last().map(String::as_str)
    }

    pub fn push(&mut self, segment: impl Into<String>) {
        self.segments.push(segment.into());
    }

    pub fn child(&self, segment: impl Into<String>) -> Self {
        let mut p = self.clone();
        p.push(segment);
        p
    }

    /// Drops the last segment; `false` if there was none.
    pub fn pop(&mut self) -> bool {
        self.segments.pop().is_some()
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for seg in &self.segments {
            f.write_str("/")?;
            f.write_str(&seg.replace('~', "~0").replace('/', "~1"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_escapes() {
        let p = Pointer::parse("/resources/requests/nvidia.com~1gpu/a~0b");
        assert_eq!(
            p.segments().collect::<Vec<_>>(),
            ["resources", "requests", "nvidia.com/gpu", "a~b"]
        );
        assert_eq!(p.to_string(), "/resources/requests/nvidia.com~1gpu/a~0b");
        assert_eq!(Pointer::parse("").to_string(), "");
        assert!(Pointer::parse("").is_empty());
    }
}
