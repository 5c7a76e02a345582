//! One entry point of a PTX module as a module of its own, so that the driver compiles only the
//! kernels a run uses ([`Items::module_of`]).
//!
//! The module is read as LLVM's NVPTX backend writes it: a header (`.version`, `.target`,
//! `.address_size`), then top-level items, each starting at the left margin — a variable
//! declaration on one line ending in `;`, or a function or entry point (its `// .globl` comment
//! before it) whose body opens with `{` and closes with `}` alone on a line. Anything else is
//! refused, so a change in the backend's layout fails the tests rather than a run.

/// A module cut into its header and top-level items.
pub struct Items<'a> {
    header: &'a str,
    items: Vec<Item<'a>>,
}

/// One top-level item: its text (with its `// .globl` comment and final newline), the symbol
/// it defines and whether it is an entry point.
struct Item<'a> {
    text: &'a str,
    name: &'a str,
    entry: bool,
}

impl<'a> Items<'a> {
    /// `ptx` cut into items, or what in it does not fit the layout above.
    pub fn of(ptx: &'a str) -> Result<Items<'a>, String> {
        let mut header_end = None;
        let mut items = Vec::new();
        // The current item's first byte and whether its body has opened.
        let mut open: Option<(usize, bool)> = None;
        let mut at = 0;
        for (number, line) in ptx.split_inclusive('\n').enumerate() {
            let (from, to) = (at, at + line.len());
            at = to;
            let t = line.trim_end();
            let mut close = |from: usize| -> Result<(), String> {
                let text = &ptx[from..to];
                items.push(
                    Item::of(text).ok_or_else(|| format!("line {}: no symbol in '{}'", number + 1, first(text)))?,
                );
                Ok(())
            };
            match open {
                None if t.is_empty() => {}
                None if t.trim_start().starts_with("// .globl") => {
                    header_end.get_or_insert(from);
                    open = Some((from, false));
                }
                None if t.starts_with('.') && !HEADER.iter().any(|h| t.starts_with(h)) => {
                    header_end.get_or_insert(from);
                    match t.ends_with(';') {
                        true => close(from)?,
                        false => open = Some((from, false)),
                    }
                }
                None if header_end.is_none() => {}
                None => return Err(format!("line {}: '{t}' outside any function or declaration", number + 1)),
                Some((start, false)) if t == "{" => open = Some((start, true)),
                Some((start, true)) if t == "}" => {
                    close(start)?;
                    open = None;
                }
                // A declaration without a body (a function's prototype) ends at its `;`.
                Some((start, false)) if t.ends_with(';') && !line.starts_with(['\t', ' ']) => {
                    close(start)?;
                    open = None;
                }
                Some(_) => {}
            }
        }
        if let Some((start, _)) = open {
            return Err(format!("'{}' does not end", first(&ptx[start..])));
        }
        let header = &ptx[..header_end.unwrap_or(ptx.len())];
        if !header.contains(".version") || !header.contains(".target") {
            return Err("no .version and .target before the first item".into());
        }
        Ok(Items { header, items })
    }

    /// The entry points, in the module's order.
    pub fn entries(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.items.iter().filter(|i| i.entry).map(|i| i.name)
    }

    /// Entry point `entry` as a module of its own: the header, then, in the module's order, the
    /// entry and every function and variable it names, and every one those name. `None` where
    /// the module has no such entry point.
    pub fn module_of(&self, entry: &str) -> Option<String> {
        let e = self.items.iter().position(|i| i.entry && i.name == entry)?;
        let mut kept = vec![false; self.items.len()];
        kept[e] = true;
        // Few items are not entry points (a handful of functions and one shared array), so
        // asking each of them again until none is added costs little.
        loop {
            let more: Vec<usize> = (0..self.items.len())
                .filter(|&j| !kept[j] && !self.items[j].entry)
                .filter(|&j| (0..self.items.len()).any(|k| kept[k] && names(self.items[k].text, self.items[j].name)))
                .collect();
            if more.is_empty() {
                break;
            }
            more.into_iter().for_each(|j| kept[j] = true);
        }
        let mut out = String::from(self.header);
        for (item, _) in self.items.iter().zip(&kept).filter(|(_, k)| **k) {
            out.push_str(item.text);
            out.push('\n');
        }
        Some(out)
    }
}

/// Directives of the header, not items.
const HEADER: [&str; 3] = [".version", ".target", ".address_size"];

impl<'a> Item<'a> {
    /// The item of `text`, or `None` where its first directive line names no symbol.
    fn of(text: &'a str) -> Option<Item<'a>> {
        let line = text.lines().find(|l| l.starts_with('.'))?;
        let entry = line.contains(".entry ");
        let name = match line.find(".entry ").map(|k| k + 7).or_else(|| line.find(".func ").map(|k| k + 6)) {
            // A function's name follows its return parameters, if it has any.
            Some(k) => {
                let rest = line[k..].trim_start();
                let rest = match rest.strip_prefix('(') {
                    Some(r) => r.split_once(')')?.1.trim_start(),
                    None => rest,
                };
                &rest[..rest.find(|c: char| !is_symbol(c)).unwrap_or(rest.len())]
            }
            // A variable's name ends its declaration, before its size or value.
            None => line.split(['[', ';', '=']).next()?.split_whitespace().last()?,
        };
        (!name.is_empty()).then_some(Item { text, name, entry })
    }
}

fn is_symbol(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Whether `text` names `symbol` as a whole symbol, not as part of a longer one.
fn names(text: &str, symbol: &str) -> bool {
    text.match_indices(symbol).any(|(k, _)| {
        let before = text[..k].chars().next_back().is_none_or(|c| !is_symbol(c));
        let after = text[k + symbol.len()..].chars().next().is_none_or(|c| !is_symbol(c));
        before && after
    })
}

/// The first line of `text` that says something, for a message.
fn first(text: &str) -> &str {
    text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("//")).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.8\n.target sm_90\n.address_size 64\n\n\
        .extern .shared .align 8 .b8 smem[];\n\n\
        .func  (.param .b32 func_retval0) helper(\n\t.param .b32 helper_param_0\n)\n{\n\tret;\n\n}\n\
        .func helper_unused(\n)\n{\n\tret;\n\n}\n\
        \t// .globl\tuses_helper\n.visible .entry uses_helper(\n\t.param .u64 p\n)\n.maxnreg 64\n{\n\
        \t{ // callseq 0\n\tcall.uni (retval0), helper, (param0);\n\t}\n\tret;\n\n}\n\
        \t// .globl\tplain\n.visible .entry plain(\n)\n{\n\tst.shared.u32 [smem], 0;\n\tret;\n\n}\n";

    #[test]
    fn an_entry_takes_what_it_names_and_nothing_else() {
        let items = Items::of(PTX).unwrap();
        assert_eq!(items.entries().collect::<Vec<_>>(), ["uses_helper", "plain"]);
        let one = items.module_of("uses_helper").unwrap();
        assert!(one.starts_with(items.header) && one.contains(".target sm_90"));
        assert!(one.contains(".func  (.param .b32 func_retval0) helper(") && one.contains(".maxnreg 64"));
        assert!(!one.contains("helper_unused") && !one.contains("smem") && !one.contains("plain"));
        let two = items.module_of("plain").unwrap();
        assert!(two.contains(".extern .shared .align 8 .b8 smem[];") && !two.contains("helper"));
        assert!(items.module_of("helper").is_none(), "a function is not an entry point");
        assert!(items.module_of("missing").is_none());
    }

    fn refused(ptx: &str) -> String {
        Items::of(ptx).err().expect("accepted")
    }

    #[test]
    fn a_layout_it_does_not_know_is_refused() {
        let unclosed = PTX.trim_end().strip_suffix('}').unwrap();
        assert!(refused(unclosed).contains("does not end"), "an item without its end");
        assert!(refused(&format!("{PTX}stray text\n")).contains("outside any function"), "text between items");
        assert!(refused(".extern .shared .b8 smem[];\n").contains(".version"), "no header");
    }

    #[test]
    fn a_symbol_is_named_only_whole() {
        assert!(names("call.uni helper, (p);", "helper"));
        assert!(!names("call.uni helper_unused, (p);", "helper"));
        assert!(!names("call.uni my_helper, (p);", "helper"));
        assert!(names("[smem]", "smem"));
    }
}
