//! "Did you mean ...?" suggestions, bounded: a word over [`MAX_WORD`] characters or more
//! than [`MAX_CANDIDATES`] candidates give none, and a candidate whose length alone puts
//! it out of reach is not compared (docs/security.md).

/// Longest word (in characters) a suggestion is looked for: identifiers, keys and names
/// are far shorter, and a value of a megabyte has no near miss worth computing.
const MAX_WORD: usize = 256;
/// Most candidates compared with one word: beyond it (a project defining thousands of
/// names) no suggestion is made rather than spend time proportional to the project for
/// each finding.
pub const MAX_CANDIDATES: usize = 4_096;

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
    nearest(word, candidates, max, |_, _| true)
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
    nearest(word, candidates, max, |w, c| !differs_by_design(w, c))
}

/// The closest candidate within `max` edits that `accept` takes, within the bounds.
fn nearest<'a, I, S>(
    word: &str,
    candidates: I,
    max: usize,
    accept: impl Fn(&str, &str) -> bool,
) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let lower: Vec<char> = word.to_lowercase().chars().collect();
    let len = lower.len();
    if len > MAX_WORD {
        return None;
    }
    let mut best: Option<(usize, &'a str)> = None;
    let (mut other, mut rows) = (Vec::new(), Rows::default());
    for (seen, c) in candidates.into_iter().enumerate() {
        if seen == MAX_CANDIDATES {
            return None;
        }
        let c = c.as_ref();
        // A candidate must be closer than the best so far to replace it.
        let bound = match best {
            None => max,
            Some((0, _)) => continue,
            Some((bd, _)) => bd - 1,
        };
        // The distance is at least the difference in length: most candidates end here,
        // without the table of `distance`.
        if c.chars().count().abs_diff(len) > bound {
            continue;
        }
        other.clear();
        if c.is_ascii() {
            other.extend(c.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            other.extend(c.to_lowercase().chars());
        }
        if let Some(d) = rows.distance_within(&lower, &other, bound)
            && accept(word, c)
        {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The rows [`Rows::distance_within`] reuses from one candidate to the next.
#[derive(Default)]
struct Rows {
    before: Vec<usize>,
    last: Vec<usize>,
    row: Vec<usize>,
}

impl Rows {
    /// [`distance_chars`] if it is at most `max`, computed row by row and given up as
    /// soon as a whole row exceeds `max`: a cell of the optimal string alignment table
    /// is never less than some cell of the row above (a transposition costs what the
    /// substitution before it would), so no later row can come back within `max`. Most
    /// candidates of a project's names end after a few rows.
    fn distance_within(&mut self, a: &[char], b: &[char], max: usize) -> Option<usize> {
        let m = b.len();
        self.before.clear();
        self.before.resize(m + 1, 0);
        self.last.clear();
        self.last.extend(0..=m);
        self.row.clear();
        self.row.resize(m + 1, 0);
        for i in 1..=a.len() {
            self.row[0] = i;
            let mut least = i;
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (self.last[j] + 1)
                    .min(self.row[j - 1] + 1)
                    .min(self.last[j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(self.before[j - 2] + 1);
                }
                self.row[j] = v;
                least = least.min(v);
            }
            if least > max {
                return None;
            }
            std::mem::swap(&mut self.before, &mut self.last);
            std::mem::swap(&mut self.last, &mut self.row);
        }
        Some(self.last[m]).filter(|d| *d <= max)
    }
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

/// Whether renaming `word` to `chosen` is a mechanical correction rather than a guess:
/// the two differ by at most one edit (case aside) and no other candidate is as close.
/// Bounded like [`closest`]: a word over [`MAX_WORD`] characters or more than
/// [`MAX_CANDIDATES`] candidates answer `false`.
pub fn is_unambiguous_typo<'a, I, S>(word: &str, chosen: &str, candidates: I) -> bool
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let lower: Vec<char> = word.to_lowercase().chars().collect();
    if lower.len() > MAX_WORD {
        return false;
    }
    let within_one = |c: &str| {
        c.chars().count().abs_diff(lower.len()) <= 1 && {
            let other: Vec<char> = c.to_lowercase().chars().collect();
            distance_chars(&lower, &other) <= 1
        }
    };
    if !within_one(chosen) {
        return false;
    }
    for (seen, c) in candidates.into_iter().enumerate() {
        if seen == MAX_CANDIDATES {
            return false;
        }
        let c = c.as_ref();
        if c != chosen && c != word && within_one(c) {
            return false;
        }
    }
    true
}

/// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    distance_chars(&a, &b)
}

fn distance_chars(a: &[char], b: &[char]) -> usize {
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
#[allow(clippy::disallowed_methods)]
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
    fn suggestions_are_bounded() {
        // A megabyte-long value is compared with nothing (it used to take 39 s).
        let long = "instance_type".repeat(80_000);
        assert_eq!(closest(&long, ["instance_type"].iter()), None);
        // A near word is found among many candidates; past the candidate bound, none.
        let many: Vec<String> = (0..MAX_CANDIDATES - 1).map(|i| format!("name{i}")).collect();
        let mut near = many.clone();
        near.push("compute_target".to_string());
        assert_eq!(closest("compute_targt", near.iter()), Some("compute_target"));
        assert_eq!(closest_name("compute_targt", near.iter()), Some("compute_target"));
        near.push("x".to_string());
        assert_eq!(closest("compute_targt", near.iter()), None);
        // A candidate too long or too short to be within reach is skipped, not compared.
        assert_eq!(closest("abcdef", ["abcdefghijklmnop", "ab"].iter()), None);
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

    /// The search as it was before the bounded rows: every candidate within reach given
    /// its whole table, the first of the closest accepted one kept.
    fn nearest_by_whole_tables<'a>(word: &str, candidates: &'a [String], max: usize) -> Option<&'a str> {
        let lower: Vec<char> = word.to_lowercase().chars().collect();
        let mut best: Option<(usize, &str)> = None;
        for c in candidates {
            let other: Vec<char> = c.to_lowercase().chars().collect();
            let d = distance_chars(&lower, &other);
            if d <= max && best.is_none_or(|(bd, _)| d < bd) && !differs_by_design(word, c) {
                best = Some((d, c));
            }
        }
        best.map(|(_, c)| c)
    }

    proptest::proptest! {
        #[test]
        fn bounded_rows_give_the_whole_table_s_distance_within_the_bound(
            a in "[abcΣσ-]{0,9}", b in "[abcΣσ-]{0,9}", max in 0usize..6
        ) {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let whole = distance_chars(&a, &b);
            let bounded = Rows::default().distance_within(&a, &b, max);
            proptest::prop_assert_eq!(bounded, (whole <= max).then_some(whole));
        }

        #[test]
        fn the_bounded_search_picks_what_the_whole_tables_picked(
            word in "[ab1Σ-]{1,10}", candidates in proptest::collection::vec("[aAb1Σσ-]{0,11}", 0..12)
        ) {
            let max = (word.chars().count() / 3).max(1);
            proptest::prop_assert_eq!(
                closest_name(&word, candidates.iter()),
                nearest_by_whole_tables(&word, &candidates, max)
            );
        }
    }
}
