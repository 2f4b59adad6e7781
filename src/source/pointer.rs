//! JSON Pointers (RFC 6901): the symbolic route of a finding (`/resources/instance_count`),
//! kept beside its concrete span.

use std::fmt;

/// The segments are kept unescaped, one after another in one string, with the end of each
/// beside: a child pointer (made for every node a schema walk visits) costs two
/// allocations, not one per segment.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Pointer {
    text: String,
    ends: Vec<usize>,
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
            return Self::from_segments([""]);
        }
        if body.is_empty() {
            return Self::root();
        }
        Self::from_segments(
            body.split('/')
                .map(|seg| seg.replace("~1", "/").replace("~0", "~")),
        )
    }

    pub fn from_segments<I, S>(segments: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut p = Self::root();
        for seg in segments {
            p.push(seg.into());
        }
        p
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(a, b)| &self.text[a..b])
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn last(&self) -> Option<&str> {
        let end = *self.ends.last()?;
        let start = self.ends.len().checked_sub(2).map_or(0, |i| self.ends[i]);
        Some(&self.text[start..end])
    }

    pub fn push(&mut self, segment: impl AsRef<str>) {
        self.text.push_str(segment.as_ref());
        self.ends.push(self.text.len());
    }

    pub fn child(&self, segment: impl AsRef<str>) -> Self {
        let segment = segment.as_ref();
        let mut text = String::with_capacity(self.text.len() + segment.len());
        text.push_str(&self.text);
        text.push_str(segment);
        let mut ends = Vec::with_capacity(self.ends.len() + 1);
        ends.extend_from_slice(&self.ends);
        ends.push(text.len());
        Self { text, ends }
    }

    /// Drops the last segment; `false` if there was none.
    pub fn pop(&mut self) -> bool {
        if self.ends.pop().is_none() {
            return false;
        }
        self.text.truncate(self.ends.last().copied().unwrap_or(0));
        true
    }
}

/// Segment by segment, as a list of strings compares.
impl Ord for Pointer {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.segments().cmp(other.segments())
    }
}

impl PartialOrd for Pointer {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pointer")
            .field("segments", &self.segments().collect::<Vec<_>>())
            .finish()
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for seg in self.segments() {
            f.write_str("/")?;
            f.write_str(&seg.replace('~', "~0").replace('/', "~1"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
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
        assert_eq!(Pointer::parse("/").segments().collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn children_pop_and_order_as_lists_of_segments() {
        let mut p = Pointer::root().child("a").child("").child("bc");
        assert_eq!(p.len(), 3);
        assert_eq!(p.last(), Some("bc"));
        assert!(p.pop());
        assert_eq!(p.last(), Some(""));
        assert_eq!(p, Pointer::from_segments(["a", ""]));
        assert!(p.pop() && p.pop() && !p.pop());
        assert!(p.is_empty() && p.last().is_none());
        // ["a", "b"] and ["ab"] hold the same text but differ, and order segment-wise.
        let ab = Pointer::from_segments(["a", "b"]);
        let joined = Pointer::from_segments(["ab"]);
        assert_ne!(ab, joined);
        assert!(ab < joined && Pointer::from_segments(["a"]) < ab);
        assert!(Pointer::from_segments(["b"]) > Pointer::from_segments(["a", "z"]));
    }
}
