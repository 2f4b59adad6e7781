//! Lists a configuration builds on another's without copying them (issue 34, guard 6:
//! memory proportional to input bytes). A configuration that `extend`s a base shares the
//! base's lists and adds its own entries in a layer of its own: sixty folders extending one
//! 3.5 MB base hold the base once, and cloning a configuration clones a pointer.
//!
//! [`Layered`] keeps the order a merge gives (`MERGE` in `parse.rs`: the base's entries,
//! then the extending file's), so "the later entry wins" and "the most specific selector
//! wins" read it as they read a `Vec`.

use std::sync::Arc;

/// Most layers before a push copies them into one: a chain stays short whatever builds it.
const MAX_DEPTH: usize = 32;

/// An append-only list of entries in shared layers, outermost (the base's) first.
pub struct Layered<T>(Option<Arc<Node<T>>>);

struct Node<T> {
    /// The layer this one adds to.
    outer: Option<Arc<Node<T>>>,
    items: Vec<T>,
    /// Layers from this one to the outermost, this one included.
    depth: usize,
}

impl<T> Default for Layered<T> {
    fn default() -> Self {
        Layered(None)
    }
}

impl<T> Clone for Layered<T> {
    /// A pointer copy: the entries are shared.
    fn clone(&self) -> Self {
        Layered(self.0.clone())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Layered<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Layered<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<T> From<Vec<T>> for Layered<T> {
    fn from(items: Vec<T>) -> Self {
        if items.is_empty() {
            return Layered(None);
        }
        Layered(Some(Arc::new(Node {
            outer: None,
            items,
            depth: 1,
        })))
    }
}

impl<T> FromIterator<T> for Layered<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Layered::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T: Clone> Layered<T> {
    /// Appends an entry: to this list's own layer when no other list shares it, else to a
    /// new layer over the shared ones (nothing shared is copied).
    pub fn push(&mut self, item: T) {
        if let Some(node) = self.0.as_mut().and_then(Arc::get_mut) {
            node.items.push(item);
            return;
        }
        let outer = self.0.take();
        let depth = outer.as_ref().map_or(0, |n| n.depth) + 1;
        if depth > MAX_DEPTH {
            let mut items: Vec<T> = Layered(outer).iter().cloned().collect();
            items.push(item);
            *self = Layered::from(items);
            return;
        }
        self.0 = Some(Arc::new(Node {
            outer,
            items: vec![item],
            depth,
        }));
    }
}

impl<T: Clone> Layered<T> {
    /// Every entry, copied into one list (for what compiles them once: pattern sets).
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().cloned().collect()
    }
}

impl<T: Clone> Extend<T> for Layered<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<T> Layered<T> {
    /// The layers, outermost first.
    fn layers(&self) -> Vec<&Node<T>> {
        let mut out = Vec::new();
        let mut next = self.0.as_deref();
        while let Some(node) = next {
            out.push(node);
            next = node.outer.as_deref();
        }
        out.reverse();
        out
    }

    /// Every entry, the base's first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + '_ {
        self.layers().into_iter().flat_map(|n| n.items.iter())
    }

    /// The first entry (the base's first).
    pub fn first(&self) -> Option<&T> {
        self.iter().next()
    }

    /// The entry at `index`, in merge order.
    pub fn get(&self, index: usize) -> Option<&T> {
        self.iter().nth(index)
    }

    /// The layers, innermost first, without collecting them (a walk asks `is_empty` of
    /// every entry).
    fn chain(&self) -> impl Iterator<Item = &Node<T>> {
        std::iter::successors(self.0.as_deref(), |node| node.outer.as_deref())
    }

    pub fn len(&self) -> usize {
        self.chain().map(|n| n.items.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.chain().all(|n| n.items.is_empty())
    }
}

impl<'a, T> IntoIterator for &'a Layered<T> {
    type Item = &'a T;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = &'a T> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extending_list_shares_its_base_and_keeps_merge_order() {
        let mut base: Layered<u32> = vec![1, 2, 3].into();
        base.push(4);
        let shared = base.clone();
        let mut child = base.clone();
        child.push(5);
        child.push(6);
        assert_eq!(child.iter().copied().collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
        assert_eq!(base.iter().copied().collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(shared, base);
        assert_eq!(child.len(), 6);
        // The base's layer is one allocation shared by all three.
        let node = |l: &Layered<u32>| Arc::as_ptr(l.0.as_ref().unwrap());
        assert_eq!(node(&base), node(&shared));
        assert_eq!(
            child.0.as_ref().unwrap().outer.as_ref().map(Arc::as_ptr),
            Some(node(&base))
        );
        assert!(Layered::<u32>::default().is_empty());
        assert_eq!(child.iter().next_back(), Some(&6));
    }

    #[test]
    fn chains_stay_short() {
        let mut list: Layered<usize> = Layered::default();
        let mut keep = Vec::new();
        for i in 0..200 {
            keep.push(list.clone());
            list.push(i);
        }
        assert!(list.0.as_ref().unwrap().depth <= MAX_DEPTH);
        assert_eq!(
            list.iter().copied().collect::<Vec<_>>(),
            (0..200).collect::<Vec<_>>()
        );
    }
}
