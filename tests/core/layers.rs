//! The library's layers, read from its sources: no module of a crate depends on itself through
//! others (no import cycle), and no solver names another. The crates' own boundaries (kernels ←
//! core ← solvers and registry ← command line) are the compiler's to enforce; this test covers
//! what it does not see, the modules inside each crate.
//!
//! A module is a file. Module A depends on B when A names an item B defines: through `use`
//! declarations and through paths in its code (`crate::…`, `super::…`, `self::…`, or a path that
//! starts with a child module or an imported name), with re-exports followed to the file that
//! defines the item. A re-export alone (`pub use`) is not a dependency, nor is a `mod`
//! declaration, and test-only code (`#[cfg(test)] mod … { … }`) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `["kp", "gpu"]` for `src/kp/gpu/mod.rs`.
type ModPath = Vec<String>;

/// One path named in a module, as written (`["crate", "kp", "Problem"]`).
type Written = Vec<String>;

struct Module {
    /// Source without comments, string contents and test modules.
    text: String,
    /// Names of items defined here.
    defs: BTreeSet<String>,
    /// `use` imports: the name brought into scope → the path it names.
    imports: BTreeMap<String, Written>,
    /// Re-exports (`pub use`): the name → the path it names.
    reexports: BTreeMap<String, Written>,
    /// Glob re-exports (`pub use x::*`): the module paths, as written.
    globs: Vec<Written>,
}

