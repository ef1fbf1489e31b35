//! JSON with comments and trailing commas (as VS Code writes `mcp.json`),
//! made plain JSON without moving anything: every removed character becomes
//! a space, so line and column numbers stay true.

/// Blanks out `//` and `/* */` comments and commas before `}` or `]`.
pub(crate) fn to_plain_json(text: &str) -> String {
    let mut out: Vec<u8> = text.as_bytes().to_vec();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    // Index of the last comma outside strings that is still followed only by blanks.
    let mut pending_comma: Option<usize> = None;
    while i < bytes.len() {
        let byte = bytes[i];
        if in_string {
            match byte {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                pending_comma = None;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                let end = (i + 2).min(bytes.len());
                for (offset, slot) in out[start..end].iter_mut().enumerate() {
                    if bytes[start + offset] != b'\n' {
                        *slot = b' ';
                    }
                }
                i = end;
                continue;
            }
            b',' => pending_comma = Some(i),
            b'}' | b']' => {
                if let Some(comma) = pending_comma.take() {
                    out[comma] = b' ';
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => pending_comma = None,
        }
        i += 1;
    }
    // Only ASCII bytes were replaced by ASCII spaces, so the text is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_become_blanks() {
        let text =
            "{\n  // a comment\n  \"a\": \"x // not a comment\", /* b */\n  \"b\": [1, 2,],\n}";
        let plain = to_plain_json(text);
        assert_eq!(plain.len(), text.len());
        let value: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(value["a"], "x // not a comment");
        assert_eq!(value["b"], serde_json::json!([1, 2]));
        assert_eq!(plain.lines().count(), text.lines().count());
    }

    #[test]
    fn escaped_quotes_do_not_end_strings() {
        let plain = to_plain_json(r#"{"a": "q\"//x", }"#);
        let value: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(value["a"], "q\"//x");
    }
}
