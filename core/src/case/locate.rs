//! Where a key stands in a TOML text: for error messages that name the key and its line.

use toml_edit::{Document, Item, TableLike};

/// 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

type Span = Option<std::ops::Range<usize>>;

/// Visit every key with its dotted path, its key span and what it holds.
fn walk(table: &dyn TableLike, prefix: &str, f: &mut dyn FnMut(&str, Span, &Item)) {
    for (k, item) in table.iter() {
        let path = if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
        f(&path, table.key(k).and_then(|k| k.span()), item);
        if let Some(t) = item.as_table_like() {
            walk(t, &path, f);
        }
    }
}

/// The dotted path of the innermost key whose definition (key or value) contains `offset`.
pub fn key_at(text: &str, offset: usize) -> Option<String> {
    let doc = Document::parse(text).ok()?;
    let mut best: Option<(String, usize)> = None;
    walk(doc.as_table(), "", &mut |path, key_span, item| {
        let spans = [key_span, item.span()];
        let start = spans.iter().flatten().map(|s| s.start).min();
        let end = spans.iter().flatten().map(|s| s.end).max();
        if let (Some(s), Some(e)) = (start, end)
            && (s..e.max(s + 1)).contains(&offset)
        {
            let depth = path.matches('.').count();
            if best.as_ref().is_none_or(|(_, d)| depth >= *d) {
                best = Some((path.to_string(), depth));
            }
        }
    });
    best.map(|(p, _)| p)
}

/// The line on which `key` (dotted path), or the nearest table above it, is defined in `text`.
pub fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let doc = Document::parse(text).ok()?;
    let mut found: Option<(usize, usize)> = None;
    walk(doc.as_table(), "", &mut |path, key_span, item| {
        let hit = key == path || key.starts_with(&format!("{path}."));
        if hit && let Some(s) = key_span.or_else(|| item.span()) {
            let depth = path.matches('.').count() + 1;
            if found.is_none_or(|(_, d)| depth > d) {
                found = Some((s.start, depth));
            }
        }
    });
    found.map(|(offset, _)| line_of(text, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "solver = \"kp\"\n\n[grid]\nnx = 10\nny = \"x\"\n\n[boundary]\nwest = \"wall\"\n";

    #[test]
    fn finds_keys_and_lines() {
        assert_eq!(line_of(TEXT, 0), 1);
        let at = TEXT.find("\"x\"").unwrap();
        assert_eq!(key_at(TEXT, at).as_deref(), Some("grid.ny"));
        assert_eq!(line_of_key(TEXT, "grid.nx"), Some(4));
        assert_eq!(line_of_key(TEXT, "boundary.west"), Some(8));
        // A key not in the text: the table above it.
        assert_eq!(line_of_key(TEXT, "grid.lx"), Some(3));
        assert_eq!(line_of_key(TEXT, "time.t_end"), None);
    }
}