struct Crate {
    modules: BTreeMap<ModPath, Module>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// Blank out comments and the contents of string and character literals (keeping lengths and
/// line breaks), so that neither is read as code.
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b[..i].last().is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if b[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != '"' {
                if b[j] == '\\' {
                    j += 1;
                }
                if b.get(j) == Some(&'\n') {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if c == '\''
            && next.is_some()
            && (b.get(i + 2) == Some(&'\'') || (next == Some('\\') && b[i + 2..].iter().take(10).any(|&x| x == '\'')))
        {
            // A character literal (not a lifetime).
            let mut j = i + 1;
            if b[j] == '\\' {
                j += 1;
            }
            j += 1;
            while j < b.len() && b[j] != '\'' {
                j += 1;
            }
            out.push_str("' '");
            i = j + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Drop `#[cfg(test)] mod name { … }` blocks.
fn without_test_modules(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        let open = trimmed.find('{');
        let semi = trimmed.find(';');
        if !is_mod || open.is_none() || semi.is_some_and(|s| s < open.unwrap()) {
            out.push_str(&rest[..at + "#[cfg(test)]".len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        let body = &trimmed[open.unwrap()..];
        let mut depth = 0;
        let mut end = body.len();
        for (k, ch) in body.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// Split at top-level commas (not inside braces).
fn split_top(s: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            items.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    items.push(cur);
    items.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect()
}

fn segments(path: &str) -> Written {
    path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

/// A `use` tree expanded into (path, name in scope); a glob gives the name `*`.
fn expand_use(tree: &str, prefix: &[String]) -> Vec<(Written, String)> {
    let mut out = Vec::new();
    for item in split_top(tree) {
        if let Some(open) = item.find('{') {
            let head = item[..open].trim().trim_end_matches("::");
            let close = item.rfind('}').unwrap_or(item.len());
            let mut p = prefix.to_vec();
            p.extend(segments(head));
            out.extend(expand_use(&item[open + 1..close], &p));
        } else {
            let (path, alias) = match item.split_once(" as ") {
                Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
                None => (item.as_str(), None),
            };
            let mut segs = prefix.to_vec();
            segs.extend(segments(path));
            if segs.last().is_some_and(|s| s == "self") {
                segs.pop();
            }
            let name = alias.or_else(|| segs.last().cloned()).unwrap_or_default();
            out.push((segs, name));
        }
    }
    out
}

/// One `use …;` declaration: where it starts, whether it is `pub`, and its tree expanded into
/// (path, name in scope) pairs.
type Use = (usize, bool, Vec<(Written, String)>);

/// Every `use …;` declaration.
fn uses(text: &str) -> Vec<Use> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(k) = text[at..].find("use ") {
        let start = at + k;
        at = start + 4;
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let Some(end) = text[start..].find(';') else { break };
        let tree = &text[start + 4..start + end];
        let before = text[..start].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        out.push((start, public, expand_use(tree, &[])));
        at = start + end;
    }
    out
}

/// The byte ranges of the modules declared inline (`mod name { … }`) in a file's text.
fn inline_modules(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for (k, _) in text.match_indices("mod ") {
        if k > 0 && (bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_') {
            continue;
        }
        let rest = &text[k + 4..];
        let name_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let after = rest[name_len..].trim_start();
        if name_len == 0 || !after.starts_with('{') {
            continue;
        }
        let open = text.len() - after.len();
        let mut depth = 0;
        for (off, ch) in text[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((open, open + off));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// A path written at byte `at` of a file, relative to the file's module: inside modules declared
/// inline (`mod name { … }`), as many `super`s as there are enclosing inline modules lead back
/// to the file's module, not beyond it.
fn in_file(mut path: Written, inline: &[(usize, usize)], at: usize) -> Written {
    let depth = inline.iter().filter(|&&(a, b)| a < at && at < b).count();
    let supers = path.iter().take_while(|s| *s == "super").count();
    let inside = supers.min(depth);
    if inside > 0 {
        path.splice(..inside, [String::from("self")]);
    }
    path
}

/// The text with every `use …;` declaration blanked out.
fn without_uses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(k) = text[at..].find("use ") {
        let start = at + k;
        let word_start = start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let Some(end) = text[start..].find(';').filter(|_| word_start) else {
            out.push_str(&text[at..start + 4]);
            at = start + 4;
            continue;
        };
        out.push_str(&text[at..start]);
        at = start + end + 1;
    }
    out.push_str(&text[at..]);
    out
}

fn identifiers_before(text: &str, keyword: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (k, _) in text.match_indices(keyword) {
        let ok_before = k == 0 || !text.as_bytes()[k - 1].is_ascii_alphanumeric() && text.as_bytes()[k - 1] != b'_';
        if !ok_before {
            continue;
        }
        let rest = text[k + keyword.len()..].trim_start();
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        let mut modules = BTreeMap::new();
        for file in files {
            let rel = file.strip_prefix(src).unwrap().with_extension("");
            let mut path: ModPath = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if matches!(path.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                path.pop();
            }
            let text = without_test_modules(&strip(&std::fs::read_to_string(&file).unwrap()));
            let mut defs = BTreeSet::new();
            for kw in ["fn ", "struct ", "enum ", "trait ", "type ", "const ", "static ", "union ", "macro_rules! "] {
                defs.extend(identifiers_before(&text, kw));
            }
            let (mut imports, mut reexports, mut globs) = (BTreeMap::new(), BTreeMap::new(), Vec::new());
            for (_, public, items) in uses(&text) {
                for (segs, name) in items {
                    if name == "*" {
                        if public {
                            globs.push(segs[..segs.len() - 1].to_vec());
                        }
                    } else {
                        if public {
                            reexports.insert(name.clone(), segs.clone());
                        }
                        imports.insert(name, segs);
                    }
                }
            }
            modules.insert(path, Module { text, defs, imports, reexports, globs });
        }
        Crate { modules }
    }

    /// The absolute path (from the crate root) of `written` as module `at` writes it, or None for
    /// another crate's.
    fn absolute(&self, at: &ModPath, written: &[String], depth: usize) -> Option<ModPath> {
        let first = written.first()?;
        match first.as_str() {
            "crate" => Some(written[1..].to_vec()),
            "super" | "self" => {
                let mut base = at.clone();
                let mut rest = written;
                while let Some(s) = rest.first() {
                    match s.as_str() {
                        "super" => {
                            base.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                Some(base)
            }
            _ => {
                let mut child = at.clone();
                child.push(first.clone());
                if self.modules.contains_key(&child) {
                    child.extend(written[1..].iter().cloned());
                    return Some(child);
                }
                let imported = self.modules.get(at)?.imports.get(first)?;
                if depth > 16 || imported.first() == Some(first) {
                    return None;
                }
                let mut p = self.absolute(at, imported, depth + 1)?;
                p.extend(written[1..].iter().cloned());
                Some(p)
            }
        }
    }

    /// The module that defines the item `path` names (None: another crate's).
    fn defining(&self, path: &[String], depth: usize) -> Option<ModPath> {
        let mut k = path.len();
        while !self.modules.contains_key(&path[..k]) {
            if k == 0 {
                return None;
            }
            k -= 1;
        }
        let module = path[..k].to_vec();
        let rest = &path[k..];
        let Some(name) = rest.first() else { return Some(module) };
        let m = &self.modules[&module];
        if m.defs.contains(name) || depth > 16 {
            return Some(module);
        }
        if let Some(target) = m.reexports.get(name) {
            let mut abs = self.absolute(&module, target, 0)?;
            abs.extend(rest[1..].iter().cloned());
            return self.defining(&abs, depth + 1);
        }
        let mut through_other_crate = false;
        for glob in &m.globs {
            match self.absolute(&module, glob, 0) {
                Some(mut abs) => {
                    abs.extend(rest.iter().cloned());
                    if let Some(found) = self.defining(&abs, depth + 1)
                        && found != module
                    {
                        return Some(found);
                    }
                }
                None => through_other_crate = true,
            }
        }
        // A name neither defined nor re-exported here comes through a glob of another crate.
        if through_other_crate { None } else { Some(module) }
    }

    /// Every module each module depends on.
    fn dependencies(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        let mut graph = BTreeMap::new();
        for at in self.modules.keys() {
            let mut deps = BTreeSet::new();
            for abs in self.named(at) {
                if let Some(d) = self.defining(&abs, 0)
                    && &d != at
                {
                    deps.insert(d);
                }
            }
            graph.insert(at.clone(), deps);
        }
        graph
    }

    /// The paths module `at` names, from the crate root (another crate's left out).
    fn named(&self, at: &ModPath) -> Vec<ModPath> {
        let m = &self.modules[at];
        let mut written: Vec<Written> = Vec::new();
        let inline = inline_modules(&m.text);
        for (start, public, items) in uses(&m.text) {
            if !public {
                // A glob import (`use x::*`) depends on the module it reads from.
                let paths = items.into_iter().map(|(s, n)| if n == "*" { s[..s.len() - 1].to_vec() } else { s });
                written.extend(paths.map(|w| in_file(w, &inline, start)));
            }
        }
        // Paths in the code (outside `use` declarations): `a::b::c` chains whose head is
        // `crate`, `super`, `self`, a child module or an imported name.
        let text = without_uses(&m.text);
        let inline = inline_modules(&text);
        let code = text.as_bytes();
        let mut i = 0;
        while i < code.len() {
            let starts = (code[i].is_ascii_alphabetic() || code[i] == b'_')
                && (i == 0 || !(code[i - 1].is_ascii_alphanumeric() || code[i - 1] == b'_' || code[i - 1] == b':'));
            if !starts {
                i += 1;
                continue;
            }
            let start = i;
            while i < code.len() && (code[i].is_ascii_alphanumeric() || code[i] == b'_' || code[i] == b':') {
                i += 1;
            }
            let chain = &text[start..i];
            if !chain.contains("::") {
                continue;
            }
            let segs = segments(chain);
            let head = segs[0].as_str();
            let mut child = at.clone();
            child.push(segs[0].clone());
            if matches!(head, "crate" | "super" | "self")
                || self.modules.contains_key(&child)
                || m.imports.contains_key(head)
            {
                written.push(in_file(segs, &inline, start));
            }
        }
        written.iter().filter_map(|w| self.absolute(at, w, 0)).collect()
    }
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        graph: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on: BTreeSet<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some((w, _)) = s.graph.get_key_value(w) else { continue };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn name(m: &ModPath) -> String {
    if m.is_empty() { "<crate root>".into() } else { m.join("/") }
}

/// The cycles of the crate whose sources are at `src`, one line each with the edges inside it.
fn cycle_report(src: &Path) -> Vec<String> {
    let krate = Crate::read(src);
    let graph = krate.dependencies();
    cycles(&graph)
        .into_iter()
        .map(|c| {
            let inside: BTreeSet<&ModPath> = c.iter().collect();
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    graph[a].iter().filter(|b| inside.contains(b)).map(move |b| format!("{} → {}", name(a), name(b)))
                })
                .collect();
            format!("{}: a cycle of {} modules: {}", src.display(), c.len(), edges.join(", "))
        })
        .collect()
}

#[test]
fn no_crate_has_a_module_cycle() {
    let root = root();
    let mut found = Vec::new();
    for src in ["gpu/src", "core/src", "src", "host/src", "python/src"] {
        found.extend(cycle_report(&root.join(src)));
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

/// Where a solver (a top-level module named in `solvers`) depends on another or names a path
/// through another's module (the core's building blocks a solver re-exports are reached from
/// the core), one line each.
fn crossings(src: &Path, solvers: &BTreeSet<String>) -> Vec<String> {
    let krate = Crate::read(src);
    let graph = krate.dependencies();
    let mut found = BTreeSet::new();
    for from in krate.modules.keys() {
        let Some(a) = from.first().filter(|a| solvers.contains(*a)) else { continue };
        let named = krate.named(from).into_iter().chain(graph[from].iter().cloned());
        for path in named {
            if let Some(b) = path.first().filter(|b| solvers.contains(*b) && *b != a) {
                found.insert(format!("{}/{} names {b}", src.display(), name(from)));
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn no_solver_names_another() {
    let solvers = hydrokern::registry::SOLVERS.iter().map(|s| s.name.to_string()).collect();
    let found = crossings(&root().join("src"), &solvers);
    assert!(found.is_empty(), "solvers naming other solvers:\n{}", found.join("\n"));
}

/// The check can fail: a small crate with a cycle through a re-export and a solver naming
/// another is reported.
#[test]
fn the_checks_see_a_cycle_and_a_crossing() {
    let dir = std::env::temp_dir().join(format!("hydrokern-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |p: &str, s: &str| {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, s).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n");
    write(
        "a/mod.rs",
        "mod inner;\npub use inner::Thing;\n/// not code: use crate::c::Z;\npub fn f() -> crate::b::B { todo!() }\n",
    );
    write("a/inner.rs", "pub struct Thing;\n");
    write("b.rs", "use crate::a::Thing;\npub struct B(Thing);\n");
    write("c.rs", "pub struct Z;\n#[cfg(test)]\nmod tests { use crate::a::f; }\n");
    let report = cycle_report(&dir);
    // a → b (B), b → a/inner (Thing, through the re-export): no cycle; c's test module is left out.
    assert!(report.is_empty(), "{report:?}");
    write("a/inner.rs", "pub struct Thing(crate::b::B);\n");
    let report = cycle_report(&dir);
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0].contains("a/inner → b") && report[0].contains("b → a/inner"), "{report:?}");
    // As solvers, a and c do not meet; b names a.
    let solvers: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    assert_eq!(
        crossings(&dir, &solvers),
        [
            format!("{}/b names a", dir.display()),
            format!("{}/a/inner names b", dir.display()),
            format!("{}/a names b", dir.display())
        ]
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
