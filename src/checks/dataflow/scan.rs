//! The `${{...}}` binding scanner: the expressions of a scalar's value, as the Azure ML SDK
//! finds them (`get_all_data_binding_expressions`: `\$\{\{\s*(\S*?)\s*\}\}`), each with the
//! byte span of its `${{...}}` text in the file, and whether it stands inside an optional
//! `$[[...]]` block.
//!
//! Spans: the value of a scalar is not always its source text (quotes, escapes, folded
//! lines). A binding's span is exact when its text occurs in the scalar's source as often
//! as in its value (the k-th occurrence in the value is the k-th in the source): true of
//! plain and quoted scalars without escapes inside the binding, and of block scalars
//! whose binding does not cross a line. Otherwise (a binding written with escapes, or
//! folded across lines) the span is the whole scalar, and [`Binding::exact`] says so.

use std::collections::HashMap;
use std::ops::Range;

use crate::source::Span;

/// One `${{...}}` expression of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The whole `${{...}}` text, in the value.
    pub full: Range<usize>,
    /// The expression inside, trimmed (`parent.inputs.x`), in the value.
    pub expr: Range<usize>,
    /// Inside a `$[[...]]` optional block.
    pub optional_block: bool,
}

/// A binding of a scalar, located in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The expression (`parent.jobs.prep.outputs.data`).
    pub expr: String,
    /// The `${{...}}` text in the file, or the whole scalar when not [`Self::exact`].
    pub span: Span,
    pub exact: bool,
    pub optional_block: bool,
}

impl Binding {
    /// The expression's dotted segments.
    pub fn segments(&self) -> Vec<&str> {
        self.expr.split('.').collect()
    }
}

/// Python's `\s` (Unicode whitespace).
fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// The `${{...}}` expressions of `text`, in order, as Python's `re.findall` finds them: an
/// unterminated `${{`, or one whose expression holds a space, is not one.
pub fn scan(text: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let blocks = optional_blocks(text);
    let mut from = 0;
    while let Some(p) = text[from..].find("${{") {
        let start = from + p;
        match expression_at(text, start) {
            Some((expr, end)) => {
                let optional_block = blocks.iter().any(|b| b.start <= start && end <= b.end);
                found.push(Found {
                    full: start..end,
                    expr,
                    optional_block,
                });
                from = end;
            }
            None => from = start + 1,
        }
    }
    found
}

/// The expression of the `${{` at `start` and the end of its `}}`: `\s*(\S*?)\s*\}\}`.
fn expression_at(text: &str, start: usize) -> Option<(Range<usize>, usize)> {
    let rest = &text[start + 3..];
    let lead = rest.len() - rest.trim_start_matches(is_space).len();
    let expr_start = start + 3 + lead;
    let mut i = expr_start;
    loop {
        let tail = &text[i..];
        if tail.starts_with("}}") {
            return Some((expr_start..i, i + 2));
        }
        let c = tail.chars().next()?;
        if is_space(c) {
            let after = tail.trim_start_matches(is_space);
            if after.starts_with("}}") {
                let end = text.len() - after.len() + 2;
                return Some((expr_start..i, end));
            }
            return None;
        }
        i += c.len_utf8();
    }
}

/// The `$[[...]]` blocks of a command (an optional input's part is dropped when the input
/// is not given): each from `$[[` to the first `]]` after it.
fn optional_blocks(text: &str) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(p) = text[from..].find("$[[") {
        let start = from + p;
        let Some(q) = text[start + 3..].find("]]") else {
            break;
        };
        let end = start + 3 + q + 2;
        blocks.push(start..end);
        from = end;
    }
    blocks
}

