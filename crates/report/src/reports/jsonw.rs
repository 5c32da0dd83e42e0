//! JSON written straight into a [`std::fmt::Write`], in exactly the bytes [`super::json_text`]
//! prints for the same document (serde_json's pretty layout: two spaces of indent, `": "` after a
//! key, `[]`/`{}` when empty, serde_json's string escapes), so a report whose JSON is larger than
//! memory (a deep nest lists every block of each of its cycles: quadratic) can go out as it is
//! rendered instead of being built as a `serde_json::Value` first. The caller writes the keys of
//! an object in sorted order, as serde_json's `Value` (a `BTreeMap`) prints them.

use std::fmt::{Result, Write};

/// A pretty-printing JSON writer over `out`. Values and keys are written in document order; the
/// writer inserts the separators and indent.
pub struct JsonWriter<W: Write> {
    out: W,
    /// Indent level of the container being written.
    depth: u32,
    /// The container being written already holds a value (the next one needs a comma, the end
    /// a line break: serde_json's `PrettyFormatter::has_value`).
    has_value: bool,
}

impl<W: Write> JsonWriter<W> {
    /// A writer at the top level of a document.
    pub fn new(out: W) -> JsonWriter<W> {
        JsonWriter::nested(out, 0, false)
    }

    /// A writer inside a container at indent level `depth` (2 for an element of a top-level
    /// object's array), which already holds a value when `has_value`: to render one element
    /// of a document on its own and append it later ([`ListDocument::element`]).
    pub fn nested(out: W, depth: u32, has_value: bool) -> JsonWriter<W> {
        JsonWriter {
            out,
            depth,
            has_value,
        }
    }

    /// The sink, for the text rendered so far.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn indent(&mut self) -> Result {
        // One write per line, not one per level: names of a deep nest's cycles are short lines.
        const SPACES: &str = "                                                                ";
        let mut n = 2 * self.depth as usize;
        while n > 0 {
            let k = n.min(SPACES.len());
            self.out.write_str(&SPACES[..k])?;
            n -= k;
        }
        Ok(())
    }

    /// Starts an element of the array being written (comma, line break, indent).
    pub fn item(&mut self) -> Result {
        self.out
            .write_str(if self.has_value { ",\n" } else { "\n" })?;
        self.indent()
    }

    /// Starts the entry `k` of the object being written: the next value is its value. `k` must
    /// follow the object's previous key in byte order.
    pub fn key(&mut self, k: &str) -> Result {
        self.item()?;
        self.string(k)?;
        self.out.write_str(": ")
    }

    /// `{`.
    pub fn begin_object(&mut self) -> Result {
        self.begin('{')
    }

    /// `}` (on its own line unless the object is empty).
    pub fn end_object(&mut self) -> Result {
        self.end('}')
    }

    /// `[`.
    pub fn begin_array(&mut self) -> Result {
        self.begin('[')
    }

    /// `]` (on its own line unless the array is empty).
    pub fn end_array(&mut self) -> Result {
        self.end(']')
    }

    fn begin(&mut self, c: char) -> Result {
        self.depth += 1;
        self.has_value = false;
        self.out.write_char(c)
    }

    fn end(&mut self, c: char) -> Result {
        self.depth -= 1;
        if self.has_value {
            self.out.write_char('\n')?;
            self.indent()?;
        }
        self.has_value = true;
        self.out.write_char(c)
    }

    /// A string value.
    pub fn str(&mut self, s: &str) -> Result {
        self.has_value = true;
        self.string(s)
    }

    /// A string value written by `f` into `buf` (cleared first): a name or instruction the IR
    /// printer writes into a `String`.
    pub fn str_with(&mut self, buf: &mut String, f: impl FnOnce(&mut String)) -> Result {
        buf.clear();
        f(buf);
        self.str(buf)
    }

    /// An unsigned integer value.
    pub fn uint(&mut self, n: u64) -> Result {
        self.has_value = true;
        write!(self.out, "{n}")
    }

    /// `true` or `false`.
    pub fn bool(&mut self, b: bool) -> Result {
        self.has_value = true;
        self.out.write_str(if b { "true" } else { "false" })
    }

    /// `null`.
    pub fn null(&mut self) -> Result {
        self.has_value = true;
        self.out.write_str("null")
    }

    /// Appends text outside the JSON structure (the final line break of a document).
    pub fn raw(&mut self, text: &str) -> Result {
        self.out.write_str(text)
    }

    /// `s` quoted with serde_json's escapes: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX`
    /// (lower-case hex) for the other control characters; everything else as it is.
    fn string(&mut self, s: &str) -> Result {
        self.out.write_char('"')?;
        let bytes = s.as_bytes();
        // Most names and instructions need no escape: one scan, one write.
        if !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\') {
            self.out.write_str(s)?;
            return self.out.write_char('"');
        }
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: &str = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0..=0x1f => "",
                _ => continue,
            };
            // Escaped bytes are ASCII, so `start..i` are char boundaries.
            self.out.write_str(&s[start..i])?;
            if esc.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.write_str("\\u00")?;
                self.out.write_char(HEX[(b >> 4) as usize] as char)?;
                self.out.write_char(HEX[(b & 15) as usize] as char)?;
            } else {
                self.out.write_str(esc)?;
            }
            start = i + 1;
        }
        self.out.write_str(&s[start..])?;
        self.out.write_char('"')
    }
}

