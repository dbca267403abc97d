//! What the pages share: text made safe for HTML.

/// Escapes text for HTML content and attribute values. A character that would reorder or hide
/// the text around it (a bidirectional control, a zero-width character) is shown as its code,
/// `⟦U+202E⟧`, so a page never displays an id other than the one recorded.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if rules::string_limits::is_invisible_format(c) => {
                out.push_str(&format!("⟦U+{:04X}⟧", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_and_invisible_formatting_shown() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        // A right-to-left override would show `R-1\u{202E}9-0` as `R-10-9`.
        assert_eq!(esc("R-1\u{202E}9-0"), "R-1⟦U+202E⟧9-0");
        assert_eq!(esc("a\u{200B}b\u{2066}c"), "a⟦U+200B⟧b⟦U+2066⟧c");
        assert_eq!(esc("Kč ž =A1"), "Kč ž =A1");
    }
}