/// The bindings of a scalar whose value is `value` and whose source text (`source`) starts
/// at byte `offset` of the file. Linear in the scalar's length: the value and the source
/// are each scanned once.
pub fn locate(value: &str, source: &str, offset: u32) -> Vec<Binding> {
    if !value.contains("${{") {
        return Vec::new();
    }
    let found = scan(value);
    let whole = Span::new(offset, offset + source.len() as u32);
    // Where the value's text starts in the source when it is the source itself (a plain
    // scalar on one line) or the source between quotes (a quoted scalar without escapes).
    let shift = if source == value {
        Some(0)
    } else if source.len() == value.len() + 2 && source.get(1..source.len() - 1) == Some(value) {
        Some(1)
    } else {
        None
    };
    // Otherwise the k-th binding of a text in the value is the k-th of that text in the
    // source, when the source holds it as many times (by text, in one pass each).
    let mut in_source: HashMap<&str, Vec<Span>> = HashMap::new();
    let mut in_value: HashMap<&str, usize> = HashMap::new();
    if shift.is_none() {
        for g in scan(source) {
            let at = Span::new(offset + g.full.start as u32, offset + g.full.end as u32);
            in_source.entry(&source[g.full]).or_default().push(at);
        }
        for f in &found {
            *in_value.entry(&value[f.full.clone()]).or_default() += 1;
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::with_capacity(found.len());
    for f in &found {
        let span = match shift {
            Some(d) => Some(Span::new(
                offset + (d + f.full.start) as u32,
                offset + (d + f.full.end) as u32,
            )),
            None => {
                let text = &value[f.full.clone()];
                let nth = seen.entry(text).or_default();
                let k = *nth;
                *nth += 1;
                in_source
                    .get(text)
                    .filter(|spans| spans.len() == in_value[text])
                    .map(|spans| spans[k])
            }
        };
        out.push(Binding {
            expr: value[f.expr.clone()].to_string(),
            span: span.unwrap_or(whole),
            exact: span.is_some(),
            optional_block: f.optional_block,
        });
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn exprs(text: &str) -> Vec<&str> {
        scan(text).into_iter().map(|f| &text[f.expr]).collect()
    }

    #[test]
    fn finds_expressions_as_the_sdk_regex_does() {
        assert_eq!(exprs("${{parent.inputs.x}}"), ["parent.inputs.x"]);
        assert_eq!(
            exprs("a ${{ inputs.a }} b ${{outputs.b}}"),
            ["inputs.a", "outputs.b"]
        );
        // Lazy: the first `}}` ends the expression.
        assert_eq!(exprs("${{a}}}"), ["a"]);
        // Nested braces: the SDK takes `a{{b` (then ` }}`).
        assert_eq!(exprs("${{a{{b}} }}"), ["a{{b"]);
        // A space inside the expression: not a binding; the scan goes on.
        assert_eq!(exprs("${{a b}} ${{c}}"), ["c"]);
        // Unterminated.
        assert!(exprs("python x.py ${{inputs.a").is_empty());
        assert!(exprs("${{").is_empty());
        assert!(exprs("${{ ").is_empty());
        // `${x}` and `{{x}}` are not bindings.
        assert!(exprs("${x} {{inputs.a}}").is_empty());
        // Empty expression (the regex allows it).
        assert_eq!(exprs("${{}}"), [""]);
        // Non-ASCII around and inside.
        assert_eq!(exprs("é${{inputs.é}}ü"), ["inputs.é"]);
    }

    #[test]
    fn optional_blocks_mark_their_bindings() {
        let f = scan("python t.py $[[--x ${{inputs.x}}]] --y ${{inputs.y}}");
        assert_eq!(
            f.iter().map(|f| f.optional_block).collect::<Vec<_>>(),
            [true, false]
        );
        // An unterminated block marks nothing.
        assert!(!scan("$[[ --x ${{inputs.x}}")[0].optional_block);
    }

    #[test]
    fn spans_map_to_the_source() {
        // Plain scalar at offset 10.
        let v = "--a ${{inputs.a}} --b ${{inputs.a}}";
        let b = locate(v, v, 10);
        assert_eq!(b[0].span, Span::new(14, 27));
        assert_eq!(b[1].span, Span::new(32, 45));
        assert!(b.iter().all(|b| b.exact));
        // Double-quoted with an escape elsewhere: still exact.
        let src = r#""\t${{inputs.a}}""#;
        let b = locate("\t${{inputs.a}}", src, 0);
        assert_eq!(&src[b[0].span.range()], "${{inputs.a}}");
        // The binding itself escaped: the whole scalar.
        let src = r#""\x24{{inputs.a}}""#;
        let b = locate("${{inputs.a}}", src, 5);
        assert!(!b[0].exact);
        assert_eq!(b[0].span, Span::new(5, 5 + src.len() as u32));
        // Folded across a line: whole scalar.
        let src = "${{ inputs.a\n  }}";
        let b = locate("${{ inputs.a }}", src, 0);
        assert!(!b[0].exact);
        // A literal block: exact per line.
        let src = "|\n  python t.py\n  --a ${{inputs.a}}\n";
        let b = locate("python t.py\n--a ${{inputs.a}}\n", src, 0);
        assert_eq!(&src[b[0].span.range()], "${{inputs.a}}");
        assert!(locate("no binding", "no binding", 0).is_empty());
    }
}