/// A report's document as the CLI streams it: an object whose one array (`list`, one element
/// per function) sits between string-valued keys, all in sorted order:
/// `{ before…, "list": [ … ], after… }`. The CLI writes [`ListDocument::head`], each element
/// through a writer from [`ListDocument::element`], then [`ListDocument::tail`].
pub struct ListDocument<'a> {
    /// The string-valued keys before the array, in order.
    pub before: &'a [(&'a str, &'a str)],
    /// The array's key.
    pub list: &'a str,
    /// The string-valued keys after the array, in order.
    pub after: &'a [(&'a str, &'a str)],
}

impl ListDocument<'_> {
    /// Everything up to the array's `[`.
    pub fn head(&self, out: impl Write) -> Result {
        let mut w = JsonWriter::new(out);
        w.begin_object()?;
        for (k, v) in self.before {
            w.key(k)?;
            w.str(v)?;
        }
        w.key(self.list)?;
        w.begin_array()
    }

    /// A writer for element `index` of the array (its separator written): the caller writes
    /// one value through it. Elements may be rendered apart, into buffers, and appended in order.
    pub fn element<W: Write>(
        out: W,
        index: usize,
    ) -> std::result::Result<JsonWriter<W>, std::fmt::Error> {
        let mut w = JsonWriter::nested(out, 2, index > 0);
        w.item()?;
        Ok(w)
    }

    /// The array's `]` after `count` elements, the keys after it, the final line break.
    pub fn tail(&self, out: impl Write, count: usize) -> Result {
        let mut w = JsonWriter::nested(out, 2, count > 0);
        w.end_array()?;
        for (k, v) in self.after {
            w.key(k)?;
            w.str(v)?;
        }
        w.end_object()?;
        w.raw("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Writes `v` through the writer, keys sorted as `Value` keeps them.
    fn write(w: &mut JsonWriter<String>, v: &Value) {
        match v {
            Value::Null => w.null().unwrap(),
            Value::Bool(b) => w.bool(*b).unwrap(),
            Value::Number(n) => w.uint(n.as_u64().unwrap()).unwrap(),
            Value::String(s) => w.str(s).unwrap(),
            Value::Array(a) => {
                w.begin_array().unwrap();
                for x in a {
                    w.item().unwrap();
                    write(w, x);
                }
                w.end_array().unwrap();
            }
            Value::Object(o) => {
                w.begin_object().unwrap();
                for (k, x) in o {
                    w.key(k).unwrap();
                    write(w, x);
                }
                w.end_object().unwrap();
            }
        }
    }

    fn same_as_serde(v: Value) {
        let mut w = JsonWriter::new(String::new());
        write(&mut w, &v);
        w.raw("\n").unwrap();
        assert_eq!(w.into_inner(), super::super::json_text(&v));
    }

    #[test]
    fn every_ascii_byte_and_some_unicode_escape_as_serde_json_does() {
        let all: String = (0u8..=0x7f).map(char::from).collect();
        same_as_serde(json!({ "s": all, "u": "é ∀ 𝄞 \u{2028} \u{7f} \u{85}" }));
        same_as_serde(json!(["\"quoted\" \\ back", "%\"a b\"", ""]));
    }

    #[test]
    fn nesting_and_empty_containers_lay_out_as_serde_json_does() {
        same_as_serde(json!({}));
        same_as_serde(json!([]));
        same_as_serde(json!({
            "a": [], "b": {}, "c": [[], [1, [2, {}]], {"x": null}],
            "d": {"e": {"f": [true, false, 0, 18446744073709551615u64]}},
            "z": "last"
        }));
    }

    #[test]
    fn a_list_document_streamed_element_by_element_is_serde_json_s() {
        for n in [0usize, 1, 3] {
            let items: Vec<Value> = (0..n)
                .map(|k| json!({ "a": [k, {"b": []}], "name": format!("f{k}") }))
                .collect();
            let doc = json!({ "file": "x \"y\".ll", "functions": items, "schema": "s/1" });
            let d = ListDocument {
                before: &[("file", "x \"y\".ll")],
                list: "functions",
                after: &[("schema", "s/1")],
            };
            let mut out = String::new();
            d.head(&mut out).unwrap();
            for (k, f) in items.iter().enumerate() {
                // Rendered apart, as the CLI renders small functions in parallel.
                let mut w = ListDocument::element(String::new(), k).unwrap();
                write(&mut w, f);
                out.push_str(&w.into_inner());
            }
            d.tail(&mut out, n).unwrap();
            assert_eq!(out, super::super::json_text(&doc), "{n} elements");
        }
    }
}
