//! "Did you mean ...?" suggestions.

/// The candidate closest to `word` (case-insensitive Damerau-Levenshtein distance of at
/// most a third of the word's length, and at least 1 edit allowed), if any.
pub fn closest<'a, I, S>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let max = (word.chars().count() / 3).max(1);
    closest_within(word, candidates, max)
}

/// The candidate closest to `word` within `max` edits (case-insensitive), if any; the
/// first of equally close ones.
pub fn closest_within<'a, I, S>(word: &str, candidates: I, max: usize) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let lower = word.to_lowercase();
    let len = lower.chars().count();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let c = c.as_ref();
        // The distance is at least the difference in length: most candidates end here,
        // without the allocation and the table of `distance`.
        if c.chars().count().abs_diff(len) > max {
            continue;
        }
        let d = distance(&lower, &c.to_lowercase());
        if d <= max && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The candidate closest to a resource name (a compute, an endpoint), where names that
/// differ by design are not typos of each other: `cpu-cluster` and `gpu-cluster`,
/// `cluster-1` and `cluster-2`, `dev-ws` and `prd-ws` (a changed digit, or one changed
/// word of at most three letters, is another resource, not a misspelling).
pub fn closest_name<'a, I, S>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let max = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    let len = lower.chars().count();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let c = c.as_ref();
        if c.chars().count().abs_diff(len) > max {
            continue;
        }
        let d = distance(&lower, &c.to_lowercase());
        if d <= max && best.is_none_or(|(bd, _)| d < bd) && !differs_by_design(word, c) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn differs_by_design(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    let strip = |s: &str| s.chars().filter(|c| !c.is_ascii_digit()).collect::<String>();
    if a != b && strip(&a) == strip(&b) {
        return true;
    }
    let words = |s: &str| s.split(['-', '_', '.']).map(str::to_string).collect::<Vec<_>>();
    let (wa, wb) = (words(&a), words(&b));
    if wa.len() != wb.len() {
        return false;
    }
    let changed: Vec<(&String, &String)> = wa.iter().zip(&wb).filter(|(x, y)| x != y).collect();
    matches!(changed.as_slice(), [(x, y)] if x.len() <= 3 && y.len() <= 3)
}

/// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    // One flat table, (n + 1) rows of (m + 1).
    let w = m + 1;
    let mut d = vec![0usize; (n + 1) * w];
    for i in 0..=n {
        d[i * w] = i;
    }
    for (j, cell) in d[..w].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[n * w + m]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let keys = ["instance_type", "instance_count", "environment"];
        assert_eq!(closest("instance_typ", keys.iter()), Some("instance_type"));
        assert_eq!(closest("enviroment", keys.iter()), Some("environment"));
        assert_eq!(closest("zzz", keys.iter()), None);
        assert_eq!(distance("ab", "ba"), 1);
    }

    #[test]
    fn resource_names() {
        let computes = ["gpu-cluster", "cluster-2", "prd-ws"];
        assert_eq!(closest_name("gpu-clustr", computes.iter()), Some("gpu-cluster"));
        assert_eq!(closest_name("gpu-cluter", computes.iter()), Some("gpu-cluster"));
        // Other resources, not typos: another word of three letters, another number.
        assert_eq!(closest_name("cpu-cluster", computes.iter()), None);
        assert_eq!(closest_name("cluster-1", computes.iter()), None);
        assert_eq!(closest_name("dev-ws", computes.iter()), None);
    }
}
