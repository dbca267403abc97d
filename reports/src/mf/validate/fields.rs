//! A line of a package's file, split into its fields.

/// A line's fields as the Ministry's validator reads them (CsvHelper): `;` between fields; a
/// field that starts with `"` is quoted, `""` inside it is one `"` and `;` is text, and the
/// closing quote ends the field; a `"` anywhere else in a field makes the line unreadable.
pub(super) fn fields_of(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => {
                        return Err(format!(
                            "field {}: a quote that is not closed",
                            fields.len() + 1
                        ))
                    }
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Ok(fields);
                }
                Some(';') => fields.push(field),
                Some(c) => {
                    return Err(format!(
                        "field {}: `{c}` after the closing quote",
                        fields.len() + 1
                    ))
                }
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Ok(fields);
                    }
                    Some(';') => {
                        fields.push(field);
                        break;
                    }
                    Some('"') => {
                        return Err(format!(
                            "field {}: a quote inside a field that is not quoted",
                            fields.len() + 1
                        ))
                    }
                    Some(c) => field.push(c),
                }
            }
        }
    }
}
