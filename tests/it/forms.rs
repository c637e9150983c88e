//! The forms of a page as a browser would send them: each form's action, method and fields
//! (hidden inputs, text inputs and textareas as filled, a select's selected option, checked
//! boxes), read from the page's HTML. Enough for our own templates, not a general HTML parser.

/// One form of a page.
#[derive(Debug, Clone)]
pub struct Form {
    pub action: String,
    pub method: String,
    pub id: String,
    /// Whether it is sent as `multipart/form-data` (an upload).
    pub multipart: bool,
    pub fields: Vec<(String, String)>,
}

impl Form {
    /// The value of the field `name`, if the form has one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets a field (adding it if the form had none), as a person filling it in would.
    pub fn set(&mut self, name: &str, value: &str) -> &mut Form {
        match self.fields.iter_mut().find(|(n, _)| n == name) {
            Some(field) => field.1 = value.to_owned(),
            None => self.fields.push((name.to_owned(), value.to_owned())),
        }
        self
    }

    /// The fields as `reqwest`'s form takes them.
    pub fn pairs(&self) -> Vec<(&str, &str)> {
        self.fields
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect()
    }
}

/// Undoes askama's escaping (and the few named entities).
pub fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let Some(semi) = tail.find(';').filter(|&i| i < 10) else {
            out.push('&');
            rest = &tail[1..];
            continue;
        };
        let entity = &tail[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix('#')
                .and_then(|n| n.parse::<u32>().ok())
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &tail[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of attribute `name` in a tag's text (`<input type="hidden" name="x" ...>`).
pub fn attribute(tag: &str, name: &str) -> Option<String> {
    let needle = format!(" {name}=\"");
    let start = tag.find(&needle)? + needle.len();
    let end = tag[start..].find('"')? + start;
    Some(unescape(&tag[start..end]))
}

fn has_flag(tag: &str, flag: &str) -> bool {
    let inner = tag.trim_end_matches('>');
    inner.split_whitespace().any(|word| word == flag)
}

/// Every tag `<name ...>` in `html`, with the text after it.
fn tags<'a>(html: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    let open = format!("<{name}");
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = html[at..].find(&open) {
        let start = at + i;
        let after_name = start + open.len();
        let boundary = html[after_name..].chars().next();
        let Some(end) = html[start..].find('>') else {
            break;
        };
        let end = start + end + 1;
        if matches!(boundary, Some(' ' | '>' | '\n')) {
            found.push((&html[start..end], &html[end..]));
        }
        at = end;
    }
    found
}

/// The fields of a form's body, in document order.
fn fields(body: &str) -> Vec<(String, String)> {
    let mut fields: Vec<(usize, String, String)> = Vec::new();
    let offset = |part: &str| part.as_ptr() as usize - body.as_ptr() as usize;
    for (tag, _) in tags(body, "input") {
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        let kind = attribute(tag, "type").unwrap_or_else(|| "text".into());
        if matches!(kind.as_str(), "checkbox" | "radio") && !has_flag(tag, "checked") {
            continue;
        }
        if matches!(kind.as_str(), "submit" | "file") {
            continue;
        }
        let value = attribute(tag, "value").unwrap_or_else(|| match kind.as_str() {
            "checkbox" | "radio" => "on".into(),
            _ => String::new(),
        });
        fields.push((offset(tag), name, value));
    }
    for (tag, rest) in tags(body, "textarea") {
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        let text = rest.split("</textarea>").next().unwrap_or_default();
        fields.push((offset(tag), name, unescape(text)));
    }
    for (tag, rest) in tags(body, "select") {
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        let options = rest.split("</select>").next().unwrap_or_default();
        let all = tags(options, "option");
        let chosen = all
            .iter()
            .find(|(option, _)| has_flag(option, "selected"))
            .or_else(|| all.first());
        if let Some((option, _)) = chosen {
            fields.push((
                offset(tag),
                name,
                attribute(option, "value").unwrap_or_default(),
            ));
        }
    }
    fields.sort_by_key(|(at, _, _)| *at);
    fields.into_iter().map(|(_, n, v)| (n, v)).collect()
}

/// Every form of a page.
pub fn forms(page: &str) -> Vec<Form> {
    tags(page, "form")
        .into_iter()
        .map(|(tag, rest)| {
            let body = rest.split("</form>").next().unwrap_or_default();
            Form {
                action: attribute(tag, "action").unwrap_or_default(),
                method: attribute(tag, "method").unwrap_or_else(|| "get".into()),
                id: attribute(tag, "id").unwrap_or_default(),
                multipart: attribute(tag, "enctype").as_deref() == Some("multipart/form-data"),
                fields: fields(body),
            }
        })
        .collect()
}

/// The page's form with this id.
pub fn form_with_id(page: &str, id: &str) -> Form {
    forms(page)
        .into_iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no form #{id} in the page:\n{page}"))
}

/// The page's first form that posts to `action` (the path, before any query).
pub fn form_to(page: &str, action: &str) -> Form {
    forms(page)
        .into_iter()
        .find(|f| f.action.split('?').next() == Some(action))
        .unwrap_or_else(|| panic!("no form to {action} in the page:\n{page}"))
}

#[test]
fn a_form_is_read_as_a_browser_sends_it() {
    let page = r#"<form method="post" action="/a?once=k" id="f"><input type="hidden" name="csrf" value="t&#38;1">
<select name="s"><option value="">— choose —</option><option value="2" selected>B</option></select>
<input type="checkbox" name="c"><input type="checkbox" name="d" checked><textarea name="x">hi &#60;b&#62;</textarea>
<button type="submit">Go</button></form>"#;
    let form = form_with_id(page, "f");
    assert_eq!(form.action, "/a?once=k");
    assert_eq!(
        form.fields,
        vec![
            ("csrf".to_owned(), "t&1".to_owned()),
            ("s".to_owned(), "2".to_owned()),
            ("d".to_owned(), "on".to_owned()),
            ("x".to_owned(), "hi <b>".to_owned()),
        ]
    );
}
