//! "Did you mean ...?" suggestions.

/// Longest word (in characters) a suggestion is looked for: identifiers, keys and names
/// are far shorter, and a value of a megabyte has no near miss worth computing.
const MAX_WORD: usize = 256;
/// Most candidates compared with one word: beyond it (a project defining thousands of
/// names) no suggestion is made rather than spend time proportional to the project for
/// each finding.
const MAX_CANDIDATES: usize = 4_096;

/// The candidate closest to `word` (case-insensitive Damerau-Levenshtein distance of at
/// most a third of the word's length, and at least 1 edit allowed), if any. Bounded: a
/// word over [`MAX_WORD`] characters or more than [`MAX_CANDIDATES`] candidates give none,
/// and a candidate whose length alone puts it too far is not compared.
pub fn closest<'a, I, S>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a S>,
    S: AsRef<str> + ?Sized + 'a,
{
    let length = word.chars().count();
    if length > MAX_WORD {
        return None;
    }
    let lower: Vec<char> = word.to_lowercase().chars().collect();
    let max = (length / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for (seen, c) in candidates.into_iter().enumerate() {
        if seen == MAX_CANDIDATES {
            return None;
        }
        let c = c.as_ref();
        let c_length = c.chars().count();
        if c_length.abs_diff(length) > max || c_length > MAX_WORD + max {
            continue;
        }
        let other: Vec<char> = c.to_lowercase().chars().collect();
        let d = distance_chars(&lower, &other);
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
    distance_chars(&a, &b)
}

fn distance_chars(a: &[char], b: &[char]) -> usize {
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
        near.push("x".to_string());
        assert_eq!(closest("compute_targt", near.iter()), None);
        // A candidate too long or too short to be within reach is skipped, not compared.
        assert_eq!(closest("abcdef", ["abcdefghijklmnop", "ab"].iter()), None);
    }
}
