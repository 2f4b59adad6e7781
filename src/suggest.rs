//! "Did you mean ...?" suggestions.

/// The candidate closest to `word` (case-insensitive Damerau-Levenshtein distance of at
/// most a third of the word's length, and at least 1 edit allowed), if any.
pub fn closest<'a, I, S>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let lower = word.to_lowercase();
    let max = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let c = c.as_ref();
        let d = distance(&lower, &c.to_lowercase());
        if d <= max && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[n][m]
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
}
