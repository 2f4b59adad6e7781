//! Property tests for the loader: arbitrary input never panics and every span it
//! produces lies inside the text on character boundaries; generated configurations find
//! every key and value at exactly the text that wrote it.

use amlint::document::Target;
use amlint::limits::Limits;
use amlint::load::{Format, parse_text};
use amlint::source::Pointer;
use proptest::prelude::*;

fn assert_spans_valid(text: &str, format: Format) {
    let loaded = parse_text("p", text.to_string(), format, &Limits::default());
    let ok = |s: amlint::source::Span| {
        s.start <= s.end
            && (s.end as usize) <= text.len()
            && text.is_char_boundary(s.start as usize)
            && text.is_char_boundary(s.end as usize)
    };
    for doc in &loaded.documents {
        for node in &doc.nodes {
            assert!(ok(node.span), "node span {:?} in {text:?}", node.span);
        }
        let _ = doc.to_json();
    }
    for d in &loaded.diagnostics {
        assert!(ok(d.span), "diagnostic span {:?} in {text:?}", d.span);
        let _ = loaded.source.position(d.span.start);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        assert_spans_valid(&text, Format::Yaml);
        assert_spans_valid(&text, Format::Json);
    }

    #[test]
    fn yaml_like_text_never_panics(text in "([a-z]{1,3}|[-:{}\\[\\],&*!|>#'\" \\n\\t]|é|0x1F|1:30|<<){0,60}") {
        assert_spans_valid(&text, Format::Yaml);
    }

    #[test]
    fn generated_configs_locate_every_key_and_value(
        // Keys that YAML 1.1 reads as booleans or null (`no`, `on`, `null`) are not the
        // string keys this property is about (AML003 reports them).
        entries in proptest::collection::btree_map(
            "[a-z_]{1,12}".prop_filter("a string key under YAML 1.1", |k| !matches!(k.as_str(), "yes" | "no" | "on" | "off" | "true" | "false" | "null")),
            "[a-zA-Z0-9_./é-]{1,16}",
            1..12,
        ),
        indent in 1usize..5,
    ) {
        let mut text = String::from("outer:\n");
        for (k, v) in &entries {
            text.push_str(&format!("{}{k}: \"{v}\"\n", " ".repeat(indent)));
        }
        let loaded = parse_text("g.yml", text.clone(), Format::Yaml, &Limits::default());
        prop_assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        let doc = &loaded.documents[0];
        for (k, v) in &entries {
            let p = Pointer::from_segments(["outer", k.as_str()]);
            prop_assert_eq!(&text[doc.span_of(&p, Target::Key).range()], k.as_str());
            let quoted = format!("\"{v}\"");
            prop_assert_eq!(&text[doc.span_of(&p, Target::Value).range()], quoted.as_str());
        }
    }
}
